// Signs links the service hands out (includeSignedUrls, the player's events URL) with the tenant's
// newest signing key. One signature covers every read resource of its scope.
import { Inject, Injectable } from '@nestjs/common';
import { AppError } from '../common/app-error';
import { APP_CONFIG, AppConfig } from '../config/config';
import { presignQuery, PresignScope, sign } from './presign';
import { TenantRegistry } from './tenant-registry';

export interface SignedQuery {
  /** `tenantId=…&expires=…&keyId=…&signature=…` */
  query: string;
  /** UNIX seconds. */
  expires: number;
}

@Injectable()
export class LinkSigner {
  constructor(
    private readonly registry: TenantRegistry,
    @Inject(APP_CONFIG) private readonly cfg: AppConfig,
  ) {}

  /** Signs a scope; throws 400 when the tenant has no signing key. */
  sign(tenantId: string, scope: PresignScope, ttlSeconds = this.cfg.PRESIGN_DEFAULT_TTL_SECONDS, nowMs = Date.now()): SignedQuery {
    const key = this.registry.currentSigningKey(tenantId);
    if (!key) throw new AppError('bad_request', 'This tenant has no signing key: create one (signing-keys create) to get signed URLs');
    const ttl = Math.min(ttlSeconds, this.cfg.PRESIGN_MAX_TTL_SECONDS);
    const expires = Math.floor(nowMs / 1000) + ttl;
    return { query: presignQuery({ tenantId, expires, keyId: key.keyId, signature: sign(key.secret, scope, tenantId, expires) }), expires };
  }

  /** Prefix for links: PUBLIC_BASE_URL without a trailing slash, or '' for relative links. */
  get base(): string {
    return this.cfg.PUBLIC_BASE_URL.replace(/\/+$/, '');
  }
}
