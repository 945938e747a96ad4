// Who may read what, over every authenticated read route the service documents (ROUTES below; the
// last test fails when /openapi.json lists a read route the table lacks). Tenant B is created
// through the admin API; B's credentials must never read tenant A's data.
import { randomBytes, randomUUID } from 'node:crypto';
import { api, postEvents, sampleEvents } from '../harness/http';
import { pollUntil } from '../harness/poll-until';
import { createTenant, presign, qs, tenantA, TenantCreds } from './auth-fixtures';

interface Fixture {
  A: TenantCreds;
  B: TenantCreds;
  recA: string;
  recA2: string;
  prop: string;
  value: string;
}

interface ReadRoute {
  /** The path as /openapi.json names it. */
  route: string;
  /** This route for tenant A's data. */
  url(f: Fixture): string;
  /** What a presigned link may open it: a recording's or a replay's link; tenant-wide queries never. */
  opens: 'recording' | 'replay' | 'collection';
  /** For collections: the text that shows A's data in an answer (default A's recording id); null: none to look for. */
  marker?: ((f: Fixture) => string) | null;
}

/** Every authenticated read route. Add a row when a route is added. */
const ROUTES: ReadRoute[] = [
  { route: '/recordings/{recordingId}/events', url: (f) => `/recordings/${f.recA}/events`, opens: 'recording' },
  { route: '/recordings/{recordingId}', url: (f) => `/recordings/${f.recA}`, opens: 'recording' },
  { route: '/recordings/{recordingId}/player', url: (f) => `/recordings/${f.recA}/player.html`, opens: 'recording' },
  { route: '/recordings/{recordingId}/activity', url: (f) => `/recordings/${f.recA}/activity`, opens: 'recording' },
  // 404 until rendered in the background (the positive control waits for it), then the image.
  { route: '/recordings/{recordingId}/thumbnail', url: (f) => `/recordings/${f.recA}/thumbnail`, opens: 'recording' },
  { route: '/recordings/{recordingId}/screenshot', url: (f) => `/recordings/${f.recA}/screenshot.png?width=320&height=200`, opens: 'recording' },
  { route: '/replays/{groupingProp}/{replayValue}', url: (f) => `/replays/${f.prop}/${f.value}`, opens: 'replay' },
  { route: '/replays/{groupingProp}/{replayValue}/events', url: (f) => `/replays/${f.prop}/${f.value}/events`, opens: 'replay' },
  { route: '/recordings', url: (f) => `/recordings?limit=100&metadata[${f.prop}]=${f.value}`, opens: 'collection' },
  { route: '/replays/{groupingProp}', url: (f) => `/replays/${f.prop}?limit=100`, opens: 'collection', marker: (f) => f.value },
  { route: '/replays', url: (f) => `/replays?metadata[${f.prop}]=${f.value}`, opens: 'collection' },
  { route: '/replay', url: (f) => `/replay?metadata[${f.prop}]=${f.value}`, opens: 'collection' },
  { route: '/statistics', url: () => '/statistics', opens: 'collection', marker: null },
];

const markerOf = (r: ReadRoute, f: Fixture) => (r.marker === null ? null : (r.marker ?? ((x: Fixture) => x.recA))(f));

/** Other spellings of a route (file extensions) checked like the route itself. */
const ALIASES: Record<string, string> = {
  '/recordings/{recordingId}/player.html': '/recordings/{recordingId}/player',
  '/recordings/{recordingId}/preview': '/recordings/{recordingId}/player',
  '/recordings/{recordingId}/screenshot.png': '/recordings/{recordingId}/screenshot',
  '/recordings/{recordingId}/screenshot.jpeg': '/recordings/{recordingId}/screenshot',
  '/recordings/{recordingId}/screenshot.jpg': '/recordings/{recordingId}/screenshot',
  '/recordings/{recordingId}/screenshot.webp': '/recordings/{recordingId}/screenshot',
};

type OpenApi = { paths: Record<string, Record<string, { security?: Record<string, unknown>[] }>> };

let f: Fixture;
let doc: OpenApi;
let routes: ReadRoute[];

const withQuery = (url: string, q: Record<string, string>) => `${url}${url.includes('?') ? '&' : '?'}${qs(q)}`;
const recResource = (id: string) => `/recordings/${id}`;
const replayResource = () => `/replays/${f.prop}/${f.value}`;

/** Runs every case and reports all mismatches at once: "GET url: expected 404, got 200". */
async function expectStatuses(cases: { url: string; key?: string; cookie?: string; expect: number[]; also?: (text: string) => string | null }[]) {
  const wrong: string[] = [];
  for (const c of cases) {
    const r = await api(c.url, { key: c.key, ...(c.cookie ? { headers: { cookie: c.cookie } } : {}) });
    if (!c.expect.includes(r.status)) wrong.push(`GET ${c.url}: expected ${c.expect.join('/')}, got ${r.status} ${r.text.slice(0, 120)}`);
    else if (r.status >= 400 && !/text\/plain/.test(r.headers.get('content-type') ?? '')) wrong.push(`GET ${c.url}: ${r.status} is not text/plain`);
    else if ((r.status === 401) !== (r.headers.get('www-authenticate') === 'Bearer realm="tapedeck"'))
      wrong.push(`GET ${c.url}: ${r.status} with WWW-Authenticate ${r.headers.get('www-authenticate')}`);
    else if (c.also) {
      const problem = c.also(r.text);
      if (problem) wrong.push(`GET ${c.url}: ${problem}`);
    }
  }
  expect(wrong).toEqual([]);
}

