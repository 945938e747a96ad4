// Our recorder's console, error and network capture in a real Chromium, read back from the service:
// console messages, uncaught errors and unhandled rejections as rrweb console plugin events within
// their bounds; no network events by default; with network opted in, fetch and XHR requests with
// method, URL, status and duration but no headers or bodies, and none of the recorder's own uploads.
// Then the hosted player replays such a recording without a console error.
import type { Server } from 'node:http';
import type { Browser, Page } from 'playwright-core';
import { launchChromium } from '../harness/browser';
import { testEnv } from '../harness/env';
import { api } from '../harness/http';
import { pollUntil } from '../harness/poll-until';
import { playerState, startServer } from '../integration/rendering-fixtures';
import { presignedQuery } from './rendering-e2e-fixtures';

jest.setTimeout(120_000);

type Ev = { type: number; timestamp: number; data: { plugin?: string; payload?: unknown } };
type Log = { level: string; payload: string[]; trace: string[] };
type Req = Record<string, unknown> & { name: string; method?: string; status?: number; duration?: number };

/** What must never reach a recording unless asked for: the API's bodies and headers. */
const SECRETS = ['secret-response-body', 'secret-response-header', 'secret-request-body', 'secret-request-header'];

function tagPage(attrs: string): string {
  const { baseUrl, publicKey } = testEnv();
  return `<!doctype html><html><head><title>capture test</title></head><body><h1>Capture</h1>
<script src="${baseUrl}/sdk/recorder.js" data-public-key="${publicKey}" data-server-url="${baseUrl}" ${attrs}></script>
<script>
function misbehave() {
  console.log('hello', { n: 1 });
  console.warn('careful');
  console.log('x'.repeat(5000));
  console.error(new Error('logged error'));
  setTimeout(function () { throw new Error('uncaught boom'); });
  Promise.reject(new Error('rejected boom'));
}
</script>
</body></html>`;
}

let browser: Browser;
let server: Server;
let origin = '';

beforeAll(async () => {
  browser = await launchChromium();
  ({ server, origin } = await startServer((req, res, url) => {
    const page = { '/defaults': '', '/network': 'data-network data-transport="http"', '/off': 'data-console="off"' }[url.pathname];
    if (page !== undefined) return void res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(tagPage(page));
    const status = url.pathname === '/api/ok' ? 200 : url.pathname === '/api/fail' ? 500 : 404;
    req.resume();
    res.writeHead(status, { 'content-type': 'application/json', 'x-token': 'secret-response-header' }).end('{"token":"secret-response-body"}');
  }));
});

afterAll(async () => {
  await browser?.close();
  server?.closeAllConnections();
  server?.close();
});

interface Opened {
  page: Page;
  /** The page's uncaught errors, as Playwright sees them. */
  pageErrors: string[];
  /** Runs the page's misbehave(), and waits until its error and rejection are thrown. */
  misbehave(): Promise<void>;
}

async function open(path: string): Promise<Opened> {
  const page = await (await browser.newContext()).newPage();
  const pageErrors: string[] = [];
  page.on('pageerror', (e) => pageErrors.push(e.message));
  await page.goto(`${origin}${path}`);
  // rrweb starts its observers (the plugins among them) with its first full snapshot, after load.
  await pollUntil(
    () => page.evaluate(() => (window as any).Tapedeck.stats()),
    (s) => s && s.acked > 0,
    15_000,
  );
  const misbehave = async () => {
    const before = pageErrors.length;
    await page.evaluate(() => (window as any).misbehave());
    await pollUntil(
      () => Promise.resolve(pageErrors.length - before),
      (n) => n === 2,
      5000,
    );
  };
  return { page, pageErrors, misbehave };
}

/** Flushes and reads the stored events until `done` holds for them. */
async function storedUntil(page: Page, done: (events: Ev[]) => boolean): Promise<Ev[]> {
  const id = await page.evaluate<string>(() => (window as any).Tapedeck.getRecordingId());
  return pollUntil(
    async () => {
      await page.evaluate(() => (window as any).Tapedeck.flush());
      return (await api(`/recordings/${id}/events`, { key: testEnv().secretKey })).json<Ev[]>();
    },
    done,
    15_000,
  );
}

