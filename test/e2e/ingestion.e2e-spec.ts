import { randomUUID } from 'node:crypto';
import { request } from 'node:http';
import { brotliCompressSync, deflateRawSync, deflateSync, gunzipSync, gzipSync } from 'node:zlib';
import WebSocket from 'ws';
import { api, postEvents, rawGet, sampleEvents } from '../harness/http';
import { testEnv } from '../harness/env';
import { pollUntil } from '../harness/poll-until';
import { typesOf } from '../../src/metrics/testing/prometheus-text';

const readEvents = async (id: string) => {
  const r = await api(`/recordings/${id}/events`, { key: testEnv().secretKey });
  return r;
};

/** Stored events as they were sent: without the originalTimestamp reads add. */
const readEventsWithout = (r: Awaited<ReturnType<typeof readEvents>>) => r.json<Record<string, unknown>[]>().map(({ originalTimestamp: _, ...e }) => e);

describe('HTTP ingestion', () => {
  it('stores a JSON batch and acknowledges with a body', async () => {
    const id = randomUUID();
    const r = await postEvents(id, sampleEvents(20));
    expect(r.status).toBe(200);
    expect(r.json()).toMatchObject({ recordingId: id, events: 20, duplicate: false });
  });

  it('gives a client asking to go ahead first (Expect: 100-continue, as curl does above 1 MiB) its 100 Continue, then stores the batch', async () => {
    const id = randomUUID();
    const body = Buffer.from(JSON.stringify(sampleEvents(20)));
    const url = new URL(testEnv().baseUrl);
    const r = await new Promise<{ status: number; continued: boolean; text: string }>((resolve, reject) => {
      let continued = false;
      const req = request(
        {
          host: url.hostname,
          port: url.port,
          path: `/recordings/${id}/events`,
          method: 'POST',
          headers: {
            authorization: `Bearer ${testEnv().publicKey}`,
            'content-type': 'application/json',
            'content-length': body.length,
            expect: '100-continue',
          },
        },
        (res) => {
          let text = '';
          res.on('data', (c: Buffer) => (text += c.toString()));
          res.on('end', () => resolve({ status: res.statusCode!, continued, text }));
        },
      );
      req.on('continue', () => ((continued = true), req.end(body)));
      req.on('error', reject);
      req.flushHeaders();
    });
    expect(r).toMatchObject({ status: 200, continued: true });
    expect(JSON.parse(r.text)).toMatchObject({ recordingId: id, events: 20, duplicate: false });
  });

  it('de-duplicates a retried batch, by content and by Idempotency-Key', async () => {
    const id = randomUUID();
    const events = sampleEvents(10);
    expect((await postEvents(id, events)).json().duplicate).toBe(false);
    expect((await postEvents(id, events)).json().duplicate).toBe(true);
    const k = { 'idempotency-key': 'batch-1' };
    const keyed = sampleEvents(5, Date.now() + 60_000);
    expect((await postEvents(id, keyed, undefined, k)).json().duplicate).toBe(false);
    expect((await postEvents(id, keyed, undefined, k)).json().duplicate).toBe(true);
    // The same events re-serialised (NDJSON, other whitespace) are the same batch.
    const nd = await api(`/recordings/${id}/events`, {
      method: 'POST',
      key: testEnv().publicKey,
      headers: { 'content-type': 'application/x-ndjson', ...k },
      body: keyed.map((e) => JSON.stringify(e, null, 0)).join('\n\n'),
    });
    expect(nd.status).toBe(200);
    expect(nd.json().duplicate).toBe(true);
    expect(readEventsWithout(await readEvents(id))).toEqual([...events, ...keyed]);
  });

  it('refuses a used Idempotency-Key with other events (422) and stores nothing of them', async () => {
    const id = randomUUID();
    const k = { 'idempotency-key': 'reused-key' };
    const first = sampleEvents(5, 1);
    expect((await postEvents(id, first, undefined, k)).status).toBe(200);
    const other = await postEvents(id, sampleEvents(5, 2), undefined, k);
    expect(other.status).toBe(422);
    expect(other.text).toMatch(/Idempotency-Key .*used before .*different batch of events; nothing was stored/);
    // The key is per recording: another recording may use it for its own data.
    expect((await postEvents(randomUUID(), sampleEvents(5, 2), undefined, k)).status).toBe(200);
    // A WebSocket batch frame reusing the key as its batch id gets an error frame with the status.
    const ws = new WebSocket(`${testEnv().baseUrl.replace(/^http/, 'ws')}/recordings/${id}/events/ws?token=${testEnv().publicKey}`);
    await new Promise((resolve, reject) => (ws.once('open', resolve), ws.once('error', reject)));
    const reply = new Promise<Record<string, unknown>>((resolve) => ws.once('message', (m) => resolve(JSON.parse(String(m)))));
    ws.send(JSON.stringify({ type: 'batch', batch: 'reused-key', events: sampleEvents(3, 3) }));
    expect(await reply).toMatchObject({ type: 'error', status: 422, batch: 'reused-key' });
    ws.close();
    expect(readEventsWithout(await readEvents(id))).toEqual(first);
  });

  it('projects in-band metadata holding a lone surrogate (as U+FFFD) instead of stalling the projector', async () => {
    // ClickHouse refuses such a string; the insert that failed also carried every other tenant's rows.
    const id = randomUUID();
    const batch = [
      { type: 4, timestamp: 1_795_000_000_000, data: { href: 'https://e.test/\ud800', width: 800, height: 600 } },
      { type: 5, timestamp: 1_795_000_000_001, data: { tag: 'recording-meta', payload: { domain: 'e.test', bad: 'x\ud800' } } },
      { type: 3, timestamp: 1_795_000_000_002, data: {} },
    ];
    expect((await postEvents(id, batch)).status).toBe(200);
    const detail = await pollUntil(
      async () => (await api(`/recordings/${id}`, { key: testEnv().secretKey })).json(),
      (d) => d?.projected === true && d?.metadata?.bad !== undefined,
      30_000,
    );
    expect(detail.metadata).toMatchObject({ domain: 'e.test', bad: 'x\ufffd' });
    // A long, valid value is cut before an emoji that straddles the limit, not refused as invalid.
    const long = 'a'.repeat(4095) + '\u{1F600}' + 'b'.repeat(10);
    const r = await api(`/recordings/${id}/metadata`, {
      method: 'POST',
      key: testEnv().publicKey,
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ long }),
    });
    expect(r.status).toBe(200);
    await pollUntil(
      async () => (await api(`/recordings/${id}`, { key: testEnv().secretKey })).json(),
      (d) => d?.metadata?.long === 'a'.repeat(4095),
      30_000,
    );
  });

  it('stores a batch above max_payload whose summary is large (events over 3000 minutes) and reads it back', async () => {
    // The summary header rides on the first message: it used to push that message over max_payload,
    // and the batch was answered 503 at every retry.
    const id = randomUUID();
    const events = Array.from({ length: 3000 }, (_, i) => ({ type: 3, timestamp: 1_700_000_000_000 + i * 60_000, data: { source: 1, pad: 'x'.repeat(500) } }));
    const r = await postEvents(id, events);
    expect([r.status, r.text.slice(0, 200)]).toEqual([200, expect.stringContaining('"duplicate":false')]);
    expect(readEventsWithout(await readEvents(id))).toEqual(events);
  });

  it('refuses a batch whose in-band metadata cannot be stored with it (413, not a 503 forever)', async () => {
    const payload: Record<string, string> = {};
    for (let i = 0; i < 300; i++) payload[`k${i}`] = 'é'.repeat(4000);
    const r = await postEvents(randomUUID(), [
      { type: 5, timestamp: 1, data: { tag: 'recording-meta', payload } },
      { type: 3, timestamp: 2, data: {} },
    ]);
    expect([r.status, r.text]).toEqual([
      413,
      expect.stringMatching(/summary is \d+ bytes, above the \d+ .*in-band metadata.*POST \/recordings\/\{recordingId\}\/metadata/),
    ]);
  });

  it('compares a keyed batch stored in chunks (above max_payload) as a whole', async () => {
    const id = randomUUID();
    const k = { 'idempotency-key': 'big-1' };
    const big = (fill: string) => [{ type: 5, timestamp: 1_700_000_000_000, data: { tag: 'blob', payload: { text: fill.repeat(2_500_000) } } }];
    expect((await postEvents(id, big('a'), undefined, k)).json().duplicate).toBe(false);
    expect((await postEvents(id, big('a'), undefined, k)).json().duplicate).toBe(true);
    expect((await postEvents(id, big('b'), undefined, k)).status).toBe(422);
  });

  it('refuses a used Idempotency-Key with other metadata (422) and keeps what it stored', async () => {
    const id = randomUUID();
    const k = { 'idempotency-key': 'meta-1' };
    const write = (body: unknown) =>
      api(`/recordings/${id}/metadata`, {
        method: 'POST',
        key: testEnv().publicKey,
        headers: { 'content-type': 'application/json', ...k },
        body: JSON.stringify(body),
      });
    expect((await postEvents(id, sampleEvents(2))).status).toBe(200);
    expect((await write({ plan: 'pro', seats: 3 })).json().duplicate).toBe(false);
    expect((await write({ plan: 'pro', seats: '3' })).json().duplicate).toBe(true); // the same values, as stored
    const other = await write({ plan: 'free' });
    expect(other.status).toBe(422);
    expect(other.text).toMatch(/different metadata write/);
    await pollUntil(
      async () => (await api(`/recordings/${id}`, { key: testEnv().secretKey })).json(),
      (d) => d?.metadata?.plan === 'pro',
    );
    expect((await api(`/recordings/${id}`, { key: testEnv().secretKey })).json().metadata).toMatchObject({ plan: 'pro', seats: '3' });
  });

  it('accepts NDJSON and gzip, and the /ingest alias', async () => {
    const id = randomUUID();
    const nd =
      sampleEvents(5)
        .map((e) => JSON.stringify(e))
        .join('\n') + '\n';
    const r1 = await api(`/recordings/${id}/ingest`, {
      method: 'POST',
      key: testEnv().publicKey,
      headers: { 'content-type': 'application/x-ndjson', 'content-encoding': 'gzip' },
      body: gzipSync(nd),
    });
    expect(r1.status).toBe(200);
    expect(r1.json().events).toBe(5);
  });

  it.each([
    ['x-gzip', gzipSync],
    ['deflate', deflateSync],
    ['deflate', deflateRawSync],
    ['br', brotliCompressSync],
  ])('accepts a body with Content-Encoding %s and reads it back', async (coding, compress) => {
    const id = randomUUID();
    const events = sampleEvents(8);
    const r = await api(`/recordings/${id}/events`, {
      method: 'POST',
      key: testEnv().publicKey,
      headers: { 'content-type': 'application/x-ndjson', 'content-encoding': coding },
      body: compress(events.map((e) => JSON.stringify(e)).join('\n')),
    });
    expect(r.status).toBe(200);
    expect(readEventsWithout(await readEvents(id))).toEqual(events);
  });

  it('refuses an unknown Content-Encoding with a 415 naming the supported ones, and bytes not of the coding with a 400', async () => {
    const post = (coding: string, body: string | Buffer) =>
      api(`/recordings/${randomUUID()}/events`, {
        method: 'POST',
        key: testEnv().publicKey,
        headers: { 'content-type': 'application/json', 'content-encoding': coding },
        body,
      });
    const unknown = await post('compress', JSON.stringify(sampleEvents(2)));
    expect(unknown.status).toBe(415);
    expect(unknown.text).toMatch(/identity, gzip, x-gzip, deflate, br/);
    const notBrotli = await post('br', JSON.stringify(sampleEvents(2)));
    expect(notBrotli.status).toBe(400);
    expect(notBrotli.text).toBe('Body is not valid br data');
  });

  it('refuses a body of another Content-Type, or of none, with a 415 that names what was sent and what is accepted', async () => {
    const post = (headers: Record<string, string>) =>
      api(`/recordings/${randomUUID()}/events`, { method: 'POST', key: testEnv().publicKey, headers, body: JSON.stringify(sampleEvents(2)) });
    const xml = await post({ 'content-type': 'application/xml' });
    expect(xml.status).toBe(415);
    expect(xml.text).toBe(
      'Unsupported Content-Type "application/xml": send application/json (event ingestion also takes application/x-ndjson, application/ndjson or text/plain)',
    );
    const none = await post({ 'content-type': '' });
    expect(none.status).toBe(415);
    expect(none.text).toMatch(/^Unsupported Content-Type \(none sent\): send application\/json/);
  });

  it.each([
    ['malformed JSON', '[{"type":1', 'application/json', /not valid JSON/],
    ['an empty array', '[]', 'application/json', /empty/],
    ['a missing data object', '[{"type":3,"timestamp":1}]', 'application/json', /index 0.*data/],
    ['a float timestamp at index 1', '[{"type":3,"timestamp":1,"data":{}},{"type":3,"timestamp":1.5,"data":{}}]', 'application/json', /index 1.*timestamp/],
    ['a bad NDJSON line', '{"type":3,"timestamp":1,"data":{}}\n{"type":"x","timestamp":1,"data":{}}', 'application/x-ndjson', /line 2/],
  ])('refuses %s with a 400 naming the problem', async (_name, body, ct, msg) => {
    const r = await api(`/recordings/${randomUUID()}/events`, { method: 'POST', key: testEnv().publicKey, headers: { 'content-type': ct }, body });
    expect(r.status).toBe(400);
    expect(r.text).toMatch(msg);
  });

  it('refuses a bad recording id, bad keys and missing keys', async () => {
    expect((await postEvents('not-a-uuid', sampleEvents(2))).status).toBe(400);
    expect((await postEvents(randomUUID(), sampleEvents(2), 'public_key_svc_nope_nope_nope_nope')).status).toBe(401);
    const r = await api(`/recordings/${randomUUID()}/events`, { method: 'POST', body: '[]', headers: { 'content-type': 'application/json' } });
    expect(r.status).toBe(401);
    expect(r.headers.get('content-type')).toMatch(/text\/plain/);
  });

  it("takes the recording id from ?recordingId= on /, /events and /ingest (rrweb clients' serverUrl without {recordingId})", async () => {
    const post = (path: string, events: unknown) =>
      api(path, { method: 'POST', key: testEnv().publicKey, body: JSON.stringify(events), headers: { 'content-type': 'application/json' } });
    const id = randomUUID();
    const events = sampleEvents(6);
    expect((await post(`/?recordingId=${id}`, events.slice(0, 2))).json()).toMatchObject({ recordingId: id, events: 2 });
    expect((await post(`/events?recordingId=${id.toUpperCase()}`, events.slice(2, 4))).json()).toMatchObject({ recordingId: id, events: 2 });
    expect((await post(`/ingest?recordingId=${id}`, events.slice(4))).status).toBe(200);
    expect(readEventsWithout(await readEvents(id))).toEqual(events);

    const missing = await post('/events', events);
    expect(missing.status).toBe(400);
    expect(missing.json().message).toMatch(/Invalid recordingId: required/);
    expect((await post('/ingest?recordingId=nope', events)).json().message).toMatch(/recordingId: must be a UUID/);
    expect((await post(`/other?recordingId=${id}`, events)).status).toBe(404);
    expect((await api(`/events?recordingId=${id}`, { method: 'POST', body: '[]', headers: { 'content-type': 'application/json' } })).status).toBe(401);
  });

  it('answers 413 for an oversized gzip bomb', async () => {
    const huge = gzipSync(Buffer.alloc(80 * 1024 * 1024, 0x20));
    const r = await api(`/recordings/${randomUUID()}/events`, {
      method: 'POST',
      key: testEnv().publicKey,
      headers: { 'content-type': 'application/json', 'content-encoding': 'gzip' },
      body: huge,
    });
    expect(r.status).toBe(413);
  });

  it('stores a 16 MB event and reads it back equal', async () => {
    const id = randomUUID();
    const big = { type: 2, timestamp: Date.now(), data: { node: { type: 0, id: 1, childNodes: [] }, blob: 'x'.repeat(16 * 1024 * 1024) } };
    const events = [{ type: 4, timestamp: big.timestamp - 1, data: { href: 'https://e.test', width: 800, height: 600 } }, big];
    const r = await postEvents(id, events, testEnv().publicKey);
    expect(r.status).toBe(200);
    const back = await readEvents(id);
    expect(back.status).toBe(200);
    const got = back.json<Record<string, unknown>[]>();
    expect(got).toHaveLength(2);
    const { originalTimestamp, ...rest } = got[1];
    expect(originalTimestamp).toBe(big.timestamp);
    expect(JSON.stringify(rest)).toBe(JSON.stringify(big));
  });

  it('exports the monotonic *_total series on /metrics as TYPE counter, with the ingestion counts', async () => {
    await postEvents(randomUUID(), sampleEvents(3));
    const text = (await api('/metrics')).text;
    const types = typesOf(text);
    expect(Number(/^tapedeck_ingest_events_total (\S+)$/m.exec(text)?.[1])).toBeGreaterThanOrEqual(3);
    // prom-client's own nodejs_active_*_total count what is open now: gauges despite the name.
    const totals = Object.entries(types).filter(([name]) => name.endsWith('_total') && !/^tapedeck_nodejs_active_\w+_total$/.test(name));
    expect(totals.map(([name]) => name)).toEqual(
      expect.arrayContaining(['tapedeck_ingest_events_total', 'tapedeck_projection_messages_total', 'tapedeck_render_total']),
    );
    expect(totals.filter(([, type]) => type !== 'counter')).toEqual([]);
    expect(types).toMatchObject({ tapedeck_ws_connections: 'gauge', tapedeck_render_in_flight: 'gauge', tapedeck_projection_lag_seconds: 'gauge' });
  });
});

