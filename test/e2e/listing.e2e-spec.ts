// GET /recordings and GET /recordings/{id} through the whole path: ingestion → JetStream →
// projector → ClickHouse → listing. Every recording here carries a `run` metadata value unique to
// this file, so other specs writing to the same tenant do not disturb the assertions.
import { randomUUID } from 'node:crypto';
import { admin, createTenant, TenantCreds } from './auth-fixtures';
import { testEnv } from '../harness/env';
import { api, postEvents, Res, sampleEvents } from '../harness/http';
import { pollUntil } from '../harness/poll-until';

const run = `listing-${randomUUID()}`;
const secret = () => testEnv().secretKey;

const list = (query: string, key = secret()) => api(`/recordings?${query}`, { key });
const ids = (r: Res) => (r.json().recordings as { recordingId: string }[]).map((x) => x.recordingId);
const attach = (id: string, metadata: Record<string, string>, key = testEnv().publicKey) =>
  api(`/recordings/${id}/metadata`, { method: 'POST', key, headers: { 'content-type': 'application/json' }, body: JSON.stringify(metadata) });
const q = (filters: Record<string, string>, extra = '') =>
  Object.entries(filters)
    .map(([k, v]) => `metadata[${encodeURIComponent(k)}]=${encodeURIComponent(v)}`)
    .join('&') + extra;

/** Ingests a recording (events, then metadata) and returns its id. */
async function record(start: number, n: number, metadata: Record<string, string>, key?: string): Promise<string> {
  const id = randomUUID();
  expect((await postEvents(id, sampleEvents(n, start, { width: 1280, height: 720, href: `https://example.test/${n}` }), key)).status).toBe(200);
  expect((await attach(id, { run, ...metadata }, key)).status).toBe(200);
  return id;
}

/** Waits until the listing with these filters shows `count` recordings. */
const listed = (query: string, count: number, key = secret()) =>
  pollUntil(
    () => list(`${query}&limit=100`, key),
    (r) => r.status === 200 && r.json().recordings.length === count,
    20_000,
  );

