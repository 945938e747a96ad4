// Makes keyframes in Chromium: a replay page (rendering/screenshot/replay-page.ts, rrweb's Replayer
// with the screenshot page's fixes) loaded with a whole recording plays forward through the
// moments and serialises the replayed document at each (in-page/keyframe-page.ts). One browser slot
// of its own pool per recording; the page is closed in finally. What was made before a failure is
// kept; the failure names its moment.
import type { BrowserPool } from '../rendering/browser-pool/browser-pool';
import { ReplayPage } from '../rendering/screenshot/replay-page';
import type { Viewport } from '../rendering/screenshot/screenshot-params';

export interface MadeKeyframes {
  /** Each moment made, in order: the Meta and FullSnapshot as a JSON array. */
  made: { ts: number; json: string }[];
  /** The first moment that could not be made, and why; later moments were not tried. */
  failed?: { ts: number; reason: string };
}

export class KeyframeMaker {
  constructor(
    private readonly pool: BrowserPool,
    private readonly timeoutMs: number,
  ) {}

  /** `eventsJson`: the recording's events from its first (`firstTs`), as a JSON array; `moments` ascending. */
  async make(key: string, eventsJson: string, firstTs: number, viewport: Viewport, moments: readonly number[]): Promise<MadeKeyframes> {
    const out: MadeKeyframes = { made: [] };
    try {
      await this.pool.run(
        async (lease) => {
          const page = await ReplayPage.open(lease.browser, lease.generation, eventsJson, viewport, { timeoutMs: this.timeoutMs, signal: lease.signal });
          try {
            for (const ts of moments) {
              if (lease.signal.aborted) return;
              // Half a millisecond past the moment: rrweb plays the events strictly before the offset.
              const json = await page.keyframeAt(ts - firstTs + 0.5, ts);
              if (json === null) {
                out.failed = { ts, reason: 'no page is shown at this moment' };
                return;
              }
              out.made.push({ ts, json });
            }
          } finally {
            await page.close();
          }
        },
        { key },
      );
    } catch (e) {
      const next = moments[out.made.length];
      if (next !== undefined && !out.failed) out.failed = { ts: next, reason: String((e as Error)?.message ?? e).slice(0, 300) };
    }
    return out;
  }
}
