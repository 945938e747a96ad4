import { RefusedBodies } from './refused-bodies';

describe('RefusedBodies', () => {
  const MiB = 1024 * 1024;

  it("drains a tenant's refused bodies up to its byte rate and burst, then leaves them unread until the allowance refills", () => {
    const r = new RefusedBodies(2);
    const t0 = 1_000_000;
    // 2 MiB/s with a 2 s burst: 4 MiB drained at once, the next 1 MiB not.
    expect([1, 1, 1, 1].map(() => r.drains('a', MiB, 2 * MiB, t0))).toEqual([true, true, true, true]);
    expect(r.drains('a', MiB, 2 * MiB, t0)).toBe(false);
    expect(r.drains('a', MiB, 2 * MiB, t0 + 400)).toBe(false);
    expect(r.drains('a', MiB, 2 * MiB, t0 + 500)).toBe(true);
  });

  it('drains a body above the burst once the allowance is full, and then not until that debt is paid (a client waiting for Retry-After)', () => {
    const r = new RefusedBodies(2);
    const t0 = 1_000_000;
    expect(r.drains('a', 8 * MiB, 2 * MiB, t0)).toBe(true);
    // 4 MiB of debt: 2 s to zero, 4 s to a full burst again.
    expect(r.drains('a', 8 * MiB, 2 * MiB, t0 + 50)).toBe(false);
    expect(r.drains('a', 8 * MiB, 2 * MiB, t0 + 3000)).toBe(false);
    expect(r.drains('a', 8 * MiB, 2 * MiB, t0 + 4000)).toBe(true);
  });

  it('keeps tenants apart, and always drains for a tenant without a byte rate', () => {
    const r = new RefusedBodies(1);
    expect(r.drains('a', 10, 10, 0)).toBe(true);
    expect(r.drains('a', 10, 10, 0)).toBe(false);
    expect(r.drains('b', 10, 10, 0)).toBe(true);
    expect([1, 2, 3].map(() => r.drains('c', 1e9, 0, 0))).toEqual([true, true, true]);
  });
});
