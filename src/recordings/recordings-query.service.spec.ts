import { AppError } from '../common/app-error';
import type { ClickHouse } from '../infrastructure/clickhouse/clickhouse-client';
import type { Sql } from '../infrastructure/clickhouse/sql';
import type { EventStore } from '../domain/event-store';
import { RecordingEventsService } from './recording-events.service';
import type { LinkSigner } from '../auth/link-signer';
import { ActivityRepository } from '../read-model/activity.repository';
import { ListingPlanner } from '../read-model/listing.planner';
import { RecordingsRepository } from '../read-model/recordings.repository';
import { RecordingsQueryService } from './recordings-query.service';

const id = '550e8400-e29b-41d4-a716-446655440000';
const summary = {
  recording_id: id,
  started_at: '100',
  ended_at: '250',
  event_count: '7',
  bytes: '900',
  page_views: '1',
  has_viewport: 1,
  viewport: [800, 600],
  first_url: 'https://e.test',
  last_activity_at: '300',
};

function service(rows: (q: string) => unknown[] | Error, exists = false, deletionMarker?: number, withActivity = false) {
  const read = async (q: Sql) => {
    const r = rows(q.text);
    if (r instanceof Error) throw r;
    return r;
  };
  const ch = {
    rows: read,
    rowsBeforeLimit: async (q: Sql) => {
      const r = await read(q);
      return { rows: r, beforeLimit: r.length };
    },
  } as unknown as ClickHouse;
  const events = new RecordingEventsService({ exists: async () => exists, lastDeletionSeq: async () => deletionMarker } as unknown as EventStore);
  const signer = {
    base: '',
    forTenant: () => ({ expires: 42, keyId: 'k', query: () => 'tenantId=t&expires=42&keyId=k&signature=s' }),
  } as unknown as LinkSigner;
  const activity = withActivity ? new ActivityRepository(ch) : undefined;
  return new RecordingsQueryService(new ListingPlanner(ch), new RecordingsRepository(ch), events, signer, { LIVE_IDLE_SECONDS: 60 }, activity);
}

