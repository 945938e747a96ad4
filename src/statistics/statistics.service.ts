// GET /statistics from the ClickHouse projections, read through StatisticsRepository (definitions in
// read-model/statistics.sql.ts: window = recordings whose first event time is in [from, to); each
// counts with all its events). The window's ids are read first: none gives the zero answer at once, a
// few thousand at most are passed as a literal list (faster than the subquery); then one bucket query
// (series and totals), the activity buckets, top pages and top viewports, and, with groupBy, the breakdown.
import { Injectable, Logger } from '@nestjs/common';
import { ActivityBucketRow, BreakdownRow, BucketRow, StatisticsRepository, TopPageRow, ViewportRow } from '../read-model/statistics.repository';
import type { WindowScope } from '../read-model/statistics.sql';
import type { Statistics } from './statistics.dto';
import type { StatisticsParams } from './statistics.params';

export const BREAKDOWN_LIMIT = 100;
export const TOP_PAGES = 20;
export const TOP_VIEWPORTS = 10;
/** Windows of at most this many recordings are read by a literal id list (about 80 KB of SQL). */
export const LITERAL_IDS_LIMIT = 2000;

@Injectable()
export class StatisticsService {
  constructor(private readonly read: StatisticsRepository) {}

  async statistics(tenantId: string, p: StatisticsParams): Promise<Statistics> {
    const filters = await this.read.bySelectivity(tenantId, p.filters);
    if (!filters) return shape(p, { data: [] }, [], NO_ACTIVITY, []);
    const scope: WindowScope = { tenantId, filters, window: { from: p.from, to: p.to }, activity: p.activity };
    const known = await this.read.windowIds(scope, LITERAL_IDS_LIMIT + 1);
    if (known.length === 0) return shape(p, { data: [] }, [], NO_ACTIVITY, []);
    if (known.length <= LITERAL_IDS_LIMIT) scope.ids = known;
    const [buckets, breakdown, activityBuckets, topPages, viewports] = await Promise.all([
      this.read.buckets(scope, p.bucketing), // WITH TOTALS: the totals row
      p.groupBy === undefined ? Promise.resolve([]) : this.read.breakdown(scope, p.groupBy, BREAKDOWN_LIMIT),
      this.read.activityBuckets(scope, p.bucketing),
      this.read.topPages(scope, TOP_PAGES),
      this.read.viewports(scope, TOP_VIEWPORTS),
    ]);
    return shape(p, buckets, breakdown, { buckets: activityBuckets, topPages }, viewports);
  }
}

interface ActivityRows {
  buckets: { data: ActivityBucketRow[]; totals?: ActivityBucketRow };
  topPages: TopPageRow[];
}
const NO_ACTIVITY: ActivityRows = { buckets: { data: [] }, topPages: [] };

function activityOf(p: StatisticsParams, a: ActivityRows): Statistics['activity'] {
  const n = (v: unknown) => Number(v ?? 0) || 0;
  const t = a.buckets.totals;
  const byBucket = new Map(a.buckets.data.map((r) => [Number(r.t), r]));
  return {
    totals: { errors: n(t?.errors), recordingsWithErrors: n(t?.with_errors), rageClicks: n(t?.rage_clicks), recordingsWithRageClicks: n(t?.with_rage) },
    series: p.bucketStarts.map((at) => {
      const r = byBucket.get(at);
      return { t: at, errors: n(r?.errors), recordingsWithErrors: n(r?.with_errors), rageClicks: n(r?.rage_clicks), recordingsWithRageClicks: n(r?.with_rage) };
    }),
    topPages: a.topPages.slice(0, TOP_PAGES).map((r) => ({ path: String(r.path ?? ''), recordings: n(r.recordings) })),
    topPagesTruncated: a.topPages.length > TOP_PAGES,
  };
}

const logger = new Logger('statistics');

function shape(
  p: StatisticsParams,
  buckets: { data: BucketRow[]; totals?: BucketRow },
  breakdown: BreakdownRow[],
  activity: ActivityRows,
  viewports: ViewportRow[],
): Statistics {
  const t = buckets.totals;
  // Every row's bucket is one of the window's bucket starts; one that is not would vanish from the
  // series while the totals keep it (as when 18.16 computed minute buckets in Int16): say so.
  const starts = new Set(p.bucketStarts);
  const stray = buckets.data.filter((r) => !starts.has(Number(r.t)));
  if (stray.length)
    logger.error({
      msg: 'statistics rows outside every bucket: the series misses them',
      interval: p.interval,
      buckets: stray.slice(0, 5).map((r) => Number(r.t)),
      recordings: stray.reduce((n, r) => n + Number(r.recordings), 0),
    });
  const recordings = Number(t?.recordings ?? 0);
  const durationTotal = Number(t?.duration_total ?? 0);
  const [p50 = 0, p90 = 0, p99 = 0] = recordings ? (t?.duration_quantiles ?? []).map(Number) : [];
  const byBucket = new Map(buckets.data.map((r) => [Number(r.t), r]));
  const result: Statistics = {
    from: p.from,
    to: p.to,
    interval: p.interval,
    totals: {
      recordings,
      events: Number(t?.events ?? 0),
      bytes: Number(t?.bytes ?? 0),
      pageViews: Number(t?.page_views ?? 0),
      duration: { total: durationTotal, avg: recordings ? Math.round(durationTotal / recordings) : 0, p50, p90, p99 },
    },
    series: p.bucketStarts.map((at) => {
      const r = byBucket.get(at);
      return { t: at, recordings: Number(r?.recordings ?? 0), events: Number(r?.events ?? 0) };
    }),
    eventTypes: {},
    activity: activityOf(p, activity),
    viewports: viewports.slice(0, TOP_VIEWPORTS).map((r) => ({ width: Number(r.width), height: Number(r.height), recordings: Number(r.recordings) })),
    viewportsTruncated: viewports.length > TOP_VIEWPORTS,
  };
  const map = recordings ? t?.types : undefined;
  if (map) map[0].forEach((k, i) => (result.eventTypes[String(k)] = Number(map[1][i])));
  if (p.groupBy !== undefined) {
    result.breakdown = {
      key: p.groupBy,
      values: breakdown
        .slice(0, BREAKDOWN_LIMIT)
        .map((r) => ({ value: Number(r.has_value) ? r.value : null, recordings: Number(r.recordings), events: Number(r.events) })),
      truncated: breakdown.length > BREAKDOWN_LIMIT,
    };
  }
  return result;
}
