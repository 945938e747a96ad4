// Activity (docs/activity.md) of pages recorded by our recorder in a real Chromium, on the shared
// stack: a cart page, a navigation to a checkout page, a thrown error, a console.error, a failed
// fetch, an answered click, a rage click, a dead click and an idle stretch. The timeline's counts
// equal those computed from the recording's own events, and each listing filter finds the recording
// that did the thing and not the one that did not.
import type { Server } from 'node:http';
import type { Browser, Page } from 'playwright-core';
import { launchChromium } from '../harness/browser';
import { testEnv } from '../harness/env';
import { api } from '../harness/http';
import { pollUntil } from '../harness/poll-until';
import { startServer } from '../integration/rendering-fixtures';

jest.setTimeout(120_000);

type Ev = {
  type: number;
  timestamp: number;
  data: { source?: number; type?: number; plugin?: string; payload?: { level?: string; requests?: { status?: number }[] } };
};

const tag = () => {
  const { baseUrl, publicKey } = testEnv();
  return `<script src="${baseUrl}/sdk/recorder.js" data-public-key="${publicKey}" data-server-url="${baseUrl}" data-network></script>`;
};
const PAGES: Record<string, string> = {
  '/cart': `<!doctype html><html><head><title>Cart</title></head><body><h1>Cart</h1>
<button id="add" onclick="document.getElementById('n').textContent = String(Number(document.getElementById('n').textContent) + 1)">Add one</button>
<span id="n">0</span>${tag()}</body></html>`,
  '/checkout': `<!doctype html><html><head><title>Checkout</title></head><body><h1>Checkout</h1>
<button id="pay" class="btn primary"><span>Pay now</span></button><div id="total">Total 42</div>${tag()}
<script>function fail() { console.error('payment declined'); fetch('/api/pay', { method: 'POST' }); setTimeout(function () { throw new Error('checkout boom'); }); }</script></body></html>`,
  '/calm': `<!doctype html><html><head><title>Calm</title></head><body><h1>Calm</h1>
<button id="more" onclick="this.insertAdjacentHTML('afterend', '<p>more</p>')">More</button>${tag()}</body></html>`,
};

let browser: Browser;
let server: Server;
let origin = '';

beforeAll(async () => {
  browser = await launchChromium();
  ({ server, origin } = await startServer((req, res, url) => {
    const page = PAGES[url.pathname];
    if (page !== undefined) return void res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(page);
    req.resume();
    res.writeHead(url.pathname === '/api/pay' ? 502 : 404, { 'content-type': 'application/json' }).end('{}');
  }));
});

afterAll(async () => {
  await browser?.close();
  server?.closeAllConnections();
  server?.close();
});

/** This run's recordings carry it as metadata: the listing filters are checked among them only. */
const RUN = `activity-${Date.now()}`;
const recording = (page: Page) => page.evaluate<string>(() => (window as any).Tapedeck.getRecordingId());
async function started(page: Page) {
  await pollUntil(
    () => page.evaluate(() => (window as any).Tapedeck?.stats()),
    (s) => s && s.acked > 0,
    15_000,
  );
  await page.evaluate((run) => (window as any).Tapedeck.addMeta({ run }), RUN);
}

async function finish(page: Page): Promise<string> {
  const id = await recording(page);
  await page.evaluate(() => (window as any).Tapedeck.stop());
  await page.context().close();
  return id;
}

const secret = () => testEnv().secretKey;
const found = async (query: string, ids: string[]) => {
  const r = await api(`/recordings?limit=100&metadata[run]=${RUN}&${query}`, { key: secret() });
  expect(r.status).toBe(200);
  const listed = new Set(r.json<{ recordings: { recordingId: string }[] }>().recordings.map((x) => x.recordingId));
  return ids.map((id) => listed.has(id));
};

