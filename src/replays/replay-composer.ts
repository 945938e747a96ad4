// Composes several recordings (e.g. the tabs of one session) into one replayable stream: each
// recording is split into page views, page views play whole, one after another, in the order they
// started, and timestamps are renumbered from 0. Streams: a first read of each recording keeps only
// page-view boundaries; events are then re-read and emitted page view by page view, so memory grows
// with the number of page views, never with the size of a recording.
import { AppError } from '../common/app-error';
import type { ReadWindow, RecordingEventSource } from '../domain/event-store';
import { ReadEvent, RrwebEvent } from '../domain/rrweb-event';
import { PageViewBoundary, PageViewSplitter, splitPageViews } from './page-view';
import { windowOfReplay } from './replay-window';

/**
 * Replay time between the end of one page view and the start of the next, replacing the real idle
 * time (or overlap, for tabs open side by side). Long enough for a viewer to see the page change,
 * well under rrweb's 10 s inactivity threshold so players do not treat it as idle time to skip, and
 * non-zero so a seek lands unambiguously in one page view or the other.
 */
export const PAGE_VIEW_GAP_MS = 1000;

export interface PlannedPageView extends PageViewBoundary {
  /** Replay time of the page view's first event. */
  offset: number;
}

export interface InMemoryRecording {
  recordingId: string;
  events: readonly RrwebEvent[];
}

/** Start time, then recording id (code-unit order, not locale), then position in the recording. */
export function comparePageViews(a: PageViewBoundary, b: PageViewBoundary): number {
  if (a.startTimestamp !== b.startTimestamp) return a.startTimestamp - b.startTimestamp;
  if (a.recordingId !== b.recordingId) return a.recordingId < b.recordingId ? -1 : 1;
  return a.ordinal - b.ordinal;
}

/** Orders page views and assigns each its replay-time offset. */
export function planPageViews(views: readonly PageViewBoundary[], gapMs = PAGE_VIEW_GAP_MS): PlannedPageView[] {
  const plan: PlannedPageView[] = [];
  let offset = 0;
  for (const view of [...views].sort(comparePageViews)) {
    plan.push({ ...view, offset });
    offset += view.endTimestamp - view.startTimestamp + gapMs;
  }
  return plan;
}

/**
 * Renumbers the events of one planned page view: spacing within it is kept. The running maximum
 * keeps output non-decreasing even if a source ever yields an event slightly out of order.
 */
export class PageViewClock {
  private latest: number;

  constructor(private readonly view: PlannedPageView) {
    this.latest = view.startTimestamp;
  }

  toReadEvent(event: RrwebEvent): ReadEvent {
    if (event.timestamp > this.latest) this.latest = event.timestamp;
    return {
      ...event,
      timestamp: this.view.offset + this.latest - this.view.startTimestamp,
      originalTimestamp: event.timestamp,
      recordingId: this.view.recordingId,
    };
  }
}

/**
 * Composes recordings held in memory; the same splitting, planning and renumbering as
 * `composeReplay`. A single recording is renumbered from 0 too.
 */
export function composeEventsInMemory(recordings: readonly InMemoryRecording[]): ReadEvent[] {
  const byId = new Map<string, readonly RrwebEvent[]>();
  for (const { recordingId, events } of recordings) {
    if (byId.has(recordingId)) throw new TypeError(`recording ${recordingId} given twice`);
    byId.set(recordingId, events);
  }
  const views = recordings.flatMap(({ recordingId, events }) => splitPageViews(recordingId, events));
  const out: ReadEvent[] = [];
  for (const view of planPageViews(views)) {
    const events = byId.get(view.recordingId)!;
    const clock = new PageViewClock(view);
    for (let i = view.startIndex; i < view.endIndex; i++) out.push(clock.toReadEvent(events[i]));
  }
  return out;
}

/**
 * Streams the composed replay of `recordingIds` (duplicates ignored; unknown or empty recordings add
 * nothing). Reads each recording once to find its page views, then once more per run of consecutive
 * page views from it. Fails with `unavailable` if a recording changed between the two reads other
 * than by appending (events appended meanwhile are left out). With a window, only its events
 * (replay-window.ts), on the replay's timeline (0 to the last composed event's timestamp); the second
 * read stops once the window is done.
 */
