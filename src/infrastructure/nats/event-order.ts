// Pure pieces of the two-pass read (see EventReader.read): which messages form which batch,
// in what order batches complete, and a heap merge that releases events in timestamp order.
import { createHash } from 'node:crypto';
import { isMetadataEvent } from '../../domain/batch-summary';
import type { RrwebEvent } from '../../domain/rrweb-event';
import type { SealedRef } from './sealed-record';

export interface MessageHead {
  seq: number;
  batch: string;
  /** "i/n" for chunked batches. */
  chunk?: string;
  /** Td-Summary header (JSON), on the last chunk (chunk 0 in batches stored before that rule). */
  summary?: string;
  /** A sealed batch record (Td-Sealed): one message, its payload in the named archive. */
  sealed?: SealedRef;
}

export interface PlannedBatch {
  batch: string;
  /** Stream sequence of each chunk, by chunk index. */
  seqs: number[];
  minTs: number;
  /** Events at or below this time can be released once this batch is merged. */
  releaseBelow: number;
}

export interface ReadPlan {
  batches: PlannedBatch[];
  /** Largest message of the subject (from Td-Summary bytes); undefined when a batch has no summary. */
  maxMessageBytes?: number;
}

function parseChunk(chunk?: string): { i: number; n: number } {
  if (!chunk) return { i: 0, n: 1 };
  const m = /^(\d+)\/(\d+)$/.exec(chunk);
  if (!m) return { i: 0, n: 1 };
  const i = Number(m[1]);
  const n = Number(m[2]);
  return n >= 1 && i < n ? { i, n } : { i: 0, n: 1 };
}

/**
 * Groups message heads into batches, in the order batches complete. A batch seen complete once is
 * never taken again (a retry stored after the de-duplication window); incomplete batches, which were
 * never acknowledged to a client, are skipped.
 */
export function orderBatches(heads: MessageHead[]): ReadPlan {
  const pending = new Map<string, { seqs: (number | undefined)[]; got: number; minTs: number }>();
  const complete = new Set<string>();
  const batches: PlannedBatch[] = [];
  const messageBytes = new Map<string, number>();
  for (const h of heads) {
    const { i, n } = parseChunk(h.chunk);
    let summary: { minTs?: unknown; bytes?: unknown } | undefined;
    if (h.summary) {
      try {
        summary = JSON.parse(h.summary) as typeof summary;
      } catch {
        /* a missing summary only makes the merge wait longer */
      }
      if (typeof summary?.bytes === 'number') messageBytes.set(h.batch, Math.max(messageBytes.get(h.batch) ?? 0, Math.ceil(summary.bytes / n)));
    }
    if (complete.has(h.batch)) continue;
    let p = pending.get(h.batch);
    if (!p || p.seqs.length !== n) {
      p = { seqs: new Array(n).fill(undefined), got: 0, minTs: Number.NEGATIVE_INFINITY };
      pending.set(h.batch, p);
    }
    if (p.seqs[i] !== undefined) continue;
    p.seqs[i] = h.seq;
    p.got++;
    if (typeof summary?.minTs === 'number') p.minTs = summary.minTs;
    if (p.got === n) {
      complete.add(h.batch);
      pending.delete(h.batch);
      batches.push({ batch: h.batch, seqs: p.seqs as number[], minTs: p.minTs, releaseBelow: Number.POSITIVE_INFINITY });
    }
  }
  // Every message the payload pass may deliver, planned or not, must be of a batch with a known size.
  let maxMessageBytes: number | undefined = 0;
  for (const h of heads) {
    const b = messageBytes.get(h.batch);
    if (b === undefined) {
      maxMessageBytes = undefined;
      break;
    }
    maxMessageBytes = Math.max(maxMessageBytes, b);
  }
  let suffixMin = Number.POSITIVE_INFINITY;
  for (let k = batches.length - 1; k >= 0; k--) {
    batches[k].releaseBelow = suffixMin;
    suffixMin = Math.min(suffixMin, batches[k].minTs);
  }
  return { batches, maxMessageBytes };
}

/**
 * Key of a read plan: its batches and release bounds, which fix the merge's output. An archive keeps
 * the key of the plan its stored response was merged by (archive-response.ts); a read whose plan has
 * the same key may pass that response on instead of merging.
 */
export function planKey(batches: readonly { batch: string; releaseBelow: number }[]): string {
  const h = createHash('sha256');
  for (const b of batches) h.update(`${b.batch}\n${b.releaseBelow}\n`);
  return h.digest('hex');
}

/** The two passes of a read saw different histories (they must not: both read the stream leader). */
export class ReadPlanMismatch extends Error {}

/** Collects the chunks of planned batches as the second pass reads them. */
export class BatchAssembler {
  private readonly bySeq = new Map<number, { b: PlannedBatch; i: number }>();
  private readonly parts = new Map<string, { chunks: Uint8Array[]; got: number }>();

  constructor(plan: ReadPlan) {
    for (const b of plan.batches) b.seqs.forEach((seq, i) => this.bySeq.set(seq, { b, i }));
  }

  /** Planned messages not delivered yet. */
  get outstanding(): number {
    return this.bySeq.size;
  }

