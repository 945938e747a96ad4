// What one stored batch of rrweb events says about the user's activity (docs/activity.md): the
// projector's pure step. Rules that look past a batch (page views, rage and dead clicks, active time,
// click targets) are finished at read time from these parts (activity-rules.ts), because a recorder
// cuts a batch every second and a projector sees one batch at a time.
import { clip, isMetadataEvent, wellFormed } from '../batch-summary';
import { EventType, RrwebEvent } from '../rrweb-event';
import { NodeLabel, NodeLabeller } from './node-labels';

/** rrweb IncrementalSource codes read here. */
export const Source = { Mutation: 0, MouseMove: 1, MouseInteraction: 2, Scroll: 3, Input: 5, TouchMove: 6, Log: 11, Drag: 12 } as const;
/** rrweb MouseInteractions.Click. */
const CLICK = 2;
/** Sources of incremental events that are the user acting (each keeps the user active for ACTIVE_LINGER_S). */
const INTERACTION_SOURCES: ReadonlySet<number> = new Set([
  Source.MouseMove,
  Source.MouseInteraction,
  Source.Scroll,
  Source.Input,
  Source.TouchMove,
  Source.Drag,
]);
/** Seconds an interaction keeps the user active: its own second and the next four. */
export const ACTIVE_LINGER_S = 5;
export const MAX_URL = 2048;
export const MAX_TEXT = 500;

export const CONSOLE_PLUGIN = 'rrweb/console@1';
export const NETWORK_PLUGIN = 'rrweb/network@1';

export interface PageItem {
  kind: 'page';
  ts: number;
  url: string;
  path: string;
  title: string;
  /** A page-start event (recording-meta, pageview-meta, DomContentLoaded, Load) came after the previous Meta of the batch: a load, not a checkout. */
  pageLoad: boolean;
}
export interface ClickItem {
  kind: 'click';
  ts: number;
  nodeId: number;
  x: number;
  y: number;
}
export interface ErrorItem {
  kind: 'error';
  ts: number;
  message: string;
}
export interface NetworkItem {
  kind: 'network';
  ts: number;
  url: string;
  method: string;
  /** 0: no response (refused, offline, blocked). */
  status: number;
  durationMs: number;
}
export type ActivityItem = PageItem | ClickItem | ErrorItem | NetworkItem;

export interface BatchActivity {
  items: ActivityItem[];
  /** Labels of clickable nodes serialised in this batch (full snapshots and added nodes). */
  nodes: NodeLabel[];
  /** Input events (rrweb IncrementalSource.Input). */
  inputs: number;
  /** Epoch seconds in which the user counts as active (ascending, distinct). */
  activeSeconds: number[];
  /** Distinct times of DOM changes, inputs, scrolls and navigations (ascending): what answers a click. */
  changes: number[];
  minTs: number;
  maxTs: number;
}

const PAGE_START_TAGS = new Set(['recording-meta', 'pageview-meta']);
const num = (v: unknown, fallback = 0) => (typeof v === 'number' && Number.isFinite(v) ? v : fallback);
const str = (v: unknown, max: number) => (typeof v === 'string' ? wellFormed(clip(v, max)) : '');

export function pathOf(url: string): string {
  try {
    return new URL(url).pathname;
  } catch {
    return '';
  }
}

/** One console argument as rrweb's console plugin stores it (JSON text): a string as itself, anything else as its JSON. */
function consoleArg(a: unknown): string {
  if (typeof a !== 'string') return JSON.stringify(a) ?? '';
  try {
    const v: unknown = JSON.parse(a);
    return typeof v === 'string' ? v : a;
  } catch {
    return a;
  }
}

function isChange(e: RrwebEvent, data: Record<string, unknown>): boolean {
  if (e.type === EventType.Meta || e.type === EventType.FullSnapshot) return true;
  if (e.type !== EventType.IncrementalSnapshot) return false;
  const d = data as { source?: unknown; adds?: unknown[]; removes?: unknown[]; texts?: unknown[]; attributes?: unknown[] };
  if (d.source === Source.Input || d.source === Source.Scroll) return true;
  return d.source === Source.Mutation && [d.adds, d.removes, d.texts, d.attributes].some((a) => Array.isArray(a) && a.length > 0);
}

