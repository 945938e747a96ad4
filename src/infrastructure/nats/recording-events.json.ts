// The GET …/events body written from raw events (event-store readRaw): each event's stored JSON
// object with `"originalTimestamp":<timestamp>` added as its last key (asReadEvent's result, without
// decoding the event), as one JSON array in chunks of about 128 KiB, pulled as the client reads.
// Per event: one copy of its bytes, the key and the digits written in place (no strings made).
import { Readable } from 'node:stream';
import type { RawEvent } from '../../domain/event-store';

const CHUNK = 128 * 1024;
const SUFFIX = Buffer.from(',"originalTimestamp":', 'latin1');
const CLOSE_BRACE = Buffer.from('}');
/** Room for a safe integer's digits and sign. */
const MAX_DIGITS = 17;

/** Writes `v` as String(v) would (digits in place for non-negative safe integers); returns the end. */
export function writeNumber(buf: Buffer, pos: number, v: number): number {
  if (!Number.isSafeInteger(v) || v < 0) return pos + buf.write(String(v), pos, 'latin1');
  let digits = 1;
  for (let p = 10; p <= v; p *= 10) digits++;
  const end = pos + digits;
  let i = end;
  do {
    const q = Math.floor(v / 10);
    buf[--i] = 0x30 + (v - q * 10);
    v = q;
  } while (v > 0);
  return end;
}

/** Room `e` needs after a comma: the event, the suffix and the digits. */
function roomFor(e: RawEvent): number {
  return 1 + e.json.length + SUFFIX.length + (Number.isSafeInteger(e.timestamp) ? MAX_DIGITS : String(e.timestamp).length);
}

/** Writes `e` (after a comma unless first) with its originalTimestamp at `pos`; returns the end. Needs roomFor(e). */
function writeEvent(buf: Buffer, pos: number, e: RawEvent, first: boolean): number {
  const json = e.json;
  if (!first) buf[pos++] = 0x2c; // ,
  buf.set(json, pos);
  pos += json.length - 1; // over the closing brace
  for (let s = 0; s < SUFFIX.length; s++) buf[pos + s] = SUFFIX[s];
  pos = writeNumber(buf, pos + SUFFIX.length, e.timestamp);
  buf[pos++] = 0x7d; // }
  return pos;
}

/**
 * writeEvent's inverse: the stored event a response event was written from (its bytes without the
 * `originalTimestamp` key writeEvent added last); throws when `e` does not end with that key.
 */
export function withoutOriginalTimestamp(e: Uint8Array): Buffer {
  let i = e.length - 2; // before the closing brace
  while (i >= 0 && ((e[i] >= 0x30 && e[i] <= 0x39) || e[i] === 0x2d)) i--;
  const start = i + 1 - SUFFIX.length;
  if (e[e.length - 1] !== 0x7d || start < 1 || !SUFFIX.equals(e.subarray(start, i + 1))) throw new Error('not an event of a response');
  return Buffer.concat([e.subarray(0, start), CLOSE_BRACE]);
}

/** A few events as one JSON array in one buffer (the live feed's batches). */
export function rawEventsJson(events: readonly RawEvent[]): Buffer {
  let room = 2;
  for (const e of events) room += roomFor(e);
  const buf = Buffer.allocUnsafe(room);
  let pos = 0;
  buf[pos++] = 0x5b; // [
  for (let k = 0; k < events.length; k++) pos = writeEvent(buf, pos, events[k], k === 0);
  buf[pos++] = 0x5d; // ]
  return buf.subarray(0, pos);
}

export function rawEventsJsonArray(runs: AsyncIterable<RawEvent[]>): Readable {
  async function* gen() {
    let buf = Buffer.allocUnsafe(CHUNK);
    let pos = 0;
    let first = true;
    buf[pos++] = 0x5b; // [
    for await (const run of runs) {
      for (let k = 0; k < run.length; k++) {
        const e = run[k];
        const need = roomFor(e);
        if (pos + need > buf.length) {
          if (pos > 0) yield buf.subarray(0, pos);
          buf = Buffer.allocUnsafe(Math.max(CHUNK, need));
          pos = 0;
        }
        pos = writeEvent(buf, pos, e, first);
        first = false;
      }
    }
    if (pos + 1 > buf.length) {
      yield buf.subarray(0, pos);
      buf = Buffer.allocUnsafe(1);
      pos = 0;
    }
    buf[pos++] = 0x5d; // ]
    yield buf.subarray(0, pos);
  }
  return Readable.from(gen(), { objectMode: false, highWaterMark: 256 * 1024 });
}
