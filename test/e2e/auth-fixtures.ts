// Helpers shared by the auth and admin end-to-end specs: admin API calls, tenants created through
// it, and presigned query strings computed the way a customer's server would.
import { createHmac, randomBytes } from 'node:crypto';
import { connect } from 'node:net';
import { api, Res } from '../harness/http';
import { testEnv } from '../harness/env';

export interface TenantCreds {
  tenantId: string;
  publicKey: string;
  secretKey: string;
  signingKeyId: string;
  signingSecret: string;
}

/** The bootstrap tenant of the test stack. */
export const tenantA = (): TenantCreds => {
  const e = testEnv();
  return { tenantId: e.tenantId, publicKey: e.publicKey, secretKey: e.secretKey, signingKeyId: e.signingKeyId, signingSecret: e.signingSecret };
};

/** A call to the admin API with the stack's admin token (or the given one; null sends none). */
export function admin(method: string, path: string, body?: unknown, opts: { token?: string | null; base?: string } = {}): Promise<Res> {
  const token = opts.token === undefined ? testEnv().adminToken : opts.token;
  return api(`/admin${path}`, {
    method,
    base: opts.base,
    ...(token !== null ? { key: token } : {}),
    ...(body !== undefined ? { headers: { 'content-type': 'application/json' }, body: typeof body === 'string' ? body : JSON.stringify(body) } : {}),
  });
}

async function expectStatus(r: Promise<Res>, ...ok: number[]): Promise<Res> {
  const res = await r;
  if (!ok.includes(res.status)) throw new Error(`admin call answered ${res.status}: ${res.text.slice(0, 300)}`);
  return res;
}

/** A new tenant with a public key, a secret key and a signing key, all made through the admin API (of another instance: `on`). */
export async function createTenant(prefix = 'b', on: { token?: string; base?: string } = {}): Promise<TenantCreds> {
  const tenantId = `${prefix}_${randomBytes(4).toString('hex')}`;
  await expectStatus(admin('POST', '/tenants', { id: tenantId, name: `Tenant ${tenantId}` }, on), 201);
  const pub = (await expectStatus(admin('POST', `/tenants/${tenantId}/keys`, { kind: 'public' }, on), 201)).json();
  const sec = (await expectStatus(admin('POST', `/tenants/${tenantId}/keys`, { kind: 'secret' }, on), 201)).json();
  const sk = (await expectStatus(admin('POST', `/tenants/${tenantId}/signing-keys`, { keyId: 'links-1' }, on), 201)).json();
  return { tenantId, publicKey: pub.key, secretKey: sec.key, signingKeyId: 'links-1', signingSecret: sk.secret };
}

export const nowSeconds = () => Math.floor(Date.now() / 1000);

/** The documented recipe: HMAC-SHA256 over "GET <resource> <tenantId> <expires>", lowercase hex. */
/** `expires` is signed and sent as given: a string keeps its exact digits (leading zeros too). */
export function presign(
  resource: string,
  t: Pick<TenantCreds, 'tenantId' | 'signingKeyId' | 'signingSecret'>,
  expires: number | string = nowSeconds() + 300,
): Record<string, string> {
  const signature = createHmac('sha256', t.signingSecret).update(`GET ${resource} ${t.tenantId} ${expires}`).digest('hex');
  return { tenantId: t.tenantId, expires: String(expires), keyId: t.signingKeyId, signature };
}

export const qs = (q: Record<string, string>) => new URLSearchParams(q).toString();

/** Secret-looking but unknown credentials, unique per call (for log checks). */
export const fakeKey = (kind: 'public' | 'secret' = 'secret') => `${kind}_key_svc_${randomBytes(18).toString('base64url')}`;

/**
 * A GET over a raw socket, for header values fetch refuses to send (control characters). Resolves
 * to the status code of the answer, whoever gives it (the HTTP parser or the application).
 */
export function rawGet(baseUrl: string, path: string, headers: Record<string, string>): Promise<number> {
  const { hostname, port } = new URL(baseUrl);
  const head = Object.entries(headers)
    .map(([k, v]) => `${k}: ${v}\r\n`)
    .join('');
  return new Promise((resolve, reject) => {
    const s = connect(Number(port), hostname);
    const chunks: Buffer[] = [];
    s.setTimeout(10_000, () => s.destroy(new Error('raw request timed out')));
    s.on('data', (c) => chunks.push(c));
    s.on('error', reject);
    s.on('close', () => {
      const m = /^HTTP\/1\.1 (\d{3})/.exec(Buffer.concat(chunks).toString('latin1'));
      if (m) resolve(Number(m[1]));
      else reject(new Error(`no HTTP answer: ${Buffer.concat(chunks).toString('latin1').slice(0, 100)}`));
    });
    // write, not end: a half-closed socket makes Node's HTTP server abort the request it is answering
    s.write(Buffer.from(`GET ${path} HTTP/1.1\r\nHost: ${hostname}:${port}\r\n${head}Connection: close\r\n\r\n`, 'latin1'));
  });
}
