// Property-based fuzzing (fast-check) of every endpoint against the shared e2e service: paths,
// queries, headers, bodies and WebSocket frames. Whatever arrives, the answer is 2xx or 4xx, never
// 5xx; the process stays healthy; data that was accepted reads back; and a recording stored before
// the fuzzing reads back byte-identical after it. TAPEDECK_FUZZ_RUNS scales every property (default
// 300 runs), TAPEDECK_FUZZ_SEED replays a failure.
import fc from 'fast-check';
import { randomUUID } from 'node:crypto';
import { connect } from 'node:net';
import { brotliCompressSync, deflateSync, gzipSync } from 'node:zlib';
import WebSocket from 'ws';
import { api, postEvents, Res, sampleEvents } from '../harness/http';
import { testEnv } from '../harness/env';
import { pollUntil } from '../harness/poll-until';

const RUNS = Number(process.env.TAPEDECK_FUZZ_RUNS ?? 300);
const SEED = process.env.TAPEDECK_FUZZ_SEED ? Number(process.env.TAPEDECK_FUZZ_SEED) : undefined;
const opts = (numRuns = RUNS) => ({ numRuns, seed: SEED, endOnFailure: true });

const env = () => testEnv();
const control = { id: randomUUID(), events: '', metadata: {} as Record<string, string> };
/** A recording Chromium can replay (html, head, body), for the screenshot parameters. */
const renderable = randomUUID();

function renderableEvents(start: number) {
  const el = (id: number, tagName: string, childNodes: unknown[], attributes: Record<string, string> = {}) => ({
    type: 2,
    id,
    tagName,
    attributes,
    childNodes,
  });
  const node = {
    type: 0,
    id: 1,
    childNodes: [
      { type: 1, id: 2, name: 'html', publicId: '', systemId: '' },
      el(3, 'html', [el(4, 'head', []), el(5, 'body', [{ type: 3, id: 6, textContent: 'fuzz' }], { style: 'background:#36c' })]),
    ],
  };
  return [
    { type: 4, timestamp: start, data: { href: 'https://example.test/', width: 800, height: 600 } },
    { type: 2, timestamp: start + 10, data: { node, initialOffset: { left: 0, top: 0 } } },
    { type: 3, timestamp: start + 2000, data: { source: 1, positions: [{ x: 5, y: 5, id: 5, timeOffset: 0 }] } },
  ];
}

// ---------- transport helpers ----------

interface RawResponse {
  /** Status codes of every response on the connection (a malformed tail may add a second one). */
  statuses: number[];
  text: string;
}

/** Sends raw bytes on a fresh connection and reads until the server closes it (or `ms` pass). */
function rawRequest(bytes: Buffer | string, ms = 5000): Promise<RawResponse> {
  const { hostname, port } = new URL(env().baseUrl);
  return new Promise((resolve) => {
    const s = connect(Number(port), hostname);
    const chunks: Buffer[] = [];
    const done = () => {
      clearTimeout(timer);
      const text = Buffer.concat(chunks).toString('latin1');
      resolve({ statuses: [...text.matchAll(/HTTP\/1\.1 (\d{3}) /g)].map((m) => Number(m[1])), text });
    };
    const timer = setTimeout(() => s.destroy(), ms);
    s.on('data', (d) => chunks.push(d));
    s.on('close', done);
    s.on('error', () => undefined);
    s.write(bytes);
  });
}

function httpBytes(method: string, path: string, headers: [string, string][], body?: Buffer): Buffer {
  const host = new URL(env().baseUrl).host;
  const all: [string, string][] = [['Host', host], ['Connection', 'close'], ...headers];
  if (body && !headers.some(([k]) => /^(content-length|transfer-encoding)$/i.test(k))) all.push(['Content-Length', String(body.length)]);
  const head = `${method} ${path} HTTP/1.1\r\n` + all.map(([k, v]) => `${k}: ${v}\r\n`).join('') + '\r\n';
  return Buffer.concat([Buffer.from(head, 'latin1'), body ?? Buffer.alloc(0)]);
}

/** Fails the property (so fast-check shrinks and reports the input) on any 5xx. */
function no5xx(status: number | number[], what: string, detail = '') {
  const list = Array.isArray(status) ? status : [status];
  const bad = list.find((s) => s >= 500);
  if (bad !== undefined) throw new Error(`${what} answered ${bad}: ${detail.slice(0, 300)}`);
}

const readEvents = (id: string) => api(`/recordings/${id}/events`, { key: env().secretKey });

/** An accepted write must stay readable: 200 and a JSON array (a stream that fails mid-way is not). */
async function assertReadable(id: string, atMost: number) {
  const r = await readEvents(id);
  if (r.status !== 200) throw new Error(`accepted recording ${id} reads back ${r.status}: ${r.text.slice(0, 200)}`);
  const events = JSON.parse(r.text) as unknown[];
  if (!Array.isArray(events) || events.length > atMost) throw new Error(`accepted recording ${id} reads back ${events.length} events, sent ${atMost}`);
}

// ---------- arbitraries ----------

