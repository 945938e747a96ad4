// Turns an ingestion body into validated events and the payload stored for them (a JSON array).
// JSON arrays (and the array of {"events":[…]} when it is the only key) are stored as received (no
// re-serialisation); NDJSON lines are joined into an array.
// Any invalid event rejects the whole body, naming the index (JSON) or line (NDJSON).
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
 * Walks a parsed JSON value without recursion; returns a reason when it nests deeper than
 * `maxDepth` or holds a number JSON cannot carry back (1e400 parses as Infinity, read back as null).
 */
export function unstorableValue(root: unknown, maxDepth = MAX_EVENT_DEPTH): string | null {
  const stack: object[] = [];
  const depths: number[] = [];
  const visit = (v: unknown, depth: number): string | null => {
    if (typeof v === 'number') return Number.isFinite(v) ? null : 'holds a number out of range (not finite)';
    if (v === null || typeof v !== 'object') return null;
    if (depth > maxDepth) return `nests deeper than ${maxDepth} levels`;
    stack.push(v);
    depths.push(depth);
    return null;
  };
  let why = visit(root, 1);
  while (!why && stack.length > 0) {
    const v = stack.pop() as Record<string, unknown> | unknown[];
    const d = depths.pop()! + 1;
    if (Array.isArray(v)) {
      for (let i = 0; i < v.length && !why; i++) why = visit(v[i], d);
    } else {
      for (const k in v) {
        why = visit(v[k], d);
        if (why) break;
      }
    }
  }
  return why;
}

/** Checks one event; returns a reason when it is not a valid rrweb event. */
export function invalidEvent(e: unknown): string | null {
  if (!e || typeof e !== 'object' || Array.isArray(e)) return 'is not a JSON object';
  const ev = e as Record<string, unknown>;
  if (!Number.isSafeInteger(ev.type) || (ev.type as number) < 0) return '"type" must be a non-negative integer';
  if (!Number.isSafeInteger(ev.timestamp) || (ev.timestamp as number) < 0) return '"timestamp" must be an integer number of milliseconds';
  if (!ev.data || typeof ev.data !== 'object' || Array.isArray(ev.data)) return '"data" must be an object';
  if (ev.sequenceId !== undefined && (!Number.isSafeInteger(ev.sequenceId) || (ev.sequenceId as number) < 0)) return '"sequenceId" must be a non-negative integer';
  const why = unstorableValue(ev);
  return why ? `the event ${why}` : null;
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
    if (Buffer.byteLength(JSON.stringify(list[i])) > maxEventBytes) throw new AppError('payload_too_large', `Event at ${where(i)} exceeds ${maxEventBytes} bytes`);
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
    const events = validateEvents(parsed, (k) => `line ${lineNos[k]}`);
    return { events, payload: '[' + lines.join(',') + ']' };
  }
  const body = parseJson(text);
  if (Array.isArray(body)) {
    const at = (i: number) => `index ${i}`;
    assertEventSizes(body, text, maxEventBytes, at);
    return { events: validateEvents(body, at), payload: text };
  }
  // rrweb Cloud's guide also shows {"events":[...]}.
  if (body && typeof body === 'object' && Array.isArray((body as { events?: unknown }).events)) {
    const list = (body as { events: unknown[] }).events;
    const at = (i: number) => `events[${i}]`;
    assertEventSizes(list, text, maxEventBytes, at);
    return { events: validateEvents(list, at), payload: wrappedArrayText(text, list.length) ?? JSON.stringify(list) };
  }
  throw new AppError('bad_request', 'Body must be a JSON array of events (or NDJSON with one event per line)');
}
