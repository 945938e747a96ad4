// SQL of the activity read model (docs/activity.md): a recording's activity parts for its timeline,
// the listing's activity summary, and the activity filters, each a subquery of recording ids. The
// rules spanning batches are those of domain/activity/activity-rules.ts, in SQL: rage clicks (three
// clicks on one node within a second, over the sorted click times of each node), dead clicks (no
// change time in the second after the click, the recording going on that long), a click's label
// (the latest label of its node from the click's page on), active time (distinct active seconds up
// to the last event's, at most the duration). Items are collapsed per (recording_id, batch_id, idx),
// batches per batch id, and every read applies the deletion rule. A filter reads either the whole
// tenant (deep listing pages, statistics) or a scope (ActivityScope: the listing window's recordings, a
// narrow plan's candidates), exact either way since a rule reads only its own recording's rows.
// Runs on ClickHouse 18.16 and current servers: one JOIN
// per SELECT, every joined subquery aliased, lambdas over arrays, values inlined by `sql`.
import { ident, join, list, Sql, sql } from '../infrastructure/clickhouse/sql';
import { DEAD_WINDOW_MS, RAGE_CLICKS, RAGE_WINDOW_MS } from '../domain/activity/activity-rules';
import { withDeletions } from './visibility.sql';

export type TextMatch = 'exact' | 'prefix' | 'contains';

export interface UrlFilter {
  value: string;
  match: TextMatch;
  on: 'url' | 'path';
}

export interface ActivityFilters {
  /** For each: a page view whose URL (or path) matches. */
  urls?: UrlFilter[];
  /** A click whose target's text contains this (case-insensitive). */
  clickedText?: string;
  /** Has (true) or has no (false) console error; with errorText, an error whose message contains it (case-insensitive). */
  hasErrors?: boolean;
  errorText?: string;
  hasRageClicks?: boolean;
  hasDeadClicks?: boolean;
  /** Duration bounds, ms (inclusive). */
  minDuration?: number;
  maxDuration?: number;
  /** Active time bounds, ms (inclusive). */
  minActiveTime?: number;
  maxActiveTime?: number;
}

export const hasActivityFilters = (f: ActivityFilters | undefined): f is ActivityFilters =>
  !!f && Object.entries(f).some(([k, v]) => v !== undefined && (k !== 'urls' || (v as UrlFilter[]).length > 0));

/** No condition: every recording of the tenant. */
const ALL = sql`1`;

/**
 * The recordings a filter reads: `where`, a condition on recording_id; `spanRows`, where their first
 * and last event times come from (rows with recording_id, min_ts, max_ts and seq; by default the
 * recordings' rows of recording_batches). The listing's window takes them from its own time range of
 * recording_timeline: whole for every recording that started in the window, and only those are kept.
 */
export interface ActivityScope {
  where: Sql;
  spanRows?: Sql;
}

const EVERYTHING: ActivityScope = { where: ALL };

const ITEM_COLUMNS = ['seq', 'kind', 'ts', 'url', 'path', 'title', 'text', 'node_id', 'x', 'y', 'page_load', 'status', 'method', 'duration'];
const cols = (names: readonly string[]) => join([...new Set(names)].map(ident), ', ');

/** Visible items of the tenant matching `where`, each once (with recording_id, batch_id, idx besides `columns`). */
function items(tenantId: string, where: Sql, columns: readonly string[] = ITEM_COLUMNS): Sql {
  const out = cols(['recording_id', 'batch_id', 'idx', ...columns]);
  const rows = sql`SELECT ${cols(['recording_id', 'batch_id', 'idx', 'seq', ...columns])} FROM recording_activity WHERE tenant_id = ${tenantId} AND ${where}`;
  return sql`SELECT ${out} FROM ${withDeletions(tenantId, rows)} WHERE seq > deleted_seq LIMIT 1 BY recording_id, batch_id, idx`;
}

