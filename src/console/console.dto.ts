// The console's session API (POST/GET/DELETE /console/session).
import { createZodDto } from 'nestjs-zod';
import { z } from 'zod';
import { epochMs } from '../common/openapi/openapi-schema';

export const SESSION_MAX_BODY_BYTES = 4096;

export class SignInBody extends createZodDto(
  z
    .strictObject({
      key: z.string().min(1).max(512).optional().describe("A tenant's private key (secret_key_…): a session that reads and changes that tenant's data"),
      adminToken: z.string().min(1).max(512).optional().describe('TAPEDECK_ADMIN_TOKEN: a session for the admin view (tenants, keys, signing keys)'),
    })
    .refine((b) => (b.key === undefined) !== (b.adminToken === undefined), { message: 'give exactly one of key and adminToken' }),
) {}

export class ConsoleSessionInfo extends createZodDto(
  z.object({
    kind: z.enum(['tenant', 'admin']),
    tenantId: z.string().optional().describe('The tenant of a tenant session'),
    csrf: z.string().describe('Send it back in X-Tapedeck-Csrf with every change made with this session'),
    expiresAt: epochMs('When the session ends, epoch ms'),
  }),
) {}
