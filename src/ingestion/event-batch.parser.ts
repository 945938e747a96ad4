// Turns an ingestion body into validated events and the payload stored for them (a JSON array).
// JSON arrays (and the array of {"events":[…]} when it is the only key) are stored as received (no
// re-serialisation); NDJSON lines are joined into an array.
// Any invalid event rejects the whole body, naming the index (JSON) or line (NDJSON).
import { inflateSync } from 'node:zlib';
import { AppError } from '../common/app-error';
import { parseJson } from '../common/request-body';
import type { RrwebEvent } from '../domain/rrweb-event';

export type IngestFormat = 'json' | 'ndjson';

export interface ParsedBatch {
  events: RrwebEvent[];
  /** UTF-8 JSON array text of the events. */
  payload: string;
}

export function formatOf(contentType: string | undefined): IngestFormat {
  const ct = (contentType ?? 'application/json').split(';')[0].trim().toLowerCase();
  if (ct === 'application/x-ndjson' || ct === 'application/ndjson') return 'ndjson';
  if (ct === 'application/json' || ct === 'text/plain' || ct === '') return 'json';
  throw new AppError('unsupported_media_type', 'Content-Type must be application/json, application/x-ndjson or application/ndjson');
}

/**
 * Deepest nesting accepted in an event. Parsing is iterative, but JSON.stringify (event reads,
 * replays, the player page) recurses and overflows the stack a little above 4000 levels, which would
 * make the recording unreadable; rrweb's snapshot of a 500-deep DOM (the HTML parser's limit) needs
 * about 1000 levels.
 */
export const MAX_EVENT_DEPTH = 2000;

/**
 * Walks a parsed JSON value; returns a reason when it nests deeper than `maxDepth` or holds a number
 * JSON cannot carry back (1e400 parses as Infinity, read back as null). Recursive, but never deeper
 * than `maxDepth` + 1 frames (small ones: far below the stack's limit), and it allocates nothing: it
 * runs on every event ingested, where an explicit stack cost more garbage than the parse itself.
 */
export function unstorableValue(root: unknown, maxDepth = MAX_EVENT_DEPTH): string | null {
  return walk(root, 1, maxDepth);
}

function walk(v: unknown, depth: number, maxDepth: number): string | null {
  if (typeof v === 'number') return Number.isFinite(v) ? null : 'holds a number out of range (not finite)';
  if (v === null || typeof v !== 'object') return null;
  if (depth > maxDepth) return `nests deeper than ${maxDepth} levels`;
  if (Array.isArray(v)) {
    for (let i = 0; i < v.length; i++) {
      const why = walk(v[i], depth + 1, maxDepth);
      if (why) return why;
    }
  } else {
    const o = v as Record<string, unknown>;
    for (const k in o) {
      const why = walk(o[k], depth + 1, maxDepth);
      if (why) return why;
    }
  }
  return null;
}

/** Checks one event; returns a reason when it is not a valid rrweb event. */
export function invalidEvent(e: unknown): string | null {
  if (typeof e === 'string') return "is a string, neither an event nor one packed by rrweb's packer (@rrweb/packer)";
  if (!e || typeof e !== 'object' || Array.isArray(e)) return 'is not a JSON object';
  const ev = e as Record<string, unknown>;
  if (!Number.isSafeInteger(ev.type) || (ev.type as number) < 0) return '"type" must be a non-negative integer';
  if (!Number.isSafeInteger(ev.timestamp) || (ev.timestamp as number) < 0) return '"timestamp" must be an integer number of milliseconds';
  if (!ev.data || typeof ev.data !== 'object' || Array.isArray(ev.data)) return '"data" must be an object';
  if (ev.sequenceId !== undefined && (!Number.isSafeInteger(ev.sequenceId) || (ev.sequenceId as number) < 0))
    return '"sequenceId" must be a non-negative integer';
  const why = unstorableValue(ev);
  return why ? `the event ${why}` : null;
}

/** rrweb packer's mark on a packed event (`"v":"v1"`), the only version it has written. */
const PACKER_MARK = 'v1';
/** Unpacked bytes one batch may hold (fixed): packed events inflate about tenfold. */
export const MAX_UNPACKED_BATCH_BYTES = 64 * 1024 * 1024;

/**
 * Events packed by rrweb's packer (`record({ packFn: pack })` from @rrweb/packer, which rrweb's own
 * clients pass through to record()) arrive as strings: the event's JSON with `"v":"v1"` added,
 * zlib-deflated, one character per byte. They are stored unpacked, as rrweb's `unpack` returns them
 * (without the mark), so reads, projections and the player see ordinary events; a string holding an
 * event's JSON is taken too, as `unpack` does. Returns undefined when no event is a string (the
 * batch is stored as sent); a string that is neither stays, and validation names it.
 */
export function unpackEvents(list: unknown[], maxEventBytes: number, where: (i: number) => string): unknown[] | undefined {
  if (!list.some((e) => typeof e === 'string')) return undefined;
  let budget = MAX_UNPACKED_BATCH_BYTES;
  return list.map((e, i) => {
    if (typeof e !== 'string') return e;
    const tooLarge = (at: string) =>
      budget < maxEventBytes
        ? `Packed events of this batch exceed ${MAX_UNPACKED_BATCH_BYTES} bytes unpacked (at ${at}); send smaller batches`
        : `Packed event at ${at} exceeds ${maxEventBytes} bytes unpacked`;
    if (budget <= 0) throw new AppError('payload_too_large', tooLarge(where(i)));
    const unpacked = unpackOne(e, Math.min(maxEventBytes, budget), where(i), tooLarge);
    if (!unpacked) return e;
    budget -= unpacked.bytes;
    return unpacked.event;
  });
}

