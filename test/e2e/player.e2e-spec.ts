// GET /recordings/{id}/player[.html] (and /preview) against the running service: the page loads in Chromium through
// a presigned link alone, shows the recording, honours its options and logs nothing; a page asked
// for with the private key holds no key and works without one; CSP frame-ancestors follows
// PLAYER_FRAME_ANCESTORS (checked on a second instance configured with another value); bad
// options answer 400, an Accept without HTML 406. The recorded page holds a third-party image: the
// player's CSP (img-src data: blob:) refuses it, like the screenshot renderer never fetches
// it; that one refusal is expected, any other console error or failed load fails the test. The second
// instance names the image's origin in PLAYER_ASSET_SOURCES, and there the viewer's browser loads it.
import { randomUUID } from 'node:crypto';
import type { Browser, ConsoleMessage, Page } from 'playwright-core';
import { launchChromium } from '../harness/browser';
import { testEnv } from '../harness/env';
import { api, postEvents, Res } from '../harness/http';
import { ServiceProcess, startService } from '../harness/stack';
import { admin } from './auth-fixtures';
import { presignedQuery, recordAndIngest, RecordedFixture, snapshotData, tampered, TRACKER_PNG } from './rendering-e2e-fixtures';
import { playerState } from '../integration/rendering-fixtures';
import { pollUntil } from '../harness/poll-until';

jest.setTimeout(180_000);

const FRAME_ANCESTORS = "'self' https://app.example.com";
/** The recorded page's server is on a free loopback port, so any port of it. */
const ASSET_SOURCES = 'http://127.0.0.1:*';

let browser: Browser;
let fx: RecordedFixture;
let second: ServiceProcess;

beforeAll(async () => {
  const env = testEnv();
  browser = await launchChromium();
  [fx, second] = await Promise.all([
    recordAndIngest(browser, { width: 1000, height: 500 }),
    startService(
      { ...env.serviceEnv, TAPEDECK_ROLE: 'api', TAPEDECK_ADMIN_TOKEN: '', PLAYER_FRAME_ANCESTORS: FRAME_ANCESTORS, PLAYER_ASSET_SOURCES: ASSET_SOURCES },
      env.dir,
      'player-second',
    ),
  ]);
});

afterAll(async () => {
  await browser?.close();
  await second?.stop();
});

const playerPath = (suffix = 'player.html', query = '') => `/recordings/${fx.recordingId}/${suffix}${query ? `?${query}` : ''}`;
const signed = (query = '') => [query, presignedQuery(fx.recordingId)].filter(Boolean).join('&');

interface Opened {
  page: Page;
  /** Console errors and warnings, page errors and CSP violations, except the expected one below. */
  problems: string[];
  /** The recorded page's third-party image, refused by the player's CSP (img-src data: blob:). */
  blockedTracker: boolean;
  headers: Record<string, string>;
  status: number;
}

/**
 * Opens a URL in a fresh context with no credentials; waits until the player is ready or failed.
 * `trackerLoads` collects the requests for the recorded page's image (then answered, its server is gone).
 */
async function open(url: string, fulfil?: { html: string; headers: Record<string, string> }, trackerLoads?: string[]): Promise<Opened> {
  const context = await browser.newContext({ viewport: { width: 1024, height: 768 } });
  if (trackerLoads) {
    await context.route(fx.trackerUrl, (route) => {
      trackerLoads.push(route.request().url());
      return route.fulfill({ status: 200, contentType: 'image/png', body: TRACKER_PNG });
    });
  }
  const page = await context.newPage();
  const problems: string[] = [];
  page.on('console', (m: ConsoleMessage) => {
    if (m.type() === 'error' || m.type() === 'warning') problems.push(`${m.type()}: ${m.text()}`);
  });
  page.on('pageerror', (e) => problems.push(`pageerror: ${e.message}`));
  // Failed loads by URL (the console only says "Failed to load resource"). The page names an inline
  // icon, so not even the browser's /favicon.ico probe may fail.
  const failedLoads: string[] = [];
  page.on('response', (r) => {
    if (r.status() >= 400) failedLoads.push(`${r.status()} ${r.url()}`);
  });
  await context.addInitScript(() =>
    window.addEventListener('securitypolicyviolation', (e) => console.error(`CSP violation: ${e.violatedDirective} ${e.blockedURI}`)),
  );
  if (fulfil) await page.route(url, (route) => route.fulfill({ status: 200, headers: fulfil.headers, body: fulfil.html }));
  const res = await page.goto(url);
  await page.waitForFunction(() => {
    const s = (window as unknown as { __tapedeck?: { ready: boolean; error?: string } }).__tapedeck;
    return !!s && (s.ready || !!s.error);
  });
  await page.waitForTimeout(300);
  const blocked = (p: string) => p.includes(fx.trackerUrl) && /Content Security Policy|CSP violation/.test(p);
  const reported = problems.filter((p) => !blocked(p) && !/Failed to load resource/.test(p)).concat(failedLoads);
  return { page, problems: reported, blockedTracker: problems.some(blocked), headers: res!.headers(), status: res!.status() };
}

