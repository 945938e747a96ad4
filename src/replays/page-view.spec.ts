// splitPageViews: where each page view of a recording starts (a FullSnapshot and the page-load and Meta events right before it).
import { splitPageViews } from './page-view';
import { CUSTOM, DCL, FS, INC, LOAD, META, rec } from './testing/replay-source.fake';

describe('page views', () => {
  it('start at a FullSnapshot, with the Meta events right before it', () => {
    const events = rec('r', [
      [META, 1],
      [FS, 1],
      [INC, 2],
      [CUSTOM, 3],
      [META, 4],
      [CUSTOM, 5],
      [META, 6],
      [FS, 6],
      [INC, 7],
    ]).events;
    expect(splitPageViews('r', events).map((v) => [v.startIndex, v.endIndex, v.startTimestamp, v.endTimestamp])).toEqual([
      [0, 4, 1, 3],
      [4, 9, 4, 7],
    ]);
  });

  it('start at the DomContentLoaded and Load events a page load emits before its Meta', () => {
    // What rrweb's record emits on each page of a tab: DomContentLoaded, Load, Meta, FullSnapshot.
    const events = rec('r', [
      [DCL, 1],
      [LOAD, 1],
      [META, 2],
      [FS, 2],
      [INC, 3],
      [DCL, 50],
      [LOAD, 51],
      [CUSTOM, 51],
      [META, 52],
      [FS, 52],
      [INC, 53],
      [LOAD, 60],
      [INC, 61],
    ]).events;
    expect(splitPageViews('r', events).map((v) => [v.startIndex, v.endIndex, v.startTimestamp, v.endTimestamp])).toEqual([
      [0, 5, 1, 3],
      [5, 13, 50, 61], // a Load after the snapshot, followed by other events, stays in its page view
    ]);
  });

  it('leave a Meta separated from the FullSnapshot by another event with the previous page view', () => {
    const events = rec('r', [
      [META, 1],
      [FS, 1],
      [META, 2],
      [INC, 3],
      [FS, 4],
      [INC, 5],
    ]).events;
    expect(splitPageViews('r', events).map((v) => [v.startIndex, v.count])).toEqual([
      [0, 4],
      [4, 2],
    ]);
  });

  it('put events before the first FullSnapshot into the first page view', () => {
    const events = rec('r', [
      [CUSTOM, 1],
      [INC, 2],
      [META, 3],
      [CUSTOM, 3],
      [FS, 3],
      [FS, 9],
    ]).events;
    expect(splitPageViews('r', events).map((v) => [v.startIndex, v.count, v.startTimestamp])).toEqual([
      [0, 5, 1],
      [5, 1, 9],
    ]);
  });

  it('make a recording without a FullSnapshot one page view, and an empty one none', () => {
    expect(
      splitPageViews(
        'r',
        rec('r', [
          [CUSTOM, 1],
          [INC, 2],
        ]).events,
      ),
    ).toHaveLength(1);
    expect(splitPageViews('r', [])).toEqual([]);
  });
});