function unpackOne(s: string, maxBytes: number, at: string, tooLarge: (at: string) => string): { event: Record<string, unknown>; bytes: number } | undefined {
  if (s.startsWith('{')) {
    try {
      const e = JSON.parse(s) as Record<string, unknown>;
      if (e && typeof e === 'object' && e.timestamp !== undefined) return { event: e, bytes: s.length };
    } catch {
      // not JSON: perhaps packed after all
    }
  }
  if (!/^[\x00-\xff]*$/.test(s)) return undefined; // packed strings hold one byte per character
  let json: Buffer;
  try {
    json = inflateSync(Buffer.from(s, 'latin1'), { maxOutputLength: Math.max(1, maxBytes) });
  } catch (err) {
    if ((err as { code?: string }).code === 'ERR_BUFFER_TOO_LARGE') throw new AppError('payload_too_large', tooLarge(at));
    return undefined;
  }
  let e: unknown;
  try {
    e = JSON.parse(json.toString('utf8'));
  } catch {
    return undefined;
  }
  if (!e || typeof e !== 'object' || Array.isArray(e)) return undefined;
  const { v, ...event } = e as Record<string, unknown>;
  if (v === undefined) throw new AppError('bad_request', `Event at ${at} is compressed JSON without rrweb packer's "v":"${PACKER_MARK}" mark`);
  if (v !== PACKER_MARK)
    throw new AppError('bad_request', `Event at ${at} was packed by rrweb packer ${JSON.stringify(v)}; this server unpacks ${PACKER_MARK}`);
  return { event, bytes: json.length };
}

export function validateEvents(list: unknown[], where: (i: number) => string): RrwebEvent[] {
  if (list.length === 0) throw new AppError('bad_request', 'No events: the batch is empty');
  for (let i = 0; i < list.length; i++) {
    const why = invalidEvent(list[i]);
    if (why) throw new AppError('bad_request', `Invalid event at ${where(i)}: ${why}`);
  }
  return list as RrwebEvent[];
}

/**
 * 413 when one event of a JSON array (parsed from `text`) is larger than `maxEventBytes` as compact
 * UTF-8 JSON. Only a body that may be larger than the limit (3 bytes at most per UTF-16 unit) can hold
 * such an event, so ordinary bodies cost nothing here.
 */
export function assertEventSizes(list: unknown[], text: string, maxEventBytes: number, where: (i: number) => string): void {
  if (text.length * 3 <= maxEventBytes) return;
  for (let i = 0; i < list.length; i++) {
    if (Buffer.byteLength(JSON.stringify(list[i])) > maxEventBytes)
      throw new AppError('payload_too_large', `Event at ${where(i)} exceeds ${maxEventBytes} bytes`);
  }
}

/**
 * The events array of `{"events":[…]}` as sent, when it is the object's only key: stored like a bare
 * array, byte for byte (re-serialising turned 12345678901234567890123 into 1.2345678901234568e+22 and
 * 1.0 into 1). Undefined for any other shape, which is then re-serialised.
 */
function wrappedArrayText(text: string, length: number): string | undefined {
  const m = /^\s*\{\s*"events"\s*:/.exec(text);
  const end = text.lastIndexOf('}');
  if (!m || end < 0 || text.slice(end + 1).trim() !== '') return undefined;
  const inner = text.slice(m[0].length, end).trim();
  try {
    const again = JSON.parse(inner) as unknown;
    return Array.isArray(again) && again.length === length ? inner : undefined;
  } catch {
    return undefined; // another key follows: `[…],"x":…` is not one JSON value
  }
}

export function parseEventBatch(text: string, format: IngestFormat, maxEventBytes: number): ParsedBatch {
  if (format === 'ndjson') {
    const lines: string[] = [];
    const lineNos: number[] = [];
    const raw = text.split('\n');
    for (let i = 0; i < raw.length; i++) {
      const line = raw[i].trim();
      if (line === '') continue;
      if (line.length > maxEventBytes) throw new AppError('payload_too_large', `Event on line ${i + 1} exceeds ${maxEventBytes} bytes`);
      lines.push(line);
      lineNos.push(i + 1);
    }
    const parsed = lines.map((l, k) => parseJson(l, `Line ${lineNos[k]}`));
    const at = (k: number) => `line ${lineNos[k]}`;
    return unpacked(parsed, maxEventBytes, at) ?? { events: validateEvents(parsed, at), payload: '[' + lines.join(',') + ']' };
  }
  const body = parseJson(text);
  if (Array.isArray(body)) {
    const at = (i: number) => `index ${i}`;
    assertEventSizes(body, text, maxEventBytes, at);
    return unpacked(body, maxEventBytes, at) ?? { events: validateEvents(body, at), payload: text };
  }
  // rrweb Cloud's guide also shows {"events":[...]}.
  if (body && typeof body === 'object' && Array.isArray((body as { events?: unknown }).events)) {
    const list = (body as { events: unknown[] }).events;
    const at = (i: number) => `events[${i}]`;
    assertEventSizes(list, text, maxEventBytes, at);
    return unpacked(list, maxEventBytes, at) ?? { events: validateEvents(list, at), payload: wrappedArrayText(text, list.length) ?? JSON.stringify(list) };
  }
  throw new AppError('bad_request', 'Body must be a JSON array of events (or NDJSON with one event per line)');
}

/** The batch of a list holding packed events: validated unpacked, and stored re-serialised. */
function unpacked(list: unknown[], maxEventBytes: number, at: (i: number) => string): ParsedBatch | undefined {
  const events = unpackEvents(list, maxEventBytes, at);
  return events && { events: validateEvents(events, at), payload: JSON.stringify(events) };
}
