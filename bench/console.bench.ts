// The console (docs/console.md) in Chromium against the running service: a tenant with 50 one-minute
// recordings whose thumbnails are rendered first (their generation rate is measured, with the
// service's CPU per thumbnail); then the recordings page loaded cold (a fresh browser context: no
// cache) and warm (the same context again), each until the 50 are listed and every thumbnail in the
// window is shown (the rest load lazily on scrolling), and the time from
// a click on a recording to the player's first frame (window.__tapedeck.ready in its frame).
import { randomBytes, randomUUID } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { chromium, type Browser, type BrowserContext, type Frame, type Page } from 'playwright-core';
import { CHROMIUM_ARGS } from '../test/harness/browser';
import { consoleRecording } from '../test/e2e/console-fixtures';
import { descendants } from '../test/harness/proc';
import { BenchContext, BenchSection, cpuMs, latencySummary, now, sized, sleep } from './bench-kit';

const RECORDINGS = sized(50, 3);
const RECORDING_MS = sized(60_000, 5_000);
const LOADS = sized(5, 1);
const TARGETS = { warmMs: 500, coldMs: 1500, firstFrameMs: 500 };

async function call(base: string, path: string, init: { method?: string; token?: string; body?: unknown } = {}) {
  const r = await fetch(base + path, {
    method: init.method ?? 'GET',
    headers: { ...(init.token ? { authorization: `Bearer ${init.token}` } : {}), ...(init.body !== undefined ? { 'content-type': 'application/json' } : {}) },
    body: init.body === undefined ? undefined : JSON.stringify(init.body),
  });
  const text = await r.text();
  if (!r.ok) throw new Error(`${init.method ?? 'GET'} ${path}: ${r.status} ${text.slice(0, 200)}`);
  return text ? JSON.parse(text) : undefined;
}

/** CPU ms used so far by the service and its descendants (its Chromium), per process id. */
function treeCpu(root: number): Map<number, number> {
  const out = new Map<number, number>();
  for (const pid of [root, ...descendants(root)]) {
    try {
      out.set(pid, cpuMs(pid));
    } catch {
      // gone meanwhile
    }
  }
  return out;
}

/** CPU ms the tree spent between two readings (processes started in between count from zero). */
const spent = (before: Map<number, number>, after: Map<number, number>) => [...after].reduce((n, [pid, ms]) => n + ms - (before.get(pid) ?? 0), 0);

