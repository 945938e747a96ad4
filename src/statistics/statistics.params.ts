// The window and buckets of GET /statistics from its query (statistics.dto.ts): interval by span
// when omitted, from before to, bucket count capped. Metadata and activity filters share the listing's rules.
import { ValidationError, parseWith } from '../common/validation';
import { activityFilters } from '../read-model/activity-filter.dto';
import { ActivityFilters, hasActivityFilters } from '../read-model/activity.sql';
import { MetadataFilter, parseMetadataFilters } from '../read-model/metadata-filter';
import type { Bucketing } from '../read-model/statistics.sql';
import { MAX_BUCKETS, StatisticsQuery } from './statistics.dto';

export const INTERVALS = { minute: 60_000, hour: 3_600_000, day: 86_400_000, week: 604_800_000 } as const;
/** Fixed-size intervals, and calendar months (UTC). */
export type Interval = keyof typeof INTERVALS | 'month';
export const DEFAULT_SPAN_MS = 7 * 86_400_000;
/** Weeks start on Monday 00:00 UTC; 1970-01-01 was a Thursday. */
const WEEK_OFFSET = 4 * 86_400_000;

export interface StatisticsParams {
  from: number;
  to: number;
  interval: Interval;
  bucketing: Bucketing;
  /** Start of the first bucket (aligned; may precede from). */
  firstBucket: number;
  buckets: number;
  /** Start of every bucket, epoch ms. */
  bucketStarts: number[];
  groupBy?: string;
  filters: MetadataFilter[];
  /** The listing's activity filters (docs/activity.md#search). */
  activity?: ActivityFilters;
}

export function defaultInterval(spanMs: number): Interval {
  if (spanMs <= 6 * INTERVALS.hour) return 'minute';
  if (spanMs <= 14 * INTERVALS.day) return 'hour';
  if (spanMs <= 730 * INTERVALS.day) return 'day';
  if (spanMs <= 20 * 365 * INTERVALS.day) return 'week';
  return 'month';
}

export const alignDown = (t: number, b: Bucketing) => {
  if (b.calendar === 'month') {
    const d = new Date(t);
    return Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), 1);
  }
  return t - ((((t - b.offset) % b.size) + b.size) % b.size);
};

/** The start of the bucket after the one starting at `start`. */
const nextBucket = (start: number, b: Bucketing) => {
  if (b.calendar !== 'month') return start + b.size;
  const d = new Date(start);
  return Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 1, 1);
};

/** Starts of the buckets covering [from, to), or null when there are more than `max`. */
function bucketStartsOf(from: number, to: number, b: Bucketing, max: number): { starts: number[] | null; count: number } {
  const first = alignDown(from, b);
  if (b.calendar !== 'month') {
    const count = Math.ceil((to - first) / b.size);
    return { count, starts: count > max ? null : Array.from({ length: count }, (_, i) => first + i * b.size) };
  }
  const starts: number[] = [];
  for (let t = first; t < to && starts.length <= max; t = nextBucket(t, b)) starts.push(t);
  return { count: starts.length, starts: starts.length > max ? null : starts };
}

const fail = (path: string, message: string) => new ValidationError(`Invalid query: ${path}: ${message}`, [{ path, message }]);

/** The window and buckets of a query as the route's DTO parsed it; the filters read from its other parameters. */
export function statisticsParams(q: StatisticsQuery, nowMs = Date.now()): StatisticsParams {
  const to = q.to ?? nowMs;
  const from = q.from ?? Math.max(0, to - DEFAULT_SPAN_MS);
  if (!(from < to)) throw fail('from', 'must be before to');
  const interval = q.interval ?? defaultInterval(to - from);
  const bucketing: Bucketing =
    interval === 'month' ? { size: 0, offset: 0, calendar: 'month' } : { size: INTERVALS[interval], offset: interval === 'week' ? WEEK_OFFSET : 0 };
  const { starts, count } = bucketStartsOf(from, to, bucketing, MAX_BUCKETS);
  if (!starts) {
    const many = interval === 'month' ? `more than ${MAX_BUCKETS}` : String(count);
    throw fail('interval', `${interval} gives ${many} buckets between from and to; at most ${MAX_BUCKETS}: choose a larger interval or a shorter range`);
  }
  return {
    from,
    to,
    interval,
    bucketing,
    firstBucket: starts[0],
    buckets: starts.length,
    bucketStarts: starts,
    groupBy: q.groupBy,
    filters: parseMetadataFilters(q),
    ...(hasActivityFilters(activityFilters(q)) ? { activity: activityFilters(q) } : {}),
  };
}

/** What GET /statistics makes of a raw query string: its DTO (as ZodValidationPipe parses it), then statisticsParams. */
export const parseStatisticsQuery = (query: Record<string, unknown>, nowMs = Date.now()) =>
  statisticsParams(parseWith(StatisticsQuery.schema, query, 'query'), nowMs);
