import { MemoryKv, memoryNats } from './testing/memory-kv';
import { hashKey } from './key-material';
import { TenantRegistry } from './tenant-registry';
import { DEFAULT_SIGNING_KEY_ID } from './tenant-records';

async function started() {
  const kv = new MemoryKv();
  const registry = new TenantRegistry(memoryNats(kv));
  await registry.start();
  return { kv, registry };
}

describe('TenantRegistry', () => {
  it('reflects its own writes in the cache as soon as they resolve', async () => {
    const { registry } = await started();
    expect(await registry.createTenantIfAbsent('acme', 'Acme', 30)).toMatchObject({ created: true, tenant: { id: 'acme', name: 'Acme', retentionDays: 30 } });
    expect(registry.tenant('acme')).toBeDefined();
    const { key, record } = await registry.createKey('acme', 'secret');
    expect(registry.authenticate(key)).toMatchObject({ tenantId: 'acme', handle: record.handle });
    expect(await registry.revokeKey('acme', record.handle)).toBe(true);
    expect(registry.authenticate(key)).toBeNull();
    await registry.createSigningKey('acme', 'k1', 's'.repeat(16));
    expect(registry.signingKey('acme', 'k1')).toBeDefined();
    expect(await registry.revokeSigningKey('acme', 'k1')).toBe(true);
    expect(registry.signingKey('acme', 'k1')).toBeUndefined();
  });

  it('creates a tenant once; a second create reports the stored tenant unchanged', async () => {
    const { registry } = await started();
    const first = await registry.createTenantIfAbsent('acme', 'Acme');
    const again = await registry.createTenantIfAbsent('acme', 'Other', 7);
    expect(again).toEqual({ created: false, tenant: first.tenant });
    // The new tenant came with one generated signing key; the second create added none.
    expect(registry.listSigningKeys('acme').map((k) => k.keyId)).toEqual([DEFAULT_SIGNING_KEY_ID]);
    expect(registry.currentSigningKey('acme')?.secret).toMatch(/^[A-Za-z0-9_-]{40,}$/);
    expect(await registry.createTenant('acme')).toEqual(first.tenant);
  });

  it('sees writes made by another instance through the watcher', async () => {
    const { kv, registry } = await started();
    const other = new TenantRegistry(memoryNats(kv));
    await other.start();
    await registry.createTenant('acme');
    const { key } = await registry.createKey('acme', 'public');
    for (let i = 0; i < 100 && !other.authenticate(key); i++) await new Promise((r) => setImmediate(r));
    expect(other.authenticate(key)).not.toBeNull();
    await registry.revokeKey('acme', key);
    for (let i = 0; i < 100 && other.authenticate(key); i++) await new Promise((r) => setImmediate(r));
    expect(other.authenticate(key)).toBeNull();
  });

  it('tells listeners of every instance which key was revoked, without its hash', async () => {
    const { kv, registry } = await started();
    const other = new TenantRegistry(memoryNats(kv));
    await other.start();
    const seen: unknown[] = [];
    other.onKeyRevoked((k) => seen.push(k));
    await registry.createTenant('acme');
    const { key, record } = await registry.createKey('acme', 'public');
    for (let i = 0; i < 100 && !other.authenticate(key); i++) await new Promise((r) => setImmediate(r));
    await registry.revokeKey('acme', record.handle);
    for (let i = 0; i < 100 && seen.length === 0; i++) await new Promise((r) => setImmediate(r));
    expect(seen).toEqual([record]);
  });

  it('does not confuse dotted key ids across tenant boundaries', async () => {
    const { registry } = await started();
    await registry.createTenant('a');
    await registry.createSigningKey('a', 'b.c', 's'.repeat(16));
    expect(registry.signingKey('a', 'b.c')).toBeDefined();
    expect(registry.signingKey('a.b', 'c')).toBeUndefined();
  });

  it('refuses malformed ids with 400-class errors rather than bucket errors', async () => {
    const { registry } = await started();
    await registry.createTenant('acme');
    for (const keyId of ['.k', 'k.', 'a..b', 'a b', 'k*', '']) {
      await expect(registry.createSigningKey('acme', keyId, 's'.repeat(16))).rejects.toMatchObject({ code: 'bad_request' });
    }
    await expect(registry.createTenant('a.b')).rejects.toMatchObject({ code: 'bad_request' });
    expect(await registry.revokeSigningKey('a>b', 'k')).toBe(false);
    expect(await registry.revokeSigningKey('acme', 'k.')).toBe(false);
    await expect(registry.createKey('nope', 'public')).rejects.toMatchObject({ code: 'not_found' });
  });

  it('never lists hashes or secrets', async () => {
    const { registry } = await started();
    await registry.createTenant('acme');
    const { key } = await registry.createKey('acme', 'secret');
    await registry.createSigningKey('acme', 'k1', 'x'.repeat(20));
    const listed = JSON.stringify([registry.listKeys('acme'), registry.listSigningKeys('acme')]);
    expect(listed).not.toContain(key);
    expect(listed).not.toContain('x'.repeat(20));
    expect(listed).not.toContain('"hash"');
  });

  it('refuses a tenant that is suspended or being deleted on every instance, and tells listeners once per change', async () => {
    const { kv, registry } = await started();
    const other = new TenantRegistry(memoryNats(kv));
    await other.start();
    const seen: string[] = [];
    other.onTenantRefused((id, status) => seen.push(`${id}:${status}`));
    await registry.createTenant('acme', 'Acme', 7);
    const settle = async (done: () => boolean) => {
      for (let i = 0; i < 100 && !done(); i++) await new Promise((r) => setImmediate(r));
    };
    await settle(() => other.tenant('acme') !== undefined);
    expect(() => other.assertServing('acme')).not.toThrow();

    await registry.setStatus('acme', { status: 'suspended', statusSince: 1 });
    expect(() => registry.assertServing('acme')).toThrow(/Tenant acme is suspended/); // at once where it was written
    await settle(() => seen.length > 0);
    expect(() => other.assertServing('acme')).toThrow(expect.objectContaining({ code: 'forbidden' }));
    expect(other.tenant('acme')).toMatchObject({ name: 'Acme', retentionDays: 7, status: 'suspended', statusSince: 1 });

    await registry.setStatus('acme', {}); // resumed: the other fields are kept
    await settle(() => other.tenant('acme')?.status === undefined);
    expect(other.tenant('acme')).toEqual({ id: 'acme', name: 'Acme', createdAt: expect.any(Number), retentionDays: 7 });
    expect(() => other.assertServing('acme')).not.toThrow();

    await registry.setStatus('acme', { status: 'deleting', statusSince: 2, deletion: { step: 'stream', updatedAt: 2 } });
    await registry.setStatus('acme', { status: 'deleting', statusSince: 2, deletion: { step: 'projections', updatedAt: 3 } });
    await expect(registry.createKey('acme', 'public')).rejects.toMatchObject({ code: 'conflict' });
    await expect(registry.createSigningKey('acme', 'k2')).rejects.toMatchObject({ code: 'conflict' });
    await registry.remove('tenants.acme');
    await settle(() => seen.length >= 3);
    expect(seen).toEqual(['acme:suspended', 'acme:deleting', 'acme:deleted']);
    expect(() => other.assertServing('acme')).toThrow(/Tenant acme does not exist/);
  });

  it('writes a status by compare-and-set, so a concurrent change of the tenant is not lost', async () => {
    const { kv, registry } = await started();
    await registry.createTenant('acme');
    const update = kv.update.bind(kv);
    let raced = false;
    jest.spyOn(kv, 'update').mockImplementation(async (key, value, revision) => {
      if (!raced) {
        raced = true;
        await registry.setRetention('acme', 9); // lands between the read and the write
      }
      return update(key, value, revision);
    });
    await registry.setStatus('acme', { status: 'suspended', statusSince: 5 });
    expect(JSON.parse((await kv.get('tenants.acme'))!.string())).toMatchObject({ retentionDays: 9, status: 'suspended' });
  });

  it("lists every entry of a tenant, its own last, and none of another tenant's", async () => {
    const { registry } = await started();
    await registry.createTenant('acme');
    await registry.createTenant('acme2');
    const { key } = await registry.createKey('acme', 'public');
    await registry.createKey('acme2', 'public');
    await registry.createSigningKey('acme', 'k.1', 's'.repeat(16));
    const entries = registry.entriesOf('acme');
    expect(entries).toEqual([`keys.${hashKey(key)}`, 'signing.acme.default', 'signing.acme.k.1', 'tenants.acme']);
  });
});
