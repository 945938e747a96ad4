// The GET …/events body written from raw events (event-store readRaw): each event's stored JSON
// object with `"originalTimestamp":<timestamp>` added as its last key (asReadEvent's result, without
// decoding the event), as one JSON array in chunks of about 64 KiB, pulled as the client reads.
import { Readable } from 'node:stream';
import type { RawEvent } from '../infrastructure/nats/raw-events';

const CHUNK = 64 * 1024;
const SUFFIX = ',"originalTimestamp":';

export function rawEventsJsonArray(runs: AsyncIterable<RawEvent[]>): Readable {
  async function* gen() {
    let buf = Buffer.allocUnsafe(CHUNK);
    let pos = 0;
    let first = true;
    buf[pos++] = 0x5b; // [
    for await (const run of runs) {
      for (const e of run) {
        const ts = String(e.timestamp);
        const need = 1 + e.json.length - 1 + SUFFIX.length + ts.length + 1;
        if (pos + need > buf.length) {
          if (pos > 0) yield buf.subarray(0, pos);
          buf = Buffer.allocUnsafe(Math.max(CHUNK, need));
          pos = 0;
        }
        if (!first) buf[pos++] = 0x2c; // ,
        first = false;
        buf.set(e.json.subarray(0, e.json.length - 1), pos);
        pos += e.json.length - 1;
        pos += buf.write(SUFFIX, pos, 'latin1');
        pos += buf.write(ts, pos, 'latin1');
        buf[pos++] = 0x7d; // }
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
