// Helpers of the projection specs: direct ClickHouse and NATS clients on the test stack, the
// de-duplicated visible content of every projection table, and the CLI as a child process.
import { randomUUID } from 'node:crypto';
import { headers as natsHeaders } from 'nats';
import { loadConfig } from '../../src/config/config';
import { summarizeBatch } from '../../src/domain/batch-summary';
import type { RrwebEvent } from '../../src/domain/rrweb-event';
import { ClickHouse } from '../../src/infrastructure/clickhouse/clickhouse-client';
import { ident, join, Sql, sql } from '../../src/infrastructure/clickhouse/sql';
import type { JetStreamEventStore } from '../../src/infrastructure/nats/event-store';
import { NatsClient } from '../../src/infrastructure/nats/nats-connection';
import { EVENTS_STREAM, H, recordingSubject } from '../../src/infrastructure/nats/subjects';
import { consumerName } from '../../src/projections/consumer-config';
import { PROJECTIONS } from '../../src/projections/projections.registry';
import { testEnv } from '../harness/env';
import { pollUntil } from '../harness/poll-until';

export const CONSUMER = consumerName({ name: 'recordings' });

/** The shared stack's ClickHouse database, or another stack's (from its service environment). */
export const clickhouse = (env: Record<string, string> = testEnv().serviceEnv) =>
  new ClickHouse({ CLICKHOUSE_URL: env.CLICKHOUSE_URL, CLICKHOUSE_USER: 'default', CLICKHOUSE_PASSWORD: '', CLICKHOUSE_DATABASE: env.CLICKHOUSE_DATABASE });

export const natsClient = (url = testEnv().natsUrl) => NatsClient.connect(loadConfig({ NATS_URL: url }), 'projections-e2e');

/** Waits until every projection's durable consumer has acknowledged every message of the stream. */
export async function waitCaughtUp(nats: NatsClient, timeoutMs = 60_000): Promise<void> {
  await pollUntil(
    async () => {
      const [si, ...cis] = await Promise.all([
        nats.jsm.streams.info(EVENTS_STREAM),
        ...PROJECTIONS.map((p) => nats.jsm.consumers.info(EVENTS_STREAM, consumerName(p))),
      ]);
      return cis.map((ci) => ({
        consumer: ci.name,
        pending: ci.num_pending,
        ackPending: ci.num_ack_pending,
        floor: ci.ack_floor.stream_seq,
        last: si.state.last_seq,
      }));
    },
    (ls) => ls.every((l) => l.pending === 0 && l.ackPending === 0 && l.floor >= l.last),
    timeoutMs,
    200,
  );
}

/** Stores a message the way a retry after the de-duplication window would: same batch, new Nats-Msg-Id. */
export async function publishRaw(nats: NatsClient, subject: string, data: Uint8Array, h: Record<string, string>, msgID: string) {
  const hdrs = natsHeaders();
  for (const [k, v] of Object.entries(h)) hdrs.set(k, v);
  return nats.js.publish(subject, data, { msgID, headers: hdrs });
}

/** Appends a batch for any tenant straight to the event store (as ingestion does). */
export function appendBatch(store: JetStreamEventStore, tenantId: string, id: string, events: unknown[], batchId: string = randomUUID()) {
  const payload = Buffer.from(JSON.stringify(events));
  return store.appendBatch(tenantId, id, batchId, payload, summarizeBatch(events as RrwebEvent[], payload.length));
}

/** Stores a deletion marker for a recording, as DELETE /recordings/{id} does. */
export function deleteRecording(nats: NatsClient, tenantId: string, id: string) {
  return publishRaw(nats, recordingSubject(tenantId, id, 'del'), new Uint8Array(), {}, `del-${randomUUID()}`);
}

/** An rrweb custom event carrying recording metadata, as rrweb's clients send it. */
export const metaEvent = (ts: number, payload: Record<string, unknown>) => ({ type: 5, timestamp: ts, data: { tag: 'recording-meta', payload } });

/** Copies the headers of a stored message (to publish it again). */
export async function storedHeaders(nats: NatsClient, seq: number): Promise<{ subject: string; data: Uint8Array; headers: Record<string, string> }> {
  const m = await nats.jsm.streams.getMessage(EVENTS_STREAM, { seq });
  const h: Record<string, string> = {};
  for (const k of [H.batch, H.chunk, H.summary]) {
    const v = m.header?.get(k);
    if (v) h[k] = v;
  }
  return { subject: m.subject, data: m.data, headers: h };
}

const DELETED = sql`(SELECT tenant_id, recording_id, max(seq) AS deleted_seq FROM deleted_recordings GROUP BY tenant_id, recording_id)`;

