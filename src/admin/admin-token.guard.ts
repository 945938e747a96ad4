// Guards the admin API: `Authorization: Bearer <TAPEDECK_ADMIN_TOKEN>`, compared in constant time on
// SHA-256 digests (so not even the length leaks). Without a configured token the admin API does not
// exist: 404. Admin responses may carry secrets, so none of them is cacheable.
import { CanActivate, ExecutionContext, Inject, Injectable, Optional } from '@nestjs/common';
import { ConsoleSessions, CSRF_HEADER } from '../auth/console-sessions';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { bearerMatches, hashKey } from '../auth/key-material';
import { AppError } from '../common/app-error';
import { APP_CONFIG, AppConfig } from '../config/config';

/** Throws unless `authorization` carries the admin token whose SHA-256 is `expectedHash`. */
export function checkAdminToken(expectedHash: string | undefined, authorization: unknown): void {
  if (!expectedHash) throw new AppError('not_found', 'Not found (the admin API is disabled: TAPEDECK_ADMIN_TOKEN is not set)');
  if (!bearerMatches(expectedHash, authorization)) {
    throw new AppError('unauthorized', 'Missing or invalid admin token: send Authorization: Bearer <TAPEDECK_ADMIN_TOKEN>');
  }
}

@Injectable()
export class AdminTokenGuard implements CanActivate {
  private readonly expectedHash?: string;

  constructor(
    @Inject(APP_CONFIG) cfg: Pick<AppConfig, 'TAPEDECK_ADMIN_TOKEN'>,
    @Optional() private readonly sessions?: ConsoleSessions,
  ) {
    this.expectedHash = cfg.TAPEDECK_ADMIN_TOKEN ? hashKey(cfg.TAPEDECK_ADMIN_TOKEN) : undefined;
  }

  async canActivate(ctx: ExecutionContext): Promise<boolean> {
    ctx.switchToHttp().getResponse<FastifyReply>().header('cache-control', 'no-store');
    const req = ctx.switchToHttp().getRequest<FastifyRequest>();
    // An admin console session (signed in with the token) stands for the token while no header is sent.
    if (this.expectedHash && req.headers.authorization === undefined) {
      const session = await this.sessions?.fromRequest(req.headers.cookie, req.method, req.headers[CSRF_HEADER]);
      if (session?.kind === 'admin') return true;
    }
    checkAdminToken(this.expectedHash, req.headers.authorization);
    return true;
  }
}
