// The event shape as rrweb emits it. Only type/timestamp/data are required; every other top-level
// field (sequenceId, recordingId, ...) is kept as sent.
export interface RrwebEvent {
  type: number;
  timestamp: number;
  data: Record<string, unknown>;
  sequenceId?: number;
  [extra: string]: unknown;
}

/** rrweb's EventType codes that the service interprets. */
export const EventType = {
  DomContentLoaded: 0,
  Load: 1,
  FullSnapshot: 2,
  IncrementalSnapshot: 3,
  Meta: 4,
  Custom: 5,
  Plugin: 6,
} as const;

/** Custom-event tags that carry metadata in the stream (rrweb's official clients send them). */
export const METADATA_TAGS = new Set(['recording-meta', 'pageview-meta']);

/** An event as returned by read endpoints. */
export type ReadEvent = RrwebEvent & { originalTimestamp: number; recordingId?: string };
