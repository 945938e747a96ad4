// JetStreamEventStore reads against the real nats-server: a reader that stops taking events for
// longer than a pull's expiry, and longer than the read consumer's inactive threshold (a slow HTTP
// client; the server deletes the consumer), still gets every event, once and in order, when it
// resumes. Large batches, so a read takes several pulls and the pause falls between two of them.
// And a reader slower than the messages arrive is not sent more than a pull or two ahead.
import { randomBytes, randomUUID } from 'node:crypto';
import { activityHeader } from '../../src/domain/activity/activity-header';
import { summarizeBatch } from '../../src/domain/batch-summary';
import type { RrwebEvent } from '../../src/domain/rrweb-event';
import { pullSize } from '../../src/infrastructure/nats/event-reader';
import { JetStreamEventStore } from '../../src/infrastructure/nats/event-store';
import type { NatsClient } from '../../src/infrastructure/nats/nats-connection';
import { H, recordingSubject } from '../../src/infrastructure/nats/subjects';
import { natsClient } from '../e2e/projections-fixtures';
import { messagesOn } from '../harness/stream-messages';

jest.setTimeout(60_000);

const tenantId = `t_read_${randomBytes(4).toString('hex')}`;
const BATCHES = 60;
const EVENTS = 20;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

let nats: NatsClient;

beforeAll(async () => {
  nats = await natsClient();
});

afterAll(async () => {
  await nats?.close();
});

describe('JetStreamEventStore.readRaw', () => {
  it('gives every event after the reader paused longer than a pull expiry and the consumer inactive threshold', async () => {
    const store = new JetStreamEventStore(nats, 10_000, { pullExpiresMs: 1_000, readInactiveMs: 1_000 });
    const recordingId = randomUUID();
    for (let b = 0; b < BATCHES; b++) {
      // ~600 KB per batch: about 16 messages per pull (pullSize), so 60 batches need several pulls.
      const events: RrwebEvent[] = Array.from({ length: EVENTS }, (_, i) => ({
        type: 3,
        timestamp: 1_000_000 + b * 100 + i,
        data: { b, i, pad: 'x'.repeat(30_000) },
      }));
      const payload = Buffer.from(JSON.stringify(events), 'utf8');
      await store.appendBatch(tenantId, recordingId, `batch-${b}`, payload, summarizeBatch(events, payload.length));
    }
    const timestamps: number[] = [];
    let runs = 0;
    for await (const run of store.readRaw(tenantId, recordingId)) {
      for (const e of run) timestamps.push(e.timestamp);
      if (runs++ === 1) await sleep(4_000);
    }
    const expected = Array.from({ length: BATCHES * EVENTS }, (_, k) => 1_000_000 + Math.floor(k / EVENTS) * 100 + (k % EVENTS));
    expect(timestamps).toEqual(expected);
  });

  it('keeps a slow reader at most a pull or two behind what nats.js received', async () => {
    // Heartbeats every 250 ms: nats.js v2 alone queues a whole pull (~33 messages of 31 KB here) for
    // every 250 ms the reader is behind, all sent once the reader reaches them: ever further ahead.
    const store = new JetStreamEventStore(nats, 10_000, { pullExpiresMs: 5_000, readInactiveMs: 60_000, idleHeartbeatMs: 250 });
    const recordingId = randomUUID();
    const pad = 'y'.repeat(560);
    let batchBytes = 0;
    for (let b = 0; b < 600; b++) {
      const events: RrwebEvent[] = Array.from({ length: 50 }, (_, i) => ({ type: 3, timestamp: 2_000_000 + b * 100 + i, data: { b, i, pad } }));
      const payload = Buffer.from(JSON.stringify(events), 'utf8');
      batchBytes = payload.length;
      await store.appendBatch(tenantId, recordingId, `slow-${b}`, payload, summarizeBatch(events, payload.length));
    }
    let taken = 0;
    let received0 = 0;
    let ahead = 0;
    const t0 = performance.now();
    for await (const run of store.readRaw(tenantId, recordingId)) {
      expect(run).toHaveLength(50);
      if (taken++ === 0) received0 = nats.nc.stats().inMsgs - 1;
      ahead = Math.max(ahead, nats.nc.stats().inMsgs - received0 - taken);
      if (performance.now() - t0 > 8_000) break;
      await sleep(100);
    }
    const pull = pullSize(batchBytes);
    expect(pull).toBeLessThan(40); // the reader gets past the first pull within the test
    expect(taken).toBeGreaterThan(2 * pull);
    expect(ahead).toBeLessThanOrEqual(2 * pull);
  });

  it('ends, instead of waiting forever, when the recording is purged in the middle of a read: 404, as a read started a moment later', async () => {
    // A deletion (DELETE or retention) racing a read: the consumer has nothing left to deliver.
    const store = new JetStreamEventStore(nats, 10_000);
    const recordingId = randomUUID();
    for (let b = 0; b < BATCHES; b++) {
      const events: RrwebEvent[] = Array.from({ length: EVENTS }, (_, i) => ({
        type: 3,
        timestamp: 3_000_000 + b * 100 + i,
        data: { pad: 'z'.repeat(30_000) },
      }));
      const payload = Buffer.from(JSON.stringify(events), 'utf8');
      await store.appendBatch(tenantId, recordingId, `purged-${b}`, payload, summarizeBatch(events, payload.length));
    }
    const t0 = performance.now();
    let runs = 0;
    const reading = (async () => {
      for await (const _run of store.readRaw(tenantId, recordingId)) {
        // The service's own deletion (purge, then a deletion marker), so the projections and a later
        // rebuild agree about the recording (the projections spec compares them over the whole stream).
        if (runs++ === 0) await store.deleteRecording(tenantId, recordingId);
      }
    })();
    await expect(reading).rejects.toMatchObject({ code: 'not_found' });
    expect(runs).toBeLessThan(BATCHES);
    expect(performance.now() - t0).toBeLessThan(15_000);
    // Afterwards the recording reads as empty at once.
    const t1 = performance.now();
    for await (const _run of store.readRaw(tenantId, recordingId)) throw new Error('a purged recording has no events');
    expect(performance.now() - t1).toBeLessThan(2_000);
  });

  it('stores the Td-Activity header with a batch that is one message, and with no chunk of a bigger one', async () => {
    const store = new JetStreamEventStore(nats, 10_000);
    const recordingId = randomUUID();
    const events: RrwebEvent[] = [{ type: 3, timestamp: 1_000, data: { source: 2, type: 2, id: 5, x: 1, y: 2 } }];
    const small = Buffer.from(JSON.stringify(events));
    const header = activityHeader(events)!;
    await store.appendBatch(tenantId, recordingId, 'small', small, summarizeBatch(events, small.length), header);
    const big = Buffer.from(JSON.stringify([...events, { type: 3, timestamp: 1_001, data: { pad: 'z'.repeat(nats.maxPayload) } }]));
    await store.appendBatch(tenantId, recordingId, 'big', big, summarizeBatch(events, big.length), header);
    const heads: [string, string | undefined][] = [];
    for await (const m of messagesOn(nats, recordingSubject(tenantId, recordingId, 'ev'))) {
      heads.push([m.header.get(H.batch), m.header.get(H.activity) || undefined]);
      if (heads.length >= 10) break;
    }
    expect(heads[0]).toEqual(['small', header]);
    expect(heads.length).toBeGreaterThan(2);
    expect(heads.slice(1).every(([b, a]) => b === 'big' && a === undefined)).toBe(true);
  });
});
