import { pack } from '@rrweb/packer/pack';
import { unpack } from '@rrweb/packer/unpack';
import { deflateSync } from 'node:zlib';
import { assertEventSizes, invalidEvent, MAX_EVENT_DEPTH, parseEventBatch, unstorableValue } from './event-batch.parser';

const nested = (depth: number) => {
  let v: unknown = {};
  for (let i = 1; i < depth; i++) v = { a: v };
  return v;
};

describe('unstorableValue', () => {
  it('accepts values up to the depth bound and refuses deeper ones, without recursion', () => {
    expect(unstorableValue(nested(MAX_EVENT_DEPTH))).toBeNull();
    expect(unstorableValue(nested(MAX_EVENT_DEPTH + 1))).toMatch(/deeper than/);
    expect(unstorableValue(nested(200_000))).toMatch(/deeper than/);
    expect(unstorableValue([[[[1]]]], 4)).toBeNull();
    expect(unstorableValue([[[[1]]]], 3)).toMatch(/deeper than 3/);
  });

  it('refuses non-finite numbers anywhere (JSON 1e400 parses as Infinity)', () => {
    expect(unstorableValue(JSON.parse('{"a":[1,{"b":1e400}]}'))).toMatch(/not finite/);
    expect(unstorableValue(JSON.parse('{"a":18446744073709551616,"b":-0}'))).toBeNull();
  });

  it('walks "__proto__" keys as ordinary data', () => {
    expect(unstorableValue(JSON.parse('{"__proto__":{"x":1e400}}'))).toMatch(/not finite/);
  });
});

describe('invalidEvent and parseEventBatch', () => {
  it('names the reason for a too-deep event', () => {
    expect(invalidEvent({ type: 3, timestamp: 1, data: nested(MAX_EVENT_DEPTH + 5) })).toMatch(/the event nests deeper than/);
    expect(invalidEvent({ type: 3, timestamp: 1, data: nested(100) })).toBeNull();
  });

  it('refuses a deep or non-finite event in a batch with the index', () => {
    const deep = `[{"type":3,"timestamp":1,"data":{}},{"type":3,"timestamp":1,"data":${'['.repeat(5000)}${']'.repeat(5000)}}]`;
    expect(() => parseEventBatch(deep, 'json', 1 << 20)).toThrow(/index 1/);
    expect(() => parseEventBatch('{"type":3,"timestamp":1,"data":{"x":-1e999}}', 'ndjson', 1 << 20)).toThrow(/line 1.*not finite/);
  });

  it('refuses an event larger than the per-event limit in a JSON array or {events}, naming it, with 413', () => {
    const small = { type: 3, timestamp: 1, data: { x: 'a'.repeat(100) } };
    const big = { type: 2, timestamp: 2, data: { x: 'é'.repeat(600) } }; // 1200 bytes, 600 UTF-16 units
    expect(() => parseEventBatch(JSON.stringify([small, big]), 'json', 1100)).toThrow(
      expect.objectContaining({ code: 'payload_too_large', message: expect.stringMatching(/index 1 exceeds 1100 bytes/) }),
    );
    expect(() => parseEventBatch(JSON.stringify({ events: [big] }), 'json', 1100)).toThrow(/events\[0\] exceeds/);
    expect(parseEventBatch(JSON.stringify([small, big]), 'json', 1300).events).toHaveLength(2);
    expect(() => assertEventSizes([big], 'x'.repeat(10), 1100, String)).not.toThrow(); // a body that cannot hold one
  });

  it('stores the array of {"events":[…]} as sent when it is the only key, else re-serialised', () => {
    const inner = '[{"type":3,"timestamp":1,"data":{"n":12345678901234567890123,"f":1.0}} ,\n {"type":3,"timestamp":2,"data":{}}]';
    expect(parseEventBatch(` { "events" : ${inner} } \n`, 'json', 1 << 20).payload).toBe(inner);
    const withOther = parseEventBatch(`{"events":${inner},"x":"}"}`, 'json', 1 << 20);
    expect(withOther.payload).toBe(JSON.stringify(withOther.events));
    const twice = parseEventBatch(`{"events":[],"events":${inner}}`, 'json', 1 << 20);
    expect([twice.events.length, twice.payload]).toEqual([2, JSON.stringify(twice.events)]);
    expect(parseEventBatch(`{"x":1,"events":${inner}}`, 'json', 1 << 20).payload).toBe(JSON.stringify(JSON.parse(inner)));
  });
});

