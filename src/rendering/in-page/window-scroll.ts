// The replayed window's scroll at a moment, from the recording itself (screenshot-page.ts puts the
// window there once the page is laid out).
import type { ReplayEvent } from './rrweb-shapes';

/**
 * Where the replayed window is scrolled once the events before `cutoff` are played (as rrweb's
 * pause plays them: strictly before): the last full snapshot's initial offset, then the scroll
 * events of its document.
 */
export function windowScrollAt(events: readonly ReplayEvent[], cutoff: number): { left: number; top: number } | undefined {
  let at: { left: number; top: number } | undefined;
  let documentId: number | undefined;
  for (const e of events) {
    if (e.timestamp >= cutoff) continue;
    if (e.type === 2) {
      at = { left: e.data?.initialOffset?.left ?? 0, top: e.data?.initialOffset?.top ?? 0 };
      documentId = e.data?.node?.id;
    } else if (e.type === 3 && e.data?.source === 3 && e.data.id === documentId && documentId !== undefined) {
      at = { left: e.data.x ?? 0, top: e.data.y ?? 0 };
    }
  }
  return at;
}
