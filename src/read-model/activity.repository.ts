// Reads of the activity projection (activity.sql.ts): one recording's parts with the rules of
// domain/activity/activity-rules.ts applied (the timeline), and the listing's activity summary of a
// page of recordings. 64-bit integers arrive as strings and are converted here.
import { Injectable } from '@nestjs/common';
import { pageViews, RecordingActivity, recordingActivity, StoredBatch, StoredItem, StoredLabel } from '../domain/activity/activity-rules';
import type { PageItem } from '../domain/activity/batch-activity';
import { ClickHouse } from '../infrastructure/clickhouse/clickhouse-client';
import { ActivitySummary, NO_ACTIVITY } from './activity-summary';
import { ActivitySql } from './activity.sql';
import { KeyframesSql } from './keyframes.repository';
import { fromReadModel } from './read-model-errors.util';

type N = string | number;
interface ItemRow {
  seq: N;
  idx: N;
  kind: StoredItem['kind'];
  ts: N;
  url: string;
  path: string;
  title: string;
  text: string;
  node_id: N;
  x: N;
  y: N;
  page_load: N;
  status: N;
  method: string;
  duration: N;
}
interface BatchRow {
  seq: N;
  inputs: N;
  active_seconds: N[];
  changes: N[];
}
interface LabelRow {
  seq: N;
  node_id: N;
  tag: string;
  text: string;
  selector: string;
}

export function toItem(r: ItemRow): StoredItem {
  const at = { seq: Number(r.seq), idx: Number(r.idx) };
  const ts = Number(r.ts);
  switch (r.kind) {
    case 'page':
      return { ...at, kind: 'page', ts, url: r.url, path: r.path, title: r.title, pageLoad: Number(r.page_load) === 1 };
    case 'click':
      return { ...at, kind: 'click', ts, nodeId: Number(r.node_id), x: Number(r.x), y: Number(r.y) };
    case 'error':
      return { ...at, kind: 'error', ts, message: r.text };
    case 'network':
      return { ...at, kind: 'network', ts, url: r.url, method: r.method, status: Number(r.status), durationMs: Number(r.duration) };
  }
}

export interface RecordingActivityRead {
  activity: RecordingActivity;
  span: { first: number; last: number };
}

@Injectable()
export class ActivityRepository {
  constructor(private readonly ch: ClickHouse) {}

  /** The recording's activity, or undefined when it has no projected event batch (not projected yet, deleted, or none). */
  async recording(tenantId: string, recordingId: string): Promise<RecordingActivityRead | undefined> {
    return fromReadModel(this.read(tenantId, recordingId));
  }

  private async read(tenantId: string, recordingId: string): Promise<RecordingActivityRead | undefined> {
    const [spanRows, itemRows, batchRows] = await Promise.all([
      this.ch.rows<{ first_ts: N; last_ts: N; n: N }>(KeyframesSql.span(tenantId, recordingId)),
      this.ch.rows<ItemRow>(ActivitySql.items(tenantId, recordingId)),
      this.ch.rows<BatchRow>(ActivitySql.batches(tenantId, recordingId)),
    ]);
    const s = spanRows[0];
    if (!s || Number(s.n) === 0) return undefined;
    const span = { first: Number(s.first_ts), last: Number(s.last_ts) };
    const items = itemRows.map(toItem);
    const nodeIds = [...new Set(items.flatMap((i) => (i.kind === 'click' ? [i.nodeId] : [])))];
    const labels: StoredLabel[] = nodeIds.length
      ? (await this.ch.rows<LabelRow>(ActivitySql.labels(tenantId, recordingId, nodeIds))).map((l) => ({
          seq: Number(l.seq),
          nodeId: Number(l.node_id),
          tag: l.tag,
          text: l.text,
          selector: l.selector,
        }))
      : [];
    const batches: StoredBatch[] = batchRows.map((b) => ({
      seq: Number(b.seq),
      inputs: Number(b.inputs),
      activeSeconds: b.active_seconds.map(Number),
      changes: b.changes.map(Number),
    }));
    return { activity: recordingActivity(items, labels, batches, span), span };
  }

  /** Activity summaries of the given recordings, by id; `spans`: each one's first and last event time (from its summary). */
  async summaries(tenantId: string, spans: ReadonlyMap<string, { first: number; last: number }>): Promise<Map<string, ActivitySummary>> {
    const ids = [...spans.keys()];
    if (ids.length === 0) return new Map();
    const rows = await fromReadModel(
      this.ch.rows<{ recording_id: string; clicks: N; errors: N; active_secs: N; pages: [N, N, string, N][] }>(ActivitySql.summaries(tenantId, spans)),
    );
    const out = new Map<string, ActivitySummary>(ids.map((id) => [id, { ...NO_ACTIVITY }]));
    for (const r of rows) {
      const span = spans.get(r.recording_id);
      if (!span) continue;
      const metas: (PageItem & { seq: number; idx: number })[] = r.pages.map(([seq, ts, url, pageLoad]) => ({
        kind: 'page',
        seq: Number(seq),
        idx: 0,
        ts: Number(ts),
        url,
        path: '',
        title: '',
        pageLoad: Number(pageLoad) === 1,
      }));
      out.set(r.recording_id, {
        pages: pageViews(metas, span.last).length,
        clicks: Number(r.clicks),
        errors: Number(r.errors),
        // The seconds are those up to the last event's (activity.sql.ts); the cap is the duration.
        activeTime: Math.min(Number(r.active_secs) * 1000, Math.max(0, span.last - span.first)),
      });
    }
    return out;
  }
}
