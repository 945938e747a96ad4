// Pure logic of the browser recorder (no DOM): the batch queue and the cutting of events into batches.
import fc from 'fast-check';
import { BatchQueue } from './browser/batch-queue';
import { EventBuffer } from './browser/event-buffer';

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
