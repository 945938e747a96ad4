import { applyDecorators, createParamDecorator, ExecutionContext, SetMetadata, UseGuards } from '@nestjs/common';
import { ApiBearerAuth, ApiSecurity } from '@nestjs/swagger';
import type { FastifyRequest } from 'fastify';
import { z } from 'zod';
import { ApiTextError } from '../common/openapi/api-responses';
import { ApiQueryParams } from '../common/openapi/openapi-schema';
import type { AuthContext } from './auth-context';
import { AuthGuard } from './auth.guard';

export interface AuthRequirement {
  /** API key kinds accepted in `Authorization: Bearer`. */
  keys: ('public' | 'secret')[];
  /** Which presigned links open this route, if any. */
  presign?: 'recording' | 'replay';
  /** Accept the key in a `token` query parameter too (ingestion: sendBeacon, WebSocket-like clients). */
  queryToken?: boolean;
}

export const AUTH_REQUIREMENT = 'tapedeck:auth';

/** Checked by the Authenticator (403 when wrong), not by a request schema. */
const presignParam = z.string().optional().describe('Presigned link parameter (with the other three)');
const PresignedLinkQuery = z.object({ tenantId: presignParam, expires: presignParam, keyId: presignParam, signature: presignParam });

export function Auth(req: AuthRequirement) {
  return applyDecorators(
    SetMetadata(AUTH_REQUIREMENT, req),
    UseGuards(AuthGuard),
    ApiBearerAuth(),
    ...(req.presign ? [ApiSecurity('presigned'), ApiQueryParams(PresignedLinkQuery)] : []),
    ...(req.queryToken ? [ApiSecurity('token')] : []),
    ApiTextError(401, 'Missing, invalid or insufficiently scoped credentials (text/plain)', 'Missing credentials: send Authorization: Bearer <key>'),
    req.presign
      ? ApiTextError(403, 'Presigned link expired or badly signed, or the tenant is suspended (text/plain)', 'Presigned link has expired')
      : ApiTextError(
          403,
          'The tenant is suspended or being deleted (text/plain)',
          'Tenant acme is suspended: its keys and presigned links are refused until an operator resumes it',
        ),
    ApiTextError(429, 'Rate limit exceeded; see Retry-After (text/plain)', 'Rate limit exceeded for this key'),
  );
}

export const CurrentAuth = createParamDecorator((_: unknown, ctx: ExecutionContext): AuthContext => {
  const req = ctx.switchToHttp().getRequest<FastifyRequest>();
  if (!req.auth) throw new Error('CurrentAuth used on a route without @Auth');
  return req.auth;
});