const WEIRD_STRINGS = [
  '',
  ' ',
  '__proto__',
  'constructor',
  'prototype',
  'toString',
  'hasOwnProperty',
  'a"b',
  'a\\b',
  'a\u0000b',
  "a'b",
  '\ud800',
  '\udfff',
  'x]',
  'metadata[x]',
  '${x}',
  "'; DROP TABLE recording_batches; --",
  '\\N',
  '\t\n\r',
  '\u2028\u2029',
  '%',
  '%00',
  '../..',
  '\ufeff',
  'é',
  '🎬',
  'null',
];
const weirdString = fc.oneof(
  fc.constantFrom(...WEIRD_STRINGS),
  fc.string({ unit: 'binary', maxLength: 40 }),
  fc.string({ unit: 'binary-ascii', maxLength: 40 }),
  fc.string({ maxLength: 300 }),
);
const NUMBER_TEXTS = [
  '1e400',
  '-1e400',
  '18446744073709551616',
  '9007199254740993',
  '-1',
  '-0',
  '0',
  '1.5',
  '1e3',
  '0x10',
  '"1"',
  'null',
  'true',
  '[]',
  '{}',
  'NaN',
  'Infinity',
  '1'.repeat(400),
];
const numberText = fc.oneof(
  fc.constantFrom(...NUMBER_TEXTS),
  fc.integer().map(String),
  fc.double({ noNaN: true, noDefaultInfinity: true }).map((d) => JSON.stringify(d)),
);
/** JSON text of an object, from entries (so "__proto__" can be a real key). */
const objectText = (entries: [string, string][]) => '{' + entries.map(([k, v]) => `${JSON.stringify(k)}:${v}`).join(',') + '}';
const jsonText = fc.oneof(
  fc.json({ maxDepth: 4 }),
  numberText,
  weirdString.map((s) => JSON.stringify(s)),
);
const dataText = fc.oneof(
  fc.constantFrom(
    '{"__proto__":{"polluted":1}}',
    '{"constructor":{"prototype":{"polluted":1}}}',
    '{"__proto__":null,"a":1}',
    '{}',
    '{"a":1e400}',
    '{"a":18446744073709551616}',
  ),
  fc.array(fc.tuple(weirdString, jsonText), { maxLength: 5 }).map((e) => objectText(e.map(([k, v]) => [k, v]))),
  fc.integer({ min: 1, max: 12_000 }).map((d) => `{"a":${'['.repeat(d)}${']'.repeat(d)}}`),
);
const eventText = fc
  .record({
    type: fc.oneof({ weight: 3, arbitrary: fc.constantFrom('2', '3', '4', '5') }, numberText),
    timestamp: fc.oneof({ weight: 3, arbitrary: fc.constant(String(Date.now())) }, numberText),
    data: dataText,
    extra: fc.option(fc.tuple(fc.constantFrom('sequenceId', '__proto__', 'constructor', 'originalTimestamp'), jsonText)),
  })
  .map(({ type, timestamp, data, extra }) => objectText([['type', type], ['timestamp', timestamp], ['data', data], ...(extra ? [extra] : [])]));
const validBatchText = JSON.stringify(sampleEvents(12, 1_700_000_000_000));

/** Ingestion bodies: mostly broken in one way each, sometimes valid. */
const ingestBody = fc.oneof(
  fc.nat({ max: validBatchText.length - 1 }).map((n) => Buffer.from(validBatchText.slice(0, n))),
  fc.array(eventText, { minLength: 0, maxLength: 4 }).map((e) => Buffer.from(`[${e.join(',')}]`)),
  fc.array(eventText, { minLength: 1, maxLength: 4 }).map((e) => Buffer.from(`{"events":[${e.join(',')}]}`)),
  fc.array(fc.oneof(eventText, weirdString), { minLength: 1, maxLength: 4 }).map((l) => Buffer.from(l.join('\n'))),
  fc.json({ maxDepth: 5 }).map((t) => Buffer.from(t)),
  fc.uint8Array({ maxLength: 512 }).map((b) => Buffer.from(b)),
  fc
    .tuple(fc.nat({ max: validBatchText.length }), fc.uint8Array({ minLength: 1, maxLength: 4 }))
    .map(([n, b]) => Buffer.concat([Buffer.from(validBatchText.slice(0, n)), Buffer.from(b), Buffer.from(validBatchText.slice(n))])),
  fc.integer({ min: 1, max: 100_000 }).map((d) => Buffer.from('['.repeat(d) + ']'.repeat(d))),
);
const contentType = fc.oneof(
  { weight: 4, arbitrary: fc.constantFrom('application/json', 'application/x-ndjson', 'application/ndjson') },
  fc.constantFrom(
    'text/plain',
    'application/json; charset=latin1',
    'APPLICATION/JSON',
    'application/xml',
    'multipart/form-data; boundary=x',
    'application/x-www-form-urlencoded',
    'application/octet-stream',
    '',
    ';',
    'application/json;;;',
    'text/html',
  ),
  fc.string({ unit: 'grapheme-ascii', maxLength: 40 }),
);
const contentEncoding = fc.constantFrom(undefined, 'identity', 'gzip', 'GZIP', ' gzip ', 'br', 'deflate', 'zstd', 'compress', 'gzip, gzip', 'x-gzip', '');
/** Compresses a body as its Content-Encoding says (when the property chooses to). */
const encoders: [RegExp, (b: Buffer) => Buffer][] = [
  [/gzip/i, gzipSync],
  [/deflate/i, deflateSync],
  [/^br$/i, brotliCompressSync],
];
const authHeader = fc.oneof(
  { weight: 4, arbitrary: fc.constantFrom('public', 'secret').map((k) => `Bearer ${k === 'public' ? env().publicKey : env().secretKey}`) },
  fc.constantFrom(
    'Bearer',
    'Bearer ',
    'bearer  x',
    'Basic dXNlcjpwYXNz',
    'Bearer public_key_svc_',
    'Bearer secret_key_svc_aaaaaaaaaaaaaaaaaaaaaaaa',
    'Token x',
    'Bearer a b',
  ),
  fc.string({ unit: 'grapheme-ascii', maxLength: 80 }).map((s) => `Bearer ${s}`),
  fc.string({ unit: 'grapheme-ascii', maxLength: 80 }),
  fc.constant('Bearer ' + 'k'.repeat(8000)),
);

