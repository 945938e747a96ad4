// The activity filters of GET /recordings (docs/activity.md#search): query parameters validated and
// documented by these schemas (a bad one is a 400 naming it, as every query error), read into
// ActivityFilters for activity.sql.ts. All of them combine with each other and with the metadata
// filters (AND).
import { z } from 'zod';
import { QUERY_BOOLEAN_WORDS, queryInt } from '../common/validation';
import type { ActivityFilters, UrlFilter } from './activity.sql';

export const MAX_FILTER_TEXT = 2048;
const MAX_MS = 10 * 365 * 24 * 3600 * 1000;

const text = (what: string) =>
  z
    .string()
    .min(1, 'must not be empty')
    .max(MAX_FILTER_TEXT, `must be at most ${MAX_FILTER_TEXT} characters`)
    .refine((v) => v.isWellFormed(), 'must be valid Unicode')
    .optional()
    .describe(what);
const flag = (what: string) =>
  QUERY_BOOLEAN_WORDS.transform((v) => v === 'true' || v === '1')
    .optional()
    .describe(what);
const ms = (what: string) => queryInt(0, MAX_MS).describe(`${what}, ms (0-${MAX_MS})`);

const URL_PARAMS = {
  visitedUrl: ['url', 'exact'],
  visitedUrlPrefix: ['url', 'prefix'],
  visitedUrlContains: ['url', 'contains'],
  visitedPath: ['path', 'exact'],
  visitedPathPrefix: ['path', 'prefix'],
  visitedPathContains: ['path', 'contains'],
} as const;

const urlDescription = (on: 'url' | 'path', match: string) =>
  `Only recordings with a page view whose ${on === 'url' ? "full URL (the rrweb Meta event's href)" : 'URL path (no query or fragment)'} ${match}`;

export const activityFilterQuery = {
  visitedUrl: text(urlDescription('url', 'equals this')),
  visitedUrlPrefix: text(urlDescription('url', 'starts with this (case-sensitive)')),
  visitedUrlContains: text(urlDescription('url', 'contains this (case-insensitive)')),
  visitedPath: text(urlDescription('path', 'equals this, e.g. /checkout')),
  visitedPathPrefix: text(urlDescription('path', 'starts with this (case-sensitive)')),
  visitedPathContains: text(urlDescription('path', 'contains this (case-insensitive)')),
  clickedText: text(
    "Only recordings with a click whose target's text (its clickable element's text, aria-label or title; docs/activity.md) contains this (case-insensitive)",
  ),
  hasErrors: flag('true: only recordings with a console error or uncaught error; false: only those without'),
  errorText: text('Only recordings with an error whose message contains this (case-insensitive); with hasErrors=false, only those without such an error'),
  hasRageClicks: flag('true: only recordings with a rage click (3 clicks on one element within 1 s); false: only those without'),
  hasDeadClicks: flag('true: only recordings with a dead click (no DOM change, input, scroll or navigation within 1 s); false: only those without'),
  minDuration: ms('Only recordings at least this long (last minus first event time)'),
  maxDuration: ms('Only recordings at most this long'),
  minActiveTime: ms('Only recordings with at least this much active time (docs/activity.md)'),
  maxActiveTime: ms('Only recordings with at most this much active time'),
};

type Parsed = { [K in keyof typeof activityFilterQuery]?: z.output<(typeof activityFilterQuery)[K]> };

/** Refines a query object with the activity parameters: a minimum above its maximum is an issue naming the minimum. */
export function checkActivityBounds(q: Parsed, ctx: z.RefinementCtx): void {
  for (const [min, max] of [
    ['minDuration', 'maxDuration'],
    ['minActiveTime', 'maxActiveTime'],
  ] as const) {
    const lo = q[min];
    const hi = q[max];
    if (lo !== undefined && hi !== undefined && lo > hi) ctx.addIssue({ code: 'custom', path: [min], message: `must not exceed ${max}`, input: lo });
  }
}

export function activityFilters(q: Parsed): ActivityFilters {
  const urls: UrlFilter[] = [];
  for (const [name, [on, match]] of Object.entries(URL_PARAMS)) {
    const value = q[name as keyof typeof URL_PARAMS];
    if (value !== undefined) urls.push({ value, on, match });
  }
  return {
    urls,
    clickedText: q.clickedText,
    hasErrors: q.hasErrors,
    errorText: q.errorText,
    hasRageClicks: q.hasRageClicks,
    hasDeadClicks: q.hasDeadClicks,
    minDuration: q.minDuration,
    maxDuration: q.maxDuration,
    minActiveTime: q.minActiveTime,
    maxActiveTime: q.maxActiveTime,
  };
}
