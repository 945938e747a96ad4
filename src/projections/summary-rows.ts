// Rows from one `ev` message: its Td-Summary header becomes a recording_batches row, the same row
// without event types for recording_timeline, a recordings row (start time), recording_minutes rows
// from its per-minute counts, recording_keyframes rows from its keyframe fields, and
// recording_metadata rows from its in-band metadata. A batch of only
// metadata events gives metadata rows alone. Only chunk 0 of a chunked batch carries the summary;
// other chunks produce nothing.
import { BatchSummary, wellFormed } from '../domain/batch-summary';
import { summaryKeyframes } from '../domain/keyframes';
import { H } from '../infrastructure/nats/subjects';
import type { ProjectionMessage, Row } from './projection';

export interface SummaryRows {
  /** Absent for a batch of only metadata events: it has no events to count, time or list. */
  batch?: Row;
  /** The batch row without event types (recording_timeline). */
  timeline?: Row;
  recording?: Row;
  minutes: Row[];
  /** recording_keyframes rows: each keyframe field of the summary (domain/keyframes.ts). */
  keyframes: Row[];
  metadata: Row[];
}

export type SummaryResult = { rows: SummaryRows } | { none: true } | { skip: string };

const int = (v: unknown, fallback = 0): number => (typeof v === 'number' && Number.isFinite(v) ? Math.trunc(v) : fallback);
const uint = (v: unknown): number => Math.max(0, int(v));

/** A chunk header "i/n" of a batch stored in more than one message. */
function isChunked(chunk: string | undefined): boolean {
  const m = chunk ? /^(\d+)\/(\d+)$/.exec(chunk) : null;
  return m !== null && Number(m[2]) > 1;
}

/**
 * The batch's rows, from the message that carries its Td-Summary: the last chunk (stored only after
 * every other chunk), or the first in batches stored before that rule. Other chunks give none.
 */
export function summaryRows(m: ProjectionMessage, tenantId: string, recordingId: string): SummaryResult {
  const raw = m.headers[H.summary];
  if (!raw) return isChunked(m.headers[H.chunk]) ? { none: true } : { skip: 'no Td-Summary header' };
  let s: BatchSummary;
  try {
    s = JSON.parse(raw) as BatchSummary;
  } catch {
    return { skip: 'Td-Summary is not JSON' };
  }
  if (!s || typeof s !== 'object' || s.v !== 1) return { skip: 'unknown Td-Summary version' };
  const batchId = m.headers[H.batch] || `seq-${m.seq}`;
  const key = { tenant_id: tenantId, recording_id: recordingId };
  const types = Object.entries(s.types ?? {})
    .map(([k, n]) => [Number(k), uint(n)] as const)
    .filter(([k]) => Number.isInteger(k) && k >= 0 && k <= 65535)
    .sort((a, b) => a[0] - b[0]);
  const timeline: Row = {
    ...key,
    batch_id: batchId,
    seq: m.seq,
    event_count: uint(s.n),
    bytes: uint(s.bytes),
    min_ts: int(s.minTs),
    max_ts: int(s.maxTs),
    page_views: uint(s.pv),
    meta_ts: int(s.metaTs),
    viewport_width: uint(s.vw),
    viewport_height: uint(s.vh),
    // Summaries stored before ingestion made their strings well-formed may hold lone surrogates.
    url: typeof s.url === 'string' ? wellFormed(s.url) : '',
    ingested_at: m.timeMs,
  };
  const batch: Row = { ...timeline, type_keys: types.map((t) => t[0]), type_counts: types.map((t) => t[1]) };
  const minutes = (Array.isArray(s.minutes) ? s.minutes : [])
    .filter((x) => Array.isArray(x) && x.length === 2)
    .map(([minute, n]) => ({ ...key, batch_id: batchId, minute: int(minute), seq: m.seq, event_count: uint(n) }));
  // Keys of one summary are distinct (the summary already let later in-band keys win) and share
  // the message's seq as version.
  const metadata = Object.entries(s.meta ?? {})
    .filter(([k, v]) => k.length > 0 && typeof v === 'string')
    .map(([k, v]) => ({ ...key, key: wellFormed(k), value: wellFormed(v), seq: m.seq, written_at: m.timeMs }));
  if (uint(s.n) === 0) return { rows: { minutes: [], keyframes: [], metadata } };
  const recording: Row = { ...key, started_at: int(s.minTs), seq: m.seq };
  const k = summaryKeyframes(s);
  const keyframe = (kind: string, ts: number): Row => ({ ...key, kind, ts, seq: m.seq });
  const keyframes = [
    ...(k.kf ?? []).map((ts) => keyframe('kf', ts)),
    ...(k.kfMeta !== undefined ? [keyframe('meta', k.kfMeta)] : []),
    ...(k.kfOpen !== undefined ? [keyframe('open', k.kfOpen)] : []),
  ];
  return { rows: { batch, timeline, recording, minutes, keyframes, metadata } };
}