/** A path segment: percent-encoded text, raw bytes as %XX (invalid UTF-8 included), or odd literals. */
const segment = fc.oneof(
  fc.constantFrom(
    '',
    '.',
    '..',
    '%',
    '%ZZ',
    '%00',
    '%2F',
    '%FF%FE',
    '%C0%AF',
    '%E0%A4%A',
    'a'.repeat(600),
    '😀'.repeat(3),
    randomUUID().toUpperCase(),
    '00000000-0000-0000-0000-000000000000',
  ),
  weirdString.map((s) => encodeURIComponent(s.isWellFormed() ? s : s.toWellFormed())),
  fc.uint8Array({ maxLength: 12 }).map((b) => [...b].map((x) => '%' + x.toString(16).padStart(2, '0')).join('')),
  fc.constant(null).map(() => randomUUID()),
);
/** A query string of fuzzed names and values, with names the endpoints know. */
const QUERY_NAMES = [
  'limit',
  'offset',
  'includeSignedUrls',
  'from',
  'to',
  'startedAfter',
  'startedBefore',
  'interval',
  'groupBy',
  'metadata',
  'meta',
  'metadata[a]',
  'metadata[]',
  'meta[x]',
  'metadata[a][b]',
  'metadata[__proto__]',
  'metadata[constructor]',
  '__proto__',
  'constructor[prototype][x]',
  'token',
  'tenantId',
  'expires',
  'keyId',
  'signature',
  'time',
  'width',
  'height',
  'quality',
  'speed',
  'controls',
  'autoplay',
  'mode',
  'eventsUrl',
  'v',
  'recordingId',
  'debug',
];
const queryPart = fc
  .oneof(fc.constantFrom(...QUERY_NAMES), weirdString)
  .chain((name) =>
    fc
      .oneof(
        fc.constantFrom(...NUMBER_TEXTS, 'true', 'false', 'offset:-1', 'percent:1e400', 'epoch:18446744073709551616', 'minute', 'x'.repeat(5000)),
        weirdString,
      )
      .map((value) => `${enc(name)}=${enc(value)}`),
  );
const rawBytesPart = fc
  .uint8Array({ minLength: 1, maxLength: 8 })
  .map((b) => 'metadata%5Bk%5D=' + [...b].map((x) => '%' + x.toString(16).padStart(2, '0')).join(''));
const queryString = fc.array(fc.oneof({ weight: 4, arbitrary: queryPart }, rawBytesPart), { maxLength: 6 }).map((p) => (p.length ? '?' + p.join('&') : ''));
function enc(s: string) {
  return encodeURIComponent(s.isWellFormed() ? s : s.toWellFormed());
}

/** Every route of the service, with `:x` where fuzzed segments go. */
const ROUTES: [method: string, path: string][] = [
  ['GET', '/recordings'],
  ['GET', '/recordings/:x'],
  ['DELETE', '/recordings/:x'],
  ['GET', '/recordings/:x/events'],
  ['POST', '/recordings/:x/events'],
  ['POST', '/recordings/:x/ingest'],
  ['POST', '/recordings/:x/metadata'],
  ['POST', '/recordings/:x/meta'],
  ['GET', '/recordings/:x/player'],
  ['GET', '/recordings/:x/player.html'],
  ['GET', '/recordings/:x/screenshot'],
  ['GET', '/recordings/:x/screenshot.png'],
  ['GET', '/recordings/:x/screenshot.webp'],
  ['GET', '/recordings/:x/screenshot.jpeg'],
  ['GET', '/recordings/:x/screenshot.jpg'],
  ['GET', '/recordings/:x/preview'],
  ['GET', '/recordings/:x/activity'],
  ['GET', '/recordings/:x/thumbnail'],
  ['POST', '/recordings/:x/links'],
  ['POST', '/console/session'],
  ['GET', '/console/session'],
  ['DELETE', '/console/session'],
  ['POST', '/'],
  ['POST', '/events'],
  ['POST', '/ingest'],
  ['GET', '/record.js'],
  ['GET', '/replays/:x/:x'],
  ['GET', '/replays/:x/:x/events'],
  ['GET', '/replays/:x'],
  ['GET', '/replays'],
  ['GET', '/replay'],
  ['GET', '/statistics'],
  ['GET', '/healthz'],
  ['GET', '/readyz'],
  ['GET', '/metrics'],
  ['GET', '/openapi.json'],
  ['GET', '/sdk/recorder.js'],
  ['GET', '/sdk/recorder.js.map'],
  ['GET', '/assets/:x'],
  ['GET', '/admin/tenants'],
  ['POST', '/admin/tenants'],
  ['GET', '/admin/tenants/:x'],
  ['PATCH', '/admin/tenants/:x'],
  ['DELETE', '/admin/tenants/:x'],
  ['POST', '/admin/tenants/:x/suspend'],
  ['POST', '/admin/tenants/:x/resume'],
  ['GET', '/admin/tenants/:x/limits'],
  ['PATCH', '/admin/tenants/:x/limits'],
  ['GET', '/admin/tenants/:x/keys'],
  ['POST', '/admin/tenants/:x/keys'],
  ['DELETE', '/admin/tenants/:x/keys/:x'],
  ['GET', '/admin/tenants/:x/signing-keys'],
  ['POST', '/admin/tenants/:x/signing-keys'],
  ['DELETE', '/admin/tenants/:x/signing-keys/:x'],
];

// ---------- setup: a recording whose bytes must survive the fuzzing ----------

beforeAll(async () => {
  const r = await postEvents(control.id, sampleEvents(40, Date.now() - 60_000), env().publicKey);
  expect(r.status).toBe(200);
  control.metadata = { plan: 'pro', 'fuzz-control': control.id };
  expect(
    (
      await api(`/recordings/${control.id}/metadata`, {
        method: 'POST',
        key: env().publicKey,
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(control.metadata),
      })
    ).status,
  ).toBe(200);
  expect((await postEvents(renderable, renderableEvents(Date.now() - 60_000))).status).toBe(200);
  control.events = (await readEvents(control.id)).text;
  expect(JSON.parse(control.events)).toHaveLength(40);
  await pollUntil(
    () => api(`/recordings/${control.id}`, { key: env().secretKey }),
    (x) => x.status === 200 && x.json().metadata?.plan === 'pro',
    20_000,
  );
});

// ---------- properties ----------

