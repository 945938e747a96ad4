// One recording followed live on this instance, shared by all its viewers here: one JetStream tail
// (RecordingTail), each stored batch turned into one `events` frame once and handed to every viewer,
// the recording's liveness (a batch stored within LIVE_IDLE_SECONDS) told as `status` frames when it
// changes, and a deletion marker ending every viewer's feed.
import { Logger } from '@nestjs/common';
import type { RawEvent } from '../domain/event-store';
import { rawEvents } from '../infrastructure/nats/raw-events';
import type { RecordingTails, Tail, TailMessage } from '../infrastructure/nats/recording-tail';
import { rawEventsJson } from '../infrastructure/nats/recording-events.json';
import { EndReason, eventsFrame, LiveStatus, statusFrame } from './sse';

/** What a channel hands a viewer. */
export interface LiveSink {
  /** The frame of the batch stored at stream sequence `seq`. */
  events(seq: number, frame: Buffer): void;
  status(frame: Buffer): void;
  end(reason: EndReason): void;
}

/** Batch ids remembered to drop a batch stored twice (a retry after the duplicate window). */
const REMEMBERED_BATCHES = 4096;

export class LiveChannel {
  private readonly logger = new Logger('live');
  readonly viewers = new Set<LiveSink>();
  private tail?: Tail;
  private readonly parts = new Map<string, { chunks: Uint8Array[]; got: number }>();
  private readonly seen = new Set<string>();
  private lastEventAt?: number;
  private idleTimer?: NodeJS.Timeout;
  private ended = false;

  constructor(
    readonly tenantId: string,
    readonly recordingId: string,
    private readonly tails: RecordingTails,
    private readonly idleMs: number,
    /** Called once the channel ended (the recording was deleted): the hub forgets it. */
    private readonly onEnded: (c: LiveChannel) => void,
  ) {}

  /** Starts following at `seq` (the first viewer's position + 1); later calls change nothing. */
  start(seq: number): void {
    if (this.tail || this.ended) return;
    this.tail = this.tails.follow(this.tenantId, this.recordingId, seq, (m) => this.onMessage(m));
  }

  stop(): void {
    this.tail?.stop();
    if (this.idleTimer) clearTimeout(this.idleTimer);
  }

  get live(): boolean {
    return this.lastEventAt !== undefined && Date.now() - this.lastEventAt < this.idleMs;
  }

  status(): LiveStatus {
    return { live: this.live, lastEventAt: this.lastEventAt ?? null, serverTime: Date.now() };
  }

  /**
   * A batch stored at `at` (epoch ms), from the channel's own tail, or (`quiet`: telling no viewer)
   * from the stream when a viewer joins, which then reads the status itself.
   */
  noteEventAt(at: number | undefined, quiet = false): void {
    if (at === undefined || (this.lastEventAt !== undefined && at <= this.lastEventAt)) return;
    const was = this.live;
    this.lastEventAt = at;
    if (this.idleTimer) clearTimeout(this.idleTimer);
    const left = at + this.idleMs - Date.now();
    if (left > 0) {
      this.idleTimer = setTimeout(() => this.broadcastStatus(), left + 5);
      this.idleTimer.unref();
    }
    if (was !== this.live && !quiet) this.broadcastStatus();
  }

  private broadcastStatus(): void {
    const frame = statusFrame(this.status());
    for (const v of this.viewers) v.status(frame);
  }

  endAll(reason: EndReason): void {
    for (const v of [...this.viewers]) v.end(reason);
  }

  private onMessage(m: TailMessage): void {
    if (this.ended) return;
    if (m.kind === 'del') {
      this.ended = true;
      this.stop();
      this.endAll('deleted');
      this.onEnded(this);
      return;
    }
    if (m.kind !== 'ev') return;
    const batch = m.batch ?? `seq-${m.seq}`;
    const payload = m.chunk ? this.assemble(batch, m.chunk, m.data) : m.data;
    if (!payload) return;
    this.noteEventAt(m.storedAt);
    if (this.seen.has(batch)) return;
    this.remember(batch);
    let events: RawEvent[];
    try {
      events = rawEvents(payload);
    } catch (e) {
      // Stored batches were validated at ingestion; one that is not JSON is skipped, as reads skip nothing silently elsewhere.
      this.logger.warn({ msg: 'live: a stored batch is not readable', tenantId: this.tenantId, recordingId: this.recordingId, seq: m.seq, err: String(e) });
      return;
    }
    if (events.length === 0) return;
    // In timestamp order within the batch (stable), as a read orders them.
    events.sort((a, b) => a.timestamp - b.timestamp);
    const frame = eventsFrame(m.seq, rawEventsJson(events));
    for (const v of this.viewers) v.events(m.seq, frame);
  }

  /** The batch's payload once its last chunk ("i/n") arrived, else undefined. */
  private assemble(batch: string, chunk: string, data: Uint8Array): Uint8Array | undefined {
    const [i, n] = chunk.split('/').map(Number);
    if (!(n > 1) || !(i >= 0 && i < n)) return data;
    let p = this.parts.get(batch);
    if (!p) this.parts.set(batch, (p = { chunks: new Array<Uint8Array>(n), got: 0 }));
    if (!p.chunks[i]) p.got++;
    p.chunks[i] = data;
    if (p.got < n) return undefined;
    this.parts.delete(batch);
    return Buffer.concat(p.chunks);
  }

  private remember(batch: string): void {
    this.seen.add(batch);
    if (this.seen.size > REMEMBERED_BATCHES) this.seen.delete(this.seen.values().next().value as string);
  }
}
