// Decides who a request is. Used by the HTTP guard and by the WebSocket upgrade, so both apply the
// same rules: Bearer keys by kind, presigned links by scope and expiry, per-key rate limits; a tenant
// that is suspended or being deleted is refused (403) whatever it presents.
// Error messages never repeat a presented secret.
import { Inject, Injectable } from '@nestjs/common';
import { z } from 'zod';
import { AppError, RateLimited } from '../common/app-error';
import { parseWith } from '../common/validation';
import { APP_CONFIG, AppConfig } from '../config/config';
import type { AuthContext } from './auth-context';
import type { AuthRequirement } from './auth.decorator';
import type { ConsoleSession } from './console-sessions';
import { carriesLink, verifyLink } from './link-verifier';
import type { PresignScope } from './presign';
import { RateLimiter } from './rate-limiter';
import { TenantRegistry } from './tenant-registry';
import { ApiKeyRecord } from './tenant-records';

export interface Presented {
  authorization?: string;
  queryToken?: string;
  query: Record<string, unknown>;
  params: Record<string, string | undefined>;
  origin?: string;
}

/** An Authorization header carrying a key. */
export const BEARER = /^Bearer[ ]+(\S+)\s*$/i;

/** `?token=` once: given twice, the key that answers would depend on which one a proxy or log reads. */
const QueryToken = z.object({ token: z.string().optional() });

@Injectable()
export class Authenticator {
  private readonly limiter: RateLimiter;

  constructor(
    private readonly registry: TenantRegistry,
    @Inject(APP_CONFIG) private readonly cfg: AppConfig,
  ) {
    this.limiter = new RateLimiter(cfg.RATE_LIMIT_PER_SECOND, cfg.RATE_LIMIT_BURST);
  }

  authenticate(req: AuthRequirement, p: Presented, nowMs = Date.now()): AuthContext {
    // A request-schema failure (JSON 400, "must be given once"), before any key is looked at.
    const token = req.queryToken ? parseWith(QueryToken, { token: p.query.token }, 'query').token : undefined;
    const linked = carriesLink(p.query);
    // A link opens its resource whatever else the viewer's side sends along (a public key added to
    // every request, a proxy's Basic header): only a key that may read the route itself wins over it.
    const link = linked && req.presign !== undefined;
    let bearer: string | undefined;
    try {
      bearer = this.bearer(p.authorization) ?? token ?? p.queryToken;
    } catch (e) {
      if (link) return this.byPresign(req, p, nowMs);
      throw e;
    }
    if (bearer !== undefined) {
      const rec = this.registry.authenticate(bearer);
      if (link && (!rec || !req.keys.includes(rec.kind))) return this.byPresign(req, p, nowMs);
      return this.byKey(req, rec, p.origin);
    }
    if (linked) return this.byPresign(req, p, nowMs);
    if (p.query.token !== undefined) {
      // Keys in URLs end up in logs and browser history: only ingestion (sendBeacon, WebSockets) takes one.
      throw new AppError('unauthorized', 'The token query parameter is taken by ingestion only: send Authorization: Bearer <key> (or use a presigned link)');
    }
    throw new AppError('unauthorized', 'Missing credentials: send Authorization: Bearer <key>');
  }

  /** A console session (auth/console-sessions.ts) reads and changes what its tenant's private key may. */
  bySession(req: AuthRequirement, s: ConsoleSession): AuthContext {
    if (s.kind !== 'tenant') throw new AppError('unauthorized', 'An admin console session reaches the admin API only; sign in with a private key');
    this.registry.assertServing(s.tenantId);
    if (!req.keys.includes('secret')) throw new AppError('unauthorized', 'This endpoint does not accept a console session');
    const wait = this.limiter.take(s.keyHandle);
    if (wait > 0) throw new RateLimited('Rate limit exceeded for this key', wait);
    return { tenantId: s.tenantId, credential: 'secret', keyHandle: s.keyHandle };
  }

  private bearer(header?: string): string | undefined {
    if (header === undefined) return undefined;
    const m = BEARER.exec(header);
    if (!m) throw new AppError('unauthorized', 'Malformed Authorization header: expected "Bearer <key>"');
    return m[1];
  }

  private byKey(req: AuthRequirement, rec: ApiKeyRecord | null, origin?: string): AuthContext {
    if (!rec) throw new AppError('unauthorized', 'Invalid API key');
    this.registry.assertServing(rec.tenantId); // suspended or being deleted: 403
    if (!req.keys.includes(rec.kind)) {
      throw new AppError(
        'unauthorized',
        rec.kind === 'public'
          ? 'A public key may only ingest events and attach metadata; this endpoint needs a private key'
          : 'This endpoint does not accept this key',
      );
    }
    if (rec.allowedOrigins?.length && origin !== undefined && !rec.allowedOrigins.includes(origin)) {
      throw new AppError('unauthorized', 'This key is not allowed from this origin');
    }
    const wait = this.limiter.take(rec.handle);
    if (wait > 0) throw new RateLimited('Rate limit exceeded for this key', wait);
    return { tenantId: rec.tenantId, credential: rec.kind, keyHandle: rec.handle };
  }

  private byPresign(req: AuthRequirement, p: Presented, nowMs: number): AuthContext {
    if (!req.presign) throw new AppError('unauthorized', 'Presigned links cannot access this endpoint; use a private key');
    const scope = this.scopeOf(req.presign, p.params);
    const { tenantId, expires } = verifyLink(scope, p.query, this.registry, this.cfg.PRESIGN_MAX_TTL_SECONDS, nowMs);
    this.registry.assertServing(tenantId);
    return { tenantId, credential: 'presigned', scope, expires };
  }

  private scopeOf(kind: 'recording' | 'replay', params: Record<string, string | undefined>): PresignScope {
    if (kind === 'recording') return { kind, recordingId: params.recordingId ?? '' };
    return { kind, groupingProp: params.groupingProp ?? '', replayValue: params.replayValue ?? '' };
  }
}
