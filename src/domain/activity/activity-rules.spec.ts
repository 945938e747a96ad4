// The rules across batches, over parts made from hand-made rrweb events batch by batch, as the
// projector stores them (one batch a second, as our recorder cuts them).
import { activeTime, isDead, pageViews, rageClicks, recordingActivity, StoredBatch, StoredItem, StoredLabel } from './activity-rules';
import { addLink, click, consoleLog, input, meta, move, network, recordingMeta, snapshot, T0, textChange } from './testing/activity-fixtures';
import { batchActivity } from './batch-activity';
import type { RrwebEvent } from '../rrweb-event';

/** The stored parts of a recording whose batches are `batches`, in stream order (seq 1, 2, …). */
function stored(batches: unknown[][]) {
  const items: StoredItem[] = [];
  const labels: StoredLabel[] = [];
  const parts: StoredBatch[] = [];
  let first = Infinity;
  let last = -Infinity;
  batches.forEach((events, i) => {
    const seq = i + 1;
    const a = batchActivity(events as RrwebEvent[]);
    items.push(...a.items.map((x, idx) => ({ ...x, seq, idx })));
    labels.push(...a.nodes.map((n) => ({ ...n, seq })));
    parts.push({ seq, inputs: a.inputs, activeSeconds: a.activeSeconds, changes: a.changes });
    first = Math.min(first, a.minTs);
    last = Math.max(last, a.maxTs);
  });
  return recordingActivity(items, labels, parts, { first, last });
}

describe('page views', () => {
  const page = (seq: number, ts: number, url: string, pageLoad = false) => ({
    kind: 'page' as const,
    seq,
    ts,
    url,
    path: new URL(url).pathname,
    title: `t${seq}`,
    pageLoad,
  });

  it('start at the first Meta, at a URL change and at a reload; a checkout (same URL, no page start) continues the view', () => {
    const views = pageViews(
      [
        page(1, T0, 'https://a.test/'),
        page(2, T0 + 300_000, 'https://a.test/'),
        page(3, T0 + 400_000, 'https://a.test/cart'),
        page(4, T0 + 500_000, 'https://a.test/cart', true),
      ],
      T0 + 560_000,
    );
    expect(views.map((v) => [v.path, v.ts - T0, v.durationMs, v.title])).toEqual([
      ['/', 0, 400_000, 't1'],
      ['/cart', 400_000, 100_000, 't3'],
      ['/cart', 500_000, 60_000, 't4'],
    ]);
  });
});

