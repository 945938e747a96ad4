// Rendering against the real Chromium: a page recorded with @rrweb/record is screenshotted live at a
// moment T and rendered by ScreenshotRenderer at T from its events; the two must match by pixels.
// The hosted player page is served from a tiny local server and must load, honour its options and
// log nothing to the console. Latencies are printed, not asserted.
import type { Server } from 'node:http';
import sharp from 'sharp';
import { Browser, chromium, ConsoleMessage, Page } from 'playwright-core';
import type { RrwebEvent } from '../../src/domain/rrweb-event';
import type { AppError } from '../../src/common/app-error';
import { BrowserPool } from '../../src/rendering/browser-pool/browser-pool';
import type { RenderBrowser } from '../../src/rendering/browser-pool/render-browser';
import { LocalBrowser } from '../../src/rendering/screenshot/replay-page';
import { CHROMIUM_ARGS as NETWORKED_ARGS } from '../harness/browser';
import { PlayerAssets } from '../../src/rendering/player/player-assets';
import { buildPlayerPage } from '../../src/rendering/player/player-page';
import { parsePlayerQuery } from '../../src/rendering/player/player-params';
import { ScreenshotRenderer, ScreenshotRequest } from '../../src/rendering/screenshot/screenshot-renderer';
import { pollUntil } from '../harness/poll-until';
import {
  ANIMATED_HTML,
  fixtureHtml,
  percentile,
  playBusyFixture,
  playAnimated,
  playerState,
  playFixture,
  playResize,
  recordedEvents,
  similarity,
  startRecording,
  startServer,
} from './rendering-fixtures';

/** Pools built in these specs drive Chromium from this thread (no compiled render worker under ts-jest). */
const playwright = (b: RenderBrowser): Browser => (b as LocalBrowser).browser;

const CHROMIUM = '/usr/bin/chromium';
const VIEWPORT = { width: 800, height: 600 };
/** The window size the resized recording changes to, mid-way (a phone turned upright). */
const RESIZED = { width: 400, height: 700 };
/** Pixels whose channels all differ by at most 20/255 must make up at least this share. */
const MIN_SIMILAR_PIXELS = 0.97;
const MAX_MEAN_ABS_DIFF = 0.03;

jest.setTimeout(180_000);

