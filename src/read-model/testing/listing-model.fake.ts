// An in-memory read model for the listing's specs, answering the listing's queries (TimelineSql,
// RecordingsSql.metadata, .summaries, .windowSummaries and .page) by their shape: batches [recording, min_ts],
// metadata writes [recording, key, value, seq] (the highest seq wins), deleted recordings hidden, and
// when each recording's latest batch was stored (`ingested`, server clock; none: long ago) for the live scope.
// `expected` is the listing by definition, the brute force every plan is checked against.
import type { ClickHouse } from '../../infrastructure/clickhouse/clickhouse-client';
import type { Sql } from '../../infrastructure/clickhouse/sql';
import type { LiveScope } from '../live.sql';
import type { MetadataFilter } from '../metadata-filter';
import { PageRow, ranksAfter, StartedRange, startedIn } from '../listing-page.util';
import { ListingPlanner } from '../listing.planner';

export interface Model {
  batches: [string, number][];
  metadata?: [string, string, string, number][];
  deleted?: string[];
  ingested?: Record<string, number>;
}

const num = (text: string, re: RegExp) => Number(re.exec(text)![1]);
const strings = (text: string) => [...text.matchAll(/'((?:[^'\\]|\\.)*)'/g)].map((m) => m[1]);
const idList = (text: string, re: RegExp) => {
  const m = re.exec(text);
  return m ? strings(m[1]) : undefined;
};

