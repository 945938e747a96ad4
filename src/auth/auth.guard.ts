import { CanActivate, ExecutionContext, Injectable } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import type { FastifyRequest } from 'fastify';
import { AUTH_REQUIREMENT, AuthRequirement } from './auth.decorator';
import { Authenticator } from './authenticator';

@Injectable()
export class AuthGuard implements CanActivate {
  constructor(
    private readonly reflector: Reflector,
    private readonly authenticator: Authenticator,
  ) {}

  canActivate(ctx: ExecutionContext): boolean {
    const requirement = this.reflector.get<AuthRequirement>(AUTH_REQUIREMENT, ctx.getHandler());
    const req = ctx.switchToHttp().getRequest<FastifyRequest>();
    req.auth = this.authenticator.authenticate(requirement, {
      authorization: req.headers.authorization,
      query: (req.query ?? {}) as Record<string, unknown>,
      params: (req.params ?? {}) as Record<string, string>,
      origin: req.headers.origin,
    });
    return true;
  }
}
