// Which recordings are live: those with a visible event batch stored at or after a cutoff (now minus
// LIVE_IDLE_SECONDS), by the server's clock of storing (ingested_at, the JetStream message time), never
// by the events' own timestamps: a browser's clock may be wrong by hours. The same rule decides an
// item's `live` (from its summary's last_activity_at, max(ingested_at)) and the `live` filter (SQL).
import { Sql, sql } from '../infrastructure/clickhouse/sql';
import { withDeletions } from './visibility.sql';

/** The listing's live filter: only recordings that are (live) or are not (!live) live at `since`. */
export interface LiveScope {
  live: boolean;
  /** Cutoff, epoch ms (server clock): a recording with a batch stored at or after it is live. */
  since: number;
}

/** A recording is live if the service stored one of its batches at or after `since` (both server clock, epoch ms). */
export const isLive = (lastActivityAt: number | null, since: number): boolean => lastActivityAt !== null && lastActivityAt >= since;

/**
 * Ids of the tenant's recordings with a visible batch stored at or after `since`. recording_batches is
 * sorted by recording, so this reads the tenant's ingested_at column; the ids are few (recent activity).
 */
export function liveRecordingsSql(tenantId: string, since: number): Sql {
  return sql`SELECT recording_id FROM ${withDeletions(tenantId, sql`SELECT recording_id, seq FROM recording_batches WHERE tenant_id = ${tenantId} AND ingested_at >= ${since}`)} WHERE seq > deleted_seq`;
}

/** ` AND recording_id [NOT] IN (live ids)` for a query over a table with recording_id; nothing without a scope. */
export function liveCondition(tenantId: string, scope: LiveScope | undefined): Sql {
  if (!scope) return sql``;
  return scope.live
    ? sql` AND recording_id IN (${liveRecordingsSql(tenantId, scope.since)})`
    : sql` AND recording_id NOT IN (${liveRecordingsSql(tenantId, scope.since)})`;
}
