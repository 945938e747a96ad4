// Our recorder's keyframes in a real page on Playwright's fake clock: by default a new Meta and
// FullSnapshot every five minutes of a changing page, another interval through
// recordOptions.checkoutEveryNms, none with 0 (docs/recorder.md, "Keyframes").
import type { Browser } from 'playwright-core';
import { launchChromium } from '../harness/browser';
import { testEnv } from '../harness/env';
import { PageServer } from '../harness/page-server';

jest.setTimeout(120_000);

const page = (serverUrl: string, publicKey: string, recordOptions: string) => `<!doctype html><html><body><p id="clock">0</p>
<script>window.__recorded = [];</script>
<script src="${serverUrl}/sdk/recorder.js"></script>
<script>Tapedeck.start({ publicKey: ${JSON.stringify(publicKey)}, serverUrl: ${JSON.stringify(serverUrl)}, console: false,
  recordOptions: Object.assign({ emit: function (e) { window.__recorded.push({ type: e.type, timestamp: e.timestamp }); } }, ${recordOptions}) });
setInterval(function () { document.getElementById('clock').textContent = String(Date.now()); }, 1000);</script>
</body></html>`;

describe('recorder keyframes (checkoutEveryNms)', () => {
  let browser: Browser;
  let pages: PageServer;

  beforeAll(async () => {
    browser = await launchChromium();
    const { baseUrl, publicKey } = testEnv();
    pages = await PageServer.start({
      '/default': () => page(baseUrl, publicKey, '{}'),
      '/minute': () => page(baseUrl, publicKey, '{ checkoutEveryNms: 60000 }'),
      '/off': () => page(baseUrl, publicKey, '{ checkoutEveryNms: 0 }'),
    });
  });
  afterAll(async () => {
    await browser?.close();
    await pages?.close();
  });

  /** The times (minutes after the first) of the keyframes recorded over `minutes` of simulated time. */
  async function keyframes(path: string, minutes: number): Promise<number[]> {
    const ctx = await browser.newContext();
    try {
      const p = await ctx.newPage();
      await p.clock.install();
      await p.goto(`${pages.url}${path}`);
      await p.waitForFunction(() => (window as unknown as { __recorded: unknown[] }).__recorded.length > 1);
      for (let m = 0; m < minutes; m++) await p.clock.runFor(60_000);
      const events = await p.evaluate(() => (window as unknown as { __recorded: { type: number; timestamp: number }[] }).__recorded);
      const metas = events.filter((e, i) => e.type === 4 && events.slice(i + 1).find((n) => n.type !== 5)?.type === 2);
      return metas.map((e) => Math.round((e.timestamp - metas[0].timestamp) / 1000 / 60));
    } finally {
      await ctx.close();
    }
  }

  it('takes a keyframe every five minutes by default', async () => {
    expect(await keyframes('/default', 16)).toEqual([0, 5, 10, 15]);
  });

  it('takes them as often as recordOptions.checkoutEveryNms says, and none after the first with 0', async () => {
    expect(await keyframes('/minute', 3)).toEqual([0, 1, 2]); // 61 s, 122 s: the first change more than a minute after the last
    expect(await keyframes('/off', 11)).toEqual([0]);
  });
});
