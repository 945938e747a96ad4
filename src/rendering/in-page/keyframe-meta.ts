// What a server-made keyframe says besides its snapshot (keyframe-page.ts): the Meta event of its
// moment (the page's address from the last Meta, the window's size from the last Meta or viewport
// resize) and the window's scroll, from the recording itself, as the screenshot page places them.
import type { ReplayEvent } from './rrweb-shapes';
import { windowScrollAt } from './window-scroll';

const META = 4;
const INCREMENTAL = 3;
const VIEWPORT_RESIZE = 4;

export interface KeyframeMeta {
  href: string;
  width: number;
  height: number;
  scroll: { left: number; top: number };
}

/** The Meta and the window scroll once the events before `cutoff` are played; undefined before any Meta. */
export function keyframeMeta(events: readonly ReplayEvent[], cutoff: number): KeyframeMeta | undefined {
  let meta: Omit<KeyframeMeta, 'scroll'> | undefined;
  for (const e of events) {
    if (e.timestamp >= cutoff) continue;
    if (e.type === META) meta = { href: e.data?.href ?? '', width: e.data?.width ?? 0, height: e.data?.height ?? 0 };
    else if (meta && e.type === INCREMENTAL && e.data?.source === VIEWPORT_RESIZE)
      meta = { ...meta, width: e.data.width ?? meta.width, height: e.data.height ?? meta.height };
  }
  return meta && { ...meta, scroll: windowScrollAt(events, cutoff) ?? { left: 0, top: 0 } };
}
