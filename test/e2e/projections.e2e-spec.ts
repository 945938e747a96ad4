// The projector against the real stack: batches and metadata become ClickHouse rows, duplicates and
// redeliveries are counted once, deletions hide older rows, and a deleted consumer is re-created.
// The rebuild has a stack of its own (projections-rebuild.e2e-spec.ts).
import { randomUUID } from 'node:crypto';
import type { ClickHouse } from '../../src/infrastructure/clickhouse/clickhouse-client';
import { ident, sql } from '../../src/infrastructure/clickhouse/sql';
import type { NatsClient } from '../../src/infrastructure/nats/nats-connection';
import { EVENTS_STREAM, recordingSubject } from '../../src/infrastructure/nats/subjects';
import { testEnv } from '../harness/env';
import { api, postEvents, sampleEvents } from '../harness/http';
import { pollUntil } from '../harness/poll-until';
import {
  clickhouse,
  CONSUMER,
  deleteRecording,
  metaEvent,
  natsClient,
  publishRaw,
  recordingCounts,
  runCli,
  storedHeaders,
  waitCaughtUp,
} from './projections-fixtures';

let ch: ClickHouse;
let nats: NatsClient;

beforeAll(async () => {
  ch = clickhouse();
  nats = await natsClient();
});

afterAll(async () => {
  await ch?.close();
  await nats?.close();
});

const tenant = () => testEnv().tenantId;
const postMetadata = (id: string, body: Record<string, unknown>) =>
  api(`/recordings/${id}/metadata`, { method: 'POST', key: testEnv().publicKey, headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });

async function metadataOf(tenantId: string, id: string): Promise<Record<string, string>> {
  const rows = await ch.rows<{ key: string; value: string }>(
    sql`SELECT key, argMax(value, seq) AS value FROM recording_metadata WHERE tenant_id = ${tenantId} AND recording_id = ${id} GROUP BY key ORDER BY key`,
  );
  return Object.fromEntries(rows.map((r) => [r.key, r.value]));
}

