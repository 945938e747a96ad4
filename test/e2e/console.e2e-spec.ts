// The console in Chromium against the running service: sign in with a private key, filter, open a
// recording and see it play, seek from its timeline, share a link and open it signed out, delete,
// sign out; a second tenant's session sees none of the first's recordings; the admin view creates a
// tenant and a key that then work on the API; sessions are HttpOnly SameSite=Strict cookies, changes
// need the CSRF token, and the key never reaches the page's storage. Every page passes axe-core
// without serious violations and without CSP reports; screenshots of each page at 1280×800 and
// 390×844 go to test-results/console/ (git-ignored) for a person to look at.
import { mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import type { Browser, BrowserContext, Frame, Page } from 'playwright-core';
import { launchChromium } from '../harness/browser';
import { testEnv } from '../harness/env';
import { api, postEvents } from '../harness/http';
import { pollUntil } from '../harness/poll-until';
import { createTenant, TenantCreds } from './auth-fixtures';
import { consoleRecording } from './console-fixtures';

jest.setTimeout(240_000);

const SHOTS = join(__dirname, '..', '..', 'test-results', 'console');
const AXE = readFileSync(require.resolve('axe-core/axe.min.js'), 'utf8');
const VIEWPORTS = { laptop: { width: 1280, height: 800 }, phone: { width: 390, height: 844 } };

let browser: Browser;
let t1: TenantCreds;
let t2: TenantCreds;
const rec1: string[] = [];
let rec2: string;
const base = () => testEnv().baseUrl;
/** The statistics window: from yesterday (a short window, hourly buckets). */
const SINCE = new Date(Date.now() - 86_400_000).toISOString().slice(0, 10);

async function ingest(t: TenantCreds, metadata: Record<string, string>, color: string, title: string, ago: number, trouble = false): Promise<string> {
  const id = randomUUID();
  const events = consoleRecording({ start: Date.now() - ago, durationMs: 8000, color, title, trouble });
  expect((await postEvents(id, events, t.publicKey)).status).toBe(200);
  const meta = await api(`/recordings/${id}/metadata`, {
    method: 'POST',
    key: t.publicKey,
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(metadata),
  });
  expect(meta.status).toBe(200);
  return id;
}

beforeAll(async () => {
  mkdirSync(SHOTS, { recursive: true });
  browser = await launchChromium();
  [t1, t2] = await Promise.all([createTenant('con1'), createTenant('con2')]);
  rec1.push(await ingest(t1, { plan: 'pro', user: 'ada' }, '#2456c7', 'Alpha shop', 300_000));
  rec1.push(await ingest(t1, { plan: 'free', user: 'bob' }, '#1b8a5a', 'Beta shop', 200_000, true));
  rec1.push(await ingest(t1, { plan: 'pro', user: 'cy' }, '#b3261e', 'Gamma shop', 100_000));
  rec2 = await ingest(t2, { plan: 'pro', user: 'zed' }, '#6b3fa0', 'Other tenant', 100_000);
  await pollUntil(
    () => api('/recordings?limit=10', { key: t1.secretKey }),
    (r) => r.status === 200 && r.json().recordings.length === 3 && r.json().recordings.every((x: { metadata: Record<string, string> }) => x.metadata.plan),
    30_000,
  );
  await pollUntil(
    () => api('/recordings?limit=10', { key: t2.secretKey }),
    (r) => r.status === 200 && r.json().recordings.length === 1,
    30_000,
  );
  // The thumbnails render in the background after a first request; wait until all are there.
  for (const id of rec1) {
    await pollUntil(
      () => api(`/recordings/${id}/thumbnail`, { key: t1.secretKey }),
      (r) => r.status === 200,
      60_000,
      500,
    );
  }
});

afterAll(async () => {
  await browser?.close();
});

interface Opened {
  context: BrowserContext;
  page: Page;
  problems: string[];
}

async function open(viewport = VIEWPORTS.laptop): Promise<Opened> {
  const context = await browser.newContext({ viewport, deviceScaleFactor: 1 });
  const page = await context.newPage();
  const problems: string[] = [];
  page.on('console', (m) => {
    // Answers the flows expect (the browser logs every failed load): 401 for the session check while
    // signed out and after a session ended, 403 for the forged change, 404 for deleted and other
    // tenants' recordings and thumbnails not rendered yet. CSP reports and script errors are problems.
    if (/Failed to load resource: the server responded with a status of 40[134]/.test(m.text())) return;
    if (m.type() === 'error' || m.type() === 'warning') problems.push(`${m.type()}: ${m.text()}`);
  });
  page.on('pageerror', (e) => problems.push(`pageerror: ${e.message}`));
  return { context, page, problems };
}

async function signIn(page: Page, secret: string, admin = false): Promise<void> {
  await page.goto(`${base()}/`);
  await page.waitForSelector('#secret');
  if (admin) await page.getByLabel('Administrator').check();
  await page.fill('#secret', secret);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.waitForSelector('header.top');
}

/** axe-core on the page as it stands: no serious or critical violation. */
async function axe(page: Page, what: string): Promise<void> {
  await page.evaluate(AXE);
  const violations = await page.evaluate(async () => {
    const r = await (
      window as unknown as { axe: { run(o: unknown): Promise<{ violations: { id: string; impact: string; nodes: { target: string[] }[] }[] }> } }
    ).axe.run({
      resultTypes: ['violations'],
    });
    return r.violations
      .filter((v) => v.impact === 'serious' || v.impact === 'critical')
      .map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`);
  });
  expect({ what, violations }).toEqual({ what, violations: [] });
}

async function shoot(page: Page, name: string): Promise<void> {
  await page.screenshot({ path: join(SHOTS, `${name}-${page.viewportSize()!.width}x${page.viewportSize()!.height}.png`), fullPage: false });
}

async function playerFrame(page: Page): Promise<Frame> {
  // A recording's page starts the player at once and points it at the live view when the detail,
  // loaded beside it, says the recording is live: the frame wanted is the one at the iframe's
  // address once the detail is there (an earlier one can be navigated away under the test).
  const src = await pollUntil(
    () =>
      page.evaluate(() =>
        document.querySelector('section.recording') && !document.querySelector('section.recording p.facts:not([aria-label])')
          ? undefined
          : document.querySelector<HTMLIFrameElement>('iframe[src*="/player.html"]')?.src,
      ),
    (u) => u !== undefined,
    20_000,
  );
  const frame = await pollUntil(
    async () => page.frames().find((f) => f.url() === src),
    (f) => f !== undefined,
    20_000,
  );
  await frame!.waitForFunction(() => (window as unknown as { __tapedeck?: { ready: boolean; error?: string } }).__tapedeck?.ready === true, undefined, {
    timeout: 20_000,
  });
  return frame!;
}

const cards = (page: Page) => page.locator('ul.cards > li');

describe('console', () => {
  it('signs in, filters, plays, seeks, shares, deletes and signs out (tenant 1)', async () => {
    const { context, page, problems } = await open();
    await page.goto(`${base()}/`);
    expect(page.url()).toBe(`${base()}/console/recordings`);
    await page.waitForSelector('#secret');
    await axe(page, 'sign-in');
    await shoot(page, 'sign-in');

    // A public key is refused with a message; the private key signs in.
    await page.fill('#secret', t1.publicKey);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('alert').filter({ hasText: 'private key' }).waitFor();
    await page.fill('#secret', t1.secretKey);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await cards(page).first().waitFor();
    expect(await cards(page).count()).toBe(3);

    // The session is an HttpOnly, SameSite=Strict cookie; the key is nowhere in the page or its storage.
    const cookie = (await context.cookies()).find((c) => c.name === 'td_session')!;
    expect(cookie).toMatchObject({ httpOnly: true, sameSite: 'Strict', path: '/' });
    expect(cookie.expires).toBeGreaterThan(Date.now() / 1000);
    const stored = await page.evaluate(
      () => JSON.stringify({ ...localStorage }) + JSON.stringify({ ...sessionStorage }) + document.cookie + document.documentElement.outerHTML,
    );
    expect(stored).not.toContain(t1.secretKey);

    // Newest first, with thumbnails loaded.
    const titles = await page.locator('ul.cards .title').allTextContents();
    expect(titles).toHaveLength(3);
    await page.waitForFunction(() => Array.from(document.querySelectorAll('img.thumb')).filter((i) => (i as HTMLImageElement).naturalWidth > 0).length === 3);
    await axe(page, 'recordings');
    await shoot(page, 'recordings');

    // Filter by metadata: the URL keeps it, a reload shows the same.
    await page.getByLabel('Key 1').fill('plan');
    await page.getByLabel('Value 1').fill('pro');
    await page.getByRole('button', { name: 'Apply filters' }).click();
    await page.waitForURL(/metadata%5Bplan%5D=pro/);
    await pollUntil(
      () => cards(page).count(),
      (n) => n === 2,
    );
    await page.reload();
    await cards(page).first().waitFor();
    expect(await cards(page).count()).toBe(2);
    expect(await page.getByLabel('Value 1').inputValue()).toBe('pro');

    // A range of start times that excludes the older pro recording: in the URL as ISO 8601, kept on reload.
    const alpha = (await api(`/recordings/${rec1[0]}`, { key: t1.secretKey })).json().startedAt as number;
    const rangeStart = Math.floor((alpha + 100_000) / 1000) * 1000;
    const local = await page.evaluate((t) => {
      const d = new Date(t);
      const p = (n: number) => String(n).padStart(2, '0');
      return `${d.getFullYear()}-${p(d.getMonth() + 1)}-${p(d.getDate())}T${p(d.getHours())}:${p(d.getMinutes())}:${p(d.getSeconds())}`;
    }, rangeStart);
    await page.getByLabel('Started after').fill(local);
    await page.getByRole('button', { name: 'Apply filters' }).click();
    await page.waitForURL((u) => u.searchParams.get('startedAfter') === new Date(rangeStart).toISOString() && u.searchParams.get('metadata[plan]') === 'pro');
    await pollUntil(
      () => cards(page).count(),
      (n) => n === 1,
    );
    expect(await page.locator('ul.cards a.title').first().getAttribute('href')).toContain(rec1[2]);
    await page.reload();
    await cards(page).first().waitFor();
    expect(await cards(page).count()).toBe(1);
    expect(await page.getByLabel('Started after').inputValue()).toContain(local.slice(0, 16));

    // A duration bound in seconds, sent in milliseconds and kept on reload (0 s keeps the same recording).
    await page.getByLabel('At least').fill('0');
    await page.getByRole('button', { name: 'Apply filters' }).click();
    await page.waitForURL((u) => u.searchParams.get('minDuration') === '0');
    await page.reload();
    await cards(page).first().waitFor();
    expect(await cards(page).count()).toBe(1);
    expect(await page.getByLabel('At least').inputValue()).toBe('0');

    // Open the newest pro recording: the player plays it.
    await page.locator('ul.cards .title').first().click();
    await page.waitForURL(new RegExp(`/console/recordings/${rec1[2]}$`));
    const frame = await playerFrame(page);
    await page.getByRole('heading', { name: 'Timeline' }).waitFor();
    await page.locator('ol.timeline li').first().waitFor({ timeout: 20_000 });
    await axe(page, 'recording');
    await shoot(page, 'recording');

    // A click on a node the recording never labelled is named by where it was.
    expect(await page.locator('ol.timeline li.tl-click').first().innerText()).toMatch(/Click\s+at 60, 150/);

    // The second page view seeks the player there.
    await page.locator('ol.timeline li.tl-pageView button').nth(1).click();
    const t = await frame.evaluate(() =>
      (window as unknown as { __tapedeck: { player: { getReplayer(): { getCurrentTime(): number } } } }).__tapedeck.player.getReplayer().getCurrentTime(),
    );
    expect(t).toBeGreaterThanOrEqual(3900);

    // Share: a presigned link with the chosen lifetime opens the player signed out.
    await page.getByLabel('Link lifetime').selectOption('3600');
    await page.getByRole('button', { name: 'Create link' }).click();
    const url = await page.getByLabel('Shareable link').inputValue();
    expect(url).toContain('signature=');
    const expires = Number(new URL(url).searchParams.get('expires'));
    expect(Math.abs(expires - (Date.now() / 1000 + 3600))).toBeLessThan(120);
    const outsider = await open();
    await outsider.page.goto(url);
    await outsider.page.waitForFunction(() => (window as unknown as { __tapedeck?: { ready: boolean } }).__tapedeck?.ready === true, undefined, {
      timeout: 20_000,
    });
    expect(await outsider.context.cookies()).toEqual([]);
    await outsider.context.close();

    // A change without the CSRF token is refused, even with the session cookie.
    const forged = await page.evaluate(async (id) => (await fetch(`/recordings/${id}`, { method: 'DELETE' })).status, rec1[2]);
    expect(forged).toBe(403);

    // Delete, confirmed in a dialog: back to the list, the recording gone from the API.
    await page.getByRole('button', { name: 'Delete recording…' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Delete' }).click();
    await page.waitForURL(/\/console\/recordings$/);
    const after = await api('/recordings?limit=10', { key: t1.secretKey });
    expect(after.json().recordings.map((r: { recordingId: string }) => r.recordingId)).not.toContain(rec1[2]);
    await page.goto(`${base()}/console/recordings/${rec1[2]}`);
    await page.getByRole('heading', { name: 'This recording does not exist' }).waitFor();
    await shoot(page, 'deleted-recording');

    // Sign out: the cookie is gone and the old session id no longer works.
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.waitForSelector('#secret');
    const replayed = await api('/recordings', { headers: { cookie: `td_session=${cookie.value}` } });
    expect(replayed.status).toBe(401);
    expect((await context.cookies()).find((c) => c.name === 'td_session')).toBeUndefined();
    expect(problems).toEqual([]);
    await context.close();
  });

  it("shows a second tenant none of the first's recordings, and says when the session ended", async () => {
    // Another site cannot sign a visitor in.
    const json = { 'content-type': 'application/json' };
    const evil = await api('/console/session', {
      method: 'POST',
      headers: { ...json, origin: 'https://evil.example' },
      body: JSON.stringify({ key: t2.secretKey }),
    });
    expect(evil.status).toBe(403);
    expect(evil.headers.get('set-cookie')).toBeNull();
    const { context, page, problems } = await open();
    await signIn(page, t2.secretKey);
    await cards(page).first().waitFor();
    const ids = await page.locator('ul.cards a.title').evaluateAll((as) => as.map((a) => (a as HTMLAnchorElement).href));
    expect(ids).toHaveLength(1);
    expect(ids[0]).toContain(rec2);
    for (const id of rec1) {
      expect(await page.evaluate(async (x) => (await fetch(`/recordings/${x}`)).status, id)).toBe(404);
      expect(await page.evaluate(async (x) => (await fetch(`/recordings/${x}/thumbnail`)).status, id)).toBe(404);
    }
    const stats = await page.evaluate(async (since) => (await fetch(`/statistics?from=${since}`)).json(), SINCE);
    expect(stats.totals.recordings).toBe(1);
    await page.goto(`${base()}/console/recordings/${rec1[0]}`);
    await page.getByRole('heading', { name: 'This recording does not exist' }).waitFor();
    // The admin API is not reachable with a tenant session.
    expect(await page.evaluate(async () => (await fetch('/admin/tenants')).status)).toBe(401);

    // The session ends elsewhere (another tab signs out): the next call shows the sign-in with a note.
    await page.goto(`${base()}/console/recordings`);
    await cards(page).first().waitFor();
    await page.evaluate(async () => {
      const s = (await (await fetch('/console/session')).json()) as { csrf: string };
      await fetch('/console/session', { method: 'DELETE', headers: { 'x-tapedeck-csrf': s.csrf } });
    });
    await page.getByRole('link', { name: 'Statistics' }).click();
    await page.getByText('Your session has expired or ended').waitFor();
    await axe(page, 'expired session');
    await shoot(page, 'session-ended');
    expect(problems).toEqual([]);
    await context.close();
  });

  it('shows replays and statistics', async () => {
    const { context, page, problems } = await open();
    await signIn(page, t1.secretKey);
    await page.goto(`${base()}/console/replays?by=user`);
    await page.locator('table.grid tbody tr').first().waitFor();
    expect(await page.locator('table.grid tbody tr').count()).toBe(2);
    await page.getByRole('link', { name: 'ada' }).click();
    await playerFrame(page);
    await axe(page, 'replays');
    await shoot(page, 'replays');
    await page.goto(`${base()}/console/statistics?from=${SINCE}`);
    await page.locator('.chart canvas').first().waitFor();
    expect(await page.locator('.totals dd').first().textContent()).toBe('2');
    const viewports = page.getByRole('table', { name: 'Viewport sizes by recordings' }).locator('tbody tr');
    expect(await viewports.count()).toBeGreaterThan(0);
    expect(await viewports.first().textContent()).toMatch(/^\d+ × \d+\d+$/);
    await axe(page, 'statistics');
    await shoot(page, 'statistics');
    expect(problems).toEqual([]);
    await context.close();
  });

  it('finds recordings by what happened in them, and counts it in the statistics', async () => {
    const [alpha, beta] = rec1;
    // The activity projection has the troubled recording (Beta: an error, a rage click on "Buy now").
    await pollUntil(
      () => api('/recordings?hasErrors=true&hasRageClicks=true', { key: t1.secretKey }),
      (r) => r.status === 200 && r.json().recordings.length === 1,
      30_000,
      200,
    );
    const { context, page, problems } = await open();
    await signIn(page, t1.secretKey);
    await cards(page).first().waitFor();
    const listed = async () => (await page.locator('ul.cards a.title').evaluateAll((as) => as.map((a) => (a as HTMLAnchorElement).href))).join(' ');

    // The card says what happened: Beta's clicks (the three on its button, the last one every recording has) and its error.
    const betaCard = cards(page).filter({ has: page.locator(`a.title[href$="${beta}"]`) });
    expect(await betaCard.locator('.facts').innerText()).toMatch(/4 clicks[\s\S]*1 error\b/);

    await page.getByLabel('Errors', { exact: true }).selectOption('true');
    await page.getByLabel('Rage clicks').selectOption('true');
    await page.getByLabel('Clicked text contains').fill('buy NOW');
    await page.getByRole('button', { name: 'Apply filters' }).click();
    await page.waitForURL(
      (u) => u.searchParams.get('hasErrors') === 'true' && u.searchParams.get('hasRageClicks') === 'true' && u.searchParams.get('clickedText') === 'buy NOW',
    );
    await pollUntil(listed, (ids) => ids.includes(beta) && !ids.includes(alpha));
    expect(await cards(page).count()).toBe(1);
    await axe(page, 'recordings, activity filters');
    await shoot(page, 'recordings-activity');

    // The other way round, with an error text and a visited page: kept on reload.
    await page.getByLabel('Errors', { exact: true }).selectOption('false');
    await page.getByLabel('Rage clicks').selectOption('');
    await page.getByLabel('Clicked text contains').fill('');
    await page.getByLabel('Error message contains').fill('declined');
    await page.getByLabel('Visited page match').selectOption('visitedPath');
    await page.getByLabel('Visited page', { exact: true }).fill('/checkout');
    await page.getByRole('button', { name: 'Apply filters' }).click();
    await page.waitForURL(
      (u) => u.searchParams.get('hasErrors') === 'false' && u.searchParams.get('visitedPath') === '/checkout' && !u.searchParams.has('hasRageClicks'),
    );
    await pollUntil(listed, (ids) => ids.includes(alpha) && !ids.includes(beta));
    await page.reload();
    await cards(page).first().waitFor();
    expect(await listed()).not.toContain(beta);
    expect(await page.getByLabel('Visited page', { exact: true }).inputValue()).toBe('/checkout');
    expect(await page.getByLabel('Error message contains').inputValue()).toBe('declined');

    // The statistics with the same filters: one recording, its error and rage click, over time.
    await page.goto(`${base()}/console/statistics?from=${SINCE}&hasRageClicks=true`);
    await page.locator('.chart canvas').first().waitFor();
    const total = async (name: string) =>
      page
        .locator('.totals div', { has: page.locator('dt', { hasText: new RegExp(`^${name}$`) }) })
        .locator('dd')
        .innerText();
    expect([await total('Recordings'), await total('Errors'), await total('Rage clicks')]).toEqual(['1', '1', '1']);
    expect(await page.locator('figure.chart figcaption').allInnerTexts()).toEqual([
      'Recordings over time (1 in all)',
      'Events over time (' + (await total('Events')) + ' in all)',
      'Errors over time (1 in all)',
      'Rage clicks over time (1 in all)',
    ]);
    expect(await page.getByLabel('Rage clicks', { exact: true }).inputValue()).toBe('true');
    await axe(page, 'statistics, activity filters');
    await shoot(page, 'statistics-activity');
    // The count opens the recordings it counted: the same window (as a start range) and filters.
    await page
      .locator('.totals div', { has: page.locator('dt', { hasText: /^Recordings$/ }) })
      .getByRole('link')
      .click();
    await page.waitForURL((u) => u.pathname === '/console/recordings' && u.searchParams.get('hasRageClicks') === 'true' && u.searchParams.has('startedAfter'));
    await pollUntil(listed, (ids) => ids.includes(beta) && !ids.includes(alpha));
    expect(await cards(page).count()).toBe(1);

    // Its timeline names what the filters found: the rage click on "Buy now", dead, and the error.
    await page.goto(`${base()}/console/recordings/${beta}`);
    await playerFrame(page);
    await page.locator('ol.timeline li.tl-rageClick').waitFor({ timeout: 20_000 });
    expect(await page.getByLabel('Activity').innerText()).toMatch(/active \d+ s\s+4 clicks\s+1 rage click\s+3 dead clicks\s+1 error$/);
    const timeline = await page.locator('ol.timeline').innerText();
    expect(timeline).toMatch(/Rage click[\s\S]*Buy now/);
    expect(timeline).toMatch(/Buy now \(nothing happened\)/);
    expect(timeline).toContain('card declined');
    await shoot(page, 'recording-activity');
    expect(problems).toEqual([]);
    await context.close();
  });

  it('lets the admin create a tenant and a key that then work on the API', async () => {
    const { context, page, problems } = await open();
    await signIn(page, testEnv().adminToken, true);
    await page.waitForURL(/\/console\/admin$/);
    const id = `con_${randomUUID().slice(0, 8)}`;
    await page.getByLabel('New tenant id').fill(id);
    await page.getByRole('button', { name: 'Create tenant' }).click();
    await page.getByRole('heading', { name: `Tenant ${id}` }).waitFor();
    await page.getByRole('button', { name: 'Create private key' }).click();
    const shown = await page.locator('.secret output').textContent();
    const key = /(secret_key_\S+)/.exec(shown ?? '')![1];
    await page.getByLabel('New signing key id').fill('links-2');
    await page.getByRole('button', { name: 'Add signing key' }).click();
    await page.locator('ul.keys code', { hasText: 'links-2' }).waitFor();
    const list = await api('/recordings', { key });
    expect(list.status).toBe(200);
    expect(list.json().recordings).toEqual([]);
    await axe(page, 'admin');
    await shoot(page, 'admin');
    // The admin session does not read tenant data.
    expect(await page.evaluate(async () => (await fetch('/recordings')).status)).toBe(401);
    expect(problems).toEqual([]);
    await context.close();
  });

  it('is readable at phone width (390×844): every page, screenshots', async () => {
    const { context, page, problems } = await open(VIEWPORTS.phone);
    await page.goto(`${base()}/console/sign-in`);
    await page.waitForSelector('#secret');
    await shoot(page, 'sign-in');
    await signIn(page, t1.secretKey);
    await cards(page).first().waitFor();
    await shoot(page, 'recordings');
    const overflow = () => page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
    expect(await overflow()).toBeLessThanOrEqual(0);
    await page.goto(`${base()}/console/recordings/${rec1[0]}`);
    const frame = await playerFrame(page);
    await page.locator('ol.timeline li').first().waitFor({ timeout: 20_000 });
    // The recording was ingested moments ago, so it opens live: the live bar's controls wrap inside the narrow frame.
    const liveControls = await frame.evaluate(() =>
      document.getElementById('live-bar')?.hidden === false
        ? Array.from(document.querySelectorAll('#live-bar button, #live-position')).every(
            (e) => e.getBoundingClientRect().right <= document.documentElement.clientWidth,
          )
        : 'not live',
    );
    expect(liveControls).toBe(true);
    await shoot(page, 'recording');
    expect(await overflow()).toBeLessThanOrEqual(0);
    await axe(page, 'recording (phone)');
    await page.goto(`${base()}/console/replays?by=user&value=ada`);
    await playerFrame(page);
    await shoot(page, 'replays');
    await page.goto(`${base()}/console/statistics?from=${SINCE}`);
    await page.locator('.chart canvas').first().waitFor();
    await shoot(page, 'statistics');
    expect(await overflow()).toBeLessThanOrEqual(0);
    await page.getByRole('button', { name: 'Sign out' }).click();
    await signIn(page, testEnv().adminToken, true);
    await page.getByRole('heading', { name: 'Tenants' }).waitFor();
    await shoot(page, 'admin');
    expect(await overflow()).toBeLessThanOrEqual(0);
    expect(problems).toEqual([]);
    await context.close();
  });
});
