// Splits a stored batch (a JSON array of events) into the bytes of each event without decoding it:
// reads only the top-level `timestamp`, `type` and `sequenceId` of each event. JSON.parse and
// JSON.stringify of every event capped event reads near 40 MB/s; this keeps them near memory speed.
// Custom events (type 5) are decoded to tell metadata events apart; anything unexpected (an
// `originalTimestamp` key, a malformed payload) makes the caller fall back to JSON.parse.
import { isMetadataEvent } from '../../domain/batch-summary';
import type { RawEvent } from '../../domain/event-store';
import type { RrwebEvent } from '../../domain/rrweb-event';

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN_OBJ = 0x7b;
const CLOSE_OBJ = 0x7d;
const OPEN_ARR = 0x5b;
const CLOSE_ARR = 0x5d;
const COMMA = 0x2c;
const COLON = 0x3a;

class Malformed extends Error {}

const isWs = (c: number) => c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09;

/** Byte classes for the container walk: 0 plain, 1 quote, 2 open, 3 close. */
const CLASS = new Uint8Array(256);
CLASS[QUOTE] = 1;
CLASS[OPEN_OBJ] = CLASS[OPEN_ARR] = 2;
CLASS[CLOSE_OBJ] = CLASS[CLOSE_ARR] = 3;

function skipWs(b: Uint8Array, i: number): number {
  while (i < b.length && isWs(b[i])) i++;
  return i;
}

/** Index just past the string that opens at `i` (b[i] is a quote). */
function skipString(b: Uint8Array, i: number): number {
  const n = b.length;
  for (let j = i + 1; j < n; j++) {
    const c = b[j];
    if (c === QUOTE) return j + 1;
    if (c === BACKSLASH) j++;
  }
  throw new Malformed();
}

/** Index just past the JSON value that starts at `i`. */
function skipValue(b: Uint8Array, i: number): number {
  const c = b[i];
  if (c === QUOTE) return skipString(b, i);
  if (c === OPEN_OBJ || c === OPEN_ARR) {
    let depth = 0;
    const n = b.length;
    for (let j = i; j < n; j++) {
      const k = CLASS[b[j]];
      if (k === 0) continue;
      if (k === 1) j = skipString(b, j) - 1;
      else if (k === 2) depth++;
      else if (--depth === 0) return j + 1;
    }
    throw new Malformed();
  }
  let j = i;
  while (j < b.length && b[j] !== COMMA && b[j] !== CLOSE_OBJ && b[j] !== CLOSE_ARR && !isWs(b[j])) j++;
  if (j === i) throw new Malformed();
  return j;
}

const utf8 = (b: Uint8Array, from: number, to: number) => Buffer.from(b.buffer, b.byteOffset + from, to - from).toString('utf8');

const KEYS = ['timestamp', 'type', 'sequenceId', 'originalTimestamp'] as const;
type Key = (typeof KEYS)[number];
const KEY_BYTES = KEYS.map((k) => Buffer.from(k, 'latin1'));

/** Which wanted key the string spanning [from, to) (quotes included) names, if any. */
function keyAt(b: Uint8Array, from: number, to: number): Key | undefined {
  const len = to - from - 2;
  let escaped = false;
  for (let j = from + 1; j < to - 1; j++) if (b[j] === BACKSLASH) escaped = true;
  if (escaped) {
    const k = JSON.parse(utf8(b, from, to)) as string;
    return (KEYS as readonly string[]).includes(k) ? (k as Key) : undefined;
  }
  outer: for (let w = 0; w < KEY_BYTES.length; w++) {
    const kb = KEY_BYTES[w];
    if (kb.length !== len) continue;
    for (let j = 0; j < len; j++) if (b[from + 1 + j] !== kb[j]) continue outer;
    return KEYS[w];
  }
  return undefined;
}

/** A JSON number; NaN for anything else. Plain digits are read without making a string. */
function numberAt(b: Uint8Array, from: number, to: number): number {
  let v = 0;
  for (let j = from; j < to; j++) {
    const d = b[j] - 0x30;
    if (d < 0 || d > 9) return Number(Buffer.from(b.buffer, b.byteOffset + from, to - from).toString('latin1'));
    v = v * 10 + d;
  }
  return to - from > 15 ? Number(Buffer.from(b.buffer, b.byteOffset + from, to - from).toString('latin1')) : v;
}