/** Visible activity batch rows, each batch once (with recording_id and batch_id besides `columns`). */
function activityBatches(tenantId: string, where: Sql, columns: readonly string[]): Sql {
  const out = cols(['recording_id', 'batch_id', ...columns]);
  const rows = sql`SELECT ${cols(['recording_id', 'batch_id', 'seq', ...columns])} FROM recording_activity_batches WHERE tenant_id = ${tenantId} AND ${where}`;
  return sql`SELECT ${out} FROM ${withDeletions(tenantId, rows)} WHERE seq > deleted_seq LIMIT 1 BY recording_id, batch_id`;
}

/** Per recording of the scope: first and last event time of its visible event batches (as the listing's duration). */
function spans(tenantId: string, { where, spanRows }: ActivityScope = EVERYTHING): Sql {
  const rows = spanRows ?? sql`SELECT recording_id, min_ts, max_ts, seq FROM recording_batches WHERE tenant_id = ${tenantId} AND ${where}`;
  return sql`SELECT recording_id, min(min_ts) AS first_ts, max(max_ts) AS last_ts FROM ${withDeletions(tenantId, rows)} WHERE seq > deleted_seq GROUP BY recording_id`;
}

/** Per recording of the scope: its distinct active seconds up to the second of its last event (active_secs). */
function activeSeconds(tenantId: string, scope: ActivityScope): Sql {
  const seconds = sql`SELECT recording_id, sec FROM (${activityBatches(tenantId, scope.where, ['active_seconds'])}) ARRAY JOIN active_seconds AS sec`;
  return sql`SELECT recording_id, uniqExactIf(sec, sec <= intDiv(last_ts, 1000)) AS active_secs FROM (${seconds}) AS a ALL INNER JOIN (${spans(tenantId, scope)}) AS s USING (recording_id) GROUP BY recording_id`;
}

function textMatch(column: Sql, value: string, match: TextMatch): Sql {
  switch (match) {
    case 'exact':
      return sql`${column} = ${value}`;
    case 'prefix':
      return sql`substring(${column}, 1, ${Buffer.byteLength(value)}) = ${value}`;
    case 'contains':
      return sql`positionCaseInsensitiveUTF8(${column}, ${value}) > 0`;
  }
}

const contains = (column: Sql, value: string) => textMatch(column, value, 'contains');

/** Per recording and node with at least RAGE_CLICKS clicks (among `where`): their sorted times `t`. */
function clickTimes(tenantId: string, where: Sql): Sql {
  return sql`SELECT recording_id, node_id, arraySort(groupArray(ts)) AS t FROM (${clicks(tenantId, where)}) GROUP BY recording_id, node_id HAVING count() >= ${RAGE_CLICKS}`;
}

/** Whether the clicks i to i + RAGE_CLICKS - 1 of `t` are within RAGE_WINDOW_MS. */
const window = (i: Sql) => sql`${i} + ${RAGE_CLICKS - 1} <= length(t) AND t[${i} + ${RAGE_CLICKS - 1}] - t[${i}] <= ${RAGE_WINDOW_MS}`;
const clicks = (tenantId: string, where: Sql = ALL) => items(tenantId, sql`kind = 'click' AND ${where}`, ['seq', 'ts', 'node_id']);

