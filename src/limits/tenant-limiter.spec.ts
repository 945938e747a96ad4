import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { loadConfig } from '../config/config';
import type { TenantRegistry } from '../auth/tenant-registry';
import type { MetricsService } from '../metrics/metrics.service';
import type { StorageUsageRepository } from '../read-model/storage-usage.repository';
import type { LimitDocuments } from './limit-documents';
import { MemoryDocuments } from './testing/memory-documents';
import { TenantLimiter } from './tenant-limiter.service';

const made: TenantLimiter[] = [];
afterAll(() => made.forEach((l) => l.onModuleDestroy()));

/** A limiter over documents in memory, every tenant at the defaults of `env`. */
function limiter(env: Record<string, string>, refusals: string[] = []) {
  const registry = { tenant: () => undefined } as unknown as TenantRegistry;
  const count = (labels: { limit: string }) => void refusals.push(labels.limit);
  const metrics = { labelledCounter: () => count, gauge: () => undefined } as unknown as MetricsService;
  // The contention guard reads this machine's CPU pressure: off unless a spec turns it on.
  const l = new TenantLimiter(
    registry,
    loadConfig({ TENANT_CPU_PRESSURE: '0', ...env }),
    new MemoryDocuments() as unknown as LimitDocuments,
    {} as StorageUsageRepository,
    metrics,
  );
  made.push(l);
  return l;
}

describe('TenantLimiter.paceIngest', () => {
  afterEach(() => jest.restoreAllMocks());
  const base = { TENANT_INGEST_EVENTS_PER_SECOND: '1000', TENANT_INGEST_BYTES_PER_SECOND: '1000000', TENANT_BURST_SECONDS: '2' };

  it("spaces a tenant's requests by the costlier of its rates, estimating a body's events from its recent batches", async () => {
    // The clock stands still: requests "sent at once" are, however busy the machine running the spec.
    jest.spyOn(Date, 'now').mockReturnValue(1_700_000_000_000);
    const l = limiter(base);
    // The first of two bodies sent at once goes, the second waits for what the first costs, less 50 ms.
    const second = (tenantId: string) => (l.paceIngest(tenantId, 30_000), l.paceIngest(tenantId, 30_000));
    // Before any batch: 300 bytes an event assumed, so 30 000 bytes is 100 events, 0.1 s of the event rate (0.03 s of the byte rate).
    expect(l.paceIngest('t', 30_000)).toBe(0);
    expect(l.paceIngest('t', 30_000)).toBeCloseTo(0.05, 2);
    // Batches of 100 bytes an event seen: the same body is now 300 events, 0.3 s.
    for (let i = 0; i < 20; i++) await l.admitIngest('u', 10, 1000, 1000);
    expect(second('u')).toBeCloseTo(0.25, 2);
    // Compressed bodies of a tenth of what they store, 1 000 bytes an event stored: 30 000 bytes
    // received are 300 events (0.3 s of the event rate) and 300 000 bytes (also 0.3 s of the byte rate).
    for (let i = 0; i < 20; i++) await l.admitIngest('v', 10, 10_000, 1000);
    expect(second('v')).toBeCloseTo(0.25, 2);
    // WebSocket batches (nothing received as a body) leave the estimate alone.
    await l.admitIngest('w', 1, 1_000_000);
    expect(second('w')).toBeCloseTo(0.05, 2);
  });

  it('refuses with the limit that costs most, once a request would wait more than TENANT_BURST_SECONDS', () => {
    const l = limiter(base);
    let refusal: unknown;
    for (let i = 0; i < 100 && !refusal; i++) {
      try {
        l.paceIngest('t', 30_000);
      } catch (e) {
        refusal = e;
      }
    }
    expect(refusal).toMatchObject({ code: 'rate_limited', limit: 'ingestEventsPerSecond', retryAfterSeconds: 1 });
  });

  it('holds nothing when pacing is off or the tenant is unlimited', () => {
    expect(limiter({ ...base, TENANT_PACING: 'false' }).paceIngest('t', 1e9)).toBe(0);
    expect(limiter({ ...base, TENANT_INGEST_EVENTS_PER_SECOND: '0', TENANT_INGEST_BYTES_PER_SECOND: '0' }).paceIngest('t', 1e9)).toBe(0);
  });
});