async function waitFor(check: () => Promise<boolean>, timeoutMs: number, what: string): Promise<void> {
  const until = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`);
    await sleep(200);
  }
}

/**
 * With BENCH_TRACE=1, what a page or frame fetched (ms from its navigation's start): where a load's
 * time goes. Printed to stderr, never part of the results.
 */
async function trace(what: string, ms: number, frame: Page | Frame): Promise<void> {
  if (!process.env.BENCH_TRACE) return;
  const lines = await frame.evaluate(() => {
    const nav = performance.getEntriesByType('navigation')[0] as PerformanceNavigationTiming | undefined;
    const ms = (n: number) => Math.round(n);
    return [
      `page ${ms(nav?.responseEnd ?? 0)}, parsed ${ms(nav?.domContentLoadedEventEnd ?? 0)}`,
      ...(performance.getEntriesByType('resource') as PerformanceResourceTiming[]).map(
        (r) => `${r.name.replace(location.origin, '').slice(0, 72)} ${ms(r.startTime)}-${ms(r.responseEnd)}${r.transferSize ? '' : ' (cache)'}`,
      ),
    ];
  });
  process.stderr.write(`${what} ${Math.round(ms)} ms\n  ${lines.join('\n  ')}\n`);
}

/**
 * Loads the recordings page and waits until the 50 cards are listed and the thumbnails in the window
 * (the first two rows of four at 1280×800) are decoded; the others load lazily on scrolling. ms.
 */
async function loadList(page: Page, base: string, count: number): Promise<number> {
  const t = now();
  await page.goto(`${base}/console/recordings`);
  await page
    .waitForFunction(
      (n) => {
        const seen = Array.from(document.querySelectorAll('img.thumb')).slice(0, Math.min(n, 8)) as HTMLImageElement[];
        return document.querySelectorAll('ul.cards > li').length >= n && seen.length === Math.min(n, 8) && seen.every((i) => i.complete && i.naturalWidth > 0);
      },
      count,
      { timeout: 60_000, polling: 25 },
    )
    .catch(async (e: Error) => {
      const state = await page.evaluate(() => ({
        url: location.href,
        cards: document.querySelectorAll('ul.cards > li').length,
        images: Array.from(document.querySelectorAll('img.thumb'))
          .map((i) => `${(i as HTMLImageElement).complete}/${(i as HTMLImageElement).naturalWidth}/${Math.round(i.getBoundingClientRect().top)}`)
          .slice(0, 12),
        text: document.body.innerText.slice(0, 300),
      }));
      throw new Error(`${e.message}: ${JSON.stringify(state)}`);
    });
  const ms = now() - t;
  await trace('recordings page', ms, page);
  return ms;
}

/**
 * With BENCH_CHROME_TRACE=<dir>, four loads of the recordings page in one fresh context, each
 * recorded as a Chromium performance trace (<dir>/load-N.json, for chrome://tracing or Perfetto):
 * why the second load of a context costs more than the later ones. Never part of the results.
 */
async function chromeTraces(browser: Browser, signedIn: () => Promise<BrowserContext>, base: string): Promise<void> {
  const dir = process.env.BENCH_CHROME_TRACE;
  if (!dir) return;
  mkdirSync(dir, { recursive: true });
  const c = await signedIn();
  const page = await c.newPage();
  for (let n = 1; n <= 4; n++) {
    await browser.startTracing(page, { path: join(dir, `load-${n}.json`), screenshots: false });
    const ms = await loadList(page, base, RECORDINGS);
    await page.waitForLoadState('networkidle');
    await browser.stopTracing();
    process.stderr.write(`traced load ${n}: ${Math.round(ms)} ms\n`);
  }
  await c.close();
}

export const consoleBench: BenchSection = {
  name: 'console',
  async run(ctx: BenchContext) {
    const base = ctx.env.baseUrl;
    const admin = ctx.env.adminToken;
    const tenantId = `bench_console_${randomBytes(3).toString('hex')}`;
    await call(base, '/admin/tenants', { method: 'POST', token: admin, body: { id: tenantId } });
    const pub = (await call(base, `/admin/tenants/${tenantId}/keys`, { method: 'POST', token: admin, body: { kind: 'public' } })).key as string;
    const secret = (await call(base, `/admin/tenants/${tenantId}/keys`, { method: 'POST', token: admin, body: { kind: 'secret' } })).key as string;

    const ids: string[] = [];
    const start = Date.now() - RECORDINGS * 120_000;
    for (let i = 0; i < RECORDINGS; i++) {
      const id = randomUUID();
      const events = consoleRecording({ start: start + i * 120_000, durationMs: RECORDING_MS, color: `hsl(${(i * 47) % 360} 60% 40%)`, title: `Shop ${i}` });
      await call(base, `/recordings/${id}/events`, { method: 'POST', token: pub, body: events });
      await call(base, `/recordings/${id}/metadata`, { method: 'POST', token: pub, body: { plan: i % 2 ? 'pro' : 'free', user: `u${i}` } });
      ids.push(id);
    }
    await waitFor(async () => (await call(base, '/recordings?limit=100', { token: secret })).recordings.length === RECORDINGS, 60_000, 'the listing');

    // Thumbnails: one request each queues the background renders; wait until all answer 200.
    const cpuBefore = treeCpu(ctx.pids.service);
    const t0 = now();
    const status = async (id: string) => (await fetch(`${base}/recordings/${id}/thumbnail`, { headers: { authorization: `Bearer ${secret}` } })).status;
    await Promise.all(ids.map(status));
    await waitFor(async () => (await Promise.all(ids.map(status))).every((s) => s === 200), 300_000, 'the thumbnails');
    const thumbSeconds = (now() - t0) / 1000;
    const serviceCpuSeconds = spent(cpuBefore, treeCpu(ctx.pids.service)) / 1000;
    ctx.log(`console: ${RECORDINGS} thumbnails in ${thumbSeconds.toFixed(1)} s (service CPU ${serviceCpuSeconds.toFixed(1)} s)`);

    const browser = await chromium.launch({ executablePath: ctx.env.chromiumPath, args: CHROMIUM_ARGS });
    const signedIn = async (): Promise<BrowserContext> => {
      const c = await browser.newContext({ viewport: { width: 1280, height: 800 } });
      const r = await c.request.post(`${base}/console/session`, { data: { key: secret } });
      if (r.status() !== 200) throw new Error(`sign-in answered ${r.status()}`);
      return c;
    };
    try {
      const cold: number[] = [];
      const warm: number[] = [];
      for (let i = 0; i < LOADS; i++) {
        const c = await signedIn();
        const page = await c.newPage();
        cold.push(await loadList(page, base, RECORDINGS));
        // The cold page finishes first (its lazy thumbnails below the window load for about half a
        // second more): a warm load is a return to the page, not a reload cut into the tail of the
        // first one (measured right after it, the warm load took 525-716 ms instead of 301-350).
        await page.waitForLoadState('networkidle');
        warm.push(await loadList(page, base, RECORDINGS));
        await c.close();
      }
      const firstFrame: number[] = [];
      const c = await signedIn();
      const page = await c.newPage();
      for (let i = 0; i < LOADS; i++) {
        await loadList(page, base, RECORDINGS);
        const t = now();
        await page
          .locator('ul.cards .title')
          .nth(i % RECORDINGS)
          .click();
        const frame = await (async () => {
          for (;;) {
            const f = page.frames().find((x) => /\/player\.html/.test(x.url()));
            if (f) return f;
            await sleep(5);
          }
        })();
        await frame.waitForFunction(() => (window as unknown as { __tapedeck?: { ready: boolean } }).__tapedeck?.ready === true, undefined, {
          timeout: 30_000,
          polling: 'raf',
        });
        firstFrame.push(now() - t);
        await trace('first frame (player frame)', now() - t, frame);
      }
      await c.close();
      await chromeTraces(browser, signedIn, base);
      const summary = { cold: latencySummary(cold), warm: latencySummary(warm), firstFrame: latencySummary(firstFrame) };
      return {
        recordings: RECORDINGS,
        recordingSeconds: RECORDING_MS / 1000,
        coldLoadMs: summary.cold,
        warmLoadMs: summary.warm,
        firstFrameMs: summary.firstFrame,
        thumbnails: {
          count: RECORDINGS,
          seconds: Number(thumbSeconds.toFixed(2)),
          perSecond: Number((RECORDINGS / thumbSeconds).toFixed(2)),
          cpuSecondsEach: Number((serviceCpuSeconds / RECORDINGS).toFixed(3)),
          /** Thumbnails per CPU-second of the service and its Chromium: what one core makes per second. */
          perCoreSecond: Number((RECORDINGS / Math.max(0.001, serviceCpuSeconds)).toFixed(2)),
        },
        targets: TARGETS,
        met: {
          warm: summary.warm.p50 < TARGETS.warmMs,
          cold: summary.cold.p50 < TARGETS.coldMs,
          firstFrame: summary.firstFrame.p50 < TARGETS.firstFrameMs,
        },
      };
    } finally {
      await browser.close();
    }
  },
};
