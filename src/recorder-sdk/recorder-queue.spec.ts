// Pure logic of the browser recorder (no DOM): batch queue, batching, sequence ids, persistence,
// wire format, CSP violations, backoff and ids.
import fc from 'fast-check';
import { Backoff } from './browser/backoff';
import { BatchQueue } from './browser/batch-queue';
import { EventBuffer } from './browser/event-buffer';
import { isUuid, uuid } from './browser/ids';
import { decodePending, encodePending } from './browser/persist';
import { batchFrame, blockedByPolicy, classifyStatus, eventUrls, isServerUrl, parseServerFrame, slowLinkMs, utf8Length } from './browser/protocol';
import { SequenceCounter } from './browser/sequence';
import { MemoryStore, SafeStore } from './browser/storage';

const body = (n: number) => JSON.stringify(Array.from({ length: n }, (_, i) => ({ type: 3, timestamp: i, data: {} })));

describe('BatchQueue', () => {
  it('hands out batches oldest first, each on one transport at a time', () => {
    const q = new BatchQueue();
    q.add('a', '[1]', 1);
    q.add('b', '[2]', 1);
    const first = q.nextToSend()!;
    expect(first.id).toBe('a');
    q.markInFlight(first, 'ws');
    expect(() => q.markInFlight(first, 'http')).toThrow(/already in flight/);
    expect(q.nextToSend()!.id).toBe('b');
    expect(q.nextToSend((b) => b.id !== 'b')).toBeUndefined();
  });

  it('after a transport drops, resends the unacked batches in order with the same ids', () => {
    const q = new BatchQueue();
    const ids = ['b1', 'b2', 'b3', 'b4', 'b5'];
    for (const id of ids) q.add(id, '[0]', 1);
    for (let b = q.nextToSend(); b; b = q.nextToSend()) q.markInFlight(b, 'ws');
    expect(q.ack('b2')).toBe(true);
    expect(q.ack('b4')).toBe(true);
    expect(q.releaseAll('ws').map((b) => b.id)).toEqual(['b1', 'b3', 'b5']);
    const resent: string[] = [];
    for (let b = q.nextToSend(); b; b = q.nextToSend()) {
      q.markInFlight(b, 'ws');
      resent.push(b.id);
    }
    expect(resent).toEqual(['b1', 'b3', 'b5']);
    expect(q.stats()).toMatchObject({ batches: 5, sent: 5, resent: 3, acked: 2, pending: 3, inFlight: 3 });
  });

  it('keeps a batch in flight on HTTP away from the socket until it is released', () => {
    const q = new BatchQueue();
    q.add('a', '[0]', 1);
    q.add('b', '[0]', 1);
    q.markInFlight(q.nextToSend()!, 'http');
    expect(q.releaseAll('ws')).toEqual([]);
    expect(q.nextToSend()!.id).toBe('b');
    q.release('a');
    expect(q.nextToSend()!.id).toBe('a');
  });

  it('ignores acks of unknown or already settled batches', () => {
    const q = new BatchQueue();
    q.add('a', '[0]', 1);
    expect(q.ack('zzz')).toBe(false);
    expect(q.ack('a')).toBe(true);
    expect(q.ack('a')).toBe(false);
    expect(q.drop('a')).toBe(false);
    expect(q.stats()).toMatchObject({ acked: 1, dropped: 0, pending: 0, eventsAcked: 1 });
  });

  it('counts dropped batches separately from acked ones', () => {
    const q = new BatchQueue();
    q.add('a', '[0,0]', 2);
    expect(q.drop('a')).toBe(true);
    expect(q.stats()).toMatchObject({ acked: 0, dropped: 1, pending: 0, pendingBytes: 0 });
  });

  it('bounds memory by losing the oldest batches', () => {
    const q = new BatchQueue(100);
    q.add('a', 'x'.repeat(40), 1);
    q.add('b', 'x'.repeat(40), 1);
    q.add('c', 'x'.repeat(40), 1);
    expect(q.unacked().map((b) => b.id)).toEqual(['b', 'c']);
    expect(q.stats()).toMatchObject({ lost: 1, pending: 2, pendingBytes: 80 });
  });

  it('restores saved batches in front, skipping ids it already holds', () => {
    const q = new BatchQueue();
    q.add('new', '[0]', 1);
    const n = q.restore([
      { id: 'old1', body: '[0]', events: 1 },
      { id: 'new', body: '[0]', events: 1 },
      { id: 'old2', body: '[0]', events: 1 },
    ]);
    expect(n).toBe(2);
    expect(q.unacked().map((b) => b.id)).toEqual(['old1', 'old2', 'new']);
  });

  it('refuses a duplicate batch id', () => {
    const q = new BatchQueue();
    q.add('a', '[0]', 1);
    expect(() => q.add('a', '[0]', 1)).toThrow(/duplicate/);
  });

  it('whenSettled waits for the batches queued so far only', async () => {
    const q = new BatchQueue();
    q.add('a', '[0]', 1);
    q.add('b', '[0]', 1);
    let settled = false;
    const p = q.whenSettled().then(() => (settled = true));
    q.add('c', '[0]', 1);
    q.ack('b');
    await Promise.resolve();
    expect(settled).toBe(false);
    q.drop('a');
    await p;
    expect(settled).toBe(true);
    expect(q.size).toBe(1);
    await expect(new BatchQueue().whenSettled()).resolves.toBeUndefined();
  });

  it('whenSettled also resolves when the memory bound loses the batches', async () => {
    const q = new BatchQueue(10);
    q.add('a', 'x'.repeat(8), 1);
    const p = q.whenSettled();
    q.add('b', 'x'.repeat(8), 1);
    await expect(p).resolves.toBeUndefined();
  });

  it('property: any interleaving of send/ack/release settles every batch exactly once, in order', () => {
    fc.assert(
      fc.property(fc.array(fc.constantFrom('add', 'sendWs', 'sendHttp', 'ackFirst', 'ackLast', 'dropWs'), { maxLength: 200 }), (ops) => {
        const q = new BatchQueue();
        let n = 0;
        const settled = new Set<string>();
        for (const op of ops) {
          const inFlight = q.unacked().filter((b) => b.inFlight !== null);
          if (op === 'add') q.add(`b${n++}`, '[0]', 1);
          else if (op === 'sendWs' || op === 'sendHttp') {
            const b = q.nextToSend();
            if (b) q.markInFlight(b, op === 'sendWs' ? 'ws' : 'http');
          } else if (op === 'ackFirst' || op === 'ackLast') {
            const b = op === 'ackFirst' ? inFlight[0] : inFlight[inFlight.length - 1];
            if (b) {
              expect(settled.has(b.id)).toBe(false);
              expect(q.ack(b.id)).toBe(true);
              settled.add(b.id);
            }
          } else q.releaseAll('ws');
          const ids = q.unacked().map((b) => Number(b.id.slice(1)));
          expect([...ids].sort((a, b) => a - b)).toEqual(ids);
        }
        const s = q.stats();
        expect(s.acked + s.pending).toBe(n);
        expect(s.acked).toBe(settled.size);
      }),
    );
  });
});

