import { CanActivate, ExecutionContext, Injectable } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import type { FastifyRequest } from 'fastify';
import { AUTH_REQUIREMENT, AuthRequirement } from './auth.decorator';
import { Authenticator } from './authenticator';
import { ConsoleSessions, CSRF_HEADER } from './console-sessions';
import { carriesLink } from './link-verifier';

@Injectable()
export class AuthGuard implements CanActivate {
  constructor(
    private readonly reflector: Reflector,
    private readonly authenticator: Authenticator,
    private readonly sessions: ConsoleSessions,
  ) {}

  async canActivate(ctx: ExecutionContext): Promise<boolean> {
    const requirement = this.reflector.get<AuthRequirement>(AUTH_REQUIREMENT, ctx.getHandler());
    const req = ctx.switchToHttp().getRequest<FastifyRequest>();
    const query = (req.query ?? {}) as Record<string, unknown>;
    // A console session counts only when nothing else is presented: a key or a link wins over it.
    const session =
      req.headers.authorization === undefined && !carriesLink(query) && query.token === undefined
        ? await this.sessions.fromRequest(req.headers.cookie, req.method, req.headers[CSRF_HEADER])
        : undefined;
    if (session) {
      req.auth = this.authenticator.bySession(requirement, session);
      return true;
    }
    req.auth = this.authenticator.authenticate(requirement, {
      authorization: req.headers.authorization,
      query: (req.query ?? {}) as Record<string, unknown>,
      params: (req.params ?? {}) as Record<string, string>,
      origin: req.headers.origin,
    });
    return true;
  }
}