async function stopAndRead(page: Page): Promise<Ev[]> {
  const id = await page.evaluate<string>(() => (window as any).Tapedeck.getRecordingId());
  await page.evaluate(() => (window as any).Tapedeck.stop());
  await page.context().close();
  const r = await api(`/recordings/${id}/events`, { key: testEnv().secretKey });
  expect(r.status).toBe(200);
  return r.json<Ev[]>();
}

const pluginPayloads = <T>(events: Ev[], plugin: string) => events.filter((e) => e.type === 6 && e.data.plugin === plugin).map((e) => e.data.payload as T);
const logs = (events: Ev[]) => pluginPayloads<Log>(events, 'rrweb/console@1');
const requests = (events: Ev[]) => pluginPayloads<{ requests: Req[] }>(events, 'rrweb/network@1').flatMap((p) => p.requests);
const message = (log: Log) => log.payload.map((p) => JSON.parse(p) as unknown);

/** The console events every page recorded by misbehave() holds, with their fields and bounds. */
function expectMisbehaviour(events: Ev[], pageUrl: string) {
  const recorded = logs(events);
  const find = (level: string, first: (m: unknown) => boolean) => recorded.find((l) => l.level === level && first(message(l)[0]));
  expect(find('log', (m) => m === 'hello')).toMatchObject({ payload: ['"hello"', '{"n":1}'], trace: [expect.stringContaining(pageUrl)] });
  expect(find('warn', (m) => m === 'careful')).toBeDefined();
  const long = find('log', (m) => typeof m === 'string' && m.startsWith('xxx'))!;
  expect(message(long)).toEqual(['x'.repeat(2000) + '…']);
  const logged = find('error', (m) => typeof m === 'string' && m.includes('logged error'))!;
  expect(message(logged)[0]).toMatch(/^Error: logged error\n\s+at /); // an Error argument is its stack
  expect(logged.trace.length).toBeGreaterThan(0);
  const uncaught = find('error', (m) => m === 'Uncaught Error: uncaught boom')!;
  expect(uncaught.trace[0]).toContain(pageUrl);
  expect(find('error', (m) => m === 'Uncaught (in promise) Error: rejected boom')).toBeDefined();
  for (const log of recorded) {
    expect(log.payload.length).toBeLessThanOrEqual(10);
    for (const arg of log.payload) expect(arg.length).toBeLessThanOrEqual(2010);
  }
}

