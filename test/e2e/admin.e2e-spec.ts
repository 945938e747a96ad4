// The admin HTTP API: token guard, tenants, API keys (shown once, revocable by handle, origin-bound)
// and signing keys, with the documented statuses and text/plain or JSON errors.
import { randomBytes, randomUUID } from 'node:crypto';
import { api, postEvents, sampleEvents } from '../harness/http';
import { testEnv } from '../harness/env';
import { admin, createTenant, presign, qs } from './auth-fixtures';

const newId = (p = 'adm') => `${p}_${randomBytes(4).toString('hex')}`;

describe('admin API', () => {
  it('refuses missing, wrong and non-admin credentials with a text/plain 401', async () => {
    const env = testEnv();
    for (const token of [null, `${env.adminToken}x`, env.adminToken.slice(1), env.secretKey]) {
      const r = await admin('GET', '/tenants', undefined, { token });
      expect(r.status).toBe(401);
      expect(r.headers.get('content-type')).toMatch(/text\/plain/);
      expect(r.text).not.toContain(env.adminToken.slice(0, 12));
    }
    const post = await admin('POST', '/tenants', { id: newId() }, { token: 'wrong-token-0123456789' });
    expect(post.status).toBe(401);
  });

  it('creates tenants idempotently and lists them; answers are not cacheable', async () => {
    const id = newId();
    const created = await admin('POST', '/tenants', { id, name: 'Acme', retentionDays: 30 });
    expect(created.status).toBe(201);
    expect(created.json()).toMatchObject({ id, name: 'Acme', retentionDays: 30 });
    expect(created.headers.get('cache-control')).toBe('no-store');
    const again = await admin('POST', '/tenants', { id, name: 'Changed' });
    expect(again.status).toBe(200);
    expect(again.json()).toEqual(created.json());
    const list = await admin('GET', '/tenants');
    expect(list.json().tenants).toContainEqual(created.json());
  });

  it("changes a tenant's retention with PATCH, which tenant creation never does", async () => {
    const id = newId();
    await admin('POST', '/tenants', { id, name: 'Gamma' });
    expect((await admin('POST', '/tenants', { id, retentionDays: 5 })).json()).not.toHaveProperty('retentionDays');
    const set = await admin('PATCH', `/tenants/${id}`, { retentionDays: 5 });
    expect([set.status, set.json()]).toEqual([200, expect.objectContaining({ id, name: 'Gamma', retentionDays: 5 })]);
    expect(set.headers.get('cache-control')).toBe('no-store');
    expect((await admin('GET', '/tenants')).json().tenants).toContainEqual(set.json());
    for (const retentionDays of [0, null]) {
      await admin('PATCH', `/tenants/${id}`, { retentionDays: 9 });
      const cleared = await admin('PATCH', `/tenants/${id}`, { retentionDays });
      expect([cleared.status, cleared.json()]).toEqual([200, { id, name: 'Gamma', createdAt: set.json().createdAt }]);
    }
    for (const body of [{}, { retentionDays: -1 }, { retentionDays: '5' }, { retentionDays: 5, name: 'x' }]) {
      const r = await admin('PATCH', `/tenants/${id}`, body);
      expect([r.status, r.json()]).toEqual([400, expect.objectContaining({ error: 'validation_failed' })]);
    }
    const ghost = await admin('PATCH', `/tenants/${newId('ghost')}`, { retentionDays: 5 });
    expect([ghost.status, ghost.headers.get('content-type')]).toEqual([404, expect.stringMatching(/text\/plain/)]);
    expect((await admin('PATCH', `/tenants/${id}`, { retentionDays: 5 }, { token: null })).status).toBe(401);
  });

  it.each([
    ['a bad id', { id: 'a.b' }],
    ['an unknown field', { id: 'ok', extra: true }],
    ['a zero retention', { id: 'ok', retentionDays: 0 }],
    ['a non-object', [1]],
  ])('refuses a tenant with %s: 400 JSON naming the field', async (_what, body) => {
    const r = await admin('POST', '/tenants', body);
    expect(r.status).toBe(400);
    expect(r.json()).toMatchObject({ error: 'validation_failed' });
  });

  it('refuses malformed JSON and empty bodies with a text/plain 400', async () => {
    for (const body of ['{"id":', '']) {
      const r = await api('/admin/tenants', { method: 'POST', key: testEnv().adminToken, headers: { 'content-type': 'application/json' }, body });
      expect(r.status).toBe(400);
      expect(r.headers.get('content-type')).toMatch(/text\/plain/);
    }
  });

  it('takes JSON bodies only as application/json (415 otherwise), as the metadata endpoint does', async () => {
    const body = JSON.stringify({ id: `ctype_${randomUUID().slice(0, 8)}` });
    for (const type of ['text/plain', 'application/x-ndjson']) {
      const r = await api('/admin/tenants', { method: 'POST', key: testEnv().adminToken, headers: { 'content-type': type }, body });
      expect([type, r.status, r.text]).toEqual([type, 415, expect.stringMatching(/^Unsupported Content-Type ".+": send application\/json/)]);
      const m = await api(`/recordings/${randomUUID()}/metadata`, {
        method: 'POST',
        key: testEnv().publicKey,
        headers: { 'content-type': type },
        body: '{"plan":"pro"}',
      });
      expect([type, m.status]).toEqual([type, 415]);
    }
  });

  it('shows a new API key once, lists handles only, and revokes by handle', async () => {
    const t = await createTenant('keys');
    const created = await admin('POST', `/tenants/${t.tenantId}/keys`, { kind: 'secret' });
    expect(created.status).toBe(201);
    const { key, handle, kind } = created.json();
    expect([key.startsWith('secret_key_svc_'), handle, kind]).toEqual([true, expect.stringMatching(/^[0-9a-f]{16}$/), 'secret']);
    const rec = randomUUID();
    expect((await postEvents(rec, sampleEvents(3), t.publicKey)).status).toBe(200);
    expect((await api(`/recordings/${rec}/events`, { key })).status).toBe(200);

    const list = await admin('GET', `/tenants/${t.tenantId}/keys`);
    expect(list.json().keys.map((k: { handle: string }) => k.handle)).toContain(handle);
    for (const k of [key, t.publicKey, t.secretKey]) expect(list.text).not.toContain(k);

    expect((await admin('DELETE', `/tenants/${t.tenantId}/keys/${key}`)).status).toBe(400); // a key is not a handle
    expect((await admin('DELETE', `/tenants/${t.tenantId}/keys/${handle}`)).status).toBe(204);
    expect((await api(`/recordings/${rec}/events`, { key })).status).toBe(401);
    expect((await admin('DELETE', `/tenants/${t.tenantId}/keys/${handle}`)).status).toBe(404);
    expect((await admin('DELETE', `/tenants/${testEnv().tenantId}/keys/${handle}`)).status).toBe(404);
  });

  it('answers 404 for unknown tenants and 400 for bad kinds', async () => {
    expect((await admin('POST', `/tenants/${newId('ghost')}/keys`, { kind: 'public' })).status).toBe(404);
    expect((await admin('GET', `/tenants/${newId('ghost')}/keys`)).status).toBe(404);
    expect((await admin('GET', `/tenants/${newId('ghost')}/signing-keys`)).status).toBe(404);
    expect((await admin('POST', `/tenants/${testEnv().tenantId}/keys`, { kind: 'root' })).status).toBe(400);
  });

  it('binds a public key to its allowed origins (browsers send Origin; servers may omit it)', async () => {
    const t = await createTenant('orig');
    const r = await admin('POST', `/tenants/${t.tenantId}/keys`, { kind: 'public', allowedOrigins: ['https://app.example.test'] });
    expect(r.json().allowedOrigins).toEqual(['https://app.example.test']);
    const send = (origin?: string) => postEvents(randomUUID(), sampleEvents(2), r.json().key, origin ? { origin } : {});
    expect((await send('https://evil.example.test')).status).toBe(401);
    expect((await send('https://app.example.test')).status).toBe(200);
    expect((await send()).status).toBe(200);
    expect((await admin('POST', `/tenants/${t.tenantId}/keys`, { kind: 'public', allowedOrigins: ['https://app.example.test/'] })).status).toBe(400);
  });

  it('manages signing keys: secret shown once when generated, never listed, no silent replacement', async () => {
    const t = await createTenant('sk');
    const gen = await admin('POST', `/tenants/${t.tenantId}/signing-keys`, { keyId: 'k2' });
    expect(gen.status).toBe(201);
    const secret: string = gen.json().secret;
    expect(secret.length).toBeGreaterThanOrEqual(32);
    expect((await admin('POST', `/tenants/${t.tenantId}/signing-keys`, { keyId: 'k2' })).status).toBe(409);
    expect((await admin('POST', `/tenants/${t.tenantId}/signing-keys`, { keyId: 'k2', secret: 'another-secret-0123456' })).status).toBe(409);
    const same = await admin('POST', `/tenants/${t.tenantId}/signing-keys`, { keyId: 'k2', secret });
    expect([same.status, same.json().secret]).toEqual([200, undefined]);
    const given = await admin('POST', `/tenants/${t.tenantId}/signing-keys`, { keyId: 'k3', secret: 'my-own-secret-0123456789' });
    expect([given.status, given.json().secret]).toEqual([201, undefined]);
    expect((await admin('POST', `/tenants/${t.tenantId}/signing-keys`, { keyId: 'k4', secret: 'short' })).status).toBe(400);

    const list = await admin('GET', `/tenants/${t.tenantId}/signing-keys`);
    expect(
      list
        .json()
        .signingKeys.map((k: { keyId: string }) => k.keyId)
        .sort(),
    ).toEqual(['default', 'k2', 'k3', 'links-1']);
    for (const s of [secret, 'my-own-secret-0123456789', t.signingSecret]) expect(list.text).not.toContain(s);

    const rec = randomUUID();
    expect((await postEvents(rec, sampleEvents(3), t.publicKey)).status).toBe(200);
    const link = presign(`/recordings/${rec}`, { tenantId: t.tenantId, signingKeyId: 'k3', signingSecret: 'my-own-secret-0123456789' });
    expect((await api(`/recordings/${rec}/events?${qs(link)}`)).status).toBe(200);
    expect((await admin('DELETE', `/tenants/${t.tenantId}/signing-keys/k3`)).status).toBe(204);
    expect((await api(`/recordings/${rec}/events?${qs(link)}`)).status).toBe(403);
    expect((await admin('DELETE', `/tenants/${t.tenantId}/signing-keys/k3`)).status).toBe(404);
  });

  it('is documented in /openapi.json under the admin tag', async () => {
    const doc = (await api('/openapi.json')).json<{ paths: Record<string, Record<string, { tags?: string[] }>> }>();
    const admins = Object.entries(doc.paths).filter(([p]) => p.startsWith('/admin'));
    expect(admins.map(([p]) => p).sort()).toEqual([
      '/admin/tenants',
      '/admin/tenants/{tenantId}',
      '/admin/tenants/{tenantId}/keys',
      '/admin/tenants/{tenantId}/keys/{handle}',
      '/admin/tenants/{tenantId}/limits',
      '/admin/tenants/{tenantId}/resume',
      '/admin/tenants/{tenantId}/signing-keys',
      '/admin/tenants/{tenantId}/signing-keys/{keyId}',
      '/admin/tenants/{tenantId}/suspend',
    ]);
    for (const [, ops] of admins) for (const op of Object.values(ops)) expect(op.tags).toEqual(['admin']);
  });
});
