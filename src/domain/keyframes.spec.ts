import { batchKeyframes, keyframeAtOrBefore, pairKeyframes, summaryKeyframes } from './keyframes';

const ev = (type: number, timestamp: number) => ({ type, timestamp });

describe('batchKeyframes', () => {
  it('records each FullSnapshot with a Meta before it (page-load and custom events between allowed) at its Meta time', () => {
    expect(batchKeyframes([ev(4, 10), ev(2, 11), ev(3, 12), ev(0, 20), ev(4, 21), ev(5, 21), ev(2, 22), ev(3, 23)])).toEqual({ kf: [10, 21] });
  });

  it('is not a keyframe when an incremental event stands between the Meta and the FullSnapshot', () => {
    expect(batchKeyframes([ev(4, 10), ev(3, 11), ev(2, 12)])).toEqual({});
  });

  it('marks a Meta left waiting at the end, and a first FullSnapshot without its Meta', () => {
    expect(batchKeyframes([ev(3, 5), ev(4, 10)])).toEqual({ kfMeta: 10 });
    expect(batchKeyframes([ev(2, 11), ev(3, 12), ev(4, 20), ev(2, 21), ev(4, 30)])).toEqual({ kfOpen: 11, kf: [20], kfMeta: 30 });
    expect(batchKeyframes([ev(5, 1), ev(2, 2)])).toEqual({ kfOpen: 2 });
    expect(batchKeyframes([ev(3, 1), ev(2, 2)])).toEqual({});
  });
});

describe('pairKeyframes', () => {
  it('pairs a waiting Meta with the next batch that opens on a FullSnapshot, at the Meta batch', () => {
    const kfs = pairKeyframes([
      { seq: 1, kf: [100] },
      { seq: 2, kfMeta: 200 },
      { seq: 3 },
      { seq: 4, kfOpen: 201, kf: [300] },
      { seq: 5, kfMeta: 400 }, // its FullSnapshot never came
    ]);
    expect(kfs).toEqual([
      { ts: 100, seq: 1 },
      { ts: 200, seq: 2 },
      { ts: 300, seq: 4 },
    ]);
    expect(keyframeAtOrBefore(kfs, 250)).toEqual({ ts: 200, seq: 2 });
    expect(keyframeAtOrBefore(kfs, 300)).toEqual({ ts: 300, seq: 4 });
    expect(keyframeAtOrBefore(kfs, 99)).toBeUndefined();
  });

  it('drops a waiting Meta once another FullSnapshot came', () => {
    expect(
      pairKeyframes([
        { seq: 1, kfMeta: 10 },
        { seq: 2, kf: [20] },
        { seq: 3, kfOpen: 30 },
      ]),
    ).toEqual([{ ts: 20, seq: 2 }]);
  });
});

it('summaryKeyframes keeps only well-formed fields of a stored summary', () => {
  expect(summaryKeyframes({ kf: [1, 'x', 2.5, 3], kfMeta: '4', kfOpen: 5 })).toEqual({ kf: [1, 3], kfOpen: 5 });
  expect(summaryKeyframes({})).toEqual({});
});
