// Decides who a request is. Used by the HTTP guard and by the WebSocket upgrade, so both apply the
// same rules: Bearer keys by kind, presigned links by scope and expiry, per-key rate limits; a tenant
// that is suspended or being deleted is refused (403) whatever it presents.
// Error messages never repeat a presented secret.
import { Inject, Injectable } from '@nestjs/common';
import { AppError, RateLimited } from '../common/app-error';
import { APP_CONFIG, AppConfig } from '../config/config';
import type { AuthContext } from './auth-context';
import type { AuthRequirement } from './auth.decorator';
import { safeEqual } from './key-material';
import { PresignScope, sign } from './presign';
import { RateLimiter } from './rate-limiter';
import { ApiKeyRecord, TenantRegistry } from './tenant-registry';

export interface Presented {
  authorization?: string;
  queryToken?: string;
  query: Record<string, unknown>;
  params: Record<string, string | undefined>;
  origin?: string;
}

const PRESIGN_PARAMS = ['tenantId', 'expires', 'keyId', 'signature'] as const;

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
    const linked = PRESIGN_PARAMS.some((k) => p.query[k] !== undefined);
    // A link opens its resource whatever else the viewer's side sends along (a public key added to
    // every request, a proxy's Basic header): only a key that may read the route itself wins over it.
    const link = linked && req.presign !== undefined;
    let bearer: string | undefined;
    try {
      bearer = this.bearer(p.authorization) ?? (req.queryToken ? str(p.query.token) : undefined) ?? p.queryToken;
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

  private bearer(header?: string): string | undefined {
    if (header === undefined) return undefined;
    const m = /^Bearer[ ]+(\S+)\s*$/i.exec(header);
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
    // One value each: with two, a proxy or cache in front could read another link than this check.
    if (PRESIGN_PARAMS.some((k) => Array.isArray(p.query[k]))) throw new AppError('forbidden', 'Presigned link repeats a parameter');
    const [tenantId, expiresRaw, keyId, signature] = PRESIGN_PARAMS.map((k) => str(p.query[k]));
    if (!tenantId || !expiresRaw || !keyId || !signature) {
      throw new AppError('forbidden', 'Presigned link is incomplete: tenantId, expires, keyId and signature are all required');
    }
    if (!/^\d{1,12}$/.test(expiresRaw)) throw new AppError('forbidden', 'Presigned link has an invalid expires value');
    const expires = Number(expiresRaw);
    const now = Math.floor(nowMs / 1000);
    if (expires < now) throw new AppError('forbidden', 'Presigned link has expired');
    if (expires - now > this.cfg.PRESIGN_MAX_TTL_SECONDS) throw new AppError('forbidden', 'Presigned link lives longer than this service allows');
    const key = this.registry.signingKey(tenantId, keyId);
    const scope = this.scopeOf(req.presign, p.params);
    // "GET /replays/a/b/c" is as much a = "b/c" as "a/b" = c: links name grouping keys without slashes.
    if (scope.kind === 'replay' && scope.groupingProp.includes('/')) {
      throw new AppError('forbidden', 'A replay whose groupingProp contains "/" cannot be opened with a presigned link; use a private key');
    }
    // Signed over the digits as sent (docs/presigned-links.md), not over the number they spell.
    const candidates = key ? scopeVariants(scope).map((s) => sign(key.secret, s, tenantId, expiresRaw)) : [];
    // Compare against a dummy when the key is unknown, so timing does not reveal which keys exist.
    const ok = key ? candidates.some((c) => safeEqual(c, signature.toLowerCase())) : safeEqual('0'.repeat(64), signature) && false;
    if (!ok) throw new AppError('forbidden', 'Presigned link signature is invalid for this resource');
    this.registry.assertServing(tenantId);
    return { tenantId, credential: 'presigned', scope, expires };
  }

  private scopeOf(kind: 'recording' | 'replay', params: Record<string, string | undefined>): PresignScope {
    if (kind === 'recording') return { kind, recordingId: params.recordingId ?? '' };
    return { kind, groupingProp: params.groupingProp ?? '', replayValue: params.replayValue ?? '' };
  }
}

/** A recording id may be signed as sent or in canonical lowercase form. */
function scopeVariants(s: PresignScope): PresignScope[] {
  if (s.kind === 'recording' && s.recordingId !== s.recordingId.toLowerCase()) {
    return [s, { kind: 'recording', recordingId: s.recordingId.toLowerCase() }];
  }
  return [s];
}

function str(v: unknown): string | undefined {
  return typeof v === 'string' ? v : Array.isArray(v) && typeof v[0] === 'string' ? v[0] : undefined;
}