describe('TenantLimiter.startRender', () => {
  const base = { TENANT_RENDERS: '100', TENANT_RENDERS_PER_SECOND: '10', TENANT_BURST_SECONDS: '1' };
  /** Starts `n` renders of the tenant at once: each one's milliseconds until admitted, or its refusal. */
  const start = (l: TenantLimiter, tenantId: string, n: number, opts?: { rate: boolean }) => {
    const t0 = performance.now();
    return Promise.all(
      Array.from({ length: n }, () =>
        l.startRender(tenantId, opts).then(
          () => performance.now() - t0,
          (e: unknown) => e as { limit: string; retryAfterSeconds: number },
        ),
      ),
    );
  };

  it("spaces a tenant's renders to its render rate, two at once, and holds no other tenant", async () => {
    const l = limiter(base);
    const [a, b] = await Promise.all([start(l, 'a', 7), start(l, 'b', 2)]);
    // 0.1 s of the rate each, 0.2 s going at once, each paid after it goes: three go, the fourth
    // waits 0.1 s, the seventh 0.4 s.
    expect(a).toEqual(Array(7).fill(expect.any(Number)));
    expect((a as number[])[3]).toBeGreaterThanOrEqual(95);
    expect((a as number[])[6]).toBeGreaterThanOrEqual(395);
    expect(Math.max(...(b as number[]))).toBeLessThan((a as number[])[3]);
  });

  it('refuses a render further ahead than TENANT_BURST_SECONDS, naming the rate, and frees its slot', async () => {
    const l = limiter({ ...base, TENANT_RENDERS: '11', TENANT_BURST_SECONDS: '0.5' });
    // Three at once and five held (up to 0.5 s); the other four are refused by the rate, each after
    // it took a slot (with eleven slots, the last would otherwise be refused as one render too many).
    const out = await start(l, 't', 12);
    expect(out.filter((x) => typeof x === 'number')).toHaveLength(8);
    const refused = out.filter((x) => typeof x !== 'number');
    expect(refused).toEqual(Array(4).fill(expect.objectContaining({ limit: 'rendersPerSecond', retryAfterSeconds: expect.any(Number) })));
    expect(String(refused[0])).toMatch(/Render rate limit reached: this tenant may use 10 renders per second \(limit rendersPerSecond\)/);
    // The slots: eight held, three free.
    const more = await start(l, 't', 4, { rate: false });
    expect(more.filter((x) => typeof x === 'number')).toHaveLength(3);
    expect(more.find((x) => typeof x !== 'number')).toMatchObject({ limit: 'renders' });
  });

  it('does not pace or take background renders (thumbnails) from the rate', async () => {
    const l = limiter({ ...base, TENANT_RENDERS_PER_SECOND: '1' });
    const out = await start(l, 't', 20, { rate: false });
    expect(Math.max(...(out as number[]))).toBeLessThan(500);
    expect(await start(l, 't', 1)).toEqual([expect.any(Number)]);
  });

  it("without pacing, lets the bucket's burst through at once and refuses the next", async () => {
    // One a second, ten seconds deep: paced, the second would wait 0.8 s.
    const out = await start(limiter({ ...base, TENANT_RENDERS_PER_SECOND: '1', TENANT_BURST_SECONDS: '10', TENANT_PACING: 'false' }), 't', 11);
    expect(out.slice(0, 10)).toEqual(Array(10).fill(expect.any(Number)));
    expect(Math.max(...(out.slice(0, 10) as number[]))).toBeLessThan(500);
    expect(out[10]).toMatchObject({ limit: 'rendersPerSecond' });
  });
});

