import { sql } from '../infrastructure/clickhouse/sql';
import { RecordingsSql } from './recordings.sql';

describe('RecordingsSql', () => {
  it('pages newest first with a stable tie-break, one extra row, tenant scoped, deletion-aware', () => {
    const text = RecordingsSql.page({ tenantId: "a'b", filters: [] }, 50, 100).text;
    expect(text).toContain('FROM recordings FINAL ANY LEFT JOIN (SELECT recording_id, max(seq) AS deleted_seq FROM deleted_recordings');
    expect(text).toContain("WHERE tenant_id = 'a\\'b' AND seq > deleted_seq");
    expect(text).toMatch(/ORDER BY started_at DESC, recording_id DESC LIMIT 51 OFFSET 100$/);
    expect(text).not.toContain('recording_metadata_by_key');
  });

  it('adds the metadata filter as an IN subquery on the table it filters (not inside a FROM subquery)', () => {
    const text = RecordingsSql.page({ tenantId: 't', filters: [{ key: 'k\\', value: "v'" }] }, 10, 0).text;
    expect(text).toMatch(
      /^SELECT recording_id, started_at FROM recordings FINAL .* WHERE tenant_id = 't' AND recording_id IN \(SELECT recording_id FROM recording_metadata_by_key /s,
    );
    expect(text).toContain("key = 'k\\\\' AND value = 'v\\''");
  });

  it('applies a time window after FINAL, on started_at', () => {
    const text = RecordingsSql.starts({ tenantId: 't', filters: [], window: { from: 1000, to: 2000 } }).text;
    expect(text).toMatch(/FINAL .* WHERE .* AND started_at >= 1000 AND started_at < 2000$/s);
  });

  it('de-duplicates batches per batch id and escapes listed ids', () => {
    const text = RecordingsSql.summaries('t', ["x'); DROP TABLE recordings; --", 'b']).text;
    expect(text).toContain("recording_id IN ('x\\'); DROP TABLE recordings; --', 'b')");
    expect(text).toContain('LIMIT 1 BY recording_id, batch_id');
    expect(text).toContain('sum(event_count) AS event_count');
    expect(RecordingsSql.batches('t', sql`SELECT recording_id FROM x`, 'stats').text).toContain('recording_id IN (SELECT recording_id FROM x)');
  });

  it('reads the latest metadata value per key (argMax by seq)', () => {
    const text = RecordingsSql.metadata('t', ['r1']).text;
    expect(text).toContain('argMax(value, seq) AS value');
    expect(text).toContain("recording_id IN ('r1'))");
    expect(text).toContain('WHERE seq > deleted_seq GROUP BY recording_id, key');
  });

  it('reads a window page with its summaries, the filters candidates checked beside the deletion rule', () => {
    const text = RecordingsSql.windowSummaries("t'", 1000, 71, 0, ['x'], sql`SELECT recording_id FROM candidates`).text;
    expect(text).toContain("FROM recording_timeline WHERE tenant_id = 't\\'' AND min_ts >= 1000 AND recording_id NOT IN ('x'))");
    expect(text).toContain(
      'WHERE seq > deleted_seq AND recording_id IN (SELECT recording_id FROM candidates) LIMIT 1 BY recording_id, batch_id) GROUP BY recording_id',
    );
    expect(text).toMatch(/ORDER BY started_at DESC, recording_id DESC LIMIT 71 OFFSET 0$/);
    expect(RecordingsSql.windowSummaries('t', 1000, 51, 0, []).text).toContain('WHERE seq > deleted_seq LIMIT 1 BY recording_id, batch_id');
  });

  it('clamps a window page to starts before a range end: ids with a batch in [since, before), then the start checked', () => {
    const text = RecordingsSql.windowSummaries("t'", 1000, 11, 0, [], undefined, 5000).text;
    expect(text).toContain(
      "min_ts >= 1000 AND recording_id IN (SELECT recording_id FROM recording_timeline WHERE tenant_id = 't\\'' AND min_ts >= 1000 AND min_ts < 5000)",
    );
    expect(text).toContain('GROUP BY recording_id HAVING started_at < 5000 ORDER BY started_at DESC');
  });

  it("evaluates activity filters over the window's recordings alone, spans from the window's own rows", () => {
    const text = RecordingsSql.windowSummaries('t', 1000, 71, 0, [], sql`SELECT recording_id FROM candidates`, 5000, {
      hasDeadClicks: true,
      minActiveTime: 10,
      errorText: 'boom',
      hasErrors: false,
    }).text;
    // Every rule's rows are read from the window's range of recording_activity_timeline, never from
    // the tables sorted by recording id, never for the whole tenant.
    const window = (kind: string) => `FROM recording_activity_timeline WHERE tenant_id = 't' AND ${kind} AND batch_ts >= 1000 AND`;
    expect(text).toContain(`${window("kind IN ('page', 'click', 'error', 'network')")} kind = 'error' AND positionCaseInsensitiveUTF8(text, 'boom') > 0)`);
    expect(text).toContain(`${window("kind = 'batch'")} 1)`);
    expect(text).toContain(`${window("kind IN ('click', 'batch')")} 1)`);
    const inRange = text.match(/FROM recording_activity_timeline WHERE tenant_id = 't' AND (kind = '\w+'|kind IN \([^)]*\)) AND batch_ts >= 1000 AND/g) ?? [];
    expect(inRange).toHaveLength(3);
    expect(text.split('FROM recording_activity_timeline').length - 1).toBe(inRange.length);
    expect(text).not.toMatch(/FROM recording_activity(_batches|_nodes)? /);
    expect(text).not.toContain('FROM recording_batches');
    expect(text).toContain(
      "SELECT recording_id, min_ts, max_ts, seq FROM recording_timeline WHERE tenant_id = 't' AND min_ts >= 1000 AND recording_id IN (SELECT recording_id FROM candidates)",
    );
    expect(text).toContain('AND recording_id NOT IN (SELECT recording_id FROM (SELECT recording_id, seq FROM recording_activity_timeline');
    expect(text).toMatch(
      /WHERE seq > deleted_seq AND recording_id IN \(SELECT recording_id FROM candidates\) AND recording_id NOT IN \(.* LIMIT 1 BY recording_id, batch_id\) GROUP BY/s,
    );
  });

  it("bounds a window page's durations on its own aggregates, without reading the spans again", () => {
    const text = RecordingsSql.windowSummaries('t', 1000, 11, 0, [], undefined, 5000, { minDuration: 10, maxDuration: 20 }).text;
    expect(text).toContain('GROUP BY recording_id HAVING started_at < 5000 AND ended_at - started_at >= 10 AND ended_at - started_at <= 20 ORDER BY');
    expect(text).not.toContain('first_ts');
  });

  it('puts a range of starts in the page of recordings FINAL, either end open', () => {
    expect(RecordingsSql.page({ tenantId: 't', filters: [], window: { from: 10, to: 20 } }, 5, 0).text).toContain(
      'AND started_at >= 10 AND started_at < 20 ORDER BY',
    );
    expect(RecordingsSql.page({ tenantId: 't', filters: [], window: { to: 20 } }, 5, 0).text).toContain('seq > deleted_seq AND started_at < 20 ORDER BY');
    expect(RecordingsSql.page({ tenantId: 't', filters: [], window: { from: 10 } }, 5, 0).text).toContain('seq > deleted_seq AND started_at >= 10 ORDER BY');
  });
});
