// The deletion rule on the read side (see projections/recording-projection.ts): a projection row
// counts only if its seq is above the recording's latest deletion marker. Join this to a subquery
// that selects `recording_id` and `seq`, then keep `seq > deleted_seq` (0 for never-deleted
// recordings: ANY LEFT JOIN fills defaults on 18.16 and current servers). The right side is small.
// Current servers refuse a joined subquery without an alias (joined_subquery_requires_alias, on by
// default since 20.x), so the right side is `deletions` and a subquery on the left needs one too
// (`AS projected` by convention); 18.16 takes the aliases as well.
import { Sql, sql } from '../infrastructure/clickhouse/sql';

export function deletionJoin(tenantId: string): Sql {
  return sql`ANY LEFT JOIN (SELECT recording_id, max(seq) AS deleted_seq FROM deleted_recordings WHERE tenant_id = ${tenantId} GROUP BY recording_id) AS deletions USING (recording_id)`;
}
