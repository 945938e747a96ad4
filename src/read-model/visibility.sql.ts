// The deletion rule on the read side (see projections/recording-projection.ts): a projection row
// counts only if its seq is above the recording's latest deletion marker. Join this to a subquery
// that selects `recording_id` and `seq`, then keep `seq > deleted_seq` (0 for never-deleted
// recordings: ANY LEFT JOIN fills defaults on 18.16 and current servers). The right side is small.
// Current servers refuse a joined subquery without an alias (joined_subquery_requires_alias, on by
// default since 20.x), so both sides have one (`withDeletions`); 18.16 takes the aliases as well.
import { Sql, sql } from '../infrastructure/clickhouse/sql';

/** Join this after a table that has `recording_id` and `seq`; after a subquery, use `withDeletions`. */
export function deletionJoin(tenantId: string): Sql {
  return sql`ANY LEFT JOIN (SELECT recording_id, max(seq) AS deleted_seq FROM deleted_recordings WHERE tenant_id = ${tenantId} GROUP BY recording_id) AS deletions USING (recording_id)`;
}

/** `rows`, a subquery selecting `recording_id` and `seq`, aliased and joined to the deletion markers. */
export function withDeletions(tenantId: string, rows: Sql): Sql {
  return sql`(${rows}) AS projected ${deletionJoin(tenantId)}`;
}