describe('RecordingsQueryService', () => {
  it('lists a page with summaries, metadata, hasMore and signed links', async () => {
    const s = service((q) => {
      if (q.includes('ORDER BY started_at DESC')) return [summary, { ...summary, recording_id: 'next', started_at: '90' }];
      if (q.includes('SELECT count() AS n')) return [{ n: '0', newest: '0' }];
      if (q.includes('SELECT DISTINCT recording_id')) return [];
      if (q.includes('sum(event_count)')) return [summary];
      return [{ recording_id: id, key: 'plan', value: 'pro' }];
    });
    const r = await s.list('t', { limit: 1, offset: 0, includeSignedUrls: true, filters: [] });
    expect(r).toMatchObject({ limit: 1, offset: 0, hasMore: true, signedUrlsExpireAt: 42 });
    expect(r.recordings).toHaveLength(1);
    expect(r.recordings[0]).toMatchObject({
      recordingId: id,
      timestamp: 100,
      metadata: { plan: 'pro' },
      duration: 150,
      eventCount: 7,
      viewport: { width: 800, height: 600 },
    });
    expect(r.recordings[0].links.eventsSigned).toBe(`/recordings/${id}/events?tenantId=t&expires=42&keyId=k&signature=s`);
  });

  it("reads a finished recording's activity summary once until it changes, a live one's every time", async () => {
    let stored = summary;
    const counted: string[] = [];
    const s = service(
      (q) => {
        if (q.includes("countIf(kind = 'click')")) return (counted.push(q), [{ recording_id: id, clicks: '3', errors: '1', active_secs: '0', pages: [] }]);
        if (q.includes('ORDER BY started_at DESC')) return [stored];
        if (q.includes('SELECT count() AS n')) return [{ n: '0', newest: '0' }];
        if (q.includes('sum(event_count)')) return [stored];
        return [];
      },
      false,
      undefined,
      true,
    );
    const list = async () => (await s.list('t', { limit: 1, offset: 0, includeSignedUrls: false, filters: [] })).recordings[0].activity;
    expect(await list()).toMatchObject({ clicks: 3, errors: 1 });
    expect(await list()).toMatchObject({ clicks: 3, errors: 1 });
    expect(counted).toHaveLength(1);
    stored = { ...summary, event_count: '8', ended_at: '260' }; // a late batch
    await list();
    expect(counted).toHaveLength(2);
    stored = { ...summary, last_activity_at: String(Date.now()) }; // live
    await list();
    await list();
    expect(counted).toHaveLength(4);
  });

  it("starts reading the likely page's activity beside the page's checks; a recording the checks drop is not shown", async () => {
    const early = '11111111-1111-4111-8111-111111111111'; // started before the window: fails the edge check
    const next = '22222222-2222-4222-8222-222222222222';
    const log: string[] = [];
    const s = service(
      (q) => {
        if (q.includes("countIf(kind = 'click')")) {
          log.push(`activity ${[early, next].filter((x) => q.includes(x)).join(',')}`);
          return [early, next]
            .filter((x) => q.includes(x))
            .map((x, i) => ({ recording_id: x, clicks: String(i + 5), errors: '0', active_secs: '0', pages: [] }));
        }
        if (q.includes('ORDER BY started_at DESC')) {
          const excluded = q.includes(early);
          log.push(excluded ? 'window again' : 'window');
          return excluded
            ? [{ ...summary, recording_id: next, started_at: '90' }]
            : [
                { ...summary, recording_id: early },
                { ...summary, recording_id: next, started_at: '90' },
              ];
        }
        if (q.includes('SELECT DISTINCT recording_id')) return (log.push('edge check'), q.includes(early) ? [{ recording_id: early }] : []);
        if (q.includes('SELECT count() AS n')) return [{ n: '0', newest: '0' }];
        return [];
      },
      false,
      undefined,
      true,
    );
    const r = await s.list('t', { limit: 1, offset: 0, includeSignedUrls: false, filters: [] });
    expect(r.recordings.map((x) => [x.recordingId, x.activity.clicks])).toEqual([[next, 5]]);
    // The likely page's summary read goes out before its edge check; the page it became is read after the re-read.
    expect(log.slice(0, 3)).toEqual(['window', `activity ${early}`, 'edge check']);
    expect(log.filter((l) => l.startsWith('activity'))).toEqual([`activity ${early}`, `activity ${next}`]);
  });

  it("reads a likely recording's activity again when a wider window shows more of it", async () => {
    let windows = 0;
    const activityReads: string[] = [];
    const s = service(
      (q) => {
        if (q.includes("countIf(kind = 'click')")) {
          const whole = q.includes('BETWEEN 100 AND 250');
          activityReads.push(whole ? 'whole' : 'part');
          return [{ recording_id: id, clicks: whole ? '7' : '1', errors: '0', active_secs: '0', pages: [] }];
        }
        // The first window holds the recording's later batches only (it started before): the edge check drops it.
        if (q.includes('ORDER BY started_at DESC')) return [{ ...summary, started_at: ++windows === 1 ? '200' : '100' }];
        if (q.includes('SELECT DISTINCT recording_id')) return windows === 1 ? [{ recording_id: id }] : [];
        if (q.includes('SELECT count() AS n')) return [{ n: windows === 1 ? '1' : '0', newest: '100' }];
        return [];
      },
      false,
      undefined,
      true,
    );
    const r = await s.list('t', { limit: 1, offset: 0, includeSignedUrls: false, filters: [] });
    expect(r.recordings.map((x) => [x.recordingId, x.timestamp, x.activity.clicks])).toEqual([[id, 100, 7]]);
    expect(activityReads).toEqual(['part', 'whole']);
  });

  it('answers projected: false for a recording only JetStream has, and 404 for none', async () => {
    const detail = await service(() => [], true).get('t', id, false);
    expect(detail).toMatchObject({ recordingId: id, projected: false, timestamp: null, eventCount: 0, metadata: {} });
    await expect(service(() => [], false).get('t', id, false)).rejects.toMatchObject({ code: 'not_found' });
  });

  it('shows no projected rows older than a deletion marker the projector has not applied yet', async () => {
    const rows = (deletedThrough: number) => (q: string) => {
      if (q.startsWith('SELECT max(seq) AS deleted_seq FROM deleted_recordings')) return [{ deleted_seq: String(deletedThrough) }];
      if (q.includes('sum(event_count)')) return [summary];
      return [{ recording_id: id, key: 'plan', value: 'pro' }];
    };
    // Marker at 40 not projected (deleted_recordings says 0): nothing in JetStream after it → 404.
    await expect(service(rows(0), false, 40).get('t', id, false)).rejects.toMatchObject({ code: 'not_found' });
    // … events written again after the marker: the new recording, not yet projected.
    await expect(service(rows(0), true, 40).get('t', id, false)).resolves.toMatchObject({ projected: false, eventCount: 0, metadata: {} });
    // Marker projected: the rows are newer than it (the read model's deletion rule hides older ones).
    await expect(service(rows(40), true, 40).get('t', id, false)).resolves.toMatchObject({ projected: true, eventCount: 7, metadata: { plan: 'pro' } });
    await expect(service(rows(0), true, undefined).get('t', id, false)).resolves.toMatchObject({ projected: true, eventCount: 7 });
  });

  it('DELETE waits until deleted_recordings holds the marker, at most the given time', async () => {
    let polls = 0;
    const s = service((q) => (q.startsWith('SELECT max(seq) AS deleted_seq FROM deleted_recordings') ? [{ deleted_seq: ++polls >= 3 ? '41' : '0' }] : []));
    await expect(s.awaitDeletionProjected('t', id, 41, 2_000)).resolves.toBe(true);
    expect(polls).toBe(3);
    const started = Date.now();
    await expect(service(() => [{ deleted_seq: '0' }]).awaitDeletionProjected('t', id, 41, 200)).resolves.toBe(false);
    expect(Date.now() - started).toBeGreaterThanOrEqual(200);
    const down = () => Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' });
    await expect(service(down).awaitDeletionProjected('t', id, 41, 5_000)).resolves.toBe(false);
    // A frozen ClickHouse answers nothing: the query is given up at the deadline.
    const frozen = {
      rows: (_q: Sql, signal?: AbortSignal) => new Promise((_, reject) => signal?.addEventListener('abort', () => reject(signal.reason))),
    } as unknown as ClickHouse;
    const stuck = new RecordingsQueryService(new ListingPlanner(frozen), new RecordingsRepository(frozen), {} as RecordingEventsService, {} as LinkSigner);
    const t0 = Date.now();
    await expect(stuck.awaitDeletionProjected('t', id, 41, 300)).resolves.toBe(false);
    expect(Date.now() - t0).toBeLessThan(2_000);
  });

  it('falls back to JetStream when ClickHouse is unreachable, and says 503 on listings', async () => {
    const down = () => Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' });
    await expect(service(down, true).get('t', id, false)).resolves.toMatchObject({ projected: false });
    await expect(service(down, false).get('t', id, false)).rejects.toMatchObject({ code: 'not_found' });
    await expect(service(down).list('t', { limit: 5, offset: 0, includeSignedUrls: false, filters: [] })).rejects.toBeInstanceOf(AppError);
    await expect(service(down).list('t', { limit: 5, offset: 0, includeSignedUrls: false, filters: [] })).rejects.toMatchObject({ code: 'unavailable' });
  });
});