describe('clicks across batches', () => {
  it("are named by their node's label from an earlier batch of the same page, never from an earlier page", () => {
    const a = stored([
      [recordingMeta(T0), meta(T0, 'https://shop.test/checkout'), snapshot(T0 + 1)],
      [click(T0 + 1_000, 11)], // the span inside the button
      [addLink(T0 + 2_000)],
      [click(T0 + 3_000, 21), click(T0 + 3_500, 9), meta(T0 + 3_600, 'https://shop.test/help')], // the added link's text; a plain div; then a navigation
      [
        recordingMeta(T0 + 10_000),
        meta(T0 + 10_000, 'https://shop.test/done'),
        { type: 2, timestamp: T0 + 10_001, data: { node: { type: 0, id: 1, childNodes: [] } } },
      ],
      [click(T0 + 11_000, 7)], // id 7 was the button on the previous page only
    ]);
    expect(a.clicks.map((c) => [c.ts - T0, c.text, c.selector])).toEqual([
      [1_000, 'Pay now', 'button#pay.btn.primary'],
      [3_000, 'Help', 'a.nav'],
      [3_500, '', ''],
      [11_000, '', ''],
    ]);
  });

  it('make a rage click at three on one node within a second, counted once per burst', () => {
    const clicks = [0, 300, 600, 900, 5_000, 5_400, 6_500].map((t) => ({ ts: T0 + t, nodeId: 7 }));
    expect(rageClicks([...clicks, { ts: T0 + 100, nodeId: 9 }, { ts: T0 + 200, nodeId: 9 }]).map((r) => [r.ts - T0, r.members.length])).toEqual([[0, 4]]);
    expect(rageClicks([0, 500, 1_001].map((t) => ({ ts: T0 + t, nodeId: 7 })))).toEqual([]);
    // One run (no gap over a second), two windows of three: one rage click of all six clicks.
    expect(rageClicks([0, 500, 900, 1_600, 2_000, 2_400].map((t) => ({ ts: T0 + t, nodeId: 7 }))).map((r) => r.members.length)).toEqual([6]);
    // Two runs apart by more than a second: two rage clicks; the slow clicks of a run are not members.
    const two = rageClicks([0, 100, 200, 1_150, 2_050, 3_200, 3_300, 3_400].map((t) => ({ ts: T0 + t, nodeId: 7 })));
    expect(two.map((r) => [r.ts - T0, r.members.length])).toEqual([
      [0, 3],
      [3_200, 3],
    ]);
    expect(rageClicks([0, 500, 1_000].map((t) => ({ ts: T0 + t, nodeId: 7 })))).toHaveLength(1);
  });

  it('are dead without a change in the next second, decided only once the recording went on that long', () => {
    expect(isDead(T0, [T0 + 1_000], T0 + 5_000)).toBe(false);
    expect(isDead(T0, [T0 - 1, T0 + 1_001], T0 + 5_000)).toBe(true);
    expect(isDead(T0, [T0], T0 + 5_000)).toBe(false); // a handler's change in the click's own millisecond
    expect(isDead(T0, [], T0 + 999)).toBe(false);
    expect(isDead(T0, [], T0 + 1_000)).toBe(true);
  });

  it('find rage and dead clicks whose answer or repeats come in later batches', () => {
    const a = stored([
      [meta(T0, 'https://shop.test/checkout'), snapshot(T0 + 1)],
      [click(T0 + 900, 7)], // answered by the text change in the next batch
      [textChange(T0 + 1_400), click(T0 + 1_950, 7)],
      [click(T0 + 2_100, 7), click(T0 + 2_300, 7)], // rage with the one before; no change follows
      [move(T0 + 6_000)],
    ]);
    expect(a.clicks.map((c) => [c.ts - T0, c.rage, c.dead])).toEqual([
      [900, false, false],
      [1_950, true, true],
      [2_100, true, true],
      [2_300, true, true],
    ]);
    expect(a.rageClicks).toEqual([{ ts: T0 + 1_950, nodeId: 7, clicks: 3, text: 'Pay now', selector: 'button#pay.btn.primary' }]);
  });
});

describe('active time', () => {
  it('is the distinct active seconds of all batches up to the last event, at most the duration; idle is the rest', () => {
    const s = T0 / 1000;
    const span = (ms: number) => ({ first: T0, last: T0 + ms });
    const five = [{ seq: 1, inputs: 0, activeSeconds: [s, s + 1, s + 2, s + 3, s + 4], changes: [] }];
    const twoBatches = [
      { seq: 1, inputs: 0, activeSeconds: [s, s + 1], changes: [] },
      { seq: 2, inputs: 0, activeSeconds: [s + 1, s + 2], changes: [] },
    ];
    expect(activeTime(twoBatches, span(60_000))).toBe(3_000);
    expect(activeTime(five, span(1_500))).toBe(1_500);
    expect(activeTime(five, span(2_500))).toBe(2_500);
    expect(activeTime(five, span(60_000))).toBe(5_000);
    const a = stored([[meta(T0, 'https://a.test/'), snapshot(T0), move(T0 + 100)], [input(T0 + 2_500)], [move(T0 + 60_000)]]);
    // Seconds 0-4 and 2-6 (7), then 60 (the recording ends in it: 61-64 do not count).
    expect(a.activeTime).toBe(8_000);
    expect(a.idleTime).toBe(52_000);
    expect(a.inputs).toBe(1);
  });
});

describe('recordingActivity', () => {
  it('lists errors and failed requests in time order', () => {
    const a = stored([
      [consoleLog(T0 + 5, 'error', 'second')],
      [consoleLog(T0 + 1, 'error', 'first'), network(T0 + 2, { name: 'https://a.test/x', status: 404 })],
    ]);
    expect(a.errors.map((e) => e.message)).toEqual(['first', 'second']);
    expect(a.networkFailures).toEqual([{ kind: 'network', ts: T0 + 2, url: 'https://a.test/x', method: 'GET', status: 404, durationMs: 10 }]);
  });
});
