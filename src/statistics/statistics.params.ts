// Query parameters of GET /statistics, validated with zod (400 JSON naming the field): from/to as
// epoch ms or ISO 8601 (a time needs a zone: Z or ±hh:mm), interval by span when omitted, bucket
// count capped. Metadata filters and groupBy share the listing's rules.
import { z } from 'zod';
import { ValidationError, parseWith } from '../common/validation';
import { MAX_META_KEY_LENGTH } from '../domain/batch-summary';
import { MetadataFilter, parseMetadataFilters } from '../read-model/metadata-filter';
import type { Bucketing } from '../read-model/statistics.sql';

export const INTERVALS = { minute: 60_000, hour: 3_600_000, day: 86_400_000, week: 604_800_000 } as const;
/** Fixed-size intervals, and calendar months (UTC). */
export type Interval = keyof typeof INTERVALS | 'month';
const INTERVAL_NAMES = ['minute', 'hour', 'day', 'week', 'month'] as const;
export const MAX_BUCKETS = 2000;
export const DEFAULT_SPAN_MS = 7 * 86_400_000;
/** Weeks start on Monday 00:00 UTC; 1970-01-01 was a Thursday. */
const WEEK_OFFSET = 4 * 86_400_000;
const MAX_TIME = 8_640_000_000_000_000;

const ISO = /^\d{4}-\d{2}-\d{2}(?:T\d{2}:\d{2}(?::\d{2}(?:\.\d{1,9})?)?(?:Z|[+-]\d{2}:?\d{2}))?$/;
/** Whether an ISO date's year-month-day exists: Date.parse rolls 2026-02-30 over to March 2. */
function calendarDate(s: string): boolean {
  const [y, m, d] = s.slice(0, 10).split('-').map(Number);
  const date = new Date(0);
  date.setUTCFullYear(y, m - 1, d);
  return date.getUTCFullYear() === y && date.getUTCMonth() === m - 1 && date.getUTCDate() === d;
}

const time = z
  .string()
  .refine((s) => /^\d{1,16}$/.test(s) || ISO.test(s), { message: 'must be epoch milliseconds or ISO 8601 (a date, or a date-time with Z or an offset)' })
  .refine((s) => /^\d+$/.test(s) || calendarDate(s), { message: 'is not a date of the calendar' })
  .transform((s) => (/^\d+$/.test(s) ? Number(s) : Date.parse(s)))
  .refine((n) => Number.isFinite(n) && n >= 0 && n <= MAX_TIME, { message: 'is not a valid time' })
  .optional();

const schema = z.object({
  from: time,
  to: time,
  interval: z.enum(INTERVAL_NAMES, { message: 'must be minute, hour, day, week or month' }).optional(),
  groupBy: z
    .string()
    .min(1, { message: `must be a metadata key of 1-${MAX_META_KEY_LENGTH} characters` })
    .max(MAX_META_KEY_LENGTH, { message: `must be a metadata key of 1-${MAX_META_KEY_LENGTH} characters` })
    .refine((s) => s.isWellFormed(), { message: 'must be valid Unicode' })
    .optional(),
});

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

export function parseStatisticsQuery(query: Record<string, unknown>, nowMs = Date.now()): StatisticsParams {
  const q = parseWith(schema, { from: query.from, to: query.to, interval: query.interval, groupBy: query.groupBy }, 'query');
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
  return { from, to, interval, bucketing, firstBucket: starts[0], buckets: starts.length, bucketStarts: starts, groupBy: q.groupBy, filters: parseMetadataFilters(query) };
}