export function fakeListing(model: Model) {
  const queries: string[] = [];
  const deleted = new Set(model.deleted ?? []);
  const visible = model.batches.filter(([r]) => !deleted.has(r));
  const starts = new Map<string, number>();
  for (const [r, ts] of visible) starts.set(r, Math.min(ts, starts.get(r) ?? Infinity));
  const latest = new Map<string, Map<string, [string, number]>>();
  for (const [r, k, v, seq] of model.metadata ?? []) {
    if (deleted.has(r)) continue;
    const m = latest.get(r) ?? new Map<string, [string, number]>();
    if ((m.get(k)?.[1] ?? -1) < seq) m.set(k, [v, seq]);
    latest.set(r, m);
  }
  const activity = (r: string) => model.ingested?.[r] ?? 0;
  const liveOk = (r: string, scope: LiveScope | undefined) => !scope || activity(r) >= scope.since === scope.live;
  const liveIn = (text: string): LiveScope | undefined => {
    const m =
      /(NOT )?IN \(SELECT recording_id FROM \(SELECT recording_id, seq FROM recording_batches WHERE tenant_id = '[^']*' AND ingested_at >= \(?(-?\d+)/.exec(
        text,
      );
    return m ? { live: !m[1], since: Number(m[2]) } : undefined;
  };
  // The listing by definition: visible recordings, newest first, matching the latest value of every filter (and the live scope).
  const listing = (filters: readonly MetadataFilter[], live?: LiveScope, started?: StartedRange) =>
    [...starts]
      .filter(([r, ts]) => filters.every((f) => latest.get(r)?.get(f.key)?.[0] === f.value) && liveOk(r, live) && startedIn(ts, started))
      .map(([recording_id, ts]) => ({ recording_id, started_at: String(ts) }))
      .sort((a, b) => (ranksAfter(a, b) ? 1 : -1));
  const ranges = (text: string) => [...text.matchAll(/key = '([^']*)' AND value = '([^']*)'/g)].map((m) => ({ key: m[1], value: m[2] }));
  const inRanges = (r: string, fs: { key: string; value: string }[]) =>
    fs.every((f) => (model.metadata ?? []).some(([x, k, v]) => x === r && k === f.key && v === f.value));
  const window = (since: number, exclude: string[] = []) => {
    const first = new Map<string, number>();
    for (const [r, ts] of visible) if (ts >= since && !exclude.includes(r)) first.set(r, Math.min(ts, first.get(r) ?? Infinity));
    return [...first].map(([recording_id, ts]) => ({ recording_id, started_at: String(ts) })).sort((a, b) => (ranksAfter(a, b) ? 1 : -1));
  };
  const answer = (text: string): unknown[] => {
    queries.push(text);
    if (text.startsWith('SELECT key, count() AS n')) {
      // filterCounts: rows of each key/value range (every write, deleted recordings' too).
      const fs = ranges(text);
      return fs
        .map((f) => ({ key: f.key, n: String((model.metadata ?? []).filter(([, k, v]) => k === f.key && v === f.value).length) }))
        .filter((r) => r.n !== '0');
    }
    if (text.includes('FROM recordings FINAL')) {
      // RecordingsSql.page: filters on the latest value, the live scope, in SQL.
      const m = /LIMIT (\d+) OFFSET (\d+)$/.exec(text)!;
      const from = /AND started_at >= \(?(-?\d+)/.exec(text);
      const to = /AND started_at < \(?(-?\d+)/.exec(text);
      const started = { from: from ? Number(from[1]) : undefined, to: to ? Number(to[1]) : undefined };
      return listing(ranges(text), liveIn(text), started).slice(Number(m[2]), Number(m[2]) + Number(m[1]));
    }
    if (text.startsWith('SELECT count() AS n')) {
      const since = num(text, /min_ts < \(?(-?\d+)/);
      const older = visible.filter(([, ts]) => ts < since);
      return [{ n: String(older.length), newest: String(Math.max(0, ...older.map(([, ts]) => ts))) }];
    }
    if (text.includes('argMax(value, seq) AS value')) {
      const ids = idList(text, /recording_id IN \(([^)]*)\)/)!;
      return ids.flatMap((r) => [...(latest.get(r) ?? [])].map(([key, [value]]) => ({ recording_id: r, key, value })));
    }
    if (text.includes('sum(event_count)') && text.includes('OFFSET')) {
      // RecordingsSql.windowSummaries: a page of the window (of the filters' candidates) with (here: only) started_at as summary
      const m = /LIMIT (\d+) OFFSET (\d+)$/.exec(text)!;
      const fs = ranges(text);
      const having = /HAVING started_at < \(?(-?\d+)/.exec(text);
      const all = window(num(text, /min_ts >= \(?(-?\d+)/), idList(text, /NOT IN \(([^)]*)\)/)).filter(
        (r) => inRanges(r.recording_id, fs) && (!having || Number(r.started_at) < Number(having[1])),
      );
      const page = all.slice(Number(m[2]), Number(m[2]) + Number(m[1]));
      return [page.map((r) => ({ ...r, last_activity_at: String(activity(r.recording_id)) })), all.length];
    }
    if (text.includes('sum(event_count)')) {
      const ids = idList(text, /recording_id IN \(([^)]*)\)/)!;
      return ids.filter((r) => starts.has(r)).map((r) => ({ recording_id: r, started_at: String(starts.get(r)), last_activity_at: String(activity(r)) }));
    }
    if (text.startsWith('SELECT DISTINCT recording_id FROM (SELECT recording_id, seq FROM recordings')) {
      const since = num(text, /started_at < \(?(-?\d+)/);
      return idList(text, /recording_id IN \(([^)]*)\)/)!
        .filter((r) => starts.has(r) && starts.get(r)! < since)
        .map((recording_id) => ({ recording_id }));
    }
    if (text.startsWith('SELECT recording_id, max(min_ts) AS latest_ts')) {
      const since = num(text, /started_at < \(?(-?\d+)/);
      const latestIn = (r: string) => Math.max(...model.batches.filter(([x, ts]) => x === r && ts >= since).map(([, ts]) => ts));
      const rough = new Set(model.batches.filter(([r, ts]) => ts >= since && model.batches.some(([x, t]) => x === r && t < since)).map(([r]) => r));
      return [...rough].map((recording_id) => ({ recording_id, latest_ts: String(latestIn(recording_id)) }));
    }
    if (text.includes('min(started_at) AS first_ts')) {
      const fs = ranges(text);
      const cap = num(text, /LIMIT (\d+)$/);
      const live = liveIn(text);
      return [...starts]
        .filter(([r]) => inRanges(r, fs) && liveOk(r, live))
        .map(([recording_id, ts]) => ({ recording_id, started_at: String(ts) }))
        .sort((a, b) => (ranksAfter(a, b) ? 1 : -1))
        .slice(0, cap)
        .map((r) => ({ recording_id: r.recording_id, first_ts: r.started_at }));
    }
    const since = num(text, /min_ts >= \(?(-?\d+)/);
    const m = /LIMIT (\d+) OFFSET (\d+)$/.exec(text);
    if (!m) throw new Error(`unexpected query ${text}`);
    const all = window(since, idList(text, /NOT IN \(([^)]*)\)/));
    return [all.slice(Number(m[2]), Number(m[2]) + Number(m[1])), all.length];
  };
  const ch = {
    rows: async (q: Sql) => answer(q.text),
    rowsBeforeLimit: async (q: Sql) => {
      const [rows, beforeLimit] = answer(q.text) as [PageRow[], number];
      return { rows, beforeLimit };
    },
  } as unknown as ClickHouse;
  const expected = (filters: MetadataFilter[], limit: number, offset: number, live?: LiveScope, started?: StartedRange) =>
    listing(filters, live, started).slice(offset, offset + limit + 1);
  return { ch, planner: new ListingPlanner(ch), queries, expected };
}

export const HOUR = 3_600_000;
export const NOW = 20_000 * HOUR;
export const id = (i: number) => `r${String(i).padStart(4, '0')}`;
