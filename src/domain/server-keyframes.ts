// Server-made keyframes (docs/keyframes.md): for recordings whose clients never take a full
// snapshot after the first, the projector role replays the recording and stores the replayed page
// as a Meta and a FullSnapshot at a moment T, as a message of its own (subject kind `kf`), never as
// an event of the recording. The events after T apply on top of it unchanged. Here: the message's
// header, and where in a recording new keyframes go.
import { EventType } from './rrweb-event';

/** The Td-Keyframe header of a `kf` message: its moment, and whether the keyframe was made (else the payload is empty). */
export interface KeyframeHeader {
  v: 1;
  /** Epoch ms: the keyframe holds every event of the recording at or before ts, and its events carry ts. */
  ts: number;
  ok: boolean;
  /** Why making it failed (ok false). */
  reason?: string;
  /** The payload is gzip-compressed (a serialised page compresses several times over: fewer keyframes exceed one message). */
  enc?: 'gzip';
}

export function parseKeyframeHeader(raw: string | undefined): KeyframeHeader | undefined {
  if (!raw) return undefined;
  try {
    const h = JSON.parse(raw) as Record<string, unknown>;
    if (h.v !== 1 || typeof h.ts !== 'number' || !Number.isSafeInteger(h.ts) || typeof h.ok !== 'boolean') return undefined;
    return { v: 1, ts: h.ts, ok: h.ok, ...(typeof h.reason === 'string' ? { reason: h.reason } : {}), ...(h.enc === 'gzip' ? { enc: 'gzip' as const } : {}) };
  } catch {
    return undefined;
  }
}

/** One event as the keyframe maker sees it: its type, time and stored size. */
export interface SizedEvent {
  type: number;
  timestamp: number;
  bytes: number;
}

export interface KeyframeSpacing {
  /** A keyframe once this long after the last one (0: never by time). */
  everyMs: number;
  /** A keyframe once this many bytes of events were stored after the last one (0: never by size). */
  everyBytes: number;
  /** At most this many moments. */
  max: number;
}

/** Events that may stand between a Meta and its FullSnapshot: no keyframe in between (the page is changing). */
const LEAD_IN: ReadonlySet<number> = new Set([EventType.Meta, EventType.DomContentLoaded, EventType.Load]);

/**
 * Moments for new keyframes in a recording (`events` in read order): after `since` (the last
 * server-made keyframe, or the last failed attempt), and once `everyMs` or `everyBytes` of events
 * passed since the last keyframe of any kind (a FullSnapshot of the recording is one). A moment is
 * the time of the last event of its millisecond (the keyframe holds every event at or before it),
 * never between a Meta and its FullSnapshot nor before the first FullSnapshot.
 */
export function keyframeMoments(events: readonly SizedEvent[], since: number | undefined, o: KeyframeSpacing): number[] {
  const out: number[] = [];
  if (o.max <= 0 || (o.everyMs <= 0 && o.everyBytes <= 0)) return out;
  let last = since ?? Number.NEGATIVE_INFINITY;
  let bytes = 0;
  let snapshot = false;
  let changing = false;
  for (let i = 0; i < events.length; i++) {
    const e = events[i];
    if (e.type === EventType.FullSnapshot) {
      snapshot = true;
      changing = false;
      last = Math.max(last, e.timestamp);
      bytes = 0;
      continue;
    }
    if (e.type === EventType.Meta) changing = true;
    else if (!LEAD_IN.has(e.type) && e.type !== EventType.Custom) changing = false;
    if (e.timestamp <= last) continue;
    bytes += e.bytes;
    const endOfMs = i === events.length - 1 || events[i + 1].timestamp !== e.timestamp;
    if (!endOfMs || !snapshot || changing) continue;
    if ((o.everyMs > 0 && e.timestamp - last >= o.everyMs) || (o.everyBytes > 0 && bytes >= o.everyBytes)) {
      out.push(e.timestamp);
      if (out.length >= o.max) break;
      last = e.timestamp;
      bytes = 0;
    }
  }
  return out;
}