export const ActivitySql = {
  /** One recording's visible items, in stream order. */
  items(tenantId: string, recordingId: string): Sql {
    return sql`SELECT * FROM (${items(tenantId, sql`recording_id = ${recordingId}`)}) ORDER BY seq, idx`;
  },

  /** The labels of the given nodes of one recording (every visible row; the rule picks among them). */
  labels(tenantId: string, recordingId: string, nodeIds: readonly number[]): Sql {
    const rows = sql`SELECT recording_id, seq, node_id, tag, text, selector FROM recording_activity_nodes WHERE tenant_id = ${tenantId} AND recording_id = ${recordingId} AND node_id IN ${list([...nodeIds])}`;
    return sql`SELECT DISTINCT seq, node_id, tag, text, selector FROM ${withDeletions(tenantId, rows)} WHERE seq > deleted_seq ORDER BY node_id, seq`;
  },

  /** One recording's visible activity batches. */
  batches(tenantId: string, recordingId: string): Sql {
    return sql`SELECT * FROM (${activityBatches(tenantId, sql`recording_id = ${recordingId}`, ['seq', 'inputs', 'active_seconds', 'changes'])}) ORDER BY seq`;
  },

  /** Listing summary parts of the given recordings: click and error counts, active seconds, and the page rows (the page-view rule runs in TypeScript). */
  summaryCounts(tenantId: string, ids: readonly string[]): Sql {
    const idSet = sql`recording_id IN ${list([...ids])}`;
    return sql`SELECT recording_id, countIf(kind = 'click') AS clicks, countIf(kind = 'error') AS errors FROM (${items(tenantId, sql`${idSet} AND kind IN ('click', 'error')`, ['kind'])}) GROUP BY recording_id`;
  },
  /**
   * Active seconds of the given recordings, each up to the second of its last event time as the caller
   * knows it (from the summary it lists: the same rows as spans()), so no batch is read again.
   */
  summaryActive(tenantId: string, lastTs: ReadonlyMap<string, number>): Sql {
    const ids = [...lastTs.keys()];
    const lastSecond = sql`transform(recording_id, ${ids}, ${ids.map((id) => Math.floor(lastTs.get(id)! / 1000))}, 0)`;
    const seconds = sql`SELECT recording_id, sec FROM (${activityBatches(tenantId, sql`recording_id IN ${list(ids)}`, ['active_seconds'])}) ARRAY JOIN active_seconds AS sec`;
    return sql`SELECT recording_id, uniqExactIf(sec, sec <= ${lastSecond}) AS active_secs FROM (${seconds}) GROUP BY recording_id`;
  },
  summaryPages(tenantId: string, ids: readonly string[]): Sql {
    return sql`SELECT * FROM (${items(tenantId, sql`recording_id IN ${list([...ids])} AND kind = 'page'`, ['seq', 'ts', 'url', 'page_load'])}) ORDER BY recording_id, ts, seq`;
  },

  /** Ids of the tenant's recordings (among `where`) with a page view whose URL or path matches. */
  visitedUrl(tenantId: string, f: UrlFilter, where: Sql = ALL): Sql {
    const column = f.on === 'path' ? sql`path` : sql`url`;
    const rows = sql`SELECT recording_id, seq FROM recording_activity WHERE tenant_id = ${tenantId} AND kind = 'page' AND ${textMatch(column, f.value, f.match)} AND ${where}`;
    return sql`SELECT recording_id FROM ${withDeletions(tenantId, rows)} WHERE seq > deleted_seq`;
  },

  /** Ids with a click whose target's label (the latest of its node from the click's page on, up to the click) contains `text`. */
  clickedText(tenantId: string, text: string, where: Sql = ALL): Sql {
    const labelled = sql`SELECT recording_id, node_id FROM recording_activity_nodes WHERE tenant_id = ${tenantId} AND ${contains(sql`text`, text)} AND ${where}`;
    // Scoped (a window, a few candidates): the scope's clicks joined to the labelled nodes, and every
    // label row of the scope (the final join keeps those of clicked labelled nodes). An IN over
    // `labelled` there would be built again at every enclosing level on 18.16 (measured: 10 times
    // slower), while a joined subquery runs once. Over the whole tenant, the IN reads fewer rows.
    const candidateClicks =
      where === ALL
        ? sql`SELECT recording_id, seq AS click_seq, idx, node_id FROM (${clicks(tenantId, sql`(recording_id, node_id) IN (${labelled})`)})`
        : sql`SELECT recording_id, seq AS click_seq, idx, node_id FROM (${clicks(tenantId, where)}) AS sc ALL INNER JOIN (SELECT DISTINCT recording_id, node_id FROM (${labelled})) AS ln USING (recording_id, node_id)`;
    const labelScope = where === ALL ? sql`(recording_id, node_id) IN (${labelled})` : where;
    const metas = sql`SELECT recording_id, seq AS meta_seq, idx AS meta_idx FROM recording_activity WHERE tenant_id = ${tenantId} AND kind = 'page' AND ${where}`;
    // The latest Meta before the click in the stream (its batch, then its position in the batch).
    const withPage = sql`SELECT recording_id, click_seq, idx, node_id, max(if(meta_seq < click_seq OR (meta_seq = click_seq AND meta_idx < idx), meta_seq, 0)) AS from_seq
      FROM (${candidateClicks}) AS c ALL LEFT JOIN (${metas}) AS m USING (recording_id) GROUP BY recording_id, click_seq, idx, node_id`;
    const labelRows = sql`SELECT recording_id, node_id, seq AS label_seq, text AS label_text FROM ${withDeletions(
      tenantId,
      sql`SELECT recording_id, node_id, seq, text FROM recording_activity_nodes WHERE tenant_id = ${tenantId} AND ${labelScope}`,
    )} WHERE seq > deleted_seq`;
    return sql`SELECT recording_id FROM (${withPage}) AS cp ALL INNER JOIN (${labelRows}) AS l USING (recording_id, node_id)
      WHERE label_seq >= from_seq AND label_seq <= click_seq GROUP BY recording_id, click_seq, idx HAVING ${contains(sql`argMax(label_text, label_seq)`, text)}`;
  },

  /** Ids (among `where`) with a console error (whose message contains `text`, when given). */
  errors(tenantId: string, text?: string, where: Sql = ALL): Sql {
    const match = text === undefined ? sql`` : sql` AND ${contains(sql`text`, text)}`;
    const rows = sql`SELECT recording_id, seq FROM recording_activity WHERE tenant_id = ${tenantId} AND kind = 'error'${match} AND ${where}`;
    return sql`SELECT recording_id FROM ${withDeletions(tenantId, rows)} WHERE seq > deleted_seq`;
  },

  /** Visible items of the tenant matching `where`, each once (recording_id, batch_id, idx and `columns`). */
  itemsWhere(tenantId: string, where: Sql, columns: readonly string[]): Sql {
    return items(tenantId, where, columns);
  },

  /** Ids with a rage click (among the recordings `where` selects): RAGE_CLICKS clicks on one node within RAGE_WINDOW_MS. */
  rageClicks(tenantId: string, where: Sql = ALL): Sql {
    return sql`SELECT recording_id FROM (${clickTimes(tenantId, where)}) WHERE arrayExists(i -> ${window(sql`i`)}, arrayEnumerate(t))`;
  },

  /**
   * Rage clicks per recording (among `where`), as activity-rules.ts counts them: the runs of clicks on
   * a node (no gap over RAGE_WINDOW_MS) that hold a window of RAGE_CLICKS clicks within RAGE_WINDOW_MS.
   */
  rageClickCounts(tenantId: string, where: Sql): Sql {
    const runOf = sql`arrayCumSum(arrayMap(i -> i = 1 OR t[i] - t[i - 1] > ${RAGE_WINDOW_MS}, arrayEnumerate(t)))`;
    const runs = sql`length(arrayDistinct(arrayFilter((run, i) -> ${window(sql`i`)}, ${runOf}, arrayEnumerate(t))))`;
    return sql`SELECT recording_id, sum(${runs}) AS rage_clicks FROM (${clickTimes(tenantId, where)}) GROUP BY recording_id`;
  },

  /** Ids (among `where`) with a dead click: no change in [ts, ts + DEAD_WINDOW_MS], and the recording's last event at or after its end. */
  deadClicks(tenantId: string, scope: ActivityScope = EVERYTHING): Sql {
    const { where } = scope;
    const changes = sql`SELECT recording_id, groupArray(change) AS change_times FROM (${activityBatches(tenantId, where, ['changes'])}) ARRAY JOIN changes AS change GROUP BY recording_id`;
    const withChanges = sql`SELECT recording_id, ts, change_times FROM (SELECT recording_id, ts FROM (${clicks(tenantId, where)})) AS c ANY LEFT JOIN (${changes}) AS ch USING (recording_id)`;
    return sql`SELECT recording_id FROM (${withChanges}) AS cc ALL INNER JOIN (${spans(tenantId, scope)}) AS s USING (recording_id)
      WHERE last_ts >= ts + ${DEAD_WINDOW_MS} AND NOT arrayExists(x -> x >= ts AND x <= ts + ${DEAD_WINDOW_MS}, change_times)`;
  },

  /** Ids (among `where`) whose duration (last minus first event time) lies within the bounds. */
  duration(tenantId: string, min?: number, max?: number, scope: ActivityScope = EVERYTHING): Sql {
    const bounds = [...(min !== undefined ? [sql`last_ts - first_ts >= ${min}`] : []), ...(max !== undefined ? [sql`last_ts - first_ts <= ${max}`] : [])];
    return sql`SELECT recording_id FROM (${spans(tenantId, scope)}) WHERE ${join(bounds, ' AND ')}`;
  },

  /** Ids (among `where`) whose active time (distinct active seconds × 1000, at most the duration) lies within the bounds. */
  activeTime(tenantId: string, min?: number, max?: number, scope: ActivityScope = EVERYTHING): Sql {
    const joined = sql`SELECT recording_id, least(active_secs * 1000, last_ts - first_ts) AS active_ms FROM (${spans(tenantId, scope)}) AS s ANY LEFT JOIN (${activeSeconds(tenantId, scope)}) AS a USING (recording_id)`;
    const bounds = [...(min !== undefined ? [sql`active_ms >= ${min}`] : []), ...(max !== undefined ? [sql`active_ms <= ${max}`] : [])];
    return sql`SELECT recording_id FROM (${joined}) WHERE ${join(bounds, ' AND ')}`;
  },

  /**
   * ` AND recording_id [NOT] IN (…)` for every filter given: all of them must hold (AND). With a
   * scope, for the recordings of the scope only: every rule reads the rows of those recordings alone
   * (a rule depends on its recording's rows only), so its cost is bounded by the scope (the listing's
   * time window, a narrow plan's candidates) instead of the tenant.
   */
  conditions(tenantId: string, f: ActivityFilters, scope: ActivityScope = EVERYTHING): Sql {
    const { where } = scope;
    const parts: Sql[] = [];
    const inSet = (ids: Sql, yes = true) => parts.push(yes ? sql` AND recording_id IN (${ids})` : sql` AND recording_id NOT IN (${ids})`);
    for (const u of f.urls ?? []) inSet(ActivitySql.visitedUrl(tenantId, u, where));
    if (f.clickedText !== undefined) inSet(ActivitySql.clickedText(tenantId, f.clickedText, where));
    if (f.errorText !== undefined) inSet(ActivitySql.errors(tenantId, f.errorText, where), f.hasErrors !== false);
    else if (f.hasErrors !== undefined) inSet(ActivitySql.errors(tenantId, undefined, where), f.hasErrors);
    if (f.hasRageClicks !== undefined) inSet(ActivitySql.rageClicks(tenantId, where), f.hasRageClicks);
    if (f.hasDeadClicks !== undefined) inSet(ActivitySql.deadClicks(tenantId, scope), f.hasDeadClicks);
    if (f.minDuration !== undefined || f.maxDuration !== undefined) inSet(ActivitySql.duration(tenantId, f.minDuration, f.maxDuration, scope));
    if (f.minActiveTime !== undefined || f.maxActiveTime !== undefined) inSet(ActivitySql.activeTime(tenantId, f.minActiveTime, f.maxActiveTime, scope));
    return join(parts, '');
  },

  /** The given recordings that pass every filter given (a narrow plan's candidates). */
  matching(tenantId: string, f: ActivityFilters, ids: readonly string[]): Sql {
    const idSet = list([...ids]);
    const scope = sql`SELECT recording_id FROM recordings WHERE tenant_id = ${tenantId} AND recording_id IN ${idSet}`;
    return sql`SELECT DISTINCT recording_id FROM (${scope}) WHERE 1${ActivitySql.conditions(tenantId, f, { where: sql`recording_id IN ${idSet}` })}`;
  },
};
