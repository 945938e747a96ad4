// SQL of the recordings read model (listing, detail, statistics). Every value goes through `sql`.
// Order and membership come from `recordings` (one row per recording once merged, read with FINAL:
// the earliest batch wins); counts come from recording_batches de-duplicated per batch id
// (LIMIT 1 BY), never from a plain sum over raw rows; min/max are duplicate-proof by nature.
// All reads apply the deletion rule (seq above the recording's latest deletion marker).
// Shape note: an `IN (subquery)` stays at the level of the table it filters; on 18.16 a subquery set
// inside a FROM subquery is built again for every enclosing level (measured: twice the latency).
import { join, list, Sql, sql } from '../infrastructure/clickhouse/sql';
import { ActivityFilters, ActivitySql, hasActivityFilters, windowScope } from './activity.sql';
import type { MetadataFilter } from './metadata-filter';
import { matchingRecordingsSql } from './metadata-filter.sql';
import type { StartedRange } from './listing-page.util';
import { liveCondition, LiveScope } from './live.sql';
import { deletionJoin, withDeletions } from './visibility.sql';

const SUMMARY_COLUMNS = sql`recording_id, batch_id, event_count, bytes, min_ts, max_ts, page_views, meta_ts, viewport_width, viewport_height, url, ingested_at`;
const STATS_COLUMNS = sql`recording_id, batch_id, event_count, bytes, min_ts, max_ts, page_views, type_keys, type_counts`;

const VIEWPORT = sql`viewport_width > 0 AND viewport_height > 0`;
// Per recording: start and end, counts, viewport and URL of the earliest Meta event, last activity.
const SUMMARY_AGGREGATES = sql`SELECT recording_id, min(min_ts) AS started_at, max(max_ts) AS ended_at, sum(event_count) AS event_count, sum(bytes) AS bytes, sum(page_views) AS page_views,
      countIf(${VIEWPORT}) > 0 AS has_viewport, argMinIf((viewport_width, viewport_height), meta_ts, ${VIEWPORT}) AS viewport,
      argMinIf(url, meta_ts, url != '') AS first_url, max(ingested_at) AS last_activity_at`;

export interface StartsScope {
  tenantId: string;
  /** Metadata filters, most selective first. */
  filters: readonly MetadataFilter[];
  /** Only recordings whose first event time is in [from, to), epoch ms; an absent end is open. */
  window?: StartedRange;
  /** Only live (or only not live) recordings. */
  live?: LiveScope;
  /** Activity filters (activity.sql.ts), each an id set beside the metadata filters. */
  activity?: ActivityFilters;
}

