import { rawEvents } from './websocket-connection';

describe('rawEvents', () => {
  const events = [{ type: 3, timestamp: 1, data: { events: '"events":[1]}' } }];
  it('slices the events array of a canonical batch frame', () => {
    const text = JSON.stringify({ type: 'batch', batch: 'b-1', events });
    const raw = rawEvents(JSON.parse(text), text);
    expect(raw).not.toBeNull();
    expect(JSON.parse(raw!)).toEqual(events);
  });
  it('refuses frames with other key orders or extra keys', () => {
    const extra = JSON.stringify({ type: 'batch', batch: 'b', events, x: 1 });
    expect(rawEvents(JSON.parse(extra), extra)).toBeNull();
    const order = JSON.stringify({ batch: 'b', type: 'batch', events });
    expect(rawEvents(JSON.parse(order), order)).toBeNull();
    const spaced = JSON.stringify({ type: 'batch', batch: 'b', events }, null, 1);
    expect(rawEvents(JSON.parse(spaced), spaced)).toBeNull();
  });
});
