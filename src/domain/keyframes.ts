// Keyframes: the moments from which a replay can start with nothing before it, a FullSnapshot with
// the Meta before it. Ingestion records those of each batch in its summary (BatchSummary.kf, kfMeta,
// kfOpen: computed here, in stored order); reads and the keyframe projection pair them the same way
// (pairKeyframes). A keyframe's time is its Meta's time, where a read from it begins.
//
// A Meta and its FullSnapshot may be stored in two batches (a recorder flushing between them, a
// client sending one event per WebSocket frame). The Meta's batch then says `kfMeta` (a Meta still
// waiting for its FullSnapshot), the next FullSnapshot's batch says `kfOpen` (its first FullSnapshot
// had no Meta before it in the batch), and in stream order the two make one keyframe, placed at the
// Meta's batch. A Meta whose FullSnapshot never came is no keyframe.
import { EventType, RrwebEvent } from './rrweb-event';

export interface BatchKeyframes {
  /** Keyframes wholly in the batch: the time of each one's Meta. */
  kf?: number[];
  /** A Meta after the batch's last FullSnapshot: its FullSnapshot, if any, is in a later batch. */
  kfMeta?: number;
  /** The time of a FullSnapshot that opens the batch (only page-load and custom events before it, no Meta). */
  kfOpen?: number;
}

/** Events that may stand between a Meta and its FullSnapshot (rrweb's page-load lead-in, custom events). */
const LEAD_IN: ReadonlySet<number> = new Set([EventType.Meta, EventType.DomContentLoaded, EventType.Load, EventType.Custom]);

/** The keyframe fields of a batch's summary; `events` in stored order, metadata events already left out. */
export function batchKeyframes(events: Iterable<Pick<RrwebEvent, 'type' | 'timestamp'>>): BatchKeyframes {
  const out: BatchKeyframes = {};
  let meta: number | undefined;
  /** Nothing but lead-in events so far: a FullSnapshot now may be the one of an earlier batch's Meta. */
  let opening = true;
  for (const e of events) {
    if (e.type === EventType.FullSnapshot) {
      if (meta !== undefined) (out.kf ??= []).push(meta);
      else if (opening) out.kfOpen = e.timestamp;
      meta = undefined;
      opening = false;
    } else if (e.type === EventType.Meta) meta = e.timestamp;
    else if (!LEAD_IN.has(e.type)) meta = undefined;
    if (!LEAD_IN.has(e.type)) opening = false;
  }
  if (meta !== undefined) out.kfMeta = meta;
  return out;
}

export interface Keyframe {
  /** Time of its Meta event, epoch ms: where a read from this keyframe begins. */
  ts: number;
  /** Stream sequence of the message that records its Meta (the batch's summary message, or the `kf` message of a server-made one). */
  seq: number;
  /** A server-made keyframe (docs/keyframes.md): a `kf` message of its own, not events of the recording. */
  server?: true;
}

export type SeqKeyframes = BatchKeyframes & { seq: number };

/** The keyframes of a recording, by time, from its batches' keyframe fields in stream order. */
export function pairKeyframes(batches: Iterable<SeqKeyframes>): Keyframe[] {
  const out: Keyframe[] = [];
  let waiting: Keyframe | undefined;
  for (const b of batches) {
    if (b.kfOpen !== undefined && waiting) out.push(waiting);
    for (const ts of b.kf ?? []) out.push({ ts, seq: b.seq });
    if (b.kfOpen !== undefined || (b.kf?.length ?? 0) > 0) waiting = undefined;
    if (b.kfMeta !== undefined) waiting = { ts: b.kfMeta, seq: b.seq };
  }
  return out.sort((a, b) => a.ts - b.ts || a.seq - b.seq);
}

/** The last keyframe at or before `t` (keyframes sorted by time); undefined when none is. */
export function keyframeAtOrBefore(keyframes: readonly Keyframe[], t: number): Keyframe | undefined {
  let found: Keyframe | undefined;
  for (const k of keyframes) {
    if (k.ts > t) break;
    found = k;
  }
  return found;
}

/** The keyframe fields of a summary as stored (they come from a header: anything else is ignored). */
export function summaryKeyframes(s: { kf?: unknown; kfMeta?: unknown; kfOpen?: unknown }): BatchKeyframes {
  const num = (v: unknown) => (typeof v === 'number' && Number.isSafeInteger(v) ? v : undefined);
  const kf = Array.isArray(s.kf) ? s.kf.map(num).filter((v): v is number => v !== undefined) : [];
  return {
    ...(kf.length ? { kf } : {}),
    ...(num(s.kfMeta) !== undefined ? { kfMeta: num(s.kfMeta) } : {}),
    ...(num(s.kfOpen) !== undefined ? { kfOpen: num(s.kfOpen) } : {}),
  };
}
