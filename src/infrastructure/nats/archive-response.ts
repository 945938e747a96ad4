// What a full read (GET …/events) answers for a recording's planned batches, computed at seal time
// with the read's own merge (event-order.ts) and writer (recording-events.json.ts), so an archive can
// hold it and a sealed recording's full read pass it on without parsing an event. Each event is
// traced to where it was in its batch, so the archive can rebuild the batches from the response.
import type { RawEvent } from '../../domain/event-store';
import { planKey, TimestampMerger } from './event-order';
import { listSpans, parsedToRaw, splitEvents } from './raw-events';
import { rawEventsJson } from './recording-events.json';
import type { ArchiveResponse, Piece } from './archive-format';

export interface ResponseBatch {
  id: string;
  payload: Uint8Array;
  /** The read plan's release bound for the batch (PlannedBatch.releaseBelow). */
  releaseBelow: number;
}

/** An event of a batch on its way through the merge: its batch and its offset in the payload (-1: re-serialised, not a slice of it). */
type Traced = RawEvent & { b: number; at: number };

export function archiveResponse(batches: readonly ResponseBatch[]): ArchiveResponse {
  const parts: Uint8Array[] = [Buffer.from('[')];
  let len = 1;
  /** Per batch: payload offset of an event → its range in the response. */
  const placed = batches.map(() => new Map<number, { off: number; len: number }>());
  const write = (events: Iterable<Traced>) => {
    for (const e of events) {
      const json = rawEventsJson([e]).subarray(1, -1);
      if (len > 1) {
        parts.push(Buffer.from(','));
        len++;
      }
      if (e.at >= 0) placed[e.b].set(e.at, { off: len, len: json.length });
      parts.push(json);
      len += json.length;
    }
  };
  const merger = new TimestampMerger<Traced>(() => false);
  batches.forEach((b, i) => write(merger.take(traced(b.payload, i), b.releaseBelow)));
  write(merger.drainAll());
  parts.push(Buffer.from(']'));
  const plan = planKey(batches.map((b) => ({ batch: b.id, releaseBelow: b.releaseBelow })));
  return { bytes: Buffer.concat(parts), plan, pieces: batches.map((b, i) => piecesOf(b.payload, placed[i])) };
}

/** rawEvents(payload), each event traced (splitEvents' events are slices of the payload, parsedToRaw's are not). */
function traced(payload: Uint8Array, b: number): Traced[] {
  const split = splitEvents(payload);
  return (split ?? parsedToRaw(payload)).map((e) => Object.assign(e, { b, at: split ? e.json.byteOffset - payload.byteOffset : -1 }));
}

/**
 * A batch's events in its payload's order as pieces: runs of events that follow one another in the
 * response too, and runs of those the response left out (metadata events, repeats), from its payload.
 */
function piecesOf(payload: Uint8Array, placed: Map<number, { off: number; len: number }>): Piece[] | null {
  if (payload[0] !== 0x5b || payload[payload.length - 1] !== 0x5d) return null;
  const spans = listSpans(payload.subarray(1, payload.length - 1));
  if (!spans) return null;
  const pieces: Piece[] = [];
  for (const [s, e] of spans) {
    const at = s + 1;
    const r = placed.get(at);
    const last = pieces[pieces.length - 1];
    if (r && last?.from === 'response' && last.off + last.len + 1 === r.off) last.len = r.off + r.len - last.off;
    else if (r) pieces.push({ from: 'response', ...r });
    else if (last?.from === 'payload') last.len = e + 1 - last.off;
    else pieces.push({ from: 'payload', off: at, len: e - s });
  }
  return pieces;
}
