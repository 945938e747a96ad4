import { keyframeMoments, parseKeyframeHeader, SizedEvent } from './server-keyframes';

const e = (type: number, timestamp: number, bytes = 100): SizedEvent => ({ type, timestamp, bytes });
const every = (everyMs: number, everyBytes = 0, max = 50) => ({ everyMs, everyBytes, max });

describe('keyframeMoments', () => {
  // A page view at 0, then an event every 10 ms.
  const steady = [e(4, 0), e(2, 0), ...Array.from({ length: 100 }, (_, i) => e(3, 10 * (i + 1)))];

  it('places a moment every interval after the last keyframe, at an event', () => {
    expect(keyframeMoments(steady, undefined, every(300))).toEqual([300, 600, 900]);
    expect(keyframeMoments(steady, undefined, every(300, 0, 2))).toEqual([300, 600]);
  });

  it('starts after the last server-made keyframe or attempt, and counts the recording’s own FullSnapshots as keyframes', () => {
    expect(keyframeMoments(steady, 650, every(300))).toEqual([950]);
    const checkout = [...steady.slice(0, 40), e(4, 395), e(2, 396), ...steady.slice(40)];
    expect(keyframeMoments(checkout, undefined, every(300))).toEqual([300, 700, 1000]); // 700: 300 after the checkout at 396
  });

  it('places moments by bytes of events as well', () => {
    expect(keyframeMoments(steady, undefined, every(0, 1000))).toEqual([100, 200, 300, 400, 500, 600, 700, 800, 900, 1000]);
    expect(keyframeMoments(steady, undefined, every(0, 0))).toEqual([]);
  });

  it('never before the first FullSnapshot, between a Meta and its FullSnapshot, or inside a millisecond', () => {
    expect(keyframeMoments([e(3, 0), e(3, 500), e(3, 1000)], undefined, every(300))).toEqual([]);
    const navigating = [e(4, 0), e(2, 0), e(3, 100), e(4, 400), e(0, 405), e(2, 410), e(3, 420), e(3, 800)];
    expect(keyframeMoments(navigating, undefined, every(300))).toEqual([800]);
    const tied = [e(4, 0), e(2, 0), e(3, 300), e(3, 300), e(3, 310)];
    const moments = keyframeMoments(tied, undefined, every(300));
    expect(moments).toEqual([300]); // after both events of ms 300
  });
});

describe('parseKeyframeHeader', () => {
  it('reads a stored header, and nothing else', () => {
    expect(parseKeyframeHeader('{"v":1,"ts":5,"ok":true}')).toEqual({ v: 1, ts: 5, ok: true });
    expect(parseKeyframeHeader('{"v":1,"ts":5,"ok":false,"reason":"x"}')).toEqual({ v: 1, ts: 5, ok: false, reason: 'x' });
    expect(parseKeyframeHeader('{"v":1,"ts":5,"ok":true,"enc":"gzip"}')).toEqual({ v: 1, ts: 5, ok: true, enc: 'gzip' });
    expect(parseKeyframeHeader('{"v":1,"ts":5,"ok":true,"enc":"br"}')).toEqual({ v: 1, ts: 5, ok: true });
    for (const bad of [undefined, '', 'nope', '{"v":2,"ts":5,"ok":true}', '{"v":1,"ts":1.5,"ok":true}', '{"v":1,"ts":5}'])
      expect(parseKeyframeHeader(bad)).toBeUndefined();
  });
});