describe('rendering with Chromium', () => {
  let browser: Browser;
  let server: Server;
  let origin: string;
  let trackerHits = 0;
  let playerEvents: RrwebEvent[] = [];
  let resized: { events: RrwebEvent[]; at: number; live: Buffer };
  let animated: { events: RrwebEvent[]; at: number; live: Buffer };
  const assets = new PlayerAssets();
  const TRACKER_PNG = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==', 'base64');

  beforeAll(async () => {
    // Records the fixture pages and runs the player from a local server: a browser with network (the
    // renderer's own, launched by BrowserPool with the service's arguments, has none).
    browser = await chromium.launch({ executablePath: CHROMIUM, args: NETWORKED_ARGS });
    ({ server, origin } = await startServer((req, res, url) => {
      const send = (status: number, headers: Record<string, string>, body?: string | Buffer) => {
        res.writeHead(status, headers);
        res.end(body);
      };
      if (url.pathname === '/tracker.png') {
        trackerHits++;
        return send(200, { 'Content-Type': 'image/png' }, TRACKER_PNG);
      }
      if (url.pathname === '/fixture') return send(200, { 'Content-Type': 'text/html' }, fixtureHtml(`${origin}/tracker.png`));
      if (url.pathname === '/events.json') return send(200, { 'Content-Type': 'application/json' }, JSON.stringify(playerEvents));
      if (url.pathname === '/no-meta.json') return send(200, { 'Content-Type': 'application/json' }, JSON.stringify(playerEvents.filter((e) => e.type !== 4)));
      if (url.pathname === '/malformed.json')
        return send(200, { 'Content-Type': 'application/json' }, JSON.stringify(withMalformed(playerEvents, panelOpened(playerEvents).timestamp - 1)));
      if (url.pathname === '/animated.json') return send(200, { 'Content-Type': 'application/json' }, JSON.stringify(animated.events));
      if (url.pathname === '/resized.json') return send(200, { 'Content-Type': 'application/json' }, JSON.stringify(resized.events));
      if (url.pathname.startsWith('/assets/')) {
        const r = assets.respond(url.pathname.slice('/assets/'.length), req.headers['if-none-match'], url.searchParams.get('v') ?? undefined);
        return send(r.status, r.headers, r.body);
      }
      if (url.pathname === '/player') {
        try {
          const q = parsePlayerQuery(Object.fromEntries(url.searchParams), origin);
          const page = buildPlayerPage({
            ...q,
            eventsUrl: q.eventsUrl ?? '/events.json',
            frameAncestors: "'self'",
            title: 'Recording fixture',
            assetVersion: assets.version,
          });
          return send(200, page.headers, page.html);
        } catch (err) {
          return send(400, { 'Content-Type': 'text/plain' }, String(err));
        }
      }
      return send(404, { 'Content-Type': 'text/plain' }, 'not found');
    }));
    resized = await recordResized();
    animated = await recordAnimated();
  });

  afterAll(async () => {
    await browser?.close();
    await new Promise((r) => server?.close(r));
  });

  /** Records the fixture; returns the events, the live screenshot at T, T, and a moment before the changes. */
  async function recordFixture(): Promise<{ events: RrwebEvent[]; live: Buffer; at: number; before: number }> {
    const context = await browser.newContext({ viewport: VIEWPORT, deviceScaleFactor: 1 });
    const page = await context.newPage();
    await page.goto(`${origin}/fixture`);
    await startRecording(page);
    // A long tail: the player test autoplays from offset:1000 at 2x and must still be playing.
    const { before, at, live } = await playFixture(page, 1200);
    const events = await recordedEvents(page);
    await context.close();
    return { events, live, at, before };
  }

  /** Records the fixture at VIEWPORT, resized to RESIZED before T; the live screenshot at T is RESIZED. */
  async function recordResized(): Promise<{ events: RrwebEvent[]; at: number; live: Buffer }> {
    const context = await browser.newContext({ viewport: VIEWPORT, deviceScaleFactor: 1 });
    const page = await context.newPage();
    await page.goto(`${origin}/fixture`);
    await startRecording(page);
    const { at, live } = await playResize(page, RESIZED);
    const events = await recordedEvents(page);
    await context.close();
    return { events, at, live };
  }

  /** Records ANIMATED_HTML: T comes a second after its animations started. */
  async function recordAnimated(): Promise<{ events: RrwebEvent[]; at: number; live: Buffer }> {
    const context = await browser.newContext({ viewport: VIEWPORT, deviceScaleFactor: 1 });
    const page = await context.newPage();
    await page.setContent(ANIMATED_HTML);
    const { at, live } = await playAnimated(page);
    const events = await recordedEvents(page);
    await context.close();
    return { events, at, live };
  }

  /** About 1000 events: a counter updated every few milliseconds. */
  async function recordBusyPage(): Promise<RrwebEvent[]> {
    const context = await browser.newContext({ viewport: { width: 1280, height: 720 } });
    const page = await context.newPage();
    await page.goto(`${origin}/fixture`);
    await startRecording(page);
    await playBusyFixture(page);
    const events = await recordedEvents(page);
    await context.close();
    return events;
  }

  describe('screenshots', () => {
    let pool: BrowserPool;
    let renderer: ScreenshotRenderer;
    let fixture: Awaited<ReturnType<typeof recordFixture>>;

    beforeAll(async () => {
      pool = new BrowserPool({ chromiumPath: CHROMIUM, concurrency: 2, queueLimit: 8, timeoutMs: 15_000 });
      renderer = new ScreenshotRenderer(pool, { timeoutMs: 15_000 });
      fixture = await recordFixture();
    });

    afterAll(async () => {
      await renderer?.close();
      await pool?.close();
    });

    it('renders the moment T like a live screenshot taken at T, without touching the network', async () => {
      const hitsBefore = trackerHits;
      const image = await renderer.render({
        tenantId: 't',
        contentKey: 'fixture',
        events: fixture.events,
        time: { kind: 'epoch', value: fixture.at },
        format: 'png',
        width: VIEWPORT.width,
        height: VIEWPORT.height,
      });
      const same = await similarity(fixture.live, image.bytes);
      const earlier = await renderer.render({
        tenantId: 't',
        contentKey: 'fixture',
        events: fixture.events,
        time: { kind: 'epoch', value: fixture.before },
        format: 'png',
        width: VIEWPORT.width,
        height: VIEWPORT.height,
      });
      const differs = await similarity(fixture.live, earlier.bytes);
      console.log(
        `fixture: ${fixture.events.length} events; at T: ${(same.similarPixels * 100).toFixed(2)}% similar pixels, mean abs diff ${(same.meanAbsDiff * 100).toFixed(2)}%; ` +
          `before the interactions: ${(differs.similarPixels * 100).toFixed(2)}% similar, ${(differs.meanAbsDiff * 100).toFixed(2)}% diff`,
      );
      expect(same.similarPixels).toBeGreaterThanOrEqual(MIN_SIMILAR_PIXELS);
      expect(same.meanAbsDiff).toBeLessThan(MAX_MEAN_ABS_DIFF);
      // The metric tells the states apart: the panel and the list changed after `before`.
      expect(differs.similarPixels).toBeLessThan(MIN_SIMILAR_PIXELS);
      expect(trackerHits).toBe(hitsBefore);
    });

    it('gives a warm page the same bytes as a cold one, whatever it showed before', async () => {
      const render = (contentKey: string, value: number) =>
        renderer.render({ tenantId: 't', contentKey, events: fixture.events, time: { kind: 'epoch', value }, format: 'png', ...VIEWPORT });
      const coldAtT = await render('fixture', fixture.at); // cached from the first test
      const coldBefore = await render('fixture-2', fixture.before);
      const warmAtT = await render('fixture-2', fixture.at); // seeks forwards
      const warmStart = await renderer.render({
        tenantId: 't',
        contentKey: 'fixture-2',
        events: fixture.events,
        time: { kind: 'offset', value: 0 },
        format: 'png',
        ...VIEWPORT,
      });
      expect(warmAtT.etag).toBe(coldAtT.etag);
      // offset 0 (before the first snapshot, which comes a few ms after the Meta event) shows the
      // first snapshot, even on a page that was showing a later moment.
      const start = await similarity(coldBefore.bytes, warmStart.bytes);
      expect(start.similarPixels).toBeGreaterThanOrEqual(0.999);
    });

    it('negotiates formats and sizes, with a strong ETag and a cache', async () => {
      const base = { tenantId: 't', contentKey: 'fixture', events: fixture.events, time: { kind: 'percent', value: 50 } } as const;
      const png = await renderer.render({ ...base, format: 'png' });
      expect(png.contentType).toBe('image/png');
      expect(await sharp(png.bytes).metadata()).toMatchObject({ format: 'png', width: 1280, height: 960 }); // 800x600 ratio
      const jpeg = await renderer.render({ ...base, format: 'jpeg', height: 300, quality: 50 });
      expect(jpeg.contentType).toBe('image/jpeg');
      expect(await sharp(jpeg.bytes).metadata()).toMatchObject({ format: 'jpeg', width: 400, height: 300 });
      const webp = await renderer.render({ ...base, format: 'webp', width: 320, height: 320 });
      expect(await sharp(webp.bytes).metadata()).toMatchObject({ format: 'webp', width: 320, height: 320 });
      expect(png.etag).toMatch(/^"[A-Za-z0-9_-]{43}"$/);
      const again = await renderer.render({ ...base, format: 'png', events: () => Promise.reject(new Error('must not load')) });
      expect(again.etag).toBe(png.etag);
    });

    it('follows a window resized before T: the size of that moment, and its ratio for a derived side', async () => {
      const base = { tenantId: 't', contentKey: 'resized', events: resized.events, time: { kind: 'epoch', value: resized.at } } as const;
      const exact = await renderer.render({ ...base, format: 'png', ...RESIZED });
      const same = await similarity(resized.live, exact.bytes);
      expect(same.similarPixels).toBeGreaterThanOrEqual(MIN_SIMILAR_PIXELS);
      // Only a width (or nothing): the height follows the 400x700 window of T, not the first 800x600.
      const derived = await renderer.render({ ...base, format: 'png', width: RESIZED.width });
      expect(await sharp(derived.bytes).metadata()).toMatchObject({ width: 400, height: 700 });
      expect(derived.etag).toBe(exact.etag);
      const byHeight = await renderer.render({ ...base, format: 'png', height: 350 });
      expect(await sharp(byHeight.bytes).metadata()).toMatchObject({ width: 200, height: 350 });
      // Before the resize: the first window's ratio.
      const start = await renderer.render({ ...base, time: { kind: 'offset', value: 0 }, format: 'png', width: 400 });
      expect(await sharp(start.bytes).metadata()).toMatchObject({ width: 400, height: 300 });
    });

    it('renders a recording without a Meta event in a window of the requested size', async () => {
      const image = await renderer.render({
        tenantId: 't',
        contentKey: 'no-meta',
        events: fixture.events.filter((e) => e.type !== 4),
        time: { kind: 'epoch', value: fixture.at },
        format: 'png',
        ...VIEWPORT,
      });
      const same = await similarity(fixture.live, image.bytes);
      expect(same.similarPixels).toBeGreaterThanOrEqual(MIN_SIMILAR_PIXELS);
    });

    it('renders the moment just before a keyframe as it was, not as the recording began', async () => {
      // A keyframe (Meta, FullSnapshot) one millisecond after T: rrweb starts a seek at the last Meta
      // at or before its baseline, so a baseline of T + 1 began there and applied nothing.
      const meta = fixture.events.find((e) => e.type === 4)!;
      const first = fixture.events.find((e) => e.type === 2)!;
      const events = [...fixture.events, { ...meta, timestamp: fixture.at + 1 }, { ...first, timestamp: fixture.at + 1 }].sort(
        (a, b) => a.timestamp - b.timestamp,
      );
      const image = await renderer.render({
        tenantId: 't',
        contentKey: 'keyframe-next',
        events,
        time: { kind: 'epoch', value: fixture.at },
        format: 'png',
        ...VIEWPORT,
      });
      const same = await similarity(fixture.live, image.bytes);
      expect(same.similarPixels).toBeGreaterThanOrEqual(MIN_SIMILAR_PIXELS);
    });

    it('skips events rrweb cannot apply (a mouse move without positions) and renders the rest', async () => {
      // The service stores any event with an integer type and timestamp and an object data; a
      // malformed one made rrweb throw inside the seek, and the screenshot was a 500.
      const events = withMalformed(fixture.events, fixture.before + 1);
      const image = await renderer.render({
        tenantId: 't',
        contentKey: 'malformed',
        events,
        time: { kind: 'epoch', value: fixture.at },
        format: 'png',
        ...VIEWPORT,
      });
      const same = await similarity(fixture.live, image.bytes);
      expect(same.similarPixels).toBeGreaterThanOrEqual(MIN_SIMILAR_PIXELS);
    });

    it('shows transitions and entrance animations finished at T, as the live page had them', async () => {
      const { events, at, live } = animated;
      const image = await renderer.render({ tenantId: 't', contentKey: 'animated', events, time: { kind: 'epoch', value: at }, format: 'png', ...VIEWPORT });
      const same = await similarity(live, image.bytes);
      expect(same.similarPixels).toBeGreaterThanOrEqual(MIN_SIMILAR_PIXELS);
    });

    it('refuses a position outside the recording with 422', async () => {
      const last = Math.max(...fixture.events.map((e) => e.timestamp));
      await expect(
        renderer.render({ tenantId: 't', contentKey: 'fixture', events: fixture.events, time: { kind: 'epoch', value: last + 1 }, format: 'png' }),
      ).rejects.toMatchObject({ code: 'unprocessable' });
    });

    it('measures cold and warm latency on ~1000 events at 1280x720', async () => {
      const events = await recordBusyPage();
      // A pool of its own, so the first render pays for launching Chromium.
      const freshPool = new BrowserPool({ chromiumPath: CHROMIUM, concurrency: 2, queueLimit: 8, timeoutMs: 15_000 });
      const fresh = new ScreenshotRenderer(freshPool, { timeoutMs: 15_000 });
      const at = (p: number) => ({ kind: 'percent', value: p }) as const;
      const timed = async (r: Partial<ScreenshotRequest>) => {
        const t = performance.now();
        await fresh.render({ tenantId: 't', contentKey: 'busy', events, time: at(50), format: 'png', width: 1280, height: 720, ...r });
        return performance.now() - t;
      };
      try {
        const coldLaunch = await timed({});
        const cold = await timed({ contentKey: 'busy-again' });
        const warm: number[] = [];
        for (let i = 0; i < 20; i++) warm.push(await timed({ time: at(2 + i * 4.9) }));
        const warmJpeg: number[] = [];
        for (let i = 0; i < 10; i++) warmJpeg.push(await timed({ time: at(3 + i * 9.1), format: 'jpeg' }));
        const cached = await timed({});
        console.log(
          `latency, ${events.length} events at 1280x720: cold with browser launch ${coldLaunch.toFixed(0)} ms; cold ${cold.toFixed(0)} ms; ` +
            `warm PNG p50 ${percentile(warm, 50).toFixed(0)} ms (p90 ${percentile(warm, 90).toFixed(0)}); ` +
            `warm JPEG p50 ${percentile(warmJpeg, 50).toFixed(0)} ms; cached ${cached.toFixed(1)} ms`,
        );
        expect(events.length).toBeGreaterThan(900);
        expect(fresh.warmHits).toBe(30);
        expect(fresh.coldRenders).toBe(2);
      } finally {
        await fresh.close();
        await freshPool.close();
      }
    });

    it('answers 503 when a render runs out of time, and leaves nothing open behind it', async () => {
      const tight = new BrowserPool({ chromiumPath: CHROMIUM, concurrency: 1, queueLimit: 0, timeoutMs: 150 });
      const hurried = new ScreenshotRenderer(tight, { timeoutMs: 150 });
      try {
        await tight.run(async () => undefined); // launch outside the measured render
        const err = await hurried
          .render({ tenantId: 't', contentKey: 'fixture', events: fixture.events, time: { kind: 'offset', value: 0 }, format: 'png' })
          .catch((e: AppError) => e);
        expect(err).toMatchObject({ code: 'unavailable', message: expect.stringMatching(/timed out/) });
        await pollUntil(
          async () => tight.inFlight,
          (n) => n === 0,
          10_000,
          20,
        );
        expect(await tight.run(async (l) => playwright(l.browser).contexts().length)).toBe(0);
        expect(tight.timeouts).toBe(1);
        expect(tight.launches).toBe(1); // the task let go when aborted: no browser restart
      } finally {
        await hurried.close();
        await tight.close();
      }
    });

    it('survives a browser crash during a render: retried once on a new browser', async () => {
      const launchesBefore = pool.launches;
      let first = true;
      const result = await pool.run(async (lease) => {
        if (first) {
          first = false;
          const cdp = await playwright(lease.browser).newBrowserCDPSession();
          await cdp.send('Browser.crash').catch(() => undefined);
          const ctx = await playwright(lease.browser).newContext(); // fails: the browser is gone
          await ctx.close();
          return 'unreachable';
        }
        const ctx = await playwright(lease.browser).newContext();
        try {
          const page = await ctx.newPage();
          return await page.evaluate(() => 'rendered after restart');
        } finally {
          await ctx.close();
        }
      });
      expect(result).toBe('rendered after restart');
      expect(pool.launches).toBe(launchesBefore + 1);
      expect(pool.crashes).toBe(1);
      // Warm pages of the dead browser are dropped, not reused.
      const image = await renderer.render({ tenantId: 't', contentKey: 'fixture', events: fixture.events, time: { kind: 'offset', value: 10 }, format: 'png' });
      expect(image.bytes.length).toBeGreaterThan(1000);
    });
  });

  describe('player page', () => {
    let duration = 0;

    beforeAll(async () => {
      const { events } = await recordFixture();
      playerEvents = events;
      const ts = events.map((e) => e.timestamp);
      duration = Math.max(...ts) - Math.min(...ts);
    });

    async function open(query: string): Promise<{ page: Page; problems: string[]; headers: Record<string, string> }> {
      const context = await browser.newContext({ viewport: { width: 1024, height: 768 } });
      const page = await context.newPage();
      const problems: string[] = [];
      page.on('console', (m: ConsoleMessage) => {
        // The recorded page's image comes from this very server, i.e. the player's own origin: the
        // CSP refuses it all the same (images only from data:, blob: and PLAYER_ASSET_SOURCES).
        const refusedTracker = m.text().includes(`${origin}/tracker.png`) && /Content Security Policy|CSP violation/.test(m.text());
        if ((m.type() === 'error' || m.type() === 'warning') && !refusedTracker) problems.push(`${m.type()}: ${m.text()}`);
      });
      page.on('pageerror', (e) => problems.push(`pageerror: ${e.message}`));
      await context.addInitScript(() =>
        window.addEventListener('securitypolicyviolation', (e) => console.error(`CSP violation: ${e.violatedDirective} ${e.blockedURI}`)),
      );
      const res = await page.goto(`${origin}/player?${query}`);
      await page.waitForFunction(() => {
        const s = (window as unknown as { __tapedeck?: { ready: boolean; error?: string } }).__tapedeck;
        return !!s && (s.ready || !!s.error);
      });
      await page.waitForTimeout(300);
      return { page, problems, headers: res!.headers() };
    }

    const state = playerState;

    it('loads with the defaults: standard page, controls, paused at the start', async () => {
      const hitsBefore = trackerHits;
      const { page, problems, headers } = await open('');
      expect(trackerHits).toBe(hitsBefore); // not even from the player's own origin
      const s = await state(page);
      expect(s).toMatchObject({ ready: true, error: undefined, playing: false, speed: 1, header: true, controller: true, status: null });
      expect(s.time).toBeLessThan(50);
      expect(s.replayText).toContain('Tapedeck fixture page');
      const nonce = /'nonce-([^']+)'/.exec(headers['content-security-policy'])![1];
      expect(await page.locator(`script[nonce]`).count()).toBe(1);
      expect(await page.evaluate(() => document.querySelector('script[nonce]')!.getAttribute('nonce'))).toBe(''); // hidden from the DOM
      expect(headers['content-security-policy']).toContain("default-src 'none'");
      expect(headers['content-security-policy']).toContain("frame-ancestors 'self'");
      expect(nonce.length).toBeGreaterThanOrEqual(16);
      expect(headers).toMatchObject({ 'x-content-type-options': 'nosniff', 'referrer-policy': 'no-referrer', 'cache-control': 'no-store' });
      expect(problems).toEqual([]);
      await page.context().close();
    });

    it('honours controls=false, autoplay, speed and a start time', async () => {
      const { page, problems } = await open('mode=minimal&controls=false&autoplay=true&speed=2&time=offset:1000');
      const s = await state(page);
      expect(duration).toBeGreaterThan(2500); // at 2x, still playing when probed
      expect(s).toMatchObject({ ready: true, playing: true, speed: 2, header: false, controller: false });
      expect(s.time).toBeGreaterThan(1000);
      expect(problems).toEqual([]);
      await page.context().close();
    });

    it('starts paused at a percentage with a non-standard speed', async () => {
      const { page, problems } = await open('time=percent:50&speed=0.25');
      const s = await state(page);
      expect(s).toMatchObject({ ready: true, playing: false, speed: 0.25, controller: true });
      expect(Math.abs(s.time - duration / 2)).toBeLessThan(50);
      expect(problems).toEqual([]);
      await page.context().close();
    });

    it('starts at a time after a window resize with the window of that time', async () => {
      const { page, problems } = await open(`eventsUrl=/resized.json&mode=capture&time=epoch:${resized.at}`);
      const frame = await page.evaluate(() => {
        const f = (window as any).__tapedeck.player.getReplayer().iframe as HTMLIFrameElement;
        return { width: f.width, height: f.height };
      });
      expect(frame).toEqual({ width: String(RESIZED.width), height: String(RESIZED.height) });
      expect((await state(page)).replayText).toContain('open: the panel is orange');
      expect(problems).toEqual([]);
      await page.context().close();
    });

    it('shows the events of the start time itself, as a screenshot at that time does', async () => {
      const opened = panelOpened(playerEvents);
      const { page, problems } = await open(`time=epoch:${opened.timestamp}`);
      const s = await state(page);
      expect(s).toMatchObject({ ready: true, playing: false });
      expect(s.replayText).toContain('open: the panel is orange');
      expect(problems).toEqual([]);
      await page.context().close();
    });

    it('skips events rrweb cannot apply, when seeking and when playing through them', async () => {
      const opened = panelOpened(playerEvents).timestamp;
      const seek = await open(`eventsUrl=/malformed.json&time=epoch:${opened}`);
      expect(await state(seek.page)).toMatchObject({ ready: true, error: undefined });
      expect((await state(seek.page)).replayText).toContain('open: the panel is orange');
      // rrweb catches a bad mutation itself and says so; nothing else may be reported.
      const notRrwebsOwn = (problems: string[]) => problems.filter((p) => !p.startsWith('warning: [replayer] Exception in mutation'));
      expect(notRrwebsOwn(seek.problems)).toEqual([]);
      await seek.page.context().close();
      const play = await open(`eventsUrl=/malformed.json&autoplay=true&time=epoch:${opened - 300}`);
      // Started 300 ms before the bad events and the panel opening: playback reaches both.
      await pollUntil(
        () => state(play.page),
        (s) => s.replayText.includes('open: the panel is orange'),
        5_000,
      );
      expect(notRrwebsOwn(play.problems)).toEqual([]);
      expect(await play.page.evaluate(() => (window as any).__tapedeck.player.getReplayer().skippedEvents)).toBeGreaterThan(0);
      await play.page.context().close();
    });

    it('shows a recording without a Meta event in the whole player', async () => {
      const { page, problems } = await open('eventsUrl=/no-meta.json&mode=capture');
      const frame = await page.evaluate(() => {
        const f = (window as any).__tapedeck.player.getReplayer().iframe as HTMLIFrameElement;
        return f.getBoundingClientRect().toJSON() as { width: number; height: number };
      });
      expect(frame).toMatchObject({ width: 1024, height: 768 });
      expect((await state(page)).replayText).toContain('Tapedeck fixture page');
      expect(problems).toEqual([]);
      await page.context().close();
    });

    it('starts at a time with the animations the seek set off finished, as a screenshot shows them', async () => {
      const { page, problems } = await open(`eventsUrl=/animated.json&mode=capture&time=epoch:${animated.at}`);
      const shown = await page.evaluate(() => {
        const doc = (window as any).__tapedeck.player.getReplayer().iframe.contentDocument as Document;
        const style = (el: Element) => doc.defaultView!.getComputedStyle(el);
        return {
          slide: style(doc.getElementById('slide')!).width,
          toast: style(doc.getElementById('toast')!).opacity,
          shadow: style(doc.getElementById('host')!.shadowRoot!.querySelector('p')!).backgroundColor,
        };
      });
      expect(shown).toEqual({ slide: '500px', toast: '1', shadow: 'rgb(0, 255, 0)' });
      expect(problems).toEqual([]);
      await page.context().close();
    });

    it('capture mode fills the viewport without any chrome', async () => {
      const { page, problems } = await open('mode=capture');
      const s = await state(page);
      expect(s).toMatchObject({ ready: true, header: false, controller: false, playing: false });
      expect(Math.max(s.playerBox!.width / 1024, s.playerBox!.height / 768)).toBeGreaterThan(0.99);
      expect(problems).toEqual([]);
      await page.context().close();
    });

    it('shows an error in the page when the events cannot be fetched', async () => {
      const { page, problems } = await open('eventsUrl=/missing.json');
      const s = await state(page);
      expect(s.ready).toBe(false);
      expect(s.error).toMatch(/HTTP 404/);
      expect(s.status).toMatch(/could not be loaded/);
      expect(problems.filter((p) => !/404/.test(p))).toEqual([]);
      await page.context().close();
    });

    it('answers 400 for a cross-origin eventsUrl', async () => {
      const res = await fetch(`${origin}/player?eventsUrl=${encodeURIComponent('//evil.example.com/e')}`);
      expect(res.status).toBe(400);
    });

    it('serves the assets with long cache headers and revalidation', async () => {
      const res = await fetch(`${origin}/assets/rrweb-player.js?v=${assets.version}`);
      expect(res.status).toBe(200);
      expect(res.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
      const etag = res.headers.get('etag')!;
      const again = await fetch(`${origin}/assets/rrweb-player.js`, { headers: { 'if-none-match': etag } });
      expect(again.status).toBe(304);
    });
  });
});

/** The event that opens the fixture's panel. */
function panelOpened(events: RrwebEvent[]): RrwebEvent {
  return events.find((e) => e.type === 3 && JSON.stringify(e.data).includes('open: the panel is orange'))!;
}

/** `events` with incremental events at `ts` that rrweb's replayer throws on (valid for ingestion). */
function withMalformed(events: RrwebEvent[], ts: number): RrwebEvent[] {
  const bad: RrwebEvent[] = [
    { type: 3, timestamp: ts, data: { source: 1 } }, // a mouse move without positions
    { type: 3, timestamp: ts, data: { source: 0 } }, // a mutation without its lists
    { type: 3, timestamp: ts, data: { source: 3, id: 1 } }, // a scroll without coordinates
  ];
  return [...events, ...bad].sort((a, b) => a.timestamp - b.timestamp);
}