/** The activity parts of one batch, events as stored (metadata events included: they mark page loads). */
export function batchActivity(events: readonly RrwebEvent[]): BatchActivity {
  const out: BatchActivity = { items: [], nodes: [], inputs: 0, activeSeconds: [], changes: [], minTs: 0, maxTs: 0 };
  const active = new Set<number>();
  const changes = new Set<number>();
  const labeller = new NodeLabeller();
  let minTs = Infinity;
  let maxTs = -Infinity;
  let pageStart = false;
  let openPage: PageItem | undefined;
  for (const e of events) {
    if (!e || typeof e !== 'object' || typeof e.timestamp !== 'number') continue;
    const ts = Math.trunc(e.timestamp);
    const data = (e.data && typeof e.data === 'object' ? e.data : {}) as Record<string, unknown>;
    if (e.type === EventType.Custom && PAGE_START_TAGS.has(data.tag as string)) pageStart = true;
    if (isMetadataEvent(e)) continue;
    minTs = Math.min(minTs, ts);
    maxTs = Math.max(maxTs, ts);
    if (isChange(e, data)) changes.add(ts);
    switch (e.type) {
      case EventType.DomContentLoaded:
      case EventType.Load:
        pageStart = true;
        break;
      case EventType.Meta: {
        const url = str(data.href, MAX_URL);
        openPage = { kind: 'page', ts, url, path: pathOf(url), title: '', pageLoad: pageStart };
        out.items.push(openPage);
        pageStart = false;
        break;
      }
      case EventType.FullSnapshot: {
        const title = labeller.addSnapshot(data.node);
        if (openPage && !openPage.title) openPage.title = title;
        openPage = undefined;
        break;
      }
      case EventType.IncrementalSnapshot: {
        const source = data.source as number;
        if (INTERACTION_SOURCES.has(source)) {
          const s = Math.floor(ts / 1000);
          for (let i = 0; i < ACTIVE_LINGER_S; i++) active.add(s + i);
        }
        if (source === Source.Log) consoleItem(ts, data, out.items); // rrweb 1's recordLog: the console plugin's payload, inline
        if (source === Source.Input) out.inputs++;
        else if (source === Source.Mutation && Array.isArray(data.adds)) labeller.addMutation(data.adds);
        else if (source === Source.MouseInteraction && data.type === CLICK && typeof data.id === 'number') {
          out.items.push({ kind: 'click', ts, nodeId: Math.trunc(data.id), x: Math.round(num(data.x)), y: Math.round(num(data.y)) });
        }
        break;
      }
      case EventType.Plugin:
        pluginItems(ts, data, out.items);
        break;
    }
  }
  out.nodes = labeller.labels();
  out.activeSeconds = [...active].sort((a, b) => a - b);
  out.changes = [...changes].sort((a, b) => a - b);
  out.minTs = Number.isFinite(minTs) ? minTs : 0;
  out.maxTs = Number.isFinite(maxTs) ? maxTs : 0;
  return out;
}

/** A console message ({level, payload: JSON texts, trace}) as an error item when its level is error. */
function consoleItem(ts: number, log: Record<string, unknown>, items: ActivityItem[]) {
  if (log.level !== 'error') return;
  const args = Array.isArray(log.payload) ? log.payload : [];
  items.push({ kind: 'error', ts, message: wellFormed(clip(args.map(consoleArg).join(' '), MAX_TEXT)) });
}

function pluginItems(ts: number, data: Record<string, unknown>, items: ActivityItem[]) {
  const payload = (data.payload ?? {}) as Record<string, unknown>;
  if (data.plugin === CONSOLE_PLUGIN) consoleItem(ts, payload, items);
  else if (data.plugin === NETWORK_PLUGIN && Array.isArray(payload.requests)) {
    for (const r of payload.requests as Record<string, unknown>[]) {
      if (!r || typeof r !== 'object') continue;
      const status = Math.trunc(num(r.status));
      // No status is a failure only for requests the page made (resource timings may lack one).
      const failed = status >= 400 || (status <= 0 && (r.initiatorType === 'fetch' || r.initiatorType === 'xmlhttprequest'));
      if (!failed) continue;
      items.push({
        kind: 'network',
        ts,
        url: str(r.name, MAX_URL),
        method: str(r.method, 16).toUpperCase() || 'GET',
        status,
        durationMs: Math.max(0, Math.round(num(r.duration))),
      });
    }
  }
}
