import type { AppConfig } from '../config/config';
import type { ClickHouse } from '../infrastructure/clickhouse/clickhouse-client';
import type { Sql } from '../infrastructure/clickhouse/sql';
import type { RecordingSealer, SealOutcome } from '../infrastructure/nats/recording-sealer';
import { ArchiveWorker } from './archive-worker';
import { LOOKBACK_MS, SealCandidate, SealCandidatesRepository } from './seal-candidates.repository';

const CFG = { ARCHIVE_IDLE_SECONDS: 60, ARCHIVE_CONCURRENCY: 2, ARCHIVE_SCAN_SECONDS: 30 } as AppConfig;
const sealed: SealOutcome = { status: 'sealed', archive: 'a', batches: 1, rawBytes: 100, archiveBytes: 10 };

function setup(found: SealCandidate[], seal: (recordingId: string) => Promise<SealOutcome>, cfg = CFG) {
  const asked: string[] = [];
  let active = 0;
  let most = 0;
  const sealer = {
    seal: async (_t: string, r: string) => {
      asked.push(r);
      most = Math.max(most, ++active);
      try {
        return await seal(r);
      } finally {
        active--;
      }
    },
  } as RecordingSealer;
  const candidates = { candidates: async () => found } as unknown as SealCandidatesRepository;
  return { worker: new ArchiveWorker(sealer, candidates, cfg), asked, most: () => most };
}
const rec = (recordingId: string, storedAt = 1): SealCandidate => ({ tenantId: 't', recordingId, storedAt });

describe('ArchiveWorker', () => {
  afterEach(() => jest.useRealTimers());

  it('seals the idle recordings ARCHIVE_CONCURRENCY at a time, counting what is left and skipping the settled', async () => {
    const found = [rec('a'), rec('b'), rec('c'), rec('d'), rec('e')];
    const outcome: Record<string, () => Promise<SealOutcome>> = {
      b: async () => ({ status: 'busy' }),
      c: async () => Promise.reject(new Error('outage')),
      d: async () => ({ status: 'deleted' }),
    };
    const { worker, asked, most } = setup(found, (r) => outcome[r]?.() ?? Promise.resolve(sealed));
    await worker.pass();
    expect(asked).toEqual(['a', 'b', 'c', 'd', 'e']);
    expect(most()).toBe(2);
    expect([worker.sealed, worker.failed, worker.pending, worker.rawBytes, worker.archiveBytes]).toEqual([2, 1, 2, 200, 20]);
    // Sealed or deleted: not asked again until stored again; busy and failed ones are.
    asked.length = 0;
    await worker.pass();
    expect(asked).toEqual(['b', 'c']);
    found[0] = rec('a', 2);
    asked.length = 0;
    await worker.pass();
    expect(asked).toEqual(['a', 'b', 'c']);
  });

  it('passes every ARCHIVE_SCAN_SECONDS once started, and at shutdown takes no new recording and waits for those under way', async () => {
    jest.useFakeTimers();
    const releases: (() => void)[] = [];
    const { worker, asked } = setup([rec('a'), rec('b'), rec('c')], () => new Promise((r) => releases.push(() => r(sealed))));
    worker.onApplicationBootstrap();
    await jest.advanceTimersByTimeAsync(29_999);
    expect(asked).toEqual([]);
    await jest.advanceTimersByTimeAsync(1);
    expect(asked).toEqual(['a', 'b']);
    let down = false;
    const shutdown = worker.onApplicationShutdown().then(() => (down = true));
    await jest.advanceTimersByTimeAsync(60_000);
    expect(down).toBe(false);
    releases.forEach((r) => r());
    await shutdown;
    expect(asked).toEqual(['a', 'b']);
  });

  it('does not start when sealing is off', async () => {
    jest.useFakeTimers();
    const { worker, asked } = setup([rec('a')], async () => sealed, { ...CFG, ARCHIVE_CONCURRENCY: 0 });
    worker.onApplicationBootstrap();
    await jest.advanceTimersByTimeAsync(120_000);
    expect(asked).toEqual([]);
  });
});

describe('SealCandidatesRepository', () => {
  it('looks at the recordings whose last batch was stored between idleMs and idleMs + LOOKBACK_MS ago', async () => {
    const asked: string[] = [];
    const ch = { rows: async (q: Sql) => (asked.push(q.text), []) } as unknown as ClickHouse;
    await new SealCandidatesRepository(ch).candidates({ nowMs: 2 * LOOKBACK_MS, idleMs: 60_000, limit: 1000 });
    expect(asked[0]).toContain(`WHERE ingested_at >= ${LOOKBACK_MS - 60_000}`);
    expect(asked[0]).toContain(`WHERE stored_at >= ${LOOKBACK_MS - 60_000} AND stored_at <= ${2 * LOOKBACK_MS - 60_000} ORDER BY stored_at LIMIT 1000`);
  });
});
