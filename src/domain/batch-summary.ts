// A per-batch summary computed once at ingestion and carried in the message header (Td-Summary), so
// projectors never decode event payloads. Events whose custom tag carries metadata are not counted
// as events (reads do not return them); their payload lands in `meta`.
import { BatchKeyframes, batchKeyframes } from './keyframes';
import { EventType, METADATA_TAGS, RrwebEvent } from './rrweb-event';

/** Keyframe fields (kf, kfMeta, kfOpen: keyframes.ts) are present only when the batch has one. */
export interface BatchSummary extends BatchKeyframes {
  v: 1;
  /** Events, excluding metadata custom events. */
  n: number;
  /** Stored payload bytes of the batch. */
  bytes: number;
  /**
   * First and last event time, over the counted events only: metadata custom events are not events
   * of the recording (reads leave them out), so they must not move its start, end or duration. A
   * batch of nothing but metadata events (n = 0) takes their times, which only its read order uses.
   */
  minTs: number;
  maxTs: number;
  /** Event counts by rrweb type. */
  types: Record<string, number>;
  /** FullSnapshot events: page views. */
  pv: number;
  /** Viewport and URL from the first Meta event of the batch, with that event's time. */
  vw?: number;
  vh?: number;
  url?: string;
  metaTs?: number;
  /** Metadata carried in-band (recording-meta / pageview-meta custom events), later keys win. */
  meta?: Record<string, string>;
  /** Events per minute: [minute start epoch ms, count]. */
  minutes: [number, number][];
}

export const MAX_META_KEYS = 200;
export const MAX_META_KEY_LENGTH = 200;
export const MAX_META_VALUE_LENGTH = 4096;

/** The first `max` UTF-16 units of `s`, one fewer rather than half of a surrogate pair. */
export function clip(s: string, max: number): string {
  if (s.length <= max) return s;
  const high = s.charCodeAt(max - 1);
  return s.slice(0, high >= 0xd800 && high <= 0xdbff ? max - 1 : max);
}

/**
 * `s` with lone surrogates replaced by U+FFFD. Strings that reach ClickHouse pass here: it refuses
 * a JSON row holding one ("missing second part of surrogate pair"), and that insert carries other
 * messages, of every tenant, which would then wait on it.
 */
export function wellFormed(s: string): string {
  return s.isWellFormed() ? s : s.toWellFormed();
}

/** Metadata values are strings: numbers and booleans keep their string form, objects become JSON. */
export function metadataValue(v: unknown): string | undefined {
  if (v === null || v === undefined) return undefined;
  const s = typeof v === 'string' ? v : typeof v === 'number' || typeof v === 'boolean' ? String(v) : JSON.stringify(v);
  return clip(s, MAX_META_VALUE_LENGTH);
}

export function isMetadataEvent(e: RrwebEvent): boolean {
  return e.type === EventType.Custom && typeof e.data?.tag === 'string' && METADATA_TAGS.has(e.data.tag as string);
}

/** What the server saw of the client that sent a batch: its address and its User-Agent header. */
export interface ClientInfo {
  ip?: string;
  userAgent?: string;
}

/**
 * rrweb Cloud's pre-baked metadata: the browser clients send `includePii` in their recording-meta
 * payload ("tell server not to store IP addresses or user agents" when false); when it is true the
 * server adds these two keys from the request. The payload's own keys of the same names win.
 */
export const PII_METADATA_KEYS = { ip: 'ipAddress', userAgent: 'userAgent' } as const;

function allowsPii(tag: unknown, payload: Record<string, unknown>): boolean {
  return tag === 'recording-meta' && (payload.includePii === true || payload.includePii === 'true');
}

export function summarizeBatch(events: RrwebEvent[], bytes: number, client: ClientInfo = {}): BatchSummary {
  const s: BatchSummary = { v: 1, n: 0, bytes, minTs: Number.MAX_SAFE_INTEGER, maxTs: Number.MIN_SAFE_INTEGER, types: {}, pv: 0, minutes: [] };
  const minutes = new Map<number, number>();
  const counted: RrwebEvent[] = [];
  let metaMin = Number.MAX_SAFE_INTEGER;
  let metaMax = Number.MIN_SAFE_INTEGER;
  for (const e of events) {
    if (isMetadataEvent(e)) {
      metaMin = Math.min(metaMin, e.timestamp);
      metaMax = Math.max(metaMax, e.timestamp);
      const payload = e.data.payload;
      if (payload && typeof payload === 'object' && !Array.isArray(payload)) {
        // Object.fromEntries, not assignment: a "__proto__" key must stay a key.
        const merged = new Map(Object.entries(s.meta ?? {}));
        if (allowsPii(e.data.tag, payload as Record<string, unknown>)) {
          for (const [from, key] of Object.entries(PII_METADATA_KEYS)) {
            const value = metadataValue(client[from as keyof ClientInfo]);
            if (value) merged.set(key, wellFormed(value));
          }
        }
        for (const [k, v] of Object.entries(payload as Record<string, unknown>)) {
          const value = metadataValue(v);
          if (value === undefined || k.length === 0 || k.length > MAX_META_KEY_LENGTH) continue;
          merged.set(wellFormed(k), wellFormed(value));
        }
        s.meta = Object.fromEntries(merged);
      }
      continue;
    }
    s.n++;
    counted.push(e);
    s.minTs = Math.min(s.minTs, e.timestamp);
    s.maxTs = Math.max(s.maxTs, e.timestamp);
    s.types[e.type] = (s.types[e.type] ?? 0) + 1;
    if (e.type === EventType.FullSnapshot) s.pv++;
    if (e.type === EventType.Meta && (s.metaTs === undefined || e.timestamp < s.metaTs)) {
      const d = e.data as { width?: unknown; height?: unknown; href?: unknown };
      s.metaTs = e.timestamp;
      if (typeof d.width === 'number' && d.width > 0) s.vw = Math.round(d.width);
      if (typeof d.height === 'number' && d.height > 0) s.vh = Math.round(d.height);
      if (typeof d.href === 'string') s.url = wellFormed(clip(d.href, 2048));
    }
    const minute = Math.floor(e.timestamp / 60_000) * 60_000;
    minutes.set(minute, (minutes.get(minute) ?? 0) + 1);
  }
  s.minutes = [...minutes.entries()].sort((a, b) => a[0] - b[0]);
  Object.assign(s, batchKeyframes(counted));
  if (s.n === 0) {
    s.minTs = metaMin;
    s.maxTs = metaMax;
  }
  return s;
}

/** JSON with every non-ASCII character escaped, safe to carry in a NATS header. */
export function headerJson(value: unknown): string {
  return JSON.stringify(value).replace(/[\u007f-\uffff]/g, (c) => '\\u' + c.charCodeAt(0).toString(16).padStart(4, '0'));
}