describe('EventBuffer', () => {
  it('cuts at 200 events', () => {
    const buf = new EventBuffer();
    for (let i = 0; i < 199; i++) expect(buf.add('{}')).toBe(false);
    expect(buf.add('{}')).toBe(true);
    const batch = buf.take()!;
    expect(batch.events).toBe(200);
    expect(JSON.parse(batch.body)).toHaveLength(200);
    expect(buf.take()).toBeNull();
  });

  it('cuts at about 512 KiB of JSON', () => {
    const buf = new EventBuffer();
    const big = JSON.stringify({ data: 'x'.repeat(100 * 1024) });
    let full = false;
    let n = 0;
    while (!full) {
      full = buf.add(big);
      n++;
    }
    expect(n).toBe(6);
    expect(buf.take()!.body.length).toBeGreaterThanOrEqual(512 * 1024);
  });

  it('produces a body that is a JSON array of the events', () => {
    const buf = new EventBuffer();
    buf.add('{"type":5,"sequenceId":1}');
    buf.add('{"type":4,"sequenceId":2}');
    expect(JSON.parse(buf.take()!.body)).toEqual([
      { type: 5, sequenceId: 1 },
      { type: 4, sequenceId: 2 },
    ]);
  });
});

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

describe('protocol', () => {
  it('builds batch frames as in docs/websocket.md', () => {
    const events = [{ type: 5, timestamp: 1, data: { tag: 'recording-meta' }, sequenceId: 1 }];
    expect(JSON.parse(batchFrame('id-1', JSON.stringify(events)))).toEqual({ type: 'batch', batch: 'id-1', events });
  });

  it('parses server frames', () => {
    expect(parseServerFrame('{"type":"ack","batch":"b","events":3,"duplicate":false}')).toEqual({ type: 'ack', batch: 'b' });
    expect(parseServerFrame('{"type":"pong"}')).toEqual({ type: 'pong' });
    expect(parseServerFrame('{"type":"error","status":503,"message":"x","batch":"b"}')).toEqual({
      type: 'error',
      status: 503,
      message: 'x',
      batch: 'b',
    });
    expect(parseServerFrame('{"type":"error","status":400,"message":"bad"}')).toEqual({ type: 'error', status: 400, message: 'bad' });
    expect(parseServerFrame('{"type":"upstream-result","ok":true}')).toEqual({ type: 'other' });
    expect(parseServerFrame('garbage')).toEqual({ type: 'other' });
    expect(parseServerFrame(new ArrayBuffer(2))).toEqual({ type: 'other' });
  });

  it.each([
    [200, 'ack'],
    [204, 'ack'],
    [400, 'drop'],
    [401, 'drop'],
    [413, 'drop'],
    [408, 'retry'],
    [429, 'retry'],
    [500, 'retry'],
    [502, 'fallback'],
    [503, 'fallback'],
    [0, 'retry'],
  ])('status %i -> %s', (status, outcome) => {
    expect(classifyStatus(status)).toBe(outcome);
  });

  it('measures UTF-8 bytes like Buffer.byteLength', () => {
    fc.assert(fc.property(fc.string({ unit: 'binary' }), (s) => expect(utf8Length(s)).toBe(Buffer.byteLength(s, 'utf8'))));
    expect(utf8Length('\ud83d')).toBe(3); // lone surrogate becomes U+FFFD
  });

  it.each([
    ['wss://rec.example.com/recordings/x/events/ws?token=k', 'https://rec.example.com', true],
    ['ws://127.0.0.1:4000/recordings/x/events/ws', 'http://127.0.0.1:4000', true],
    ['https://rec.example.com', 'https://rec.example.com', true],
    ['https://rec.example.com/recordings/x/events', 'https://rec.example.com/base', true],
    ['ws://rec.example.com/x', 'https://rec.example.com', false],
    ['wss://rec.example.com:8443/x', 'https://rec.example.com', false],
    ['https://cdn.example.com/a.js', 'https://rec.example.com', false],
    ['inline', 'https://rec.example.com', false],
    ['', 'https://rec.example.com', false],
  ])('isServerUrl(%s, %s) -> %s', (blocked, server, expected) => {
    expect(isServerUrl(blocked, server)).toBe(expected);
  });

  it('reads a CSP violation: sockets to the server blocked, all requests blocked, or nothing that matters', () => {
    const server = 'https://rec.example.com';
    const ev = (blockedURI: string, effectiveDirective = 'connect-src', disposition = 'enforce') => ({ blockedURI, effectiveDirective, disposition });
    expect(blockedByPolicy(ev('wss://rec.example.com/recordings/x/events/ws?token=k'), server)).toBe('websocket');
    expect(blockedByPolicy(ev('https://rec.example.com/recordings/x/events'), server)).toBe('all');
    expect(blockedByPolicy(ev('https://rec.example.com'), server)).toBe('all');
    expect(blockedByPolicy(ev('https://rec.example.com/logo.png', 'img-src'), server)).toBeNull();
    expect(blockedByPolicy(ev('wss://rec.example.com/x', 'connect-src', 'report'), server)).toBeNull();
    expect(blockedByPolicy(ev('https://other.example.com/x'), server)).toBeNull();
  });

  it('names the events endpoint, and the socket beside it with the key as its token', () => {
    expect(eventUrls('https://rec.example.com', 'a b', 'public_key_svc_k+1', true)).toEqual({
      http: 'https://rec.example.com/recordings/a%20b/events',
      websocket: 'wss://rec.example.com/recordings/a%20b/events/ws?token=public_key_svc_k%2B1',
    });
    expect(eventUrls('http://127.0.0.1:4000', 'r', 'k', false)).toEqual({ http: 'http://127.0.0.1:4000/recordings/r/events', websocket: null });
  });

  it('waits longer for bytes still going up a slow link', () => {
    expect(slowLinkMs(0)).toBe(0);
    expect(slowLinkMs(-5)).toBe(0);
    expect(slowLinkMs(64 * 1024)).toBe(1000);
    expect(slowLinkMs(8 * 1024 * 1024)).toBe(128_000);
    fc.assert(fc.property(fc.nat(), fc.nat(), (a, b) => expect(slowLinkMs(a + b)).toBeGreaterThanOrEqual(slowLinkMs(a))));
  });
});

