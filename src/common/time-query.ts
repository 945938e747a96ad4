// A time as a query parameter: epoch milliseconds or ISO 8601 (a date, or a date-time that needs a
// zone: Z or ±hh:mm), the format GET /statistics's from/to take; parsed to epoch ms, 400 otherwise.
import { z } from 'zod';

/** The largest time a JavaScript Date holds, epoch ms. */
const MAX_TIME = 8_640_000_000_000_000;

const ISO = /^\d{4}-\d{2}-\d{2}(?:T\d{2}:\d{2}(?::\d{2}(?:\.\d{1,9})?)?(?:Z|[+-]\d{2}:?\d{2}))?$/;

/** Whether an ISO date's year-month-day exists: Date.parse rolls 2026-02-30 over to March 2. */
function calendarDate(s: string): boolean {
  const [y, m, d] = s.slice(0, 10).split('-').map(Number);
  const date = new Date(0);
  date.setUTCFullYear(y, m - 1, d);
  return date.getUTCFullYear() === y && date.getUTCMonth() === m - 1 && date.getUTCDate() === d;
}

/** An optional time parameter, parsed to epoch ms. */
export const timeQueryParam = (description: string, example: string) =>
  z
    .string()
    .refine((s) => /^\d{1,16}$/.test(s) || ISO.test(s), { message: 'must be epoch milliseconds or ISO 8601 (a date, or a date-time with Z or an offset)' })
    .refine((s) => /^\d+$/.test(s) || calendarDate(s), { message: 'is not a date of the calendar' })
    .transform((s) => (/^\d+$/.test(s) ? Number(s) : Date.parse(s)))
    .refine((n) => Number.isFinite(n) && n >= 0 && n <= MAX_TIME, { message: 'is not a valid time' })
    .optional()
    .describe(`${description}; epoch milliseconds or ISO 8601 (date, or date-time with Z or an offset)`)
    .meta({ example });