export async function* composeReplay(
  tenantId: string,
  recordingIds: readonly string[],
  source: RecordingEventSource,
  signal?: AbortSignal,
  window?: ReadWindow,
): AsyncGenerator<ReadEvent, void, undefined> {
  const plan = planPageViews(await findPageViews(tenantId, recordingIds, source, signal));
  if (!window) return yield* playPageViews(tenantId, plan, source, signal);
  if (plan.length === 0) return;
  const end = plan[plan.length - 1];
  const { from, to } = window.resolve(0, end.offset + end.endTimestamp - end.startTimestamp);
  yield* windowOfReplay(playPageViews(tenantId, plan, source, signal), { from, to, limit: window.limit });
}

async function findPageViews(tenantId: string, recordingIds: readonly string[], source: RecordingEventSource, signal?: AbortSignal) {
  const views: PageViewBoundary[] = [];
  for (const recordingId of new Set(recordingIds)) {
    const splitter = new PageViewSplitter(recordingId);
    for await (const event of memberEvents(source, tenantId, recordingId, signal)) {
      signal?.throwIfAborted();
      splitter.push(event);
    }
    views.push(...splitter.finish());
  }
  return views;
}

async function* playPageViews(tenantId: string, plan: PlannedPageView[], source: RecordingEventSource, signal?: AbortSignal) {
  const cursor = new RecordingCursor(tenantId, source, signal);
  try {
    for (const view of plan) {
      await cursor.seek(view.recordingId, view.startIndex);
      const clock = new PageViewClock(view);
      for (let i = view.startIndex; i < view.endIndex; i++) {
        const event = await cursor.next();
        if (!event || !inPlace(view, i, event)) throw changed(view.recordingId);
        yield clock.toReadEvent(event);
      }
    }
  } finally {
    await cursor.close();
  }
}

/** The first and last events of a page view must be where the first read found them. */
function inPlace(view: PageViewBoundary, index: number, event: RrwebEvent): boolean {
  if (index === view.startIndex && event.timestamp !== view.startTimestamp) return false;
  return index !== view.endIndex - 1 || event.timestamp === view.lastTimestamp;
}

/** A member's events: one deleted while the replay is composed changed the replay under it (retry). */
async function* memberEvents(source: RecordingEventSource, tenantId: string, recordingId: string, signal?: AbortSignal): AsyncGenerator<RrwebEvent> {
  try {
    yield* source.read(tenantId, recordingId, { signal });
  } catch (e) {
    throw e instanceof AppError && e.code === 'not_found' ? changed(recordingId) : e;
  }
}

function changed(recordingId: string): AppError {
  return new AppError('unavailable', `recording ${recordingId} changed while the replay was composed; retry`);
}

/** One open read of one recording at a time, reused while page views of it come in index order. */
class RecordingCursor {
  private recordingId: string | undefined;
  private iterator: AsyncIterator<RrwebEvent> | undefined;
  private nextIndex = 0;

  constructor(
    private readonly tenantId: string,
    private readonly source: RecordingEventSource,
    private readonly signal: AbortSignal | undefined,
  ) {}

  async seek(recordingId: string, index: number): Promise<void> {
    if (!this.iterator || this.recordingId !== recordingId || index < this.nextIndex) {
      await this.close();
      this.iterator = memberEvents(this.source, this.tenantId, recordingId, this.signal)[Symbol.asyncIterator]();
      this.recordingId = recordingId;
      this.nextIndex = 0;
    }
    while (this.nextIndex < index) {
      if (!(await this.next())) throw changed(recordingId);
    }
  }

  async next(): Promise<RrwebEvent | undefined> {
    this.signal?.throwIfAborted();
    const result = await this.iterator!.next();
    if (result.done) return undefined;
    this.nextIndex++;
    return result.value;
  }

  async close(): Promise<void> {
    const iterator = this.iterator;
    this.iterator = undefined;
    this.recordingId = undefined;
    await iterator?.return?.();
  }
}