describe('fuzzed HTTP ingestion', () => {
  it('answers every body, Content-Type, Content-Encoding and key with 2xx/4xx; what it accepts reads back', async () => {
    await fc.assert(
      fc.asyncProperty(ingestBody, contentType, contentEncoding, fc.boolean(), authHeader, async (body, ct, ce, compress, auth) => {
        const id = randomUUID();
        const headers: Record<string, string> = { authorization: auth, 'content-type': ct };
        if (ce !== undefined) headers['content-encoding'] = ce;
        const encode = compress && ce ? encoders.find(([re]) => re.test(ce))?.[1] : undefined;
        const sent = encode ? encode(body) : body;
        const r = await api(`/recordings/${id}/events`, { method: 'POST', headers, body: sent }).catch((e: Error) => ({ status: 0, text: String(e) }) as Res);
        no5xx(r.status, 'POST events', r.text);
        expect([200, 400, 401, 413, 415]).toContain(r.status);
        if (r.status === 200) await assertReadable(id, (r.json() as { events: number }).events);
      }),
      opts(),
    );
  });

  it('refuses 10 000 levels of nesting in an event (400) and stays readable; 900 levels, as a deep DOM snapshot, round-trip', async () => {
    const id = randomUUID();
    const deep = (d: number) => `[{"type":3,"timestamp":1700000000000,"data":{"a":${'['.repeat(d)}${']'.repeat(d)}}}]`;
    const refused = await postEvents(id, deep(10_000));
    expect(refused.status).toBe(400);
    expect(refused.text).toMatch(/deeper than/);
    const top = await postEvents(id, '['.repeat(1_000_000) + ']'.repeat(1_000_000));
    expect(top.status).toBe(400);
    let node: Record<string, unknown> = { type: 3, textContent: 'leaf', id: 901 };
    for (let i = 900; i > 0; i--) node = { type: 2, tagName: 'div', attributes: {}, childNodes: [node], id: i };
    const snapshot = [{ type: 2, timestamp: 1_700_000_000_000, data: { node, initialOffset: { left: 0, top: 0 } } }];
    expect((await postEvents(id, snapshot)).status).toBe(200);
    const back = await readEvents(id);
    expect(back.status).toBe(200);
    expect(JSON.parse(back.text)[0].data).toEqual(snapshot[0].data);
  });

  it('refuses numbers JSON cannot carry back (1e400) instead of storing them as null; keeps 2^64 as a number', async () => {
    const id = randomUUID();
    const r = await postEvents(id, '[{"type":3,"timestamp":1700000000000,"data":{"x":1e400}}]');
    expect(r.status).toBe(400);
    expect(r.text).toMatch(/not finite/);
    expect((await postEvents(id, '[{"type":3,"timestamp":18446744073709551616,"data":{}}]')).status).toBe(400);
    expect((await postEvents(id, '[{"type":3,"timestamp":1700000000000,"data":{"x":18446744073709551616}}]')).status).toBe(200);
    expect(JSON.parse((await readEvents(id)).text)[0].data.x).toBe(2 ** 64);
  });

  it('answers oversized bodies with 413: over INGEST_MAX_BODY_BYTES, a gzip bomb, a metadata body over 1 MiB or too large for one message', async () => {
    const max = 64 * 1024 * 1024; // the shared stack runs with the default
    const head = httpBytes('POST', `/recordings/${randomUUID()}/events`, [
      ['Authorization', `Bearer ${env().publicKey}`],
      ['Content-Type', 'application/json'],
      ['Content-Length', String(max + 1)],
    ]);
    const big = await rawRequest(Buffer.concat([head, Buffer.from('[')]));
    expect(big.statuses[0]).toBe(413);
    const bomb = gzipSync(Buffer.alloc(max + 1024, 0x20));
    const r = await api(`/recordings/${randomUUID()}/events`, {
      method: 'POST',
      key: env().publicKey,
      headers: { 'content-type': 'application/json', 'content-encoding': 'gzip' },
      body: bomb,
    });
    expect(r.status).toBe(413);
    const meta = await api(`/recordings/${randomUUID()}/metadata`, {
      method: 'POST',
      key: env().publicKey,
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ k: 'v'.repeat(1024 * 1024) }),
    });
    expect(meta.status).toBe(413);
    // Within the 1 MiB body limit, but not within one message with its headers: 413, not a 503 forever.
    const values: Record<string, string> = Object.fromEntries(Array.from({ length: 127 }, (_, i) => [`k${String(i).padStart(5, '0')}`, 'é'.repeat(4096)]));
    for (let i = 0, room; (room = 1024 * 1024 - 10 - Buffer.byteLength(JSON.stringify(values)) - 10) > 0; i++)
      values[`pad${i}`] = 'a'.repeat(Math.min(4096, room));
    const near = JSON.stringify(values);
    expect(Buffer.byteLength(near)).toBeGreaterThan(1024 * 1024 - 32);
    expect(Buffer.byteLength(near)).toBeLessThanOrEqual(1024 * 1024);
    const full = await api(`/recordings/${randomUUID()}/metadata`, {
      method: 'POST',
      key: env().publicKey,
      headers: { 'content-type': 'application/json' },
      body: near,
    });
    expect(full.status).toBe(413);
    expect(full.text).toMatch(/Metadata write too large to store/);
  });
});

