// Windowed reads (ReadOptions.window): which messages a window needs, planned from the headers pass
// alone (every batch's Td-Summary carries its first and last event time and its keyframes), and the
// cut of the merged events: from the keyframe's Meta, up to `to`, at most `limit`.
import type { ReadWindow } from '../../domain/event-store';
import { BatchKeyframes, Keyframe, keyframeAtOrBefore, pairKeyframes, SeqKeyframes, summaryKeyframes } from '../../domain/keyframes';
import { EventType } from '../../domain/rrweb-event';
import type { MessageHead } from './event-order';

export interface WindowPlan {
  /** The messages to read, in stream order: every chunk of each batch the window may need. */
  heads: MessageHead[];
  /** Events before this time are left out (the keyframe's Meta time); undefined: from the first event. */
  startTs?: number;
  /**
   * The window starts at this server-made keyframe (a `kf` message): its events first, then only the
   * recording's events after its moment (startTs is that moment).
   */
  server?: Keyframe;
  to?: number;
  limit?: number;
  /** The window's hint did not hold (see planWindow): plan again from every header. */
  rescan?: boolean;
}

interface Summary {
  n: number;
  minTs: number;
  maxTs: number;
}

function parseSummary(raw: string | undefined): (Summary & { keyframes: BatchKeyframes }) | undefined {
  if (!raw) return undefined;
  try {
    const s = JSON.parse(raw) as Record<string, unknown>;
    const { n, minTs, maxTs } = s;
    if (typeof n !== 'number' || typeof minTs !== 'number' || typeof maxTs !== 'number') return undefined;
    return { n, minTs, maxTs, keyframes: summaryKeyframes(s) };
  } catch {
    return undefined;
  }
}

/**
 * The messages a window needs: the batches that may hold an event from the keyframe at or before
 * `from` up to `to`. A batch without a readable summary may hold anything and is always read;
 * batches of metadata events alone (n = 0) give no event and are never read.
 * With a hint, `heads` start at the hint's sequence: the plan holds only if it starts at the hint's
 * keyframe or a later one and every chunk of the batches it needs is there; else `rescan`.
 * `server`: the recording's server-made keyframes by time; one later than the recording's own
 * keyframe at or before `from` starts the window instead (WindowPlan.server).
 */
export function planWindow(heads: readonly MessageHead[], window: ReadWindow, server: readonly Keyframe[] = []): WindowPlan {
  const { hint } = window;
  const byBatch = new Map<string, Summary | null>();
  const chunks = new Map<string, { n: number; seen: number }>();
  const keyframes: SeqKeyframes[] = [];
  let first = hint?.first ?? Number.POSITIVE_INFINITY;
  let last = hint?.last ?? Number.NEGATIVE_INFINITY;
  for (const h of heads) {
    const n = Number(/^\d+\/(\d+)$/.exec(h.chunk ?? '')?.[1] ?? 1);
    const c = chunks.get(h.batch) ?? { n, seen: 0 };
    chunks.set(h.batch, { n: Math.max(c.n, n), seen: c.seen + 1 });
    const s = parseSummary(h.summary);
    if (!s) {
      if (!byBatch.has(h.batch)) byBatch.set(h.batch, null);
      continue;
    }
    byBatch.set(h.batch, s);
    if (s.n === 0) continue;
    first = Math.min(first, s.minTs);
    last = Math.max(last, s.maxTs);
    if (Object.keys(s.keyframes).length > 0) keyframes.push({ ...s.keyframes, seq: h.seq });
  }
  if (first > last) return { heads: heads.filter((h) => byBatch.get(h.batch) === null), limit: window.limit, rescan: hint !== undefined };
  const { from, to } = window.resolve(first, last);
  const recorded = from === undefined ? undefined : keyframeAtOrBefore(pairKeyframes(keyframes), from);
  // A server-made keyframe serves when it is later than the recording's own (a tie: the recording's).
  const made = from === undefined ? undefined : keyframeAtOrBefore(server, from);
  const useServer = made !== undefined && (recorded === undefined || made.ts > recorded.ts);
  const startTs = useServer ? made.ts : recorded?.ts;
  const wanted = (s: Summary | null | undefined) => !s || (s.n > 0 && (startTs === undefined || s.maxTs >= startTs) && (to === undefined || s.minTs <= to));
  const planned = heads.filter((h) => wanted(byBatch.get(h.batch)));
  const whole = (batch: string) => chunks.get(batch)!.seen >= chunks.get(batch)!.n;
  if (hint && (startTs === undefined || startTs < hint.ts || !planned.every((h) => whole(h.batch)))) return { heads: [], rescan: true };
  return { heads: planned, startTs, ...(useServer ? { server: made } : {}), to, limit: window.limit };
}

/** Cuts the merged runs of a windowed read; `done` once nothing further can be in the window. */
export class WindowCut<E extends { timestamp: number; type?: unknown }> {
  private started: boolean;
  private taken = 0;
  done = false;

  constructor(private readonly plan: WindowPlan) {
    this.started = plan.startTs === undefined || plan.server !== undefined;
  }

  /**
   * `run`, the next merged events, cut to the window. `keyframe`: the events of the window's
   * server-made keyframe, taken first; after them, events at or before its moment are left out.
   */
  take(run: E[], keyframe = false): E[] {
    const { startTs, to, limit, server } = this.plan;
    const out: E[] = [];
    for (const e of run) {
      if (server && !keyframe && e.timestamp <= server.ts) continue;
      if (!this.started) {
        // The window opens on the keyframe's Meta: events of the same millisecond before it stay out.
        if (e.timestamp < startTs! || (e.timestamp === startTs && e.type !== EventType.Meta)) continue;
        this.started = true;
      }
      if ((to !== undefined && e.timestamp > to) || (limit !== undefined && this.taken >= limit)) {
        this.done = true;
        break;
      }
      out.push(e);
      this.taken++;
    }
    if (limit !== undefined && this.taken >= limit) this.done = true;
    return out;
  }
}
