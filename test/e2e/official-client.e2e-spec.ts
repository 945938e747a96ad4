// rrweb's official @rrweb/browser-client, unchanged, in Chromium against the service: over WebSocket,
// and over its HTTP fallback when WebSockets are blocked. What it sent is read back, and its in-band
// recording-meta becomes recording metadata.
import { unpack } from '@rrweb/packer/unpack';
import { buildSync } from 'esbuild';
import { readFileSync } from 'node:fs';
import type { Browser, Page } from 'playwright-core';
import { launchChromium } from '../harness/browser';
import { testEnv } from '../harness/env';
import { api } from '../harness/http';
import { PageServer } from '../harness/page-server';
import { pollUntil } from '../harness/poll-until';

const CLIENT_UMD = readFileSync(require.resolve('@rrweb/browser-client').replace(/browser-client\.cjs$/, 'browser-client.umd.cjs'), 'utf8');
/** rrweb's packer for a page, as a site's bundler would build it (its UMD files require() a shared chunk). */
const PACK_JS = buildSync({
  stdin: { contents: "export { pack } from '@rrweb/packer/pack';", resolveDir: __dirname },
  bundle: true,
  format: 'iife',
  globalName: 'rrwebPacker',
  write: false,
}).outputFiles[0].text;

/** rrweb Cloud's script-tag form: the client served by the service itself, configured by the tag's body. */
const scriptTag = (base: string, key: string) => `<!doctype html><html><head><title>script tag</title></head><body>
<h1>Official client from /record.js</h1><button id="go" onclick="this.textContent += '!'">Go</button>
<script>window.__sent = []; window.__emit = function (e) { window.__sent.push(JSON.parse(JSON.stringify(e))); };</script>
<script src="${base}/record.js" autostart>{
  // comments and trailing commas are allowed here
  "publicApiKey": ${JSON.stringify(key)},
  "serverUrl": "/recordings/{recordingId}/events/ws",
  "meta": { "suite": "official-client", "transport": "tag" },
  "emit": "__emit",
}</script></body></html>`;

/**
 * A page written for rrweb Cloud, moved by changing the script's host: its docs' and first client's
 * option spellings (`publicAPIkey`, `autoStart`, …), in the tag's body or given to start().
 */
const gen1Tag = (base: string, key: string) => `<!doctype html><html><head><title>first-generation tag</title></head><body>
<h1>rrweb Cloud spellings</h1><button id="go" onclick="this.textContent += '!'">Go</button>
<script>window.__sent = []; window.__emit = function (e) { window.__sent.push(JSON.parse(JSON.stringify(e))); };</script>
<script src="${base}/record.js">{
  "publicAPIkey": ${JSON.stringify(key)},
  "serverURL": "/recordings/{recordingId}/events/ws",
  "autoStart": true,
  "meta": { "suite": "official-client", "transport": "tag-gen1" },
  "emit": "__emit"
}</script></body></html>`;
const gen1Start = (base: string, key: string) => `<!doctype html><html><head><title>first-generation start()</title>
<script src="${base}/record.js"></script></head><body><h1>rrweb Cloud spellings</h1><button id="go" onclick="this.textContent += '!'">Go</button>
<script>window.__sent = [];
rrwebBrowserClient.start({ publicAPIKey: ${JSON.stringify(key)}, server_url: ${JSON.stringify(base + '/recordings/{recordingId}/events/ws')},
  meta: { suite: 'official-client', transport: 'start-gen1' }, emit: function (e) { window.__sent.push(JSON.parse(JSON.stringify(e))); } });
</script></body></html>`;

const html = (
  base: string,
  key: string,
  tag: string,
  includePii = false,
  serverUrl = base + '/recordings/{recordingId}/events/ws',
  packed = false,
) => `<!doctype html><html><head><title>official client</title>
<script src="/client.js"></script><script src="/pack.js"></script></head><body><h1>Official client ${tag}</h1><button id="go" onclick="this.textContent += '!'">Go</button>
<script>window.__sent = [];
rrwebBrowserClient.start({ publicApiKey: ${JSON.stringify(key)}, serverUrl: ${JSON.stringify(serverUrl)}, includePii: ${includePii},${packed ? ' packFn: rrwebPacker.pack,' : ''}
  meta: { suite: 'official-client', transport: ${JSON.stringify(tag)} }, emit: function (e) { window.__sent.push(JSON.parse(JSON.stringify(e))); } });
</script></body></html>`;

type Ev = { type: number; timestamp: number; data: { tag?: string }; originalTimestamp?: number };

