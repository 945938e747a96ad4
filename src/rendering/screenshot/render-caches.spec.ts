// What the screenshot renderer expects of its caches (formerly the spec of the hand-written LruCache).
import { imageCache, warmPageCache } from './render-caches';

class Page {
  busy = false;
  closed = false;
  constructor(readonly name: string) {}
  async close(): Promise<void> {
    this.closed = true;
  }
}

describe('warmPageCache', () => {
  it('keeps at most N pages and closes the least recently used one it pushes out', () => {
    const c = warmPageCache<Page>(2);
    const [a, b, x] = [new Page('a'), new Page('b'), new Page('c')];
    c.set('a', a);
    c.set('b', b);
    expect(c.get('a')).toBe(a);
    c.set('c', x);
    expect([a.closed, b.closed, x.closed]).toEqual([false, true, false]);
    expect(c.peek('b')).toBeUndefined();
    expect([...c.values()].sort((p, q) => p.name.localeCompare(q.name))).toEqual([a, x]);
  });

  it('leaves a busy page it pushes out open, for the render using it to close', () => {
    const c = warmPageCache<Page>(1);
    const busy = new Page('a');
    busy.busy = true;
    c.set('a', busy);
    c.set('b', new Page('b'));
    expect(busy.closed).toBe(false);
    expect(c.peek('a')).toBeUndefined();
  });

  it('leaves pages taken out with delete() or clear() to the caller', () => {
    const c = warmPageCache<Page>(5);
    const [a, b] = [new Page('a'), new Page('b')];
    c.set('a', a);
    c.set('b', b);
    c.delete('a');
    c.clear();
    expect([a.closed, b.closed]).toEqual([false, false]);
    expect(c.size).toBe(0);
  });

  it('can be built with warming off', () => {
    expect(() => warmPageCache<Page>(0)).not.toThrow();
  });
});

describe('imageCache', () => {
  const image = (n: number) => ({ bytes: Buffer.alloc(n) });

  it('bounds the total bytes and keeps no image heavier than the bound', () => {
    const c = imageCache<{ bytes: Buffer }>(10, 10);
    c.set('a', image(4));
    c.set('b', image(4));
    c.set('c', image(4));
    expect(c.size).toBe(2);
    expect(c.calculatedSize).toBe(8);
    expect(c.peek('a')).toBeUndefined();
    c.set('huge', image(11));
    expect(c.peek('huge')).toBeUndefined();
    expect(c.size).toBe(2);
  });

  it('bounds the count too, and takes an empty image', () => {
    const c = imageCache<{ bytes: Buffer }>(2, 1000);
    c.set('empty', image(0));
    expect(c.peek('empty')).toBeDefined();
    c.set('b', image(1));
    c.set('c', image(1));
    expect(c.size).toBe(2);
    expect(c.peek('empty')).toBeUndefined();
  });
});
