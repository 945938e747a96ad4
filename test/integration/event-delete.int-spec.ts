// Deleting one recording against the real nats-server (2.9.10 here): every other recording's
// messages still reach a durable consumer with a wider filter (the projector's shape) and a read in
// flight. A filtered stream purge on this server moved such consumers past the stream's last message,
// so the projector silently skipped batches acknowledged to clients around a DELETE.
import { randomBytes, randomUUID } from 'node:crypto';
import { AckPolicy, DeliverPolicy } from 'nats';
import { JetStreamEventStore } from '../../src/infrastructure/nats/event-store';
import type { NatsClient } from '../../src/infrastructure/nats/nats-connection';
import { EVENTS_STREAM, parseSubject, recordingSubject } from '../../src/infrastructure/nats/subjects';
import { appendBatch, natsClient } from '../e2e/projections-fixtures';

jest.setTimeout(60_000);

const tenantId = `t_del_${randomBytes(4).toString('hex')}`;
const batch = (ts: number) => [{ type: 3, timestamp: ts, data: { source: 1, positions: [] } }];

let nats: NatsClient;
let store: JetStreamEventStore;

beforeAll(async () => {
  nats = await natsClient();
  store = new JetStreamEventStore(nats, 10_000);
});

afterAll(async () => {
  await nats?.close();
});

/** Fetches up to `max` messages of a durable consumer, acknowledging none; returns their subjects' recording and kind. */
async function fetch(durable: string, max: number): Promise<string[]> {
  const c = await nats.js.consumers.get(EVENTS_STREAM, durable);
  const got: string[] = [];
  for await (const m of await c.fetch({ max_messages: max, expires: 1_000 })) {
    const s = parseSubject(m.subject)!;
    got.push(`${s.recordingId}.${s.kind}`);
  }
  return got;
}

describe('JetStreamEventStore.deleteRecording', () => {
  it("leaves a wider consumer in the middle of the stream on every other recording's messages", async () => {
    const [deleted, kept] = [randomUUID(), randomUUID()];
    const durable = `wide_${randomBytes(4).toString('hex')}`;
    await nats.jsm.consumers.add(EVENTS_STREAM, {
      durable_name: durable,
      filter_subject: `td.rec.${tenantId}.>`,
      ack_policy: AckPolicy.Explicit,
      deliver_policy: DeliverPolicy.All,
    });
    try {
      await appendBatch(store, tenantId, deleted, batch(1_000), 'd1');
      await appendBatch(store, tenantId, deleted, batch(1_001), 'd2');
      await appendBatch(store, tenantId, kept, batch(2_000), 'k1');
      // Like the projector lingering between two pulls: one message taken, the rest waiting.
      expect(await fetch(durable, 1)).toEqual([`${deleted}.ev`]);
      await appendBatch(store, tenantId, kept, batch(2_001), 'k2');

      const { deleted: removed } = await store.deleteRecording(tenantId, deleted);
      expect(removed).toBe(2);

      // Deleted messages are not delivered; everything else is, the marker included.
      expect(await fetch(durable, 10)).toEqual([`${kept}.ev`, `${kept}.ev`, `${deleted}.del`]);
      expect(await store.messageCounts(tenantId, deleted)).toEqual({ ev: 0, meta: 0, del: 1, kf: 0 });
      const events: number[] = [];
      for await (const e of store.read(tenantId, kept)) events.push(e.timestamp);
      expect(events).toEqual([2_000, 2_001]);
    } finally {
      await nats.jsm.consumers.delete(EVENTS_STREAM, durable);
    }
  });

  it('keeps events written for the same id after the deletion, and removes every earlier marker on the next one', async () => {
    const id = randomUUID();
    await appendBatch(store, tenantId, id, batch(1_000), 'a1');
    await store.deleteRecording(tenantId, id);
    await appendBatch(store, tenantId, id, batch(5_000), 'a2');
    const after: number[] = [];
    for await (const e of store.read(tenantId, id)) after.push(e.timestamp);
    expect(after).toEqual([5_000]);
    expect(await store.messageCounts(tenantId, id)).toEqual({ ev: 1, meta: 0, del: 1, kf: 0 });

    expect((await store.deleteRecording(tenantId, id)).deleted).toBe(2); // the batch and the first marker
    expect(await store.messageCounts(tenantId, id)).toEqual({ ev: 0, meta: 0, del: 1, kf: 0 });
  });

  it('finishes a deletion interrupted after its marker before anything reads what it deleted', async () => {
    // As left by a process killed right after storing the marker: every message still below it.
    const id = randomUUID();
    await appendBatch(store, tenantId, id, batch(1_000), 'i1');
    await appendBatch(store, tenantId, id, batch(1_001), 'i2');
    await store.appendMetadata(tenantId, id, 'im1', { user: 'u-1' });
    await nats.js.publish(recordingSubject(tenantId, id, 'del'), new TextEncoder().encode('{}'), { msgID: `del.${randomUUID()}` });

    const read: number[] = [];
    for await (const e of store.read(tenantId, id)) read.push(e.timestamp);
    expect(read).toEqual([]);
    expect(await store.messageCounts(tenantId, id)).toEqual({ ev: 0, meta: 0, del: 1, kf: 0 });

    // Written again afterwards: the new recording only.
    await appendBatch(store, tenantId, id, batch(9_000), 'i3');
    const again: number[] = [];
    for await (const e of store.read(tenantId, id)) again.push(e.timestamp);
    expect(again).toEqual([9_000]);
  });

  it('lets several deletions of one recording run at once (a retried DELETE, two retention sweepers): all succeed', async () => {
    const id = randomUUID();
    for (let i = 0; i < 150; i++) await appendBatch(store, tenantId, id, batch(1_000 + i), `c${i}`);
    // nats-server 2.9 answers deleting a message another deletion took first with "sequence N not found".
    const results = await Promise.allSettled([store.deleteRecording(tenantId, id), store.deleteRecording(tenantId, id), store.deleteRecording(tenantId, id)]);
    expect(results.map((r) => r.status)).toEqual(['fulfilled', 'fulfilled', 'fulfilled']);
    const total = results.reduce((n, r) => n + (r.status === 'fulfilled' ? r.value.deleted : 0), 0);
    expect(total).toBeGreaterThanOrEqual(150);
    expect(await store.messageCounts(tenantId, id)).toMatchObject({ ev: 0, meta: 0 });
  });
});