  /** Throws when the message at a planned sequence belongs to another batch than planned. */
  add(seq: number, batch: string, data: Uint8Array): { payload: Uint8Array; releaseBelow: number } | null {
    const slot = this.bySeq.get(seq);
    if (!slot) return null;
    if (slot.b.batch !== batch) throw new ReadPlanMismatch(`sequence ${seq} holds batch ${batch}, planned ${slot.b.batch}`);
    this.bySeq.delete(seq);
    const { b, i } = slot;
    if (b.seqs.length === 1) return { payload: data, releaseBelow: b.releaseBelow };
    let p = this.parts.get(b.batch);
    if (!p) {
      p = { chunks: new Array(b.seqs.length), got: 0 };
      this.parts.set(b.batch, p);
    }
    p.chunks[i] = data;
    p.got++;
    if (p.got < b.seqs.length) return null;
    this.parts.delete(b.batch);
    return { payload: Buffer.concat(p.chunks), releaseBelow: b.releaseBelow };
  }
}

/** What the merge needs of an event: a parsed one, or a raw one (raw-events.ts). */
export type Mergeable = { timestamp: number; sequenceId?: unknown };
type Entry<E> = { ts: number; idx: number; e: E };
const less = <E>(a: Entry<E>, b: Entry<E>) => a.ts < b.ts || (a.ts === b.ts && a.idx < b.idx);

/**
 * A min-heap on (timestamp, arrival) that drops repeated sequenceIds (and, by default, metadata
 * events; raw events come without them). `take` is the read path: when nothing waits in the heap and a
 * batch is already in timestamp order (the common case: recorders send batches in order), its
 * releasable events go out without passing through the heap, in the order the heap would give them.
 */
export class TimestampMerger<E extends Mergeable = RrwebEvent> {
  private heap: Entry<E>[] = [];
  private idx = 0;
  private releaseBelow = Number.NEGATIVE_INFINITY;
  private lastTs = Number.NEGATIVE_INFINITY;
  private seenAtTs = new Set<number>();

  constructor(private readonly skip: (e: E) => boolean = (e) => isMetadataEvent(e as unknown as RrwebEvent)) {}

  get size(): number {
    return this.heap.length;
  }

  push(events: E[], releaseBelow: number): void {
    for (const e of events) {
      if (this.skip(e)) continue;
      this.insert({ ts: e.timestamp, idx: this.idx++, e });
    }
    this.releaseBelow = releaseBelow;
  }

  /**
   * `push` then `drain`, as an array: the events of `events` and of earlier batches that can be
   * released now. May return `events` itself when all of it is released as it is.
   */
  take(events: E[], releaseBelow: number): E[] {
    if (this.heap.length > 0 || !inOrder(events)) {
      this.push(events, releaseBelow);
      return [...this.drain()];
    }
    this.releaseBelow = releaseBelow;
    // Nothing is held back and the batch is sorted: heap order is stored order, and the events at or
    // below releaseBelow are a prefix. `out` stays null while it would equal the prefix of `events`.
    let out: E[] | null = null;
    let i = 0;
    for (; i < events.length; i++) {
      const e = events[i];
      if (e.timestamp > releaseBelow) break;
      const keep = !this.skip(e) && this.accept(e.timestamp, e.sequenceId);
      if (out) {
        if (keep) out.push(e);
      } else if (!keep) out = events.slice(0, i);
    }
    for (let k = i; k < events.length; k++) if (!this.skip(events[k])) this.insert({ ts: events[k].timestamp, idx: this.idx++, e: events[k] });
    return out ?? (i === events.length ? events : events.slice(0, i));
  }

  *drain(): Generator<E> {
    while (this.heap.length > 0 && this.heap[0].ts <= this.releaseBelow) {
      const x = this.pop();
      if (this.accept(x.ts, x.e.sequenceId)) yield x.e;
    }
  }

  *drainAll(): Generator<E> {
    while (this.heap.length > 0) {
      const x = this.pop();
      if (this.accept(x.ts, x.e.sequenceId)) yield x.e;
    }
  }

  /** Whether an event released now is new: not a repeated sequenceId at the same timestamp. */
  private accept(ts: number, sid: unknown): boolean {
    if (ts !== this.lastTs) {
      this.lastTs = ts;
      if (this.seenAtTs.size > 0) this.seenAtTs.clear();
    }
    if (typeof sid === 'number') {
      if (this.seenAtTs.has(sid)) return false;
      this.seenAtTs.add(sid);
    }
    return true;
  }

  private insert(x: Entry<E>) {
    const h = this.heap;
    h.push(x);
    let i = h.length - 1;
    while (i > 0) {
      const p = (i - 1) >> 1;
      if (!less(h[i], h[p])) break;
      [h[i], h[p]] = [h[p], h[i]];
      i = p;
    }
  }

  private pop(): Entry<E> {
    const h = this.heap;
    const top = h[0];
    const last = h.pop()!;
    if (h.length > 0) {
      h[0] = last;
      let i = 0;
      for (;;) {
        const l = 2 * i + 1;
        const r = l + 1;
        let m = i;
        if (l < h.length && less(h[l], h[m])) m = l;
        if (r < h.length && less(h[r], h[m])) m = r;
        if (m === i) break;
        [h[i], h[m]] = [h[m], h[i]];
        i = m;
      }
    }
    return top;
  }
}

/** Timestamps are numbers in non-decreasing order (NaN, or anything else, is not). */
function inOrder(events: Mergeable[]): boolean {
  let prev = Number.NEGATIVE_INFINITY;
  for (let i = 0; i < events.length; i++) {
    const ts = events[i].timestamp;
    if (!(ts >= prev)) return false;
    prev = ts;
  }
  return true;
}
