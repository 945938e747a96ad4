// SQL of the listing over recording_timeline (batch summaries sorted by tenant and time, migration 004).
// A window [since, ∞) holds every batch of each recording that started at or after `since`;
// recordings with a visible batch before `since` show up too and are named by `spanning`/`spanningOf`.
// Aliases differ from column names on purpose: on 18.16 `min(x) AS x` next to a WHERE on x returns nothing.
import { list, Sql, sql } from '../infrastructure/clickhouse/sql';
import type { MetadataFilter } from './metadata-filter';
import { candidateRecordingsSql } from './metadata-filter.sql';
import { liveCondition, LiveScope } from './live.sql';
import { withDeletions } from './visibility.sql';

const NEWEST_FIRST = sql`ORDER BY started_at DESC, recording_id DESC`;

export const TimelineSql = {
  /**
   * Rows [offset, offset + count) of the window's recordings, newest first, without the given ids (those
   * that started before the window): a page of the unfiltered listing in one read, with `spanningRough`.
   */
  page(tenantId: string, since: number, count: number, offset: number, exclude: readonly string[]): Sql {
    const without = exclude.length ? sql` AND recording_id NOT IN ${list([...exclude])}` : sql``;
    return sql`SELECT recording_id, min(min_ts) AS started_at FROM ${withDeletions(tenantId, sql`SELECT recording_id, min_ts, seq FROM recording_timeline WHERE tenant_id = ${tenantId} AND min_ts >= ${since}${without}`)}
      WHERE seq > deleted_seq GROUP BY recording_id ${NEWEST_FIRST} LIMIT ${count} OFFSET ${offset}`;
  },

  /**
   * Recordings of the window with a `recordings` row before it, deleted rows included (a superset of the
   * window's recordings that started before it, to be checked with `spanningOf`; usually those that
   * started just before the window), each with its latest batch start in the window: it ranks no higher
   * than that. No deletion join: on 18.16 the window's id set would be built again for its level.
   */
  spanningRough(tenantId: string, since: number): Sql {
    const inWindow = sql`SELECT recording_id FROM recording_timeline WHERE tenant_id = ${tenantId} AND min_ts >= ${since}`;
    const before = sql`SELECT recording_id FROM recordings WHERE tenant_id = ${tenantId} AND started_at < ${since} AND recording_id IN (${inWindow})`;
    return sql`SELECT recording_id, max(min_ts) AS latest_ts FROM recording_timeline WHERE tenant_id = ${tenantId} AND min_ts >= ${since} AND recording_id IN (${before}) GROUP BY recording_id`;
  },

  /**
   * The candidates of the filters and live scope (few: a narrow key/value range, or recent activity) with
   * their start from `recordings` (sorted by id, small blocks), newest first; for filters too selective
   * for a time window. At least one filter or a live-only scope.
   */
  starts(tenantId: string, filters: readonly MetadataFilter[], cap: number, live?: LiveScope): Sql {
    if (filters.length === 0 && !live?.live) throw new TypeError('TimelineSql.starts needs a filter or live-only scope');
    const among = filters.length ? sql` AND recording_id IN (${candidateRecordingsSql(tenantId, filters)})` : sql``;
    return sql`SELECT recording_id, min(started_at) AS first_ts FROM ${withDeletions(tenantId, sql`SELECT recording_id, started_at, seq FROM recordings WHERE tenant_id = ${tenantId}${among}${liveCondition(tenantId, live)}`)}
      WHERE seq > deleted_seq GROUP BY recording_id ORDER BY first_ts DESC, recording_id DESC LIMIT ${cap}`;
  },

  /** The edge check for the given ids only: a block of `recordings` per id (migration 005). */
  spanningOf(tenantId: string, since: number, ids: readonly string[]): Sql {
    return sql`SELECT DISTINCT recording_id FROM ${withDeletions(tenantId, sql`SELECT recording_id, seq FROM recordings WHERE tenant_id = ${tenantId} AND recording_id IN ${list([...ids])} AND started_at < ${since}`)}
      WHERE seq > deleted_seq`;
  },

  /** Rows before the window: how many (0 ends the search) and the newest start among them (to skip gaps). */
  before(tenantId: string, since: number): Sql {
    return sql`SELECT count() AS n, max(min_ts) AS newest FROM recording_timeline WHERE tenant_id = ${tenantId} AND min_ts < ${since}`;
  },
};
