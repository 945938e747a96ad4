// What the renderer needs to know about a recording before touching a browser: its time range,
// its first viewport (rrweb Meta event) and whether it can be replayed at all.
import { EventType, RrwebEvent } from '../domain/rrweb-event';
import type { Viewport } from './screenshot-params';

export interface RecordingSummary {
  firstTs: number;
  lastTs: number;
  eventCount: number;
  viewport?: Viewport;
  /** Timestamp of the first full snapshot: before it there is no page to show. */
  firstSnapshotTs?: number;
}

export function summarizeRecording(events: readonly RrwebEvent[]): RecordingSummary {
  let firstTs = Infinity;
  let lastTs = -Infinity;
  let viewport: Viewport | undefined;
  let firstSnapshotTs: number | undefined;
  for (const e of events) {
    if (e.timestamp < firstTs) firstTs = e.timestamp;
    if (e.timestamp > lastTs) lastTs = e.timestamp;
    if (e.type === EventType.FullSnapshot && (firstSnapshotTs === undefined || e.timestamp < firstSnapshotTs)) {
      firstSnapshotTs = e.timestamp;
    }
    if (e.type === EventType.Meta && !viewport) {
      const { width, height } = e.data as { width?: unknown; height?: unknown };
      if (isSide(width) && isSide(height)) viewport = { width, height };
    }
  }
  if (!events.length) firstTs = lastTs = 0;
  return { firstTs, lastTs, eventCount: events.length, viewport, firstSnapshotTs };
}

function isSide(n: unknown): n is number {
  return typeof n === 'number' && Number.isInteger(n) && n > 0 && n <= 16384;
}
