// Tenant administration shared by the admin HTTP API and the CLI: the same TenantRegistry calls the
// bootstrap makes, plus the shapes shown to operators. Plaintext API keys and generated signing
// secrets are returned once and never logged; listings carry handles and key ids only.
import { Inject, Injectable } from '@nestjs/common';
import { AppError } from '../common/app-error';
import { APP_CONFIG, AppConfig } from '../config/config';
import { safeEqual } from '../auth/key-material';
import type { PresignScope } from '../auth/presign';
import { TenantRegistry } from '../auth/tenant-registry';
import { Tenant } from '../auth/tenant-records';
import type {
  CreatedApiKey,
  CreatedSigningKey,
  CreateKeyInput,
  CreateSigningKeyInput,
  CreateTenantInput,
  KeyView,
  SigningKeyView,
  UpdateTenantInput,
} from './admin.dto';
import { expiryFor, LinkResource, SignedLink, signedLink } from './presigned-link';

/** The registry operations administration needs (a fake in unit tests). */
export type TenantStore = Pick<
  TenantRegistry,
  | 'createTenantIfAbsent'
  | 'setRetention'
  | 'setStatus'
  | 'listTenants'
  | 'tenant'
  | 'createKey'
  | 'listKeys'
  | 'revokeKey'
  | 'createSigningKey'
  | 'signingKey'
  | 'currentSigningKey'
  | 'listSigningKeys'
  | 'revokeSigningKey'
>;
export type AdminConfig = Pick<AppConfig, 'PRESIGN_MAX_TTL_SECONDS' | 'PRESIGN_DEFAULT_TTL_SECONDS' | 'PUBLIC_BASE_URL'>;

@Injectable()
export class TenantAdmin {
  constructor(
    @Inject(TenantRegistry) private readonly store: TenantStore,
    @Inject(APP_CONFIG) private readonly cfg: AdminConfig,
  ) {}

  createTenant(input: CreateTenantInput): Promise<{ tenant: Tenant; created: boolean }> {
    return this.store.createTenantIfAbsent(input.id, input.name ?? input.id, input.retentionDays);
  }

  /** Sets or (0, null) removes the retention period; every instance's sweep sees it within moments. */
  async updateTenant(id: string, input: UpdateTenantInput): Promise<Tenant> {
    this.requireNotDeleting(this.requireTenant(id));
    return this.store.setRetention(id, input.retentionDays || undefined);
  }

  listTenants(): Tenant[] {
    return this.store.listTenants();
  }

  /** 404 for an unknown tenant. */
  getTenant(id: string): Tenant {
    return this.requireTenant(id);
  }

  findTenant(id: string): Tenant | undefined {
    return this.store.tenant(id);
  }

  /** Refuses the tenant's keys and links (403) on every instance within about a second; its data is kept. Again: unchanged. */
  async suspend(id: string): Promise<Tenant> {
    const t = this.requireNotDeleting(this.requireTenant(id));
    return t.status === 'suspended' ? t : this.store.setStatus(id, { status: 'suspended', statusSince: Date.now() });
  }

  /** Accepts a suspended tenant's keys and links again. An active tenant: unchanged. */
  async resume(id: string): Promise<Tenant> {
    const t = this.requireNotDeleting(this.requireTenant(id));
    return t.status === undefined ? t : this.store.setStatus(id, {});
  }

  /** The new key in plaintext (shown once) with its non-secret record. */
  async createKey(tenantId: string, input: CreateKeyInput): Promise<CreatedApiKey> {
    const { key, record } = await this.store.createKey(tenantId, input.kind, undefined, input.allowedOrigins);
    return { key, ...record };
  }

  listKeys(tenantId: string): KeyView[] {
    this.requireTenant(tenantId);
    return this.store.listKeys(tenantId).sort((a, b) => a.createdAt - b.createdAt || a.handle.localeCompare(b.handle));
  }

  /** Revokes by handle (or, from the CLI, by the key itself). */
  async revokeKey(tenantId: string, keyOrHandle: string): Promise<void> {
    this.requireTenant(tenantId);
    if (!(await this.store.revokeKey(tenantId, keyOrHandle))) throw new AppError('not_found', `Tenant ${tenantId} has no such key`);
  }

  /**
   * Adds a signing key. Given the same secret again it changes nothing; a different (or generated)
   * secret for an existing key id is refused, since replacing it would break every link signed with it.
   * The secret is returned only when it was generated here.
   */
  async createSigningKey(tenantId: string, input: CreateSigningKeyInput): Promise<CreatedSigningKey> {
    this.requireTenant(tenantId);
    const existing = this.store.signingKey(tenantId, input.keyId);
    if (existing && !(input.secret !== undefined && safeEqual(existing.secret, input.secret))) {
      throw new AppError('conflict', `Signing key ${input.keyId} already exists for tenant ${tenantId}; add a new key id to rotate, then revoke the old one`);
    }
    const k = await this.store.createSigningKey(tenantId, input.keyId, input.secret);
    return {
      signingKey: { tenantId: k.tenantId, keyId: k.keyId, createdAt: k.createdAt },
      ...(input.secret === undefined ? { secret: k.secret } : {}),
      created: !existing,
    };
  }

  listSigningKeys(tenantId: string): SigningKeyView[] {
    this.requireTenant(tenantId);
    return this.store
      .listSigningKeys(tenantId)
      .map((k) => ({ tenantId, ...k }))
      .sort((a, b) => a.createdAt - b.createdAt || a.keyId.localeCompare(b.keyId));
  }

  async revokeSigningKey(tenantId: string, keyId: string): Promise<void> {
    this.requireTenant(tenantId);
    if (!(await this.store.revokeSigningKey(tenantId, keyId))) throw new AppError('not_found', `Tenant ${tenantId} has no signing key ${keyId}`);
  }

  /** A presigned link, signed with the given key id or else the tenant's newest signing key. */
  signLink(o: { tenantId: string; scope: PresignScope; keyId?: string; ttlSeconds?: number; resource?: LinkResource; nowMs?: number }): SignedLink {
    this.requireTenant(o.tenantId);
    const key = o.keyId ? this.store.signingKey(o.tenantId, o.keyId) : this.store.currentSigningKey(o.tenantId);
    if (!key)
      throw new AppError(
        'not_found',
        o.keyId ? `Tenant ${o.tenantId} has no signing key ${o.keyId}` : `Tenant ${o.tenantId} has no signing key; create one first`,
      );
    const expires = expiryFor(
      o.nowMs ?? Date.now(),
      o.ttlSeconds ?? Math.min(this.cfg.PRESIGN_DEFAULT_TTL_SECONDS, this.cfg.PRESIGN_MAX_TTL_SECONDS),
      this.cfg.PRESIGN_MAX_TTL_SECONDS,
    );
    return signedLink({
      scope: o.scope,
      tenantId: o.tenantId,
      keyId: key.keyId,
      secret: key.secret,
      expires,
      resource: o.resource,
      baseUrl: this.cfg.PUBLIC_BASE_URL,
    });
  }

  private requireNotDeleting(t: Tenant): Tenant {
    if (t.status === 'deleting') throw new AppError('conflict', `Tenant ${t.id} is being deleted; run the deletion again to finish it`);
    return t;
  }

  private requireTenant(id: string): Tenant {
    const t = this.store.tenant(id);
    if (!t) throw new AppError('not_found', `No tenant ${id}`);
    return t;
  }
}