describe('fuzzed metadata', () => {
  it('answers every metadata body with 2xx/4xx', async () => {
    const value = fc.oneof(
      weirdString.map((s) => JSON.stringify(s)),
      numberText,
      fc.json({ maxDepth: 2 }),
      fc.constant('"\\ud800"'),
    );
    const body = fc.oneof(
      { weight: 4, arbitrary: fc.array(fc.tuple(weirdString, value), { maxLength: 6 }).map((e) => objectText(e)) },
      fc.json({ maxDepth: 3 }),
      fc.uint8Array({ maxLength: 200 }).map((b) => Buffer.from(b).toString('latin1')),
      fc.integer({ min: 1, max: 250 }).map((n) => objectText(Array.from({ length: n }, (_, i) => [`k${i}`, '"v"']))),
    );
    await fc.assert(
      fc.asyncProperty(body, authHeader, async (text, auth) => {
        const r = await api(`/recordings/${randomUUID()}/metadata`, {
          method: 'POST',
          headers: { authorization: auth, 'content-type': 'application/json' },
          body: Buffer.from(text, 'latin1').length === text.length ? Buffer.from(text, 'latin1') : text,
        });
        no5xx(r.status, 'POST metadata', r.text);
        expect([200, 400, 401, 413, 415]).toContain(r.status);
      }),
      opts(),
    );
  });

  it('stores keys and values with quotes, backslashes, NUL, unicode and __proto__ exactly, and finds them through metadata[...] filters', async () => {
    const text = fc.string({ unit: 'binary', minLength: 1, maxLength: 30 });
    const key = fc.oneof(
      fc.constantFrom('__proto__', 'constructor', 'a"b', 'a\\b', 'a\u0000b', "it's", 'x]y', 'a]', '🎬 key', 'metadata[k]', 'toString'),
      text,
    );
    const value = fc.oneof(fc.constantFrom('"', '\\', '\u0000', "'; --", '%00', '+ +', '&=', 'é', '🎬', '\\N', 'a\nb'), text);
    const pairs = new Map(fc.sample(fc.tuple(key, value), { numRuns: 12, seed: SEED ?? 42 }).map(([k, v]) => [JSON.stringify([k, v]), [k, v]]));
    const cases = [...pairs.values()].map(([k, v]) => ({ id: randomUUID(), k, v }));
    for (const c of cases) {
      expect((await postEvents(c.id, sampleEvents(3))).status).toBe(200);
      const w = await api(`/recordings/${c.id}/metadata`, {
        method: 'POST',
        key: env().publicKey,
        headers: { 'content-type': 'application/json' },
        body: objectText([[c.k, JSON.stringify(c.v)]]),
      });
      expect(w.status).toBe(200);
      expect(w.json().keys).toBe(1);
    }
    for (const c of cases) {
      const q = new URLSearchParams([[`metadata[${c.k}]`, c.v]]).toString();
      type Listed = { recordingId: string; metadata: Record<string, string> };
      const has = (r: Res) => r.status === 200 && r.json().recordings.some((x: Listed) => x.recordingId === c.id);
      const listed = await pollUntil(() => api(`/recordings?${q}&limit=100`, { key: env().secretKey }), has, 20_000);
      // Earlier runs against the same stack may have stored the same pair: every match must carry it.
      const matches = listed.json().recordings as Listed[];
      for (const m of matches) expect(Object.entries(m.metadata).filter(([k]) => k === c.k)).toEqual([[c.k, c.v]]);
      const detail = await api(`/recordings/${c.id}`, { key: env().secretKey });
      expect(Object.entries(detail.json().metadata)).toEqual([[c.k, c.v]]);
      const stats = await api(`/statistics?${q}`, { key: env().secretKey });
      expect(stats.status).toBe(200);
      expect(stats.json().totals.recordings).toBe(matches.length);
      const composed = await api(`/replay?${q}`, { key: env().secretKey });
      expect(composed.status).toBe(200);
      expect(JSON.parse(composed.text)).toHaveLength(3 * matches.length);
    }
  });
});

