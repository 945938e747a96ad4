// Tenants and their keys, kept in a JetStream key-value bucket and mirrored in memory by a watcher,
// so authentication costs no round trip and every instance sees a new or revoked key within a second.
//   tenants.<tenantId>            {id, name, createdAt, retentionDays, limits, status, statusSince, deletion}
//   keys.<sha256(key)>            {tenantId, kind, handle, createdAt, allowedOrigins}
//   signing.<tenantId>.<keyId>    {tenantId, keyId, secret, createdAt}
// Revocation deletes the entry. API keys are stored only as hashes. A write resolves once this
// instance's cache has seen it (bounded wait), so the next read here reflects it. A tenant's status
// (tenant-status.ts) refuses its keys and links; tenant-erasure.ts removes every entry of a tenant.
import { Logger } from '@nestjs/common';
import { KV, KvEntry } from 'nats';
import { AppError } from '../common/app-error';
import { applyLimitChanges, LimitName } from '../domain/tenant-limits';
import { isWrongLastSequence } from '../infrastructure/nats/jetstream-errors';
import { kvBucketExists } from '../infrastructure/nats/kv-bucket';
import type { NatsClient } from '../infrastructure/nats/nats-connection';
import { TENANTS_BUCKET } from '../infrastructure/nats/subjects';
import { generateKey, generateSigningSecret, hashKey, keyHandle, KeyKind, kindOfKey, safeEqual, SIGNING_KEY_ID, TENANT_ID } from './key-material';
import { DEFAULT_SIGNING_KEY_ID, type ApiKeyRecord, type SigningKey, type Tenant } from './tenant-records';
import { tenantRefusal, tenantRefused, TenantStatus } from './tenant-status';

const enc = (v: unknown) => new TextEncoder().encode(JSON.stringify(v));

export class TenantRegistry {
  private readonly logger = new Logger('tenants');
  private readonly tenants = new Map<string, Tenant>();
  private readonly keys = new Map<string, ApiKeyRecord>();
  private readonly signing = new Map<string, SigningKey>();
  private readonly revokedListeners = new Set<(key: Omit<ApiKeyRecord, 'hash'>) => void>();
  private readonly refusedListeners = new Set<(tenantId: string, status: TenantStatus | 'deleted') => void>();
  private kv!: KV;
  private stopWatch?: () => void;
  /** Highest bucket revision applied to the cache. */
  private revision = 0;

  constructor(
    private readonly nats: NatsClient,
    private readonly replicas = 1,
  ) {}

  /**
   * Opens the bucket and loads it; resolves once the cache is complete. The service creates the
   * bucket if needed; `mustExist` (the CLI) refuses a NATS without it instead: pointed at the wrong
   * NATS, the CLI would otherwise create an empty registry there and write tenants no service reads.
   */
  async start(opts: { mustExist?: boolean } = {}): Promise<void> {
    if (opts.mustExist && !(await kvBucketExists(this.nats, TENANTS_BUCKET))) {
      throw new AppError(
        'not_found',
        `this NATS has no tenant registry (JetStream bucket ${TENANTS_BUCKET}): is NATS_URL the one the service uses? The service creates the registry when it first starts`,
      );
    }
    this.kv = await this.nats.js.views.kv(TENANTS_BUCKET, { history: 1, replicas: this.replicas });
    let initialized!: () => void;
    const ready = new Promise<void>((r) => (initialized = r));
    const watch = await this.kv.watch({ key: '>', initializedFn: () => initialized() });
    this.stopWatch = () => watch.stop();
    void (async () => {
      for await (const e of watch) this.apply(e);
    })().catch((err) => this.logger.error({ msg: 'tenant watch ended', err: String(err) }));
    await ready;
  }

  stop(): void {
    this.stopWatch?.();
  }

