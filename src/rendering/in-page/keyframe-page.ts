// The keyframe maker's in-page function, bundled by scripts/build-sdk.mjs into
// dist/in-page/keyframe-page.js and evaluated in a replay page (screenshot-page.ts loaded the
// recording): `at(offset, ts)` plays the recording forward to `offset` and answers the replayed
// document as a Meta and a FullSnapshot at `ts` (a JSON array), or null when there is no page to
// serialise. Node ids are the recording's: rrweb-snapshot's snapshot() keeps the id of every node
// its mirror knows, and the mirror given here knows only what the Replayer built from the recording
// (nodes the Replayer added itself, such as its injected style, are left out rather than numbered).
import { type Mirror, snapshot } from 'rrweb-snapshot';
import { keyframeMeta } from './keyframe-meta';
import type { ReplayMirror } from './rrweb-shapes';

/** rrweb-snapshot's code for a node it leaves out (slimDOM). */
const IGNORED_NODE = -2;

declare global {
  interface Window {
    __tapedeckKeyframe: { at(offset: number, ts: number): string | null };
  }
}

/** The Replayer's mirror, read only: unknown nodes are "ignored", nothing is added to it. */
export function recordedOnly(mirror: ReplayMirror): ReplayMirror {
  return {
    hasNode: () => true,
    getId: (n) => (n && mirror.hasNode(n) ? mirror.getId(n) : IGNORED_NODE),
    add: () => undefined,
  };
}

// Forward only: the Replayer keeps its place (lastPlayedEvent) and plays just the events since the
// last call, so one page makes every keyframe of a recording in one pass.
function at(offset: number, ts: number): string | null {
  const r = window.__replayer;
  r.pause(offset);
  const doc = r.iframe.contentDocument;
  const events = r.service.state.context.events;
  const meta = events.length ? keyframeMeta(events, events[0].timestamp + offset) : undefined;
  if (!doc || !doc.documentElement || !meta) return null;
  // Same-origin frames of the recorded page would need their own documents serialised (rrweb does
  // it asynchronously, on load): not made, the recording renders from its other keyframes.
  if (doc.querySelector('iframe')) throw new Error('the replayed page holds iframes');
  const node = snapshot(doc, {
    mirror: recordedOnly(r.getMirror()) as unknown as Mirror,
    maskAllInputs: {},
    inlineStylesheet: true,
    inlineImages: false,
    recordCanvas: false,
    slimDOM: false,
    preserveWhiteSpace: true,
  });
  if (!node) return null;
  const { href, width, height, scroll } = meta;
  return JSON.stringify([
    { type: 4, data: { href, width, height }, timestamp: ts },
    { type: 2, data: { node, initialOffset: scroll }, timestamp: ts },
  ]);
}

window.__tapedeckKeyframe = { at };