describe('fuzzed reads', () => {
  it('fuzzes every route /openapi.json documents', async () => {
    const doc = (await api('/openapi.json')).json<{ paths: Record<string, Record<string, unknown>> }>();
    const known = new Set(ROUTES.map(([m, p]) => `${m} ${p}`));
    const documented = Object.entries(doc.paths).flatMap(([path, ops]) =>
      Object.keys(ops).map((m) => `${m.toUpperCase()} ${path.replace(/\{[^}]+\}/g, ':x')}`),
    );
    expect(documented.length).toBeGreaterThan(30);
    expect(documented.filter((r) => !known.has(r))).toEqual([]);
  });

  it('answers every path, method and query with 2xx/4xx (private key)', async () => {
    const route = fc.constantFrom(...ROUTES);
    await fc.assert(
      fc.asyncProperty(route, fc.array(segment, { minLength: 3, maxLength: 3 }), queryString, fc.boolean(), async ([method, template], segs, query, admin) => {
        let i = 0;
        const path = template.replace(/:x/g, () => segs[i++] ?? 'x') + query;
        const key = template.startsWith('/admin') && admin ? env().adminToken : env().secretKey;
        // Admin creations and updates get a body that can never be valid (an id outside the allowed alphabet, unknown fields).
        const body =
          method === 'POST' || method === 'PATCH' ? Buffer.from(template.startsWith('/admin') ? '{"id":"!fuzz","kind":"fuzz","keyId":"!"}' : '[') : undefined;
        const r = await rawRequest(
          httpBytes(
            method,
            path,
            [
              ['Authorization', `Bearer ${key}`],
              ['Content-Type', 'application/json'],
            ],
            body,
          ),
        );
        no5xx(r.statuses, `${method} ${path}`, r.text);
        if (r.statuses.length === 0) throw new Error(`${method} ${path}: no response`);
      }),
      opts(RUNS * 2),
    );
  });

  it('answers the known parameters of each read endpoint, with fuzzed values, on real data with 2xx/4xx', async () => {
    const valueOf = (name: string) =>
      ({
        limit: fc.oneof(fc.integer({ min: -5, max: 200 }).map(String), fc.constantFrom(...NUMBER_TEXTS)),
        offset: fc.oneof(fc.integer({ min: -5, max: 2 ** 53 }).map(String), fc.constantFrom(...NUMBER_TEXTS)),
        from: fc.oneof(
          fc.constantFrom(
            '2024-01-01',
            '2024-02-30',
            '2024-01-01T00:00:00Z',
            '2024-01-01T00:00:00+25:00',
            '0',
            String(Date.now() - 86_400_000),
            '-1',
            '1e400',
            '275760-09-13',
            'offset:-1000', // an event window's forms (the time selector's)
            'percent:50',
            'epoch:0',
          ),
          fc.date({ noInvalidDate: true }).map((d) => d.toISOString()),
        ),
        to: fc.oneof(fc.constantFrom('2030-01-01', String(Date.now()), '8640000000000001', ''), fc.integer({ min: 0, max: 2 ** 47 }).map(String)),
        startedAfter: fc.oneof(
          fc.constantFrom('0', String(Date.now() - 86_400_000), '-1', '1e400', '2026-02-30', '2026-01-01T00:00:00', '8640000000000001', ''),
          fc.date({ noInvalidDate: true }).map((d) => d.toISOString()),
          weirdString,
        ),
        startedBefore: fc.oneof(fc.constantFrom('2030-01-01', String(Date.now()), '0', ''), fc.integer({ min: 0, max: 2 ** 47 }).map(String)),
        interval: fc.constantFrom('minute', 'hour', 'day', 'week', 'month', 'MINUTE', '', 'second'),
        groupBy: fc.oneof(fc.constantFrom('plan', 'fuzz-control', '__proto__', 'a"b', 'a\\b', ''), weirdString),
        includeSignedUrls: fc.constantFrom('true', 'false', '1', '0', 'yes', ''),
        time: fc.oneof(
          fc.constantFrom(
            'offset:0',
            'offset:-1',
            'percent:50',
            'percent:101',
            'percent:-0',
            'epoch:0',
            'epoch:1e400',
            'offset:',
            'offset:18446744073709551616',
            'x',
          ),
          weirdString,
        ),
        speed: fc.constantFrom('0.25', '4', '4.01', '0', '-1', 'NaN', '1e400', '1'),
        controls: fc.constantFrom('true', 'false', 'x'),
        autoplay: fc.constantFrom('true', 'false', 'x'),
        mode: fc.constantFrom('standard', 'minimal', 'capture', 'x', ''),
        eventsUrl: fc.oneof(
          fc.constantFrom('/recordings/x/events', 'https://evil.test/x', '//evil.test', 'javascript:alert(1)', '../../admin', '%ZZ', ''),
          weirdString,
        ),
        [`metadata[plan]`]: fc.oneof(fc.constant('pro'), weirdString),
        [`metadata[fuzz-control]`]: fc.oneof(fc.constant(control.id), weirdString),
      })[name] ?? weirdString;
    const endpoints: [string, string[]][] = [
      ['/recordings', ['limit', 'offset', 'includeSignedUrls', 'startedAfter', 'startedBefore', 'metadata[plan]', 'metadata[fuzz-control]']],
      ['/statistics', ['from', 'to', 'interval', 'groupBy', 'metadata[plan]', 'metadata[fuzz-control]']],
      ['/replays/fuzz-control', ['limit', 'offset', 'includeSignedUrls']],
      ['/replay', ['metadata[plan]', 'metadata[fuzz-control]', 'from', 'to', 'limit']],
      [`/recordings/${control.id}/events`, ['from', 'to', 'limit']],
      [`/replays/fuzz-control/${control.id}/events`, ['from', 'to', 'limit']],
      [`/replays/fuzz-control/${control.id}`, ['includeSignedUrls', 'from', 'to', 'limit']],
      [`/recordings/${control.id}`, ['includeSignedUrls']],
      [`/recordings/${control.id}/player.html`, ['controls', 'autoplay', 'mode', 'speed', 'time', 'eventsUrl']],
      [`/recordings/${control.id}/player`, ['controls', 'autoplay', 'mode', 'speed', 'time', 'eventsUrl']],
    ];
    const request = fc
      .constantFrom(...endpoints)
      .chain(([path, names]) =>
        fc.subarray(names).chain((chosen) => fc.tuple(fc.constant(path), fc.tuple(...chosen.map((n) => valueOf(n).map((v) => `${enc(n)}=${enc(v)}`))))),
      );
    await fc.assert(
      fc.asyncProperty(request, fc.constantFrom('text/html', 'application/json', '*/*', ''), async ([path, parts], accept) => {
        const url = path + (parts.length ? `?${parts.join('&')}` : '');
        const r = await api(url, { key: env().secretKey, headers: accept ? { accept } : {} });
        no5xx(r.status, `GET ${url}`, r.text);
        if (r.status === 200 && (r.headers.get('content-type') ?? '').startsWith('application/json')) JSON.parse(r.text);
      }),
      opts(),
    );
  });

  it("renders or refuses screenshots with fuzzed parameters, never a 5xx but a busy renderer's 503", async () => {
    const param = fc.oneof(
      fc
        .constantFrom('width', 'height', 'quality')
        .chain((n) => fc.oneof(fc.integer({ min: -2, max: 5000 }).map(String), fc.constantFrom(...NUMBER_TEXTS)).map((v) => `${n}=${enc(v)}`)),
      fc.constantFrom('offset:0', 'offset:-1', 'percent:50', 'percent:100', 'percent:1e400', 'epoch:0', 'offset:99999999', 'x').map((v) => `time=${enc(v)}`),
    );
    const ext = fc.constantFrom('', '.png', '.jpeg', '.jpg', '.webp', '.gif');
    await fc.assert(
      fc.asyncProperty(
        ext,
        fc.array(param, { minLength: 1, maxLength: 3 }),
        fc.constantFrom('image/webp', 'image/*', 'text/html', ''),
        async (e, parts, accept) => {
          const url = `/recordings/${renderable}/screenshot${e}?${parts.join('&')}`;
          const r = await api(url, { key: env().secretKey, headers: accept ? { accept } : {} });
          if (r.status === 503 && r.headers.get('retry-after')) return; // admission control: over capacity, documented
          no5xx(r.status, `GET ${url}`, r.text);
        },
      ),
      opts(Number(process.env.TAPEDECK_FUZZ_SCREENSHOT_RUNS ?? 25)),
    );
  });

  it('answers a screenshot of a snapshot Chromium cannot rebuild (a document without <html>) with a 4xx, not a 500', async () => {
    // The first render of a page succeeded, the next ones on the same replay page failed in rrweb.
    for (const q of ['', '?width=100', '?width=101', '?height=50', '?time=offset:1']) {
      const r = await api(`/recordings/${control.id}/screenshot.png${q}`, { key: env().secretKey });
      if (r.status >= 500) throw new Error(`screenshot.png${q} answered ${r.status}: ${r.text}`);
    }
  });

  it('answers fuzzed Authorization, presign parameters and other headers with 4xx, never a 5xx or an unauthorised 200', async () => {
    const good = { tenantId: env().tenantId, expires: String(Math.floor(Date.now() / 1000) + 300), keyId: env().signingKeyId, signature: '0'.repeat(64) };
    const presign = fc.record(
      {
        tenantId: fc.oneof(fc.constant(good.tenantId), weirdString),
        expires: fc.oneof(fc.constant(good.expires), fc.constantFrom(...NUMBER_TEXTS, '99999999999', '999999999999', '0', ''), weirdString),
        keyId: fc.oneof(fc.constant(good.keyId), weirdString),
        signature: fc.oneof(fc.string({ unit: fc.constantFrom(...'0123456789abcdef'), minLength: 64, maxLength: 64 }), weirdString),
      },
      { requiredKeys: [] },
    );
    const header = fc.tuple(
      // Not Transfer-Encoding or Content-Length: a GET announcing a body it never sends waits for REQUEST_TIMEOUT_MS.
      fc.constantFrom(
        'Content-Type',
        'Content-Encoding',
        'Accept',
        'Origin',
        'Idempotency-Key',
        'X-Forwarded-For',
        'X-Forwarded-Proto',
        'X-Forwarded-Host',
        'X-Request-Id',
        'If-None-Match',
        'Accept-Version',
        'Expect',
        'Range',
        'Cookie',
      ),
      fc.oneof(
        fc.string({ unit: 'grapheme-ascii', maxLength: 60 }),
        fc.string({ unit: 'binary-ascii', maxLength: 20 }),
        fc.constantFrom('gzip', '100-continue', 'https', '::1', '*/*', 'text/html', 'bytes=0-1'),
      ),
    );
    const target = fc.constantFrom(
      `/recordings/${control.id}/events`,
      `/recordings/${control.id}`,
      `/recordings/${control.id}/player.html`,
      `/replays/plan/pro`,
      '/recordings',
      '/statistics',
    );
    await fc.assert(
      fc.asyncProperty(target, fc.option(authHeader), presign, fc.array(header, { maxLength: 3 }), async (path, auth, p, extra) => {
        const qs = Object.entries(p)
          .map(([k, v]) => `${k}=${enc(v as string)}`)
          .join('&');
        const headers: [string, string][] = [...(auth !== null ? [['Authorization', auth] as [string, string]] : []), ...extra];
        const r = await rawRequest(httpBytes('GET', path + (qs ? `?${qs}` : ''), headers), 3000);
        no5xx(r.statuses, `GET ${path}?${qs} with ${JSON.stringify(headers).slice(0, 200)}`, r.text);
        // Only the genuine private key may read: no fuzzed presign parameter set is a valid signature.
        if (r.statuses[0] === 200 && auth !== `Bearer ${env().secretKey}`) throw new Error(`unauthorised 200 for GET ${path}?${qs} ${JSON.stringify(headers)}`);
      }),
      opts(),
    );
  });

  it('answers malformed HTTP (bad request lines, header bytes, Content-Length) with 4xx and closes', async () => {
    const junk = fc.oneof(
      fc.uint8Array({ minLength: 1, maxLength: 300 }).map((b) => Buffer.concat([Buffer.from(b), Buffer.from('\r\n\r\n')])),
      fc
        .string({ unit: 'binary-ascii', maxLength: 200 })
        .map((s) => Buffer.from(`GET /healthz HTTP/1.1\r\nHost: x\r\nX-A: ${s}\r\nConnection: close\r\n\r\n`, 'latin1')),
      fc
        .constantFrom(
          'GET / HTTP/9.9\r\n\r\n',
          'GET\r\n\r\n',
          'POST /recordings/x/events HTTP/1.1\r\nContent-Length: -1\r\n\r\n',
          'POST /recordings/x/events HTTP/1.1\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\nab',
          'POST /recordings/x/events HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n',
          `GET /healthz HTTP/1.1\r\nX: ${'a'.repeat(70_000)}\r\n\r\n`,
        )
        .map((s) => Buffer.from(s)),
    );
    await fc.assert(
      fc.asyncProperty(junk, async (bytes) => {
        const r = await rawRequest(bytes, 1500);
        no5xx(r.statuses, `raw ${JSON.stringify(bytes.toString('latin1').slice(0, 80))}`, r.text);
      }),
      opts(Math.ceil(RUNS / 2)),
    );
  });
});

