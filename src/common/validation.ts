// Request-schema validation with zod, the one validation approach of the service (configuration
// uses it too). A failure is a ValidationError, answered as JSON 400 by the error filter.
import { z } from 'zod';

export class ValidationError extends Error {
  constructor(
    message: string,
    readonly issues: { path: string; message: string }[],
  ) {
    super(message);
  }
}

export function parseWith<T extends z.ZodTypeAny>(schema: T, value: unknown, where: string): z.infer<T> {
  const r = schema.safeParse(value);
  if (r.success) return r.data;
  // A query parameter given twice arrives as an array: say that, not zod's "expected string, received
  // array" (a JSON body's array is a type error like any other).
  const query = where.endsWith('query');
  const at = (path: PropertyKey[]) =>
    path.reduce<unknown>((v, k) => (v !== null && typeof v === 'object' ? (v as Record<PropertyKey, unknown>)[k] : undefined), value);
  const issues = r.error.issues.map((i) => ({
    path: i.path.join('.'),
    message: query && i.code === 'invalid_type' && i.path.length > 0 && Array.isArray(at(i.path)) ? 'must be given once' : i.message,
  }));
  const first = issues[0];
  throw new ValidationError(`Invalid ${where}: ${first.path ? `${first.path}: ` : ''}${first.message}`, issues);
}

/** The words a query-string boolean takes: true/false/1/0 only; anything else fails validation. (A literal
 * list, not z.enum, which would document them as 0, 1, true, false.) */
export const QUERY_BOOLEAN_WORDS = z.literal(['true', 'false', '1', '0'], { message: 'must be true or false' });

/** A query-string boolean; its schema documents the four words and the default. */
export const queryBoolean = (defaultValue: boolean) =>
  QUERY_BOOLEAN_WORDS.transform((v) => v === 'true' || v === '1').prefault(defaultValue ? 'true' : 'false');

// "-0" is 0: a negative zero reached SQL as OFFSET (0), which ClickHouse refuses (a 500). Huge values
// stay finite, so they fail the range check with its message rather than "not an integer".
const decimalInteger = (v: unknown) =>
  typeof v === 'string' && /^-?\d+$/.test(v) ? Math.max(Number.MIN_SAFE_INTEGER, Math.min(Number.MAX_SAFE_INTEGER, Number(v))) || 0 : v;

const integerIn = (min: number, max: number) =>
  // The digits become a number before the checks, so the schema documents the integer (and its
  // bounds) a client sends, not a string pattern. Anything else stays as sent and is not a number.
  z.preprocess(
    decimalInteger,
    z
      .number({ error: 'must be an integer' })
      .int()
      .min(min, { message: `must be at least ${min}` })
      .max(max, { message: `must be at most ${max}` }),
  );

/** An integer carried in a query string, within [min, max]; absent, the default (if any). */
export function queryInt(min: number, max: number): z.ZodOptional<ReturnType<typeof integerIn>>;
export function queryInt(min: number, max: number, defaultValue: number): z.ZodPrefault<ReturnType<typeof integerIn>>;
export function queryInt(min: number, max: number, defaultValue?: number) {
  return defaultValue === undefined ? integerIn(min, max).optional() : integerIn(min, max).prefault(defaultValue);
}

export const uuidParam = z
  .string()
  .check(z.guid({ message: 'must be a UUID' }))
  .transform((s) => s.toLowerCase());