describe('event reads over the wire', () => {
  /** A GET with exactly these headers and the secret key (rawGet: the bytes as sent). */
  const authGet = (path: string, headers: Record<string, string>) => rawGet(path, { authorization: `Bearer ${testEnv().secretKey}`, ...headers });

  it('are gzip-compressed for a client that takes gzip, and plain otherwise', async () => {
    const id = randomUUID();
    const events = Array.from({ length: 400 }, (_, i) => ({
      type: 3,
      timestamp: 1_700_000_000_000 + i,
      data: { source: 1, positions: [{ x: i, y: i, id: 1, timeOffset: 0 }] },
    }));
    expect((await postEvents(id, events)).status).toBe(200);
    const plain = await authGet(`/recordings/${id}/events`, {});
    expect([plain.status, plain.headers['content-encoding'], plain.headers.vary]).toEqual([200, undefined, expect.stringMatching(/Accept-Encoding/)]);
    const zipped = await authGet(`/recordings/${id}/events`, { 'accept-encoding': 'gzip, deflate, br, zstd' });
    expect([zipped.status, zipped.headers['content-encoding']]).toEqual([200, 'gzip']);
    expect(gunzipSync(zipped.body).equals(plain.body)).toBe(true);
    expect(zipped.body.length).toBeLessThan(plain.body.length / 4);
    const refused = await authGet(`/recordings/${id}/events`, { 'accept-encoding': 'gzip;q=0, br' });
    expect(refused.headers['content-encoding']).toBeUndefined();
    expect(refused.body.equals(plain.body)).toBe(true);
  });
});

