// Signs the links the service hands out (includeSignedUrls): the tenant's current signing key, one
// expiry for a whole response (now + PRESIGN_DEFAULT_TTL_SECONDS, never beyond PRESIGN_MAX_TTL_SECONDS).
// Replays use it with the replay scope.
import { Inject, Injectable } from '@nestjs/common';
import { AppError } from '../common/app-error';
import { APP_CONFIG, AppConfig } from '../config/config';
import { presignQuery, PresignScope, sign } from '../auth/presign';
import { TenantRegistry } from '../auth/tenant-registry';

export interface LinkSigning {
  /** Expiry of every link signed with this, UNIX seconds. */
  expires: number;
  keyId: string;
  /** The presigned query string (no `?`) for one resource scope. */
  query(scope: PresignScope): string;
}

@Injectable()
export class LinkSigner {
  constructor(
    private readonly registry: TenantRegistry,
    @Inject(APP_CONFIG) private readonly cfg: AppConfig,
  ) {}

  get baseUrl(): string {
    return this.cfg.PUBLIC_BASE_URL;
  }

  /** Throws 400 when the tenant has no signing key. */
  forTenant(tenantId: string, nowMs = Date.now()): LinkSigning {
    const key = this.registry.currentSigningKey(tenantId);
    if (!key) {
      throw new AppError('bad_request', 'includeSignedUrls=true needs a signing key for this tenant; create one (admin API or CLI) or omit includeSignedUrls');
    }
    const ttl = Math.min(this.cfg.PRESIGN_DEFAULT_TTL_SECONDS, this.cfg.PRESIGN_MAX_TTL_SECONDS);
    const expires = Math.floor(nowMs / 1000) + ttl;
    return {
      expires,
      keyId: key.keyId,
      query: (scope) => presignQuery({ tenantId, expires, keyId: key.keyId, signature: sign(key.secret, scope, tenantId, expires) }),
    };
  }
}