  private apply(e: KvEntry) {
    this.revision = Math.max(this.revision, e.revision);
    const [kind, ...rest] = e.key.split('.');
    const deleted = e.operation === 'DEL' || e.operation === 'PURGE';
    const value = deleted ? null : (JSON.parse(e.string()) as unknown);
    if (kind === 'tenants') {
      const before = this.tenants.get(rest[0]);
      if (value) this.tenants.set(rest[0], value as Tenant);
      else this.tenants.delete(rest[0]);
      const now = value ? (value as Tenant).status : before && 'deleted';
      if (now && now !== before?.status) for (const listener of this.refusedListeners) listener(rest[0], now);
    } else if (kind === 'keys') {
      const revoked = value ? undefined : this.keys.get(rest[0]);
      if (value) this.keys.set(rest[0], value as ApiKeyRecord);
      else this.keys.delete(rest[0]);
      if (revoked) {
        const { hash: _h, ...key } = revoked;
        for (const listener of this.revokedListeners) listener(key);
      }
    } else if (kind === 'signing') {
      const id = rest.join('.');
      if (value) this.signing.set(id, value as SigningKey);
      else this.signing.delete(id);
    }
  }

  /** Calls `listener` whenever this instance sees an API key revoked (so long-lived connections can end). */
  onKeyRevoked(listener: (key: Omit<ApiKeyRecord, 'hash'>) => void): () => void {
    this.revokedListeners.add(listener);
    return () => this.revokedListeners.delete(listener);
  }

  /** Calls `listener` whenever this instance sees a tenant suspended, being deleted, or gone. */
  onTenantRefused(listener: (tenantId: string, status: TenantStatus | 'deleted') => void): () => void {
    this.refusedListeners.add(listener);
    return () => this.refusedListeners.delete(listener);
  }

  // ---- reads (memory only) ----

  /** Throws the 403 for a tenant that is suspended, being deleted or gone. */
  assertServing(tenantId: string): void {
    const why = tenantRefusal(tenantId, this.tenants.get(tenantId));
    if (why) throw tenantRefused(why);
  }

  /** The key record for a presented API key, or null. */
  authenticate(presented: string): ApiKeyRecord | null {
    if (!kindOfKey(presented)) return null;
    const hash = hashKey(presented);
    const rec = this.keys.get(hash);
    if (!rec || !safeEqual(rec.hash, hash) || !this.tenants.has(rec.tenantId)) return null;
    return rec;
  }

  signingKey(tenantId: string, keyId: string): SigningKey | undefined {
    const k = this.signing.get(`${tenantId}.${keyId}`);
    // Key ids may hold dots: "a.b" + "c" must not find tenant "a"'s key "b.c".
    return k && k.tenantId === tenantId && k.keyId === keyId ? k : undefined;
  }

  /** Any signing key of the tenant, newest first (used to sign links the service hands out). */
  currentSigningKey(tenantId: string): SigningKey | undefined {
    let best: SigningKey | undefined;
    for (const k of this.signing.values()) if (k.tenantId === tenantId && (!best || k.createdAt > best.createdAt)) best = k;
    return best;
  }

  tenant(id: string): Tenant | undefined {
    return this.tenants.get(id);
  }

  listTenants(): Tenant[] {
    return [...this.tenants.values()].sort((a, b) => a.id.localeCompare(b.id));
  }

  listKeys(tenantId: string): Omit<ApiKeyRecord, 'hash'>[] {
    return [...this.keys.values()].filter((k) => k.tenantId === tenantId).map(({ hash: _h, ...k }) => k);
  }

  listSigningKeys(tenantId: string): { keyId: string; createdAt: number }[] {
    return [...this.signing.values()].filter((k) => k.tenantId === tenantId).map((k) => ({ keyId: k.keyId, createdAt: k.createdAt }));
  }

  // ---- writes (to the bucket; the watcher updates every instance's cache) ----

  async createTenant(id: string, name = id, retentionDays?: number): Promise<Tenant> {
    return (await this.createTenantIfAbsent(id, name, retentionDays)).tenant;
  }