describe('WebSocket ingestion with compressed frames', () => {
  const open = (id: string, query: string) =>
    new WebSocket(`${testEnv().baseUrl.replace(/^http/, 'ws')}/recordings/${id}/events/ws?token=${testEnv().publicKey}&${query}`);

  it('counts refused upgrades and error frames on /metrics by status', async () => {
    const refused = async (kind: string, status: number) => {
      const text = (await api('/metrics')).text;
      return Number(new RegExp(`^tapedeck_ws_refused_total\\{kind="${kind}",status="${status}"\\} (\\S+)$`, 'm').exec(text)?.[1] ?? 0);
    };
    const before = { upgrade: await refused('upgrade', 401), frame: await refused('frame', 400) };
    const denied = new WebSocket(`${testEnv().baseUrl.replace(/^http/, 'ws')}/recordings/${randomUUID()}/events/ws?token=public_key_svc_nope_nope_nope_nope`);
    await new Promise((resolve) => denied.once('error', resolve));
    const ws = open(randomUUID(), '');
    await new Promise((resolve, reject) => (ws.once('open', resolve), ws.once('error', reject)));
    const reply = new Promise<Record<string, unknown>>((resolve) => ws.once('message', (m) => resolve(JSON.parse(String(m)))));
    ws.send(JSON.stringify({ type: 'batch', batch: 'b1', events: [{ type: 'x' }] }));
    expect(await reply).toMatchObject({ type: 'error', status: 400 });
    ws.close();
    expect(await refused('upgrade', 401)).toBeGreaterThanOrEqual(before.upgrade + 1);
    expect(await refused('frame', 400)).toBeGreaterThanOrEqual(before.frame + 1);
    expect(typesOf((await api('/metrics')).text).tapedeck_ws_refused_total).toBe('counter');
  });

  it('decodes binary frames of the contentEncoding (brotli, a JSON array) and reports the flush', async () => {
    const id = randomUUID();
    const events = sampleEvents(12);
    const ws = open(id, 'contentType=application/json&contentEncoding=br');
    const frame = new Promise<Record<string, unknown>>((resolve, reject) => {
      ws.once('message', (m) => resolve(JSON.parse(String(m))));
      ws.once('error', reject);
    });
    await new Promise((resolve, reject) => (ws.once('open', resolve), ws.once('error', reject)));
    ws.send(brotliCompressSync(JSON.stringify(events.slice(0, 6))));
    ws.send(brotliCompressSync(JSON.stringify(events.slice(6))));
    expect(await frame).toMatchObject({ type: 'upstream-result', ok: true, status: 204, events: 12 });
    ws.close();
    expect(readEventsWithout(await readEvents(id))).toEqual(events);
  });

  it('takes the recording id from ?recordingId= on /, /ws, /events/ws and /ingest/ws, and refuses the upgrade without one', async () => {
    const base = testEnv().baseUrl.replace(/^http/, 'ws');
    const id = randomUUID();
    const events = sampleEvents(8);
    for (const [i, path] of ['/', '/ws', '/events/ws', '/ingest/ws/'].entries()) {
      const ws = new WebSocket(`${base}${path}?recordingId=${id}&token=${testEnv().publicKey}`);
      const frame = new Promise<Record<string, unknown>>(
        (resolve, reject) => (ws.once('message', (m) => resolve(JSON.parse(String(m)))), ws.once('error', reject)),
      );
      await new Promise((resolve, reject) => (ws.once('open', resolve), ws.once('error', reject)));
      for (const e of events.slice(i * 2, i * 2 + 2)) ws.send(JSON.stringify(e));
      expect(await frame).toMatchObject({ type: 'upstream-result', ok: true, events: 2 });
      ws.close();
    }
    expect(readEventsWithout(await readEvents(id))).toEqual(events);

    const refused = (url: string) => {
      const ws = new WebSocket(url);
      return new Promise<number>((resolve) => ws.once('unexpected-response', (_req, res) => resolve(res.statusCode ?? 0)));
    };
    expect(await refused(`${base}/events/ws?token=${testEnv().publicKey}`)).toBe(400);
    expect(await refused(`${base}/ws?recordingId=nope&token=${testEnv().publicKey}`)).toBe(400);
    expect(await refused(`${base}/events?recordingId=${id}&token=${testEnv().publicKey}`)).toBe(404);
    expect(await refused(`${base}/ws?recordingId=${id}`)).toBe(401);
  });

  it('with debug=true, echoes what it decoded and stored as NDJSON before the upstream-result', async () => {
    const id = randomUUID();
    const events = sampleEvents(5);
    const ws = open(id, 'contentEncoding=gzip&debug=true');
    const frames: string[] = [];
    const two = new Promise<void>((resolve, reject) => {
      ws.on('message', (m) => frames.push(String(m)) === 2 && resolve());
      ws.once('error', reject);
    });
    await new Promise((resolve, reject) => (ws.once('open', resolve), ws.once('error', reject)));
    ws.send(gzipSync(events.map((e) => JSON.stringify(e)).join('\n')));
    await two;
    ws.close();
    expect(frames[0].split('\n').map((l) => JSON.parse(l))).toEqual(events);
    expect(JSON.parse(frames[1])).toMatchObject({ type: 'upstream-result', ok: true, events: 5 });
  });

  it('refuses an unknown contentEncoding at the upgrade with a 400', async () => {
    const ws = open(randomUUID(), 'contentEncoding=compress');
    const status = await new Promise<number>((resolve) => ws.once('unexpected-response', (_req, res) => resolve(res.statusCode ?? 0)));
    expect(status).toBe(400);
  });
});

