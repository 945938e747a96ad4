// SQL of the activity read model (docs/activity.md): a recording's activity parts for its timeline,
// the listing's activity summary, and the activity filters, each a subquery of recording ids. The
// rules spanning batches are those of domain/activity/activity-rules.ts, in SQL: rage clicks (three
// clicks on one node within a second, over the sorted click times of each node), dead clicks (no
// change time in the second after the click, the recording going on that long), a click's label
// (the latest label of its node from the click's page on), active time (distinct active seconds up
// to the last event's, at most the duration). Items are collapsed per (recording_id, batch_id, idx),
// batches per batch id, and every read applies the deletion rule. A filter reads either the whole
// tenant (deep listing pages, statistics) or a scope (ActivityScope: the listing window's recordings, a
// narrow plan's candidates), exact either way since a rule reads only its own recording's rows. The
// whole tenant and a few ids read the tables sorted by recording id; the listing's window and a
// page's summaries read ranges of recording_activity_timeline (the same rows sorted by kind and
// batch start, migration 009), since a window's few hundred random ids touch most granules of the others.
// Runs on ClickHouse 18.16 and current servers: one JOIN
// per SELECT, every joined subquery aliased, lambdas over arrays, values inlined by `sql`.
import { ident, join, list, Sql, sql } from '../infrastructure/clickhouse/sql';
import { DEAD_WINDOW_MS, RAGE_CLICKS, RAGE_WINDOW_MS } from '../domain/activity/activity-rules';
import { UNPLACED_TS } from '../projections/projection-tables';
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
 * `placed`: a condition on batch_ts that holds for every row of the recordings that matter (the
 * window's: batch_ts >= its start; a page's: within each one's span); the rows then come from
 * recording_activity_timeline's ranges (time-sorted, migration 009) instead of the tables sorted by id.
 */
export interface ActivityScope {
  where: Sql;
  spanRows?: Sql;
  placed?: Sql;
}

const EVERYTHING: ActivityScope = { where: ALL };

/**
 * The recordings that started at or after `since` (a listing window of recording_timeline; `spanRows`,
 * its rows): every activity row of theirs has batch_ts >= since, so the rules read that range of
 * recording_activity_timeline. Rows of the window's other recordings are partial there: those fail the
 * window's edge check whatever their rules say.
 */
export const windowScope = (since: number, spanRows: Sql): ActivityScope => ({ where: ALL, placed: sql`batch_ts >= ${since}`, spanRows });
/** The whole tenant: a filter's ids then come from an IN over the tenant's rows. */
const whole = (scope: ActivityScope) => scope.where === ALL && !scope.placed;

type Part = 'items' | 'nodes' | 'batches';
const BY_ID: Record<Part, Sql> = { items: sql`recording_activity`, nodes: sql`recording_activity_nodes`, batches: sql`recording_activity_batches` };
const KINDS: Record<Part, Sql> = { items: sql`kind IN ('page', 'click', 'error', 'network')`, nodes: sql`kind = 'node'`, batches: sql`kind = 'batch'` };

/** `table WHERE …`: the tenant's rows of a part in the scope, from the tables sorted by id or from the time-sorted ranges. */
function rowsOf(tenantId: string, part: Part, scope: ActivityScope): Sql {
  return scope.placed ? timelineRows(tenantId, KINDS[part], scope.placed, scope.where) : sql`${BY_ID[part]} WHERE tenant_id = ${tenantId} AND ${scope.where}`;
}

/** `recording_activity_timeline WHERE …`: the tenant's rows of `kinds` in a time-sorted range (`placed`) of the recordings `where` holds for. */
function timelineRows(tenantId: string, kinds: Sql, placed: Sql, where: Sql): Sql {
  return sql`recording_activity_timeline WHERE tenant_id = ${tenantId} AND ${kinds} AND ${placed} AND ${where}`;
}

/** The scope narrowed by a further condition on its rows. */
const and = (scope: ActivityScope, condition: Sql): ActivityScope => ({
  ...scope,
  where: scope.where === ALL ? condition : sql`${condition} AND ${scope.where}`,
});

const ITEM_COLUMNS = ['seq', 'kind', 'ts', 'url', 'path', 'title', 'text', 'node_id', 'x', 'y', 'page_load', 'status', 'method', 'duration'];
const cols = (names: readonly string[]) => join([...new Set(names)].map(ident), ', ');

/** Visible items of the scope, each once (with recording_id, batch_id, idx besides `columns`). */
function items(tenantId: string, scope: ActivityScope, columns: readonly string[] = ITEM_COLUMNS): Sql {
  const out = cols(['recording_id', 'batch_id', 'idx', ...columns]);
  const rows = sql`SELECT ${cols(['recording_id', 'batch_id', 'idx', 'seq', ...columns])} FROM ${rowsOf(tenantId, 'items', scope)}`;
  return sql`SELECT ${out} FROM ${withDeletions(tenantId, rows)} WHERE seq > deleted_seq LIMIT 1 BY recording_id, batch_id, idx`;
}

/** Visible activity batch rows of the scope, each batch once (with recording_id and batch_id besides `columns`). */
function activityBatches(tenantId: string, scope: ActivityScope, columns: readonly string[]): Sql {
  const out = cols(['recording_id', 'batch_id', ...columns]);
  const rows = sql`SELECT ${cols(['recording_id', 'batch_id', 'seq', ...columns])} FROM ${rowsOf(tenantId, 'batches', scope)}`;
  return sql`SELECT ${out} FROM ${withDeletions(tenantId, rows)} WHERE seq > deleted_seq LIMIT 1 BY recording_id, batch_id`;
}

/** Per recording of the scope: first and last event time of its visible event batches (as the listing's duration). */
function spans(tenantId: string, { where, spanRows }: ActivityScope = EVERYTHING): Sql {
  const rows = spanRows ?? sql`SELECT recording_id, min_ts, max_ts, seq FROM recording_batches WHERE tenant_id = ${tenantId} AND ${where}`;
  return sql`SELECT recording_id, min(min_ts) AS first_ts, max(max_ts) AS last_ts FROM ${withDeletions(tenantId, rows)} WHERE seq > deleted_seq GROUP BY recording_id`;
}

/** Per recording of the scope: its distinct active seconds up to the second of its last event (active_secs). */
function activeSeconds(tenantId: string, scope: ActivityScope): Sql {
  const seconds = sql`SELECT recording_id, sec FROM (${activityBatches(tenantId, scope, ['active_seconds'])}) ARRAY JOIN active_seconds AS sec`;
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

/** Per recording and node with at least RAGE_CLICKS clicks (in the scope): their sorted times `t`. */
function clickTimes(tenantId: string, scope: ActivityScope): Sql {
  return sql`SELECT recording_id, node_id, arraySort(groupArray(ts)) AS t FROM (${clicks(tenantId, scope)}) GROUP BY recording_id, node_id HAVING count() >= ${RAGE_CLICKS}`;
}

/** Whether the clicks i to i + RAGE_CLICKS - 1 of `t` are within RAGE_WINDOW_MS. */
const window = (i: Sql) => sql`${i} + ${RAGE_CLICKS - 1} <= length(t) AND t[${i} + ${RAGE_CLICKS - 1}] - t[${i}] <= ${RAGE_WINDOW_MS}`;
const clicks = (tenantId: string, scope: ActivityScope = EVERYTHING) => items(tenantId, and(scope, sql`kind = 'click'`), ['seq', 'ts', 'node_id']);

/** Recordings by id, each with its first and last event time (epoch ms). */
export type Spans = ReadonlyMap<string, { first: number; last: number }>;

/**
 * At most this many batch_ts ranges in one read, the closest spans merged beyond it: on 18.16 the
 * primary key analysis of many ORed ranges costs more than the rows a few wider ranges add (measured
 * at 100 000 recordings, a page of 50 recordings far apart: 50 ranges ~25 ms of analysis alone).
 */
const MAX_RANGES = 8;

/**
 * Sorted, disjoint [from, to] ranges covering the spans, merged across the smallest gaps down to
 * MAX_RANGES (a range then covers some rows of other recordings: the id condition drops them).
 */
export function spanRanges(spans: Iterable<{ first: number; last: number }>): [number, number][] {
  const sorted = [...spans].map((s): [number, number] => [s.first, Math.max(s.first, s.last)]).sort((a, b) => a[0] - b[0]);
  const ranges: [number, number][] = [];
  for (const r of sorted) {
    const prev = ranges[ranges.length - 1];
    if (prev && r[0] <= prev[1]) prev[1] = Math.max(prev[1], r[1]);
    else ranges.push([...r]);
  }
  while (ranges.length > MAX_RANGES) {
    let at = 1;
    for (let i = 2; i < ranges.length; i++) if (ranges[i][0] - ranges[i - 1][1] < ranges[at][0] - ranges[at - 1][1]) at = i;
    ranges[at - 1][1] = ranges[at][1];
    ranges.splice(at, 1);
  }
  return ranges;
}

/**
 * The rows of the given recordings in recording_activity_timeline: every visible row of a recording
 * has its batch's start within the recording's span (or is unplaced), so a page of recordings reads
 * the ranges of its spans, not the tenant.
 */
function pageScope(spans: Spans): { where: Sql; placed: Sql } {
  const ranges = spanRanges(spans.values()).map(([from, to]) => sql`batch_ts BETWEEN ${from} AND ${to}`);
  return { where: sql`recording_id IN ${list([...spans.keys()])}`, placed: sql`(batch_ts = ${UNPLACED_TS} OR ${join(ranges, ' OR ')})` };
}

/**
 * clickedText over a time-sorted range (the listing's window, a page): one read of the range's page,
 * click and label rows, the rule applied per recording to arrays. The joins of the general form read
 * the range four times and the deletions three times; on 18.16 each costs a few milliseconds of its own.
 * Per click (seq, idx, node): `from`, the seq of the latest page view before it in the stream (0 if
 * none); the click matches when a label of its node with the highest seq in [from, click seq]
 * contains the text. Repeated rows (redelivery) change no maximum and no existence.
 */
function clickedTextPlaced(tenantId: string, text: string, placed: Sql, where: Sql): Sql {
  const rows = sql`SELECT recording_id, seq, kind, idx, node_id, if(kind = 'node', text, '') AS text FROM ${timelineRows(tenantId, sql`kind IN ('page', 'click', 'node')`, placed, where)}`;
  const perRecording = sql`SELECT recording_id, groupArrayIf((seq, idx), kind = 'page') AS pages, groupArrayIf((seq, idx, node_id), kind = 'click') AS clicks,
      groupArrayIf((node_id, seq, text), kind = 'node') AS labels, groupArrayIf(node_id, kind = 'node' AND ${contains(sql`text`, text)}) AS matching
    FROM ${withDeletions(tenantId, rows)} WHERE seq > deleted_seq GROUP BY recording_id`;
  // Lambda parameters: p a page (seq, idx), c a click (seq, idx, node), k a candidate (seq, node, from), l and m labels (node, seq, text).
  const [p, c, k, l, m] = [sql`p`, sql`c`, sql`k`, sql`l`, sql`m`];
  const el = (t: Sql, i: number) => sql`tupleElement(${t}, ${i})`;
  const from = sql`arrayReduce('max', arrayMap(p -> if(${el(p, 1)} < ${el(c, 1)} OR (${el(p, 1)} = ${el(c, 1)} AND ${el(p, 2)} < ${el(c, 2)}), ${el(p, 1)}, 0), pages))`;
  // Clicks on a node with some matching label, each as (seq, node, from).
  const candidates = sql`arrayMap(c -> (${el(c, 1)}, ${el(c, 3)}, ${from}), arrayFilter(c -> has(matching, ${el(c, 3)}), clicks))`;
  const inRange = (x: Sql) => sql`${el(x, 1)} = ${el(k, 2)} AND ${el(x, 2)} >= ${el(k, 3)} AND ${el(x, 2)} <= ${el(k, 1)}`;
  const latest = sql`arrayReduce('max', arrayMap(m -> if(${inRange(m)}, ${el(m, 2)}, 0), labels))`;
  const matches = sql`arrayExists(k -> arrayExists(l -> ${inRange(l)} AND ${el(l, 2)} = ${latest} AND ${contains(el(l, 3), text)}, labels), ${candidates})`;
  return sql`SELECT recording_id FROM (${perRecording} HAVING notEmpty(matching) AND ${matches})`;
}

/**
 * deadClicks over a time-sorted range: one read of the range's click and batch rows (instead of one
 * each, with a deletion join each), per recording its click times and change times; a recording
 * qualifies when one click has no change in [ts, ts + DEAD_WINDOW_MS] and the recording goes on that
 * long. Repeated rows (redelivery) change no existence.
 */
function deadClicksPlaced(tenantId: string, placed: Sql, scope: ActivityScope): Sql {
  const rows = sql`SELECT recording_id, seq, kind, ts, changes FROM ${timelineRows(tenantId, sql`kind IN ('click', 'batch')`, placed, scope.where)}`;
  const visible = sql`SELECT recording_id, kind, ts, changes FROM ${withDeletions(tenantId, rows)} WHERE seq > deleted_seq`;
  const perRecording = sql`SELECT recording_id, any(last_ts) AS last, groupArrayIf(ts, kind = 'click') AS click_times, groupArrayArrayIf(changes, kind = 'batch') AS change_times
    FROM (${visible}) AS v ALL INNER JOIN (${spans(tenantId, scope)}) AS s USING (recording_id) GROUP BY recording_id`;
  // last and change_times reach the lambda as arguments, one copy per click: 18.16 drops a subquery's
  // column that only a lambda captures.
  const n = sql`length(click_times)`;
  const dead = sql`arrayExists((t, l, ch) -> l >= t + ${DEAD_WINDOW_MS} AND NOT arrayExists(x -> x >= t AND x <= t + ${DEAD_WINDOW_MS}, ch), click_times,
    arrayResize([last], ${n}, last), arrayResize([change_times], ${n}, change_times))`;
  return sql`SELECT recording_id FROM (${perRecording}) WHERE ${dead}`;
}

/**
 * Per recording of a time-sorted range: its active time in ms (activeTime's rule), the spans read
 * once and the range's batch rows once (no copy per batch id needed: distinct seconds are distinct
 * whatever repeats). The last second reaches the lambda as an argument: 18.16 drops a subquery's
 * column that only a lambda captures.
 */
function activeMsPlaced(tenantId: string, placed: Sql, scope: ActivityScope): Sql {
  const rows = sql`SELECT recording_id, seq, active_seconds FROM ${timelineRows(tenantId, KINDS.batches, placed, scope.where)}`;
  const perRecording = sql`SELECT recording_id, groupArrayArray(active_seconds) AS secs FROM ${withDeletions(tenantId, rows)} WHERE seq > deleted_seq GROUP BY recording_id`;
  const joined = sql`SELECT recording_id, first_ts, last_ts, secs FROM (${spans(tenantId, scope)}) AS s ANY LEFT JOIN (${perRecording}) AS a USING (recording_id)`;
  const lastSecond = sql`intDiv(last_ts, 1000)`;
  const activeSecs = sql`arrayUniq(arrayFilter((x, l) -> x <= l, secs, arrayResize([${lastSecond}], length(secs), ${lastSecond})))`;
  return sql`SELECT recording_id, least(${activeSecs} * 1000, last_ts - first_ts) AS active_ms FROM (${joined})`;
}

export const ActivitySql = {
  /** One recording's visible items, in stream order. */
  items(tenantId: string, recordingId: string): Sql {
    return sql`SELECT * FROM (${items(tenantId, { where: sql`recording_id = ${recordingId}` })}) ORDER BY seq, idx`;
  },

  /** The labels of the given nodes of one recording (every visible row; the rule picks among them). */
  labels(tenantId: string, recordingId: string, nodeIds: readonly number[]): Sql {
    const rows = sql`SELECT recording_id, seq, node_id, tag, text, selector FROM recording_activity_nodes WHERE tenant_id = ${tenantId} AND recording_id = ${recordingId} AND node_id IN ${list([...nodeIds])}`;
    return sql`SELECT DISTINCT seq, node_id, tag, text, selector FROM ${withDeletions(tenantId, rows)} WHERE seq > deleted_seq ORDER BY node_id, seq`;
  },

  /** One recording's visible activity batches. */
  batches(tenantId: string, recordingId: string): Sql {
    return sql`SELECT * FROM (${activityBatches(tenantId, { where: sql`recording_id = ${recordingId}` }, ['seq', 'inputs', 'active_seconds', 'changes'])}) ORDER BY seq`;
  },

  /**
   * The listing's activity summary parts of the given recordings (each with its first and last event
   * time, from the summary it lists), one row each in one read of recording_activity_timeline within
   * their spans: click and error counts, distinct active seconds up to the second of the last event
   * (the rows of spans(), so no batch is read again), and the page rows as (seq, ts, url, page_load)
   * (the page-view rule runs in TypeScript). Items collapse by (batch_id, idx), batches by batch_id.
   */
  summaries(tenantId: string, spans: Spans): Sql {
    const ids = [...spans.keys()];
    const lastSecond = sql`transform(recording_id, ${ids}, ${ids.map((id) => Math.floor(spans.get(id)!.last / 1000))}, 0)`;
    const columns = ['recording_id', 'batch_id', 'kind', 'idx', 'seq', 'ts', 'url', 'page_load', 'active_seconds'];
    const { where, placed } = pageScope(spans);
    // The ids as PREWHERE: a condition on a key column is not moved there by itself, and the ranges of
    // a page far apart hold many other recordings' rows (measured: a quarter of the bytes read).
    const rows = sql`SELECT ${cols(columns)} FROM recording_activity_timeline PREWHERE ${where} WHERE tenant_id = ${tenantId} AND kind IN ('page', 'click', 'error', 'batch') AND ${placed}`;
    const visible = sql`SELECT ${cols(columns)} FROM ${withDeletions(tenantId, rows)} WHERE seq > deleted_seq LIMIT 1 BY recording_id, batch_id, kind, idx`;
    return sql`SELECT recording_id, countIf(kind = 'click') AS clicks, countIf(kind = 'error') AS errors,
      uniqExactArray(arrayFilter(s -> s <= ${lastSecond}, active_seconds)) AS active_secs,
      groupArrayIf((seq, ts, url, page_load), kind = 'page') AS pages FROM (${visible}) GROUP BY recording_id`;
  },

  /** Ids of the tenant's recordings (in the scope) with a page view whose URL or path matches. */
  visitedUrl(tenantId: string, f: UrlFilter, scope: ActivityScope = EVERYTHING): Sql {
    const column = f.on === 'path' ? sql`path` : sql`url`;
    const rows = sql`SELECT recording_id, seq FROM ${rowsOf(tenantId, 'items', and(scope, sql`kind = 'page' AND ${textMatch(column, f.value, f.match)}`))}`;
    return sql`SELECT recording_id FROM ${withDeletions(tenantId, rows)} WHERE seq > deleted_seq`;
  },

  /** Ids with a click whose target's label (the latest of its node from the click's page on, up to the click) contains `text`. */
  clickedText(tenantId: string, text: string, scope: ActivityScope = EVERYTHING): Sql {
    if (scope.placed) return clickedTextPlaced(tenantId, text, scope.placed, scope.where);
    const labelled = sql`SELECT recording_id, node_id FROM ${rowsOf(tenantId, 'nodes', and(scope, contains(sql`text`, text)))}`;
    // Scoped (a window, a few candidates): the scope's clicks joined to the labelled nodes, and every
    // label row of the scope (the final join keeps those of clicked labelled nodes). An IN over
    // `labelled` there would be built again at every enclosing level on 18.16 (measured: 10 times
    // slower), while a joined subquery runs once. Over the whole tenant, the IN reads fewer rows.
    const candidateClicks = whole(scope)
      ? sql`SELECT recording_id, seq AS click_seq, idx, node_id FROM (${clicks(tenantId, { where: sql`(recording_id, node_id) IN (${labelled})` })})`
      : sql`SELECT recording_id, seq AS click_seq, idx, node_id FROM (${clicks(tenantId, scope)}) AS sc ALL INNER JOIN (SELECT DISTINCT recording_id, node_id FROM (${labelled})) AS ln USING (recording_id, node_id)`;
    const labelScope = whole(scope) ? { where: sql`(recording_id, node_id) IN (${labelled})` } : scope;
    const metas = sql`SELECT recording_id, seq AS meta_seq, idx AS meta_idx FROM ${rowsOf(tenantId, 'items', and(scope, sql`kind = 'page'`))}`;
    // The latest Meta before the click in the stream (its batch, then its position in the batch).
    const withPage = sql`SELECT recording_id, click_seq, idx, node_id, max(if(meta_seq < click_seq OR (meta_seq = click_seq AND meta_idx < idx), meta_seq, 0)) AS from_seq
      FROM (${candidateClicks}) AS c ALL LEFT JOIN (${metas}) AS m USING (recording_id) GROUP BY recording_id, click_seq, idx, node_id`;
    const labelRows = sql`SELECT recording_id, node_id, seq AS label_seq, text AS label_text FROM ${withDeletions(
      tenantId,
      sql`SELECT recording_id, node_id, seq, text FROM ${rowsOf(tenantId, 'nodes', labelScope)}`,
    )} WHERE seq > deleted_seq`;
    return sql`SELECT recording_id FROM (${withPage}) AS cp ALL INNER JOIN (${labelRows}) AS l USING (recording_id, node_id)
      WHERE label_seq >= from_seq AND label_seq <= click_seq GROUP BY recording_id, click_seq, idx HAVING ${contains(sql`argMax(label_text, label_seq)`, text)}`;
  },

  /** Ids (in the scope) with a console error (whose message contains `text`, when given). */
  errors(tenantId: string, text?: string, scope: ActivityScope = EVERYTHING): Sql {
    const match = text === undefined ? sql`kind = 'error'` : sql`kind = 'error' AND ${contains(sql`text`, text)}`;
    const rows = sql`SELECT recording_id, seq FROM ${rowsOf(tenantId, 'items', and(scope, match))}`;
    return sql`SELECT recording_id FROM ${withDeletions(tenantId, rows)} WHERE seq > deleted_seq`;
  },

  /** Visible items of the tenant matching `where`, each once (recording_id, batch_id, idx and `columns`). */
  itemsWhere(tenantId: string, where: Sql, columns: readonly string[]): Sql {
    return items(tenantId, { where }, columns);
  },

  /** Ids with a rage click (among the recordings of the scope): RAGE_CLICKS clicks on one node within RAGE_WINDOW_MS. */
  rageClicks(tenantId: string, scope: ActivityScope = EVERYTHING): Sql {
    return sql`SELECT recording_id FROM (${clickTimes(tenantId, scope)}) WHERE arrayExists(i -> ${window(sql`i`)}, arrayEnumerate(t))`;
  },

  /**
   * Rage clicks per recording (among `where`), as activity-rules.ts counts them: the runs of clicks on
   * a node (no gap over RAGE_WINDOW_MS) that hold a window of RAGE_CLICKS clicks within RAGE_WINDOW_MS.
   */
  rageClickCounts(tenantId: string, where: Sql): Sql {
    const runOf = sql`arrayCumSum(arrayMap(i -> i = 1 OR t[i] - t[i - 1] > ${RAGE_WINDOW_MS}, arrayEnumerate(t)))`;
    const runs = sql`length(arrayDistinct(arrayFilter((run, i) -> ${window(sql`i`)}, ${runOf}, arrayEnumerate(t))))`;
    return sql`SELECT recording_id, sum(${runs}) AS rage_clicks FROM (${clickTimes(tenantId, { where })}) GROUP BY recording_id`;
  },

  /** Ids (in the scope) with a dead click: no change in [ts, ts + DEAD_WINDOW_MS], and the recording's last event at or after its end. */
  deadClicks(tenantId: string, scope: ActivityScope = EVERYTHING): Sql {
    if (scope.placed) return deadClicksPlaced(tenantId, scope.placed, scope);
    const changes = sql`SELECT recording_id, groupArray(change) AS change_times FROM (${activityBatches(tenantId, scope, ['changes'])}) ARRAY JOIN changes AS change GROUP BY recording_id`;
    const withChanges = sql`SELECT recording_id, ts, change_times FROM (SELECT recording_id, ts FROM (${clicks(tenantId, scope)})) AS c ANY LEFT JOIN (${changes}) AS ch USING (recording_id)`;
    return sql`SELECT recording_id FROM (${withChanges}) AS cc ALL INNER JOIN (${spans(tenantId, scope)}) AS s USING (recording_id)
      WHERE last_ts >= ts + ${DEAD_WINDOW_MS} AND NOT arrayExists(x -> x >= ts AND x <= ts + ${DEAD_WINDOW_MS}, change_times)`;
  },

  /** Ids (in the scope) whose duration (last minus first event time) lies within the bounds. */
  duration(tenantId: string, min?: number, max?: number, scope: ActivityScope = EVERYTHING): Sql {
    const bounds = [...(min !== undefined ? [sql`last_ts - first_ts >= ${min}`] : []), ...(max !== undefined ? [sql`last_ts - first_ts <= ${max}`] : [])];
    return sql`SELECT recording_id FROM (${spans(tenantId, scope)}) WHERE ${join(bounds, ' AND ')}`;
  },

  /** Ids (in the scope) whose active time (distinct active seconds × 1000, at most the duration) lies within the bounds. */
  activeTime(tenantId: string, min?: number, max?: number, scope: ActivityScope = EVERYTHING): Sql {
    const joined = scope.placed
      ? activeMsPlaced(tenantId, scope.placed, scope)
      : sql`SELECT recording_id, least(active_secs * 1000, last_ts - first_ts) AS active_ms FROM (${spans(tenantId, scope)}) AS s ANY LEFT JOIN (${activeSeconds(tenantId, scope)}) AS a USING (recording_id)`;
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
    const parts: Sql[] = [];
    const inSet = (ids: Sql, yes = true) => parts.push(yes ? sql` AND recording_id IN (${ids})` : sql` AND recording_id NOT IN (${ids})`);
    for (const u of f.urls ?? []) inSet(ActivitySql.visitedUrl(tenantId, u, scope));
    if (f.clickedText !== undefined) inSet(ActivitySql.clickedText(tenantId, f.clickedText, scope));
    if (f.errorText !== undefined) inSet(ActivitySql.errors(tenantId, f.errorText, scope), f.hasErrors !== false);
    else if (f.hasErrors !== undefined) inSet(ActivitySql.errors(tenantId, undefined, scope), f.hasErrors);
    if (f.hasRageClicks !== undefined) inSet(ActivitySql.rageClicks(tenantId, scope), f.hasRageClicks);
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