describe('GET /recordings', () => {
  const base = Date.now() - 60 * 60_000;
  const made: Record<string, string> = {};

  beforeAll(async () => {
    made.a1 = await record(base + 1000, 10, { team: 'a', plan: 'pro' });
    made.a2 = await record(base + 2000, 20, { team: 'a', plan: 'free' });
    made.b1 = await record(base + 3000, 30, { team: 'b', plan: 'pro' });
    made.quote = await record(base + 4000, 5, { team: 'o\'brien \\ "x"', 'odd key ]': '名前', __proto__x: 'y' });
    await listed(q({ run }), 4);
  });

  it('lists newest first with rrweb Cloud fields, links, metadata and a summary', async () => {
    const r = await list(q({ run }));
    expect(r.status).toBe(200);
    expect(r.headers.get('content-type')).toMatch(/application\/json/);
    const body = r.json();
    expect(body).toMatchObject({ limit: 50, offset: 0, hasMore: false });
    expect(body.signedUrlsExpireAt).toBeUndefined();
    expect(ids(r)).toEqual([made.quote, made.b1, made.a2, made.a1]);
    const b1 = body.recordings[1];
    expect(b1).toEqual({
      recordingId: made.b1,
      timestamp: base + 3000,
      links: {
        self: `/recordings/${made.b1}`,
        events: `/recordings/${made.b1}/events`,
        player: `/recordings/${made.b1}/player.html`,
        screenshot: `/recordings/${made.b1}/screenshot.png`,
        thumbnail: `/recordings/${made.b1}/thumbnail`,
      },
      metadata: { run, team: 'b', plan: 'pro' },
      startedAt: base + 3000,
      endedAt: base + 3000 + 29,
      duration: 29,
      eventCount: 30,
      bytes: expect.any(Number),
      pageViews: 1,
      viewport: { width: 1280, height: 720 },
      firstUrl: 'https://example.test/30',
      lastActivityAt: expect.any(Number),
      live: expect.any(Boolean),
      // From the activity projection, which may still be behind (docs/activity.md; activity.e2e-spec.ts checks its numbers).
      activity: { pages: expect.any(Number), clicks: 0, errors: 0, activeTime: expect.any(Number) },
    });
    expect(b1.bytes).toBeGreaterThan(100);
    expect(Math.abs(b1.lastActivityAt - Date.now())).toBeLessThan(120_000);
    // LIVE_IDLE_SECONDS is 60 here (listing-live.e2e-spec.ts shortens it): live by lastActivityAt, the server clock.
    expect(b1.live).toBe(Date.now() - b1.lastActivityAt < 60_000);
  });

  it('combines filters with AND, accepts meta[...] and escapes quotes, backslashes and unicode exactly', async () => {
    expect(ids(await list(q({ run, team: 'a' })))).toEqual([made.a2, made.a1]);
    expect(ids(await list(q({ run, team: 'a', plan: 'pro' })))).toEqual([made.a1]);
    expect(ids(await list(`meta[run]=${run}&meta[plan]=pro`))).toEqual([made.b1, made.a1]);
    expect(ids(await list(q({ run, team: 'a', plan: 'enterprise' })))).toEqual([]);
    expect(ids(await list(q({ run, team: 'o\'brien \\ "x"' })))).toEqual([made.quote]);
    expect(ids(await list(q({ run, 'odd key ]': '名前' })))).toEqual([made.quote]);
    expect(ids(await list(q({ run, team: "o'brien \\" })))).toEqual([]);
    expect((await list(q({ run, 'odd key ]': '名前' }))).json().recordings[0].metadata).toEqual({
      run,
      team: 'o\'brien \\ "x"',
      'odd key ]': '名前',
      __proto__x: 'y',
    });
  });

  it('stores, returns and filters a __proto__ key like any other', async () => {
    const body = JSON.stringify({ proto: run }).replace('"proto"', '"__proto__"');
    expect(
      (await api(`/recordings/${made.b1}/metadata`, { method: 'POST', key: secret(), headers: { 'content-type': 'application/json' }, body })).status,
    ).toBe(200);
    const r = await pollUntil(
      () => list(`metadata[__proto__]=${run}`),
      (x) => ids(x).length === 1,
      20_000,
    );
    expect(ids(r)).toEqual([made.b1]);
    expect(Object.keys(r.json().recordings[0].metadata)).toContain('__proto__');
    for (const key of ['constructor', 'toString']) expect(ids(await list(`metadata[run]=${run}&metadata[${key}]=x`))).toEqual([]);
  });

  it('matches the latest written value of a key only', async () => {
    expect((await attach(made.a2, { plan: 'pro' }, secret())).status).toBe(200);
    await pollUntil(
      () => list(q({ run, plan: 'pro' })),
      (r) => ids(r).includes(made.a2),
      20_000,
    );
    expect(ids(await list(q({ run, plan: 'free' })))).toEqual([]);
    expect(ids(await list(q({ run, plan: 'pro' })))).toEqual([made.b1, made.a2, made.a1]);
  });

  it('pages stably: ties in first event time are ordered by recording id, pages neither repeat nor skip', async () => {
    const tie = `${run}-tie`;
    const start = base + 10_000;
    const tied = await Promise.all(Array.from({ length: 7 }, (_, i) => record(start + (i % 3) * 1000, 3, { tie })));
    const all = ids(await listed(q({ tie }), 7));
    const expected = tied
      .map((id, i) => ({ id, t: start + (i % 3) * 1000 }))
      .sort((x, y) => y.t - x.t || (x.id < y.id ? 1 : -1))
      .map((x) => x.id);
    expect(all).toEqual(expected);
    const paged: string[] = [];
    for (let offset = 0; offset < 8; offset += 2) {
      const r = await list(`${q({ tie })}&limit=2&offset=${offset}`);
      expect(r.json()).toMatchObject({ limit: 2, offset, hasMore: offset + 2 < 7 });
      paged.push(...ids(r));
    }
    expect(paged).toEqual(expected);
    expect(ids(await list(`${q({ tie })}&offset=7`))).toEqual([]);
  });

  it.each([
    ['limit=0', /limit: must be at least 1/, 'json'],
    ['limit=101', /limit: must be at most 100/, 'json'],
    ['limit=ten', /limit: must be an integer/, 'json'],
    ['limit=1&limit=2', /limit: must be given once/, 'json'],
    ['offset=-1', /offset: must be at least 0/, 'json'],
    ['offset=1.5', /offset: must be an integer/, 'json'],
    ['includeSignedUrls=maybe', /includeSignedUrls: must be true or false/, 'json'],
    // Every metadata filter refusal is the JSON of every other query validation error, naming the parameter.
    ['metadata[a]=1&metadata[a]=2', /"path":"metadata\[a\]","message":"metadata filter \\"a\\" is given more than once"/, 'json'],
    ['metadata[a]=1&meta[a]=1', /"path":"meta\[a\]","message":"metadata filter \\"a\\" is given more than once"/, 'json'],
    ['metadata[]=1', /"path":"metadata\[\]","message":"the metadata key is empty/, 'json'],
    ['metadata=1', /"path":"metadata","message":"not a metadata filter; use metadata\[<key>\]=<value>"/, 'json'],
    ['meta=1', /"path":"meta","message":"not a metadata filter; use meta\[<key>\]=<value>"/, 'json'],
    [`metadata[${'k'.repeat(201)}]=1`, /1-200 characters/, 'json'],
    [`metadata[k]=${'v'.repeat(4097)}`, /at most 4096/, 'json'],
    ['metadata[plan]=%FF', /not valid UTF-8 \(at %FF\)/, 'text'],
    ['metadata[%C3]=x', /not valid UTF-8/, 'text'],
    // Malformed filter parameters once were ignored: 200 with every recording.
    ['metadata[plan=pro', /"path":"metadata\[plan","message":"not a metadata filter; use metadata\[<key>\]=<value>"/, 'json'],
    ['metadata.plan=pro', /"path":"metadata\.plan","message":"not a metadata filter/, 'json'],
    ['meta[plan=pro&metadata[run]=x', /"path":"meta\[plan","message":"not a metadata filter; use meta\[<key>\]=<value>"/, 'json'],
    // So were unknown parameters, a filter by a recording's field among them.
    [
      'firstUrl=https%3A%2F%2Fexample.test%2F10',
      /"message":"Invalid query: firstUrl: unknown parameter; this endpoint takes limit, offset, includeSignedUrls, live, startedAfter, startedBefore, visitedUrl, [^"]*, maxActiveTime, metadata\[<key>\]=<value>"/,
      'json',
    ],
    ['limit=5&sort=asc&metadataX=1', /"issues":\[\{"path":"sort","message":"unknown parameter;[^"]*"\},\{"path":"metadataX",/, 'json'],
  ])('answers 400 for %s', async (query, message, kind) => {
    const r = await list(query);
    expect(r.status).toBe(400);
    expect(r.text).toMatch(message);
    expect(r.headers.get('content-type')).toMatch(kind === 'json' ? /application\/json/ : /text\/plain/);
  });

  it("takes a presigned link's parameters and a token beside the private key, as authentication reads them", async () => {
    const r = await list(q({ run }, '&limit=100&tenantId=t&expires=1&keyId=k&signature=00&token=x'));
    expect(r.status).toBe(200);
    expect(ids(r)).toEqual(ids(await list(q({ run }, '&limit=100'))));
    expect(ids(r).length).toBeGreaterThanOrEqual(4);
  });

  it('needs the private key', async () => {
    expect((await list(q({ run }), testEnv().publicKey)).status).toBe(401);
    expect((await api(`/recordings?${q({ run })}`)).status).toBe(401);
  });

  describe('tenants', () => {
    let other: TenantCreds;
    let theirs: string;

    beforeAll(async () => {
      other = await createTenant('listing');
      theirs = await record(base + 5000, 4, { team: 'a' }, other.publicKey);
      await listed(q({ run }), 1, other.secretKey);
    });

    it('sees only its own recordings, with the same filters', async () => {
      expect(ids(await list(q({ run }), other.secretKey))).toEqual([theirs]);
      expect(ids(await list(q({ run, team: 'a' }), other.secretKey))).toEqual([theirs]);
      expect(ids(await list(q({ run, team: 'a' })))).toEqual([made.a2, made.a1]);
      expect(ids(await list(q({ run })))).not.toContain(theirs);
    });

    it("answers 404 for another tenant's recording", async () => {
      expect((await api(`/recordings/${theirs}`, { key: secret() })).status).toBe(404);
      expect((await api(`/recordings/${made.a1}`, { key: other.secretKey })).status).toBe(404);
    });

    it("signs with a new tenant's default key, and answers 400 to includeSignedUrls once no signing key is left", async () => {
      const tenantId = `nosign_${randomUUID().slice(0, 8)}`;
      expect((await admin('POST', '/tenants', { id: tenantId })).status).toBe(201);
      const key = (await admin('POST', `/tenants/${tenantId}/keys`, { kind: 'secret' })).json().key as string;
      const signed = await pollUntil(
        () => list('includeSignedUrls=true', key),
        (x) => x.status !== 401,
        10_000,
      );
      expect([signed.status, signed.json().signedUrlsExpireAt]).toEqual([200, expect.any(Number)]);
      expect((await admin('DELETE', `/tenants/${tenantId}/signing-keys/default`)).status).toBe(204);
      const r = await pollUntil(
        () => list('includeSignedUrls=true', key),
        (x) => x.status !== 200,
        5_000,
      );
      expect(r.status).toBe(400);
      expect(r.headers.get('content-type')).toMatch(/text\/plain/);
      expect(r.text).toMatch(/need a signing key/);
      expect((await list('includeSignedUrls=false', key)).json()).toEqual({ recordings: [], limit: 50, offset: 0, hasMore: false });
      // The replay listing says the same, also for an empty page.
      const replays = await api('/replays/sessionId?includeSignedUrls=true', { key });
      expect(replays.status).toBe(400);
      expect(replays.text).toMatch(/need a signing key/);
      expect((await api('/replays/sessionId', { key })).json()).toMatchObject({ replays: [], hasMore: false });
    });
  });
});

describe('GET /recordings/{id}', () => {
  it('answers at once after ingestion (projected false until the projection has it), then the full summary', async () => {
    const id = randomUUID();
    const start = Date.now() - 5000;
    expect((await postEvents(id, sampleEvents(12, start))).status).toBe(200);
    const first = await api(`/recordings/${id}`, { key: secret() });
    expect(first.status).toBe(200);
    const early = first.json();
    if (!early.projected) expect(early).toMatchObject({ recordingId: id, timestamp: null, startedAt: null, eventCount: 0, metadata: {}, viewport: null });
    const r = await pollUntil(
      () => api(`/recordings/${id}`, { key: secret() }),
      (x) => x.json().projected === true && x.json().eventCount === 12,
      20_000,
    );
    expect(r.json()).toMatchObject({
      recordingId: id,
      projected: true,
      timestamp: start,
      startedAt: start,
      endedAt: start + 11,
      eventCount: 12,
      pageViews: 1,
      viewport: { width: 1024, height: 768 },
      links: { self: `/recordings/${id}` },
    });
  });

  it('answers 404 for an unknown recording and 400 for a bad id', async () => {
    const r = await api(`/recordings/${randomUUID()}`, { key: secret() });
    expect(r.status).toBe(404);
    expect(r.headers.get('content-type')).toMatch(/text\/plain/);
    expect((await api('/recordings/not-a-uuid', { key: secret() })).status).toBe(400);
  });

  it('does not list or show a deleted recording', async () => {
    const id = await record(Date.now() - 10_000, 3, { gone: run });
    await listed(q({ gone: run }), 1);
    expect((await api(`/recordings/${id}`, { method: 'DELETE', key: secret() })).status).toBe(204);
    await listed(q({ gone: run }), 0);
    await pollUntil(
      () => api(`/recordings/${id}`, { key: secret() }),
      (x) => x.status === 404,
      20_000,
    );
  });

  it('races DELETEs of one recording with reads of it: 204, 404 or a whole 200, never a 5xx or a mislabelled body', async () => {
    const id = randomUUID();
    const start = Date.now() - 60_000;
    // Small enough to be the events response's first chunk (~128 KiB), which is read before the status
    // is sent: a larger body a deletion overtakes after that is cut short (docs/reliability.md).
    for (let i = 0; i < 30; i++) expect((await postEvents(id, sampleEvents(22, start + i * 100).slice(2))).status).toBe(200);
    const read = async (path: string) => {
      // fetch takes gzip and decodes it: a body labelled gzip that is not would throw here.
      const r = await fetch(`${testEnv().baseUrl}${path}`, { headers: { authorization: `Bearer ${secret()}`, 'accept-encoding': 'gzip' } });
      const text = await r.text();
      if (r.status === 200 && path.endsWith('/events')) expect(JSON.parse(text)).toHaveLength(30 * 20);
      return r.status;
    };
    const del = async () => (await api(`/recordings/${id}`, { method: 'DELETE', key: secret() })).status;
    const statuses = await Promise.all([
      read(`/recordings/${id}/events`),
      del(),
      read(`/recordings/${id}/events`),
      read(`/recordings/${id}`),
      del(),
      read(`/recordings/${id}/events`),
      read(`/recordings/${id}`),
      del(),
      read(`/recordings/${id}/events`),
    ]);
    for (const [i, status] of statuses.entries()) expect([i % 3 === 1 ? 204 : 200, 404]).toContain(status);
    expect(statuses.filter((s) => s === 204).length).toBeGreaterThanOrEqual(1);
    expect((await api(`/recordings/${id}/events`, { key: secret() })).status).toBe(404);
  });
});
