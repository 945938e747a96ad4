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

type KeyframeRow = { kind: 'kf' | 'meta' | 'open'; ts: string | number; seq: string | number };

export const KeyframesSql = {
  /** The recording's visible keyframe rows, each once, in stream order. */
  rows(tenantId: string, recordingId: string): Sql {
    const rows = sql`SELECT recording_id, kind, ts, seq FROM recording_keyframes WHERE tenant_id = ${tenantId} AND recording_id = ${recordingId}`;
    return sql`SELECT DISTINCT kind, ts, seq FROM ${withDeletions(tenantId, rows)} WHERE seq > deleted_seq ORDER BY seq, kind`;
  },
};

/** Keyframe rows back into the summaries' fields, one entry per stream sequence, in stream order. */
export function keyframesFromRows(rows: readonly KeyframeRow[]): Keyframe[] {
  const bySeq = new Map<number, SeqKeyframes>();
  for (const r of rows) {
    const seq = Number(r.seq);
    const ts = Number(r.ts);
    let b = bySeq.get(seq);
    if (!b) bySeq.set(seq, (b = { seq }));
    if (r.kind === 'kf') (b.kf ??= []).push(ts);
    else if (r.kind === 'meta') b.kfMeta = ts;
    else b.kfOpen = ts;
  }
  return pairKeyframes([...bySeq.values()].sort((a, b) => a.seq - b.seq));
}

@Injectable()
export class KeyframesRepository {
  constructor(private readonly ch: ClickHouse) {}

  async keyframes(tenantId: string, recordingId: string): Promise<Keyframe[]> {
    return keyframesFromRows(await fromReadModel(this.ch.rows<KeyframeRow>(KeyframesSql.rows(tenantId, recordingId))));
  }
}
