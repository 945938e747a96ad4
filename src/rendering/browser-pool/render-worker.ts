// The render thread (a worker of the service process, started by render-thread.ts): it launches
// Chromium and drives replay pages with Playwright on the thread's own event loop and heap, so what
// a render costs in JavaScript (Playwright's protocol, the events sent to the page, the image coming
// back, their garbage) never pauses the requests of the service's thread. It answers requests by id
// and reports browsers that disconnect and pages that close.
import { parentPort, workerData } from 'node:worker_threads';
import type { Browser } from 'playwright-core';
import { LocalBrowser, type LocalReplayPage } from '../screenshot/replay-page';
import { lowerThreadPriority } from '../../common/thread-priority';
import { launchBrowser } from './chromium-launch';
import type { FromRenderThread, ToRenderThread } from './render-thread-protocol';

const port = parentPort!;
const browsers = new Map<number, LocalBrowser>();
const pages = new Map<number, LocalReplayPage>();
const opening = new Map<number, AbortController>();
const nice = (workerData as { nice?: number } | undefined)?.nice ?? 0;

const send = (m: FromRenderThread, transfer?: ArrayBuffer[]) => port.postMessage(m, transfer ?? []);

function need<T>(map: Map<number, T>, id: number, what: string): T {
  const found = map.get(id);
  if (!found) throw new Error(`Target page, context or browser has been closed (${what} ${id} is gone)`);
  return found;
}

async function handle(m: ToRenderThread): Promise<{ value?: unknown; transfer?: ArrayBuffer[] }> {
  switch (m.op) {
    case 'launch': {
      const browser: Browser = await launchBrowser(m.chromiumPath, m.timeoutMs, nice);
      const local = new LocalBrowser(browser);
      browsers.set(m.browser, local);
      browser.on('disconnected', () => {
        browsers.delete(m.browser);
        send({ event: 'disconnected', browser: m.browser });
      });
      return {};
    }
    case 'closeBrowser': {
      await browsers.get(m.browser)?.close();
      return {};
    }
    case 'open': {
      const abort = new AbortController();
      opening.set(m.page, abort);
      try {
        const page = await need(browsers, m.browser, 'browser').openReplayPage(m.eventsJson, m.viewport, {
          timeoutMs: m.timeoutMs,
          settleMs: m.settleMs,
          signal: abort.signal,
        });
        pages.set(m.page, page);
        page.onClose(() => {
          pages.delete(m.page);
          send({ event: 'pageClosed', page: m.page });
        });
        return {};
      } finally {
        opening.delete(m.page);
      }
    }
    case 'abort':
      opening.get(m.target)?.abort();
      return {};
    case 'shoot': {
      const png = await need(pages, m.page, 'page').shoot(m.offsetMs, m.box);
      // Sent, not copied: a buffer of its own (a Buffer may be a view of a larger or shared one).
      const own = png.byteOffset === 0 && png.byteLength === png.buffer.byteLength ? png : Uint8Array.prototype.slice.call(png);
      return { value: own, transfer: [own.buffer as ArrayBuffer] };
    }
    case 'keyframe':
      return { value: await need(pages, m.page, 'page').keyframeAt(m.offsetMs, m.ts) };
    case 'closePage': {
      const page = pages.get(m.page);
      pages.delete(m.page);
      await page?.close();
      return {};
    }
  }
}

lowerThreadPriority(nice); // at RENDER_NICE, as Chromium is: renders take the CPU the service's thread leaves
port.on('message', (m: ToRenderThread) => {
  handle(m).then(
    ({ value, transfer }) => m.id !== 0 && send({ id: m.id, ok: true, value }, transfer),
    (err: unknown) => m.id !== 0 && send({ id: m.id, ok: false, message: String((err as Error)?.message ?? err) }),
  );
});
