import { recordingExists } from '../domain/event-store';
import { RecordingDeletion } from '../recordings/recording-deletion.service';
import { FIRST_SWEEP_DELAY_MS, globalRetentionMs, RetentionService } from './retention.service';

describe('RetentionService.sweep', () => {
  const DAY = 86_400_000;
  function make(
    tenants: { id: string; retentionDays?: number; status?: 'suspended' | 'deleting' }[],
    expired: Record<string, string[] | Error>,
    counts: Record<string, number>,
    failing = new Set<string>(),
    cfg: Record<string, number> = { RETENTION_SWEEP_SECONDS: 0 },
  ) {
    const deleted: string[] = [];
    const queries: string[] = [];
    const svc = new RetentionService(
      { listTenants: () => tenants, tenant: (id: string) => tenants.find((t) => t.id === id) } as never,
      {
        // As ClickHouse would: ids after the given one, in order, at most LIMIT.
        rows: async (q: { text: string }) => {
          queries.push(q.text);
          const t = /tenant_id = '([^']+)'/.exec(q.text)![1];
          const after = /recording_id > '([^']*)'/.exec(q.text)?.[1] ?? '';
          const limit = Number(/LIMIT (\d+)/.exec(q.text)![1]);
          const listed = expired[t] ?? [];
          if (listed instanceof Error) throw listed;
          return [...listed]
            .sort()
            .filter((id) => id > after)
            .slice(0, limit)
            .map((recording_id) => ({ recording_id }));
        },
      } as never,
      new RecordingDeletion({
        exists: async (_t: string, id: string) => recordingExists({ ev: counts[id] ?? 0, meta: 0, del: 0 }),
        deleteRecording: async (t: string, id: string) => {
          if (failing.has(id)) throw new Error('JetStream timeout');
          deleted.push(`${t}/${id}`);
        },
      } as never),
      { migrated: true } as never,
      cfg as never,
    );
    return { svc, deleted, queries };
  }

  it('deletes expired recordings of tenants with a retention period only', async () => {
    const { svc, deleted, queries } = make([{ id: 'a', retentionDays: 30 }, { id: 'b' }], { a: ['r1', 'r2'], b: ['r3'] }, { r1: 3, r2: 0, r3: 5 });
    const now = 100 * DAY;
    expect(await svc.sweep(now)).toBe(1);
    expect(deleted).toEqual(['a/r1']); // r2 was already purged; tenant b keeps everything
    expect(queries).toHaveLength(1);
    expect(queries[0]).toContain(`HAVING max(written) < ${now - 30 * DAY}`);
  });

  it("applies the stream's age limit, less two sweeps, to every tenant, and a shorter own period before it", async () => {
    const cfg = { STREAM_MAX_AGE_DAYS: 30, STREAM_MAX_AGE_SECONDS: 0, RETENTION_SWEEP_SECONDS: 3600 };
    const tenants = [{ id: 'a', retentionDays: 7 }, { id: 'b' }, { id: 'c', retentionDays: 90 }, { id: 'd', status: 'deleting' as const }];
    const { svc, deleted, queries } = make(tenants, { a: ['r1'], b: ['r2'], c: ['r3'], d: ['r4'] }, { r1: 1, r2: 1, r3: 1, r4: 1 }, new Set(), cfg);
    const now = 100 * DAY;
    expect(await svc.sweep(now)).toBe(3);
    expect(deleted).toEqual(['a/r1', 'b/r2', 'c/r3']);
    const global = now - (30 * DAY - 2 * 3_600_000);
    expect(queries.map((q) => /HAVING max\(written\) < (\d+)/.exec(q)![1])).toEqual([String(now - 7 * DAY), String(global), String(global)]);
  });

  it('takes the global period from the seconds override, never below half the limit, and none without sweeps', () => {
    expect(globalRetentionMs({ STREAM_MAX_AGE_DAYS: 0, STREAM_MAX_AGE_SECONDS: 10, RETENTION_SWEEP_SECONDS: 1 })).toBe(8_000);
    expect(globalRetentionMs({ STREAM_MAX_AGE_DAYS: 1, STREAM_MAX_AGE_SECONDS: 0, RETENTION_SWEEP_SECONDS: 86_400 })).toBe(DAY / 2);
    expect(globalRetentionMs({ STREAM_MAX_AGE_DAYS: 0, STREAM_MAX_AGE_SECONDS: 0, RETENTION_SWEEP_SECONDS: 3600 })).toBe(0);
    expect(globalRetentionMs({ STREAM_MAX_AGE_DAYS: 30, STREAM_MAX_AGE_SECONDS: 0, RETENTION_SWEEP_SECONDS: 0 })).toBe(0);
  });

  it('deletes every expired recording in one sweep, a page of ids at a time', async () => {
    const ids = Array.from({ length: 1201 }, (_, i) => `r${String(i).padStart(5, '0')}`);
    const { svc, deleted, queries } = make([{ id: 'a', retentionDays: 1 }], { a: ids }, Object.fromEntries(ids.map((id) => [id, 1])));
    expect(await svc.sweep(10 * DAY)).toBe(1201);
    expect(deleted).toEqual(ids.map((id) => `a/${id}`));
    expect(queries).toHaveLength(3);
    expect(queries[1]).toContain(`recording_id > '${ids[499]}'`);
  });

  it('retries a deletion that failed part way at the next sweep, though ClickHouse no longer lists it as expired', async () => {
    const failing = new Set(['r1']);
    const expired: Record<string, string[]> = { a: ['r1'] };
    const { svc, deleted } = make([{ id: 'a', retentionDays: 1 }], expired, { r1: 3 }, failing);
    expect(await svc.sweep(10 * DAY)).toBe(0);
    // The marker was projected meanwhile: the recording's rows are gone, its messages may not be.
    expired.a = [];
    failing.clear();
    expect(await svc.sweep(10 * DAY)).toBe(1);
    expect(deleted).toEqual(['a/r1']);
    expect(await svc.sweep(10 * DAY)).toBe(0);
  });
  it('writes no deletion marker for a tenant being deleted (its deletion removes everything), and still sweeps a suspended one', async () => {
    const tenants: { id: string; retentionDays: number; status?: 'suspended' | 'deleting' }[] = [
      { id: 'a', retentionDays: 1, status: 'deleting' },
      { id: 'b', retentionDays: 1, status: 'suspended' },
    ];
    const failing = new Set(['r1']);
    const { svc, deleted } = make(tenants, { a: ['r1', 'r2'], b: ['r3'] }, { r1: 1, r2: 1, r3: 1 }, failing);
    expect(await svc.sweep(10 * DAY)).toBe(1);
    expect(deleted).toEqual(['b/r3']);
    // A deletion left unfinished before the tenant deletion began is not retried either.
    tenants[0].status = undefined;
    expect(await svc.sweep(10 * DAY)).toBe(2); // r1 fails, r2 and r3 go
    tenants[0].status = 'deleting';
    failing.clear();
    deleted.length = 0;
    expect(await svc.sweep(10 * DAY)).toBe(1);
    expect(deleted).toEqual(['b/r3']);
  });

  it('goes on past a recording it could not delete, and past a tenant it could not list', async () => {
    const { svc, deleted } = make(
      [
        { id: 'a', retentionDays: 1 },
        { id: 'broken', retentionDays: 1 },
        { id: 'b', retentionDays: 1 },
      ],
      { a: ['r1', 'r2'], broken: new Error('ClickHouse timeout'), b: ['r3'] },
      { r1: 1, r2: 1, r3: 1 },
      new Set(['r1']),
    );
    expect(await svc.sweep(10 * DAY)).toBe(2);
    expect(deleted).toEqual(['a/r2', 'b/r3']);
  });
});

