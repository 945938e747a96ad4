// Splits one recording's event stream into page views without keeping the events: only index ranges
// and timestamps are retained, so memory grows with the number of page views, not with the recording.
//
// A FullSnapshot starts a page view. The lead-in events that precede it with nothing but lead-in and
// Custom events in between go with it: Meta, and the DomContentLoaded / Load events rrweb emits when
// a page loads (before its Meta), so the page view starts at the earliest of them and the time the
// browser spent loading the next page is not played as idle time at the end of the previous one.
// Custom events before that lead-in stay with the previous page view. Events before the first
// FullSnapshot belong to the first page view.
import { EventType, RrwebEvent } from '../domain/rrweb-event';

export interface PageViewBoundary {
  recordingId: string;
  /** Position of this page view within its recording, from 0. */
  ordinal: number;
  /** Index of its first event in the recording's event stream (inclusive). */
  startIndex: number;
  /** Index after its last event (exclusive). */
  endIndex: number;
  count: number;
  /** Timestamp of its first event: when the page view started. */
  startTimestamp: number;
  /** Highest timestamp in the page view (equals lastTimestamp for ordered input). */
  endTimestamp: number;
  /** Timestamp of its last event, kept to detect a recording that changed between two reads. */
  lastTimestamp: number;
}

/** A contiguous run of events, by index. */
class Run {
  count = 0;
  endTimestamp: number;
  lastTimestamp: number;

  constructor(
    readonly startIndex: number,
    readonly startTimestamp: number,
  ) {
    this.endTimestamp = startTimestamp;
    this.lastTimestamp = startTimestamp;
  }

  add(timestamp: number): void {
    this.count++;
    this.lastTimestamp = timestamp;
    if (timestamp > this.endTimestamp) this.endTimestamp = timestamp;
  }

  /** Appends `next`, which must start right after this run. */
  absorb(next: Run): void {
    this.count += next.count;
    this.lastTimestamp = next.lastTimestamp;
    if (next.endTimestamp > this.endTimestamp) this.endTimestamp = next.endTimestamp;
  }
}

/** Fed the events of one recording in order, one at a time; `finish()` returns its page views. */
export class PageViewSplitter {
  private index = 0;
  private sawFullSnapshot = false;
  /** The page view being built, up to (excluding) `pending`. */
  private current: Run | undefined;
  /** From the earliest lead-in event of the trailing run of lead-in/Custom events: goes with a FullSnapshot that follows. */
  private pending: Run | undefined;
  private readonly done: PageViewBoundary[] = [];

  constructor(readonly recordingId: string) {}

  push(event: Pick<RrwebEvent, 'type' | 'timestamp'>): void {
    const { type, timestamp } = event;
    const index = this.index++;
    if (type === EventType.Meta || type === EventType.DomContentLoaded || type === EventType.Load) {
      this.pending ??= new Run(index, timestamp);
      this.pending.add(timestamp);
    } else if (type === EventType.Custom) {
      this.runFor(this.pending ? 'pending' : 'current', index, timestamp).add(timestamp);
    } else if (type === EventType.FullSnapshot && this.sawFullSnapshot) {
      this.close();
      this.current = this.pending ?? new Run(index, timestamp);
      this.pending = undefined;
      this.current.add(timestamp);
    } else {
      this.sawFullSnapshot ||= type === EventType.FullSnapshot;
      this.mergePending();
      this.runFor('current', index, timestamp).add(timestamp);
    }
  }

  finish(): PageViewBoundary[] {
    this.mergePending();
    this.close();
    return this.done;
  }

  private runFor(which: 'current' | 'pending', index: number, timestamp: number): Run {
    return (this[which] ??= new Run(index, timestamp));
  }

  private mergePending(): void {
    if (!this.pending) return;
    if (this.current) this.current.absorb(this.pending);
    else this.current = this.pending;
    this.pending = undefined;
  }

  private close(): void {
    const run = this.current;
    this.current = undefined;
    if (!run || run.count === 0) return;
    this.done.push({
      recordingId: this.recordingId,
      ordinal: this.done.length,
      startIndex: run.startIndex,
      endIndex: run.startIndex + run.count,
      count: run.count,
      startTimestamp: run.startTimestamp,
      endTimestamp: run.endTimestamp,
      lastTimestamp: run.lastTimestamp,
    });
  }
}

/** The page views of a recording held in memory. */
export function splitPageViews(recordingId: string, events: Iterable<Pick<RrwebEvent, 'type' | 'timestamp'>>): PageViewBoundary[] {
  const splitter = new PageViewSplitter(recordingId);
  for (const event of events) splitter.push(event);
  return splitter.finish();
}