describe('Backoff', () => {
  it('grows from 250 ms to at most 10 s, with jitter, and resets', () => {
    const low = new Backoff(250, 10_000, () => 0);
    const high = new Backoff(250, 10_000, () => 0.999999);
    const lows = Array.from({ length: 10 }, () => low.next());
    const highs = Array.from({ length: 10 }, () => high.next());
    expect(lows[0]).toBe(250);
    expect(highs[0]).toBe(250);
    expect(highs[3]).toBe(2000);
    expect(Math.max(...highs)).toBe(10_000);
    for (const d of [...lows, ...highs]) expect(d).toBeGreaterThanOrEqual(250);
    expect(lows[9]).toBe(5000);
    high.reset();
    expect(high.next()).toBe(250);
  });
});

describe('ids', () => {
  it('makes v4 UUIDs with randomUUID, getRandomValues, or nothing', () => {
    expect(uuid({ randomUUID: () => '123e4567-e89b-42d3-a456-426614174000' })).toBe('123e4567-e89b-42d3-a456-426614174000');
    const viaBytes = uuid({ getRandomValues: (a) => a.fill(0xff) });
    expect(viaBytes).toBe('ffffffff-ffff-4fff-bfff-ffffffffffff');
    const ids = new Set(Array.from({ length: 100 }, () => uuid({})));
    expect(ids.size).toBe(100);
    for (const id of ids) expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(isUuid(uuid())).toBe(true);
    expect(isUuid('nope')).toBe(false);
  });
});
