import { sign } from '../auth/presign';
import { MemoryKv, memoryNats } from '../auth/testing/memory-kv';
import { TenantRegistry } from '../auth/tenant-registry';
import { TenantAdmin } from './tenant-admin.service';

const cfg = { PRESIGN_MAX_TTL_SECONDS: 3600, PRESIGN_DEFAULT_TTL_SECONDS: 600, PUBLIC_BASE_URL: '' };
const RID = '0b0e7f2c-1d2e-4f60-8a9b-0c1d2e3f4a5b';

async function adminWithTenant() {
  const registry = new TenantRegistry(memoryNats(new MemoryKv()));
  await registry.start();
  const admin = new TenantAdmin(registry, cfg);
  await admin.createTenant({ id: 'acme' });
  return { admin, registry };
}

describe('TenantAdmin', () => {
  it('creates tenants idempotently, named after their id by default', async () => {
    const { admin } = await adminWithTenant();
    expect((await admin.createTenant({ id: 'acme', name: 'Other' })).created).toBe(false);
    expect(await admin.createTenant({ id: 'b', name: 'Bee', retentionDays: 7 })).toMatchObject({
      created: true,
      tenant: { id: 'b', name: 'Bee', retentionDays: 7 },
    });
    expect(admin.listTenants().map((t) => [t.id, t.name])).toEqual([
      ['acme', 'acme'],
      ['b', 'Bee'],
    ]);
  });

  it('suspends and resumes idempotently, keeps the other fields, and refuses both (and retention changes) while the tenant is being deleted', async () => {
    const { admin, registry } = await adminWithTenant();
    await admin.updateTenant('acme', { retentionDays: 5 });
    const suspended = await admin.suspend('acme');
    expect(suspended).toMatchObject({ id: 'acme', retentionDays: 5, status: 'suspended', statusSince: expect.any(Number) });
    expect(await admin.suspend('acme')).toEqual(suspended);
    expect(await admin.resume('acme')).toEqual({ id: 'acme', name: 'acme', createdAt: expect.any(Number), retentionDays: 5 });
    expect(await admin.resume('acme')).toEqual(admin.getTenant('acme'));
    await expect(admin.suspend('ghost')).rejects.toMatchObject({ code: 'not_found' });
    await registry.setStatus('acme', { status: 'deleting', statusSince: 1, deletion: { step: 'stream', updatedAt: 1 } });
    for (const call of [() => admin.suspend('acme'), () => admin.resume('acme'), () => admin.updateTenant('acme', { retentionDays: 1 })]) {
      await expect(call()).rejects.toMatchObject({ code: 'conflict' });
    }
    await expect(admin.createKey('acme', { kind: 'public' })).rejects.toMatchObject({ code: 'conflict' });
  });

  it("changes an existing tenant's retention, removes it with 0 or null, and refuses unknown tenants", async () => {
    const { admin, registry } = await adminWithTenant();
    expect(await admin.updateTenant('acme', { retentionDays: 5 })).toMatchObject({ id: 'acme', name: 'acme', retentionDays: 5 });
    expect(registry.tenant('acme')?.retentionDays).toBe(5);
    expect((await admin.updateTenant('acme', { retentionDays: 0 })).retentionDays).toBeUndefined();
    await admin.updateTenant('acme', { retentionDays: 9 });
    expect((await admin.updateTenant('acme', { retentionDays: null })).retentionDays).toBeUndefined();
    expect(admin.listTenants()).toEqual([expect.not.objectContaining({ retentionDays: expect.anything() })]);
    await expect(admin.updateTenant('ghost', { retentionDays: 5 })).rejects.toMatchObject({ code: 'not_found' });
  });

  it('returns a new key once and lists only its handle', async () => {
    const { admin, registry } = await adminWithTenant();
    const k = await admin.createKey('acme', { kind: 'public', allowedOrigins: ['https://app.acme.test'] });
    expect(k.key).toMatch(/^public_key_svc_/);
    expect(registry.authenticate(k.key)).toMatchObject({ allowedOrigins: ['https://app.acme.test'] });
    const listed = admin.listKeys('acme');
    expect(listed).toEqual([{ tenantId: 'acme', kind: 'public', handle: k.handle, createdAt: k.createdAt, allowedOrigins: ['https://app.acme.test'] }]);
    expect(JSON.stringify(listed)).not.toContain(k.key);
  });

  it('revokes by handle or by key, and reports unknown keys and tenants as not found', async () => {
    const { admin, registry } = await adminWithTenant();
    const a = await admin.createKey('acme', { kind: 'secret' });
    const b = await admin.createKey('acme', { kind: 'secret' });
    await admin.revokeKey('acme', a.handle);
    await admin.revokeKey('acme', b.key);
    expect(registry.authenticate(a.key)).toBeNull();
    expect(registry.authenticate(b.key)).toBeNull();
    await expect(admin.revokeKey('acme', a.handle)).rejects.toMatchObject({ code: 'not_found' });
    await admin.createTenant({ id: 'b' });
    const c = await admin.createKey('acme', { kind: 'secret' });
    await expect(admin.revokeKey('b', c.handle)).rejects.toMatchObject({ code: 'not_found' });
    expect(() => admin.listKeys('nope')).toThrow(expect.objectContaining({ code: 'not_found' }));
  });

  it('shows a generated signing secret once, is idempotent for the same secret and refuses to replace one', async () => {
    const { admin } = await adminWithTenant();
    const gen = await admin.createSigningKey('acme', { keyId: 'k1' });
    expect(gen).toMatchObject({ created: true, signingKey: { tenantId: 'acme', keyId: 'k1' } });
    expect(gen.secret).toMatch(/^[A-Za-z0-9_-]{40,}$/);
    expect(await admin.createSigningKey('acme', { keyId: 'k1', secret: gen.secret })).toEqual({ created: false, signingKey: gen.signingKey });
    await expect(admin.createSigningKey('acme', { keyId: 'k1' })).rejects.toMatchObject({ code: 'conflict' });
    await expect(admin.createSigningKey('acme', { keyId: 'k1', secret: 'another-secret-of-16' })).rejects.toMatchObject({ code: 'conflict' });
    const given = await admin.createSigningKey('acme', { keyId: 'k2', secret: 'given-secret-0123456' });
    expect(given.secret).toBeUndefined();
    // 'default' came with the tenant.
    expect(admin.listSigningKeys('acme').map((k) => k.keyId)).toEqual(['default', 'k1', 'k2']);
    expect(JSON.stringify(admin.listSigningKeys('acme'))).not.toContain('given-secret');
    await admin.revokeSigningKey('acme', 'k1');
    await expect(admin.revokeSigningKey('acme', 'k1')).rejects.toMatchObject({ code: 'not_found' });
  });

  it('signs links with the newest signing key unless one is named, within the maximum lifetime', async () => {
    const { admin } = await adminWithTenant();
    // A new tenant signs with its generated default key; with every key revoked there is none.
    expect(admin.signLink({ tenantId: 'acme', scope: { kind: 'recording', recordingId: RID } }).keyId).toBe('default');
    await admin.revokeSigningKey('acme', 'default');
    expect(() => admin.signLink({ tenantId: 'acme', scope: { kind: 'recording', recordingId: RID } })).toThrow(/no signing key/);
    await admin.createSigningKey('acme', { keyId: 'old', secret: 'old-secret-0123456789' });
    await new Promise((r) => setTimeout(r, 5));
    await admin.createSigningKey('acme', { keyId: 'new', secret: 'new-secret-0123456789' });
    const scope = { kind: 'recording' as const, recordingId: RID };
    const link = admin.signLink({ tenantId: 'acme', scope, nowMs: 1_000_000 });
    expect(link).toEqual({
      keyId: 'new',
      expires: 1600,
      url: `/recordings/${RID}/events?tenantId=acme&expires=1600&keyId=new&signature=${sign('new-secret-0123456789', scope, 'acme', 1600)}`,
    });
    expect(admin.signLink({ tenantId: 'acme', scope, keyId: 'old', ttlSeconds: 3600, nowMs: 0 }).keyId).toBe('old');
    expect(() => admin.signLink({ tenantId: 'acme', scope, ttlSeconds: 3601 })).toThrow(/PRESIGN_MAX_TTL_SECONDS/);
    expect(() => admin.signLink({ tenantId: 'acme', scope, keyId: 'gone' })).toThrow(/no signing key gone/);
  });
});
