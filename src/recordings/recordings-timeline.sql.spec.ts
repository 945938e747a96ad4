import { TimelineSql } from './recordings-timeline.sql';

describe('TimelineSql', () => {
  it('ranks the window newest first with the listing tie-break, deletion-aware, without the alias trap', () => {
    const text = TimelineSql.candidates("a'b", 1000, 102).text;
    expect(text).toContain("FROM recording_timeline WHERE tenant_id = 'a\\'b' AND min_ts >= 1000)");
    expect(text).toContain('deleted_recordings');
    expect(text).toContain('WHERE seq > deleted_seq GROUP BY recording_id');
    expect(text).toMatch(/min\(min_ts\) AS started_at .* ORDER BY started_at DESC, recording_id DESC LIMIT 102$/s);
  });

  it('names recordings of the window that started before it, from recordings, deletion-aware', () => {
    const text = TimelineSql.spanning('t', 1000).text;
    expect(text).toContain("FROM recordings WHERE tenant_id = 't' AND recording_id IN (SELECT recording_id FROM recording_timeline WHERE tenant_id = 't' AND min_ts >= 1000) AND started_at < 1000)");
    expect(text).toMatch(/WHERE seq > deleted_seq$/);
    expect(TimelineSql.before('t', 1000).text).toBe("SELECT count() AS n, max(min_ts) AS newest FROM recording_timeline WHERE tenant_id = 't' AND min_ts < 1000");
  });
});
