// time=poster in the real Chromium: a page recorded as a single-page app boots (a spinner in its
// first full snapshot, then its content built in a burst of changes, later a visitor's click) must
// render, at its poster moment, like the live page after the burst and before the click; offset:0
// shows the spinner. The images are written to $TMPDIR/tapedeck-poster/ to be looked at.
import { mkdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser } from 'playwright-core';
import type { RrwebEvent } from '../../src/domain/rrweb-event';
import { BrowserPool } from '../../src/rendering/browser-pool/browser-pool';
import { ScreenshotRenderer } from '../../src/rendering/screenshot/screenshot-renderer';
import { POSTER, ScreenshotTime } from '../../src/rendering/screenshot/screenshot-params';
import { launchChromium } from '../harness/browser';
import { recordedEvents, similarity, startRecording } from './rendering-fixtures';

const VIEWPORT = { width: 800, height: 600 };
const OUT = join(tmpdir(), 'tapedeck-poster');
jest.setTimeout(120_000);

/** An app shell: a spinner until window.boot() builds the page in steps, as a framework fetching its data would. */
const APP_HTML = `<!doctype html><html><head><meta charset="utf-8"><style>
body{margin:0;font-family:sans-serif;background:#fff;color:#222}
#spinner{margin:200px auto;width:80px;height:80px;border-radius:50%;border:12px solid #ddd;border-top-color:#888}
header{background:#2b3a67;color:#fff;padding:20px 24px;font-size:28px}
.cards{display:flex;gap:16px;padding:16px 24px}.card{flex:1;height:120px;background:#d7f5dd;border-radius:8px;padding:8px}
#panel{margin:0 24px;height:160px;background:#dcdcdc;font-size:28px;padding:12px}#panel.open{background:#ff8c00}
</style></head><body><div id="app"><div id="spinner"></div></div><script>
window.boot = () => {
  const app = document.getElementById('app');
  setTimeout(() => { app.innerHTML = '<header>Pricing</header>'; }, 150);
  setTimeout(() => { app.insertAdjacentHTML('beforeend', '<div class="cards"><div class="card">Free</div><div class="card">Pro</div><div class="card">Team</div></div>'); }, 450);
  setTimeout(() => { app.insertAdjacentHTML('beforeend', '<div id="panel">Compare plans</div>'); }, 750);
};
document.addEventListener('click', (e) => { if (e.target.id === 'panel') e.target.classList.add('open'); });
</script></body></html>`;

describe('time=poster in Chromium', () => {
  let browser: Browser;
  let pool: BrowserPool;
  let renderer: ScreenshotRenderer;
  let events: RrwebEvent[];
  let live: Buffer;

  beforeAll(async () => {
    mkdirSync(OUT, { recursive: true });
    browser = await launchChromium();
    const context = await browser.newContext({ viewport: VIEWPORT, deviceScaleFactor: 1 });
    const page = await context.newPage();
    await page.setContent(APP_HTML);
    await startRecording(page);
    await page.evaluate(() => (window as unknown as { boot: () => void }).boot());
    // The burst ends at about 750 ms; the visitor reads, then clicks after more than a quiet second.
    await page.waitForTimeout(2000);
    live = await page.screenshot({ type: 'png' });
    await page.evaluate(() => document.getElementById('panel')!.classList.add('open'));
    await page.waitForTimeout(500);
    events = await recordedEvents(page);
    await context.close();
    pool = new BrowserPool({ chromiumPath: '/usr/bin/chromium', concurrency: 1, queueLimit: 4, timeoutMs: 15_000 });
    renderer = new ScreenshotRenderer(pool, { timeoutMs: 15_000 });
  });

  afterAll(async () => {
    await renderer?.close();
    await pool?.close();
    await browser?.close();
  });

  const render = async (time: ScreenshotTime, name: string) => {
    const image = await renderer.render({ tenantId: 't', contentKey: 'app', events, time, format: 'png', ...VIEWPORT });
    writeFileSync(join(OUT, `${name}.png`), image.bytes);
    return image.bytes;
  };

  it('shows the page as built, before the click; offset:0 shows the spinner, the end the clicked panel', async () => {
    writeFileSync(join(OUT, 'live.png'), live);
    const poster = await similarity(live, await render(POSTER, 'poster'));
    const start = await similarity(live, await render({ kind: 'offset', value: 0 }, 'offset-0'));
    const end = await similarity(live, await render({ kind: 'percent', value: 100 }, 'end'));
    console.log(
      `poster vs live: ${(poster.similarPixels * 100).toFixed(2)}% similar pixels; offset:0: ${(start.similarPixels * 100).toFixed(2)}%; end: ${(end.similarPixels * 100).toFixed(2)}%; images in ${OUT}`,
    );
    expect(poster.similarPixels).toBeGreaterThanOrEqual(0.97);
    expect(poster.meanAbsDiff).toBeLessThan(0.03);
    expect(start.similarPixels).toBeLessThan(0.9);
    expect(end.similarPixels).toBeLessThan(0.97);
  });

  it('shows the page as built when the visitor clicks within the quiet second after it, not what the click opened', async () => {
    const context = await browser.newContext({ viewport: VIEWPORT, deviceScaleFactor: 1 });
    const page = await context.newPage();
    await page.setContent(APP_HTML);
    await startRecording(page);
    // The panel comes at 750 ms; the visitor clicks it 300 ms later, while the burst could still go on.
    await page.evaluate(() => {
      (window as unknown as { boot: () => void }).boot();
      setTimeout(() => document.getElementById('panel')!.click(), 1050);
    });
    await page.waitForTimeout(2500);
    const quick = await recordedEvents(page);
    await context.close();
    const isClick = (e: RrwebEvent) => e.type === 3 && (e.data as { source: number; type: number }).source === 2 && (e.data as { type: number }).type === 2;
    const clickAt = quick.find(isClick)!.timestamp;
    const lastChangeBefore = Math.max(
      ...quick.filter((e) => e.type === 3 && (e.data as { source: number }).source === 0 && e.timestamp < clickAt).map((e) => e.timestamp),
    );
    expect(clickAt - lastChangeBefore).toBeLessThan(1000);
    const image = await renderer.render({ tenantId: 't', contentKey: 'quick', events: quick, time: POSTER, format: 'png', ...VIEWPORT });
    writeFileSync(join(OUT, 'quick-poster.png'), image.bytes);
    // The same page as built, panel closed: the first test's live screenshot.
    const poster = await similarity(live, image.bytes);
    expect(poster.similarPixels).toBeGreaterThanOrEqual(0.97);
    expect(poster.meanAbsDiff).toBeLessThan(0.03);
  });
});
