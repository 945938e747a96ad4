// SQL of the unfiltered listing over recording_timeline (batch summaries sorted by tenant and time,
// migration 004). A window [since, ∞) holds every batch of each recording that started at or after
// `since`; recordings with a visible batch before `since` show up too and are named by `spanning`.
// Aliases differ from column names on purpose: on 18.16 `min(x) AS x` next to a WHERE on x returns nothing.
import { Sql, sql } from '../infrastructure/clickhouse/sql';
import { deletionJoin } from './recordings-query.visibility';

export const TimelineSql = {
  /** Recordings with a visible batch in the window, newest first by their first batch in it, ties by id. */
  candidates(tenantId: string, since: number, cap: number): Sql {
    return sql`SELECT recording_id, min(min_ts) AS started_at FROM (SELECT recording_id, min_ts, seq FROM recording_timeline WHERE tenant_id = ${tenantId} AND min_ts >= ${since})
      ${deletionJoin(tenantId)} WHERE seq > deleted_seq GROUP BY recording_id ORDER BY started_at DESC, recording_id DESC LIMIT ${cap}`;
  },

  /**
   * The edge check: recordings of the window that started before it (a visible `recordings` row
   * before `since`). Reads only the index blocks of the window's ids in `recordings` (sorted by id).
   */
  spanning(tenantId: string, since: number): Sql {
    const inWindow = sql`SELECT recording_id FROM recording_timeline WHERE tenant_id = ${tenantId} AND min_ts >= ${since}`;
    return sql`SELECT DISTINCT recording_id FROM (SELECT recording_id, seq FROM recordings WHERE tenant_id = ${tenantId} AND recording_id IN (${inWindow}) AND started_at < ${since})
      ${deletionJoin(tenantId)} WHERE seq > deleted_seq`;
  },

  /** Rows before the window: how many (0 ends the search) and the newest start among them (to skip gaps). */
  before(tenantId: string, since: number): Sql {
    return sql`SELECT count() AS n, max(min_ts) AS newest FROM recording_timeline WHERE tenant_id = ${tenantId} AND min_ts < ${since}`;
  },
};