const state = playerState;

describe('player page in Chromium', () => {
  it('loads through a presigned link alone and shows the recording, with the defaults', async () => {
    const { page, problems, headers, status, blockedTracker } = await open(testEnv().baseUrl + playerPath('player.html', signed()));
    expect(status).toBe(200);
    // The viewer's browser never fetches the recorded page's third-party resources.
    expect(blockedTracker).toBe(true);
    const s = await state(page);
    expect(s).toMatchObject({ ready: true, error: undefined, playing: false, speed: 1, activeSpeed: '1x', header: true, controller: true });
    expect(s.time).toBeLessThan(50);
    expect(s.replayText).toContain('Tapedeck fixture page');
    expect(headers['content-type']).toMatch(/^text\/html/);
    expect(headers['content-security-policy']).toContain("frame-ancestors 'self'");
    expect(headers['cache-control']).toBe('no-store');
    expect(problems).toEqual([]);
    await page.context().close();
  });

  it("is titled by the recording's first page (host and path) and start, with its metadata under the title", async () => {
    const meta = await api(`/recordings/${fx.recordingId}/metadata`, {
      method: 'POST',
      key: testEnv().publicKey,
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ plan: 'pro' }),
    });
    expect(meta.status).toBe(200);
    await pollUntil(
      () => api(`/recordings/${fx.recordingId}`, { key: testEnv().secretKey }),
      (r) => r.status === 200 && r.json().projected && r.json().metadata.plan === 'pro',
      20_000,
    );
    const start = new Date(fx.firstTs).toISOString().slice(0, 19).replace('T', ' ');
    const { page, problems } = await open(testEnv().baseUrl + playerPath('player.html', signed()));
    expect(await page.title()).toMatch(new RegExp(`^127\\.0\\.0\\.1:\\d+/fixture · ${start} UTC$`));
    const header = await page.locator('header').innerText();
    expect(header).toContain('plan: pro');
    expect(header).toContain(`id ${fx.recordingId}`);
    expect(problems).toEqual([]);
    await page.context().close();
  });

  it("loads the recorded site's image when PLAYER_ASSET_SOURCES names its origin", async () => {
    const loads: string[] = [];
    const { page, problems, blockedTracker } = await open(second.url + playerPath('player.html', signed()), undefined, loads);
    expect(await state(page)).toMatchObject({ ready: true, error: undefined });
    expect(blockedTracker).toBe(false);
    expect(loads).toEqual([fx.trackerUrl]);
    const shown = () =>
      page.evaluate(() => {
        const img = document.querySelector('iframe')?.contentDocument?.querySelector<HTMLImageElement>('#tracker');
        return img ? img.complete && img.naturalWidth : -1;
      });
    await pollUntil(shown, (w) => w === 1, 5_000);
    expect(problems).toEqual([]);
    await page.context().close();
  });

  it("shows the previous page as it ended between a page view's Meta and its snapshot, and says when there is no snapshot", async () => {
    const id = randomUUID();
    const t = Date.now();
    const doc = (text: string) => snapshotData({ childNodes: [{ type: 3, textContent: text, id: 10 }] });
    expect(
      (
        await postEvents(id, [
          { type: 4, timestamp: t, data: { href: 'https://example.com/one', width: 400, height: 200 } },
          { type: 2, timestamp: t + 1, data: doc('page one') },
          { type: 3, timestamp: t + 100, data: { source: 0, adds: [], removes: [], texts: [{ id: 10, value: 'page one, ended' }], attributes: [] } },
          { type: 4, timestamp: t + 1000, data: { href: 'https://example.com/two', width: 500, height: 300 } },
          { type: 2, timestamp: t + 1050, data: doc('page two') },
        ])
      ).status,
    ).toBe(200);
    const at = async (offset: number) => {
      const { page } = await open(`${testEnv().baseUrl}/recordings/${id}/player.html?mode=capture&time=offset:${offset}&${presignedQuery(id)}`);
      const s = await state(page);
      await page.context().close();
      return { offset, ready: s.ready, text: s.replayText };
    };
    expect(await at(1030)).toEqual({ offset: 1030, ready: true, text: 'page one, ended' });
    expect(await at(1000)).toEqual({ offset: 1000, ready: true, text: 'page one, ended' });
    expect(await at(1050)).toEqual({ offset: 1050, ready: true, text: 'page two' });
    // Events but no snapshot yet: the player says so (it showed an empty frame and reported ready).
    const bare = randomUUID();
    expect(
      (
        await postEvents(bare, [
          { type: 4, timestamp: t, data: { href: 'https://example.com/', width: 400, height: 200 } },
          { type: 3, timestamp: t + 10, data: { source: 1, positions: [{ x: 1, y: 1, id: 1, timeOffset: 0 }] } },
          { type: 3, timestamp: t + 20, data: { source: 1, positions: [{ x: 2, y: 2, id: 1, timeOffset: 0 }] } },
        ])
      ).status,
    ).toBe(200);
    const { page } = await open(`${testEnv().baseUrl}/recordings/${bare}/player.html?${presignedQuery(bare)}`);
    expect(await state(page)).toMatchObject({
      ready: false,
      error: 'This recording has nothing to replay yet.',
      status: 'This recording has nothing to replay yet.',
    });
    await page.context().close();
  });

  it('can be used with the keyboard and a screen reader: named controls, a slider, Space to play', async () => {
    const { page } = await open(testEnv().baseUrl + playerPath('player.html', signed()));
    const names = await page.evaluate(() => {
      const buttons = Array.from(document.querySelectorAll('.rr-controller__btns > button'));
      return {
        frame: document.querySelector('.replayer-wrapper iframe')?.getAttribute('title'),
        play: buttons[0]?.getAttribute('aria-label'),
        full: buttons[buttons.length - 1]?.getAttribute('aria-label'),
        skip: document.querySelector('.switch input')?.getAttribute('aria-label'),
        slider: ['role', 'tabindex', 'aria-label', 'aria-valuemin'].map((a) => document.querySelector('.rr-progress')?.getAttribute(a)),
      };
    });
    expect(names).toEqual({
      frame: 'Recorded page',
      play: 'Play',
      full: 'Full screen',
      skip: 'skip inactive',
      slider: ['slider', '0', 'Position in the recording', '0'],
    });
    await page.keyboard.press('Space');
    await page.waitForFunction(() => document.querySelector('.rr-controller__btns > button')?.getAttribute('aria-label') === 'Pause');
    expect((await state(page)).playing).toBe(true);
    await page.keyboard.press('Space');
    await page.waitForFunction(() => document.querySelector('.rr-controller__btns > button')?.getAttribute('aria-label') === 'Play');
    await page.focus('.rr-progress');
    await page.keyboard.press('End');
    const end = await page.evaluate(() => ['aria-valuenow', 'aria-valuemax'].map((a) => Number(document.querySelector('.rr-progress')!.getAttribute(a))));
    expect(end[0]).toBe(end[1]);
    expect((await state(page)).time).toBeGreaterThan(end[1] - 50);
    await page.keyboard.press('Home');
    await page.keyboard.press('ArrowRight');
    expect(await page.evaluate(() => Number(document.querySelector('.rr-progress')!.getAttribute('aria-valuenow')))).toBe(Math.min(5000, end[1]));
    expect(Math.abs((await state(page)).time - Math.min(5000, end[1]))).toBeLessThan(50);
    await page.context().close();
  });

  it('shows the same player at /preview, the replay URL rrweb Cloud tools link to', async () => {
    const { page, problems, status } = await open(testEnv().baseUrl + playerPath('preview', signed()));
    expect(status).toBe(200);
    expect(await state(page)).toMatchObject({ ready: true, error: undefined, playing: false, header: true });
    expect(problems).toEqual([]);
    await page.context().close();
  });

  it('honours mode, controls, autoplay, speed and a start time', async () => {
    const { page, problems } = await open(
      testEnv().baseUrl + playerPath('player', signed('mode=minimal&controls=false&autoplay=true&speed=2&time=offset:1000')),
    );
    const s = await state(page);
    expect(s).toMatchObject({ ready: true, playing: true, speed: 2, header: false, controller: false });
    expect(s.time).toBeGreaterThanOrEqual(1000);
    expect(problems).toEqual([]);
    await page.context().close();
  });

  it('shows the page without the mouse cursor in capture mode, as a screenshot does', async () => {
    const cursor = (page: Page) =>
      page.evaluate(() => {
        const el = document.querySelector('.replayer-mouse');
        return el ? getComputedStyle(el).display : 'absent';
      });
    const capture = await open(testEnv().baseUrl + playerPath('player', signed('mode=capture&time=percent:100')));
    expect(await state(capture.page)).toMatchObject({ ready: true, header: false, controller: false });
    expect(await cursor(capture.page)).toBe('none');
    expect(capture.problems).toEqual([]);
    await capture.page.context().close();
    const standard = await open(testEnv().baseUrl + playerPath('player', signed('time=percent:100')));
    expect(await state(standard.page)).toMatchObject({ ready: true });
    expect(await cursor(standard.page)).not.toMatch(/^(none|absent)$/);
    await standard.page.context().close();
  });

  it('starts paused at a percentage with a slow speed', async () => {
    const { page, problems } = await open(testEnv().baseUrl + playerPath('player.html', signed('time=percent:50&speed=0.25&autoplay=false')));
    const s = await state(page);
    expect(s).toMatchObject({ ready: true, playing: false, speed: 0.25, activeSpeed: '0.25x', controller: true });
    expect(Math.abs(s.time - (fx.lastTs - fx.firstTs) / 2)).toBeLessThan(50);
    expect(problems).toEqual([]);
    await page.context().close();
  });

  it('highlights the requested speed in the control bar, not the first offered one', async () => {
    const { page, problems } = await open(testEnv().baseUrl + playerPath('player.html', signed('speed=2')));
    const s = await state(page);
    expect(s).toMatchObject({ ready: true, playing: false, speed: 2, activeSpeed: '2x', controller: true });
    await page.locator('.rr-controller__btns button.active').waitFor();
    expect(await page.locator('.rr-controller__btns button.active').count()).toBe(1);
    // Only speeds the `speed` parameter accepts (0.25 to 4) are offered.
    const labels = await page.locator('.rr-controller__btns button').allTextContents();
    expect(labels.filter((t) => /x$/.test(t.trim()))).toEqual(['1x', '2x', '4x']);
    expect(problems).toEqual([]);
    await page.context().close();
  });

  it('uses a same-origin eventsUrl override (absolute or relative)', async () => {
    const eventsPath = `/recordings/${fx.recordingId}/events?${presignedQuery(fx.recordingId)}`;
    for (const eventsUrl of [testEnv().baseUrl + eventsPath, eventsPath]) {
      const { page, problems } = await open(testEnv().baseUrl + playerPath('player.html', signed(`eventsUrl=${encodeURIComponent(eventsUrl)}`)));
      const s = await state(page);
      expect(s).toMatchObject({ ready: true });
      expect(problems).toEqual([]);
      await page.context().close();
    }
  });

  it('holds no private key when asked for with it, and the page works without any credential', async () => {
    const url = testEnv().baseUrl + playerPath('player.html');
    const res = await api(playerPath('player.html'), { key: testEnv().secretKey });
    expect(res.status).toBe(200);
    expect(res.text).not.toContain(testEnv().secretKey);
    expect(res.text).not.toMatch(/(secret|public)_key_svc_/);
    const config = JSON.parse(/<script type="application\/json" id="tapedeck-config">([^<]*)<\/script>/.exec(res.text)![1]) as { eventsUrl: string };
    expect(config.eventsUrl).toMatch(/^events\?tenantId=.+&expires=\d+&keyId=.+&signature=[0-9a-f]{64}$/);
    const expires = Number(new URLSearchParams(config.eventsUrl.split('?')[1]).get('expires'));
    expect(expires - Date.now() / 1000).toBeLessThanOrEqual(600 + 5); // short-lived
    // The browser gets exactly this page, and no credential of its own.
    const headers: Record<string, string> = {};
    res.headers.forEach((v, k) => (headers[k] = v));
    const { page, problems } = await open(url, { html: res.text, headers });
    expect(await state(page)).toMatchObject({ ready: true, error: undefined });
    expect(problems).toEqual([]);
    await page.context().close();
  });
});

