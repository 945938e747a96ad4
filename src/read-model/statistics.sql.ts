// SQL of GET /statistics. The window holds the recordings whose first event time is in [from, to)
// (the same recordings, ids and counts as the listing); each recording counts with all its events.
// Counts are sums over recording_batches de-duplicated per batch id; type counts come from the
// per-batch summaries, which count exactly the events that event reads return. One query gives
// the series and, WITH TOTALS, the totals (exact quantiles over all recordings of the window).
import { list, Sql, sql } from '../infrastructure/clickhouse/sql';
import { ActivitySql } from './activity.sql';
import { RecordingsSql, StartsScope } from './recordings.sql';
import { withDeletions } from './visibility.sql';

export type WindowScope = StartsScope & {
  window: { from: number; to: number };
  /** The window's recording ids when already known (small windows): a literal list reads faster than the subquery. */
  ids?: readonly string[];
};

/** Buckets of `size` ms aligned to `offset` (UTC; weeks start on Monday: offset 4 days), or calendar months (UTC). */
export interface Bucketing {
  size: number;
  offset: number;
  calendar?: 'month';
}

/** The start (epoch ms) of the bucket holding `started_at`. */
function bucketOf(b: Bucketing): Sql {
  // Months through Date, whose number is days since 1970-01-01; toDateTime(…, 'UTC') pins the zone.
  if (b.calendar === 'month') return sql`toUInt16(toStartOfMonth(toDate(toDateTime(intDiv(started_at, 1000), 'UTC')))) * 86400000`;
  // Int64 on both sides: ClickHouse 18.16 gives `Int64 % 60000` the divisor's type (Int16), so a
  // remainder of 32 768 ms or more wrapped and the bucket was not a minute start.
  const size = sql`toInt64(${b.size})`;
  return sql`started_at - ((started_at - toInt64(${b.offset})) % ${size} + ${size}) % ${size}`;
}

function ids(scope: WindowScope): readonly string[] | Sql {
  return scope.ids ?? sql`SELECT recording_id FROM (${RecordingsSql.starts(scope)})`;
}

/** One row per recording of the window: started_at, events, bytes, page_views, duration (ms), types (keys, counts). */
function perRecording(scope: WindowScope): Sql {
  return sql`SELECT recording_id, started_at, events, bytes, page_views, duration, types FROM (${RecordingsSql.starts(scope)}) AS starts ANY LEFT JOIN (
    SELECT recording_id, sum(event_count) AS events, sum(bytes) AS bytes, sum(page_views) AS page_views, max(max_ts) - min(min_ts) AS duration, sumMap(type_keys, type_counts) AS types
    FROM (${RecordingsSql.batches(scope.tenantId, ids(scope), 'stats')}) GROUP BY recording_id) AS totals USING (recording_id)`;
}

/** `recording_id IN (…)`: the window's recordings. */
function inWindow(scope: WindowScope): Sql {
  const known = ids(scope);
  return known instanceof Sql ? sql`recording_id IN (${known})` : sql`recording_id IN ${list([...known])}`;
}

export const StatisticsSql = {
  /** The window's recording ids, up to `limit` (to decide whether they fit in a literal list). */
  windowIds(scope: WindowScope, limit: number): Sql {
    return sql`SELECT recording_id FROM (${RecordingsSql.starts(scope)}) LIMIT ${limit}`;
  },

  /** Per bucket of first event time, and WITH TOTALS over the window (read as format JSON). */
  buckets(scope: WindowScope, b: Bucketing): Sql {
    return sql`SELECT ${bucketOf(b)} AS t, count() AS recordings, sum(events) AS events, sum(bytes) AS bytes,
      sum(page_views) AS page_views, sum(duration) AS duration_total, quantilesExact(0.5, 0.9, 0.99)(duration) AS duration_quantiles, sumMap(types.1, types.2) AS types
      FROM (${perRecording(scope)}) GROUP BY t WITH TOTALS ORDER BY t`;
  },

  /**
   * Activity per bucket of first event time, and WITH TOTALS (read as format JSON): console errors and
   * rage clicks, and the recordings with any (docs/activity.md).
   */
  activityBuckets(scope: WindowScope, b: Bucketing): Sql {
    const among = inWindow(scope);
    const errors = sql`SELECT recording_id, count() AS recording_errors FROM (${ActivitySql.itemsWhere(scope.tenantId, sql`kind = 'error' AND ${among}`, ['kind'])}) GROUP BY recording_id`;
    const rage = sql`SELECT recording_id, rage_clicks AS recording_rage FROM (${ActivitySql.rageClickCounts(scope.tenantId, among)})`;
    const withErrors = sql`SELECT recording_id, started_at, recording_errors FROM (${RecordingsSql.starts(scope)}) AS starts ANY LEFT JOIN (${errors}) AS e USING (recording_id)`;
    const per = sql`SELECT recording_id, started_at, recording_errors, recording_rage FROM (${withErrors}) AS we ANY LEFT JOIN (${rage}) AS r USING (recording_id)`;
    return sql`SELECT ${bucketOf(b)} AS t, sum(recording_errors) AS errors, countIf(recording_errors > 0) AS with_errors, sum(recording_rage) AS rage_clicks, countIf(recording_rage > 0) AS with_rage
      FROM (${per}) GROUP BY t WITH TOTALS ORDER BY t`;
  },

  /** URL paths by the number of the window's recordings with a page view of them; limit + 1 rows. */
  topPages(scope: WindowScope, limit: number): Sql {
    const pages = ActivitySql.itemsWhere(scope.tenantId, sql`kind = 'page' AND ${inWindow(scope)}`, ['path']);
    return sql`SELECT path, uniqExact(recording_id) AS recordings FROM (${pages}) GROUP BY path ORDER BY recordings DESC, path ASC LIMIT ${limit + 1}`;
  },

  /**
   * Viewport sizes (of each recording's earliest Meta event with one, as the listing shows) by the
   * number of the window's recordings; recordings without a viewport are left out; limit + 1 rows.
   */
  viewports(scope: WindowScope, limit: number): Sql {
    const firstViewport = sql`SELECT recording_id, argMin((viewport_width, viewport_height), meta_ts) AS viewport
      FROM (${RecordingsSql.batches(scope.tenantId, ids(scope), 'summary')}) WHERE viewport_width > 0 AND viewport_height > 0 GROUP BY recording_id`;
    return sql`SELECT viewport.1 AS width, viewport.2 AS height, count() AS recordings FROM (${firstViewport})
      GROUP BY width, height ORDER BY recordings DESC, width DESC, height DESC LIMIT ${limit + 1}`;
  },

  /** Recordings and events per latest value of `key` (has_value 0: recordings without the key); limit + 1 rows. */
  breakdown(scope: WindowScope, key: string, limit: number): Sql {
    return sql`SELECT has_value, value, count() AS recordings, sum(events) AS events FROM (${perRecording(scope)}) AS per_recording ANY LEFT JOIN (
      SELECT recording_id, argMax(value, seq) AS value, 1 AS has_value FROM ${withDeletions(scope.tenantId, sql`SELECT recording_id, value, seq FROM recording_metadata_by_key WHERE tenant_id = ${scope.tenantId} AND key = ${key}`)}
      WHERE seq > deleted_seq GROUP BY recording_id) AS latest USING (recording_id)
      GROUP BY has_value, value ORDER BY recordings DESC, has_value DESC, value ASC LIMIT ${limit + 1}`;
  },
};
