// A Chromium page, in a browser context of its own (never shared with another recording), holding
// rrweb's Replayer loaded with one recording, ready to seek and shoot. rrweb is injected from the
// installed package, never fetched; the recording is sanitised in the page before rrweb builds it
// (in-page/replay-sanitizer.ts), every request the page or the replayed document still makes is
// aborted except data: URLs, and what Chromium fetches outside that interception (prefetch,
// preconnect) finds no network (CHROMIUM_ARGS), so a replay cannot reach the network. The caller
// owns the page: close() it in finally, or keep it warm.
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { Browser, BrowserContext, CDPSession, Page } from 'playwright-core';
import type { OpenPageOptions, RenderBrowser, ReplayPageHandle } from '../browser-pool/render-browser';
import { untilAborted } from '../browser-pool/until-aborted';
import { inPageScript } from '../shared/in-page-scripts';
import type { PageRange } from './page-window';
import type { Viewport } from './screenshot-params';

export const MAX_PAGE_SIDE = 4096;

let rrwebBundle: { js: string; css: string } | undefined;

function bundle(): { js: string; css: string } {
  if (!rrwebBundle) {
    const dist = dirname(require.resolve('rrweb')); // .../rrweb/dist/rrweb.cjs: the UMD sits beside it
    rrwebBundle = {
      js: readFileSync(join(dist, 'rrweb.umd.min.cjs'), 'utf8'),
      css: readFileSync(join(dist, 'style.css'), 'utf8'),
    };
  }
  return rrwebBundle;
}

// The cursor and its trail are replay UI, not page content: a screenshot shows only the page.
const SHELL = `<!doctype html><html><head><meta charset="utf-8"><style>
html,body{margin:0;padding:0;background:#fff;overflow:hidden}
.replayer-wrapper>iframe{border:0;display:block}
.replayer-mouse,.replayer-mouse-tail{display:none!important}
</style></head><body><div id="root"></div></body></html>`;

// In the page: window.__tapedeckReplay.setup(json) loads the recording into rrweb's Replayer, and
// seek(offset, settleMs) shows a moment of it (in-page/screenshot-page.ts, bundled into dist/in-page/).

/**
 * A replay page as a render uses it: the page (here or in the render thread) and what the render
 * knows of it, kept in this thread.
 */
export class ReplayPage {
  /** Set while a render uses the page; a busy page is never shared. */
  busy = false;
  /** What the page can show, set by whoever opened it with its events (nothing until then). */
  range: PageRange = { firstTs: 0, from: Infinity, to: -Infinity };

  private constructor(
    readonly generation: number,
    private readonly page: ReplayPageHandle,
  ) {}

  static async open(browser: RenderBrowser, generation: number, eventsJson: string, viewport: Viewport, options: OpenPageOptions): Promise<ReplayPage> {
    return new ReplayPage(generation, await browser.openReplayPage(eventsJson, viewport, options));
  }

  get closed(): boolean {
    return this.page.closed;
  }

  shoot(offsetMs: number, box?: Viewport): Promise<Buffer> {
    return this.page.shoot(offsetMs, box);
  }

  keyframeAt(offsetMs: number, ts: number): Promise<string | null> {
    return this.page.keyframeAt(offsetMs, ts);
  }

  close(): Promise<void> {
    return this.page.close();
  }
}

/** A Playwright browser of this thread as the pool uses it. */
export class LocalBrowser implements RenderBrowser {
  constructor(readonly browser: Browser) {}

  isConnected(): boolean {
    return this.browser.isConnected();
  }

  on(event: 'disconnected', listener: () => void): this {
    this.browser.on(event, listener);
    return this;
  }

  close(): Promise<void> {
    return this.browser.close();
  }

  openReplayPage(eventsJson: string, viewport: Viewport, options: OpenPageOptions): Promise<LocalReplayPage> {
    return LocalReplayPage.open(this.browser, eventsJson, viewport, options);
  }
}

/** The page itself, in the thread that drives Chromium. */
export class LocalReplayPage implements ReplayPageHandle {
  private viewport: Viewport;
  private keyframeScript = false;

  private constructor(
    private readonly context: BrowserContext,
    private readonly page: Page,
    private readonly cdp: CDPSession,
    viewport: Viewport,
    private readonly settleMs: number,
  ) {
    this.viewport = viewport;
  }

