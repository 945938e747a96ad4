// Recordings that need server-made keyframes (keyframes/server-keyframes.service.ts), from the
// projections: recordings stored to within RECENT_MS whose last keyframe of any kind (the recording's
// own, or one the service made) or last attempt is `everyMs` or `everyBytes` of events behind their
// end, with fewer than `maxFailures` failed attempts. Coarse on purpose: the maker reads the recording
// and places the keyframes itself (domain/server-keyframes.ts); a deleted recording found here reads
// as not found and is skipped.
import { Injectable } from '@nestjs/common';
import { ClickHouse } from '../infrastructure/clickhouse/clickhouse-client';
import { Sql, sql } from '../infrastructure/clickhouse/sql';
import { storedSinceSql } from './recently-stored.sql';

/** Only recordings with a batch stored this recently are looked at (older ones were looked at then). */
export const RECENT_MS = 24 * 3600_000;

export interface KeyframeCandidate {
  tenantId: string;
  recordingId: string;
  /** Last event time, epoch ms, as projected. */
  lastTs: number;
  /** The last server-made keyframe's or failed attempt's moment; undefined without one. */
  triedTs?: number;
}

export interface CandidateQuery {
  everyMs: number;
  everyBytes: number;
  maxFailures: number;
  nowMs: number;
  limit: number;
}

type Row = { tenant_id: string; recording_id: string; end_ts: string | number; tried: string | number };

export const KeyframeCandidatesSql = {
  candidates(q: CandidateQuery): Sql {
    // Enum8 columns compare by name; a recording without keyframe rows joins zeros. Inner and outer
    // names differ: older servers resolve a column to a same-named alias (an aggregate in an aggregate).
    const recent = storedSinceSql(q.nowMs - RECENT_MS);
    const keyframes = sql`SELECT tenant_id, recording_id,
        maxIf(ts, kind IN ('kf', 'open', 'server', 'failed')) AS kf_at,
        maxIf(ts, kind IN ('server', 'failed')) AS tried_at,
        countIf(kind = 'failed') AS fails
      FROM recording_keyframes WHERE (tenant_id, recording_id) IN (${recent}) GROUP BY tenant_id, recording_id`;
    const due: Sql[] = [];
    if (q.everyMs > 0) due.push(sql`last_ts - greatest(kf_ts, first_ts) >= ${q.everyMs}`);
    if (q.everyBytes > 0) due.push(sql`bytes_after >= ${q.everyBytes}`);
    if (due.length === 0) due.push(sql`0`);
    const dueSql = due.length === 2 ? sql`(${due[0]} OR ${due[1]})` : due[0];
    // Output names differ from the inner ones too: older servers would take `last_ts` in WHERE for the string.
    return sql`SELECT tenant_id, recording_id, toString(last_ts) AS end_ts, toString(tried_ts) AS tried FROM (
        SELECT tenant_id, recording_id, max(max_ts) AS last_ts, min(min_ts) AS first_ts, any(kf_at) AS kf_ts, any(tried_at) AS tried_ts,
          any(fails) AS failures, sumIf(bytes, min_ts > kf_at) AS bytes_after, max(ingested_at) AS stored_at
        FROM (SELECT tenant_id, recording_id, min_ts, max_ts, bytes, ingested_at FROM recording_batches WHERE event_count > 0
          AND (tenant_id, recording_id) IN (${recent})) AS b
        ANY LEFT JOIN (${keyframes}) AS k USING (tenant_id, recording_id)
        GROUP BY tenant_id, recording_id
      ) WHERE failures < ${q.maxFailures} AND ${dueSql}
      ORDER BY stored_at DESC LIMIT ${q.limit}`;
  },
};

@Injectable()
export class KeyframeCandidatesRepository {
  constructor(private readonly ch: ClickHouse) {}

  async candidates(q: CandidateQuery): Promise<KeyframeCandidate[]> {
    const rows = await this.ch.rows<Row>(KeyframeCandidatesSql.candidates(q));
    return rows.map((r) => ({
      tenantId: r.tenant_id,
      recordingId: r.recording_id,
      lastTs: Number(r.end_ts),
      ...(Number(r.tried) > 0 ? { triedTs: Number(r.tried) } : {}),
    }));
  }
}