describe('events packed by rrweb packer (record({ packFn: pack }))', () => {
  const events = [
    { type: 4, timestamp: 1_000, data: { href: 'https://example.test/ünï', width: 800, height: 600 } },
    { type: 3, timestamp: 1_001, data: { source: 1, positions: [{ x: 1, y: 2, id: 3, timeOffset: 0 }] } },
  ];
  const MAX = 1024 * 1024;

  it('stores them unpacked, from NDJSON (the official client), a JSON array and an {events} body', () => {
    const packed = events.map((e) => pack(e as never));
    for (const [text, format] of [
      [packed.map((p) => JSON.stringify(p)).join('\n'), 'ndjson'],
      [JSON.stringify(packed), 'json'],
      [JSON.stringify({ events: packed }), 'json'],
    ] as const) {
      const batch = parseEventBatch(text, format, MAX);
      expect(batch.events).toEqual(events);
      expect(JSON.parse(batch.payload)).toEqual(events);
      // What rrweb's own unpack gives, less its mark.
      expect(
        packed.map((p) => {
          const { v: _, ...e } = unpack(p) as unknown as Record<string, unknown>;
          return e;
        }),
      ).toEqual(events);
    }
  });

  it('takes a mix of packed, plain and JSON-string events, as rrweb unpack does', () => {
    const batch = parseEventBatch(JSON.stringify([pack(events[0] as never), events[1], JSON.stringify(events[1])]), 'json', MAX);
    expect(batch.events).toEqual([events[0], events[1], events[1]]);
  });

  it('refuses a string that is neither, another packer version, and an event that unpacks above the limit', () => {
    expect(() => parseEventBatch('["hello"]', 'json', MAX)).toThrow(/Invalid event at index 0: is a string, neither an event nor one packed by rrweb's packer/);
    const other = deflateSync(Buffer.from(JSON.stringify({ ...events[0], v: 'v9' }))).toString('latin1');
    expect(() => parseEventBatch(JSON.stringify([other]), 'json', MAX)).toThrow(/packed by rrweb packer "v9"; this server unpacks v1/);
    const big = pack({ type: 3, timestamp: 1, data: { pad: 'x'.repeat(MAX) } } as never);
    expect(big.length).toBeLessThan(MAX / 100);
    expect(() => parseEventBatch(JSON.stringify([big]), 'json', MAX)).toThrow(
      expect.objectContaining({ code: 'payload_too_large', message: `Packed event at index 0 exceeds ${MAX} bytes unpacked` }),
    );
    const unmarked = deflateSync(Buffer.from(JSON.stringify(events[0]))).toString('latin1');
    expect(() => parseEventBatch(JSON.stringify([unmarked]), 'json', MAX)).toThrow('Event at index 0 is compressed JSON without rrweb packer\'s "v":"v1" mark');
  });

  it('bounds what one batch unpacks to, naming the batch', () => {
    const MiB = 1024 * 1024;
    const four = pack({ type: 3, timestamp: 1, data: { pad: 'x'.repeat(4 * MiB) } } as never);
    const many = JSON.stringify(Array.from({ length: 17 }, () => four));
    expect(() => parseEventBatch(many, 'json', 32 * MiB)).toThrow(
      expect.objectContaining({
        code: 'payload_too_large',
        message: expect.stringMatching(/^Packed events of this batch exceed 67108864 bytes unpacked \(at index 1[56]\)/),
      }),
    );
  });
});
