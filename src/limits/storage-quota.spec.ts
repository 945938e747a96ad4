import { AppError, statusOf } from '../common/app-error';
import { StorageQuota } from './storage-quota';

function source(bytes: number) {
  const s = { bytes, calls: 0, fail: false, gate: undefined as Promise<void> | undefined };
  return Object.assign(s, {
    async storedBytes() {
      s.calls++;
      await s.gate;
      if (s.fail) throw new Error('clickhouse down');
      return s.bytes;
    },
  });
}

describe('StorageQuota', () => {
  afterEach(() => jest.useRealTimers());

  it("refuses with 507, naming the limit, once the projections' count reaches the quota", async () => {
    const q = new StorageQuota(source(1000), 10_000, jest.fn());
    const refusal = await q.assertRoom('t', 1000).catch((e: unknown) => e);
    expect(statusOf((refusal as AppError).code)).toBe(507);
    expect(refusal).toMatchObject({ retryAfterSeconds: 10 });
    expect((refusal as Error).message).toMatch(
      /^Storage quota exceeded: this tenant stores 1000 of its 1000 bytes \(limit storedBytes\); nothing of this batch was stored/,
    );
    await expect(q.assertRoom('t', 1001)).resolves.toBeUndefined();
    await expect(q.assertRoom('t', 0)).resolves.toBeUndefined();
  });

  it('counts what this instance stored since the last read, and re-reads after the interval', async () => {
    jest.useFakeTimers({ now: 1_000_000, doNotFake: ['setImmediate'] });
    const src = source(100);
    const q = new StorageQuota(src, 10_000, jest.fn());
    await q.assertRoom('t', 1000);
    q.added('t', 850);
    await expect(q.assertRoom('t', 1000)).resolves.toBeUndefined();
    q.added('t', 50);
    expect(() => q.assertKnownRoom('t', 1000)).toThrow(/stores 1000 of its 1000/);
    // Recordings deleted meanwhile: the next read (after the interval) finds less, and the bytes added
    // before that read began are in it.
    src.bytes = 300;
    jest.advanceTimersByTime(10_000);
    q.assertKnownRoom('t', 1000 + 1e9); // starts the read
    await new Promise((r) => setImmediate(r));
    expect(src.calls).toBe(2);
    await expect(q.assertRoom('t', 1000)).resolves.toBeUndefined();
  });

  it('lets ingestion through when the usage cannot be read (fail open), and says so', async () => {
    const src = source(5000);
    src.fail = true;
    const failed = jest.fn();
    const q = new StorageQuota(src, 10_000, failed);
    await expect(q.assertRoom('t', 1000)).resolves.toBeUndefined();
    expect(failed).toHaveBeenCalledTimes(1);
  });

  it('does not wait more than two seconds for a first read', async () => {
    jest.useFakeTimers({ now: 1_000_000, doNotFake: ['setImmediate'] });
    const src = source(5000);
    src.gate = new Promise(() => undefined);
    const q = new StorageQuota(src, 10_000, jest.fn());
    const check = q.assertRoom('t', 1000);
    jest.advanceTimersByTime(2000);
    await expect(check).resolves.toBeUndefined();
  });
});
