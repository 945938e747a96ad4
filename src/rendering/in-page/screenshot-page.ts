// The screenshot page's in-page functions, bundled by scripts/build-sdk.mjs into
// dist/in-page/screenshot-page.js and evaluated in the replay page (screenshot/replay-page.ts) after
// rrweb's UMD bundle: `setup(json)` loads a recording into rrweb's Replayer, `seek(offset, settleMs)`
// shows one moment of it and answers the size of the replayed window.
import { finishAnimations } from './finish-animations';
import { prepareReplay } from './prepare-replay';
import type { ReplayerInternals } from './rrweb-shapes';
import { skipBadEvents } from './skip-bad-events';
import { windowScrollAt } from './window-scroll';

declare global {
  interface Window {
    /** rrweb's UMD bundle. */
    rrweb: { Replayer: new (events: unknown[], config: Record<string, unknown>) => ReplayerInternals };
    __replayer: ReplayerInternals;
    __tapedeckReplay: { setup(json: string): Promise<void>; seek(offset: number, settleMs: number): Promise<{ width: number; height: number }> };
  }
}

// The constructor builds the first snapshot on a 1 ms timer; waiting on a later 1 ms timer keeps
// that from landing on top of our first seek.
async function setup(json: string): Promise<void> {
  const silent = { log() {}, warn() {}, error() {} };
  const events = JSON.parse(json) as unknown[];
  const { insertStyleRules } = prepareReplay(events);
  window.__replayer = new window.rrweb.Replayer(events, {
    root: document.getElementById('root'),
    speed: 1,
    skipInactive: false,
    mouseTail: false,
    triggerFocus: false,
    showWarning: false,
    showDebug: false,
    UNSAFE_replayCanvas: false,
    logger: silent,
    insertStyleRules,
  });
  skipBadEvents(window.__replayer);
  await new Promise((res) => setTimeout(res, 1));
}

// Seek, finish the animations the seek set off, then let images and fonts of the replayed document
// settle (bounded). No frame wait: Page.captureScreenshot composites a fresh frame (checked against
// seeks that flip the page).
// Forgetting the last played event makes every seek replay from the last snapshot before the
// target, so the image never depends on what this warm page showed before (rrweb would otherwise
// continue incrementally forwards, and loses its node map seeking back before a snapshot).
async function seek(offset: number, settleMs: number): Promise<{ width: number; height: number }> {
  const r = window.__replayer;
  r.service.state.context.lastPlayedEvent = null;
  r.pause(offset);
  const frame = r.iframe;
  // Only a Meta event sizes and shows rrweb's frame: without one, the frame takes the window.
  if (!frame.offsetWidth) r.handleResize({ width: innerWidth, height: innerHeight });
  const doc = frame.contentDocument;
  const waits: Promise<unknown>[] = [];
  if (doc) {
    finishAnimations(doc);
    if (doc.fonts) waits.push(doc.fonts.ready);
    for (const img of Array.from(doc.images)) {
      if (!img.complete) {
        waits.push(
          new Promise((res) => {
            img.addEventListener('load', res);
            img.addEventListener('error', res);
          }),
        );
      }
    }
  }
  if (waits.length) await Promise.race([Promise.all(waits), new Promise((res) => setTimeout(res, settleMs))]);
  // rrweb scrolls the window to a rebuilt snapshot's initial offset at once, before the document is
  // laid out: a page too short yet clamps the scroll (to 0, or to what an earlier seek left), and the
  // image then depends on timing and on this warm page's past. Now that it is laid out, put the
  // window where the recording had it.
  const events = r.service.state.context.events;
  const want = events.length ? windowScrollAt(events, events[0].timestamp + offset) : undefined;
  const win = frame.contentWindow;
  if (want && win && (Math.round(win.scrollX) !== want.left || Math.round(win.scrollY) !== want.top)) win.scrollTo(want.left, want.top);
  return { width: frame.offsetWidth, height: frame.offsetHeight };
}

window.__tapedeckReplay = { setup, seek };