describe('RetentionService schedule', () => {
  afterEach(() => jest.useRealTimers());

  it('sweeps a minute after start, then every interval, and stops at shutdown', async () => {
    jest.useFakeTimers();
    const svc = new RetentionService({} as never, {} as never, {} as never, { migrated: true } as never, { RETENTION_SWEEP_SECONDS: 3600 } as never);
    const sweeps: number[] = [];
    jest.spyOn(svc, 'sweep').mockImplementation(async () => (sweeps.push(Date.now()), 0));
    const start = Date.now();
    svc.onApplicationBootstrap();
    await jest.advanceTimersByTimeAsync(FIRST_SWEEP_DELAY_MS - 1);
    expect(sweeps).toEqual([]);
    await jest.advanceTimersByTimeAsync(1);
    expect(sweeps).toEqual([start + FIRST_SWEEP_DELAY_MS]);
    await jest.advanceTimersByTimeAsync(3600_000);
    expect(sweeps).toEqual([start + FIRST_SWEEP_DELAY_MS, start + FIRST_SWEEP_DELAY_MS + 3600_000]);
    await svc.onApplicationShutdown();
    await jest.advanceTimersByTimeAsync(10 * 3600_000);
    expect(sweeps).toHaveLength(2);
  });

  it('sweeps after one interval when the interval is shorter than a minute', async () => {
    jest.useFakeTimers();
    const svc = new RetentionService({} as never, {} as never, {} as never, { migrated: true } as never, { RETENTION_SWEEP_SECONDS: 5 } as never);
    const sweep = jest.spyOn(svc, 'sweep').mockResolvedValue(0);
    svc.onApplicationBootstrap();
    await jest.advanceTimersByTimeAsync(5_000);
    expect(sweep).toHaveBeenCalledTimes(1);
    await svc.onApplicationShutdown();
  });
});
