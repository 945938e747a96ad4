import fc from 'fast-check';
import type { RrwebEvent } from '../domain/rrweb-event';
import { parsedToRaw, splitEvents } from '../infrastructure/nats/raw-events';
import { rawEventsJson, rawEventsJsonArray, withoutOriginalTimestamp, writeNumber } from '../infrastructure/nats/recording-events.json';
import { asReadEvent } from './recording-events.service';

const bytes = (s: string) => Buffer.from(s, 'utf8');

async function readAll(stream: NodeJS.ReadableStream): Promise<string> {
  const parts: Buffer[] = [];
  for await (const c of stream) parts.push(Buffer.from(c as Buffer));
  return Buffer.concat(parts).toString('utf8');
}

describe('writeNumber', () => {
  const written = (v: number) => {
    const buf = Buffer.alloc(40, 0x78);
    const end = writeNumber(buf, 3, v);
    return buf.subarray(3, end).toString('latin1');
  };

  it('writes any number as String() does', () => {
    fc.assert(
      fc.property(fc.oneof(fc.integer({ min: 0, max: Number.MAX_SAFE_INTEGER }), fc.maxSafeInteger(), fc.double()), (v) => expect(written(v)).toBe(String(v))),
    );
    for (const v of [0, -0, 9, 10, 99, 100, 1_700_000_000_000, Number.MAX_SAFE_INTEGER, 2 ** 53, -1, 1.5, 1e21]) expect(written(v)).toBe(String(v));
  });
});

describe('rawEventsJsonArray', () => {
  it('writes what asReadEvent gives for every event, across chunk boundaries, on both paths', async () => {
    const events: RrwebEvent[] = Array.from({ length: 3000 }, (_, i) => ({
      type: 3,
      timestamp: 1000 + i,
      data: { text: 'x'.repeat(i % 97), n: i },
      ...(i % 2 ? { sequenceId: i } : {}),
    }));
    events.push({ type: 2, timestamp: 5000, data: { big: 'y'.repeat(200_000) } });
    const payload = bytes(JSON.stringify(events));
    for (const runs of [[splitEvents(payload)!], [parsedToRaw(payload)]]) {
      const text = await readAll(
        rawEventsJsonArray(
          (async function* () {
            yield* runs;
          })(),
        ),
      );
      expect(JSON.parse(text)).toEqual(events.map(asReadEvent));
    }
    expect(await readAll(rawEventsJsonArray((async function* () {})()))).toBe('[]');
  });
});

describe('withoutOriginalTimestamp', () => {
  it('gives back the stored event a response event was written from', () => {
    fc.assert(
      fc.property(fc.integer({ min: -1e15, max: 1e15 }), fc.jsonValue(), (timestamp, data) => {
        const stored = bytes(JSON.stringify({ type: 3, timestamp, data: { originalTimestamp: 1, data } }));
        const [e] = splitEvents(bytes(`[${stored.toString()}]`)) ?? [];
        expect(withoutOriginalTimestamp(rawEventsJson([e]).subarray(1, -1)).equals(stored)).toBe(true);
      }),
    );
    expect(() => withoutOriginalTimestamp(bytes('{"type":3,"timestamp":1}'))).toThrow();
  });
});
