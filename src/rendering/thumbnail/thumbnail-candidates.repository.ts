// Recordings that became idle between two thumbnail sweeps (thumbnail-sweep.ts), from the projections:
// those whose last batch was stored (ingested_at, stream time) in (since, until]. Coarse on purpose:
// a deleted recording is found gone when its events are resolved, and is skipped.
import { Injectable } from '@nestjs/common';
import { ClickHouse } from '../../infrastructure/clickhouse/clickhouse-client';
import { Sql, sql } from '../../infrastructure/clickhouse/sql';

export interface IdleRecording {
  tenantId: string;
  recordingId: string;
  /** When its last batch was stored, epoch ms. */
  storedAt: number;
}

type Row = { tenant_id: string; recording_id: string; stored: string | number };

export const ThumbnailCandidatesSql = {
  idle(q: { since: number; until: number; limit: number }): Sql {
    const recent = sql`SELECT tenant_id, recording_id FROM recording_batches WHERE ingested_at > ${q.since}`;
    return sql`SELECT tenant_id, recording_id, toString(stored_at) AS stored FROM (
        SELECT tenant_id, recording_id, max(ingested_at) AS stored_at FROM recording_batches
        WHERE (tenant_id, recording_id) IN (${recent}) GROUP BY tenant_id, recording_id
      ) WHERE stored_at > ${q.since} AND stored_at <= ${q.until} ORDER BY stored_at LIMIT ${q.limit}`;
  },
};

@Injectable()
export class ThumbnailCandidatesRepository {
  constructor(private readonly ch: ClickHouse) {}

  async idle(q: { since: number; until: number; limit: number }): Promise<IdleRecording[]> {
    const rows = await this.ch.rows<Row>(ThumbnailCandidatesSql.idle(q));
    return rows.map((r) => ({ tenantId: r.tenant_id, recordingId: r.recording_id, storedAt: Number(r.stored) }));
  }
}
