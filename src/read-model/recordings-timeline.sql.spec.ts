import { TimelineSql } from './recordings-timeline.sql';

describe('TimelineSql', () => {
  it('cuts the unfiltered page in SQL: newest first with the listing tie-break, deletion-aware, without the alias trap', () => {
    const text = TimelineSql.page("a'b", 1000, 51, 5000, []).text;
    expect(text).toContain("FROM recording_timeline WHERE tenant_id = 'a\\'b' AND min_ts >= 1000)");
    expect(text).toContain('deleted_recordings');
    expect(text).toContain('WHERE seq > deleted_seq GROUP BY recording_id');
    expect(text).toMatch(/min\(min_ts\) AS started_at .* ORDER BY started_at DESC, recording_id DESC LIMIT 51 OFFSET 5000$/s);
    expect(TimelineSql.page('t', -5, 2, 0, ["x'", 'y']).text).toContain("min_ts >= (-5) AND recording_id NOT IN ('x\\'', 'y'))");
  });

  it('orders a narrow filter by `recordings` starts, deletion-aware', () => {
    const text = TimelineSql.starts('t', [{ key: 'user', value: 'u1' }], 4000).text;
    expect(text).toContain(
      "FROM recordings WHERE tenant_id = 't' AND recording_id IN (SELECT recording_id FROM recording_metadata_by_key WHERE tenant_id = 't' AND key = 'user' AND value = 'u1'))",
    );
    expect(text).toMatch(
      /min\(started_at\) AS first_ts .* WHERE seq > deleted_seq GROUP BY recording_id ORDER BY first_ts DESC, recording_id DESC LIMIT 4000$/s,
    );
  });

  it('checks the edge by id (deletion-aware), and for the whole window (rough, ranked by its latest batch there)', () => {
    const byId = TimelineSql.spanningOf('t', 1000, ['a', "b'"]).text;
    expect(byId).toContain("FROM recordings WHERE tenant_id = 't' AND recording_id IN ('a', 'b\\'') AND started_at < 1000)");
    expect(byId).toMatch(/WHERE seq > deleted_seq$/);
    const rough = TimelineSql.spanningRough('t', 1000).text;
    expect(rough).toBe(
      "SELECT recording_id, max(min_ts) AS latest_ts FROM recording_timeline WHERE tenant_id = 't' AND min_ts >= 1000 AND recording_id IN (SELECT recording_id FROM recordings WHERE tenant_id = 't' AND started_at < 1000 AND recording_id IN (SELECT recording_id FROM recording_timeline WHERE tenant_id = 't' AND min_ts >= 1000)) GROUP BY recording_id",
    );
    expect(() => TimelineSql.spanningOf('t', 1, [])).toThrow(TypeError);
    expect(TimelineSql.before('t', 1000).text).toBe(
      "SELECT count() AS n, max(min_ts) AS newest FROM recording_timeline WHERE tenant_id = 't' AND min_ts < 1000",
    );
  });
});
