import { ValidationError } from '../common/validation';
import { alignDown, defaultInterval, parseStatisticsQuery } from './statistics.params';

const now = Date.parse('2025-01-08T12:34:56Z');

describe('parseStatisticsQuery', () => {
  it('defaults to the last 7 days until now, hourly', () => {
    const p = parseStatisticsQuery({}, now);
    expect(p).toMatchObject({ from: now - 7 * 86_400_000, to: now, interval: 'hour', filters: [] });
    expect(p.firstBucket).toBe(Date.parse('2025-01-01T12:00:00Z'));
    expect(p.buckets).toBe(169);
  });

  it('reads epoch ms and ISO 8601 with a zone, and date-only as UTC midnight', () => {
    expect(parseStatisticsQuery({ from: '1735689600000', to: '2025-01-02T00:00:00+01:00' }, now)).toMatchObject({
      from: 1735689600000,
      to: Date.parse('2025-01-01T23:00:00Z'),
    });
    expect(parseStatisticsQuery({ from: '2025-01-01', to: '2025-01-03' }, now)).toMatchObject({ from: Date.parse('2025-01-01T00:00:00Z'), interval: 'hour' });
  });

  it('picks the interval by span and aligns weeks to Monday 00:00 UTC', () => {
    expect(defaultInterval(6 * 3_600_000)).toBe('minute');
    expect(defaultInterval(14 * 86_400_000)).toBe('hour');
    expect(defaultInterval(730 * 86_400_000)).toBe('day');
    expect(defaultInterval(731 * 86_400_000)).toBe('week');
    expect(defaultInterval(20 * 365 * 86_400_000 + 1)).toBe('month');
    const p = parseStatisticsQuery({ from: '2025-01-08T12:00:00Z', to: '2025-03-01T00:00:00Z', interval: 'week' }, now);
    expect(new Date(p.firstBucket).toISOString()).toBe('2025-01-06T00:00:00.000Z');
    expect(alignDown(5, { size: 60_000, offset: 0 })).toBe(0);
  });

  it('buckets by calendar month (UTC), so from=0 (all time) works by default', () => {
    const p = parseStatisticsQuery({ from: '2024-01-31T23:00:00Z', to: '2024-04-01T00:00:00Z', interval: 'month' }, now);
    expect(p.bucketStarts.map((t) => new Date(t).toISOString().slice(0, 10))).toEqual(['2024-01-01', '2024-02-01', '2024-03-01']);
    expect([p.firstBucket, p.buckets]).toEqual([Date.parse('2024-01-01T00:00:00Z'), 3]);
    // One millisecond into April opens its bucket.
    expect(parseStatisticsQuery({ from: '2024-01-31', to: String(Date.parse('2024-04-01') + 1), interval: 'month' }, now).buckets).toBe(4);
    const all = parseStatisticsQuery({ from: '0' }, now);
    expect([all.interval, all.buckets, all.bucketStarts[0], all.bucketStarts.at(-1)]).toEqual(['month', 661, 0, Date.parse('2025-01-01')]);
    expect(alignDown(Date.parse('2024-02-29T23:59:59.999Z'), p.bucketing)).toBe(Date.parse('2024-02-01'));
    // Fixed intervals list their starts too.
    const h = parseStatisticsQuery({ from: '0', to: String(3 * 3_600_000 - 1), interval: 'hour' }, now);
    expect(h.bucketStarts).toEqual([0, 3_600_000, 7_200_000]);
  });

  it('takes a leap day and an offset date-time', () => {
    expect(parseStatisticsQuery({ from: '2024-02-29', to: '2024-03-01T01:00:00+01:00' }, now)).toMatchObject({
      from: Date.UTC(2024, 1, 29),
      to: Date.UTC(2024, 2, 1),
    });
  });

  it.each([
    [{ from: '0', to: String(Date.parse('2200-01-01')), interval: 'month' }, /month gives more than 2000 buckets/],
    [{ from: 'yesterday' }, /from: must be epoch milliseconds or ISO 8601/],
    [{ from: '2025-01-01T10:00:00' }, /from: must be epoch milliseconds or ISO 8601/],
    [{ from: '2025-13-45' }, /from: is not a date of the calendar/],
    [{ from: '2026-02-30' }, /from: is not a date of the calendar/],
    [{ to: '2025-02-29T10:00:00Z' }, /to: is not a date of the calendar/],
    [{ from: '2026-11-01T25:00:00Z' }, /from: is not a valid time/],
    [{ from: '2000', to: '1000' }, /from: must be before to/],
    [{ from: '1000', to: '1000' }, /from: must be before to/],
    [{ interval: 'year' }, /interval: must be minute, hour, day, week or month/],
    [{ from: '0', to: String(3 * 86_400_000), interval: 'minute' }, /4320 buckets .* at most 2000/],
    [{ groupBy: '' }, /groupBy: must be a metadata key/],
    [{ groupBy: 'k'.repeat(201) }, /groupBy: must be a metadata key/],
    [{ 'metadata[env': 'prod' }, /"metadata\[env": not a metadata filter/],
    [
      { since: '2025-01-01' },
      /^Invalid query: since: unknown parameter; this endpoint takes from, to, interval, groupBy, visitedUrl, .*, maxActiveTime, metadata\[<key>\]=<value>$/,
    ],
  ])('refuses %j', (q, message) => {
    expect(() => parseStatisticsQuery(q, now)).toThrow(ValidationError);
    expect(() => parseStatisticsQuery(q, now)).toThrow(message);
  });

  it('passes metadata filters and groupBy through', () => {
    expect(parseStatisticsQuery({ groupBy: 'plan', 'metadata[env]': 'prod' }, now)).toMatchObject({
      groupBy: 'plan',
      filters: [{ key: 'env', value: 'prod' }],
    });
  });
});
