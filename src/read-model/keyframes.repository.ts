// The keyframe index (recording_keyframes, projected from batch summaries): a recording's keyframes
// in time order, each with the stream sequence of its Meta's batch, below the deletion rule. Rows
// are paired as windowed event reads pair the summaries (domain/keyframes.ts), so both agree on where
// a recording can be opened; the projection lags ingestion by about a second.
import { Injectable } from '@nestjs/common';
import { Keyframe, pairKeyframes, SeqKeyframes } from '../domain/keyframes';
import { ClickHouse } from '../infrastructure/clickhouse/clickhouse-client';
import { Sql, sql } from '../infrastructure/clickhouse/sql';
import { fromReadModel } from './read-model-errors.util';
import { withDeletions } from './visibility.sql';

type KeyframeRow = { kind: 'kf' | 'meta' | 'open' | 'server' | 'failed'; ts: string | number; seq: string | number };

const batches = (tenantId: string, recordingId: string) =>
  sql`SELECT recording_id, min_ts, max_ts, seq FROM recording_batches WHERE tenant_id = ${tenantId} AND recording_id = ${recordingId}`;

export const KeyframesSql = {
  /** The recording's visible keyframe rows, each once, in stream order. */
  rows(tenantId: string, recordingId: string): Sql {
    const rows = sql`SELECT recording_id, kind, ts, seq FROM recording_keyframes WHERE tenant_id = ${tenantId} AND recording_id = ${recordingId}`;
    return sql`SELECT DISTINCT kind, ts, seq FROM ${withDeletions(tenantId, rows)} WHERE seq > deleted_seq ORDER BY seq, kind`;
  },
  span(tenantId: string, recordingId: string): Sql {
    return sql`SELECT toString(min(min_ts)) AS first_ts, toString(max(max_ts)) AS last_ts, count() AS n FROM ${withDeletions(tenantId, batches(tenantId, recordingId))} WHERE seq > deleted_seq`;
  },
  firstBatchReaching(tenantId: string, recordingId: string, ts: number): Sql {
    return sql`SELECT toString(min(seq)) AS first_seq FROM ${withDeletions(tenantId, batches(tenantId, recordingId))} WHERE seq > deleted_seq AND max_ts >= ${ts}`;
  },
};

/**
 * Keyframe rows back into the summaries' fields, one entry per stream sequence, in stream order. A
 * server-made keyframe ('server') is one on its own, at its message's sequence; a failed attempt
 * ('failed') is none.
 */
export function keyframesFromRows(rows: readonly KeyframeRow[]): Keyframe[] {
  const bySeq = new Map<number, SeqKeyframes>();
  const server: Keyframe[] = [];
  for (const r of rows) {
    const seq = Number(r.seq);
    const ts = Number(r.ts);
    if (r.kind === 'failed') continue;
    if (r.kind === 'server') {
      server.push({ ts, seq, server: true });
      continue;
    }
    let b = bySeq.get(seq);
    if (!b) bySeq.set(seq, (b = { seq }));
    if (r.kind === 'kf') (b.kf ??= []).push(ts);
    else if (r.kind === 'meta') b.kfMeta = ts;
    else b.kfOpen = ts;
  }
  const paired = pairKeyframes([...bySeq.values()].sort((a, b) => a.seq - b.seq));
  return server.length ? [...paired, ...server].sort((a, b) => a.ts - b.ts || a.seq - b.seq) : paired;
}

@Injectable()
export class KeyframesRepository {
  constructor(private readonly ch: ClickHouse) {}

  async keyframes(tenantId: string, recordingId: string): Promise<Keyframe[]> {
    return keyframesFromRows(await fromReadModel(this.ch.rows<KeyframeRow>(KeyframesSql.rows(tenantId, recordingId))));
  }

  /** The recording's first and last event time as projected; undefined before its first batch is. */
  async span(tenantId: string, recordingId: string): Promise<{ first: number; last: number } | undefined> {
    const [r] = await fromReadModel(
      this.ch.rows<{ first_ts: string | number; last_ts: string | number; n: string | number }>(KeyframesSql.span(tenantId, recordingId)),
    );
    return r && Number(r.n) > 0 ? { first: Number(r.first_ts), last: Number(r.last_ts) } : undefined;
  }

  /** The lowest stream sequence of a projected batch with an event at or after `ts`; undefined without one. */
  async firstBatchReaching(tenantId: string, recordingId: string, ts: number): Promise<number | undefined> {
    const [r] = await fromReadModel(this.ch.rows<{ first_seq: string | number }>(KeyframesSql.firstBatchReaching(tenantId, recordingId, ts)));
    return r && Number(r.first_seq) > 0 ? Number(r.first_seq) : undefined;
  }
}