  /**
   * Creates the tenant unless it exists; an existing tenant is returned unchanged. A new tenant gets
   * a generated signing key (DEFAULT_SIGNING_KEY_ID), so links the service hands out (includeSignedUrls,
   * the player's events URL) work from the start; operators who sign links themselves add their own.
   */
  async createTenantIfAbsent(id: string, name = id, retentionDays?: number): Promise<{ tenant: Tenant; created: boolean }> {
    if (!TENANT_ID.test(id)) throw new AppError('bad_request', 'tenant id must be 1-64 characters of A-Z a-z 0-9 _ -');
    const existing = await this.kv.get(`tenants.${id}`);
    if (existing && existing.operation === 'PUT') return { tenant: JSON.parse(existing.string()) as Tenant, created: false };
    const t: Tenant = { id, name, createdAt: Date.now(), ...(retentionDays ? { retentionDays } : {}) };
    await this.put(`tenants.${id}`, t);
    await this.createSigningKey(id, DEFAULT_SIGNING_KEY_ID);
    return { tenant: t, created: true };
  }

  setRetention(id: string, retentionDays: number | undefined): Promise<Tenant> {
    return this.update(id, (t) => ({ ...t, retentionDays }));
  }

  /** Sets (or, with undefined fields, clears) a tenant's lifecycle fields; the rest of it is kept. */
  setStatus(id: string, fields: Pick<Tenant, 'status' | 'statusSince' | 'deletion'>): Promise<Tenant> {
    return this.update(id, ({ status: _s, statusSince: _t, deletion: _d, ...rest }) => ({ ...rest, ...fields }));
  }

  /** Sets (a number) or returns to the default (null) the tenant's own limits; absent ones are kept. */
  setLimits(id: string, changes: Partial<Record<LimitName, number | null>>): Promise<Tenant> {
    return this.update(id, ({ limits: current, ...t }) => {
      if (t.status === 'deleting') throw new AppError('conflict', `Tenant ${id} is being deleted; its limits cannot change`);
      const limits = applyLimitChanges(current, changes);
      return { ...t, ...(limits ? { limits } : {}) };
    });
  }

  /**
   * Changes a stored tenant by compare-and-set: a change made meanwhile (a suspension, a deletion
   * starting, another instance's edit) is read again and kept, never overwritten.
   */
  private async update(id: string, change: (t: Tenant) => Tenant): Promise<Tenant> {
    for (;;) {
      const e = TENANT_ID.test(id) ? await this.kv.get(`tenants.${id}`) : null;
      if (!e || e.operation !== 'PUT') throw new AppError('not_found', `no tenant ${id}`);
      const next = change(JSON.parse(e.string()) as Tenant);
      const revision = await this.kv.update(`tenants.${id}`, enc(next), e.revision).catch((err: unknown) => {
        if (isWrongLastSequence(err)) return undefined; // changed meanwhile: read it again
        throw err;
      });
      if (revision === undefined) continue;
      await this.caughtUp(revision);
      return next;
    }
  }

  /** The keys of every entry of the tenant, the tenant's own last (what erasing it deletes, in order). */
  entriesOf(id: string): string[] {
    const keys = [...this.keys.values()].filter((k) => k.tenantId === id).map((k) => `keys.${k.hash}`);
    const signing = [...this.signing.values()].filter((k) => k.tenantId === id).map((k) => `signing.${id}.${k.keyId}`);
    return [...keys, ...signing, `tenants.${id}`];
  }

  private async put(key: string, value: unknown): Promise<void> {
    await this.caughtUp(await this.kv.put(key, enc(value)));
  }

  /** Deletes an entry; returns its deletion marker's revision (stream sequence). */
  async remove(key: string): Promise<number | undefined> {
    await this.kv.delete(key);
    const marker = await this.kv.get(key);
    if (marker) await this.caughtUp(marker.revision);
    return marker?.revision;
  }

  /** Waits (at most 2 s) until the watcher has applied `revision` to this instance's cache. */
  private async caughtUp(revision: number): Promise<void> {
    for (const deadline = Date.now() + 2000; this.revision < revision && Date.now() < deadline;) {
      await new Promise((r) => setTimeout(r, 5));
    }
  }

