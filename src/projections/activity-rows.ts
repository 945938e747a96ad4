// Rows from one `ev` message for the activity tables (migration 007): its events are decoded and
// reduced to batch-activity.ts's parts. Each row again for recording_activity_timeline (migration
// 009), with its kind and the batch's first event time as recording_timeline has it (batch_ts). A chunked batch (bigger than a message: its chunks are
// separate messages, and a projection sees one message at a time) gives only the page row its
// summary names (the URL of its first Meta event), from the chunk that carries the summary
// (docs/activity.md, limits).
import { parseActivityHeader } from '../domain/activity/activity-header';
import { BatchActivity, batchActivity, MAX_URL, pathOf } from '../domain/activity/batch-activity';
import { clip, wellFormed } from '../domain/batch-summary';
import type { RrwebEvent } from '../domain/rrweb-event';
import { H } from '../infrastructure/nats/subjects';
import type { ProjectionMessage, Row } from './projection';
import { UNPLACED_TS } from './projection-tables';

export interface ActivityRows {
  items: Row[];
  nodes: Row[];
  batch?: Row;
  /** Every row above again, for recording_activity_timeline. */
  timeline: Row[];
}

export type ActivityResult = { rows: ActivityRows } | { skip: string };

const finiteInt = (v: unknown): number => (typeof v === 'number' && Number.isFinite(v) ? Math.trunc(v) : 0);

/**
 * The min_ts of the message's recording_timeline row, by summary-rows.ts's rule (a version 1
 * Td-Summary of at least one event; its minTs), else UNPLACED_TS. Only these three fields are read:
 * building the recordings projection's rows here would triple this projection's CPU per message.
 */
export function batchTs(m: ProjectionMessage): number {
  const raw = m.headers[H.summary];
  if (!raw) return UNPLACED_TS;
  let s: { v?: unknown; n?: unknown; minTs?: unknown } | null;
  try {
    s = JSON.parse(raw) as typeof s;
  } catch {
    return UNPLACED_TS;
  }
  if (!s || typeof s !== 'object' || s.v !== 1 || finiteInt(s.n) <= 0) return UNPLACED_TS;
  return finiteInt(s.minTs);
}

/**
 * The message's rows for recording_activity_timeline: each row of the other three with its kind and
 * batch_ts. The columns of other kinds are left out: an insert in JSONEachRow gives them their defaults.
 */
function timelineRows(m: ProjectionMessage, items: Row[], nodes: Row[], batch: Row | undefined): Row[] {
  if (items.length === 0 && nodes.length === 0 && !batch) return [];
  const batch_ts = batchTs(m);
  const rows: Row[] = items.map((r) => ({ ...r, batch_ts }));
  for (const r of nodes) rows.push({ ...r, kind: 'node', batch_ts });
  if (batch) rows.push({ ...batch, kind: 'batch', batch_ts });
  return rows;
}

const chunked = (chunk: string | undefined) => {
  const m = chunk ? /^(\d+)\/(\d+)$/.exec(chunk) : null;
  return m !== null && Number(m[2]) > 1;
};

/** The page row of a chunked batch, from its summary (on the last chunk): URL and time of its first Meta. */
function chunkedPage(m: ProjectionMessage, key: Row): Row[] {
  let s: { url?: unknown; metaTs?: unknown } | undefined;
  try {
    s = JSON.parse(m.headers[H.summary] ?? 'null') as typeof s;
  } catch {
    return [];
  }
  if (!s || typeof s.url !== 'string' || typeof s.metaTs !== 'number') return [];
  const url = wellFormed(clip(s.url, MAX_URL));
  return [{ ...key, ...EMPTY_ITEM, kind: 'page', ts: Math.trunc(s.metaTs), url, path: pathOf(url) }];
}

/**
 * Whether the message's activity must come from its payload: no usable Td-Activity header (stored
 * before it, or too big), and not a chunk of a larger batch (whose rows come from its summary alone:
 * loading its megabytes cost the service's thread and NATS for nothing).
 */
export const needsPayload = (m: ProjectionMessage): boolean => !chunked(m.headers[H.chunk]) && headerActivity(m) === undefined;

/** Parsed Td-Activity headers by message headers (kept when the body loader copies a message): parsed once per message. */
const parsedHeaders = new WeakMap<object, BatchActivity | null>();

function headerActivity(m: ProjectionMessage): BatchActivity | undefined {
  let a = parsedHeaders.get(m.headers);
  if (a === undefined) parsedHeaders.set(m.headers, (a = parseActivityHeader(m.headers[H.activity]) ?? null));
  return a ?? undefined;
}

/** The batch's activity decoded from its payload, as ingestion computes the Td-Activity header. */
function fromPayload(data: Uint8Array | undefined): BatchActivity | { skip: string } {
  if (!data) return { skip: 'event payload unavailable (message removed from the stream)' };
  let events: unknown;
  try {
    events = JSON.parse(new TextDecoder().decode(data));
  } catch {
    return { skip: 'event payload is not JSON' };
  }
  if (!Array.isArray(events)) return { skip: 'event payload is not an array' };
  try {
    return batchActivity(events as RrwebEvent[]);
  } catch (e) {
    // A shape no rule foresaw must not hold the projection back (it would be redelivered forever).
    return { skip: `events not understood: ${String((e as Error)?.message ?? e).slice(0, 200)}` };
  }
}

const EMPTY_ITEM = { idx: 0, url: '', path: '', title: '', text: '', node_id: 0, x: 0, y: 0, page_load: 0, status: 0, method: '', duration: 0 };

export function activityRows(m: ProjectionMessage, tenantId: string, recordingId: string): ActivityResult {
  const key = { tenant_id: tenantId, recording_id: recordingId, seq: m.seq, batch_id: m.headers[H.batch] || `seq-${m.seq}` };
  if (chunked(m.headers[H.chunk])) {
    const items = chunkedPage(m, key);
    return { rows: { items, nodes: [], timeline: timelineRows(m, items, [], undefined) } };
  }
  const a = headerActivity(m) ?? fromPayload(m.data);
  if ('skip' in a) return a;
  const items: Row[] = a.items.map((i, idx) => {
    const row = { ...key, ...EMPTY_ITEM, idx, kind: i.kind, ts: i.ts };
    switch (i.kind) {
      case 'page':
        return { ...row, url: i.url, path: i.path, title: i.title, page_load: i.pageLoad ? 1 : 0 };
      case 'click':
        return { ...row, node_id: i.nodeId, x: i.x, y: i.y };
      case 'error':
        return { ...row, text: i.message };
      case 'network':
        return { ...row, url: i.url, path: '', method: i.method, status: i.status, duration: i.durationMs };
    }
  });
  const nodes: Row[] = a.nodes.map((n) => ({ ...key, node_id: n.nodeId, tag: n.tag, text: n.text, selector: n.selector }));
  const empty = a.items.length === 0 && a.nodes.length === 0 && a.inputs === 0 && a.activeSeconds.length === 0 && a.changes.length === 0;
  const batch: Row | undefined = empty
    ? undefined
    : { ...key, min_ts: a.minTs, max_ts: a.maxTs, inputs: a.inputs, active_seconds: a.activeSeconds, changes: a.changes };
  return { rows: { items, nodes, batch, timeline: timelineRows(m, items, nodes, batch) } };
}
