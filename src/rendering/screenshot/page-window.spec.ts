import type { RrwebEvent } from '../../domain/rrweb-event';
import { coversMoment, windowPage } from './page-window';

const meta = (timestamp: number, width = 800, height = 600): RrwebEvent => ({ type: 4, timestamp, data: { width, height } });
const full = (timestamp: number): RrwebEvent => ({ type: 2, timestamp, data: {} });
const change = (timestamp: number): RrwebEvent => ({ type: 3, timestamp, data: { source: 0 } });
const span = { first: 0, last: 10_000 };

describe('windowPage', () => {
  it('places a moment after a later keyframe: shown as asked, in the window then; the page shows from its snapshot up to what was read', () => {
    const w = windowPage([meta(5000, 1024, 768), full(5001), change(6000)], span, 5500, 7000)!;
    expect(w.moment).toEqual({ at: 5500, shown: 5500, viewport: { width: 1024, height: 768 } });
    expect(w.page.range).toMatchObject({ firstTs: 5000, from: 5001, to: 7000 });
    expect(coversMoment(w.page.range, 7000)).toBe(true);
    expect(coversMoment(w.page.range, 7001)).toBe(false);
    expect(coversMoment(w.page.range, 5000)).toBe(false);
  });

  it('applies the first snapshot rule to a window from the start, which shows any moment up to what was read (to the end: any)', () => {
    const w = windowPage([change(0), meta(100), full(200), change(300)], span, 50, 20_000)!;
    expect(w.moment.shown).toBe(200);
    expect(w.page.range).toMatchObject({ firstTs: 0, from: -Infinity, to: Infinity });
  });

  it.each([
    ["between a keyframe's Meta and its snapshot", [meta(5000), full(5100)], 5050],
    ['the first snapshot after what was read', [change(0), meta(100)], 50],
    ['a keyframe whose Meta names no window', [{ type: 4, timestamp: 5000, data: {} } as RrwebEvent, full(5000)], 5000],
    ['a lone event', [full(0)], 0],
  ])('cannot say %s', (_name, events, at) => {
    expect(windowPage(events, span, at, at + 60_000)).toBeUndefined();
  });
});