describe('WebSocket batch frames and upgrades', () => {
  const upgradeStatus = (query: string) =>
    new Promise<number>((resolve, reject) => {
      const ws = new WebSocket(`${testEnv().baseUrl.replace(/^http/, 'ws')}/recordings/${randomUUID()}/events/ws?${query}`);
      ws.once('open', () => (ws.close(), resolve(101)));
      ws.once('unexpected-response', (_req, res) => resolve(res.statusCode ?? 0));
      ws.once('error', reject);
    });

  it('reads a query string as HTTP does: not UTF-8 is 400, contentType and the like count by their first value', async () => {
    const pub = testEnv().publicKey;
    expect(await upgradeStatus(`token=${pub}&x=%FC`)).toBe(400);
    expect(
      (await api(`/recordings/${randomUUID()}/events?x=%FC`, { method: 'POST', key: pub, headers: { 'content-type': 'application/json' }, body: '[]' })).status,
    ).toBe(400);
    expect(await upgradeStatus(`token=${pub}&contentType=application/json&contentType=text/html`)).toBe(101);
  });

  it('stores what a frame with a repeated key means (its last value, as validated), and the recording stays readable', async () => {
    const id = randomUUID();
    const ws = new WebSocket(`${testEnv().baseUrl.replace(/^http/, 'ws')}/recordings/${id}/events/ws?token=${testEnv().publicKey}`);
    const replies: Record<string, unknown>[] = [];
    ws.on('message', (m) => replies.push(JSON.parse(String(m))));
    await new Promise((resolve, reject) => (ws.once('open', resolve), ws.once('error', reject)));
    const start = Date.now();
    const [a, b, c] = [sampleEvents(3, start), sampleEvents(3, start + 1000).slice(2), sampleEvents(3, start + 2000).slice(2)];
    const bad = '[{"type":"not-an-int","timestamp":"x","data":null}]';
    // JSON.parse keeps a repeated key's last value; the first "events" array was never validated.
    ws.send(`{"type":"batch","batch":"dup-events","events":${bad},"events":${JSON.stringify(a)}}`);
    ws.send(`{"type":"batch","batch":"dup-batch","events":${JSON.stringify(b)},"batch":"dup-batch-2"}`);
    ws.send(`{"type":"batch","batch":"dup-type","events":${JSON.stringify(c)},"type":"batch"}`);
    await pollUntil(
      async () => replies.length,
      (n) => n >= 3,
      10_000,
    );
    ws.close();
    expect(replies).toEqual([
      { type: 'ack', batch: 'dup-events', events: 3, duplicate: false },
      { type: 'ack', batch: 'dup-batch-2', events: 1, duplicate: false },
      { type: 'ack', batch: 'dup-type', events: 1, duplicate: false },
    ]);
    const r = await readEvents(id);
    expect(r.status).toBe(200);
    expect(readEventsWithout(r)).toEqual([...a, ...b, ...c]);
  });
});