describe('activity of pages our recorder records in Chromium', () => {
  let shopper = '';
  let calm = '';

  it('projects pages, clicks, rage and dead clicks, errors and failed requests as the events say', async () => {
    const page = await (await browser.newContext()).newPage();
    await page.goto(`${origin}/cart`);
    await started(page);
    await page.click('#add'); // answered: the count changes
    await page.waitForTimeout(1200);
    await page.goto(`${origin}/checkout`); // the same tab: the same recording
    await started(page);
    await page.evaluate(() => (window as any).fail());
    for (let i = 0; i < 3; i++) await page.click('#pay span', { delay: 20 }); // nothing happens: rage, and dead
    await page.waitForTimeout(1500);
    await page.click('#total'); // dead too
    await page.waitForTimeout(8000); // idle
    await page.mouse.move(5, 5);
    await page.waitForTimeout(300);
    shopper = await finish(page);

    const calmPage = await (await browser.newContext()).newPage();
    await calmPage.goto(`${origin}/calm`);
    await started(calmPage);
    await calmPage.click('#more');
    await calmPage.waitForTimeout(1200);
    await calmPage.mouse.move(9, 9);
    calm = await finish(calmPage);

    const events = (await api(`/recordings/${shopper}/events`, { key: secret() })).json<Ev[]>();
    const clicks = events.filter((e) => e.type === 3 && e.data.source === 2 && e.data.type === 2).length;
    const errors = events.filter((e) => e.type === 6 && e.data.plugin === 'rrweb/console@1' && e.data.payload?.level === 'error').length;
    const failed = events
      .filter((e) => e.type === 6 && e.data.plugin === 'rrweb/network@1')
      .flatMap((e) => e.data.payload?.requests ?? [])
      .filter((r) => (r.status ?? 0) >= 400).length;
    expect([clicks, errors, failed]).toEqual([5, 2, 1]);

    const a = (
      await pollUntil(
        () => api(`/recordings/${shopper}/activity`, { key: secret() }),
        (r) => r.status === 200 && r.json().summary.clicks === clicks && r.json().summary.networkFailures === failed,
        30_000,
        200,
      )
    ).json();
    expect(a.summary).toMatchObject({ pageViews: 2, clicks, rageClicks: 1, deadClicks: 4, errors, networkFailures: failed });
    expect(a.summary.idleTime).toBeGreaterThanOrEqual(1000);
    expect(a.summary.activeTime + a.summary.idleTime).toBe(a.endedAt - a.startedAt);
    const byKind = (kind: string) => a.items.filter((i: { kind: string }) => i.kind === kind);
    expect(byKind('pageView').map((p: { path: string; title: string }) => [p.path, p.title])).toEqual([
      ['/cart', 'Cart'],
      ['/checkout', 'Checkout'],
    ]);
    expect(byKind('click').map((c: { text: string; selector: string; rage: boolean; dead: boolean }) => [c.text, c.selector, c.rage, c.dead])).toEqual([
      ['Add one', 'button#add', false, false],
      ['Pay now', 'button#pay.btn.primary', true, true],
      ['Pay now', 'button#pay.btn.primary', true, true],
      ['Pay now', 'button#pay.btn.primary', true, true],
      ['', '', false, true],
    ]);
    expect(a.errorMessages.map((e: { message: string }) => e.message).sort()).toEqual(['Uncaught Error: checkout boom', 'payment declined']);
    expect(byKind('networkFailure')).toEqual([expect.objectContaining({ url: `${origin}/api/pay`, method: 'POST', status: 502 })]);
    for (const i of a.items) expect(i.offset).toBe(i.timestamp - a.startedAt);
  });

  it('finds the shopper and not the calm visitor by each filter, and the other way round', async () => {
    const ids = [shopper, calm];
    await pollUntil(
      () => api(`/recordings/${calm}/activity`, { key: secret() }),
      (r) => r.status === 200 && r.json().summary.clicks === 1,
      30_000,
      200,
    );
    const cases: [string, boolean[]][] = [
      ['visitedPath=/checkout', [true, false]],
      ['visitedPathPrefix=/ca', [true, true]],
      [`visitedUrl=${encodeURIComponent(`${origin}/calm`)}`, [false, true]],
      ['clickedText=pay%20NOW', [true, false]],
      ['clickedText=more', [false, true]],
      ['hasErrors=true', [true, false]],
      ['hasErrors=false', [false, true]],
      ['errorText=checkout%20boom', [true, false]],
      ['hasRageClicks=true', [true, false]],
      ['hasDeadClicks=true', [true, false]],
      ['hasDeadClicks=false', [false, true]],
      ['minDuration=8000', [true, false]],
      ['maxDuration=8000', [false, true]],
      ['minActiveTime=1&hasRageClicks=false', [false, true]],
    ];
    const answers: [string, boolean[]][] = [];
    for (const [q] of cases) answers.push([q, await found(q, ids)]);
    expect(answers).toEqual(cases);
  });
});
