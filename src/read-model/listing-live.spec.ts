// The live scope of the listing (live.sql.ts) through every plan of the planner, against the brute-force
// listing of the fake read model: live by the time a batch was stored, not by the events' timestamps.
import { isLive, liveCondition, liveRecordingsSql } from './live.sql';
import { VERIFY_MAX } from './listing.planner';
import { RecordingsSql } from './recordings.sql';
import { TimelineSql } from './recordings-timeline.sql';
import { fakeListing as fake, HOUR, id, NOW } from './testing/listing-model.fake';
import { seeded } from './testing/random-listing';

const SINCE = NOW - 60_000;

describe('live SQL', () => {
  it('reads live ids from the time batches were stored, deletion-aware, through the sql helper', () => {
    expect(liveRecordingsSql("a'b", SINCE).text).toBe(
      `SELECT recording_id FROM (SELECT recording_id, seq FROM recording_batches WHERE tenant_id = 'a\\'b' AND ingested_at >= ${SINCE}) AS projected ANY LEFT JOIN (SELECT recording_id, max(seq) AS deleted_seq FROM deleted_recordings WHERE tenant_id = 'a\\'b' GROUP BY recording_id) AS deletions USING (recording_id) WHERE seq > deleted_seq`,
    );
    expect(liveCondition('t', undefined).text).toBe('');
    expect(liveCondition('t', { live: true, since: 5 }).text).toMatch(/^ AND recording_id IN \(SELECT recording_id FROM \(SELECT .* ingested_at >= 5\)/);
    expect(liveCondition('t', { live: false, since: -5 }).text).toMatch(/^ AND recording_id NOT IN \(SELECT .* ingested_at >= \(-5\)\)/);
  });

  it('is live from the cutoff on, never without a stored batch', () => {
    expect([isLive(SINCE, SINCE), isLive(SINCE - 1, SINCE), isLive(null, SINCE)]).toEqual([true, false, false]);
  });

  it('puts the scope beside the filters of the narrow plan and of deep pages, before the deletion rule', () => {
    const live = { live: true, since: SINCE };
    expect(TimelineSql.starts('t', [], 10, live).text).toMatch(
      /^SELECT recording_id, min\(started_at\) AS first_ts FROM \(SELECT recording_id, started_at, seq FROM recordings WHERE tenant_id = 't' AND recording_id IN \(SELECT recording_id FROM \(SELECT recording_id, seq FROM recording_batches /,
    );
    expect(() => TimelineSql.starts('t', [], 10, { live: false, since: SINCE })).toThrow(TypeError);
    expect(() => TimelineSql.starts('t', [], 10)).toThrow(TypeError);
    const deep = RecordingsSql.page({ tenantId: 't', filters: [{ key: 'k', value: 'v' }], live: { live: false, since: SINCE } }, 10, 600).text;
    expect(deep).toMatch(
      /FINAL .* WHERE tenant_id = 't' AND recording_id IN \(SELECT recording_id FROM recording_metadata_by_key .* AND recording_id NOT IN \(SELECT recording_id FROM \(SELECT recording_id, seq FROM recording_batches .* AND seq > deleted_seq ORDER BY/s,
    );
  });
});

describe('live listing pages', () => {
  it('matches the brute-force listing for live=true and live=false, with and without filters, at every depth', async () => {
    const rand = seeded(11);
    for (let run = 0; run < 3; run++) {
      const batches: [string, number][] = [];
      const metadata: [string, string, string, number][] = [];
      const ingested: Record<string, number> = {};
      const n = 300 + rand(500);
      for (let i = 0; i < n; i++) {
        // Event times from a browser clock that may be hours off: liveness never looks at them.
        const start = NOW - rand(48) * HOUR - rand(1000) * 1000;
        for (let b = 0; b < 1 + rand(3); b++) batches.push([id(i), start + b * 5000]);
        metadata.push([id(i), 'plan', ['free', 'pro'][rand(2)], 1]);
        ingested[id(i)] = rand(8) === 0 ? SINCE + rand(60_000) : SINCE - 1 - rand(1000) * 1000;
      }
      ingested[id(0)] = SINCE; // exactly at the cutoff: live
      const { planner, expected, queries } = fake({ batches, metadata, ingested, deleted: [id(rand(n))] });
      for (const live of [true, false]) {
        const scope = { live, since: SINCE };
        for (const filters of [[], [{ key: 'plan', value: 'pro' }]]) {
          for (const [limit, offset] of [
            [5, 0],
            [50, 20],
            [100, VERIFY_MAX],
          ]) {
            queries.length = 0;
            const page = await planner.page(`live-${run}`, { filters, limit, offset, live: scope });
            expect(page.rows).toEqual(expected(filters, limit, offset, scope));
            const onPage = page.rows.slice(0, limit).map((r) => r.recording_id);
            expect(page.details.summaries.map((s) => s.recording_id).sort()).toEqual(expect.arrayContaining([...onPage].sort()));
            // live=true never reads a time window (only the page's summaries, by id): its candidates are the live ids, whatever the depth.
            if (live) expect(queries.filter((q) => q.includes('min_ts >=') && !q.includes("recording_id IN ('"))).toEqual([]);
          }
        }
      }
    }
  });

  it('lists a recording whose browser clock is hours behind as live, and its events stay where they are', async () => {
    const { planner } = fake({
      batches: [
        ['skewed', NOW - 30 * HOUR],
        ['recent-idle', NOW - 1000],
      ],
      ingested: { skewed: NOW, 'recent-idle': SINCE - 1 },
    });
    const live = await planner.page('skew', { filters: [], limit: 10, offset: 0, live: { live: true, since: SINCE } });
    expect(live.rows.map((r) => r.recording_id)).toEqual(['skewed']);
    const idle = await planner.page('skew', { filters: [], limit: 10, offset: 0, live: { live: false, since: SINCE } });
    expect(idle.rows.map((r) => r.recording_id)).toEqual(['recent-idle']);
  });
});