/**
 * The events of a stored batch, metadata events left out, in stored order; null when the payload
 * needs the JSON.parse path (see `parsedToRaw`).
 */
export function splitEvents(payload: Uint8Array): RawEvent[] | null {
  try {
    return split(payload);
  } catch (e) {
    if (e instanceof Malformed) return null;
    throw e;
  }
}

function split(b: Uint8Array): RawEvent[] | null {
  const out: RawEvent[] = [];
  let i = skipWs(b, 0);
  if (b[i] !== OPEN_ARR) throw new Malformed();
  i = skipWs(b, i + 1);
  if (b[i] === CLOSE_ARR) return skipWs(b, i + 1) === b.length ? out : null;
  for (;;) {
    if (b[i] !== OPEN_OBJ) throw new Malformed();
    const start = i;
    let timestamp = NaN;
    let type = NaN;
    let sequenceId: number | undefined;
    i = skipWs(b, i + 1);
    if (b[i] !== CLOSE_OBJ) {
      for (;;) {
        if (b[i] !== QUOTE) throw new Malformed();
        const keyEnd = skipString(b, i);
        const key = keyAt(b, i, keyEnd);
        i = skipWs(b, keyEnd);
        if (b[i] !== COLON) throw new Malformed();
        i = skipWs(b, i + 1);
        const valueEnd = skipValue(b, i);
        if (key !== undefined) {
          if (key === 'originalTimestamp') return null;
          const v = b[i] === QUOTE || b[i] === OPEN_OBJ || b[i] === OPEN_ARR ? NaN : numberAt(b, i, valueEnd);
          if (key === 'timestamp') timestamp = v;
          else if (key === 'type') type = v;
          else sequenceId = v;
        }
        i = skipWs(b, valueEnd);
        if (b[i] === COMMA) {
          i = skipWs(b, i + 1);
          continue;
        }
        if (b[i] === CLOSE_OBJ) break;
        throw new Malformed();
      }
    }
    const end = i + 1;
    if (!Number.isSafeInteger(timestamp) || !Number.isSafeInteger(type)) return null;
    if (sequenceId !== undefined && !Number.isFinite(sequenceId)) return null;
    const json = b.subarray(start, end);
    const metadata = type === 5 && isMetadataEvent(JSON.parse(utf8(json, 0, json.length)) as RrwebEvent);
    if (!metadata) out.push(sequenceId === undefined ? { timestamp, type, json } : { timestamp, type, sequenceId, json });
    i = skipWs(b, end);
    if (b[i] === COMMA) {
      i = skipWs(b, i + 1);
      continue;
    }
    if (b[i] === CLOSE_ARR) return skipWs(b, i + 1) === b.length ? out : null;
    throw new Malformed();
  }
}

/**
 * Where each value of a comma-separated list (a JSON array's items, without its brackets) starts and
 * ends; null when the bytes are not such a list. Archives rebuild stored batches with it.
 */
export function listSpans(list: Uint8Array): [number, number][] | null {
  const out: [number, number][] = [];
  try {
    let i = skipWs(list, 0);
    if (i === list.length) return out;
    for (;;) {
      const end = skipValue(list, i);
      out.push([i, end]);
      i = skipWs(list, end);
      if (i === list.length) return out;
      if (list[i] !== COMMA) return null;
      i = skipWs(list, i + 1);
    }
  } catch (e) {
    if (e instanceof Malformed) return null;
    throw e;
  }
}

/** The JSON.parse path: the same result for any payload (an `originalTimestamp` key is replaced). */
export function parsedToRaw(payload: Uint8Array): RawEvent[] {
  const events = JSON.parse(Buffer.from(payload.buffer, payload.byteOffset, payload.length).toString('utf8')) as RrwebEvent[];
  const out: RawEvent[] = [];
  for (const e of events) {
    if (isMetadataEvent(e)) continue;
    const { originalTimestamp: _replaced, ...rest } = e;
    const json = Buffer.from(JSON.stringify(rest), 'utf8');
    const { timestamp, type } = e;
    out.push(typeof e.sequenceId === 'number' ? { timestamp, type, sequenceId: e.sequenceId, json } : { timestamp, type, json });
  }
  return out;
}

/** splitEvents, else the JSON.parse path. */
export function rawEvents(payload: Uint8Array): RawEvent[] {
  return splitEvents(payload) ?? parsedToRaw(payload);
}
