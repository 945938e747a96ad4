// The rules of docs/activity.md that need more than one stored batch, applied to a recording's
// projected parts (batch-activity.ts, one entry per stored batch, in stream order by `seq`): page
// views, click targets, rage clicks, dead clicks and active time. The listing filters apply the same
// rules in SQL (read-model/activity.sql.ts); the e2e spec checks that both agree.
import type { ActivityItem, ClickItem, ErrorItem, NetworkItem, PageItem } from './batch-activity';
import type { NodeLabel } from './node-labels';

/** At least this many clicks on one node within RAGE_WINDOW_MS make a rage click. */
export const RAGE_CLICKS = 3;
export const RAGE_WINDOW_MS = 1000;
/** A click with no change within this long after it (and the recording going on that long) is dead. */
export const DEAD_WINDOW_MS = 1000;

type Seq<T> = T & { seq: number };
/** An item with its stream sequence and its position among its batch's items. */
export type StoredItem = ActivityItem & { seq: number; idx: number };
export type StoredLabel = Seq<NodeLabel>;
type At = { seq: number; idx: number };
/** a comes before b in the stream (batch, then position in the batch). */
const before = (a: At, b: At) => a.seq < b.seq || (a.seq === b.seq && a.idx < b.idx);
export interface StoredBatch {
  seq: number;
  inputs: number;
  activeSeconds: number[];
  changes: number[];
}

export interface PageView {
  ts: number;
  url: string;
  path: string;
  title: string;
  durationMs: number;
}

export interface ResolvedClick {
  ts: number;
  nodeId: number;
  x: number;
  y: number;
  text: string;
  selector: string;
  tag: string;
  rage: boolean;
  dead: boolean;
}

export interface RageClick {
  ts: number;
  nodeId: number;
  clicks: number;
  text: string;
  selector: string;
}

export interface RecordingActivity {
  pageViews: PageView[];
  clicks: ResolvedClick[];
  rageClicks: RageClick[];
  errors: ErrorItem[];
  networkFailures: NetworkItem[];
  inputs: number;
  /** ms, at most the recording's duration. */
  activeTime: number;
  idleTime: number;
}

const byTime = <T extends { ts: number; seq: number }>(a: T, b: T) => a.ts - b.ts || a.seq - b.seq;

/**
 * Page views from the Meta rows (one per rrweb Meta event): a Meta starts a page view when it is the
 * first, when its URL differs from the current page view's, or when a page-start event preceded it
 * in its batch (a reload); otherwise it is a keyframe (checkout) of the current page view. A page view
 * lasts until the next one starts, the last until the recording's last event.
 */
export function pageViews(metas: readonly Seq<PageItem>[], lastTs: number): PageView[] {
  const views: PageView[] = [];
  for (const m of [...metas].sort(byTime)) {
    const current = views[views.length - 1];
    if (current && !m.pageLoad && m.url === current.url) {
      current.title ||= m.title;
      continue;
    }
    views.push({ ts: m.ts, url: m.url, path: m.path, title: m.title, durationMs: 0 });
  }
  views.forEach((v, i) => (v.durationMs = Math.max(0, (i + 1 < views.length ? views[i + 1].ts : lastTs) - v.ts)));
  return views;
}

/**
 * A click's target: the label of its node from the latest batch at or before the click's own that
 * serialised it, but not from a batch before that of the latest Meta before the click (node ids start
 * again on each page load; a checkout serialises every node again).
 */
export function labelFor(click: ClickItem & At, metas: readonly At[], labels: ReadonlyMap<number, readonly StoredLabel[]>): StoredLabel | undefined {
  let from = 0;
  for (const m of metas) if (before(m, click) && m.seq > from) from = m.seq;
  let found: StoredLabel | undefined;
  for (const l of labels.get(click.nodeId) ?? []) if (l.seq >= from && l.seq <= click.seq && (!found || l.seq > found.seq)) found = l;
  return found;
}

/**
 * Rage clicks. Clicks on one node less than RAGE_WINDOW_MS apart form a run; a run holding
 * RAGE_CLICKS clicks within RAGE_WINDOW_MS (a window: the first to the last of them) is one rage
 * click, made of the clicks of all such windows. (The SQL of the statistics counts the same runs.)
 */