  static async open(browser: Browser, eventsJson: string, viewport: Viewport, options: OpenPageOptions): Promise<LocalReplayPage> {
    const size = { width: clampSize(viewport.width), height: clampSize(viewport.height) };
    const { signal } = options;
    const creating = browser.newContext({ viewport: size, deviceScaleFactor: 1, serviceWorkers: 'block', acceptDownloads: false });
    let context: BrowserContext;
    try {
      context = await untilAborted(creating, signal);
    } catch (err) {
      void creating.then(
        (c) => c.close(),
        () => undefined,
      ); // a context that arrives late is closed
      throw err;
    }
    const build = async () => {
      context.setDefaultTimeout(options.timeoutMs);
      // Aborted as ERR_ABORTED (a frame whose load is stopped so stays an empty document). Chromium 156
      // answers a frame load failed with ERR_BLOCKED_BY_CLIENT, which this used to answer, in a page
      // that also holds a data: frame by killing the whole browser (SIGTRAP; gone with
      // --disable-features=SiteInstanceGroupsForDataUrls): every render in flight failed with 503.
      await context.route('**/*', (route) => (route.request().url().startsWith('data:') ? route.continue() : route.abort('aborted')));
      const page = await context.newPage();
      await page.setContent(SHELL);
      const { js, css } = bundle();
      await page.addStyleTag({ content: css });
      await page.addScriptTag({ content: js });
      // One evaluation installs the in-page functions and loads the recording.
      await page.evaluate(`${inPageScript('screenshot-page')}\n;window.__tapedeckReplay.setup(${JSON.stringify(eventsJson)})`);
      const cdp = await context.newCDPSession(page);
      return new LocalReplayPage(context, page, cdp, size, options.settleMs ?? 1000);
    };
    try {
      return await untilAborted(build(), signal);
    } catch (err) {
      await context.close().catch(() => undefined);
      throw err;
    }
  }

  get closed(): boolean {
    return this.page.isClosed();
  }

  /** Told once when the page closes (by close(), or with its context or browser). */
  onClose(listener: () => void): void {
    this.page.once('close', listener);
  }

  /**
   * PNG of the replayed viewport at `offsetMs` from the first event. When the image will be larger
   * than the window (`box`, the output size), the page is rasterised at that scale (up to 4x) rather
   * than enlarged afterwards, so text and edges stay sharp.
   */
  async shoot(offsetMs: number, box?: Viewport): Promise<Buffer> {
    const frame = await this.page.evaluate<{ width: number; height: number }>(
      `window.__tapedeckReplay.seek(${JSON.stringify(offsetMs)}, ${JSON.stringify(this.settleMs)})`,
    );
    const size = frame.width > 0 && frame.height > 0 ? { width: clampSize(frame.width), height: clampSize(frame.height) } : this.viewport;
    if (size.width !== this.viewport.width || size.height !== this.viewport.height) {
      await this.page.setViewportSize(size); // the recording resized its window before this moment
      this.viewport = size;
    }
    // Straight CDP: page.screenshot() adds round trips (caret hiding in every frame) worth ~20 ms.
    // optimizeForSpeed trades PNG size for time; the image is re-encoded by sharp anyway.
    const shot = await this.cdp.send('Page.captureScreenshot', {
      format: 'png',
      clip: { x: 0, y: 0, ...size, scale: box ? captureScale(size, box) : 1 },
      optimizeForSpeed: true,
    });
    return Buffer.from(shot.data, 'base64');
  }

  /**
   * The replayed document at `offsetMs` from the first event, as a Meta and a FullSnapshot at `ts`
   * (JSON, node ids as recorded: in-page/keyframe-page.ts); null when nothing is shown there. Plays
   * forward from the last call (server-made keyframes: keyframes/), not from the last snapshot.
   */
  async keyframeAt(offsetMs: number, ts: number): Promise<string | null> {
    if (!this.keyframeScript) {
      await this.page.evaluate(inPageScript('keyframe-page'));
      this.keyframeScript = true;
    }
    return this.page.evaluate<string | null>(`window.__tapedeckKeyframe.at(${JSON.stringify(offsetMs)}, ${JSON.stringify(ts)})`);
  }

  async close(): Promise<void> {
    await this.context.close().catch(() => undefined);
  }
}

/** How much larger than the window the image is shown (fit inside the box), 1 to 4. */
export function captureScale(window: Viewport, box: Viewport): number {
  const fit = Math.min(box.width / window.width, box.height / window.height);
  return fit > 1 ? Math.min(4, fit) : 1;
}

function clampSize(n: number): number {
  return Math.min(MAX_PAGE_SIDE, Math.max(1, Math.round(n)));
}
