// Recordings by when their batches were stored (ingested_at: the stream's time of storing, kept by
// sealing), for the background workers' candidate queries (archives, thumbnails, keyframes): only
// recordings stored to since a recent moment are looked at, a small part of recording_batches.
import type { ClickHouse } from '../infrastructure/clickhouse/clickhouse-client';
import { Sql, sql } from '../infrastructure/clickhouse/sql';

export interface StoredRecording {
  tenantId: string;
  recordingId: string;
  /** When its last batch was stored, epoch ms. */
  storedAt: number;
}

/** The recordings with a batch stored at `fromMs` or later: (tenant_id, recording_id), for IN. */
export function storedSinceSql(fromMs: number): Sql {
  return sql`SELECT tenant_id, recording_id FROM recording_batches WHERE ingested_at >= ${fromMs}`;
}

export interface StoredWindow {
  fromMs: number;
  untilMs: number;
  limit: number;
}

/** The recordings whose last batch was stored in [fromMs, untilMs], oldest first, at most `limit`. */
export function lastStoredInSql(q: StoredWindow): Sql {
  return sql`SELECT tenant_id, recording_id, toString(stored_at) AS stored FROM (
      SELECT tenant_id, recording_id, max(ingested_at) AS stored_at FROM recording_batches
      WHERE (tenant_id, recording_id) IN (${storedSinceSql(q.fromMs)}) GROUP BY tenant_id, recording_id
    ) WHERE stored_at >= ${q.fromMs} AND stored_at <= ${q.untilMs} ORDER BY stored_at LIMIT ${q.limit}`;
}

type Row = { tenant_id: string; recording_id: string; stored: string | number };

/** Reads lastStoredInSql. */
export async function lastStoredIn(ch: ClickHouse, q: StoredWindow): Promise<StoredRecording[]> {
  const rows = await ch.rows<Row>(lastStoredInSql(q));
  return rows.map((r) => ({ tenantId: r.tenant_id, recordingId: r.recording_id, storedAt: Number(r.stored) }));
}
