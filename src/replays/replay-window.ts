// A window on a composed replay (GET /replays/…?from=&to=&limit=), on the replay's own timeline: its
// renumbered timestamps, from 0. Like a recording's window it begins at the last keyframe (a Meta,
// then a FullSnapshot with only page-load and custom events between) at or before `from`, its Meta
// first (from the first event when there is none), and ends at `to` or after `limit` events. Events
// are held only from the latest keyframe until `from` is reached; the composition stops once the
// window is done.
import { EventType, ReadEvent } from '../domain/rrweb-event';

const LEAD_IN: ReadonlySet<number> = new Set([EventType.DomContentLoaded, EventType.Load, EventType.Custom]);

export interface ResolvedWindow {
  from?: number;
  to?: number;
  limit?: number;
}

export async function* windowOfReplay(events: AsyncIterable<ReadEvent>, w: ResolvedWindow): AsyncGenerator<ReadEvent, void, undefined> {
  const held: ReadEvent[] = [];
  /** Index in `held` of the latest Meta that may open a keyframe, while only lead-in events followed it. */
  let candidate: number | undefined;
  let started = w.from === undefined;
  let taken = 0;
  const full = () => w.limit !== undefined && taken >= w.limit;
  for await (const e of events) {
    if (!started) {
      // Past from, a waiting Meta may still get its FullSnapshot: a keyframe whose Meta is at or before from.
      const completes = candidate !== undefined && (e.type === EventType.FullSnapshot || LEAD_IN.has(e.type));
      if (e.timestamp <= w.from! || completes) {
        if (e.type === EventType.Meta) candidate = held.length;
        else if (e.type === EventType.FullSnapshot && candidate !== undefined) {
          held.splice(0, candidate); // a keyframe: what came before it is not needed
          candidate = 0;
        } else if (!LEAD_IN.has(e.type)) candidate = undefined;
        held.push(e);
        continue;
      }
      started = true;
      for (const h of held) {
        if (full()) return;
        yield h;
        taken++;
      }
      held.length = 0;
    }
    if ((w.to !== undefined && e.timestamp > w.to) || full()) return;
    yield e;
    taken++;
  }
  if (!started) for (const h of held.slice(0, w.limit)) yield h;
}
