// JetStreamEventStore reads against the real nats-server: a reader that stops taking events for
// longer than a pull's expiry, and longer than the read consumer's inactive threshold (a slow HTTP
// client; the server deletes the consumer), still gets every event, once and in order, when it
// resumes. Large batches, so a read takes several pulls and the pause falls between two of them.
import { randomBytes, randomUUID } from 'node:crypto';
import { summarizeBatch } from '../../src/domain/batch-summary';
import type { RrwebEvent } from '../../src/domain/rrweb-event';
import { JetStreamEventStore } from '../../src/infrastructure/nats/event-store';
import type { NatsClient } from '../../src/infrastructure/nats/nats-connection';
import { natsClient } from '../e2e/projections-fixtures';

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
      const events: RrwebEvent[] = Array.from({ length: EVENTS }, (_, i) => ({ type: 3, timestamp: 1_000_000 + b * 100 + i, data: { b, i, pad: 'x'.repeat(30_000) } }));
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
});