/** Rows of a table after de-duplication (FINAL) and the deletion rule, in key order. */
function visible(table: string, columns: string[], order: string[]): Sql {
  const cols = join(columns.map(ident), ', ');
  const by = join(order.map(ident), ', ');
  return sql`SELECT ${cols} FROM (SELECT ${cols} FROM ${ident(table)} FINAL) AS projected ANY LEFT JOIN ${DELETED} AS deletions USING (tenant_id, recording_id) WHERE seq > deleted_seq ORDER BY ${by}`;
}

const BATCH_COLS = [
  'tenant_id',
  'recording_id',
  'batch_id',
  'seq',
  'event_count',
  'bytes',
  'min_ts',
  'max_ts',
  'page_views',
  'meta_ts',
  'viewport_width',
  'viewport_height',
  'url',
  'type_keys',
  'type_counts',
  'ingested_at',
];
const META_COLS = ['tenant_id', 'recording_id', 'key', 'value', 'seq', 'written_at'];

/** What reads see in every projection table. */
export async function snapshot(ch: ClickHouse): Promise<Record<string, Record<string, unknown>[]>> {
  const q = (s: Sql) => ch.rows<Record<string, unknown>>(s);
  return {
    recording_batches: await q(visible('recording_batches', BATCH_COLS, ['tenant_id', 'recording_id', 'batch_id'])),
    recording_timeline: await q(
      visible(
        'recording_timeline',
        BATCH_COLS.filter((c) => c !== 'type_keys' && c !== 'type_counts'),
        ['tenant_id', 'min_ts', 'recording_id', 'batch_id'],
      ),
    ),
    recording_minutes: await q(
      visible(
        'recording_minutes',
        ['tenant_id', 'recording_id', 'batch_id', 'minute', 'seq', 'event_count'],
        ['tenant_id', 'minute', 'recording_id', 'batch_id'],
      ),
    ),
    recording_keyframes: await q(
      visible('recording_keyframes', ['tenant_id', 'recording_id', 'kind', 'ts', 'seq'], ['tenant_id', 'recording_id', 'ts', 'kind', 'seq']),
    ),
    recording_metadata: await q(visible('recording_metadata', META_COLS, ['tenant_id', 'recording_id', 'key'])),
    recording_metadata_by_key: await q(visible('recording_metadata_by_key', META_COLS, ['tenant_id', 'key', 'value', 'recording_id'])),
    // The earliest start per recording (rows tied on start may differ in seq between two projections).
    recordings: await q(
      sql`SELECT tenant_id, recording_id, min(started_at) AS started_at FROM (SELECT tenant_id, recording_id, started_at, seq FROM recordings) AS projected ANY LEFT JOIN ${DELETED} AS deletions USING (tenant_id, recording_id) WHERE seq > deleted_seq GROUP BY tenant_id, recording_id ORDER BY tenant_id, recording_id`,
    ),
    deleted_recordings: await q(sql`SELECT tenant_id, recording_id, seq, deleted_at FROM deleted_recordings FINAL ORDER BY tenant_id, recording_id`),
  };
}

/** One recording as reads see it (each batch once, rows older than its deletion ignored), and raw rows stored. */
export async function recordingCounts(ch: ClickHouse, tenantId: string, recordingId: string) {
  const [d] = await ch.rows<{ s: string }>(sql`SELECT max(seq) AS s FROM deleted_recordings WHERE tenant_id = ${tenantId} AND recording_id = ${recordingId}`);
  const after = Number(d?.s ?? 0);
  const [b] = await ch.rows<{ batches: string; events: string; raw: string }>(
    sql`SELECT uniqExact(batch_id) AS batches, sum(ev) AS events, sum(copies) AS raw FROM (SELECT batch_id, argMax(event_count, seq) AS ev, count() AS copies FROM recording_batches WHERE tenant_id = ${tenantId} AND recording_id = ${recordingId} AND seq > ${after} GROUP BY batch_id)`,
  );
  const [m] = await ch.rows<{ events: string }>(
    sql`SELECT sum(ev) AS events FROM (SELECT argMax(event_count, seq) AS ev FROM recording_minutes WHERE tenant_id = ${tenantId} AND recording_id = ${recordingId} AND seq > ${after} GROUP BY batch_id, minute)`,
  );
  return { batches: Number(b?.batches ?? 0), events: Number(b?.events ?? 0), raw: Number(b?.raw ?? 0), minuteEvents: Number(m?.events ?? 0) };
}

export { runCli, type CliResult } from '../harness/cli';
