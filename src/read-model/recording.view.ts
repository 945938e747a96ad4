// ClickHouse rows to the JSON of a recording (listing item and detail). 64-bit integers arrive as
// strings in JSONEachRow and are converted here; metadata objects are built with Object.fromEntries
// so any key, `__proto__` included, becomes an own property. The links are the recordings feature's
// (recordings/recording-links.ts): a view carries whatever links it is given.
import { ActivitySummary, NO_ACTIVITY } from './activity-summary';
import { isLive } from './live.sql';

export interface SummaryRow {
  recording_id: string;
  started_at: string | number;
  ended_at: string | number;
  event_count: string | number;
  bytes: string | number;
  page_views: string | number;
  has_viewport: string | number;
  viewport: [number | string, number | string];
  first_url: string;
  last_activity_at: string | number;
}

export interface MetadataRow {
  recording_id: string;
  key: string;
  value: string;
}

export interface RecordingSummary {
  /** First event time, epoch ms. */
  startedAt: number | null;
  /** Last event time, epoch ms. */
  endedAt: number | null;
  /** endedAt - startedAt, ms. */
  duration: number;
  eventCount: number;
  bytes: number;
  pageViews: number;
  viewport: { width: number; height: number } | null;
  firstUrl: string | null;
  /** When the service last stored an event batch of the recording (server clock), epoch ms. */
  lastActivityAt: number | null;
}

export interface RecordingView<Links> extends RecordingSummary {
  recordingId: string;
  /** First event time, epoch ms (rrweb Cloud's field; equals startedAt). */
  timestamp: number | null;
  /** A batch was stored at or after the live cutoff (lastActivityAt, server clock): events still arrive. */
  live: boolean;
  links: Links;
  metadata: Record<string, string>;
  /** Pages, clicks, errors and active time (the activity projection). */
  activity: ActivitySummary;
}

export const EMPTY_SUMMARY: RecordingSummary = {
  startedAt: null,
  endedAt: null,
  duration: 0,
  eventCount: 0,
  bytes: 0,
  pageViews: 0,
  viewport: null,
  firstUrl: null,
  lastActivityAt: null,
};

export function toSummary(r: SummaryRow | undefined): RecordingSummary {
  if (!r) return { ...EMPTY_SUMMARY };
  const startedAt = Number(r.started_at);
  const endedAt = Number(r.ended_at);
  return {
    startedAt,
    endedAt,
    duration: Math.max(0, endedAt - startedAt),
    eventCount: Number(r.event_count),
    bytes: Number(r.bytes),
    pageViews: Number(r.page_views),
    viewport: Number(r.has_viewport) ? { width: Number(r.viewport[0]), height: Number(r.viewport[1]) } : null,
    firstUrl: r.first_url ? r.first_url : null,
    lastActivityAt: Number(r.last_activity_at) || null,
  };
}

export function metadataById(rows: readonly MetadataRow[]): Map<string, Record<string, string>> {
  const pairs = new Map<string, [string, string][]>();
  for (const r of rows) {
    const list = pairs.get(r.recording_id) ?? [];
    list.push([r.key, r.value]);
    pairs.set(r.recording_id, list);
  }
  return new Map([...pairs].map(([id, kv]) => [id, Object.fromEntries(kv)]));
}

export function toRecordingView<Links>(
  recordingId: string,
  timestamp: number | null,
  links: Links,
  metadata: Record<string, string> | undefined,
  summary: RecordingSummary,
  liveSince: number,
  activity: ActivitySummary = NO_ACTIVITY,
): RecordingView<Links> {
  return { recordingId, timestamp, links, metadata: metadata ?? {}, ...summary, live: isLive(summary.lastActivityAt, liveSince), activity: { ...activity } };
}
