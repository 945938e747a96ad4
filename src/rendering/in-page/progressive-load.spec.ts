import { appendLater, earlierUrl, laterUrl, openingWindow, prependEarlier, startOffset, windowShows, withParams } from './progressive-load';

describe('progressive player loading', () => {
  const span = { first: 1_000_000, last: 1_100_000 };

  it('places the start in the recording, out-of-range positions at the nearest end', () => {
    expect(startOffset({ kind: 'percent', value: 90 }, span.first, span.last)).toBe(90_000);
    expect(startOffset({ kind: 'offset', value: -10_000 }, span.first, span.last)).toBe(90_000);
    expect(startOffset({ kind: 'epoch', value: span.first + 5 }, span.first, span.last)).toBe(5);
    expect(startOffset({ kind: 'offset', value: 500_000 }, span.first, span.last)).toBe(100_000);
    expect(startOffset({ kind: 'epoch', value: 0 }, span.first, span.last)).toBe(0);
  });

  it('adds window parameters to the events URL, keeping its presigned query', () => {
    expect(withParams('events?tenantId=t&signature=ab', { from: 'epoch:5' })).toBe('events?tenantId=t&signature=ab&from=epoch%3A5');
    expect(withParams('/x/recordings/r/events', { to: 'epoch:9' })).toBe('/x/recordings/r/events?to=epoch%3A9');
    expect(earlierUrl('events?a=1', 1000)).toBe('events?a=1&to=epoch%3A999');
  });

  it('opens on a window from the moment only when the span is known and the moment is after the start', () => {
    const cfg = { eventsUrl: 'events?a=1', time: { kind: 'percent', value: 90 } as const };
    // 90 %: the last 10 s, so the window runs to the end; 10 %: 15 s after the moment.
    expect(openingWindow({ ...cfg, span })).toEqual({ url: `events?a=1&from=epoch%3A${span.first + 90_000}`, at: span.first + 90_000, to: undefined });
    expect(openingWindow({ ...cfg, span, time: { kind: 'percent', value: 10 } })).toEqual({
      url: `events?a=1&from=epoch%3A${span.first + 10_000}&to=epoch%3A${span.first + 25_000}`,
      at: span.first + 10_000,
      to: span.first + 25_000,
    });
    expect(openingWindow(cfg)).toBeUndefined();
    expect(openingWindow({ ...cfg, span, time: { kind: 'offset', value: 0 } })).toBeUndefined();
    expect(openingWindow({ ...cfg, span: { first: 5, last: 5 } })).toBeUndefined();
  });

  it('puts the earlier events in front, dropping any the window already has', () => {
    const events = [
      { type: 4, timestamp: 50 },
      { type: 2, timestamp: 50 },
      { type: 3, timestamp: 60 },
    ];
    const added = prependEarlier(events, [
      { type: 4, timestamp: 1 },
      { type: 2, timestamp: 1 },
      { type: 3, timestamp: 49 },
      { type: 3, timestamp: 50 },
    ]);
    expect(added).toBe(3);
    expect(events.map((e) => e.timestamp)).toEqual([1, 1, 49, 50, 50, 60]);
  });

  it("takes a window only when it holds a snapshot at or before the moment (not between a keyframe's Meta and snapshot)", () => {
    const events = [
      { type: 4, timestamp: 1000 },
      { type: 2, timestamp: 1050 },
    ];
    expect(windowShows(events, 1030)).toBe(false);
    expect(windowShows(events, 1050)).toBe(true);
    expect(windowShows([], 5)).toBe(false);
  });

  it('appends what comes after the window, dropping what it repeats', () => {
    const events = [
      { type: 4, timestamp: 50 },
      { type: 3, timestamp: 60 },
    ];
    expect(laterUrl('events?a=1', 60)).toBe('events?a=1&from=epoch%3A61');
    expect(
      appendLater(events, [
        { type: 4, timestamp: 50 },
        { type: 3, timestamp: 60 },
        { type: 3, timestamp: 61 },
        { type: 3, timestamp: 90 },
      ]),
    ).toBe(2);
    expect(events.map((e) => e.timestamp)).toEqual([50, 60, 61, 90]);
  });
});
