import { readFileSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
// The documented limits (docs/limits.md), each seen from the client: per-key rate limits (429 with
// Retry-After, then recovery), WebSocket connection, frame-size and heartbeat limits, request
// timeouts for slow clients, body limits, and the security headers of every kind of response.
// Two extra API instances on the shared NATS and ClickHouse carry the small limits.
import { randomUUID } from 'node:crypto';
import { connect } from 'node:net';
import { gzipSync } from 'node:zlib';
import WebSocket from 'ws';
import { api, postEvents, Res, sampleEvents } from '../harness/http';
import { testEnv } from '../harness/env';
import { pollUntil } from '../harness/poll-until';
import { ServiceProcess, startService } from '../harness/stack';

const LIMITS = {
  REQUEST_TIMEOUT_MS: 2000,
  WS_MAX_CONNECTIONS: 3,
  WS_MAX_MESSAGE_BYTES: 64 * 1024,
  WS_HEARTBEAT_MS: 1000,
  INGEST_MAX_BODY_BYTES: 8 * 1024 * 1024,
  INGEST_MAX_EVENT_BYTES: 64 * 1024,
  HSTS_MAX_AGE_SECONDS: 600,
};

let rated: ServiceProcess;
let limited: ServiceProcess;
const env = () => testEnv();

beforeAll(async () => {
  const e = env();
  const base = { ...e.serviceEnv, TAPEDECK_ROLE: 'api', LOG_LEVEL: 'warn' };
  [rated, limited] = await Promise.all([
    startService({ ...base, RATE_LIMIT_PER_SECOND: '5', RATE_LIMIT_BURST: '5' }, e.dir, 'limits-rate'),
    startService({ ...base, ...Object.fromEntries(Object.entries(LIMITS).map(([k, v]) => [k, String(v)])) }, e.dir, 'limits-small'),
  ]);
});

afterAll(async () => {
  await Promise.all([rated?.stop(), limited?.stop()]);
});

// ---------- helpers ----------

/** Sends raw bytes (optionally more, slowly) and resolves with what came back and when the server closed. */
function slowClient(base: string, head: string, trickle?: { byte: string; everyMs: number }): Promise<{ text: string; closedAfterMs: number }> {
  const { hostname, port } = new URL(base);
  const started = Date.now();
  return new Promise((resolve) => {
    const s = connect(Number(port), hostname);
    let text = '';
    const timer = trickle ? setInterval(() => s.writable && s.write(trickle.byte), trickle.everyMs) : undefined;
    const guard = setTimeout(() => s.destroy(), 20_000);
    s.on('data', (d) => (text += d.toString('latin1')));
    s.on('error', () => undefined);
    s.on('close', () => {
      clearInterval(timer);
      clearTimeout(guard);
      resolve({ text, closedAfterMs: Date.now() - started });
    });
    s.write(head);
  });
}

const wsUrl = (base: string, id: string, key = env().publicKey) => `${base.replace(/^http/, 'ws')}/recordings/${id}/events/ws?token=${key}`;

/** Opens a socket; resolves with it when open, or with the HTTP status and headers of a refused upgrade. */
function openWs(
  url: string,
  options: WebSocket.ClientOptions = {},
): Promise<{ ws?: WebSocket; status?: number; headers?: Record<string, string | string[] | undefined>; body?: string }> {
  const ws = new WebSocket(url, options);
  return new Promise((resolve, reject) => {
    ws.once('open', () => resolve({ ws }));
    ws.once('unexpected-response', (_req, res) => {
      let body = '';
      res.on('data', (d: Buffer) => (body += d));
      res.on('end', () => resolve({ status: res.statusCode, headers: res.headers, body }));
    });
    ws.once('error', (e) => reject(e));
  });
}

const closed = (ws: WebSocket) => new Promise<{ code: number; reason: string }>((r) => ws.once('close', (code, reason) => r({ code, reason: String(reason) })));
const frames = (ws: WebSocket) => {
  const list: Record<string, unknown>[] = [];
  ws.on('message', (m) => list.push(JSON.parse(String(m))));
  return list;
};

// ---------- rate limits ----------

describe('per-key rate limit (RATE_LIMIT_PER_SECOND=5, RATE_LIMIT_BURST=5)', () => {
  it('answers 429 with Retry-After once a key spent its burst, keeps other keys apart, refuses WebSocket upgrades too, and recovers', async () => {
    const id = randomUUID();
    const key = env().secretKey;
    const read = () => api(`/recordings/${id}/events`, { base: rated.url, key });
    // A burst at once: five pass (404: no such recording yet), the rest are refused.
    const burst = await Promise.all(Array.from({ length: 8 }, () => read()));
    const allowed = burst.filter((r) => r.status === 404).length;
    expect(allowed).toBeGreaterThanOrEqual(5);
    expect(allowed).toBeLessThanOrEqual(6); // a token may refill while the burst is in flight
    expect(burst.every((r) => r.status === 404 || r.status === 429)).toBe(true);
    const limited429 = burst.find((r) => r.status === 429)!;
    expect(limited429.headers.get('content-type')).toMatch(/^text\/plain/);
    expect(limited429.text).toMatch(/Rate limit exceeded/);
    const retryAfter = Number(limited429.headers.get('retry-after'));
    expect(retryAfter).toBe(1); // whole seconds, rounded up: one token comes back in 200 ms at 5/s

    // Another key has its own bucket.
    const write = await api(`/recordings/${id}/events`, {
      base: rated.url,
      method: 'POST',
      key: env().publicKey,
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(sampleEvents(3)),
    });
    expect(write.status).toBe(200);

    // The same bucket guards the WebSocket upgrade: spent (a read refused), the upgrade right after
    // is refused too. A loaded machine may refill a token (200 ms) between the two: a few tries.
    let up: Awaited<ReturnType<typeof openWs>> | undefined;
    for (let i = 0; i < 5 && up?.status !== 429; i++) {
      const spent = await Promise.all(Array.from({ length: 8 }, () => read()));
      if (spent.some((r) => r.status === 429)) up = await openWs(wsUrl(rated.url, id, key));
    }
    expect(up?.status).toBe(429);
    expect(Number(up?.headers?.['retry-after'])).toBeGreaterThanOrEqual(1);

    // After Retry-After the key works again; sustained, about RATE_LIMIT_PER_SECOND requests pass.
    await new Promise((r) => setTimeout(r, retryAfter * 1000));
    expect((await read()).status).toBe(200);
    const started = Date.now();
    const statuses: number[] = [];
    while (Date.now() - started < 2000) {
      statuses.push((await read()).status);
      await new Promise((r) => setTimeout(r, 50));
    }
    const passed = statuses.filter((s) => s === 200).length;
    expect(statuses.every((s) => s === 200 || s === 429)).toBe(true);
    expect(passed).toBeGreaterThanOrEqual(8); // ≈ 5/s over 2 s, plus what refilled meanwhile
    expect(passed).toBeLessThanOrEqual(16);
  });
});

// ---------- WebSocket limits ----------

describe('WebSocket limits', () => {
  it(`refuses the upgrade beyond WS_MAX_CONNECTIONS=${LIMITS.WS_MAX_CONNECTIONS} with 503, and accepts again once one closed`, async () => {
    const open: WebSocket[] = [];
    try {
      for (let i = 0; i < LIMITS.WS_MAX_CONNECTIONS; i++) {
        const r = await openWs(wsUrl(limited.url, randomUUID()));
        expect(r.ws).toBeDefined();
        open.push(r.ws!);
      }
      const refused = await openWs(wsUrl(limited.url, randomUUID()));
      expect(refused.status).toBe(503);
      expect(refused.body).toMatch(/Too many WebSocket connections/);
      expect(refused.headers?.['x-content-type-options']).toBe('nosniff');
      // HTTP ingestion is not affected by the WebSocket limit.
      expect(
        (
          await api(`/recordings/${randomUUID()}/events`, {
            base: limited.url,
            method: 'POST',
            key: env().publicKey,
            headers: { 'content-type': 'application/json' },
            body: JSON.stringify(sampleEvents(2)),
          })
        ).status,
      ).toBe(200);

      const gone = closed(open[0]);
      open[0].close();
      await gone;
      const again = await pollUntil(
        () => openWs(wsUrl(limited.url, randomUUID())),
        (r) => r.ws !== undefined || r.status !== 503,
        5000,
        50,
      );
      expect(again.ws).toBeDefined();
      open[0] = again.ws!;
    } finally {
      for (const ws of open) ws.terminate();
    }
  });

  it(`acks a frame below WS_MAX_MESSAGE_BYTES=${LIMITS.WS_MAX_MESSAGE_BYTES} and closes the socket with 1009 on a frame above it`, async () => {
    const id = randomUUID();
    const { ws } = await openWs(wsUrl(limited.url, id));
    const got = frames(ws!);
    const frameOf = (bytes: number, batch: string) => {
      const shell = JSON.stringify({ type: 'batch', batch, events: [{ type: 5, timestamp: 1_700_000_000_000, data: { tag: 'pad', payload: '' } }] });
      return shell.replace('"payload":""', `"payload":"${'x'.repeat(bytes - shell.length)}"`);
    };
    const fits = frameOf(LIMITS.WS_MAX_MESSAGE_BYTES, 'fits');
    expect(Buffer.byteLength(fits)).toBe(LIMITS.WS_MAX_MESSAGE_BYTES);
    ws!.send(fits);
    await pollUntil(
      async () => got,
      (l) => l.some((f) => f.type === 'ack' && f.batch === 'fits'),
      5000,
      20,
    );

    const closing = closed(ws!);
    ws!.send(frameOf(LIMITS.WS_MAX_MESSAGE_BYTES + 1, 'too-big'));
    expect((await closing).code).toBe(1009);
    expect(got.some((f) => f.batch === 'too-big')).toBe(false);
    const back = await api(`/recordings/${id}/events`, { base: limited.url, key: env().secretKey });
    expect(JSON.parse(back.text)).toHaveLength(1);
  });

  it(`pings every WS_HEARTBEAT_MS=${LIMITS.WS_HEARTBEAT_MS}: a client that answers stays open past REQUEST_TIMEOUT_MS, one that does not is closed with 1001`, async () => {
    const live = (await openWs(wsUrl(limited.url, randomUUID()))).ws!;
    const dead = (await openWs(wsUrl(limited.url, randomUUID()), { autoPong: false })).ws!;
    let pings = 0;
    live.on('ping', () => pings++);
    const deadClosed = closed(dead);
    const liveClosed = jest.fn();
    live.on('close', liveClosed);
    const started = Date.now();
    const d = await deadClosed;
    expect(d.code).toBe(1001);
    expect(Date.now() - started).toBeLessThan(LIMITS.WS_HEARTBEAT_MS * 3 + 1500);
    await new Promise((r) => setTimeout(r, Math.max(0, LIMITS.REQUEST_TIMEOUT_MS + 1000 - (Date.now() - started))));
    expect(liveClosed).not.toHaveBeenCalled();
    expect(pings).toBeGreaterThanOrEqual(2);
    // The protocol's own ping is answered too, and the socket still ingests.
    const got = frames(live);
    live.send('{"type":"ping"}');
    live.send(JSON.stringify({ type: 'batch', batch: 'after-heartbeats', events: sampleEvents(2) }));
    await pollUntil(
      async () => got,
      (l) => l.some((f) => f.type === 'pong') && l.some((f) => f.type === 'ack'),
      5000,
      20,
    );
    live.close();
  });

  it('counts the bytes of a frame still arriving as an answer: a slow upload outlives several heartbeats', async () => {
    // A client that never answers pings but keeps sending one large frame, slice by slice, over 3.5
    // heartbeats (a big batch on a slow uplink: its pong would queue behind the frame).
    const ws = (await openWs(wsUrl(limited.url, randomUUID()), { autoPong: false })).ws!;
    const got = frames(ws);
    const closing = closed(ws);
    const payload = Buffer.from(JSON.stringify({ type: 'batch', batch: 'slow-upload', events: sampleEvents(3) }).padEnd(20_000, ' '));
    expect(payload.length).toBeLessThan(LIMITS.WS_MAX_MESSAGE_BYTES);
    // A masked text frame with a 16-bit length and an all-zero mask, so the payload goes as it is.
    const frame = Buffer.concat([Buffer.from([0x81, 0x80 | 126, payload.length >> 8, payload.length & 0xff, 0, 0, 0, 0]), payload]);
    const socket = (ws as unknown as { _socket: import('node:net').Socket })._socket;
    const slices = 8;
    const started = Date.now();
    for (let i = 0; i < slices; i++) {
      socket.write(frame.subarray(Math.floor((i * frame.length) / slices), Math.floor(((i + 1) * frame.length) / slices)));
      if (i < slices - 1) await new Promise((r) => setTimeout(r, (LIMITS.WS_HEARTBEAT_MS * 3.5) / (slices - 1)));
    }
    await pollUntil(
      async () => got,
      (l) => l.some((f) => f.batch === 'slow-upload'),
      5000,
      20,
    );
    expect(Date.now() - started).toBeGreaterThan(LIMITS.WS_HEARTBEAT_MS * 3);
    expect(got.find((f) => f.batch === 'slow-upload')).toMatchObject({ type: 'ack', events: 3 });
    // Silent from here on: closed by the heartbeat as before.
    expect((await closing).code).toBe(1001);
  });
  it('stops reading from a client that reads none of its replies and cuts it off, instead of queueing replies without bound', async () => {
    // The client sends tiny frames that each get a ~110-byte error frame, and never reads: the
    // replies fill the kernel's buffers, then the server's. Before, the server read on and queued
    // ~400 bytes of memory per 7-byte frame without bound.
    const ws = (await openWs(wsUrl(limited.url, randomUUID()), { autoPong: false })).ws!;
    const socket = (ws as unknown as { _socket: import('node:net').Socket })._socket;
    socket.pause();
    const logged = () => readFileSync(limited.logFile, 'utf8').includes('"msg":"ws client reads none of its replies; connection cut"');
    expect(logged()).toBe(false);
    const frame = Buffer.from([0x81, 0x81, 0, 0, 0, 0, 0x78]); // masked text frame "x", all-zero mask
    for (let i = 0; i < 60; i++) {
      socket.write(Buffer.concat(Array.from({ length: 5000 }, () => frame)));
      await new Promise((r) => setTimeout(r, 20));
    }
    await pollUntil(
      async () => logged(),
      (l) => l,
      LIMITS.WS_HEARTBEAT_MS * 8 + 20_000,
      200,
    );
    const closing = closed(ws);
    socket.resume();
    await closing;
    expect((await api('/healthz', { base: limited.url })).status).toBe(200);
  });
});

// ---------- request timeouts and body limits ----------

describe(`request timeouts (REQUEST_TIMEOUT_MS=${LIMITS.REQUEST_TIMEOUT_MS})`, () => {
  const host = () => new URL(limited.url).host;
  const bound = LIMITS.REQUEST_TIMEOUT_MS + 2500; // the timeout plus Node's check interval and a loaded machine

  it('answers a body sent a byte at a time with 408 and closes the connection, while other requests are served', async () => {
    const head = `POST /recordings/${randomUUID()}/events HTTP/1.1\r\nHost: ${host()}\r\nAuthorization: Bearer ${env().publicKey}\r\nContent-Type: application/json\r\nContent-Length: 100000\r\n\r\n[`;
    const slow = Array.from({ length: 5 }, () => slowClient(limited.url, head, { byte: ' ', everyMs: 200 }));
    expect((await api('/healthz', { base: limited.url })).status).toBe(200);
    for (const r of await Promise.all(slow)) {
      expect(r.text).toMatch(/^HTTP\/1\.1 408 /);
      expect(r.text).toMatch(/x-content-type-options: nosniff/i);
      expect(r.closedAfterMs).toBeGreaterThanOrEqual(LIMITS.REQUEST_TIMEOUT_MS - 100);
      expect(r.closedAfterMs).toBeLessThan(bound);
    }
  });

  it('answers headers that never end with 408 too', async () => {
    const r = await slowClient(limited.url, `GET /healthz HTTP/1.1\r\nHost: ${host()}\r\n`, { byte: 'X-Slow: 1\r\n', everyMs: 200 });
    expect(r.text).toMatch(/^HTTP\/1\.1 408 /);
    expect(r.closedAfterMs).toBeLessThan(bound);
  });

  it('still accepts a large body sent at an ordinary pace', async () => {
    const id = randomUUID();
    const big = sampleEvents(2, 1_700_000_000_000).concat(
      // Each event stays under INGEST_MAX_EVENT_BYTES (64 KiB); the body is over 6 MB.
      Array.from({ length: 110 }, (_, i) => ({
        type: 3,
        timestamp: 1_700_000_000_100 + i,
        data: { source: 0, texts: [], attributes: [{ id: 1, attributes: { 'data-x': 'y'.repeat(60_000) } }], removes: [], adds: [] },
      })),
    );
    const body = JSON.stringify(big);
    expect(body.length).toBeGreaterThan(6 * 1024 * 1024);
    const r = await api(`/recordings/${id}/events`, {
      base: limited.url,
      method: 'POST',
      key: env().publicKey,
      headers: { 'content-type': 'application/json' },
      body,
    });
    expect(r.status).toBe(200);
    expect(r.json().events).toBe(112);
  });
});

describe(`body limits (INGEST_MAX_BODY_BYTES=${LIMITS.INGEST_MAX_BODY_BYTES}, INGEST_MAX_EVENT_BYTES=${LIMITS.INGEST_MAX_EVENT_BYTES})`, () => {
  const post = (body: Buffer | string, headers: Record<string, string> = {}) =>
    api(`/recordings/${randomUUID()}/events`, {
      base: limited.url,
      method: 'POST',
      key: env().publicKey,
      headers: { 'content-type': 'application/json', ...headers },
      body,
    });

  it('answers 413 for a body over the limit (announced or sent), and for gzip that inflates over it', async () => {
    const head = `POST /recordings/${randomUUID()}/events HTTP/1.1\r\nHost: ${new URL(limited.url).host}\r\nAuthorization: Bearer ${env().publicKey}\r\nContent-Type: application/json\r\nContent-Length: ${LIMITS.INGEST_MAX_BODY_BYTES + 1}\r\nConnection: close\r\n\r\n[`;
    const announced = (await slowClient(limited.url, head)).text;
    expect(announced).toMatch(/^HTTP\/1\.1 413 /);
    expect(announced).toMatch(/\r\n\r\nRequest body is larger than the limit for this endpoint$/);
    // The server answers 413 as soon as the announced length is over the limit, while the client is
    // still uploading, and lingers (common/lingering-close.ts) so that the reset of a closed socket
    // does not take the answer with it: every upload gets its 413 (without lingering about half of
    // them failed with EPIPE instead).
    const body = Buffer.alloc(LIMITS.INGEST_MAX_BODY_BYTES + 1, 0x20);
    for (let i = 0; i < 10; i++) {
      const over = await postIgnoringUploadErrors(limited.url, body);
      expect(over.status).toBe(413);
      expect(over.contentType).toMatch(/^text\/plain/);
    }
    const bomb = await post(gzipSync(Buffer.alloc(LIMITS.INGEST_MAX_BODY_BYTES + 1, 0x20)), { 'content-encoding': 'gzip' });
    expect(bomb.status).toBe(413);
    expect(bomb.text).toMatch(/Decompressed body exceeds/);
  });

  it('answers 413 for an NDJSON line over INGEST_MAX_EVENT_BYTES', async () => {
    const line = JSON.stringify({ type: 3, timestamp: 1_700_000_000_000, data: { x: 'y'.repeat(LIMITS.INGEST_MAX_EVENT_BYTES) } });
    const r = await post(`${JSON.stringify(sampleEvents(1)[0])}\n${line}\n`, { 'content-type': 'application/x-ndjson' });
    expect(r.status).toBe(413);
    expect(r.text).toMatch(/line 2/);
  });

  it('answers 413 for one event of a JSON array over INGEST_MAX_EVENT_BYTES, and stores nothing of the batch', async () => {
    const id = randomUUID();
    const big = { type: 3, timestamp: 1_700_000_000_000, data: { x: 'y'.repeat(LIMITS.INGEST_MAX_EVENT_BYTES) } };
    const r = await api(`/recordings/${id}/events`, {
      base: limited.url,
      method: 'POST',
      key: env().publicKey,
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify([...sampleEvents(2), big]),
    });
    expect(r.status).toBe(413);
    expect(r.text).toMatch(/index 2 exceeds/);
    expect((await api(`/recordings/${id}/events`, { base: limited.url, key: env().secretKey })).status).toBe(404);
  });
});

// ---------- security headers ----------

describe('security headers', () => {
  const base = (h: (name: string) => string | null | undefined) => {
    expect(h('x-content-type-options')).toBe('nosniff');
    expect(h('referrer-policy')).toBe('no-referrer');
  };
  const dataResponse = (h: (name: string) => string | null | undefined) => {
    base(h);
    expect(h('content-security-policy')).toMatch(/default-src 'none'.*frame-ancestors 'none'/);
    expect(h('x-frame-options')).toBe('DENY');
  };

  it('sends nosniff, no-referrer, a deny-all CSP and X-Frame-Options DENY on every data response, success or error', async () => {
    const e = env();
    const id = randomUUID();
    expect((await postEvents(id, sampleEvents(3))).status).toBe(200);
    const responses: [string, Res][] = [
      ['ingest 200', await postEvents(randomUUID(), sampleEvents(2))],
      ['events 200', await api(`/recordings/${id}/events`, { key: e.secretKey })],
      ['listing 200', await api('/recordings?limit=1', { key: e.secretKey })],
      ['statistics 200', await api('/statistics', { key: e.secretKey })],
      ['healthz', await api('/healthz')],
      ['metrics', await api('/metrics')],
      ['openapi', await api('/openapi.json')],
      ['sdk', await api('/sdk/recorder.js')],
      ['validation 400', await api('/recordings?limit=0', { key: e.secretKey })],
      ['401', await api(`/recordings/${id}/events`)],
      ['403', await api(`/recordings/${id}/events?tenantId=${e.tenantId}&expires=1&keyId=${e.signingKeyId}&signature=00`)],
      ['404 route', await api('/no/such/route')],
      ['404 recording', await api(`/recordings/${randomUUID()}/events`, { key: e.secretKey })],
      ['bad percent-encoding 400', await api('/recordings/%ZZ', { key: e.secretKey })],
      ['too long a segment 414', await api(`/replays/k/${'v'.repeat(9000)}`, { key: e.secretKey })],
      ['415', await api(`/recordings/${id}/events`, { method: 'POST', key: e.publicKey, headers: { 'content-type': 'application/xml' }, body: '<x/>' })],
      [
        'CORS preflight',
        await api(`/recordings/${id}/events`, { method: 'OPTIONS', headers: { origin: 'https://app.example', 'access-control-request-method': 'POST' } }),
      ],
    ];
    for (const [what, r] of responses) {
      try {
        dataResponse((n) => r.headers.get(n));
      } catch (err) {
        throw new Error(`${what} (${r.status}): ${(err as Error).message}`);
      }
    }
    expect(responses.find(([w]) => w === 'too long a segment 414')![1].status).toBe(414);
    expect(responses.find(([w]) => w === 'bad percent-encoding 400')![1].headers.get('content-type')).toMatch(/^text\/plain/);
  });

  it('lets no shared cache keep an answer that needed credentials (a presigned one has no Authorization header)', async () => {
    const e = env();
    const id = randomUUID();
    expect((await postEvents(id, sampleEvents(3))).status).toBe(200);
    const signed = await pollUntil(
      () => api(`/recordings/${id}?includeSignedUrls=true`, { key: e.secretKey }),
      (r) => r.status === 200,
      10_000,
    );
    const selfSigned = String(signed.json().links.selfSigned).replace(/^https?:\/\/[^/]+/, '');
    const answers: [string, Res][] = [
      ['detail', signed],
      ['presigned detail', await api(selfSigned)],
      ['listing', await api('/recordings?limit=1', { key: e.secretKey })],
      ['statistics', await api('/statistics', { key: e.secretKey })],
      ['replay listing', await api('/replays/k?limit=1', { key: e.secretKey })],
      ['events', await api(`/recordings/${id}/events`, { key: e.secretKey })],
      ['401', await api('/recordings')],
    ];
    for (const [what, r] of answers)
      expect({ what, cacheControl: r.headers.get('cache-control') }).toEqual({ what, cacheControl: expect.stringMatching(/no-store/) });
  });

  it('lets a page of another origin read the answers and the headers a client needs, never with cookies', async () => {
    const id = randomUUID();
    expect((await postEvents(id, sampleEvents(3))).status).toBe(200);
    const r = await api(`/recordings/${id}/events`, { key: env().secretKey, headers: { origin: 'https://app.example' } });
    expect(r.status).toBe(200);
    expect(r.headers.get('access-control-allow-origin')).toBe('https://app.example');
    expect(r.headers.get('access-control-allow-credentials')).toBeNull();
    const exposed = (r.headers.get('access-control-expose-headers') ?? '').split(',').map((h) => h.trim().toLowerCase());
    // The version header is what a browser client checks the API version by (openapi.json says so).
    expect(exposed).toEqual(expect.arrayContaining(['etag', 'retry-after', 'x-request-id', 'x-tapedeck-api-version']));
    // What a page may send: its key, a body's type and coding, a retry's key, a revalidation, its request id.
    const preflight = await api(`/recordings/${id}/screenshot.png`, {
      method: 'OPTIONS',
      headers: { origin: 'https://app.example', 'access-control-request-method': 'GET', 'access-control-request-headers': 'authorization,if-none-match' },
    });
    expect(preflight.status).toBe(204);
    const allowed = (preflight.headers.get('access-control-allow-headers') ?? '').split(',').map((h) => h.trim().toLowerCase());
    expect(allowed).toEqual(expect.arrayContaining(['authorization', 'content-type', 'content-encoding', 'idempotency-key', 'if-none-match', 'x-request-id']));
    // Answers to URLs refused while routing too: else the page sees a network error, not the 400/414.
    for (const [path, status] of [
      ['/replays/k/%ZZ', 400],
      [`/replays/k/${'v'.repeat(9000)}`, 414],
    ] as const) {
      const refused = await api(path, { key: env().secretKey, headers: { origin: 'https://app.example' } });
      expect([path.slice(0, 16), refused.status, refused.headers.get('access-control-allow-origin')]).toEqual([
        path.slice(0, 16),
        status,
        'https://app.example',
      ]);
      expect(refused.headers.get('access-control-expose-headers')).toMatch(/X-Tapedeck-Api-Version/i);
      expect(refused.headers.get('x-tapedeck-api-version')).toMatch(/^\d+\.\d+\.\d+$/);
      expect(refused.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
    }
  });

  it('keeps the player page frameable by its own CSP (frame-ancestors from PLAYER_FRAME_ANCESTORS), without X-Frame-Options', async () => {
    const id = randomUUID();
    expect((await postEvents(id, sampleEvents(3))).status).toBe(200);
    const r = await api(`/recordings/${id}/player.html`, { key: env().secretKey });
    expect(r.status).toBe(200);
    base((n) => r.headers.get(n));
    expect(r.headers.get('content-security-policy')).toMatch(/frame-ancestors 'self'/);
    expect(r.headers.get('x-frame-options')).toBeNull();
  });

  it('adds Strict-Transport-Security only to requests that arrived over HTTPS (X-Forwarded-Proto), when HSTS_MAX_AGE_SECONDS is set', async () => {
    const plain = await api('/healthz', { base: limited.url });
    expect(plain.headers.get('strict-transport-security')).toBeNull();
    const tls = await api('/healthz', { base: limited.url, headers: { 'x-forwarded-proto': 'https' } });
    expect(tls.headers.get('strict-transport-security')).toBe(`max-age=${LIMITS.HSTS_MAX_AGE_SECONDS}`);
    const shared = await api('/healthz', { headers: { 'x-forwarded-proto': 'https' } });
    expect(shared.headers.get('strict-transport-security')).toBeNull(); // off by default
  });

  it('sends them on answers Node, the upgrade handler and the ws library write themselves (431, refused upgrades and handshakes; 408 above)', async () => {
    const host = new URL(limited.url).host;
    const big = await slowClient(limited.url, `GET /healthz HTTP/1.1\r\nHost: ${host}\r\nX-Big: ${'a'.repeat(70_000)}\r\n\r\n`);
    expect(big.text).toMatch(/^HTTP\/1\.1 431 /);
    const refused = await slowClient(
      limited.url,
      `GET /recordings/${randomUUID()}/events/ws HTTP/1.1\r\nHost: ${host}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n`,
    );
    expect(refused.text).toMatch(/^HTTP\/1\.1 401 /);
    // Handshakes the ws library refuses itself (a bad key, no version, not GET), with a valid key.
    const handshake = (method: string, headers: string) =>
      slowClient(
        limited.url,
        `${method} /recordings/${randomUUID()}/events/ws?token=${env().publicKey} HTTP/1.1\r\nHost: ${host}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n${headers}\r\n`,
      );
    const badKey = await handshake('GET', 'Sec-WebSocket-Key: nope\r\nSec-WebSocket-Version: 13\r\n');
    expect(badKey.text).toMatch(/^HTTP\/1\.1 400 [^]*\r\n\r\nMissing or invalid Sec-WebSocket-Key header$/);
    const noVersion = await handshake('GET', 'Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n');
    expect(noVersion.text).toMatch(/^HTTP\/1\.1 400 [^]*\r\nsec-websocket-version: 13, 8\r\n/i);
    const post = await handshake('POST', 'Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\nContent-Length: 0\r\n');
    expect(post.text).toMatch(/^HTTP\/1\.1 405 /);
    for (const t of [big.text, refused.text, badKey.text, noVersion.text, post.text]) {
      expect(t).toMatch(/\r\nx-content-type-options: nosniff\r\n/i);
      expect(t).toMatch(/\r\nx-frame-options: DENY\r\n/i);
      expect(t).toMatch(/\r\nx-tapedeck-api-version: \d+\.\d+\.\d+\r\n/i);
    }
  });
});

function postIgnoringUploadErrors(base: string, body: Buffer): Promise<{ status: number; contentType: string }> {
  const url = new URL(base);
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      {
        host: url.hostname,
        port: url.port,
        method: 'POST',
        path: `/recordings/${randomUUID()}/events`,
        headers: { authorization: `Bearer ${env().publicKey}`, 'content-type': 'application/json', 'content-length': body.length },
      },
      (res) => {
        res.resume();
        resolve({ status: res.statusCode ?? 0, contentType: String(res.headers['content-type'] ?? '') });
      },
    );
    req.on('error', (e) => setTimeout(() => reject(e), 2000)); // a response, if any, wins
    req.end(body);
  });
}

