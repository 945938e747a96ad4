// The admin API's contract. Its inputs are shared with the CLI (arguments), so both refuse the same
// things with the same messages; its answers reuse the inputs' rules (patterns, bounds, enums), and
// the registry's records must keep their shape (the *IsDocumented checks).
import { createZodDto } from 'nestjs-zod';
import { z } from 'zod';
import { KEY_PREFIX, SIGNING_KEY_ID, TENANT_ID } from '../auth/key-material';
import type { ApiKeyRecord, Tenant as StoredTenant } from '../auth/tenant-records';
import { DELETION_STEPS, TENANT_STATUSES } from '../auth/tenant-status';
import type { Assert, SameShape } from '../common/openapi/same-shape';
import { epochMs } from '../common/openapi/openapi-schema';
import { limitOverridesSchema } from './limits.dto';

export const tenantIdSchema = z.string().regex(TENANT_ID, { message: 'must be 1-64 characters of A-Z a-z 0-9 _ -' });
export const signingKeyIdSchema = z.string().regex(SIGNING_KEY_ID, { message: 'must be 1-64 characters of A-Z a-z 0-9 _ - and inner dots' });
/** Key handles are the first 16 hex digits of the key's SHA-256; never the key itself. */
export const keyHandleSchema = z.string().regex(/^[0-9a-f]{16}$/, { message: 'must be a key handle (16 hex digits, see the key listing), not a key' });

/** An exact browser origin: scheme://host[:port], nothing else. */
export const originSchema = z
  .string()
  .max(300)
  .refine(
    (o) => {
      try {
        const u = new URL(o);
        return (u.protocol === 'http:' || u.protocol === 'https:') && u.origin === o;
      } catch {
        return false;
      }
    },
    { message: 'must be an origin such as https://app.example.com (scheme, host, optional port; no path or trailing slash)' },
  )
  .meta({ format: 'uri' });
const allowedOrigins = z.array(originSchema).max(50);

export const createTenantSchema = z
  .object({
    id: tenantIdSchema,
    name: z.string().trim().min(1).max(200).optional(),
    retentionDays: z.number().int().min(1).max(36500).optional(),
  })
  .strict();
export type CreateTenantInput = z.infer<typeof createTenantSchema>;

/** A tenant's retention in days; 0 or null removes it (recordings are kept until deleted). */
export const updateTenantSchema = z
  .object({
    retentionDays: z.number().int().min(0).max(36500).nullable(),
  })
  .strict();
export type UpdateTenantInput = z.infer<typeof updateTenantSchema>;

export const createKeySchema = z
  .object({
    kind: z.enum(['public', 'secret']),
    allowedOrigins: allowedOrigins.optional(),
  })
  .strict();
export type CreateKeyInput = z.infer<typeof createKeySchema>;

export const createSigningKeySchema = z
  .object({
    keyId: signingKeyIdSchema,
    secret: z.string().min(16, { message: 'must have at least 16 characters' }).max(512).optional(),
  })
  .strict();
export type CreateSigningKeyInput = z.infer<typeof createSigningKeySchema>;

export class CreateTenantBody extends createZodDto(createTenantSchema) {}
export class UpdateTenantBody extends createZodDto(updateTenantSchema) {}
export class CreateApiKeyBody extends createZodDto(createKeySchema) {}
export class CreateSigningKeyBody extends createZodDto(createSigningKeySchema) {}

const tenantId = tenantIdSchema.describe('Tenant id');
export class TenantParams extends createZodDto(z.object({ tenantId })) {}
/** Checked in this order: the tenant, then the key. */
export class KeyParams extends createZodDto(z.object({ tenantId, handle: keyHandleSchema.describe('Key handle from the listing (16 hex digits)') })) {}
export class SigningKeyParams extends createZodDto(z.object({ tenantId, keyId: signingKeyIdSchema })) {}

// ---- answers ----
// A DTO class is named after the component it becomes. A schema nested in several answers carries
// that name as its id; a DTO's own schema carries none (zod renders such a root as a $ref, which
// nestjs-zod's cleanup refuses), which is why Tenant has both forms.

