import { summarizeRecording } from './recording-summary';

describe('summarizeRecording', () => {
  it('finds the range, the first viewport and the full snapshot, in any order', () => {
    const s = summarizeRecording([
      { type: 3, timestamp: 300, data: {} },
      { type: 4, timestamp: 100, data: { href: 'x', width: 800, height: 600 } },
      { type: 2, timestamp: 201, data: {} },
      { type: 2, timestamp: 101, data: {} },
      { type: 4, timestamp: 200, data: { width: 400, height: 300 } },
    ]);
    expect(s).toEqual({ firstTs: 100, lastTs: 300, eventCount: 5, viewport: { width: 800, height: 600 }, firstSnapshotTs: 101 });
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
    expect(summarizeRecording([])).toEqual({ firstTs: 0, lastTs: 0, eventCount: 0, viewport: undefined, firstSnapshotTs: undefined });
  });
});