describe('player HTTP rules', () => {
  const get = (path: string, init: { key?: string; accept?: string; base?: string } = {}): Promise<Res> =>
    api(path, { key: init.key ?? testEnv().secretKey, base: init.base, headers: init.accept ? { accept: init.accept } : {} });

  it("shows its errors inside an embed of the configured origins (an expired link's message, not the browser's refusal)", async () => {
    const expired = presignedQuery(fx.recordingId, Math.floor(Date.now() / 1000) - 60);
    const r = await api(playerPath('player.html', `mode=minimal&${expired}`), {});
    expect(r.status).toBe(403);
    expect(r.headers.get('content-security-policy')).toContain("frame-ancestors 'self'");
    expect(r.headers.get('x-frame-options')).toBeNull();
    // Answers of other routes are still never framed.
    const data = await api(`/recordings/${fx.recordingId}/events?${expired}`, {});
    expect([data.status, data.headers.get('x-frame-options'), data.headers.get('content-security-policy')]).toEqual([
      403,
      'DENY',
      expect.stringContaining("frame-ancestors 'none'"),
    ]);
    // A page of the service's origin (as an embedding app behind the same host would be) frames it.
    const context = await browser.newContext();
    try {
      const page = await context.newPage();
      const embedUrl = `${testEnv().baseUrl}/embed-test-page`;
      const src = playerPath('player.html', `mode=minimal&${expired}`);
      await page.route(embedUrl, (route) =>
        route.fulfill({ status: 200, contentType: 'text/html', body: `<!doctype html><iframe src="${src}" width="600" height="300"></iframe>` }),
      );
      await page.goto(embedUrl);
      const frame = await pollUntil(
        async () => page.frames().find((f) => f.url().includes('/player.html')),
        (f) => f !== undefined,
        10_000,
      );
      await expect(frame!.waitForFunction(() => document.body?.innerText.includes('expired'), undefined, { timeout: 10_000 })).resolves.toBeTruthy();
    } finally {
      await context.close();
    }
  });

  it('sends the CSP with the configured frame-ancestors', async () => {
    const a = await get(playerPath('player.html'));
    const csp = a.headers.get('content-security-policy')!;
    expect(csp).toContain("default-src 'none'");
    expect(csp).toMatch(/script-src 'self' 'nonce-[^']+'/);
    expect(csp).toContain("frame-ancestors 'self'");
    const b = await get(playerPath('player.html'), { base: second.url });
    expect(b.status).toBe(200);
    expect(b.headers.get('content-security-policy')).toContain(`frame-ancestors ${FRAME_ANCESTORS}`);
  });

  it('is documented for every route', async () => {
    const doc = (await api('/openapi.json')).json<{
      paths: Record<string, { get: { tags: string[]; parameters: { name: string }[]; responses: Record<string, unknown> } }>;
    }>();
    for (const suffix of ['player', 'player.html', 'preview']) {
      const op = doc.paths[`/recordings/{recordingId}/${suffix}`]?.get;
      expect(op?.tags).toContain('rendering');
      expect(op.parameters.map((p) => p.name)).toEqual(expect.arrayContaining(['controls', 'autoplay', 'mode', 'speed', 'time', 'eventsUrl', 'signature']));
      expect(Object.keys(op.responses)).toEqual(expect.arrayContaining(['200', '400', '401', '403', '404']));
    }
  });

  it.each([
    ['player.html', 'application/json', 200],
    ['preview', 'application/json', 200],
    ['preview', undefined, 200],
    ['player', undefined, 200],
    ['player', '*/*', 200],
    ['player', 'text/html', 200],
    ['player', 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8', 200],
    ['player', 'application/json', 406],
    ['player', 'image/png, text/html;q=0', 406],
  ])('%s with Accept %p answers %d', async (suffix, accept, status) => {
    const r = await get(playerPath(suffix), { accept });
    expect(r.status).toBe(status);
    expect(r.headers.get('content-type')).toMatch(status === 200 ? /^text\/html/ : /^text\/plain/);
    // The answer depends on Accept for /player (406 included), never for /player.html.
    expect(r.headers.get('vary') ?? '').toMatch(suffix === 'player' ? /accept/i : /^(?!.*accept)/i);
    if (status === 200) expect(r.text).toContain('__tapedeck');
  });

  it('varies on Origin (CORS) and, for /player, on Accept: a 406 too', async () => {
    const vary = (r: Res) =>
      (r.headers.get('vary') ?? '')
        .split(',')
        .map((v) => v.trim().toLowerCase())
        .sort();
    const origin = { origin: 'https://app.example.com' };
    const at = (suffix: string, accept: string) => api(playerPath(suffix), { key: testEnv().secretKey, headers: { ...origin, accept } });
    const negotiated = await at('player', 'text/html');
    expect(negotiated.status).toBe(200);
    expect(vary(negotiated)).toEqual(['accept', 'origin']);
    const refused = await at('player', 'application/json');
    expect(refused.status).toBe(406);
    expect(vary(refused)).toEqual(['accept', 'origin']);
    expect(vary(await at('player.html', 'text/html'))).toEqual(['origin']);
  });

  it.each([
    'speed=5',
    'speed=0.1',
    'speed=fast',
    'controls=yes',
    'autoplay=maybe',
    'mode=fancy',
    'time=bogus',
    'time=',
    `eventsUrl=${encodeURIComponent('//evil.example.com/e')}`,
    `eventsUrl=${encodeURIComponent('https://evil.example.com/e')}`,
    `eventsUrl=${encodeURIComponent('javascript:alert(1)')}`,
    `eventsUrl=${encodeURIComponent('/recordings/x/events?token=secret_key_svc_abcdefghijklmnop')}`,
  ])('answers 400 for %s', async (query) => {
    const r = await get(playerPath('player.html', query));
    expect(r.status).toBe(400);
    expect(r.headers.get('content-type')).toMatch(/^(text\/plain|application\/json)/);
  });

  it('answers 404 for an unknown recording, 401 for the public key or no key, 403 for a tampered link', async () => {
    expect((await get(`/recordings/${randomUUID()}/player.html`)).status).toBe(404);
    expect((await get(playerPath('player.html'), { key: testEnv().publicKey })).status).toBe(401);
    expect((await api(playerPath('player.html'))).status).toBe(401);
    expect((await api(playerPath('player.html', tampered(presignedQuery(fx.recordingId))))).status).toBe(403);
    expect((await get(`/recordings/${randomUUID()}/preview`)).status).toBe(404);
    expect((await get(playerPath('preview'), { key: testEnv().publicKey })).status).toBe(401);
    expect((await api(playerPath('preview', tampered(presignedQuery(fx.recordingId))))).status).toBe(403);
  });

  it("serves a new tenant's private key (default signing key), and answers 400 once the tenant has no signing key", async () => {
    const tenantId = `nosig_${randomUUID().slice(0, 8)}`;
    expect((await admin('POST', '/tenants', { id: tenantId })).status).toBe(201);
    const pub = (await admin('POST', `/tenants/${tenantId}/keys`, { kind: 'public' })).json<{ key: string }>().key;
    const sec = (await admin('POST', `/tenants/${tenantId}/keys`, { kind: 'secret' })).json<{ key: string }>().key;
    const id = randomUUID();
    expect(
      (
        await pollUntil(
          () => postEvents(id, fx.events, pub),
          (x) => x.status !== 401,
          10_000,
        )
      ).status,
    ).toBe(200);
    const page = await api(`/recordings/${id}/player.html`, { key: sec });
    expect([page.status, page.text]).toEqual([200, expect.stringMatching(/keyId=default\b/)]);
    expect((await admin('DELETE', `/tenants/${tenantId}/signing-keys/default`)).status).toBe(204);
    const r = await pollUntil(
      () => api(`/recordings/${id}/player.html`, { key: sec }),
      (x) => x.status !== 200,
      5_000,
    );
    expect(r.status).toBe(400);
    expect(r.headers.get('content-type')).toMatch(/^text\/plain/);
    expect(r.text).toMatch(/signing key/);
    expect(r.text).not.toContain(sec);
  });
});
