// Viewers stay private: a recording that names a host in every way a page can load from one
// (privacy-fixtures.ts: frames, images, srcsets, CSS url/import/font, link hints, media, SVG,
// object/embed, meta refresh; in the snapshot and in later changes) is played in the hosted player,
// in Chromium, opened with the private key and with a presigned link, from start to end and at its
// end; the host, a loopback listener, sees no connection at all. On a second instance whose
// PLAYER_ASSET_SOURCES names that host, the viewer's browser loads the recorded images (and only
// assets: never a frame, a hint, a refresh or an embed). A screenshot of the recording contacts nothing.
import { randomUUID } from 'node:crypto';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { launchChromium } from '../harness/browser';
import { testEnv } from '../harness/env';
import { postEvents } from '../harness/http';
import { pollUntil } from '../harness/poll-until';
import { ServiceProcess, startService } from '../harness/stack';
import { playerState } from '../integration/rendering-fixtures';
import { getBytes, presignedQuery } from './rendering-e2e-fixtures';
import { ASSET_PATHS, countingListener, referencingEvents } from './privacy-fixtures';

jest.setTimeout(180_000);

let browser: Browser;
let host: Awaited<ReturnType<typeof countingListener>>;
let second: ServiceProcess;
let recordingId: string;

beforeAll(async () => {
  const env = testEnv();
  browser = await launchChromium();
  host = await countingListener();
  recordingId = randomUUID();
  const ingested = await postEvents(recordingId, referencingEvents(host.base));
  expect(ingested.status).toBe(200);
  second = await startService(
    { ...env.serviceEnv, TAPEDECK_ROLE: 'api', TAPEDECK_ADMIN_TOKEN: '', PLAYER_ASSET_SOURCES: host.base },
    env.dir,
    'privacy-assets',
  );
});

afterAll(async () => {
  await browser?.close();
  await second?.stop();
  await host?.close();
});

/** Opens the player in a fresh context (the secret key sent to the service only); waits until it is ready. */
async function openPlayer(base: string, query: string, withKey: boolean): Promise<{ page: Page; context: BrowserContext }> {
  const context = await browser.newContext({ viewport: { width: 1024, height: 768 } });
  if (withKey) {
    await context.route(`${base}/**`, (route) => route.continue({ headers: { ...route.request().headers(), authorization: `Bearer ${testEnv().secretKey}` } }));
  }
  const page = await context.newPage();
  await page.goto(`${base}/recordings/${recordingId}/player.html?${query}`);
  await page.waitForFunction(() => {
    const s = (window as unknown as { __tapedeck?: { ready: boolean; error?: string } }).__tapedeck;
    return !!s && (s.ready || !!s.error);
  });
  return { page, context };
}

/** Plays the recording from the start to past its end (about 1.8 s) at 4x, then seeks back and forth. */
async function playThrough(page: Page): Promise<void> {
  await pollUntil(
    () => page.evaluate(() => (window as any).__tapedeck.player.getReplayer().getCurrentTime() as number),
    (t) => t >= 1800,
    10_000,
  );
  await page.evaluate(() => {
    const p = (window as any).__tapedeck.player;
    p.goto(0, false);
    p.goto(1790, false);
  });
  await page.waitForTimeout(1500); // a meta refresh of 1 s, prefetches and media loads come late
}

describe('the hosted player names no host of a recording to its viewers', () => {
  for (const [how, withKey] of [
    ['opened with the private key', true],
    ['opened with a presigned link', false],
  ] as const) {
    it(`makes no connection at all to the recorded host, ${how}`, async () => {
      const before = host.connections();
      const query = ['autoplay=true', 'speed=4', withKey ? '' : presignedQuery(recordingId)].filter(Boolean).join('&');
      const { page, context } = await openPlayer(testEnv().baseUrl, query, withKey);
      expect(await playerState(page)).toMatchObject({ ready: true, error: undefined });
      await playThrough(page);
      expect((await playerState(page)).replayText).toContain('Every reference of this page points at one host.');
      expect({ connections: host.connections() - before, paths: host.paths }).toEqual({ connections: 0, paths: [] });
      expect(await page.evaluate(() => (window as any).__tapedeck.sanitized)).toBeGreaterThan(20);
      await context.close();
    });
  }

  it('loads the recorded images, and only assets, when PLAYER_ASSET_SOURCES names the host', async () => {
    const { page, context } = await openPlayer(second.url, `time=percent:100&${presignedQuery(recordingId)}`, false);
    expect(await playerState(page)).toMatchObject({ ready: true });
    const loaded = () =>
      page.evaluate(() => {
        const doc = (window as any).__tapedeck.player.getReplayer().iframe.contentDocument as Document;
        return Array.from(doc.images)
          .filter((img) => img.complete && img.naturalWidth > 0)
          .map((img) => new URL(img.currentSrc).pathname);
      });
    // The image changed to /changed.png by the recording, and the one added later.
    await pollUntil(loaded, (paths) => paths.includes('/changed.png') && paths.includes('/added.png'), 10_000);
    await page.waitForTimeout(1500);
    expect(host.paths.length).toBeGreaterThan(0);
    expect(host.paths.filter((p) => !ASSET_PATHS.includes(p))).toEqual([]);
    await context.close();
  });

  it('renders a screenshot of it without contacting the host', async () => {
    const before = { connections: host.connections(), paths: host.paths.length };
    const r = await getBytes(`/recordings/${recordingId}/screenshot.png?time=percent:100`, { key: testEnv().secretKey });
    expect(r.status).toBe(200);
    await new Promise((resolve) => setTimeout(resolve, 1500));
    expect({ connections: host.connections() - before.connections, paths: host.paths.slice(before.paths) }).toEqual({ connections: 0, paths: [] });
  });
});
