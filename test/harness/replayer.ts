// rrweb's Replayer in a Chromium page: loads @rrweb/replay's UMD build and styles into the page (no
// network), plays the events to the end, and resolves with the replayer's time at 'finish'. The
// replayer stays on `window.replayer` for later seeks.
import { dirname, join } from 'node:path';
import type { Page } from 'playwright-core';

const REPLAY_UMD = join(dirname(require.resolve('@rrweb/replay')), 'replay.umd.min.cjs');
const REPLAY_CSS = require.resolve('@rrweb/replay/dist/style.css');

/** Plays `events` in `page` (which must hold an element #root) at `speed`; the time at 'finish'. */
export async function playToEnd(page: Page, events: unknown[], speed: number, timeoutMs: number): Promise<number> {
  await page.addStyleTag({ path: REPLAY_CSS });
  await page.addScriptTag({ path: REPLAY_UMD });
  return page.evaluate(
    ({ events, speed, timeoutMs }) =>
      new Promise<number>((resolve, reject) => {
        const w = window as any;
        const replayer = new w.rrwebReplay.Replayer(events, { root: document.getElementById('root'), speed });
        w.replayer = replayer;
        const timer = setTimeout(() => reject(new Error(`no finish after ${timeoutMs} ms`)), timeoutMs);
        replayer.on('finish', () => {
          clearTimeout(timer);
          resolve(replayer.getCurrentTime());
        });
        replayer.play();
      }),
    { events, speed, timeoutMs },
  );
}
