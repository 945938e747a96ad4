import type { RrwebEvent } from '../../domain/rrweb-event';
import { POSTER_MAX_SETTLE_MS, POSTER_QUIET_MS, posterMoment } from './poster-moment';

const meta = (t: number): RrwebEvent => ({ type: 4, timestamp: t, data: { href: 'https://example.com/', width: 800, height: 600 } });
const snapshot = (t: number): RrwebEvent => ({ type: 2, timestamp: t, data: { node: {} } });
const mutation = (t: number): RrwebEvent => ({ type: 3, timestamp: t, data: { source: 0, adds: [], removes: [], texts: [], attributes: [] } });
const mouseMove = (t: number): RrwebEvent => ({ type: 3, timestamp: t, data: { source: 1, positions: [] } });
const styleRule = (t: number): RrwebEvent => ({ type: 3, timestamp: t, data: { source: 8, id: 1 } });
const click = (t: number): RrwebEvent => ({ type: 3, timestamp: t, data: { source: 2, type: 2, id: 5, x: 1, y: 1 } });
const focus = (t: number): RrwebEvent => ({ type: 3, timestamp: t, data: { source: 2, type: 5, id: 5 } });
const typed = (t: number, userTriggered: boolean): RrwebEvent => ({
  type: 3,
  timestamp: t,
  data: { source: 5, id: 6, text: 'a', isChecked: false, userTriggered },
});
const page = (start: number, ...rest: RrwebEvent[]) => [meta(start), snapshot(start + 10), ...rest];

describe('posterMoment', () => {
  it('is the end of the first burst of changes after the snapshot: the last change before a quiet second', () => {
    const events = page(1000, mutation(1100), mutation(1400), styleRule(1900), mutation(1900 + POSTER_QUIET_MS + 1), mutation(9000));
    expect(posterMoment(events)).toBe(1900);
  });

  it('is the snapshot when nothing changes soon after it, whatever the visitor does', () => {
    expect(posterMoment(page(1000, mouseMove(1100), mouseMove(1500), mutation(1010 + POSTER_QUIET_MS + 1)))).toBe(1010);
    expect(posterMoment(page(1000))).toBe(1010);
  });

  it('ends at the visitor’s first press or keystroke once the page has changed: what follows is their doing', () => {
    // Content built at 1300, a click at 1800 opens a menu at 1850: the page as it came up, not the menu.
    expect(posterMoment(page(1000, mutation(1300), click(1800), mutation(1850)))).toBe(1300);
    expect(posterMoment(page(1000, mutation(1300), typed(1500, true), mutation(1510)))).toBe(1300);
  });

  it('lets scripts’ focus and value changes, and presses before the page changed, go on with the burst', () => {
    expect(posterMoment(page(1000, mutation(1300), focus(1400), typed(1450, false), mutation(1500)))).toBe(1500);
    // A click on the spinner: the content that loads after it is still what the visitor saw first.
    expect(posterMoment(page(1000, click(1200), mutation(1900), mutation(2000)))).toBe(2000);
  });

  it('is cut at the cap on a page that never stops changing', () => {
    const ticking = Array.from({ length: 40 }, (_, i) => mutation(1010 + 300 * (i + 1)));
    expect(posterMoment(page(1000, ...ticking))).toBe(1010 + POSTER_MAX_SETTLE_MS);
  });

  it('stays within the first page view', () => {
    expect(posterMoment([...page(1000, mutation(1200), mutation(1600)), ...page(1800, mutation(1900))])).toBe(1600);
    expect(posterMoment([...page(1000, mutation(1200)), meta(1200), snapshot(1210)])).toBe(1199);
    expect(posterMoment([snapshot(1000), meta(1000), snapshot(1000)])).toBe(1000);
  });

  it('is the last change when the recording ends within the burst', () => {
    expect(posterMoment(page(1000, mutation(1100), mutation(1300)))).toBe(1300);
  });

  it('starts from the first full snapshot; none, none', () => {
    expect(posterMoment([mutation(500), meta(900), snapshot(1000), mutation(1500)])).toBe(1500);
    expect(posterMoment([meta(900), mutation(1000)])).toBeUndefined();
  });
});