describe('TenantLimiter.metered', () => {
  // 1 MiB a second, two seconds deep: 512 KiB at once (the paced tolerance), the rest at the rate.
  const base = { TENANT_READ_BYTES_PER_SECOND: String(1024 * 1024), TENANT_BURST_SECONDS: '2' };
  const KiB = 1024;
  /** Reads `n` chunks of 64 KiB through the limiter: ms until done. */
  const read = async (l: TenantLimiter, tenantId: string, n: number) => {
    const t0 = performance.now();
    const body = await l.metered(tenantId, () => Readable.from(Array.from({ length: n }, () => Buffer.alloc(64 * KiB))));
    let bytes = 0;
    for await (const c of body) bytes += (c as Buffer).length;
    expect(bytes).toBe(n * 64 * KiB);
    return performance.now() - t0;
  };

  it("paced, passes a read's bytes beyond the tolerance at the rate, though the bucket holds them", async () => {
    // 1 MiB: 256 KiB prepaid, 256 KiB more within the tolerance, the other 512 KiB at 1 MiB a second (the last chunk waits for seven).
    expect(await read(limiter(base), 't', 16)).toBeGreaterThanOrEqual(400);
  });

  it("without pacing, lets the bucket's burst through at once", async () => {
    expect(await read(limiter({ ...base, TENANT_PACING: 'false' }), 't', 16)).toBeLessThan(300);
  });

  it("keeps tenants' paces apart, and refuses a read that would wait more than TENANT_BURST_SECONDS", async () => {
    const l = limiter({ ...base, TENANT_READ_BYTES_PER_SECOND: String(256 * KiB) });
    // Each read prepays 256 KiB, a second of this rate, paid after it goes: the first goes at once,
    // the second waits for the first (less the tolerance: 0.5 s), the third for both, the fourth would wait more than 2 s.
    const t0 = performance.now();
    const reads = [0, 1, 2, 3].map(() => l.metered('t', () => Readable.from([Buffer.alloc(1)])).then(() => performance.now() - t0));
    const out = await Promise.allSettled(reads);
    expect(out.map((o) => o.status)).toEqual(['fulfilled', 'fulfilled', 'fulfilled', 'rejected']);
    const [first, second, third] = out.map((o) => (o as PromiseFulfilledResult<number>).value);
    expect(first).toBeLessThan(200);
    expect(second).toBeGreaterThanOrEqual(490);
    expect(third).toBeGreaterThanOrEqual(1490);
    expect((out[3] as PromiseRejectedResult).reason).toMatchObject({ limit: 'readBytesPerSecond', retryAfterSeconds: expect.any(Number) });
    // Another tenant reads at once meanwhile.
    expect(await read(l, 'u', 1)).toBeLessThan(300);
  });
});

describe('TenantLimiter: a tenant pressing on a contended machine', () => {
  it("holds a tenant's renders beyond its share of those it keeps in progress, refuses them after TENANT_BURST_SECONDS, and holds no other tenant", async () => {
    // A machine whose CPU is always contended: the pressure file gains a full tick's stall at every read.
    const dir = mkdtempSync(join(tmpdir(), 'psi-'));
    const file = join(dir, 'cpu');
    let stalledUs = 0;
    const write = () => writeFileSync(file, `some avg10=0 avg60=0 avg300=0 total=${(stalledUs += 20_000)}\nfull total=0\n`);
    write();
    const stall = setInterval(write, 20);
    try {
      const refusals: string[] = [];
      const l = limiter(
        { TENANT_CPU_PRESSURE: '0.25', CPU_PRESSURE_FILE: file, TENANT_RENDERS: '100', TENANT_RENDERS_PER_SECOND: '1000', TENANT_BURST_SECONDS: '0.3' },
        refusals,
      );
      const aRenders = await Promise.all(Array.from({ length: 6 }, () => l.startRender('a')));
      const bRender = await l.startRender('b');
      await new Promise((r) => setTimeout(r, 700)); // a few ticks: A, with six in progress against B's one, is slowed
      const started = Date.now();
      await expect(l.startRender('a')).rejects.toMatchObject({
        code: 'rate_limited',
        message: expect.stringMatching(/slowed to \d+% of its limits while this instance's CPU is contended \(TENANT_CPU_PRESSURE\): at most 1 render at once/),
      });
      expect(Date.now() - started).toBeGreaterThanOrEqual(290);
      expect(refusals).toEqual(['contention']);
      const bNext = Date.now();
      (await l.startRender('b'))();
      expect(Date.now() - bNext).toBeLessThan(100);
      // Once A's renders end, its next one starts.
      aRenders.forEach((free) => free());
      (await l.startRender('a'))();
      bRender();
    } finally {
      clearInterval(stall);
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
