// POST /recordings/{id}/links: a presigned link to share, with the lifetime the caller picks.
import { createZodDto } from 'nestjs-zod';
import { z } from 'zod';
import { epochMs } from '../common/openapi/openapi-schema';

export const SHARE_MAX_BODY_BYTES = 1024;

export class ShareLinkBody extends createZodDto(
  z.strictObject({
    ttlSeconds: z.number().int().min(60).describe('Lifetime of the link in seconds: 60 up to PRESIGN_MAX_TTL_SECONDS (400 beyond)'),
    resource: z
      .enum(['player', 'events', 'screenshot', 'thumbnail', 'detail'])
      .default('player')
      .describe('What the link opens (one signature opens them all); default player'),
  }),
) {}

export class ShareLink extends createZodDto(
  z.object({
    url: z
      .string()
      .meta({ example: '/recordings/0b6c…/player.html?tenantId=acme&expires=1767225600&keyId=default&signature=…' })
      .describe('Relative, or absolute under PUBLIC_BASE_URL'),
    expires: z.number().int().describe('When the link stops working, UNIX seconds'),
    expiresAt: epochMs('The same moment, epoch ms'),
  }),
) {}
