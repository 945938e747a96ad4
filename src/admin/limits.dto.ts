// The per-tenant limits in the admin API and the CLI (domain/tenant-limits.ts): one zod schema per
// shape gives the validation, the OpenAPI schema and the type.
import { createZodDto } from 'nestjs-zod';
import { z } from 'zod';
import { LIMIT_INFO, LIMIT_NAMES, LimitName } from '../domain/tenant-limits';

const limitValue = (name: LimitName) =>
  z.number().int().min(0).max(Number.MAX_SAFE_INTEGER).describe(`${LIMIT_INFO[name].what}; 0: unlimited (default: ${LIMIT_INFO[name].env})`);

const shapeOf = <T extends z.ZodType>(f: (name: LimitName) => T) => Object.fromEntries(LIMIT_NAMES.map((n) => [n, f(n)])) as Record<LimitName, T>;

/** Every limit with its value. */
export const tenantLimitsSchema = z.object(shapeOf(limitValue)).strict();
/** The limits a tenant has of its own (as stored with the tenant). */
export const limitOverridesSchema = tenantLimitsSchema.partial();

/** A change: a number sets the tenant's own value, null returns the limit to the default, absent keeps it. */
export const updateLimitsSchema = z
  .object(shapeOf((n) => limitValue(n).nullable().optional()))
  .strict()
  .refine((o) => Object.keys(o).length > 0, { message: `name at least one limit: ${LIMIT_NAMES.join(', ')}` });
export type UpdateLimitsInput = z.infer<typeof updateLimitsSchema>;

export class UpdateLimitsBody extends createZodDto(updateLimitsSchema) {}

const LimitsViewSchema = z.object({
  tenantId: z.string().meta({ example: 'acme' }),
  limits: tenantLimitsSchema.describe("The limits in force: the tenant's own values over the defaults").meta({
    example: {
      ingestEventsPerSecond: 5000,
      ingestBytesPerSecond: 2097152,
      webSockets: 1000,
      readBytesPerSecond: 2097152,
      storedBytes: 0,
      renders: 8,
      rendersPerSecond: 5,
      liveViewers: 200,
    },
  }),
  own: limitOverridesSchema.describe("The tenant's own values (the others follow the configured defaults)").meta({ example: { storedBytes: 0 } }),
  defaults: tenantLimitsSchema.describe('The configured defaults (TENANT_* variables)'),
});
export type LimitsView = z.output<typeof LimitsViewSchema>;
export class TenantLimitsView extends createZodDto(LimitsViewSchema) {}
