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
  const at = (path: PropertyKey[]) => path.reduce<unknown>((v, k) => (v !== null && typeof v === 'object' ? (v as Record<PropertyKey, unknown>)[k] : undefined), value);
  const issues = r.error.issues.map((i) => ({
    path: i.path.join('.'),
    message: query && i.code === 'invalid_type' && i.path.length > 0 && Array.isArray(at(i.path)) ? 'must be given once' : i.message,
  }));
  const first = issues[0];
  throw new ValidationError(
    `Invalid ${where}: ${first.path ? `${first.path}: ` : ''}${first.message}`,
    issues,
  );
}

/** Query-string booleans: true/false/1/0 only; anything else fails validation. */
export const queryBoolean = (defaultValue: boolean) =>
  z
    .enum(['true', 'false', '1', '0'], { message: 'must be true or false' })
    .optional()
    .transform((v) => (v === undefined ? defaultValue : v === 'true' || v === '1'));

/** An integer carried in a query string, within [min, max]. */
export const queryInt = (min: number, max: number, defaultValue?: number) =>
  z
    .string()
    .regex(/^-?\d+$/, { message: 'must be an integer' })
    // "-0" is 0: a negative zero reached SQL as OFFSET (0), which ClickHouse refuses (a 500). Huge
    // values stay finite, so they fail the range check with its message rather than "not an integer".
    .transform((v) => Math.max(Number.MIN_SAFE_INTEGER, Math.min(Number.MAX_SAFE_INTEGER, Number(v))) || 0)
    .pipe(z.number().int().min(min, { message: `must be at least ${min}` }).max(max, { message: `must be at most ${max}` }))
    .optional()
    .transform((v) => (v === undefined ? defaultValue : v));

export const uuidParam = z
  .string()
  .regex(/^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$/, {
    message: 'must be a UUID',
  })
  .transform((s) => s.toLowerCase());