export const RecordingsSql = {
  /** The recording's latest projected deletion marker: seq 0 when it has none. */
  deletedThrough(tenantId: string, recordingId: string): Sql {
    return sql`SELECT max(seq) AS deleted_seq FROM deleted_recordings WHERE tenant_id = ${tenantId} AND recording_id = ${recordingId}`;
  },
  /**
   * Visible recordings, one row each: recording_id, started_at. WHERE runs after FINAL (18.16 and
   * current servers do not move it to PREWHERE under FINAL), so the window sees collapsed rows.
   */
  starts({ tenantId, filters, window, live, activity }: StartsScope): Sql {
    const metadata = filters.length ? sql` AND recording_id IN (${matchingRecordingsSql(tenantId, filters)})` : sql``;
    const filter = hasActivityFilters(activity) ? sql`${metadata}${ActivitySql.conditions(tenantId, activity)}` : metadata;
    const from = window?.from !== undefined ? sql` AND started_at >= ${window.from}` : sql``;
    const inWindow = window?.to !== undefined ? sql`${from} AND started_at < ${window.to}` : from;
    return sql`SELECT recording_id, started_at FROM recordings FINAL ${deletionJoin(tenantId)} WHERE tenant_id = ${tenantId}${filter}${liveCondition(tenantId, live)} AND seq > deleted_seq${inWindow}`;
  },

  /** One page, newest first by first event time, ties by recording id (stable); limit + 1 rows tell whether more follow. */
  page(scope: StartsScope, limit: number, offset: number): Sql {
    return sql`${RecordingsSql.starts(scope)} ORDER BY started_at DESC, recording_id DESC LIMIT ${limit + 1} OFFSET ${offset}`;
  },

  /**
   * Visible batch rows of the given recordings (a list, or a subquery of ids), one per batch id.
   * The id filter sits inside the subquery, before the deletion join: on 18.16 a JOIN runs before
   * WHERE and turns off PREWHERE, so a filter after it would join every batch of the tenant.
   */
  batches(tenantId: string, ids: readonly string[] | Sql, columns: 'summary' | 'stats', since?: number): Sql {
    const cols = columns === 'summary' ? SUMMARY_COLUMNS : STATS_COLUMNS;
    const idSet = ids instanceof Sql ? sql`(${ids})` : list([...ids]);
    // Recordings that started at or after `since` have all their batches in that range of recording_timeline.
    const source =
      since === undefined ? sql`recording_batches WHERE tenant_id = ${tenantId}` : sql`recording_timeline WHERE tenant_id = ${tenantId} AND min_ts >= ${since}`;
    return sql`SELECT ${cols} FROM ${withDeletions(tenantId, sql`SELECT ${cols}, seq FROM ${source} AND recording_id IN ${idSet}`)} WHERE seq > deleted_seq LIMIT 1 BY recording_id, batch_id`;
  },

  /**
   * Per-recording summary of the given recordings (viewport and URL of the earliest Meta event).
   * With `since`: of recordings known to have started at or after it, read from recording_timeline.
   */
  summaries(tenantId: string, ids: readonly string[], since?: number): Sql {
    return sql`${SUMMARY_AGGREGATES} FROM (${RecordingsSql.batches(tenantId, ids, 'summary', since)}) GROUP BY recording_id`;
  },

  /**
   * Summaries of every recording with a visible batch in the window [since, ∞) of recording_timeline
   * but the excluded ones, newest first (started_at: first batch in the window; the summary is whole
   * for a recording that started in the window), with `count` rows from `offset`: a listing page and
   * its summaries in one read. With filters: only the recordings of `candidates` (a subquery of ids).
   * With `before`: only recordings that started before it (those with a batch in [since, before), then
   * their whole summary's start checked), so a range in the past does not summarise everything newer.
   * With activity filters: only the recordings that pass them, each rule read for the window's
   * recordings alone (exact for every recording that started in the window, the others fail the edge
   * check), so their cost is bounded by the window, not the tenant.
   */
  windowSummaries(
    tenantId: string,
    since: number,
    count: number,
    offset: number,
    exclude: readonly string[],
    candidates?: Sql,
    before?: number,
    activity?: ActivityFilters,
  ): Sql {
    const notExcluded = exclude.length ? sql` AND recording_id NOT IN ${list([...exclude])}` : sql``;
    const without =
      before === undefined
        ? notExcluded
        : sql`${notExcluded} AND recording_id IN (SELECT recording_id FROM recording_timeline WHERE tenant_id = ${tenantId} AND min_ts >= ${since} AND min_ts < ${before})`;
    // Duration bounds on the window's own aggregates (whole for every recording that started in the
    // window, the others fail the edge check): the same spans as ActivitySql.duration, without reading them again.
    const { minDuration, maxDuration, ...rules } = activity ?? {};
    const having = [
      ...(before === undefined ? [] : [sql`started_at < ${before}`]),
      ...(minDuration === undefined ? [] : [sql`ended_at - started_at >= ${minDuration}`]),
      ...(maxDuration === undefined ? [] : [sql`ended_at - started_at <= ${maxDuration}`]),
    ];
    const havingSql = having.length ? sql` HAVING ${join(having, ' AND ')}` : sql``;
    // Candidates are checked beside the deletion rule, on the joined rows (measured on 18.16: cheaper
    // than on the window's raw rows, where the set is built once more per level, or after grouping).
    const among = candidates ? sql` AND recording_id IN (${candidates})` : sql``;
    // The rules read the window's range of the time-sorted activity rows (ActivitySql's windowScope).
    const scope = windowScope(
      since,
      sql`SELECT recording_id, min_ts, max_ts, seq FROM recording_timeline WHERE tenant_id = ${tenantId} AND min_ts >= ${since}${among}`,
    );
    const passing = hasActivityFilters(rules) ? ActivitySql.conditions(tenantId, rules, scope) : sql``;
    return sql`${SUMMARY_AGGREGATES} FROM (SELECT ${SUMMARY_COLUMNS} FROM ${withDeletions(tenantId, sql`SELECT ${SUMMARY_COLUMNS}, seq FROM recording_timeline WHERE tenant_id = ${tenantId} AND min_ts >= ${since}${without}`)}
      WHERE seq > deleted_seq${among}${passing} LIMIT 1 BY recording_id, batch_id) GROUP BY recording_id${havingSql} ORDER BY started_at DESC, recording_id DESC LIMIT ${count} OFFSET ${offset}`;
  },

  /** Latest visible value of every metadata key of the given recordings. */
  metadata(tenantId: string, ids: readonly string[]): Sql {
    return sql`SELECT recording_id, key, argMax(value, seq) AS value FROM ${withDeletions(tenantId, sql`SELECT recording_id, key, value, seq FROM recording_metadata WHERE tenant_id = ${tenantId} AND recording_id IN ${list([...ids])}`)}
      WHERE seq > deleted_seq GROUP BY recording_id, key ORDER BY recording_id, key`;
  },
};
