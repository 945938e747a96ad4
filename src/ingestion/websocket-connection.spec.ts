import { canonicalBatch } from './websocket-connection';

describe('canonicalBatch', () => {
  const events = [{ type: 3, timestamp: 1, data: { events: '"events":[1]}' } }];
  const good = JSON.stringify(events);
  it('reads the events array of a canonical batch frame as written', () => {
    const text = JSON.stringify({ type: 'batch', batch: 'b-1', events });
    expect(canonicalBatch(text)).toEqual({ frame: { type: 'batch', batch: 'b-1', events }, payload: good });
  });
  it('leaves frames with other key orders, extra keys or spacing to the general path', () => {
    for (const frame of [
      { type: 'batch', batch: 'b', events, x: 1 },
      { batch: 'b', type: 'batch', events },
    ]) {
      expect(canonicalBatch(JSON.stringify(frame))).toBeNull();
    }
    expect(canonicalBatch(JSON.stringify({ type: 'batch', batch: 'b', events }, null, 1))).toBeNull();
  });
  it.each([
    ['events', `{"type":"batch","batch":"b","events":[{"type":"x","timestamp":"y","data":null}],"events":${good}}`],
    ['batch', `{"type":"batch","batch":"b","events":${good},"batch":"c"}`],
    ['type', `{"type":"batch","batch":"b","events":${good},"type":"batch"}`],
  ])('never takes a slice holding a repeated %s key for the events array', (_key, text) => {
    // JSON.parse keeps a repeated key's last value: the slice after the first "events": is not what
    // the frame means, and not even one JSON value.
    expect(canonicalBatch(text)).toBeNull();
  });
});