describe('projections', () => {
  it('projects batches, per-minute counts, in-band and written metadata; later writes win', async () => {
    const id = randomUUID();
    const t0 = Date.UTC(2030, 0, 1, 10, 0, 30);
    expect(
      (
        await postEvents(id, [
          ...sampleEvents(10, t0, { width: 1280, height: 720, href: 'https://shop.test/' }),
          metaEvent(t0 + 20, { plan: 'free', user: 'u1' }),
        ])
      ).status,
    ).toBe(200);
    expect((await postMetadata(id, { plan: 'pro', region: 'eu' })).status).toBe(200);
    expect((await postEvents(id, [...sampleEvents(5, t0 + 60_000).slice(2), metaEvent(t0 + 60_010, { plan: 'enterprise' })])).status).toBe(200);

    const counts = await pollUntil(
      () => recordingCounts(ch, tenant(), id),
      (c) => c.batches === 2 && c.minuteEvents === 13,
    );
    expect(counts).toMatchObject({ batches: 2, events: 13, minuteEvents: 13 });
    await pollUntil(
      () => metadataOf(tenant(), id),
      (m) => m.plan === 'enterprise',
    );
    expect(await metadataOf(tenant(), id)).toEqual({ plan: 'enterprise', region: 'eu', user: 'u1' });

    const [first] = await ch.rows<Record<string, unknown>>(
      sql`SELECT event_count, page_views, viewport_width, viewport_height, url, type_keys, type_counts FROM recording_batches FINAL WHERE tenant_id = ${tenant()} AND recording_id = ${id} ORDER BY min_ts LIMIT 1`,
    );
    expect(first).toEqual({
      event_count: 10,
      page_views: 1,
      viewport_width: 1280,
      viewport_height: 720,
      url: 'https://shop.test/',
      type_keys: [2, 3, 4],
      type_counts: [1, 8, 1],
    });
    const [rec] = await ch.rows<{ started_at: string }>(
      sql`SELECT min(started_at) AS started_at FROM recordings WHERE tenant_id = ${tenant()} AND recording_id = ${id}`,
    );
    expect(Number(rec.started_at)).toBe(t0);
    const byKey = await ch.rows<{ key: string }>(
      sql`SELECT DISTINCT key FROM recording_metadata_by_key WHERE tenant_id = ${tenant()} AND recording_id = ${id} ORDER BY key`,
    );
    expect(byKey.map((r) => r.key)).toEqual(['plan', 'region', 'user']);
  });

  it('counts a retried batch once, also when it was stored twice (retry after the de-duplication window)', async () => {
    const id = randomUUID();
    const events = sampleEvents(8);
    expect((await postEvents(id, events)).json().duplicate).toBe(false);
    expect((await postEvents(id, events)).json().duplicate).toBe(true);
    // Store the batch again under a new Nats-Msg-Id, as a retry a day later would be.
    const last = await nats.jsm.streams.getMessage(EVENTS_STREAM, { last_by_subj: recordingSubject(tenant(), id, 'ev') });
    const heads = await storedHeaders(nats, last.seq);
    expect(heads.subject).toBe(recordingSubject(tenant(), id, 'ev'));
    const late = await publishRaw(nats, heads.subject, heads.data, heads.headers, `late-${randomUUID()}`);
    expect(late.duplicate).toBe(false);

    await waitCaughtUp(nats);
    const c = await recordingCounts(ch, tenant(), id);
    expect(c).toMatchObject({ batches: 1, events: 8, minuteEvents: 8 });
    // The late copy reached ClickHouse: its sequence is the batch's version, whether the two rows are
    // still both stored (raw 2) or a background merge already replaced one with the other (raw 1).
    const [v] = await ch.rows<{ seq: string }>(sql`SELECT max(seq) AS seq FROM recording_batches WHERE tenant_id = ${tenant()} AND recording_id = ${id}`);
    expect(Number(v.seq)).toBe(late.seq);
    expect([1, 2]).toContain(c.raw);
  });

  it('redelivers a batch whose write failed halfway and still counts it once (nak, backoff, catch-up)', async () => {
    const id = randomUUID();
    await ch.command(sql`RENAME TABLE recording_minutes TO recording_minutes_away`);
    try {
      expect((await postEvents(id, sampleEvents(12))).status).toBe(200);
      // recording_batches is written first, recording_minutes fails: the batch is nak'ed and comes back.
      const copies = () => ch.rows<{ n: string }>(sql`SELECT count() AS n FROM recording_batches WHERE tenant_id = ${tenant()} AND recording_id = ${id}`);
      await pollUntil(copies, (r) => Number(r[0].n) >= 2, 30_000);
      const ready = await api('/readyz');
      expect(ready.json().details.projections.recordings.failures).toBeGreaterThan(0);
    } finally {
      await ch.command(sql`RENAME TABLE recording_minutes_away TO recording_minutes`);
    }
    const c = await pollUntil(
      () => recordingCounts(ch, tenant(), id),
      (x) => x.minuteEvents === 12,
      60_000,
    );
    // Stored twice or more (seen above, while the write failed), counted once. The raw copies are not
    // checked again here: a background merge may already have folded them.
    expect(c).toMatchObject({ batches: 1, events: 12, minuteEvents: 12 });
  });

  it('hides a deleted recording, and shows what is written after its deletion', async () => {
    const id = randomUUID();
    expect((await postEvents(id, sampleEvents(6))).status).toBe(200);
    expect((await postMetadata(id, { gone: 'soon' })).status).toBe(200);
    await pollUntil(
      () => recordingCounts(ch, tenant(), id),
      (c) => c.batches === 1,
    );
    await deleteRecording(nats, tenant(), id);
    await pollUntil(
      () => recordingCounts(ch, tenant(), id),
      (c) => c.batches === 0 && c.raw === 0,
    );
    await pollUntil(
      () => ch.rows<{ n: string }>(sql`SELECT count() AS n FROM recording_metadata WHERE tenant_id = ${tenant()} AND recording_id = ${id}`),
      (r) => Number(r[0].n) === 0,
    );
    expect((await postEvents(id, sampleEvents(3, Date.now() + 1000))).status).toBe(200);
    expect(
      await pollUntil(
        () => recordingCounts(ch, tenant(), id),
        (c) => c.batches === 1,
      ),
    ).toMatchObject({ batches: 1, events: 3 });
  });

  it('re-creates its durable consumer when it is deleted, and carries on', async () => {
    await waitCaughtUp(nats);
    await nats.jsm.consumers.delete(EVENTS_STREAM, CONSUMER);
    const id = randomUUID();
    expect((await postEvents(id, sampleEvents(4))).status).toBe(200);
    await pollUntil(
      () => recordingCounts(ch, tenant(), id),
      (c) => c.batches === 1,
      60_000,
    );
    await waitCaughtUp(nats);
  });

  it('reports lag per projection (projections status)', async () => {
    await waitCaughtUp(nats);
    const r = await runCli(['projections', 'status', '--json']).done;
    expect(r.code).toBe(0);
    const [row] = JSON.parse(r.stdout);
    expect(row).toMatchObject({ projection: 'recordings', consumer: CONSUMER, lag: { pending: 0, ackPending: 0, oldestUnprojectedAgeSeconds: 0 } });
    const text = await runCli(['projections', 'status']).done;
    expect(text.stdout).toMatch(/^recordings\tconsumer projector-recordings\tpending 0/);
  });

  it('reports the tables of a rebuild that stopped part way (projections status)', async () => {
    // A rebuild killed before its swap leaves fresh tables; one killed after it, the retired ones.
    const fresh = ['recordings_rebuild_1000', 'deleted_recordings_rebuild_1000'];
    const retired = ['recordings_old_2000'];
    for (const t of [...fresh, ...retired]) await ch.command(sql`CREATE TABLE IF NOT EXISTS ${ident(t)} AS recordings`);
    try {
      const r = await runCli(['projections', 'status', '--json']).done;
      expect(r.code).toBe(0);
      expect(JSON.parse(r.stdout)[0].leftovers).toEqual([
        { kind: 'fresh', suffix: '1000', startedAt: '1970-01-01T00:00:01.000Z', tables: [...fresh].sort() },
        { kind: 'retired', suffix: '2000', startedAt: '1970-01-01T00:00:02.000Z', tables: retired },
      ]);
      const text = (await runCli(['projections', 'status']).done).stdout.split('\n');
      expect(text).toContainEqual(expect.stringMatching(/^recordings\tleftover 2 fresh tables \*_rebuild_1000 .*stopped before its swap/));
      expect(text).toContainEqual(expect.stringMatching(/^recordings\tleftover 1 retired tables \*_old_2000 .*run projections rebuild again/));
    } finally {
      for (const t of [...fresh, ...retired]) await ch.command(sql`DROP TABLE IF EXISTS ${ident(t)}`);
    }
  });
});