describe('@rrweb/browser-client against Tapedeck', () => {
  let browser: Browser;
  let pages: PageServer;

  beforeAll(async () => {
    browser = await launchChromium();
    const { baseUrl, publicKey } = testEnv();
    pages = await PageServer.start({
      '/ws': () => html(baseUrl, publicKey, 'ws'),
      '/http': () => html(baseUrl, publicKey, 'http'),
      '/ws-pii': () => html(baseUrl, publicKey, 'ws-pii', true),
      '/http-pii': () => html(baseUrl, publicKey, 'http-pii', true),
      '/client.js': CLIENT_UMD,
      '/pack.js': PACK_JS,
      // rrweb's packer through record()'s packFn, which the client passes on: every event a string.
      '/ws-packed': () => html(baseUrl, publicKey, 'ws-packed', false, undefined, true),
      '/http-packed': () => html(baseUrl, publicKey, 'http-packed', false, undefined, true),
      '/tag': () => scriptTag(baseUrl, publicKey),
      '/tag-gen1': () => gen1Tag(baseUrl, publicKey),
      '/start-gen1': () => gen1Start(baseUrl, publicKey),
      // A serverUrl without {recordingId}: the client adds ?recordingId= (and POSTs to the path without /ws).
      '/ws-origin': () => html(baseUrl, publicKey, 'ws-origin', false, baseUrl),
      '/http-origin': () => html(baseUrl, publicKey, 'http-origin', false, baseUrl),
      '/ws-query': () => html(baseUrl, publicKey, 'ws-query', false, baseUrl + '/ingest/ws'),
      '/http-query': () => html(baseUrl, publicKey, 'http-query', false, baseUrl + '/ingest/ws'),
    });
  });
  afterAll(async () => {
    await browser?.close();
    await pages?.close();
  });

  async function record(path: string, blockWebSockets: boolean): Promise<{ id: string; page: Page }> {
    const ctx = await browser.newContext();
    if (blockWebSockets) await ctx.routeWebSocket(/.*/, (ws) => ws.close({ code: 1011, reason: 'blocked by test' }));
    const page = await ctx.newPage();
    await page.goto(pages.url + path);
    for (let i = 0; i < 3; i++) await page.click('#go');
    const id: string = await page.evaluate(() => (window as any).rrwebBrowserClient.getRecordingId());
    return { id, page };
  }

  /** What the page sent, unpacked where rrweb's packer packed it (as rrweb's unpack does, less its mark). */
  const unpacked = (sent: (Ev | string)[]) =>
    sent.map((e) => {
      if (typeof e !== 'string') return e;
      const { v: _mark, ...event } = unpack(e) as unknown as Ev & { v?: string };
      return event;
    });
  const withoutMeta = (sent: (Ev | string)[]) => unpacked(sent).filter((e) => !(e.type === 5 && e.data.tag === 'recording-meta'));

  /** Polls until the service holds as many events as the page has sent so far (rrweb keeps emitting). */
  const readBack = (id: string, page: Page) =>
    pollUntil(
      async () => {
        const sent = withoutMeta(await page.evaluate(() => (window as any).__sent as Ev[]));
        const stored = (await api(`/recordings/${id}/events`, { key: testEnv().secretKey })).json<Ev[]>();
        return { sent, stored };
      },
      ({ sent, stored }) => Array.isArray(stored) && stored.length === sent.length,
      20_000,
      250,
    );

  it.each([
    ['WebSocket', '/ws', false],
    ['HTTP fallback', '/http', true],
    ['WebSocket, loaded as a script tag from /record.js', '/tag', false],
    ["WebSocket, a /record.js tag with rrweb Cloud's spellings (publicAPIkey, autoStart)", '/tag-gen1', false],
    ["HTTP fallback, /record.js's start() with rrweb Cloud's spellings (publicAPIKey, server_url)", '/start-gen1', true],
    ['WebSocket, serverUrl a bare origin (?recordingId=)', '/ws-origin', false],
    ['HTTP fallback, serverUrl a bare origin (?recordingId=)', '/http-origin', true],
    ['WebSocket, serverUrl …/ingest/ws without {recordingId}', '/ws-query', false],
    ['HTTP fallback, serverUrl …/ingest/ws without {recordingId}', '/http-query', true],
    ['WebSocket, every event packed by packFn (@rrweb/packer)', '/ws-packed', false],
    ['HTTP fallback, every event packed by packFn (@rrweb/packer)', '/http-packed', true],
  ])('stores what it sends over %s, and its recording-meta as metadata', async (_name, path, block) => {
    const { id, page } = await record(path as string, block as boolean);
    // The fallback POSTs every 5 s; the WebSocket path flushes within a second.
    const { sent: events, stored } = await readBack(id, page);
    expect(events.length).toBeGreaterThan(3);
    await page.context().close();
    const key = (e: Ev) => `${e.type}:${e.timestamp}:${JSON.stringify(e.data)}`;
    expect(stored.map(key)).toEqual([...events].sort((a, b) => a.timestamp - b.timestamp).map(key));

    const detail = await pollUntil(
      () => api(`/recordings/${id}`, { key: testEnv().secretKey }),
      (r) => r.status === 200 && r.json().metadata?.suite === 'official-client',
      20_000,
      250,
    );
    expect(detail.json().metadata).toMatchObject({
      suite: 'official-client',
      transport: path.slice(1),
      includePii: 'false',
      recordVersion: expect.any(String),
    });
    // Without includePii the server adds nothing of the browser.
    expect(detail.json().metadata).not.toHaveProperty('ipAddress');
    expect(detail.json().metadata).not.toHaveProperty('userAgent');
  });

  it.each([
    ['WebSocket', '/ws-pii', false],
    ['HTTP fallback', '/http-pii', true],
  ])("with includePii, stores the browser's address and User-Agent as metadata (over %s)", async (_name, path, block) => {
    const { id, page } = await record(path as string, block as boolean);
    const userAgent: string = await page.evaluate(() => navigator.userAgent);
    const detail = await pollUntil(
      () => api(`/recordings/${id}`, { key: testEnv().secretKey }),
      (r) => r.status === 200 && r.json().metadata?.transport === path.slice(1),
      20_000,
      250,
    );
    await page.context().close();
    expect(detail.json().metadata).toMatchObject({
      includePii: 'true',
      ipAddress: '127.0.0.1',
      userAgent,
      timezone: expect.any(String),
      visitor: expect.any(String),
    });
  });
});
