// OpenAPI schema of the GET /statistics response: every field described.
import type { SchemaObject } from '@nestjs/swagger/dist/interfaces/open-api-spec.interface';
import { MAX_BUCKETS } from './statistics.params';
import { BREAKDOWN_LIMIT } from './statistics.service';

const int = (description: string, example?: number): SchemaObject => ({ type: 'integer', description, ...(example !== undefined ? { example } : {}) });

export const statisticsSchema: SchemaObject = {
  type: 'object',
  required: ['from', 'to', 'interval', 'totals', 'series', 'eventTypes'],
  description:
    'The window holds the recordings whose first event time is in [from, to) and that match every metadata filter — exactly the recordings GET /recordings lists with the same filters and a timestamp in [from, to). ' +
    'Each counts with all its events, including events after `to`. Counts equal those of the events API (in-band metadata events are not events), except for events a client resent under the same sequenceId in a differently composed batch: reads drop those, counts include them (docs/reliability.md).',
  properties: {
    from: int('Window start, epoch ms (inclusive)', 1735084800000),
    to: int('Window end, epoch ms (exclusive)', 1735689600000),
    interval: { type: 'string', enum: ['minute', 'hour', 'day', 'week', 'month'], description: 'Bucket size of series' },
    totals: {
      type: 'object',
      required: ['recordings', 'events', 'bytes', 'pageViews', 'duration'],
      properties: {
        recordings: int('Recordings in the window', 1200),
        events: int('Their events; equals the sum of eventCount over the listed recordings', 510000),
        bytes: int('Their stored payload bytes', 220000000),
        pageViews: int('Their FullSnapshot events', 2600),
        duration: {
          type: 'object',
          description: 'Recording duration (last event time - first event time), ms. Quantiles are exact: the element at rank floor(q·n) of the sorted durations; 0 when there is no recording.',
          required: ['total', 'avg', 'p50', 'p90', 'p99'],
          properties: { total: int('Sum', 86400000), avg: int('Mean, rounded to ms', 72000), p50: int('Median', 45000), p90: int('90th percentile', 180000), p99: int('99th percentile', 900000) },
        },
      },
    },
    series: {
      type: 'array',
      description: `Every bucket from the one holding \`from\` up to \`to\` (zeros included, at most ${MAX_BUCKETS}); a recording counts in the bucket of its first event. Sums equal totals.recordings and totals.events.`,
      items: {
        type: 'object',
        required: ['t', 'recordings', 'events'],
        properties: {
          t: int('Bucket start, epoch ms, aligned in UTC (minute, hour, day; weeks start Monday 00:00 UTC); the first may precede from', 1735084800000),
          recordings: int('Recordings whose first event falls in the bucket', 12),
          events: int('Events of those recordings', 5100),
        },
      },
    },
    eventTypes: {
      type: 'object',
      additionalProperties: { type: 'integer' },
      description: 'Events of the window\'s recordings by rrweb type (2 FullSnapshot, 3 IncrementalSnapshot, 4 Meta, 5 Custom, …); sums to totals.events',
      example: { '2': 2600, '3': 500000, '4': 2600, '5': 4800 },
    },
    breakdown: {
      type: 'object',
      description: `Only with groupBy: recordings and events per latest value of that metadata key, most recordings first (then value), at most ${BREAKDOWN_LIMIT} values; value null gathers the recordings without the key.`,
      required: ['key', 'values', 'truncated'],
      properties: {
        key: { type: 'string', example: 'plan' },
        values: {
          type: 'array',
          items: {
            type: 'object',
            required: ['value', 'recordings', 'events'],
            properties: { value: { type: 'string', nullable: true, example: 'pro' }, recordings: int('Recordings with this value', 400), events: int('Their events', 170000) },
          },
        },
        truncated: { type: 'boolean', description: `More than ${BREAKDOWN_LIMIT} distinct values: the rest are left out` },
      },
    },
  },
};
