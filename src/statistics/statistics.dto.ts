// GET /statistics's contract: its query (from/to as epoch ms or ISO 8601, a time needing a zone: Z
// or ±hh:mm) and its answer. statistics.params.ts derives the window and buckets from the query.
import { createZodDto } from 'nestjs-zod';
import { z } from 'zod';
import { nullableString } from '../common/openapi/openapi-schema';
import { timeQueryParam } from '../common/time-query';
import { MAX_META_KEY_LENGTH } from '../domain/batch-summary';
import { activityFilterQuery, checkActivityBounds } from '../read-model/activity-filter.dto';
import { listingQuery } from '../read-model/listing-query';
import { BREAKDOWN_LIMIT, TOP_PAGES, TOP_VIEWPORTS } from './statistics.service';

export const MAX_BUCKETS = 2000;

export const IntervalSchema = z.enum(['minute', 'hour', 'day', 'week', 'month'], { message: 'must be minute, hour, day, week or month' });

const keyLength = { message: `must be a metadata key of 1-${MAX_META_KEY_LENGTH} characters` };

/** The query; the metadata filters among its other parameters are read by parseMetadataFilters. */
export class StatisticsQuery extends createZodDto(
  listingQuery(
    {
      from: timeQueryParam('Window start (inclusive); default to - 7 days', '2024-12-25T00:00:00Z'),
      to: timeQueryParam('Window end (exclusive); default now', '1735689600000'),
      interval: IntervalSchema.optional().describe(
        `Bucket size of series (UTC; weeks start on Monday, months are calendar months). Default by span: ≤ 6 h minute, ≤ 14 days hour, ≤ 730 days day, ≤ 20 years week, else month (so from=0 works). More than ${MAX_BUCKETS} buckets: 400.`,
      ),
      groupBy: z
        .string()
        .min(1, keyLength)
        .max(MAX_META_KEY_LENGTH, keyLength)
        .refine((s) => s.isWellFormed(), { message: 'must be valid Unicode' })
        .optional()
        .describe('A metadata key: adds breakdown by its latest value')
        .meta({ example: 'plan' }),
      ...activityFilterQuery,
    },
    { filters: true },
  ).superRefine(checkActivityBounds),
) {}

const count = (description: string, example: number) => z.int().min(0).describe(description).meta({ example });

const StatisticsSchema = z
  .object({
    from: count('Window start, epoch ms (inclusive)', 1735084800000),
    to: count('Window end, epoch ms (exclusive)', 1735689600000),
    interval: IntervalSchema.describe('Bucket size of series'),
    totals: z.object({
      recordings: count('Recordings in the window', 1200),
      events: count('Their events; equals the sum of eventCount over the listed recordings', 510000),
      bytes: count('Their stored payload bytes', 220000000),
      pageViews: count('Their FullSnapshot events', 2600),
      duration: z
        .object({
          total: count('Sum', 86400000),
          avg: count('Mean, rounded to ms', 72000),
          p50: count('Median', 45000),
          p90: count('90th percentile', 180000),
          p99: count('99th percentile', 900000),
        })
        .describe(
          'Recording duration (last event time - first event time), ms. Quantiles are exact: the element at rank floor(q·n) of the sorted durations; 0 when there is no recording.',
        ),
    }),
    series: z
      .array(
        z.object({
          t: count('Bucket start, epoch ms, aligned in UTC (minute, hour, day; weeks start Monday 00:00 UTC); the first may precede from', 1735084800000),
          recordings: count('Recordings whose first event falls in the bucket', 12),
          events: count('Events of those recordings', 5100),
        }),
      )
      .describe(
        `Every bucket from the one holding \`from\` up to \`to\` (zeros included, at most ${MAX_BUCKETS}); a recording counts in the bucket of its first event. Sums equal totals.recordings and totals.events.`,
      ),
    eventTypes: z
      .record(z.string(), z.int().min(0))
      .describe("Events of the window's recordings by rrweb type (2 FullSnapshot, 3 IncrementalSnapshot, 4 Meta, 5 Custom, …); sums to totals.events")
      .meta({ example: { '2': 2600, '3': 500000, '4': 2600, '5': 4800 } }),
    activity: z
      .object({
        totals: z.object({
          errors: count("Console errors and uncaught errors of the window's recordings", 85),
          recordingsWithErrors: count('Recordings with at least one', 40),
          rageClicks: count('Rage clicks of those recordings (docs/activity.md)', 19),
          recordingsWithRageClicks: count('Recordings with at least one rage click', 12),
        }),
        series: z
          .array(
            z.object({
              t: count('Bucket start, as in series', 1735084800000),
              errors: count('Errors of the recordings whose first event falls in the bucket', 4),
              recordingsWithErrors: count('Those recordings with an error', 2),
              rageClicks: count('Rage clicks of those recordings', 1),
              recordingsWithRageClicks: count('Those recordings with a rage click', 1),
            }),
          )
          .describe('The buckets of series; sums equal the totals'),
        topPages: z
          .array(z.object({ path: z.string().meta({ example: '/checkout' }), recordings: count('Recordings with a page view of it', 300) }))
          .describe(`URL paths by the number of the window's recordings that viewed them (then by path), at most ${TOP_PAGES}`),
        topPagesTruncated: z.boolean().describe(`More than ${TOP_PAGES} paths: the rest are left out`),
      })
      .describe('From the activity projection (docs/activity.md), for the same recordings as totals'),
    viewports: z
      .array(
        z.object({
          width: count('Viewport width, CSS pixels', 1280),
          height: count('Viewport height, CSS pixels', 720),
          recordings: count('Recordings with this viewport', 640),
        }),
      )
      .describe(
        `Viewport sizes (each recording's earliest Meta event with a viewport, as the listing's viewport) by the number of the window's recordings (then larger width, height), at most ${TOP_VIEWPORTS}; recordings without a viewport are left out`,
      ),
    viewportsTruncated: z.boolean().describe(`More than ${TOP_VIEWPORTS} sizes: the rest are left out`),
    breakdown: z
      .object({
        key: z.string().meta({ example: 'plan' }),
        values: z.array(
          z.object({
            value: nullableString('The latest value of the key; null: the recordings without it').meta({ example: 'pro' }),
            recordings: count('Recordings with this value', 400),
            events: count('Their events', 170000),
          }),
        ),
        truncated: z.boolean().describe(`More than ${BREAKDOWN_LIMIT} distinct values: the rest are left out`),
      })
      .optional()
      .describe(
        `Only with groupBy: recordings and events per latest value of that metadata key, most recordings first (then value), at most ${BREAKDOWN_LIMIT} values; value null gathers the recordings without the key.`,
      ),
  })
  .describe(
    'The window holds the recordings whose first event time is in [from, to) and that match every metadata filter — exactly the recordings GET /recordings lists with the same filters and a timestamp in [from, to). ' +
      'Each counts with all its events, including events after `to`. Counts equal those of the events API (in-band metadata events are not events), except for events a client resent under the same sequenceId in a differently composed batch: reads drop those, counts include them (docs/reliability.md).',
  );

export class Statistics extends createZodDto(StatisticsSchema) {}