  /** The stored tenant; `forKeys`: refused (409) while it is being deleted, so no key outlives it. */
  private async requireTenant(id: string, forKeys = false): Promise<Tenant> {
    const e = TENANT_ID.test(id) ? await this.kv.get(`tenants.${id}`) : null;
    if (!e || e.operation !== 'PUT') throw new AppError('not_found', `no tenant ${id}`);
    const t = JSON.parse(e.string()) as Tenant;
    if (forKeys && t.status === 'deleting') throw new AppError('conflict', `Tenant ${id} is being deleted; it takes no new keys`);
    return t;
  }

  /** Stores a key (generated unless given). Returns the plaintext key: it is not stored. */
  async createKey(
    tenantId: string,
    kind: KeyKind,
    key = generateKey(kind),
    allowedOrigins?: string[],
  ): Promise<{ key: string; record: Omit<ApiKeyRecord, 'hash'> }> {
    await this.requireTenant(tenantId, true);
    if (kindOfKey(key) !== kind) throw new AppError('bad_request', `a ${kind} key must start with the ${kind} prefix`);
    const hash = hashKey(key);
    const existing = await this.kv.get(`keys.${hash}`);
    const prev = existing?.operation === 'PUT' ? (JSON.parse(existing.string()) as ApiKeyRecord) : undefined;
    if (prev && prev.tenantId !== tenantId) throw new AppError('bad_request', 'that key belongs to another tenant');
    const rec: ApiKeyRecord = {
      tenantId,
      kind,
      hash,
      handle: keyHandle(hash),
      createdAt: prev?.createdAt ?? Date.now(),
      ...(allowedOrigins?.length ? { allowedOrigins } : {}),
    };
    if (!prev || JSON.stringify(prev) !== JSON.stringify(rec)) await this.put(`keys.${hash}`, rec);
    const { hash: _h, ...record } = rec;
    return { key, record };
  }

  /** Revokes a key given either the key itself or its handle. */
  async revokeKey(tenantId: string, keyOrHandle: string): Promise<boolean> {
    const hash = kindOfKey(keyOrHandle) ? hashKey(keyOrHandle) : [...this.keys.values()].find((k) => k.tenantId === tenantId && k.handle === keyOrHandle)?.hash;
    if (!hash) return false;
    const e = await this.kv.get(`keys.${hash}`);
    if (!e || e.operation !== 'PUT' || (JSON.parse(e.string()) as ApiKeyRecord).tenantId !== tenantId) return false;
    await this.remove(`keys.${hash}`);
    return true;
  }

  async createSigningKey(tenantId: string, keyId: string, secret = generateSigningSecret()): Promise<SigningKey> {
    await this.requireTenant(tenantId, true);
    if (!SIGNING_KEY_ID.test(keyId)) throw new AppError('bad_request', 'keyId must be 1-64 characters of A-Z a-z 0-9 _ - and inner dots');
    if (secret.length < 16) throw new AppError('bad_request', 'signing secret must have at least 16 characters');
    const existing = await this.kv.get(`signing.${tenantId}.${keyId}`);
    const prev = existing?.operation === 'PUT' ? (JSON.parse(existing.string()) as SigningKey) : undefined;
    if (prev && safeEqual(prev.secret, secret)) return prev;
    const k: SigningKey = { tenantId, keyId, secret, createdAt: Date.now() };
    await this.put(`signing.${tenantId}.${keyId}`, k);
    return k;
  }

  async revokeSigningKey(tenantId: string, keyId: string): Promise<boolean> {
    const e = TENANT_ID.test(tenantId) && SIGNING_KEY_ID.test(keyId) ? await this.kv.get(`signing.${tenantId}.${keyId}`) : null;
    if (!e || e.operation !== 'PUT') return false;
    await this.remove(`signing.${tenantId}.${keyId}`);
    return true;
  }
}
