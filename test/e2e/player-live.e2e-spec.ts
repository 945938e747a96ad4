// The hosted player with live=true against the running service (#29 point 3): a page recorded by our
// recorder (/sdk/recorder.js over its WebSocket) in one browser context, the player opened through a
// presigned link alone in another. A change of the recorded page shows in the player's replay frame
// within a couple of seconds, and every change once, in order, across a cut connection; Pause holds the view while the page changes on, Go live catches up;
// deleting the recording ends the view. A second instance with LIVE_IDLE_SECONDS=2 serves the player
// of a recording ingested through the first: the view says "Session ended" once the page is idle,
// and follows again when it changes; a second viewer beyond its limit of one waits its turn (429).
// No console error, CSP violation or failed load on the way.
// Screenshots of the live player go to PLAYER_LIVE_SCREENSHOTS (a directory) when it is set.
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, ConsoleMessage, Page } from 'playwright-core';
import { launchChromium } from '../harness/browser';
import { testEnv } from '../harness/env';
import { api } from '../harness/http';
import { PageServer } from '../harness/page-server';
import { pollUntil } from '../harness/poll-until';
import { ServiceProcess, startService } from '../harness/stack';
import { TcpProxy } from '../harness/tcp-proxy';
import { presignedQuery } from './rendering-e2e-fixtures';

jest.setTimeout(120_000);

/** A customer's page with our recorder's tag; the button adds a line of text. */
function recordedPage(serverUrl: string, publicKey: string): string {
  return `<!doctype html><html><head><meta charset="utf-8"><title>live test</title></head><body>
<h1>Live test page</h1><button id="add" onclick="var p=document.createElement('p');p.className='line';p.textContent='change '+(document.querySelectorAll('.line').length+1);document.body.appendChild(p)">Add</button>
<script src="${serverUrl}/sdk/recorder.js" data-public-key="${publicKey}" data-server-url="${serverUrl}"></script>
</body></html>`;
}

interface LiveView {
  page: Page;
  /** Console errors and warnings, page errors, CSP violations and failed loads. */
  problems: string[];
}

type LiveState = {
  connected: boolean;
  following: boolean;
  ended?: string;
  sessionLive?: boolean;
  behindMs?: number;
  eventsApplied: number;
  eventsReceived: number;
  lastAppliedTimestamp?: number;
  lagsMs: number[];
};

let browser: Browser;
let pages: PageServer;
/** An API instance that calls a recording idle after 2 s, and admits one live viewer per tenant at once (on all instances). */
let quick: ServiceProcess;

beforeAll(async () => {
  const env = testEnv();
  [browser, quick] = await Promise.all([
    launchChromium(),
    startService(
      { ...env.serviceEnv, TAPEDECK_ROLE: 'api', TAPEDECK_ADMIN_TOKEN: '', LIVE_IDLE_SECONDS: '2', TENANT_LIVE_VIEWERS: '1' },
      env.dir,
      'player-live-idle',
    ),
  ]);
  pages = await PageServer.start({ '/': () => recordedPage(env.baseUrl, env.publicKey) });
});

afterAll(async () => {
  await browser?.close();
  await pages?.close();
  await quick?.stop();
});

/** Opens the recorded page and waits until the service has stored its first batch. */
async function record(): Promise<{ page: Page; recordingId: string }> {
  const page = await (await browser.newContext({ viewport: { width: 900, height: 500 } })).newPage();
  await page.goto(`${pages.url}/`);
  await pollUntil(
    () => page.evaluate(() => (window as any).Tapedeck.stats()),
    (s) => s && s.acked > 0,
    15_000,
  );
  return { page, recordingId: await page.evaluate(() => (window as any).Tapedeck.getRecordingId()) };
}