export function rageClicks(clicks: readonly { ts: number; nodeId: number }[]): { ts: number; nodeId: number; members: number[] }[] {
  const byNode = new Map<number, number[]>();
  clicks.forEach((c, i) => byNode.set(c.nodeId, [...(byNode.get(c.nodeId) ?? []), i]));
  const out: { ts: number; nodeId: number; members: number[] }[] = [];
  for (const [nodeId, idx] of byNode) {
    const sorted = idx.sort((a, b) => clicks[a].ts - clicks[b].ts || a - b);
    const t = sorted.map((i) => clicks[i].ts);
    let run: Set<number> | undefined;
    const flush = () => {
      if (run?.size) {
        const members = [...run].sort((a, b) => clicks[a].ts - clicks[b].ts || a - b);
        out.push({ ts: clicks[members[0]].ts, nodeId, members });
      }
      run = new Set();
    };
    for (let i = 0; i < t.length; i++) {
      if (i === 0 || t[i] - t[i - 1] > RAGE_WINDOW_MS) flush();
      const last = i + RAGE_CLICKS - 1;
      if (last < t.length && t[last] - t[i] <= RAGE_WINDOW_MS) for (let j = i; j <= last; j++) run!.add(sorted[j]);
    }
    flush();
  }
  return out.sort((a, b) => a.ts - b.ts || a.nodeId - b.nodeId);
}

/**
 * Dead: nothing changed in [ts, ts + DEAD_WINDOW_MS] and the recording has an event at or after its
 * end. A change in the click's own millisecond counts: a click handler's DOM change is recorded
 * with the click's time or later.
 */
export function isDead(ts: number, changes: readonly number[], lastTs: number): boolean {
  return lastTs >= ts + DEAD_WINDOW_MS && !changes.some((c) => c >= ts && c <= ts + DEAD_WINDOW_MS);
}

/** Active time: distinct active seconds up to the second of the last event, × 1000, at most the duration. */
export function activeTime(batches: readonly StoredBatch[], span: { first: number; last: number }): number {
  const lastSecond = Math.floor(span.last / 1000);
  const seconds = new Set<number>();
  for (const b of batches) for (const s of b.activeSeconds) if (s <= lastSecond) seconds.add(s);
  return Math.min(seconds.size * 1000, Math.max(0, span.last - span.first));
}

/** Every rule of docs/activity.md over a recording's parts; `span`: its first and last event time. */
export function recordingActivity(
  items: readonly StoredItem[],
  labels: readonly StoredLabel[],
  batches: readonly StoredBatch[],
  span: { first: number; last: number },
): RecordingActivity {
  const metas = items.filter((i): i is PageItem & At => i.kind === 'page');
  const labelsByNode = new Map<number, StoredLabel[]>();
  for (const l of labels) labelsByNode.set(l.nodeId, [...(labelsByNode.get(l.nodeId) ?? []), l]);
  const changes = batches.flatMap((b) => b.changes);
  const clicks: ResolvedClick[] = items
    .filter((i): i is ClickItem & At => i.kind === 'click')
    .sort(byTime)
    .map((c) => {
      const l = labelFor(c, metas, labelsByNode);
      return {
        ts: c.ts,
        nodeId: c.nodeId,
        x: c.x,
        y: c.y,
        text: l?.text ?? '',
        selector: l?.selector ?? '',
        tag: l?.tag ?? '',
        rage: false,
        dead: isDead(c.ts, changes, span.last),
      };
    });
  const rage = rageClicks(clicks).map((r) => {
    for (const m of r.members) clicks[m].rage = true;
    const first = clicks[r.members[0]];
    return { ts: r.ts, nodeId: r.nodeId, clicks: r.members.length, text: first.text, selector: first.selector };
  });
  const duration = Math.max(0, span.last - span.first);
  const active = activeTime(batches, span);
  const sorted = [...items].sort(byTime);
  return {
    pageViews: pageViews(metas, span.last),
    clicks,
    rageClicks: rage,
    errors: sorted.filter((i): i is ErrorItem & At => i.kind === 'error').map(({ kind, ts, message }) => ({ kind, ts, message })),
    networkFailures: sorted.filter((i): i is NetworkItem & At => i.kind === 'network').map(({ seq: _seq, idx: _idx, ...n }) => n),
    inputs: batches.reduce((n, b) => n + b.inputs, 0),
    activeTime: active,
    idleTime: duration - active,
  };
}
