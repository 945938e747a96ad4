import { summarizeRecording, viewportAt } from './recording-summary';

describe('summarizeRecording', () => {
  it('finds the range, the viewports and the full snapshot, in any order', () => {
    const s = summarizeRecording([
      { type: 3, timestamp: 300, data: {} },
      { type: 4, timestamp: 200, data: { width: 400, height: 300 } },
      { type: 4, timestamp: 100, data: { href: 'x', width: 800, height: 600 } },
      { type: 2, timestamp: 201, data: {} },
      { type: 2, timestamp: 101, data: {} },
      { type: 3, timestamp: 250, data: { source: 4, width: 390, height: 844 } },
      { type: 3, timestamp: 260, data: { source: 5, width: 1, height: 1 } },
    ]);
    expect(s).toEqual({
      firstTs: 100,
      lastTs: 300,
      eventCount: 7,
      viewport: { width: 800, height: 600 },
      viewports: [
        { timestamp: 100, width: 800, height: 600 },
        // A later page view's size from its snapshot on: until then the previous page is shown.
        { timestamp: 201, width: 400, height: 300 },
        { timestamp: 250, width: 390, height: 844 },
      ],
      firstSnapshotTs: 101,
      // The first page view ends with the Meta at 200, before any change: its snapshot.
      posterTs: 101,
    });
  });

  it('sizes a later page view from its snapshot, or from its Meta when no snapshot follows', () => {
    const s = summarizeRecording([
      { type: 4, timestamp: 100, data: { width: 800, height: 600 } },
      { type: 2, timestamp: 130, data: {} },
      { type: 4, timestamp: 1000, data: { width: 1000, height: 700 } },
      { type: 2, timestamp: 1050, data: {} },
      { type: 4, timestamp: 2000, data: { width: 500, height: 500 } },
      { type: 4, timestamp: 3000, data: { width: 600, height: 600 } },
      { type: 3, timestamp: 3001, data: {} },
    ]);
    expect(s.viewports).toEqual([
      { timestamp: 100, width: 800, height: 600 },
      { timestamp: 1050, width: 1000, height: 700 },
      { timestamp: 2000, width: 500, height: 500 },
      { timestamp: 3000, width: 600, height: 600 },
    ]);
    expect(viewportAt(s, 1020)).toEqual({ width: 800, height: 600 });
    expect(viewportAt(s, 1050)).toEqual({ width: 1000, height: 700 });
    // "Later" counts from the first Meta event, sized or not, as the replay's fix does.
    const unsized = summarizeRecording([
      { type: 4, timestamp: 100, data: {} },
      { type: 2, timestamp: 130, data: {} },
      { type: 4, timestamp: 1000, data: { width: 1000, height: 700 } },
      { type: 2, timestamp: 1050, data: {} },
    ]);
    expect(unsized.viewports).toEqual([{ timestamp: 1050, width: 1000, height: 700 }]);
  });

  it("names the viewport of a moment: the last change at or before it, else the first Meta event's", () => {
    const s = summarizeRecording([
      { type: 4, timestamp: 100, data: { width: 800, height: 600 } },
      { type: 2, timestamp: 101, data: {} },
      { type: 3, timestamp: 250, data: { source: 4, width: 390, height: 844 } },
    ]);
    expect(viewportAt(s, 50)).toEqual({ width: 800, height: 600 });
    expect(viewportAt(s, 249)).toEqual({ width: 800, height: 600 });
    expect(viewportAt(s, 250)).toEqual({ width: 390, height: 844 });
    expect(viewportAt(summarizeRecording([{ type: 3, timestamp: 1, data: {} }]), 1)).toBeUndefined();
  });

  it('does not take a later window resize for the window before it: only a Meta event names that', () => {
    const resizedOnly = summarizeRecording([
      { type: 2, timestamp: 10, data: {} },
      { type: 3, timestamp: 2000, data: { source: 4, width: 800, height: 800 } },
    ]);
    expect(resizedOnly.viewport).toBeUndefined();
    expect(viewportAt(resizedOnly, 10)).toBeUndefined();
    expect(viewportAt(resizedOnly, 2000)).toEqual({ width: 800, height: 800 });
    const resizedBeforeMeta = summarizeRecording([
      { type: 3, timestamp: 5, data: { source: 4, width: 390, height: 844 } },
      { type: 4, timestamp: 6, data: { width: 1024, height: 768 } },
    ]);
    expect(resizedBeforeMeta.viewport).toEqual({ width: 1024, height: 768 });
    expect(viewportAt(resizedBeforeMeta, 5)).toEqual({ width: 390, height: 844 });
  });

  it('ignores a Meta event without a usable size', () => {
    const s = summarizeRecording([
      { type: 4, timestamp: 1, data: { width: '800', height: 600 } },
      { type: 3, timestamp: 2, data: {} },
    ]);
    expect(s.viewport).toBeUndefined();
    expect(s.firstSnapshotTs).toBeUndefined();
  });

  it('handles an empty recording', () => {
    expect(summarizeRecording([])).toEqual({ firstTs: 0, lastTs: 0, eventCount: 0, viewport: undefined, viewports: [], firstSnapshotTs: undefined });
  });
});
