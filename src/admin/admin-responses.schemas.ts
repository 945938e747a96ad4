// OpenAPI schemas of the admin API's answers (used by @ApiResponse in the admin controllers). Each
// object is typed against what TenantAdmin returns, so a field added, dropped or made optional there
// fails the build until it is documented here; values carry the rules of the request schemas.
import type { ReferenceObject, SchemaObject as Plain } from '@nestjs/swagger/dist/interfaces/open-api-spec.interface';
import { z } from 'zod';
import { KEY_PREFIX } from '../auth/key-material';
import type { Tenant } from '../auth/tenant-registry';
import { createKeySchema, createTenantSchema, keyHandleSchema, originSchema, signingKeyIdSchema, tenantIdSchema } from './admin.schemas';
import type { CreatedKey, CreatedSigningKey, KeyView, SigningKeyView } from './tenant-admin.service';

/** What @ApiResponse takes: a schema or a $ref to a named one. */
type SchemaObject = Plain & Partial<ReferenceObject>;
type Field<Required extends boolean> = { schema: SchemaObject; required: Required };
/** Every property of T, required exactly when T requires it. */
type Fields<T> = { [K in keyof T]-?: Field<{} extends Pick<T, K> ? false : true> };
const req = (schema: SchemaObject): Field<true> => ({ schema, required: true });
const opt = (schema: SchemaObject): Field<false> => ({ schema, required: false });

function object<T>(fields: Fields<T>): SchemaObject {
  const entries = Object.entries(fields) as [string, Field<boolean>][];
  return { type: 'object', required: entries.filter(([, f]) => f.required).map(([k]) => k), properties: Object.fromEntries(entries.map(([k, f]) => [k, f.schema])) };
}

/** A request value's schema as a response value (same pattern, bounds, enum), with a description and example. */
const like = (schema: z.ZodTypeAny, more: SchemaObject): SchemaObject => ({ ...(z.toJSONSchema(schema, { target: 'openapi-3.0', io: 'output' }) as SchemaObject), ...more });
const createdAt: SchemaObject = { type: 'integer', format: 'int64', description: 'Creation time, epoch ms', example: 1767225600000 };
const tenantId = like(tenantIdSchema, { example: 'acme' });
const ref = (name: keyof typeof adminSchemas): SchemaObject => ({ $ref: `#/components/schemas/${name}` });

const tenant = object<Tenant>({
  id: req(tenantId),
  name: req(like(createTenantSchema.shape.name, { description: 'Display name (the id unless one was given)', example: 'Acme Inc.' })),
  createdAt: req(createdAt),
  retentionDays: opt(like(createTenantSchema.shape.retentionDays, { description: 'Days recordings are kept after the service last stored events or metadata for them; absent: kept until deleted', example: 30 })),
});

const keyFields: Fields<KeyView> = {
  tenantId: req(tenantId),
  kind: req(like(createKeySchema.shape.kind, { description: 'public: ingestion and metadata; secret: full access' })),
  handle: req(like(keyHandleSchema, { description: "First 16 hex digits of the key's SHA-256: names the key in listings and revocation", example: '3f2a9c0d41b7e6a5' })),
  createdAt: req(createdAt),
  allowedOrigins: opt(
    like(createKeySchema.shape.allowedOrigins, { items: like(originSchema, { format: 'uri' }), description: 'Browser origins allowed to use the key; absent: any', example: ['https://app.acme.test'] }),
  ),
};
const apiKey = object<KeyView>(keyFields);

const keyPattern = `^(${Object.values(KEY_PREFIX).join('|')})`;
export const createdKeySchema = object<CreatedKey>({
  key: req({ type: 'string', pattern: keyPattern, description: 'The key itself: shown in this answer only, the service keeps its SHA-256', example: 'public_key_svc_…' }),
  ...keyFields,
});

const signingKey = object<SigningKeyView>({
  tenantId: req(tenantId),
  keyId: req(like(signingKeyIdSchema, { example: 'links-2026-01' })),
  createdAt: req(createdAt),
});

export const createdSigningKeySchema = object<CreatedSigningKey>({
  signingKey: req(ref('SigningKey')),
  secret: opt({ type: 'string', description: 'The generated secret, only when the request gave none: shown in this answer only', example: 'kJ3…' }),
  created: req({ type: 'boolean', description: 'false: the key id existed with this secret and nothing changed (status 200)' }),
});

/** Named in components.schemas, so generated clients get these types by name. */
export const adminSchemas = { Tenant: tenant, ApiKey: apiKey, SigningKey: signingKey };

export const tenantSchema = ref('Tenant');
export const tenantListSchema = object<{ tenants: Tenant[] }>({ tenants: req({ type: 'array', items: tenantSchema }) });
export const keyListSchema = object<{ keys: KeyView[] }>({ keys: req({ type: 'array', items: ref('ApiKey'), description: 'Oldest first; never the keys themselves' }) });
export const signingKeyListSchema = object<{ signingKeys: SigningKeyView[] }>({ signingKeys: req({ type: 'array', items: ref('SigningKey'), description: 'Oldest first; never the secrets' }) });