describe('fuzzed WebSocket ingestion', () => {
  it('answers fuzzed upgrade paths, queries and headers with 101 or a 4xx (never crashes)', async () => {
    const upgrade = fc.tuple(
      fc.oneof(segment, fc.constant(randomUUID())),
      fc.constantFrom('events/ws', 'ingest/ws', 'events/ws/', 'events', 'ws', 'events/ws/x'),
      fc.array(
        fc.oneof(
          fc.constantFrom(
            `token=${env().publicKey}`,
            `token=${env().secretKey}`,
            'contentType=application%2Fjson',
            'contentEncoding=gzip',
            'contentEncoding=br',
            'contentType=%ZZ',
            'debug=1',
            'tenantId=x',
            'signature=y',
            'token=',
            'token=%00',
          ),
          queryPart,
        ),
        { maxLength: 4 },
      ),
      fc.option(authHeader),
      fc.constantFrom('13', '8', 'x', ''),
    );
    await fc.assert(
      fc.asyncProperty(upgrade, async ([id, suffix, query, auth, version]) => {
        const path = `/recordings/${id}/${suffix}${query.length ? '?' + query.join('&') : ''}`;
        const headers: [string, string][] = [
          ['Upgrade', 'websocket'],
          ['Connection', 'Upgrade'],
          ['Sec-WebSocket-Key', 'dGhlIHNhbXBsZSBub25jZQ=='],
          ['Sec-WebSocket-Version', version],
        ];
        if (auth !== null) headers.push(['Authorization', auth]);
        const host = new URL(env().baseUrl).host;
        const bytes = Buffer.from(`GET ${path} HTTP/1.1\r\nHost: ${host}\r\n` + headers.map(([k, v]) => `${k}: ${v}\r\n`).join('') + '\r\n', 'latin1');
        const r = await rawRequest(bytes, 400); // an accepted upgrade stays open: cut it short
        no5xx(r.statuses, `upgrade ${path}`, r.text);
        expect(r.statuses.length).toBeGreaterThan(0);
      }),
      opts(),
    );
    expect((await api('/healthz')).status).toBe(200);
  });

  it('answers every frame with an ack, a pong or a 4xx error frame, keeps the socket open, and what it acks reads back', async () => {
    const id = randomUUID();
    const ws = await openSocket(id);
    const frames: Record<string, unknown>[] = [];
    ws.on('message', (m) => frames.push(JSON.parse(String(m))));
    let acked = 0;
    let seq = 0;
    const frame = fc.oneof(
      fc.array(eventText, { minLength: 0, maxLength: 3 }).map((e) => ({ text: `{"type":"batch","batch":"b${++seq}","events":[${e.join(',')}]}` })),
      fc.tuple(weirdString, fc.json({ maxDepth: 2 })).map(([b, e]) => ({ text: `{"type":"batch","batch":${JSON.stringify(b)},"events":${e}}` })),
      fc
        .nat({ max: 200 })
        .map((n) => ({ text: JSON.stringify({ type: 'batch', batch: `t${++seq}`, events: sampleEvents(3, 1_700_000_000_000 + seq * 10) }).slice(0, n) })),
      // A repeated key: JSON.parse keeps its last value, which is what must be validated and stored.
      fc
        .tuple(fc.array(eventText, { minLength: 1, maxLength: 2 }), fc.constantFrom('events', 'batch', 'type'), fc.json({ maxDepth: 2 }))
        .map(([e, key, v]) => ({ text: `{"type":"batch","batch":"r${++seq}","events":[${e.join(',')}],"${key}":${v}}` })),
      fc.array(eventText, { minLength: 1, maxLength: 3 }).map((e) => ({ text: e.join('\n') })),
      fc.json({ maxDepth: 3 }).map((text) => ({ text })),
      fc
        .constantFrom('{"type":"ping"}', '{"type":"pong"}', '{"type":"__proto__"}', '{"type":"batch"}', '{"type":', '', ' ', '\u0000')
        .map((text) => ({ text })),
      fc.uint8Array({ maxLength: 200 }).map((b) => ({ binary: Buffer.from(b) })),
      fc
        .integer({ min: 1, max: 12_000 })
        .map((d) => ({ text: `{"type":"batch","batch":"d${++seq}","events":[{"type":3,"timestamp":1,"data":{"a":${'['.repeat(d)}${']'.repeat(d)}}}]}` })),
    );
    await fc.assert(
      fc.asyncProperty(frame, async (f) => {
        if (ws.readyState !== WebSocket.OPEN) throw new Error(`socket closed (${closeCode(ws)})`);
        if ('binary' in f) ws.send(f.binary, { binary: true });
        else ws.send(f.text);
        await roundTrip(ws, frames);
      }),
      opts(),
    );
    await new Promise((r) => setTimeout(r, 500)); // acks of the last batches
    ws.close();
    for (const f of frames) {
      if (f.type === 'error') expect([400, 413]).toContain(f.status);
      else expect(['ack', 'pong', 'upstream-result']).toContain(f.type);
      if (f.type === 'ack') acked += f.events as number;
    }
    if (acked > 0 || frames.some((f) => f.type === 'upstream-result')) {
      const r = await readEvents(id);
      expect(r.status).toBe(200);
      expect(Array.isArray(JSON.parse(r.text))).toBe(true);
    }
  });
});

