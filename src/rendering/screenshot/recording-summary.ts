// What the renderer needs to know about a recording before touching a browser: its time range,
// its viewports (rrweb Meta events and window resizes) and whether it can be replayed at all.
import { EventType, RrwebEvent } from '../../domain/rrweb-event';
import { posterMoment } from './poster-moment';
import type { Viewport } from './screenshot-params';

/** rrweb's IncrementalSource code of a window resize (an IncrementalSnapshot's data.source). */
const VIEWPORT_RESIZE = 4;

export interface RecordingSummary {
  firstTs: number;
  lastTs: number;
  eventCount: number;
  /**
   * The first Meta event's viewport: the window before anything names one (as the recording's detail
   * reports it). A window resize says nothing about the window before it.
   */
  viewport?: Viewport;
  /** Every viewport the recording names, by time (stable): Meta events and window resizes. */
  viewports: TimedViewport[];
  /** Timestamp of the first full snapshot: before it there is no page to show. */
  firstSnapshotTs?: number;
  /** The page as its visitor saw it (poster-moment.ts); set with firstSnapshotTs. */
  posterTs?: number;
}

export interface TimedViewport extends Viewport {
  timestamp: number;
}

export function summarizeRecording(events: readonly RrwebEvent[]): RecordingSummary {
  let firstTs = Infinity;
  let lastTs = -Infinity;
  let firstSnapshotTs: number | undefined;
  const viewports: TimedViewport[] = [];
  let first: TimedViewport | undefined;
  // A later page view's size applies from its FullSnapshot on (replay-fixes.ts: until then the
  // previous page is shown); a Meta without a snapshot after it applies from its own time.
  let pending: TimedViewport | undefined;
  let metaSeen = false;
  const flush = (at?: number) => {
    if (pending) viewports.push(at === undefined ? pending : { ...pending, timestamp: Math.max(pending.timestamp, at) });
    pending = undefined;
  };
  // Reads come in time order; anything else is put in it (which Meta a snapshot belongs to is an
  // order question).
  const inOrder = events.every((e, i) => i === 0 || events[i - 1].timestamp <= e.timestamp);
  const sorted = inOrder ? events : [...events].sort((a, b) => a.timestamp - b.timestamp);
  for (const e of sorted) {
    if (e.timestamp < firstTs) firstTs = e.timestamp;
    if (e.timestamp > lastTs) lastTs = e.timestamp;
    if (e.type === EventType.FullSnapshot) {
      if (firstSnapshotTs === undefined || e.timestamp < firstSnapshotTs) firstSnapshotTs = e.timestamp;
      flush(e.timestamp);
    }
    const laterMeta = e.type === EventType.Meta && metaSeen; // as replay-fixes.ts counts them
    if (e.type === EventType.Meta) {
      flush();
      metaSeen = true;
    }
    const resize = e.type === EventType.IncrementalSnapshot && (e.data as { source?: unknown }).source === VIEWPORT_RESIZE;
    if (e.type === EventType.Meta || resize) {
      const { width, height } = e.data as { width?: unknown; height?: unknown };
      if (isSide(width) && isSide(height)) {
        const named = { timestamp: e.timestamp, width, height };
        if (laterMeta) pending = named;
        else viewports.push(named);
        if (e.type === EventType.Meta && (!first || e.timestamp < first.timestamp)) first = named;
      }
    }
  }
  flush();
  if (!events.length) firstTs = lastTs = 0;
  viewports.sort((a, b) => a.timestamp - b.timestamp);
  const viewport = first && { width: first.width, height: first.height };
  return { firstTs, lastTs, eventCount: events.length, viewport, viewports, firstSnapshotTs, posterTs: posterMoment(sorted) };
}

/** The viewport shown at `ts`: the last one named at or before it, else the first Meta event's. */
export function viewportAt(summary: RecordingSummary, ts: number): Viewport | undefined {
  let found = summary.viewport;
  for (const v of summary.viewports) {
    if (v.timestamp > ts) break;
    found = { width: v.width, height: v.height };
  }
  return found;
}

function isSide(n: unknown): n is number {
  return typeof n === 'number' && Number.isInteger(n) && n > 0 && n <= 16384;
}