describe('browser recorder capture', () => {
  it('records console messages, uncaught errors and rejections by default, bounded, and no network requests', async () => {
    const { page, pageErrors, misbehave } = await open('/defaults');
    await misbehave();
    await page.evaluate(async () => {
      await fetch('/api/ok');
      await fetch('/api/fail', { method: 'POST', body: 'secret-request-body', headers: { 'x-token': 'secret-request-header' } });
      // A flood: 100 messages of other levels a minute are recorded, then one warning says so;
      // errors have a budget of their own.
      for (let i = 0; i < 150; i++) console.log(`flood ${i}`);
      console.error('after the flood');
    });
    const events = await stopAndRead(page);
    expect(pageErrors.sort()).toEqual(['rejected boom', 'uncaught boom']); // the page still sees its errors

    expectMisbehaviour(events, `${origin}/defaults`);
    const recorded = logs(events);
    expect(recorded.filter((l) => l.level === 'log' || l.level === 'warn').length).toBe(100 + 1);
    expect(message(recorded.filter((l) => l.level === 'warn').pop()!)).toEqual([
      "[tapedeck] over 100 console messages in a minute: the rest of this minute's are not recorded",
    ]);
    expect(recorded.some((l) => l.level === 'error' && message(l)[0] === 'after the flood')).toBe(true);
    expect(requests(events)).toEqual([]);
    const text = JSON.stringify(events);
    for (const secret of SECRETS) expect(text).not.toContain(secret);
  });

  it('with network opted in records method, URL, status and duration of fetch and XHR requests, without headers or bodies', async () => {
    const { page, misbehave } = await open('/network');
    await misbehave();
    await page.evaluate(async () => {
      await fetch('/api/ok');
      await fetch('/api/fail', { method: 'POST', body: 'secret-request-body', headers: { 'x-token': 'secret-request-header' } });
      await new Promise<void>((resolve) => {
        const xhr = new XMLHttpRequest();
        xhr.open('PUT', '/api/fail');
        xhr.setRequestHeader('x-token', 'secret-request-header');
        xhr.onloadend = () => resolve();
        xhr.send('secret-request-body');
      });
      // Nothing listens on port 9: the request fails without a response.
      await fetch('http://127.0.0.1:9/unreachable').catch(() => undefined);
    });
    // rrweb reports a request once it found its timing entry: not necessarily in the order they were made.
    const expected = [`GET ${origin}/api/ok`, `POST ${origin}/api/fail`, `PUT ${origin}/api/fail`, 'GET http://127.0.0.1:9/unreachable'];
    const seen = (events: Ev[]) => new Set(requests(events).map((r) => `${r.method} ${r.name}`));
    await storedUntil(page, (events) => expected.every((r) => seen(events).has(r)));
    // Over HTTP the recorder's uploads go through the fetch rrweb wraps. Chromium makes no timing
    // entry for them: rrweb would report one once it gave up looking (2.75 s). A blob: URL has no
    // timing entry either, so the page's fetch of one, made after an upload, is reported after it.
    await page.evaluate(async () => {
      console.log('something to upload');
      await (window as any).Tapedeck.flush();
      (window as any).sentinel = URL.createObjectURL(new Blob(['sentinel']));
      await fetch((window as any).sentinel);
    });
    const sentinel = await page.evaluate<string>(() => (window as any).sentinel);
    await storedUntil(page, (events) => seen(events).has(`GET ${sentinel}`));
    const id = await page.evaluate<string>(() => (window as any).Tapedeck.getRecordingId());
    const events = await stopAndRead(page);

    expectMisbehaviour(events, `${origin}/network`);
    const recorded = requests(events);
    const find = (method: string, path: string) => recorded.find((r) => r.method === method && r.name === `${origin}${path}`);
    expect(find('GET', '/api/ok')).toMatchObject({ initiatorType: 'fetch', status: 200, duration: expect.any(Number) });
    expect(find('POST', '/api/fail')).toMatchObject({ initiatorType: 'fetch', status: 500, duration: expect.any(Number) });
    expect(find('PUT', '/api/fail')).toMatchObject({ initiatorType: 'xmlhttprequest', status: 500, duration: expect.any(Number) });
    const failed = recorded.find((r) => r.name === 'http://127.0.0.1:9/unreachable');
    expect(failed).toMatchObject({ method: 'GET' });
    expect(failed!.status ?? 0).toBe(0); // no response: no status (or 0, as the timing entry says)
    expect(recorded.filter((r) => r.name.startsWith(`${testEnv().baseUrl}/`))).toEqual([]);
    for (const r of recorded) {
      for (const key of ['requestHeaders', 'responseHeaders', 'requestBody', 'responseBody']) expect(r[key]).toBeUndefined();
    }
    const text = JSON.stringify(events);
    for (const secret of SECRETS) expect(text).not.toContain(secret);

    // The hosted player replays the recording, plugin events and all, without a console error.
    const player = await (await browser.newContext()).newPage();
    const problems: string[] = [];
    player.on('console', (m) => (m.type() === 'error' || m.type() === 'warning') && problems.push(`${m.type()}: ${m.text()}`));
    player.on('pageerror', (e) => problems.push(`pageerror: ${e.message}`));
    await player.goto(`${testEnv().baseUrl}/recordings/${id}/player.html?autoplay=true&speed=4&${presignedQuery(id)}`);
    const played = await pollUntil(
      () => playerState(player),
      (s) => s.ready && !s.playing && s.time > 0,
      30_000,
    );
    expect(played).toMatchObject({ ready: true, error: undefined });
    expect(played.replayText).toContain('Capture');
    // Played to the end, past the last plugin event.
    const total = await player.evaluate(() => (window as any).__tapedeck.player.getMetaData().totalTime as number);
    const lastPlugin = Math.max(...events.filter((e) => e.type === 6).map((e) => e.timestamp));
    expect(total).toBeGreaterThanOrEqual(lastPlugin - Math.min(...events.map((e) => e.timestamp)));
    expect(played.time).toBeGreaterThanOrEqual(total - 50);
    await player.context().close();
    expect(problems).toEqual([]);
  });

  it('records no console messages and no errors with data-console="off"', async () => {
    const { page, misbehave } = await open('/off');
    await misbehave();
    const events = await stopAndRead(page);
    expect(events.filter((e) => e.type === 6)).toEqual([]);
    expect(events.some((e) => e.type === 2)).toBe(true);
  });
});