/** Sends a request head and part of its body, then drops the connection. */
function dropMidBody(base: string, head: string, part: Buffer): Promise<void> {
  const url = new URL(base);
  return new Promise((resolve) => {
    const socket = connect(Number(url.port), url.hostname, () => {
      socket.write(head);
      socket.write(part);
      setTimeout(() => socket.destroy(), 300);
    });
    socket.on('close', () => resolve());
    socket.on('error', () => undefined);
  });
}

describe('logs', () => {
  it('hold no error for clients that went away mid-body or were cut off with 408 (above)', async () => {
    const host = new URL(limited.url).host;
    const head = (encoding: string) =>
      `POST /recordings/${randomUUID()}/events HTTP/1.1\r\nHost: ${host}\r\nAuthorization: Bearer ${env().publicKey}\r\nContent-Type: application/json\r\n${encoding}Content-Length: 100000\r\n\r\n`;
    const gz = gzipSync(Buffer.from(JSON.stringify(sampleEvents(200, Date.now()))));
    await dropMidBody(limited.url, head(''), Buffer.from('[{"type":3,'));
    await dropMidBody(limited.url, head('Content-Encoding: gzip\r\n'), gz.subarray(0, Math.floor(gz.length / 2)));
    expect((await api('/healthz', { base: limited.url })).status).toBe(200);
    await new Promise((r) => setTimeout(r, 300));
    const errors = readFileSync(limited.logFile, 'utf8')
      .split('\n')
      .filter((l) => /"level":(50|60)/.test(l));
    expect(errors).toEqual([]);
  });

  it('are one JSON object per line from the start, with no runtime warnings between them', () => {
    // Fastify's deprecation of its disableRequestLogging option printed two plain lines at every start.
    const lines = readFileSync(limited.logFile, 'utf8')
      .split('\n')
      .filter((l) => l.trim() !== '');
    expect(lines.length).toBeGreaterThan(0);
    const notJson = lines.filter((l) => {
      try {
        return typeof JSON.parse(l) !== 'object';
      } catch {
        return true;
      }
    });
    expect(notJson).toEqual([]);
  });
});
