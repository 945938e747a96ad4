import { ActivitySql, spanRanges } from './activity.sql';

describe('spanRanges', () => {
  it('merges overlapping spans and keeps disjoint ones apart, sorted', () => {
    expect(
      spanRanges([
        { first: 50, last: 60 },
        { first: 10, last: 20 },
        { first: 15, last: 30 },
        { first: 31, last: 31 },
      ]),
    ).toEqual([
      [10, 30],
      [31, 31],
      [50, 60],
    ]);
  });

  it('merges across the smallest gaps down to 8 ranges, covering every span', () => {
    const spans = [0, 100, 105, 300, 310, 600, 1000, 1001, 2000, 2500].map((first) => ({ first, last: first }));
    const ranges = spanRanges(spans);
    expect(ranges).toEqual([
      [0, 0],
      [100, 105],
      [300, 300],
      [310, 310],
      [600, 600],
      [1000, 1001],
      [2000, 2000],
      [2500, 2500],
    ]);
    for (const s of spans) expect(ranges.some(([from, to]) => from <= s.first && s.last <= to)).toBe(true);
  });
});

describe('ActivitySql.summaries', () => {
  it("reads the page's rows of recording_activity_timeline within their spans, unplaced rows too", () => {
    const text = ActivitySql.summaries(
      't',
      new Map([
        ['a', { first: 1000, last: 5000 }],
        ['b', { first: 4000, last: 9000 }],
      ]),
    ).text;
    expect(text).toContain(
      "FROM recording_activity_timeline PREWHERE recording_id IN ('a', 'b') WHERE tenant_id = 't' AND kind IN ('page', 'click', 'error', 'batch') AND (batch_ts = 9007199254740991 OR batch_ts BETWEEN 1000 AND 9000)",
    );
    expect(text).not.toMatch(/FROM recording_activity(_batches|_nodes)? /);
  });
});
