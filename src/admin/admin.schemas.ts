// Inputs of tenant administration, shared by the admin HTTP API (request bodies and path values)
// and the CLI (arguments), so both refuse the same things with the same messages.
import { z } from 'zod';
import { SIGNING_KEY_ID, TENANT_ID } from '../auth/key-material';

export const tenantIdSchema = z.string().regex(TENANT_ID, { message: 'must be 1-64 characters of A-Z a-z 0-9 _ -' });
export const signingKeyIdSchema = z.string().regex(SIGNING_KEY_ID, { message: 'must be 1-64 characters of A-Z a-z 0-9 _ - and inner dots' });
/** Key handles are the first 16 hex digits of the key's SHA-256; never the key itself. */
export const keyHandleSchema = z.string().regex(/^[0-9a-f]{16}$/, { message: 'must be a key handle (16 hex digits, see the key listing), not a key' });

/** An exact browser origin: scheme://host[:port], nothing else. */
export const originSchema = z
  .string()
  .max(300)
  .refine((o) => {
    try {
      const u = new URL(o);
      return (u.protocol === 'http:' || u.protocol === 'https:') && u.origin === o;
    } catch {
      return false;
    }
  }, { message: 'must be an origin such as https://app.example.com (scheme, host, optional port; no path or trailing slash)' });

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
    allowedOrigins: z.array(originSchema).max(50).optional(),
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

/** OpenAPI rendering of a request schema (the validation schema is the documentation). */
export const openApiBody = (schema: z.ZodTypeAny) => z.toJSONSchema(schema, { target: 'openapi-3.0', io: 'input' }) as Record<string, unknown>;
