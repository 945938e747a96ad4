// Batches awaiting acknowledgement, oldest first. A batch stays here, with its id, until acked
// (or dropped as unsendable, or lost to the memory bound); it is in flight on at most one transport
// at a time, and released back to "queued" when that transport fails. Pure logic, no DOM.
import type { PersistedBatch } from './persist';

export type Transport = 'ws' | 'http';

export interface Batch {
  readonly id: string;
  /** JSON array text of the events. */
  readonly body: string;
  readonly events: number;
  /** Approximate size (characters of JSON). */
  readonly bytes: number;
  /** Creation rank, for flush(): restored batches get ranks too. */
  readonly rank: number;
  inFlight: Transport | null;
  sends: number;
  /** The WebSocket refused it as too large (close 1009): send it over HTTP only. */
  httpOnly: boolean;
}

export interface QueueStats {
  /** Batches created (or restored) so far. */
  batches: number;
  /** Distinct batches sent at least once. */
  sent: number;
  /** Sends after the first one (reconnects, retries). */
  resent: number;
  acked: number;
  /** Unacknowledged batches, queued or in flight. */
  pending: number;
  inFlight: number;
  /** Refused for good by the server (4xx other than 408/429). */
  dropped: number;
  /** Dropped by the client's memory bound. */
  lost: number;
  eventsAcked: number;
  pendingEvents: number;
  pendingBytes: number;
}

interface Waiter {
  upToRank: number;
  resolve: () => void;
}

export class BatchQueue {
  private batches: Batch[] = [];
  private readonly byId = new Map<string, Batch>();
  private nextRank = 1;
  private waiters: Waiter[] = [];
  private bytes = 0;
  private counts = { batches: 0, sent: 0, resent: 0, acked: 0, dropped: 0, lost: 0, eventsAcked: 0 };

  constructor(readonly maxBytes = 50 * 1024 * 1024) {}

  /** Appends a new batch; enforces the memory bound (oldest batches are lost first). */
  add(id: string, body: string, events: number): Batch {
    const batch = this.make(id, body, events);
    this.batches.push(batch);
    this.enforceBound();
    return batch;
  }

  /** Puts batches saved by an earlier page in front of the queue (they are older). */
  restore(items: readonly PersistedBatch[]): number {
    const fresh = items.filter((b) => !this.byId.has(b.id));
    const made = fresh.map((b) => this.make(b.id, b.body, b.events));
    this.batches = [...made, ...this.batches];
    this.enforceBound();
    return made.length;
  }

  get(id: string): Batch | undefined {
    return this.byId.get(id);
  }

  /** The oldest batch not in flight that `eligible` accepts. */
  nextToSend(eligible: (b: Batch) => boolean = () => true): Batch | undefined {
    for (const b of this.batches) if (b.inFlight === null && eligible(b)) return b;
    return undefined;
  }

  markInFlight(batch: Batch, transport: Transport): void {
    if (batch.inFlight !== null) throw new Error(`batch ${batch.id} already in flight on ${batch.inFlight}`);
    batch.inFlight = transport;
    if (batch.sends === 0) this.counts.sent++;
    else this.counts.resent++;
    batch.sends++;
  }

  /** True when the batch was pending (false for unknown or already settled ids). */
  ack(id: string): boolean {
    const b = this.remove(id);
    if (!b) return false;
    this.counts.acked++;
    this.counts.eventsAcked += b.events;
    this.settle();
    return true;
  }

  /** Refused for good: forget it and count it. */
  drop(id: string): boolean {
    if (!this.remove(id)) return false;
    this.counts.dropped++;
    this.settle();
    return true;
  }

  /** The send failed or its outcome is unknown: queue it again (keeps its place and id). */
  release(id: string): void {
    const b = this.byId.get(id);
    if (b) b.inFlight = null;
  }

  /** A transport went down: everything in flight on it is queued again. Returns those batches. */
  releaseAll(transport: Transport): Batch[] {
    const released = this.batches.filter((b) => b.inFlight === transport);
    for (const b of released) b.inFlight = null;
    return released;
  }

  /** Unacknowledged batches, oldest first. */
  unacked(): readonly Batch[] {
    return this.batches;
  }

  inFlightOn(transport: Transport): { count: number; bytes: number } {
    let count = 0;
    let bytes = 0;
    for (const b of this.batches) {
      if (b.inFlight === transport) {
        count++;
        bytes += b.bytes;
      }
    }
    return { count, bytes };
  }

  get size(): number {
    return this.batches.length;
  }

  /** Resolves once every batch queued so far is acked, dropped or lost. */
  whenSettled(): Promise<void> {
    const upToRank = this.nextRank - 1;
    if (!this.batches.some((b) => b.rank <= upToRank)) return Promise.resolve();
    return new Promise((resolve) => this.waiters.push({ upToRank, resolve }));
  }

  stats(): QueueStats {
    let inFlight = 0;
    let pendingEvents = 0;
    for (const b of this.batches) {
      if (b.inFlight) inFlight++;
      pendingEvents += b.events;
    }
    return {
      ...this.counts,
      pending: this.batches.length,
      inFlight,
      pendingEvents,
      pendingBytes: this.bytes,
    };
  }

  private make(id: string, body: string, events: number): Batch {
    if (this.byId.has(id)) throw new Error(`duplicate batch id ${id}`);
    const batch: Batch = {
      id,
      body,
      events,
      bytes: body.length,
      rank: this.nextRank++,
      inFlight: null,
      sends: 0,
      httpOnly: false,
    };
    this.byId.set(id, batch);
    this.bytes += batch.bytes;
    this.counts.batches++;
    return batch;
  }

  private remove(id: string): Batch | undefined {
    const b = this.byId.get(id);
    if (!b) return undefined;
    this.byId.delete(id);
    this.batches.splice(this.batches.indexOf(b), 1);
    this.bytes -= b.bytes;
    return b;
  }

  private enforceBound(): void {
    let lost = false;
    while (this.bytes > this.maxBytes && this.batches.length > 0) {
      this.remove(this.batches[0].id);
      this.counts.lost++;
      lost = true;
    }
    if (lost) this.settle();
  }

  private settle(): void {
    if (this.waiters.length === 0) return;
    const oldest = this.batches.reduce((min, b) => Math.min(min, b.rank), Infinity);
    const ready = this.waiters.filter((w) => w.upToRank < oldest);
    this.waiters = this.waiters.filter((w) => w.upToRank >= oldest);
    for (const w of ready) w.resolve();
  }
}
