// Pure logic of the browser recorder (no DOM): what it keeps in sessionStorage, the sequence ids
// and the unacked batches saved for the next page of the tab.
import fc from 'fast-check';
import { decodePending, encodePending } from './browser/persist';
import { SequenceCounter } from './browser/sequence';
import { MemoryStore, SafeStore } from './browser/storage';

const body = (n: number) => JSON.stringify(Array.from({ length: n }, (_, i) => ({ type: 3, timestamp: i, data: {} })));

describe('SequenceCounter', () => {
  it('is strictly increasing from 1', () => {
    const c = new SequenceCounter(new MemoryStore(), 'k', 10);
    expect([c.next(), c.next(), c.next()]).toEqual([1, 2, 3]);
  });

  it('never reuses an id after a reload, even without commit (page crashed)', () => {
    fc.assert(
      fc.property(fc.array(fc.tuple(fc.nat(300), fc.boolean()), { minLength: 1, maxLength: 10 }), (pages) => {
        const store = new MemoryStore();
        let last = 0;
        for (const [events, committed] of pages) {
          const c = new SequenceCounter(store, 'seq', 100);
          for (let i = 0; i < events; i++) {
            const id = c.next();
            expect(id).toBeGreaterThan(last);
            last = id;
          }
          if (committed) c.commit();
        }
      }),
    );
  });

  it('after resync (back/forward-cache restore) continues after the ids later pages of the tab used', () => {
    const store = new MemoryStore();
    const a = new SequenceCounter(store, 'seq');
    expect([a.next(), a.next()]).toEqual([1, 2]);
    a.commit(); // pagehide
    const b = new SequenceCounter(store, 'seq'); // the next page of the tab
    expect([b.next(), b.next()]).toEqual([3, 4]);
    b.commit();
    a.resync(); // pageshow, persisted
    expect(a.next()).toBe(5);
    expect(new SequenceCounter(store, 'seq').next()).toBeGreaterThan(5);
  });

  it('leaves no gap across a reload after commit', () => {
    const store = new MemoryStore();
    const a = new SequenceCounter(store, 'seq');
    a.next();
    a.next();
    a.commit();
    expect(new SequenceCounter(store, 'seq').next()).toBe(3);
    a.next(); // the page went on after all: it leases again
    expect(a.peek()).toBe(4);
  });

  it("never lowers the counter below a newer page's lease (that page's pagehide ran late)", () => {
    const store = new MemoryStore();
    const old = new SequenceCounter(store, 'seq', 10);
    expect([old.next(), old.next()]).toEqual([1, 2]);
    const next = new SequenceCounter(store, 'seq', 10); // started before the old page's pagehide
    const ids = Array.from({ length: 15 }, () => next.next());
    old.commit(); // would write 3
    expect(Number(store.getItem('seq'))).toBeGreaterThan(Math.max(...ids));
    next.commit(); // its own exact commit still lowers its own lease: the page after it has no gap
    expect(new SequenceCounter(store, 'seq', 10).next()).toBe(Math.max(...ids) + 1);
  });

  it('keeps counting in memory when storage throws', () => {
    const broken = {
      getItem: () => {
        throw new Error('denied');
      },
      setItem: () => {
        throw new Error('quota');
      },
      removeItem: () => undefined,
    };
    const c = new SequenceCounter(new SafeStore(broken), 'seq');
    expect([c.next(), c.next()]).toEqual([1, 2]);
  });

  it('ignores garbage in storage', () => {
    const store = new MemoryStore();
    store.setItem('seq', 'banana');
    expect(new SequenceCounter(store, 'seq').next()).toBe(1);
  });
});

describe('persistence of unacked batches', () => {
  it('round-trips and keeps the newest batches within the bound', () => {
    const batches = ['a', 'b', 'c'].map((id) => ({ id, body: body(3), events: 3 }));
    expect(decodePending(encodePending(batches))).toEqual(batches);
    const size = batches[0].body.length + 1 + 32;
    const text = encodePending(batches, size * 2);
    expect(decodePending(text).map((b) => b.id)).toEqual(['b', 'c']);
    expect(encodePending([])).toBeNull();
  });

  it('drops malformed entries', () => {
    expect(decodePending('not json')).toEqual([]);
    expect(decodePending(null)).toEqual([]);
    const text = JSON.stringify({
      v: 1,
      batches: [{ id: 'ok', body: '[]', events: 0 }, { id: 'bad id!', body: '[]', events: 0 }, { id: 'x' }, null],
    });
    expect(decodePending(text)).toEqual([{ id: 'ok', body: '[]', events: 0 }]);
  });
});
