import fc from 'fast-check';
import { listSpans, rawEvents, splitEvents } from './raw-events';

const bytes = (s: string) => Buffer.from(s, 'utf8');
const decoded = (e: { json: Uint8Array }) => JSON.parse(Buffer.from(e.json).toString('utf8'));

const event = fc.record(
  {
    type: fc.integer({ min: 0, max: 6 }),
    timestamp: fc.integer({ min: 0, max: Number.MAX_SAFE_INTEGER }),
    data: fc.dictionary(fc.string(), fc.jsonValue({ maxDepth: 3 })),
    sequenceId: fc.integer({ min: 0, max: 1e9 }),
    extra: fc.oneof(fc.string(), fc.constant('say "hi" \\ {[')),
  },
  { requiredKeys: ['type', 'timestamp', 'data'] },
);

describe('splitEvents', () => {
  it('gives each event of any batch as its own JSON, with timestamp and sequenceId, compact or indented', () => {
    fc.assert(
      fc.property(fc.array(event, { maxLength: 20 }), fc.boolean(), (events, indent) => {
        const split = splitEvents(bytes(JSON.stringify(events, null, indent ? 2 : undefined)));
        expect(split).not.toBeNull();
        const stored = JSON.parse(JSON.stringify(events)) as typeof events;
        const expected = stored.filter((e) => !(e.type === 5 && typeof e.data.tag === 'string' && ['recording-meta', 'pageview-meta'].includes(e.data.tag)));
        expect(split!.map(decoded)).toEqual(expected);
        expect(split!.map((e) => e.timestamp)).toEqual(expected.map((e) => e.timestamp));
        expect(split!.map((e) => e.sequenceId)).toEqual(expected.map((e) => e.sequenceId));
      }),
    );
  });

  it('leaves out metadata events and keeps other custom events', () => {
    const events = [
      { type: 5, timestamp: 1, data: { tag: 'recording-meta', payload: { a: '1' } } },
      { type: 5, timestamp: 2, data: { tag: 'click', payload: {} } },
      { type: 3, timestamp: 3, data: {} },
    ];
    expect(splitEvents(bytes(JSON.stringify(events)))!.map(decoded)).toEqual(events.slice(1));
  });

  it('reads escaped and repeated keys as JSON.parse does (the last one wins)', () => {
    const split = splitEvents(bytes('[{"type":3,"\\u0074imestamp":5,"timestamp":7,"data":{"timestamp":1}}]'));
    expect(split!.map((e) => e.timestamp)).toEqual([7]);
  });

  it('hands payloads it cannot read safely to the JSON.parse path', () => {
    expect(splitEvents(bytes('[{"type":3,"timestamp":1,"data":{},"originalTimestamp":9}]'))).toBeNull();
    expect(splitEvents(bytes('[{"type":3,"timestamp":"1","data":{}}]'))).toBeNull();
    expect(splitEvents(bytes('[{"type":3,"timestamp":1,"data":{}}'))).toBeNull();
    expect(splitEvents(bytes('{"events":[]}'))).toBeNull();
    const raw = rawEvents(bytes('[{"type":3,"timestamp":1,"data":{},"originalTimestamp":9}]'));
    expect(raw.map(decoded)).toEqual([{ type: 3, timestamp: 1, data: {} }]);
  });
});

describe('listSpans', () => {
  const spans = (s: string) => listSpans(Buffer.from(s))?.map(([a, b]) => s.slice(a, b));

  it('finds each value of a comma-separated list, nested commas and brackets inside strings included', () => {
    expect(spans('{"a":[1,2]},{"b":"x,}]"} , 3,"s"')).toEqual(['{"a":[1,2]}', '{"b":"x,}]"}', '3', '"s"']);
    expect(spans('')).toEqual([]);
  });

  it('refuses what is not such a list', () => {
    for (const s of ['{"a":1},', '{"a":1} {"b":2}', '{"a":1', ',1']) expect(listSpans(Buffer.from(s))).toBeNull();
  });
});
