// What the browser pool and the renders need of a browser, wherever it runs: in this thread
// (LocalBrowser, replay-page.ts) or in the render thread (render-thread.ts), which keeps Playwright,
// its protocol traffic and its garbage off the service's event loop.
import type { Viewport } from '../screenshot/screenshot-params';

export interface OpenPageOptions {
  /** RENDER_TIMEOUT_MS, applied to every page operation. */
  timeoutMs: number;
  settleMs?: number;
  /** Aborted when the render runs out of time: the page stops opening and closes. */
  signal?: AbortSignal;
}

/** A Chromium page holding rrweb's Replayer loaded with one recording (replay-page.ts). */
export interface ReplayPageHandle {
  readonly closed: boolean;
  /** PNG of the replayed viewport at `offsetMs` from the first event, rasterised for `box` (up to 4x). */
  shoot(offsetMs: number, box?: Viewport): Promise<Buffer>;
  /** The replayed document at `offsetMs` as a Meta and a FullSnapshot at `ts` (JSON), or null. */
  keyframeAt(offsetMs: number, ts: number): Promise<string | null>;
  close(): Promise<void>;
}

export interface RenderBrowser {
  isConnected(): boolean;
  on(event: 'disconnected', listener: () => void): unknown;
  close(): Promise<void>;
  /** A page of its own browser context, loaded with the recording (`eventsJson`, sorted by time). */
  openReplayPage(eventsJson: string, viewport: Viewport, options: OpenPageOptions): Promise<ReplayPageHandle>;
}
