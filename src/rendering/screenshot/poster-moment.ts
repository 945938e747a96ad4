// The moment a still of a recording shows the page as its visitor saw it (time=poster, the default
// of thumbnails and previews): offset 0 is the first full snapshot, taken as the page was parsed,
// often before its scripts built what the visitor came to see (a spinner, an empty app shell). So:
// the end of the first burst of changes after the first full snapshot, that is the last change
// followed by POSTER_QUIET_MS without one, at most POSTER_MAX_SETTLE_MS after the snapshot (a page
// that never stops changing, a ticking clock or a carousel), and within the first page view. Once
// the page has changed, the visitor's first press (click, touch, typing) ends the burst too: what
// follows is their doing (a menu, a dialog), not the page as it came up.
import { EventType, RrwebEvent } from '../../domain/rrweb-event';

/** A pause without changes this long ends the burst. */
export const POSTER_QUIET_MS = 1000;
/** The burst is cut this long after the snapshot, however busy the page still is. */
export const POSTER_MAX_SETTLE_MS = 5000;

/** rrweb's IncrementalSource codes that change what the page looks like: DOM mutations and style sheets (rule, declaration, adopted). */
const VISUAL_SOURCES = new Set([0, 8, 13, 15]);

const isChange = (e: RrwebEvent) => e.type === EventType.IncrementalSnapshot && VISUAL_SOURCES.has((e.data as { source?: unknown }).source as number);

/** rrweb's MouseInteraction presses (MouseDown, Click, ContextMenu, DblClick, TouchStart); not Focus/Blur, which scripts cause. */
const PRESSES = new Set([1, 2, 3, 4, 7]);

/** The visitor acting on the page: a press, or typing (an Input the user triggered, not a script's value change). */
function isVisitorAction(e: RrwebEvent): boolean {
  if (e.type !== EventType.IncrementalSnapshot) return false;
  const d = e.data as { source?: unknown; type?: unknown; userTriggered?: unknown };
  return (d.source === 2 && PRESSES.has(d.type as number)) || (d.source === 5 && d.userTriggered === true);
}

/** For events in time order: the poster moment (epoch ms), or undefined without a full snapshot. */
export function posterMoment(sorted: readonly RrwebEvent[]): number | undefined {
  const first = sorted.findIndex((e) => e.type === EventType.FullSnapshot);
  if (first < 0) return undefined;
  const snapshot = sorted[first].timestamp;
  const cap = snapshot + POSTER_MAX_SETTLE_MS;
  let settled = snapshot; // never past cap
  for (const e of sorted.slice(first + 1)) {
    // The next page view begins (its Meta, then its snapshot): the first one ends just before it.
    if (e.type === EventType.Meta || e.type === EventType.FullSnapshot) return Math.max(snapshot, Math.min(settled, e.timestamp - 1));
    // The visitor acts once the page has built itself: the page as it stood just before.
    if (settled > snapshot && isVisitorAction(e)) return settled;
    if (!isChange(e)) continue;
    if (e.timestamp - settled > POSTER_QUIET_MS) return settled;
    // Still changing at the cap: the page as it stood then.
    if (e.timestamp > cap) return cap;
    settled = e.timestamp;
  }
  return settled;
}