function openSocket(id: string): Promise<WebSocket> {
  const ws = new WebSocket(`${env().baseUrl.replace(/^http/, 'ws')}/recordings/${id}/events/ws?token=${env().publicKey}`);
  ws.once('close', (code) => closeCodes.set(ws, code));
  return new Promise((resolve, reject) => {
    ws.once('open', () => resolve(ws));
    ws.once('error', reject);
  });
}

const closeCodes = new WeakMap<WebSocket, number>();
const closeCode = (ws: WebSocket) => closeCodes.get(ws) ?? 'no close frame';

/** Sends a ping frame of the protocol and waits for its pong: every earlier frame was handled. */
function roundTrip(ws: WebSocket, frames: Record<string, unknown>[]): Promise<void> {
  const before = frames.filter((f) => f.type === 'pong').length;
  ws.send('{"type":"ping"}');
  return pollUntil(
    async () => frames.filter((f) => f.type === 'pong').length,
    (n) => n > before,
    5000,
    5,
  ).then(() => undefined);
}

// ---------- afterwards: healthy, and nothing stored changed ----------

describe('after the fuzzing', () => {
  it('keeps the process healthy and ready', async () => {
    expect((await api('/healthz')).status).toBe(200);
    expect((await api('/readyz')).status).toBe(200);
  });

  it('reads the recording stored before the fuzzing back byte-identical, with its metadata', async () => {
    const r = await readEvents(control.id);
    expect(r.status).toBe(200);
    expect(r.text).toBe(control.events);
    const detail = await api(`/recordings/${control.id}`, { key: env().secretKey });
    expect(detail.json().metadata).toEqual(control.metadata);
    const listed = await api(`/recordings?${new URLSearchParams({ 'metadata[fuzz-control]': control.id })}`, { key: env().secretKey });
    expect(listed.json().recordings.map((x: { recordingId: string }) => x.recordingId)).toEqual([control.id]);
  });
});