/** The live player through a presigned link, in a context with no credentials; waits until it shows the replay. */
async function watch(recordingId: string, base = testEnv().baseUrl, wait = true): Promise<LiveView> {
  const context = await browser.newContext({ viewport: { width: 1100, height: 760 } });
  const page = await context.newPage();
  const problems: string[] = [];
  page.on('console', (m: ConsoleMessage) => {
    if (m.type() === 'error' || m.type() === 'warning') problems.push(`${m.type()}: ${m.text()}`);
  });
  page.on('pageerror', (e) => problems.push(`pageerror: ${e.message}`));
  page.on('response', (r) => {
    if (r.status() >= 400) problems.push(`${r.status()} ${r.url()}`);
  });
  await context.addInitScript(() =>
    window.addEventListener('securitypolicyviolation', (e) => console.error(`CSP violation: ${e.violatedDirective} ${e.blockedURI}`)),
  );
  const res = await page.goto(`${base}/recordings/${recordingId}/player?live=true&${presignedQuery(recordingId)}`);
  expect(res!.status()).toBe(200);
  if (!wait) return { page, problems };
  await page.waitForFunction(() => {
    const s = (window as any).__tapedeck;
    return !!s && (s.ready || !!s.error);
  });
  expect(await page.evaluate(() => (window as any).__tapedeck.error)).toBeUndefined();
  return { page, problems };
}

const live = (p: Page) => p.evaluate(() => (window as any).__tapedeck.live as LiveState);
const replayText = (p: Page) =>
  p.evaluate(() => document.querySelector<HTMLIFrameElement>('.replayer-wrapper iframe')?.contentDocument?.body?.textContent ?? '');
/** What the live bar shows (its screen-reader announcement aside). */
const barText = (p: Page) =>
  p.evaluate(() =>
    Array.from(document.getElementById('live-bar')!.children)
      .filter((e) => e.id !== 'live-announce')
      .map((e) => (e as HTMLElement).innerText)
      .filter(Boolean)
      .join(' ')
      .replace(/\s+/g, ' '),
  );
const announced = (p: Page) => p.evaluate(() => document.getElementById('live-announce')!.textContent);
const lines = (p: Page) => p.evaluate(() => document.querySelectorAll('.line').length);

async function screenshot(p: Page, name: string): Promise<void> {
  const dir = process.env.PLAYER_LIVE_SCREENSHOTS;
  if (!dir) return;
  mkdirSync(dir, { recursive: true });
  await p.screenshot({ path: join(dir, `${name}.png`) });
}

/** Clicks Add in the recorded page; answers the new line's text and when it was added (recorded page's clock). */
async function change(recorded: Page): Promise<{ text: string; at: number }> {
  await recorded.click('#add');
  const at = await recorded.evaluate(() => Date.now());
  return { text: `change ${await lines(recorded)}`, at };
}

