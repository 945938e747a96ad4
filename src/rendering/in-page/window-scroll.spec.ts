import { windowScrollAt } from './window-scroll';

const snapshot = (timestamp: number, top: number, id = 1) => ({ type: 2, timestamp, data: { node: { id }, initialOffset: { left: 0, top } } });
const scroll = (timestamp: number, id: number, y: number) => ({ type: 3, timestamp, data: { source: 3, id, x: 0, y } });

describe('windowScrollAt', () => {
  const events = [{ type: 4, timestamp: 0 }, snapshot(1, 0), scroll(10, 1, 100), scroll(20, 7, 999), snapshot(30, 260, 1), scroll(40, 1, 50)];

  it("follows the snapshot's initial offset and its document's scroll events, strictly before the cutoff", () => {
    expect(windowScrollAt(events, 1)).toBeUndefined();
    expect(windowScrollAt(events, 2)).toEqual({ left: 0, top: 0 });
    expect(windowScrollAt(events, 10)).toEqual({ left: 0, top: 0 });
    expect(windowScrollAt(events, 11)).toEqual({ left: 0, top: 100 });
    expect(windowScrollAt(events, 25)).toEqual({ left: 0, top: 100 }); // an element's scroll (id 7) is not the window's
    expect(windowScrollAt(events, 31)).toEqual({ left: 0, top: 260 }); // a later snapshot's own offset
    expect(windowScrollAt(events, 41)).toEqual({ left: 0, top: 50 });
  });

  it('knows nothing before a full snapshot', () => {
    expect(windowScrollAt([{ type: 4, timestamp: 0 }, scroll(5, 1, 10)], 100)).toBeUndefined();
  });
});
