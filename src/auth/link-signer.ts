// Signs links the service hands out (includeSignedUrls on listings and details, replay links, the
// player's events URL) with the tenant's newest signing key, and checks links handed back to it (a
// presigned player page's eventsUrl). One signature covers every read resource of its scope; one
// expiry covers a whole response.
import { Inject, Injectable } from '@nestjs/common';
import { AppError } from '../common/app-error';
import { APP_CONFIG, AppConfig } from '../config/config';
import { verifyLink } from './link-verifier';
import { presignQuery, PresignScope, sign } from './presign';
import { TenantRegistry } from './tenant-registry';

/** Signs any number of scopes with one key and one expiry. */
export interface LinkSigning {
  /** Expiry of every link signed with this, UNIX seconds. */
  expires: number;
  keyId: string;
  /** The presigned query string (`tenantId=…&expires=…&keyId=…&signature=…`, no `?`) for one scope. */
  query(scope: PresignScope): string;
}

@Injectable()
export class LinkSigner {
  constructor(
    private readonly registry: TenantRegistry,
    @Inject(APP_CONFIG) private readonly cfg: AppConfig,
  ) {}

  /**
   * A signing for links that expire in `ttlSeconds` (never beyond PRESIGN_MAX_TTL_SECONDS); throws
   * 400 when the tenant has no signing key.
   */
  forTenant(tenantId: string, ttlSeconds = this.cfg.PRESIGN_DEFAULT_TTL_SECONDS, nowMs = Date.now()): LinkSigning {
    const key = this.registry.currentSigningKey(tenantId);
    if (!key) {
      throw new AppError(
        'bad_request',
        'Signed URLs need a signing key for this tenant; create one (admin API or CLI: signing-keys create) or omit includeSignedUrls',
      );
    }
    const expires = Math.floor(nowMs / 1000) + Math.min(ttlSeconds, this.cfg.PRESIGN_MAX_TTL_SECONDS);
    return {
      expires,
      keyId: key.keyId,
      query: (scope) => presignQuery({ tenantId, expires, keyId: key.keyId, signature: sign(key.secret, scope, tenantId, expires) }),
    };
  }

  /** One scope's presigned query and its expiry. */
  sign(tenantId: string, scope: PresignScope, ttlSeconds?: number, nowMs?: number): { query: string; expires: number } {
    const s = this.forTenant(tenantId, ttlSeconds, nowMs);
    return { query: s.query(scope), expires: s.expires };
  }

  /** The tenant and expiry of a link (its four query parameters) valid for `scope` now; 403 otherwise, as a request with it would be. */
  verify(scope: PresignScope, query: Record<string, unknown>, nowMs = Date.now()): { tenantId: string; expires: number } {
    return verifyLink(scope, query, this.registry, this.cfg.PRESIGN_MAX_TTL_SECONDS, nowMs);
  }

  /** Prefix for links: PUBLIC_BASE_URL without a trailing slash, or '' for relative links. */
  get base(): string {
    return this.cfg.PUBLIC_BASE_URL.replace(/\/+$/, '');
  }
}
