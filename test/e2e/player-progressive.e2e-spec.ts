// The hosted player opening a later moment of a recording with keyframes (issue #27): its first
// request is a window from the moment (the service starts it at the keyframe at or before) to
// 15 s after it, it shows that moment, then loads the events before and after the window in the
// background, after which seeking back and forth works and the length is the whole recording's.
import { randomUUID } from 'node:crypto';
import type { Browser } from 'playwright-core';
import { launchChromium } from '../harness/browser';
import { testEnv } from '../harness/env';
import { api, postEvents } from '../harness/http';
import { pollUntil } from '../harness/poll-until';
import { presignedQuery, snapshotData } from './rendering-e2e-fixtures';

jest.setTimeout(120_000);

let browser: Browser;
beforeAll(async () => {
  browser = await launchChromium();
});
afterAll(async () => {
  await browser?.close();
});

/** A keyframe: a page whose body text is `text` (node ids fixed, as rrweb keeps them within one snapshot). */
const snapshot = (timestamp: number, text: string) => [
  { type: 4, timestamp, data: { href: 'https://example.test/app', width: 800, height: 600 } },
  { type: 2, timestamp, data: snapshotData({ childNodes: [{ type: 3, textContent: text, id: 10 }] }) },
];
const text = (timestamp: number, value: string) => ({
  type: 3,
  timestamp,
  data: { source: 0, texts: [{ id: 10, value }], attributes: [], removes: [], adds: [] },
});

describe('player opening a later moment', () => {
  it('loads a window from the keyframe first, shows the moment, then the rest so seeking back works', async () => {
    const id = randomUUID();
    const t0 = Date.now() - 3_600_000;
    // Ten minutes: the first page, a change, a keyframe at five minutes, changes after it.
    const batches = [
      [...snapshot(t0, 'start'), text(t0 + 1000, 'early change')],
      [...snapshot(t0 + 300_000, 'after keyframe'), text(t0 + 400_000, 'late change')],
      [text(t0 + 600_000, 'the end')],
    ];
    for (const b of batches) expect((await postEvents(id, b)).status).toBe(200);
    await pollUntil(
      () => api(`/recordings/${id}`, { key: testEnv().secretKey }),
      (r) => r.status === 200 && r.json().duration === 600_000,
      30_000,
    );

    const context = await browser.newContext({ viewport: { width: 1024, height: 768 } });
    const requests: string[] = [];
    const page = await context.newPage();
    page.on('request', (r) => {
      if (r.url().includes('/events')) requests.push(decodeURIComponent(new URL(r.url()).search));
    });
    // 75 %: 450 s, after the keyframe at 300 s and the change at 400 s.
    await page.goto(`${testEnv().baseUrl}/recordings/${id}/player?time=percent:75&${presignedQuery(id)}`);
    await page.waitForFunction(() => (window as unknown as { __tapedeck: { ready: boolean } }).__tapedeck.ready);
    const replayText = () => page.evaluate(() => document.querySelector('iframe')!.contentDocument!.body.textContent);
    expect(await replayText()).toBe('late change');
    expect(requests[0]).toContain(`from=epoch:${t0 + 450_000}&to=epoch:${t0 + 465_000}`);
    await page.waitForFunction(() => (window as unknown as { __tapedeck: { loaded: string } }).__tapedeck.loaded === 'all');
    // The rest: before the window (to its keyframe) and after it (from its last event, 400 s).
    expect(requests.slice(1).sort()).toEqual([
      expect.stringContaining(`from=epoch:${t0 + 400_000 + 1}`),
      expect.stringContaining(`to=epoch:${t0 + 300_000 - 1}`),
    ]);
    expect(requests).toHaveLength(3);
    const meta = await page.evaluate(() =>
      (window as unknown as { __tapedeck: { player: { getMetaData(): { totalTime: number } } } }).__tapedeck.player.getMetaData(),
    );
    expect(meta.totalTime).toBe(600_000);
    // Back before the keyframe: the first page and its change, from events loaded afterwards.
    await page.evaluate(() => (window as unknown as { __tapedeck: { player: { goto(ms: number): void } } }).__tapedeck.player.goto(1500));
    await page.waitForTimeout(200);
    expect(await replayText()).toBe('early change');
    await page.evaluate(() => (window as unknown as { __tapedeck: { player: { goto(ms: number): void } } }).__tapedeck.player.goto(450_000));
    await page.waitForTimeout(200);
    expect(await replayText()).toBe('late change');
    // And after it, from the events loaded after the window (its last event included: half a millisecond past it).
    await page.evaluate(() => (window as unknown as { __tapedeck: { player: { goto(ms: number): void } } }).__tapedeck.player.goto(600_000.5));
    await page.waitForTimeout(200);
    expect(await replayText()).toBe('the end');
    await context.close();
  });

  it('loads a recording whole when it starts at its beginning', async () => {
    const id = randomUUID();
    const t0 = Date.now() - 3_600_000;
    expect((await postEvents(id, [...snapshot(t0, 'start'), text(t0 + 1000, 'changed'), ...snapshot(t0 + 2000, 'again')])).status).toBe(200);
    await pollUntil(
      () => api(`/recordings/${id}`, { key: testEnv().secretKey }),
      (r) => r.status === 200 && r.json().duration === 2000,
      30_000,
    );
    const context = await browser.newContext();
    const page = await context.newPage();
    const requests: string[] = [];
    page.on('request', (r) => {
      if (r.url().includes('/events')) requests.push(decodeURIComponent(new URL(r.url()).search));
    });
    await page.goto(`${testEnv().baseUrl}/recordings/${id}/player?${presignedQuery(id)}`);
    await page.waitForFunction(() => (window as unknown as { __tapedeck: { ready: boolean } }).__tapedeck.ready);
    expect(requests).toHaveLength(1);
    expect(requests[0]).not.toMatch(/from=|to=/);
    expect(await page.evaluate(() => (window as unknown as { __tapedeck: { loaded: string } }).__tapedeck.loaded)).toBe('all');
    await context.close();
  });
});
