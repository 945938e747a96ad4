import { StatisticsSql } from './statistics.sql';

const scope = { tenantId: "t'", filters: [{ key: 'plan', value: 'pro' }], window: { from: 1000, to: 2000 } };

describe('StatisticsSql', () => {
  it("buckets the window's recordings by first event time, with totals, over de-duplicated batches", () => {
    const text = StatisticsSql.buckets(scope, { size: 604800000, offset: 345600000 }).text;
    expect(text).toContain('started_at - ((started_at - toInt64(345600000)) % toInt64(604800000) + toInt64(604800000)) % toInt64(604800000) AS t');
    expect(text).toContain('started_at >= 1000 AND started_at < 2000');
    expect(text).toContain('LIMIT 1 BY recording_id, batch_id');
    expect(text).toContain("tenant_id = 't\\''");
    expect(text).toContain("key = 'plan' AND value = 'pro'");
    expect(text).toContain('quantilesExact(0.5, 0.9, 0.99)(duration)');
    expect(text).toContain('sumMap(types.1, types.2) AS types');
    expect(text).toMatch(/GROUP BY t WITH TOTALS ORDER BY t$/);
  });

  it('reads batches of a known window by a literal id list', () => {
    const text = StatisticsSql.buckets({ ...scope, ids: ["a'", 'b'] }, { size: 60000, offset: 0 }).text;
    expect(text).toContain("recording_id IN ('a\\'', 'b')");
  });

  it('lists window ids with a limit and breaks down by an escaped key', () => {
    expect(StatisticsSql.windowIds(scope, 2001).text).toMatch(
      /^SELECT recording_id FROM \(SELECT recording_id, started_at FROM recordings FINAL .* LIMIT 2001$/s,
    );
    const b = StatisticsSql.breakdown(scope, "__proto__'", 100).text;
    expect(b).toContain("key = '__proto__\\''");
    expect(b).toMatch(/LIMIT 101$/);
  });

  it("counts the window's recordings by the viewport of their earliest Meta event, top limit + 1", () => {
    const text = StatisticsSql.viewports({ ...scope, ids: ["a'"] }, 10).text;
    expect(text).toContain("recording_id IN ('a\\'')");
    expect(text).toContain('LIMIT 1 BY recording_id, batch_id');
    expect(text).toContain('argMin((viewport_width, viewport_height), meta_ts) AS viewport');
    expect(text).toContain('WHERE viewport_width > 0 AND viewport_height > 0 GROUP BY recording_id');
    expect(text).toMatch(/GROUP BY width, height ORDER BY recordings DESC, width DESC, height DESC LIMIT 11$/);
  });
});