beforeAll(async () => {
  const A = tenantA();
  const B = await createTenant('iso');
  const value = `v-${randomBytes(6).toString('hex')}`;
  f = { A, B, recA: randomUUID(), recA2: randomUUID(), prop: 'isoUser', value };
  for (const [id, key] of [
    [f.recA, A.publicKey],
    [f.recA2, A.publicKey],
    [randomUUID(), B.publicKey],
  ] as const) {
    expect((await postEvents(id, sampleEvents(20, Date.now(), { href: `https://iso.test/${value}` }), key)).status).toBe(200);
  }
  const meta = await api(`/recordings/${f.recA}/metadata`, {
    method: 'POST',
    key: A.publicKey,
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ [f.prop]: value }),
  });
  expect(meta.status).toBe(200);
  doc = (await api('/openapi.json')).json<OpenApi>();
  const documented = Object.keys(doc.paths)
    .filter((p) => doc.paths[p].get)
    .map((p) => ALIASES[p] ?? p);
  routes = ROUTES.filter((r) => documented.includes(r.route));
});

describe('read access matrix', () => {
  it("lets tenant A's secret key read every route (positive control, waits for projections)", async () => {
    for (const r of routes) {
      await pollUntil(
        () => api(r.url(f), { key: f.A.secretKey }),
        (res) => res.status === 200 && (r.opens !== 'collection' || !markerOf(r, f) || res.text.includes(markerOf(r, f)!)),
        30_000,
        250,
      );
    }
  });

  it("never lets tenant B's secret key read A's data: 404 for A's resources, nothing of A's in tenant-wide answers", async () => {
    await expectStatuses(
      routes.map((r) => {
        const marker = markerOf(r, f);
        return r.opens === 'collection'
          ? { url: r.url(f), key: f.B.secretKey, expect: [200, 404], also: (t: string) => (marker && t.includes(marker) ? "shows A's data" : null) }
          : { url: r.url(f), key: f.B.secretKey, expect: [404] };
      }),
    );
  });

  it("gives a console session (signed in with B's private key) exactly what B's key gets: nothing of A's", async () => {
    const signIn = await api('/console/session', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ key: f.B.secretKey }),
    });
    expect(signIn.status).toBe(200);
    const cookie = /td_session=[^;]+/.exec(signIn.headers.get('set-cookie') ?? '')![0];
    await expectStatuses(
      routes.map((r) => {
        const marker = markerOf(r, f);
        return r.opens === 'collection'
          ? { url: r.url(f), cookie, expect: [200, 404], also: (t: string) => (marker && t.includes(marker) ? "shows A's data" : null) }
          : { url: r.url(f), cookie, expect: [404] };
      }),
    );
    // A's own session reads A's data like A's key.
    const a = await api('/console/session', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ key: f.A.secretKey }) });
    const cookieA = /td_session=[^;]+/.exec(a.headers.get('set-cookie') ?? '')![0];
    await expectStatuses(routes.map((r) => ({ url: r.url(f), cookie: cookieA, expect: [200] })));
  });

  it("refuses public keys (A's and B's) and missing credentials on every read route: 401", async () => {
    const cases = routes.flatMap((r) => [f.A.publicKey, f.B.publicKey, undefined].map((key) => ({ url: r.url(f), key, expect: [401] })));
    await expectStatuses(cases);
  });

  it('opens only its own recording with a recording link: 200 there, 403 on other resources, 401 on collections', async () => {
    const linkX = presign(recResource(f.recA), f.A);
    const cases = routes.map((r) => ({
      url: withQuery(r.url(f), linkX),
      expect: r.opens === 'recording' ? [200] : r.opens === 'replay' ? [403] : [401],
    }));
    const onY = routes.filter((r) => r.opens === 'recording').map((r) => ({ url: withQuery(r.url(f).replace(f.recA, f.recA2), linkX), expect: [403] }));
    await expectStatuses([...cases, ...onY]);
  });

  it('opens only its own replay with a replay link', async () => {
    const link = presign(replayResource(), f.A);
    const cases = routes.map((r) => ({ url: withQuery(r.url(f), link), expect: r.opens === 'replay' ? [200] : r.opens === 'recording' ? [403] : [401] }));
    const other = routes.filter((r) => r.opens === 'replay').map((r) => ({ url: withQuery(r.url(f).replace(f.value, `${f.value}x`), link), expect: [403] }));
    await expectStatuses([...cases, ...other]);
  });

  it("does not let tenant B's own valid link reach A's recording: 404", async () => {
    const linkB = presign(recResource(f.recA), f.B);
    await expectStatuses(routes.filter((r) => r.opens === 'recording').map((r) => ({ url: withQuery(r.url(f), linkB), expect: [404] })));
  });

  it('covers every authenticated read route in /openapi.json', () => {
    const known = new Set(ROUTES.map((r) => r.route));
    const missing = Object.entries(doc.paths)
      .filter(([path, ops]) => !path.startsWith('/admin') && ops.get?.security?.some((s) => 'bearer' in s || 'presigned' in s))
      .map(([path]) => ALIASES[path] ?? path)
      .filter((path) => !known.has(path));
    expect(missing).toEqual([]);
    expect(routes.length).toBeGreaterThan(0);
  });
});
