// Presigned links: any change to a signed link is refused (403), as are expired links, links that
// live longer than PRESIGN_MAX_TTL_SECONDS and links of a revoked signing key; fuzzed credentials
// never cause a 500.
import fc from 'fast-check';
import { randomUUID } from 'node:crypto';
import { api, postEvents, sampleEvents } from '../harness/http';
import { pollUntil } from '../harness/poll-until';
import { testEnv } from '../harness/env';
import { admin, createTenant, fakeKey, nowSeconds, presign, qs, rawGet, tenantA, TenantCreds } from './auth-fixtures';

const MAX_TTL = 7 * 24 * 3600; // the service's default PRESIGN_MAX_TTL_SECONDS (the harness does not set it)

let A: TenantCreds;
let B: TenantCreds;
let recX: string;
let recY: string;
const events = (id: string) => `/recordings/${id}/events`;

beforeAll(async () => {
  A = tenantA();
  B = await createTenant('sig');
  recX = randomUUID();
  recY = randomUUID();
  for (const id of [recX, recY]) expect((await postEvents(id, sampleEvents(5), A.publicKey)).status).toBe(200);
});

const get = (path: string, q: Record<string, string>) => api(`${path}?${qs(q)}`);

describe('presigned links', () => {
  it('open the signed recording, with the recording id in either case', async () => {
    const link = presign(`/recordings/${recX}`, A);
    expect((await get(events(recX), link)).status).toBe(200);
    expect((await get(events(recX.toUpperCase()), link)).status).toBe(200);
  });

  it.each([
    ['tenantId', () => B.tenantId],
    ['tenantId', () => 'no_such_tenant'],
    ['expires', (l: Record<string, string>) => String(Number(l.expires) + 1)],
    ['expires', (l: Record<string, string>) => `${l.expires}.0`],
    ['keyId', () => 'another-key'],
    ['signature', (l: Record<string, string>) => (l.signature[0] === 'a' ? 'b' : 'a') + l.signature.slice(1)],
    ['signature', (l: Record<string, string>) => l.signature.slice(0, 63)],
  ])('refuse a changed %s with 403', async (name, change) => {
    const link = presign(`/recordings/${recX}`, A);
    const r = await get(events(recX), { ...link, [name]: change(link) });
    expect(r.status).toBe(403);
    expect(r.headers.get('content-type')).toMatch(/text\/plain/);
  });

  it('open their recording whatever Authorization header comes along, unless it is a private key', async () => {
    const link = presign(`/recordings/${recX}`, A);
    const withHeader = (authorization: string, id = recX) => api(`${events(id)}?${qs(link)}`, { headers: { authorization } });
    for (const header of [`Bearer ${A.publicKey}`, `Bearer ${B.publicKey}`, `Bearer ${fakeKey('public')}`, 'Basic dXNlcjpwYXNz']) {
      const r = await withHeader(header);
      expect([header, r.status]).toEqual([header, 200]);
      expect(r.json()).toHaveLength(5);
      expect((await withHeader(header, recY)).status).toBe(403);
    }
    // Tenant B's private key reads as tenant B, which has no such recording.
    expect((await withHeader(`Bearer ${B.secretKey}`)).status).toBe(404);
  });

  it('refuse a link used for another recording id with 403', async () => {
    expect((await get(events(recY), presign(`/recordings/${recX}`, A))).status).toBe(403);
  });

  it('refuse a link that repeats a parameter with 400 naming it, the right value first or not, as a repeated token', async () => {
    const link = presign(`/recordings/${recX}`, A);
    const twice = await api(`${events(recX)}?${qs(link)}&signature=00`);
    expect(twice.status).toBe(400);
    expect(twice.json().message).toBe('Invalid query: signature: must be given once (a presigned link repeats a parameter)');
    expect((await api(`${events(recX)}?${qs(link)}&expires=${link.expires}`)).status).toBe(400);
  });

  it('read the hex signature in either letter case (docs/presigned-links.md), and nothing but hex', async () => {
    const link = presign(`/recordings/${recX}`, A);
    const mixed = link.signature.replace(/[a-f]/g, (c, i: number) => (i % 2 ? c.toUpperCase() : c));
    for (const signature of [link.signature, link.signature.toUpperCase(), mixed]) {
      expect([signature, (await get(events(recX), { ...link, signature })).status]).toEqual([signature, 200]);
    }
    // A player page opened with it passes it on as written, and its events link opens too.
    const page = await get(`/recordings/${recX}/player.html`, { ...link, signature: link.signature.toUpperCase() });
    expect(page.status).toBe(200);
    const eventsUrl = (JSON.parse(/id="tapedeck-config">([^<]*)</.exec(page.text)![1]) as { eventsUrl: string }).eventsUrl;
    expect(eventsUrl).toContain(`signature=${link.signature.toUpperCase()}`);
    expect((await api(`/recordings/${recX}/${eventsUrl}`)).status).toBe(200);
    expect((await get(events(recX), { ...link, signature: link.signature.replace(/[a-f]/, 'g') })).status).toBe(403);
    expect((await get(events(recX), { ...link, signature: `${link.signature.slice(1)}\u212a` })).status).toBe(403); // Kelvin sign: lowercases to "k"
  });

  it('refuse an incomplete link with 403', async () => {
    const { signature: _s, ...rest } = presign(`/recordings/${recX}`, A);
    expect((await get(events(recX), rest)).status).toBe(403);
  });

  it('refuse expired links and links beyond the maximum lifetime with 403', async () => {
    expect((await get(events(recX), presign(`/recordings/${recX}`, A, nowSeconds() - 1))).status).toBe(403);
    expect((await get(events(recX), presign(`/recordings/${recX}`, A, nowSeconds() + MAX_TTL + 120))).status).toBe(403);
    expect((await get(events(recX), presign(`/recordings/${recX}`, A, nowSeconds() + MAX_TTL - 120))).status).toBe(200);
  });

  it('are signed over expires exactly as the query string writes it (docs/presigned-links.md)', async () => {
    const at = nowSeconds() + 300;
    expect((await get(events(recX), presign(`/recordings/${recX}`, A, `0${at}`))).status).toBe(200);
    // Digits signed one way and sent another do not match, though they spell the same number.
    expect((await get(events(recX), { ...presign(`/recordings/${recX}`, A, at), expires: `0${at}` })).status).toBe(403);
    expect((await get(events(recX), { ...presign(`/recordings/${recX}`, A, `0${at}`), expires: String(at) })).status).toBe(403);
    expect((await get(events(recX), presign(`/recordings/${recX}`, A, `0${nowSeconds() - 1}`))).status).toBe(403);
    expect((await get(events(recX), presign(`/recordings/${recX}`, A, `0${nowSeconds() + MAX_TTL + 120}`))).status).toBe(403);
  });

  it("never open a replay whose grouping key holds a slash: its string to sign is also another replay's", async () => {
    // "GET /replays/userId/x/y …" reads as userId = "x/y" and as "userId/x" = "y".
    const shared = randomUUID();
    const other = randomUUID();
    for (const [id, meta] of [
      [shared, { userId: 'x/y' }],
      [other, { 'userId/x': 'y' }],
    ] as const) {
      expect((await postEvents(id, sampleEvents(3), B.publicKey)).status).toBe(200);
      expect(
        (
          await api(`/recordings/${id}/metadata`, {
            method: 'POST',
            key: B.publicKey,
            headers: { 'content-type': 'application/json' },
            body: JSON.stringify(meta),
          })
        ).status,
      ).toBe(200);
    }
    const link = presign('/replays/userId/x/y', B);
    await pollUntil(
      () => get('/replays/userId/x%2Fy/events', link),
      (r) => r.status === 200,
      10_000,
      100,
    );
    await pollUntil(
      () => api('/replays/userId%2Fx/y/events', { key: B.secretKey }),
      (r) => r.status === 200,
      10_000,
      100,
    );
    expect((await get('/replays/userId%2Fx/y/events', link)).status).toBe(403);
    // Nor does the service hand out such links.
    const listed = await api('/replays/userId%2Fx?includeSignedUrls=true', { key: B.secretKey });
    expect(listed.status).toBe(400);
    expect(listed.text).toMatch(/groupingProp/);
    expect((await api('/replays/userId?includeSignedUrls=true', { key: B.secretKey })).status).toBe(200);
  });

  it('stop working once their signing key is revoked', async () => {
    const rec = randomUUID();
    expect((await postEvents(rec, sampleEvents(3), B.publicKey)).status).toBe(200);
    const link = presign(`/recordings/${rec}`, B);
    expect((await get(events(rec), link)).status).toBe(200);
    expect((await admin('DELETE', `/tenants/${B.tenantId}/signing-keys/${B.signingKeyId}`)).status).toBe(204);
    await pollUntil(
      () => get(events(rec), link),
      (r) => r.status === 403,
      2000,
      20,
    );
  });
});