describe('the live player', () => {
  it('refuses live with a time (400): a live page opens at the live edge', async () => {
    const id = '0b0e7f2c-1d2e-4f60-8a9b-0c1d2e3f4a5b';
    const r = await api(`/recordings/${id}/player.html?live=true&time=offset:0&${presignedQuery(id)}`);
    expect(r.status).toBe(400);
    expect(r.json().message).toMatch(/^Invalid player query: time: must be absent with live=true/);
  });

  it("shows the recorded page's changes as they happen, from a presigned link alone", async () => {
    const { page: recorded, recordingId } = await record();
    const { page, problems } = await watch(recordingId);
    expect(await live(page)).toMatchObject({ connected: true, following: true });
    expect(await replayText(page)).toContain('Live test page');

    const delays: number[] = [];
    for (let i = 0; i < 5; i++) {
      const { text, at } = await change(recorded);
      await page.waitForFunction(
        (t) => document.querySelector<HTMLIFrameElement>('.replayer-wrapper iframe')?.contentDocument?.body?.textContent?.includes(t),
        text,
        {
          timeout: 10_000,
          polling: 'raf',
        },
      );
      // Both pages run in this browser: one clock.
      delays.push((await page.evaluate(() => Date.now())) - at);
    }
    // A watched recorder cuts a batch every 50 ms; the feed and the player add little to that.
    delays.sort((a, b) => a - b);
    expect(delays[2]).toBeLessThan(2000);
    const s = await live(page);
    expect(s).toMatchObject({ connected: true, following: true, ended: undefined });
    expect(s.eventsApplied).toBeGreaterThan(5);
    expect(s.lagsMs.length).toBeGreaterThan(0);
    expect(await barText(page)).toMatch(/^LIVE (?:under 0\.1|[\d.]+) s behind Pause -10 s Go live$/);
    expect(await page.locator('#live-go').isDisabled()).toBe(true);
    expect(await announced(page)).toBe('Following live');
    await screenshot(page, 'following');
    expect(problems).toEqual([]);
    await recorded.context().close();
    await page.context().close();
  });

  it('loses and repeats nothing across a cut connection: EventSource resumes from the last id', async () => {
    const proxy = await TcpProxy.start(Number(new URL(testEnv().baseUrl).port));
    try {
      const { page: recorded, recordingId } = await record();
      const { page, problems } = await watch(recordingId, proxy.url);
      const shown = () =>
        page.evaluate(() =>
          Array.from(document.querySelector<HTMLIFrameElement>('.replayer-wrapper iframe')!.contentDocument!.querySelectorAll('.line')).map(
            (e) => e.textContent,
          ),
        );
      await change(recorded);
      await pollUntil(shown, (t) => t.length === 1, 10_000);
      await proxy.cut();
      for (let i = 0; i < 3; i++) await change(recorded);
      await recorded.evaluate(() => (window as any).Tapedeck.flush());
      await pollUntil(
        () => live(page),
        (s) => !s.connected,
        10_000,
      );
      expect(await barText(page)).toMatch(/^LIVE Reconnecting… /);
      await proxy.restore();
      await change(recorded);
      const lines = await pollUntil(shown, (t) => t.length >= 5, 10_000);
      await page.waitForTimeout(500);
      expect(await shown()).toEqual(['change 1', 'change 2', 'change 3', 'change 4', 'change 5']);
      expect(lines).toEqual(await shown());
      expect(await live(page)).toMatchObject({ connected: true, following: true });
      // The cut itself is the browser's only complaint (the stream broken, reconnects refused meanwhile).
      expect(problems.filter((p) => !/net::ERR_/.test(p))).toEqual([]);
      await recorded.context().close();
      await page.context().close();
    } finally {
      await proxy.cut();
    }
  });

  it('pauses while the page goes on, goes back, and catches up with Go live; by keyboard too', async () => {
    const { page: recorded, recordingId } = await record();
    const { page, problems } = await watch(recordingId);
    const first = await change(recorded);
    await page.waitForFunction((t) => (window as any).__tapedeck.player.getReplayer().iframe.contentDocument.body.textContent.includes(t), first.text, {
      timeout: 10_000,
    });

    await page.click('#live-toggle');
    expect(await page.locator('#live-toggle').innerText()).toBe('Play');
    const received = (await live(page)).eventsReceived;
    const whilePaused = await change(recorded);
    await recorded.evaluate(() => (window as any).Tapedeck.flush());
    // The batch holding it is stored and sent meanwhile: received, not shown.
    await pollUntil(
      () => live(page),
      (s) => s.eventsReceived > received,
      10_000,
    );
    await page.waitForTimeout(1200);
    expect(await replayText(page)).not.toContain(whilePaused.text);
    const paused = await live(page);
    expect(paused.following).toBe(false);
    expect(paused.behindMs).toBeGreaterThan(1000);
    expect(await barText(page)).toMatch(/^LIVE [\d.]+ s behind · paused Play -10 s Go live$/);
    expect(await announced(page)).toBe('Paused');
    await screenshot(page, 'paused');

    // -10 s: ten seconds back, or to the first page received (the backfill's keyframe) if that is nearer.
    const slider = () =>
      page.evaluate(() => {
        const el = document.getElementById('live-position') as HTMLInputElement;
        return { value: Number(el.value), min: Number(el.min), max: Number(el.max) };
      });
    const before = await slider();
    await page.click('#live-back');
    const back = await slider();
    expect(Math.abs(back.value - Math.max(before.min, before.value - 10_000))).toBeLessThan(1500);

    // The slider by keyboard: Home goes to the first page received (before the first change), arrows by a second.
    await page.focus('#live-position');
    await page.keyboard.press('Home');
    expect((await slider()).value).toBeCloseTo(before.min, -1);
    expect(await replayText(page)).toContain('Live test page');
    expect(await replayText(page)).not.toContain(first.text);
    await page.keyboard.press('ArrowRight');
    expect((await slider()).value).toBeCloseTo(before.min + 1000, -1);

    // Go live, by keyboard: Tab reaches the button, Enter presses it.
    await page.focus('#live-back');
    await page.keyboard.press('Tab');
    await page.keyboard.press('Tab');
    expect(await page.evaluate(() => document.activeElement?.id)).toBe('live-go');
    await page.keyboard.press('Enter');
    await pollUntil(
      () => replayText(page),
      (t) => t.includes(whilePaused.text),
      10_000,
    );
    expect((await live(page)).following).toBe(true);
    const after = await change(recorded);
    await pollUntil(
      () => replayText(page),
      (t) => t.includes(after.text),
      10_000,
    );

    // Space pauses and plays from anywhere but a control.
    await page.evaluate(() => (document.activeElement as HTMLElement | null)?.blur());
    await page.keyboard.press('Space');
    expect((await live(page)).following).toBe(false);
    await page.keyboard.press('Space');
    expect(await page.locator('#live-toggle').innerText()).toBe('Pause');
    expect(problems).toEqual([]);
    await recorded.context().close();
    await page.context().close();
  });

  it('says "Session ended" once the recording is idle, and follows again when the page changes (player on another instance)', async () => {
    const { page: recorded, recordingId } = await record();
    const { page, problems } = await watch(recordingId, quick.url);
    await pollUntil(
      () => live(page),
      (s) => s.sessionLive === false,
      15_000,
    );
    expect(await barText(page)).toMatch(/^ENDED Session ended Pause -10 s Go live$/);
    await screenshot(page, 'session-ended');
    const { text } = await change(recorded);
    await pollUntil(
      () => replayText(page),
      (t) => t.includes(text),
      10_000,
    );
    await pollUntil(
      () => live(page),
      (s) => s.sessionLive === true,
      10_000,
    );
    expect(await barText(page)).toMatch(/^LIVE (?:under 0\.1|[\d.]+) s behind Pause -10 s Go live$/);
    expect(problems).toEqual([]);
    await recorded.context().close();
    await page.context().close();
  });

  it("waits its turn beyond the tenant's live viewers (429, Retry-After), then follows", async () => {
    const { page: recorded, recordingId } = await record();
    const first = await watch(recordingId, quick.url);
    const second = await watch(recordingId, quick.url, false);
    await pollUntil(
      () => barText(second.page),
      (t) => /^LIVE Too many live viewers: trying again in \d+ s /.test(t),
      10_000,
    );
    await screenshot(second.page, 'too-many-viewers');
    await first.page.context().close();
    await second.page.waitForFunction(() => (window as any).__tapedeck.ready, null, { timeout: 30_000 });
    const { text } = await change(recorded);
    await pollUntil(
      () => replayText(second.page),
      (t) => t.includes(text),
      10_000,
    );
    expect(await live(second.page)).toMatchObject({ connected: true, following: true });
    // The refusals themselves are the only complaints: the browser logs a failed load for each.
    expect(second.problems.filter((p) => !/\b429\b/.test(p))).toEqual([]);
    expect(second.problems.length).toBeGreaterThan(0);
    expect(first.problems).toEqual([]);
    await recorded.context().close();
    await second.page.context().close();
  });

  it('ends when the recording is deleted: the replay goes and the page says why', async () => {
    const { page: recorded, recordingId } = await record();
    const { page, problems } = await watch(recordingId);
    await recorded.evaluate(() => (window as any).Tapedeck.stop());
    await recorded.context().close();
    expect((await api(`/recordings/${recordingId}`, { method: 'DELETE', key: testEnv().secretKey })).status).toBe(204);
    const s = await pollUntil(
      () => live(page),
      (v) => v.ended !== undefined,
      15_000,
    );
    expect(s).toMatchObject({ ended: 'deleted', connected: false });
    expect(await page.evaluate(() => document.querySelector('.replayer-wrapper'))).toBeNull();
    expect(await page.locator('#status').innerText()).toBe('This recording was deleted.');
    expect(await barText(page)).toMatch(/^OFFLINE This recording was deleted\./);
    await screenshot(page, 'deleted');
    // No reconnect after the end: EventSource was closed.
    await page.waitForTimeout(2500);
    expect(problems).toEqual([]);
    await page.context().close();
  });
});
