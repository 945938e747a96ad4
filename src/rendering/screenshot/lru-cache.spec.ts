import { LruCache } from './lru-cache';

describe('LruCache', () => {
  it('evicts the least recently used entry and reports it', () => {
    const evicted: string[] = [];
    const c = new LruCache<string, number>(2, { onEvict: (k) => evicted.push(k) });
    c.set('a', 1);
    c.set('b', 2);
    expect(c.get('a')).toBe(1);
    c.set('c', 3);
    expect(evicted).toEqual(['b']);
    expect(c.peek('b')).toBeUndefined();
    expect(c.values()).toEqual([1, 3]);
  });

  it('bounds the total weight and skips values heavier than the bound', () => {
    const c = new LruCache<string, Buffer>(10, { maxWeight: 10, weigh: (b) => b.length });
    c.set('a', Buffer.alloc(4));
    c.set('b', Buffer.alloc(4));
    c.set('c', Buffer.alloc(4));
    expect(c.size).toBe(2);
    expect(c.weight).toBe(8);
    c.set('huge', Buffer.alloc(11));
    expect(c.peek('huge')).toBeUndefined();
    expect(c.size).toBe(2);
  });

  it('delete does not call onEvict, clear does', () => {
    const evicted: string[] = [];
    const c = new LruCache<string, number>(5, { onEvict: (k) => evicted.push(k) });
    c.set('a', 1);
    c.set('b', 2);
    c.delete('a');
    c.clear();
    expect(evicted).toEqual(['b']);
    expect(c.size).toBe(0);
  });
});
