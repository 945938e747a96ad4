// Pure pieces of the two-pass read (see JetStreamEventStore.read): which messages form which batch,
// in what order batches complete, and a heap merge that releases events in timestamp order.
import { isMetadataEvent } from '../../domain/batch-summary';
import type { RrwebEvent } from '../../domain/rrweb-event';

export interface MessageHead {
  seq: number;
  batch: string;
  /** "i/n" for chunked batches. */
  chunk?: string;
  /** Td-Summary header (JSON), present on chunk 0. */
  summary?: string;
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
  for (const h of heads) {
    if (complete.has(h.batch)) continue;
    const { i, n } = parseChunk(h.chunk);
    let p = pending.get(h.batch);
    if (!p || p.seqs.length !== n) {
      p = { seqs: new Array(n).fill(undefined), got: 0, minTs: Number.NEGATIVE_INFINITY };
      pending.set(h.batch, p);
    }
    if (p.seqs[i] !== undefined) continue;
    p.seqs[i] = h.seq;
    p.got++;
    if (h.summary) {
      try {
        const s = JSON.parse(h.summary) as { minTs?: number };
        if (typeof s.minTs === 'number') p.minTs = s.minTs;
      } catch {
        /* a missing summary only makes the merge wait longer */
      }
    }
    if (p.got === n) {
      complete.add(h.batch);
      pending.delete(h.batch);
      batches.push({ batch: h.batch, seqs: p.seqs as number[], minTs: p.minTs, releaseBelow: Number.POSITIVE_INFINITY });
    }
  }
  let suffixMin = Number.POSITIVE_INFINITY;
  for (let k = batches.length - 1; k >= 0; k--) {
    batches[k].releaseBelow = suffixMin;
    suffixMin = Math.min(suffixMin, batches[k].minTs);
  }
  return { batches };
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
 * events; raw events come without them).
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

  *drain(): Generator<E> {
    while (this.heap.length > 0 && this.heap[0].ts <= this.releaseBelow) {
      const out = this.accept(this.pop());
      if (out) yield out;
    }
  }

  *drainAll(): Generator<E> {
    while (this.heap.length > 0) {
      const out = this.accept(this.pop());
      if (out) yield out;
    }
  }

  private accept(x: Entry<E>): E | null {
    if (x.ts !== this.lastTs) {
      this.lastTs = x.ts;
      this.seenAtTs.clear();
    }
    const sid = x.e.sequenceId;
    if (typeof sid === 'number') {
      if (this.seenAtTs.has(sid)) return null;
      this.seenAtTs.add(sid);
    }
    return x.e;
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
