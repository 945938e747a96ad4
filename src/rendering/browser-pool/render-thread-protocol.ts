// Messages between the service's thread (render-thread.ts) and the render thread (render-worker.ts).
// Requests carry an id, answered once; id 0 asks for no answer. Browsers and pages are numbered by
// the service's thread. The thread's priority (RENDER_NICE), which its Chromiums take too, is its workerData.
import type { Viewport } from '../screenshot/screenshot-params';

export type ToRenderThread = { id: number } & (
  | { op: 'launch'; browser: number; chromiumPath: string; timeoutMs: number }
  | { op: 'closeBrowser'; browser: number }
  | { op: 'open'; browser: number; page: number; eventsJson: string; viewport: Viewport; timeoutMs: number; settleMs?: number }
  /** Stops the opening of page `target` (its render ran out of time). */
  | { op: 'abort'; target: number }
  | { op: 'shoot'; page: number; offsetMs: number; box?: Viewport }
  | { op: 'keyframe'; page: number; offsetMs: number; ts: number }
  | { op: 'closePage'; page: number }
);

export type FromRenderThread =
  | { id: number; ok: true; value?: unknown }
  | { id: number; ok: false; message: string }
  | { event: 'disconnected'; browser: number }
  | { event: 'pageClosed'; page: number };