describe('the client address of includePii', () => {
  // The test's requests come from loopback, a trusted proxy by default (TRUST_PROXY): the address is
  // the rightmost X-Forwarded-For entry not on a trusted network; what a client wrote further left
  // (6.6.6.6 here) is not believed. (common/trust-proxy.spec.ts covers the other settings.)
  const xff = '6.6.6.6, 203.0.113.9';
  const meta = (id: string) => [
    { type: 5, timestamp: Date.now(), data: { tag: 'recording-meta', payload: { includePii: true, probe: id } } },
    ...sampleEvents(1),
  ];
  const metadataOf = (id: string) =>
    pollUntil(
      () => api(`/recordings/${id}`, { key: testEnv().secretKey }),
      (r) => r.status === 200 && r.json().metadata?.probe === id,
      15_000,
      100,
    ).then((r) => r.json().metadata as Record<string, string>);

  it('over HTTP is the one the trusted proxy saw, not one the client wrote', async () => {
    const id = randomUUID();
    expect((await postEvents(id, meta(id), testEnv().publicKey, { 'x-forwarded-for': xff, 'user-agent': 'probe-agent' })).status).toBe(200);
    expect(await metadataOf(id)).toMatchObject({ includePii: 'true', ipAddress: '203.0.113.9', userAgent: 'probe-agent' });
  });

  it('over WebSocket is read by the same rule', async () => {
    const id = randomUUID();
    const ws = new WebSocket(`${testEnv().baseUrl.replace(/^http/, 'ws')}/recordings/${id}/events/ws?token=${testEnv().publicKey}`, {
      headers: { 'x-forwarded-for': xff },
    });
    const frame = new Promise<Record<string, unknown>>(
      (resolve, reject) => (ws.once('message', (m) => resolve(JSON.parse(String(m)))), ws.once('error', reject)),
    );
    await new Promise((resolve, reject) => (ws.once('open', resolve), ws.once('error', reject)));
    for (const e of meta(id)) ws.send(JSON.stringify(e));
    expect(await frame).toMatchObject({ type: 'upstream-result', ok: true });
    ws.close();
    expect(await metadataOf(id)).toMatchObject({ includePii: 'true', ipAddress: '203.0.113.9' });
  });
});
