import { headerJson, summarizeBatch } from '../../domain/batch-summary';
import type { ReadWindow } from '../../domain/event-store';
import type { MessageHead } from './event-order';
import { planWindow, WindowCut } from './event-window';

const ev = (type: number, timestamp: number) => ({ type, timestamp, data: {} });
const head = (seq: number, events: ReturnType<typeof ev>[]): MessageHead => ({ seq, batch: `b${seq}`, summary: headerJson(summarizeBatch(events, 10)) });
const window = (from?: number, to?: number, limit?: number): ReadWindow => ({ resolve: () => ({ from, to }), limit });

// Keyframes at 100 (seq 1) and 300 (its Meta in seq 3, its FullSnapshot in seq 4); seq 6 came late.
const heads = [
  head(1, [ev(4, 100), ev(2, 101), ev(3, 150)]),
  head(2, [ev(3, 200), ev(3, 250)]),
  head(3, [ev(3, 290), ev(4, 300)]),
  head(4, [ev(2, 301), ev(3, 350)]),
  head(5, [ev(3, 400), ev(3, 450)]),
  head(6, [ev(3, 320)]),
];

describe('planWindow', () => {
  it('reads from the batches holding the keyframe at or before from, up to the last that may hold to', () => {
    const plan = planWindow(heads, window(360, 380));
    expect(plan.startTs).toBe(300);
    expect(plan.heads.map((h) => h.seq)).toEqual([3, 4, 6]);
  });

  it('reads from the start without a keyframe at or before from, and everything without bounds', () => {
    expect(planWindow(heads, window(50)).startTs).toBeUndefined();
    expect(planWindow(heads, window(undefined, 260)).heads.map((h) => h.seq)).toEqual([1, 2]);
    expect(planWindow(heads, window(undefined, undefined, 3)).heads).toHaveLength(6);
  });

  it("resolves the window against the recording's first and last event", () => {
    const seen: number[][] = [];
    planWindow(heads, { resolve: (first, last) => (seen.push([first, last]), {}) });
    expect(seen).toEqual([[100, 450]]);
  });
});

describe('planWindow with a hint from the keyframe index', () => {
  const hinted = (from: number, hint: { seq: number; ts: number }) => ({ ...window(from), hint: { ...hint, first: 100, last: 450 } });

  it('plans from the headers after the hint when they hold its keyframe', () => {
    const plan = planWindow(heads.slice(2), hinted(360, { seq: 3, ts: 300 }));
    expect([plan.startTs, plan.rescan]).toEqual([300, undefined]);
    expect(plan.heads.map((h) => h.seq)).toEqual([3, 4, 5, 6]);
  });

  it('asks for every header when the hint does not hold', () => {
    expect(planWindow(heads.slice(3), hinted(360, { seq: 4, ts: 300 })).rescan).toBe(true); // the keyframe's Meta is below it
    expect(planWindow(heads.slice(1), hinted(250, { seq: 2, ts: 300 })).rescan).toBe(true); // an earlier keyframe is needed
    expect(planWindow([], hinted(360, { seq: 9, ts: 300 })).rescan).toBe(true);
    const chunked = [{ ...heads[2], chunk: '1/2' }, ...heads.slice(3)]; // chunk 0 lies below the hint
    expect(planWindow(chunked, hinted(360, { seq: 3, ts: 300 })).rescan).toBe(true);
  });
});

describe('planWindow with server-made keyframes', () => {
  it('starts at a server keyframe later than the recording’s own, reading only the batches after its moment', () => {
    const plan = planWindow(heads, window(420, 430), [{ ts: 400, seq: 9 }]);
    expect([plan.startTs, plan.server]).toEqual([400, { ts: 400, seq: 9 }]);
    expect(plan.heads.map((h) => h.seq)).toEqual([5]);
  });

  it('keeps the recording’s own keyframe when it is as late or later, and ignores server keyframes after from', () => {
    expect(planWindow(heads, window(360), [{ ts: 300, seq: 9 }]).server).toBeUndefined();
    expect(planWindow(heads, window(360), [{ ts: 200, seq: 9 }]).startTs).toBe(300);
    expect(planWindow(heads, window(360), [{ ts: 400, seq: 9 }]).server).toBeUndefined();
    expect(planWindow(heads, window(undefined, 430), [{ ts: 400, seq: 9 }]).server).toBeUndefined();
  });

  it('holds a hint at the server keyframe', () => {
    const plan = planWindow(heads.slice(4), { ...window(420), hint: { seq: 5, ts: 400, first: 100, last: 450 } }, [{ ts: 400, seq: 9 }]);
    expect([plan.rescan, plan.startTs]).toEqual([undefined, 400]);
  });
});

describe('WindowCut', () => {
  it('after a server keyframe: its events first, then only events after its moment', () => {
    const e = (type: number, timestamp: number) => ({ type, timestamp });
    const cut = new WindowCut({ heads: [], startTs: 400, server: { ts: 400, seq: 9 }, limit: 4 });
    expect(cut.take([e(4, 400), e(2, 400)], true)).toEqual([e(4, 400), e(2, 400)]);
    expect(cut.take([e(3, 399), e(4, 400), e(3, 400), e(3, 401), e(3, 402), e(3, 403)])).toEqual([e(3, 401), e(3, 402)]);
    expect(cut.done).toBe(true);
  });

  const e = (type: number, timestamp: number) => ({ type, timestamp });
  it("opens on the keyframe's Meta, closes after to or limit", () => {
    const cut = new WindowCut({ heads: [], startTs: 300, to: 320 });
    expect(cut.take([e(3, 290), e(3, 300), e(4, 300), e(2, 301)])).toEqual([e(4, 300), e(2, 301)]);
    expect(cut.done).toBe(false);
    expect(cut.take([e(3, 320), e(3, 321)])).toEqual([e(3, 320)]);
    expect(cut.done).toBe(true);
    const limited = new WindowCut({ heads: [], limit: 2 });
    expect(limited.take([e(4, 1), e(2, 2), e(3, 3)])).toEqual([e(4, 1), e(2, 2)]);
    expect(limited.done).toBe(true);
  });
});
