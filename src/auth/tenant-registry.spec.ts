import { MemoryKv, memoryNats } from './testing/memory-kv';
import { DEFAULT_SIGNING_KEY_ID, TenantRegistry } from './tenant-registry';

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
});
