import { Pacer } from './pacer';

describe('Pacer', () => {
  // 50 ms may go at once; up to 2 s of waiting.
  const pacer = () => new Pacer(0.05, 2);

  it('lets requests within the tolerance go at once, then spaces the rest at the rate', () => {
    const p = pacer();
    // Requests of 10 ms of the rate each, all arriving at t=0.
    const waits = Array.from({ length: 8 }, () => p.pace('t', 0.01, 0).waitSeconds!);
    // Each pays after it goes: the sixth finds the 50 ms spent, the seventh 10 ms of debt.
    expect(waits.map((w) => Math.round(w * 1000))).toEqual([0, 0, 0, 0, 0, 0, 10, 20]);
  });

  it('does not delay a tenant below its rate', () => {
    const p = pacer();
    for (let t = 0; t < 5000; t += 50) expect(p.pace('t', 0.01, t)).toEqual({ waitSeconds: 0 });
  });

  it('keeps a tenant flooding at its rate: each request waits its turn, and one more than the longest delay ahead is refused', () => {
    // Binary fractions, so the sums are exact: 0.25 s at once, up to 2 s of waiting, requests of 0.25 s.
    const p = new Pacer(0.25, 2);
    const waits = Array.from({ length: 10 }, () => p.pace('t', 0.25, 0).waitSeconds);
    expect(waits).toEqual([0, 0, 0.25, 0.5, 0.75, 1, 1.25, 1.5, 1.75, 2]);
    // The eleventh would wait 2.25 s: refused, for the 0.25 s after which it would wait 2.
    expect(p.pace('t', 0.25, 0)).toEqual({ refusedForSeconds: 0.25 });
    // 250 ms later the schedule has moved on by as much: one more waits its 2 s.
    expect(p.pace('t', 0.25, 250)).toEqual({ waitSeconds: 2 });
  });

  it('keeps tenants apart', () => {
    const p = pacer();
    for (let i = 0; i < 300; i++) p.pace('a', 0.01, 0);
    expect(p.pace('b', 0.01, 0)).toEqual({ waitSeconds: 0 });
  });

  it('lets the first request after a pause go at once whatever its cost, and makes the next wait until it is paid', () => {
    const p = pacer();
    // An 8 MiB batch at 2 MiB/s: 4 s of the rate.
    expect(p.pace('t', 4, 0)).toEqual({ waitSeconds: 0 });
    // A second one a second later would wait 2.95 s: refused for the 0.95 s after which it would wait 2.
    expect(p.pace('t', 4, 1000).refusedForSeconds).toBeCloseTo(0.95, 5);
    expect(p.pace('t', 4, 1950).waitSeconds).toBeCloseTo(2, 5);
    // Once both are paid for, the next goes at once.
    expect(p.pace('t', 4, 8000)).toEqual({ waitSeconds: 0 });
  });

  it("holds at most maxHeld of a tenant's requests at once, and refuses the next until the first of them goes", () => {
    // Requests of about 1 ms of the rate (binary fractions, so the sums are exact): 2 s of delay would hold 2 000 of them.
    const ms = 2 ** -10;
    const p = new Pacer(64 * ms, 2, 100);
    const paces = Array.from({ length: 166 }, () => p.pace('t', ms, 0));
    // 65 go at once (the tolerance, and the one that spends its last), 100 wait, the next is refused until the first of those goes.
    expect(paces.filter((x) => x.waitSeconds === 0)).toHaveLength(65);
    expect(paces.filter((x) => x.waitSeconds! > 0)).toHaveLength(100);
    expect(paces[165]).toEqual({ refusedForSeconds: ms });
    // 10 ms later the first ten have gone: one more waits its turn, behind the 100 scheduled (less the 10 ms).
    expect(p.pace('t', ms, 10).waitSeconds).toBeCloseTo(101 * ms - 0.01, 9);
    // Other tenants are not held by it.
    expect(p.pace('u', 0.001, 0)).toEqual({ waitSeconds: 0 });
  });

  it('schedules what is owed without refusing it, and makes the requests after it wait for it', () => {
    // Binary fractions again: 0.25 s at once, up to 2 s of waiting.
    const p = new Pacer(0.25, 2);
    // A read's chunks of 0.5 s of the rate each: the first goes, each next waits for the debt it finds, beyond the longest delay too.
    expect([1, 2, 3, 4, 5, 6, 7].map(() => p.owe('t', 0.5, 0))).toEqual([0, 0.25, 0.75, 1.25, 1.75, 2.25, 2.75]);
    // A request then finds 3.25 s of debt: refused for the 1.25 s after which it would wait 2.
    expect(p.pace('t', 0.25, 0)).toEqual({ refusedForSeconds: 1.25 });
    expect(p.pace('t', 0.25, 1250)).toEqual({ waitSeconds: 2 });
    // Not counted among the held: another tenant's schedule is its own, and nothing owed is free.
    expect(p.owe('u', 0, 0)).toBe(0);
    expect(p.owe('u', 0.5, 0)).toBe(0);
  });

  it('ignores costless requests', () => {
    const p = pacer();
    p.pace('t', 100, 0);
    expect(p.pace('t', 0, 0)).toEqual({ waitSeconds: 0 });
  });
});