const createdAt = epochMs('Creation time, epoch ms').meta({ example: 1767225600000 });
const tenantIdValue = tenantIdSchema.meta({ example: 'acme' });

const TenantDeletionSchema = z.object({
  step: z.enum(DELETION_STEPS).describe('The step the deletion was at: refuse, stream, projections, archives, registry (docs/tenants.md)'),
  updatedAt: epochMs('When that step began, epoch ms'),
  error: z.string().optional().describe('Why its last run stopped; running the deletion again finishes it'),
});

const TenantSchema = z.object({
  id: tenantIdValue,
  name: createTenantSchema.shape.name.unwrap().describe('Display name (the id unless one was given)').meta({ example: 'Acme Inc.' }),
  createdAt,
  retentionDays: createTenantSchema.shape.retentionDays
    .describe('Days recordings are kept after the service last stored events or metadata for them; absent: kept until deleted')
    .meta({ example: 30 }),
  status: z
    .enum(TENANT_STATUSES)
    .optional()
    .describe('Absent: active. suspended: its keys and links are refused (403), its data kept. deleting: refused the same way while its data is deleted'),
  statusSince: epochMs('When the status was set, epoch ms').optional(),
  deletion: TenantDeletionSchema.optional().describe('While deleting: how far the deletion got'),
  limits: limitOverridesSchema
    .optional()
    .describe("The tenant's own limits (GET /admin/tenants/{tenantId}/limits shows all in force); absent: the defaults")
    .meta({ example: { ingestEventsPerSecond: 20000 } }),
});

const keyFields = {
  tenantId: tenantIdValue,
  kind: createKeySchema.shape.kind.describe('public: ingestion and metadata; secret: full access'),
  handle: keyHandleSchema.describe("First 16 hex digits of the key's SHA-256: names the key in listings and revocation").meta({ example: '3f2a9c0d41b7e6a5' }),
  createdAt,
  allowedOrigins: allowedOrigins
    .optional()
    .describe('Browser origins allowed to use the key; absent: any')
    .meta({ example: ['https://app.acme.test'] }),
};
const ApiKeySchema = z.object(keyFields).meta({ id: 'ApiKey' });

const CreatedKeySchema = z.object({
  key: z
    .string()
    .regex(new RegExp(`^(${Object.values(KEY_PREFIX).join('|')})`))
    .describe('The key itself: shown in this answer only, the service keeps its SHA-256')
    .meta({ example: 'public_key_svc_…' }),
  ...keyFields,
});

const SigningKeySchema = z
  .object({ tenantId: tenantIdValue, keyId: signingKeyIdSchema.meta({ example: 'links-2026-01' }), createdAt })
  .meta({ id: 'SigningKey' });

const CreatedSigningKeySchema = z.object({
  signingKey: SigningKeySchema,
  secret: z.string().optional().describe('The generated secret, only when the request gave none: shown in this answer only').meta({ example: 'kJ3…' }),
  created: z.boolean().describe('false: the key id existed with this secret and nothing changed (status 200)'),
});

export class Tenant extends createZodDto(TenantSchema) {}
export class TenantList extends createZodDto(z.object({ tenants: z.array(TenantSchema.meta({ id: 'Tenant' })) })) {}
/** A new API key: the key itself, shown once, with its record. */
export class CreatedApiKey extends createZodDto(CreatedKeySchema) {}
export class ApiKeyList extends createZodDto(z.object({ keys: z.array(ApiKeySchema).describe('Oldest first; never the keys themselves') })) {}
/** secret only when generated; created false when the key id existed with the given secret. */
export class CreatedSigningKey extends createZodDto(CreatedSigningKeySchema) {}
export class SigningKeyList extends createZodDto(z.object({ signingKeys: z.array(SigningKeySchema).describe('Oldest first; never the secrets') })) {}

export type KeyView = z.output<typeof ApiKeySchema>;
export type SigningKeyView = z.output<typeof SigningKeySchema>;

export type TenantIsDocumented = Assert<SameShape<Tenant, StoredTenant>>;
export type KeyIsDocumented = Assert<SameShape<KeyView, Omit<ApiKeyRecord, 'hash'>>>;
