import { applyDecorators, createParamDecorator, ExecutionContext, SetMetadata, UseGuards } from '@nestjs/common';
import { ApiBearerAuth, ApiQuery, ApiResponse, ApiSecurity } from '@nestjs/swagger';
import type { FastifyRequest } from 'fastify';
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

const presignQueries = ['tenantId', 'expires', 'keyId', 'signature'].map((name) =>
  ApiQuery({ name, required: false, type: String, description: 'Presigned link parameter (with the other three)' }),
);

export function Auth(req: AuthRequirement) {
  return applyDecorators(
    SetMetadata(AUTH_REQUIREMENT, req),
    UseGuards(AuthGuard),
    ApiBearerAuth(),
    ...(req.presign ? [ApiSecurity('presigned'), ...presignQueries] : []),
    ...(req.queryToken ? [ApiSecurity('token')] : []),
    ApiResponse({ status: 401, description: 'Missing, invalid or insufficiently scoped credentials (text/plain)' }),
    ...(req.presign ? [ApiResponse({ status: 403, description: 'Presigned link expired or badly signed (text/plain)' })] : []),
    ApiResponse({ status: 429, description: 'Rate limit exceeded; see Retry-After (text/plain)' }),
  );
}

export const CurrentAuth = createParamDecorator((_: unknown, ctx: ExecutionContext): AuthContext => {
  const req = ctx.switchToHttp().getRequest<FastifyRequest>();
  if (!req.auth) throw new Error('CurrentAuth used on a route without @Auth');
  return req.auth;
});