describe('fuzzed credentials never cause a server error', () => {
  const headerChar = fc
    .integer({ min: 0x09, max: 0xff })
    .filter((c) => c !== 0x0a && c !== 0x0d)
    .map((c) => String.fromCharCode(c));
  const headerText = fc.string({ unit: headerChar, maxLength: 120 });
  const anyText = fc.oneof(fc.string({ maxLength: 80 }), fc.string({ unit: 'binary', maxLength: 40 }), headerText);

  it('for Authorization headers, any bytes but CR and LF (300 runs)', async () => {
    const seen = new Set<number>();
    const header = fc.oneof(
      headerText,
      fc
        .tuple(
          fc.constantFrom('Bearer ', 'bearer ', 'Bearer  ', 'BEARER\t', 'Basic ', 'Bearer', ''),
          fc.constantFrom('', 'public_key_svc_', 'secret_key_svc_', A.secretKey, A.publicKey),
          headerText,
        )
        .map(([a, b, c]) => a + b + c),
    );
    const paths = [events(recX), `/recordings/${randomUUID()}/events`, '/admin/tenants'];
    await fc.assert(
      fc.asyncProperty(header, fc.constantFrom(...paths), async (h, path) => {
        const status = await rawGet(testEnv().baseUrl, path, { authorization: h });
        seen.add(status);
        expect(status).toBeLessThan(500);
      }),
      { numRuns: 300 },
    );
    expect(seen).toContain(401); // the application answered, not only the HTTP parser
  });

  it('for presigned query strings (300 runs)', async () => {
    const seen = new Set<number>();
    const valid = presign(`/recordings/${recX}`, A);
    const value = (name: keyof typeof valid) =>
      fc.oneof(
        { arbitrary: fc.constant(valid[name]), weight: 6 },
        anyText,
        fc.constantFrom('', '-1', '0', '1e9', '99999999999999999999', 'NaN', '%', '%zz', '%E0%A4%A', '../', '>', '*', 'a.b', fakeKey()),
        fc.bigInt({ min: -(2n ** 70n), max: 2n ** 70n }).map(String),
      );
    const param = (name: keyof typeof valid) => fc.option(fc.array(value(name), { minLength: 1, maxLength: 2 }), { nil: undefined });
    const encodeLoosely = fc.boolean();
    const query = fc
      .record({
        tenantId: param('tenantId'),
        expires: param('expires'),
        keyId: param('keyId'),
        signature: param('signature'),
        token: param('signature'),
        raw: fc.option(headerText, { nil: undefined }),
      })
      .chain((q) => encodeLoosely.map((loose) => ({ q, loose })));
    await fc.assert(
      fc.asyncProperty(query, fc.constantFrom(recX, recX.toUpperCase(), randomUUID(), 'not-a-uuid'), async ({ q, loose }, id) => {
        const parts: string[] = [];
        for (const [k, vs] of Object.entries(q)) {
          if (k === 'raw' || !Array.isArray(vs)) continue;
          for (const v of vs) parts.push(`${k}=${loose ? v.replace(/[#\s]/g, '') : encodeURIComponent(v)}`);
        }
        if (q.raw !== undefined) parts.push(encodeURI(q.raw));
        const r = await api(`${events(id)}?${parts.join('&')}`);
        seen.add(r.status);
        expect(r.status).toBeLessThan(500);
      }),
      { numRuns: 300 },
    );
    // The application answered (a repeated parameter alone is 403, so 200s are too rare to expect
    // here); the valid link itself opens the recording.
    expect([...seen]).toContain(403);
    expect((await api(`${events(recX)}?${qs(valid)}`)).status).toBe(200);
  });
});
