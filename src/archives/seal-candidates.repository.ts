// Recordings to seal (archive-worker.ts), from the projections: those whose last batch was stored
// (ingested_at: the stream time, kept by sealing) between `idleMs` and `idleMs + LOOKBACK_MS` ago.
// Coarse on purpose: the sealer reads the stream and finds a recording sealed already, or deleted.
import { Injectable } from '@nestjs/common';
import { ClickHouse } from '../infrastructure/clickhouse/clickhouse-client';
import { Sql, sql } from '../infrastructure/clickhouse/sql';

/** Recordings idle longer than this beyond the idle time are not looked at (they were, then). */
export const LOOKBACK_MS = 24 * 3600_000;

export interface SealCandidate {
  tenantId: string;
  recordingId: string;
  /** When its last batch was stored, epoch ms. */
  storedAt: number;
}

type Row = { tenant_id: string; recording_id: string; stored: string | number };

export const SealCandidatesSql = {
  candidates(q: { nowMs: number; idleMs: number; limit: number }): Sql {
    const recent = sql`SELECT tenant_id, recording_id FROM recording_batches WHERE ingested_at >= ${q.nowMs - q.idleMs - LOOKBACK_MS}`;
    return sql`SELECT tenant_id, recording_id, toString(stored_at) AS stored FROM (
        SELECT tenant_id, recording_id, max(ingested_at) AS stored_at FROM recording_batches
        WHERE (tenant_id, recording_id) IN (${recent}) GROUP BY tenant_id, recording_id
      ) WHERE stored_at <= ${q.nowMs - q.idleMs} ORDER BY stored_at LIMIT ${q.limit}`;
  },
};

@Injectable()
export class SealCandidatesRepository {
  constructor(private readonly ch: ClickHouse) {}

  async candidates(q: { nowMs: number; idleMs: number; limit: number }): Promise<SealCandidate[]> {
    const rows = await this.ch.rows<Row>(SealCandidatesSql.candidates(q));
    return rows.map((r) => ({ tenantId: r.tenant_id, recordingId: r.recording_id, storedAt: Number(r.stored) }));
  }
}
