// Rows from one `ev` message for the activity tables (migration 007): its events are decoded and
// reduced to batch-activity.ts's parts. A chunked batch (bigger than a message) is left out: its chunks
// are separate messages, and a projection sees one message at a time (docs/activity.md, limits).
import { batchActivity } from '../domain/activity/batch-activity';
import type { RrwebEvent } from '../domain/rrweb-event';
import { H } from '../infrastructure/nats/subjects';
import type { ProjectionMessage, Row } from './projection';

export interface ActivityRows {
  items: Row[];
  nodes: Row[];
  batch?: Row;
}

export type ActivityResult = { rows: ActivityRows } | { skip: string };

const chunked = (chunk: string | undefined) => {
  const m = chunk ? /^(\d+)\/(\d+)$/.exec(chunk) : null;
  return m !== null && Number(m[2]) > 1;
};

export function activityRows(m: ProjectionMessage, tenantId: string, recordingId: string): ActivityResult {
  if (chunked(m.headers[H.chunk])) return { rows: { items: [], nodes: [] } };
  if (!m.data) return { skip: 'event payload unavailable (message removed from the stream)' };
  let events: unknown;
  try {
    events = JSON.parse(new TextDecoder().decode(m.data));
  } catch {
    return { skip: 'event payload is not JSON' };
  }
  if (!Array.isArray(events)) return { skip: 'event payload is not an array' };
  let a: ReturnType<typeof batchActivity>;
  try {
    a = batchActivity(events as RrwebEvent[]);
  } catch (e) {
    // A shape no rule foresaw must not hold the projection back (it would be redelivered forever).
    return { skip: `events not understood: ${String((e as Error)?.message ?? e).slice(0, 200)}` };
  }
  const key = { tenant_id: tenantId, recording_id: recordingId, seq: m.seq, batch_id: m.headers[H.batch] || `seq-${m.seq}` };
  const items: Row[] = a.items.map((i, idx) => {
    const row = {
      ...key,
      idx,
      kind: i.kind,
      ts: i.ts,
      url: '',
      path: '',
      title: '',
      text: '',
      node_id: 0,
      x: 0,
      y: 0,
      page_load: 0,
      status: 0,
      method: '',
      duration: 0,
    };
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
  return { rows: { items, nodes, batch } };
}
