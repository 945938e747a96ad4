// Server-Sent Events framing for the live feed (docs/live.md). Event JSON is passed through as stored,
// and stored JSON may carry raw line breaks between tokens (a client's pretty-printed batch): SSE would
// split the data there, so they become spaces (outside strings a raw CR or LF is only whitespace, and
// inside a JSON string it is not allowed at all).

export type EndReason = 'deleted' | 'link_expired' | 'slow_viewer' | 'shutdown';

export interface LiveStatus {
  live: boolean;
  /** When the recording's last batch was stored (epoch ms), null without one. */
  lastEventAt: number | null;
  serverTime: number;
}

const LF = 0x0a;
const CR = 0x0d;
const SPACE = 0x20;

/** `json` with every CR and LF made a space (the same buffer when it holds none). */
export function singleLine(json: Buffer): Buffer {
  if (json.indexOf(LF) < 0 && json.indexOf(CR) < 0) return json;
  const out = Buffer.from(json);
  for (let i = 0; i < out.length; i++) if (out[i] === LF || out[i] === CR) out[i] = SPACE;
  return out;
}

/** The head of an `events` message (its data follows, then DATA_END). */
export const eventsHead = (id: number) => Buffer.from(`id: ${id}\nevent: events\ndata: `, 'latin1');
export const DATA_END = Buffer.from('\n\n', 'latin1');

/** A whole `events` message: the batch's events (a JSON array) up to stream sequence `id`. */
export function eventsFrame(id: number, json: Buffer): Buffer {
  return Buffer.concat([eventsHead(id), singleLine(json), DATA_END]);
}

export function statusFrame(status: LiveStatus): Buffer {
  return Buffer.from(`event: status\ndata: ${JSON.stringify(status)}\n\n`, 'utf8');
}

export function endFrame(reason: EndReason): Buffer {
  return Buffer.from(`event: end\ndata: ${JSON.stringify({ reason })}\n\n`, 'utf8');
}

export const KEEPALIVE = Buffer.from(': keepalive\n\n', 'latin1');
/** How long EventSource waits before reconnecting (ms). */
export const retryFrame = (ms: number) => Buffer.from(`retry: ${ms}\n\n`, 'latin1');

/** A Last-Event-ID (header or lastEventId parameter): a stream sequence, else undefined. */
export function parseLastEventId(raw: unknown): number | undefined {
  if (typeof raw !== 'string' || !/^\d{1,15}$/.test(raw.trim())) return undefined;
  const n = Number(raw.trim());
  return n > 0 ? n : undefined;
}
