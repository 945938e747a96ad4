import { BUSY_IN_PROGRESS, Contention, CpuPressure, MIN_FACTOR, NEW_MS, TICK_MS } from './contention';

const A = 'tenant-a';
const B = 'tenant-b';

/** Runs `ticks` ticks at `pressure`, A's requests all held by its rates and B's all going at once, each tick. */
function run(c: Contention, ticks: number, pressure: number, at: { now: number }, who = { a: true, b: true }) {
  for (let i = 0; i < ticks; i++) {
    at.now += TICK_MS;
    if (who.a) c.note(A, true, at.now);
    if (who.b) c.note(B, false, at.now);
    c.tick(pressure, at.now);
  }
}

/** Ticks in a second. */
const SECOND = 1000 / TICK_MS;

/** Whether the promise has settled after the pending jobs ran. */
async function settled(p: Promise<unknown>) {
  let done = false;
  void p.then(() => (done = true));
  await new Promise((r) => setImmediate(r));
  return done;
}

/** A guard at a threshold of 0.4, and its clock. */
const start = () => ({ c: new Contention(0.4), at: { now: 0 } });

describe('Contention', () => {
  it('slows the tenant held by its rates while the CPU is contended and another tenant works within its limits', () => {
    const { c, at } = start();
    run(c, 12, 0.9, at);
    expect(c.factor(A)).toBeLessThan(0.2);
    expect(c.factor(B)).toBe(1);
    expect(c.slowed).toBe(1);
  });

  it('halves the share each tick: the least share within half a second of the contention', () => {
    const { c, at } = start();
    run(c, 8, 0, at); // A presses against its rates on an idle machine: not slowed
    expect(c.factor(A)).toBe(1);
    run(c, 1, 1, at); // the smoothed pressure is 0.5 after one tick: above the threshold
    expect(c.factor(A)).toBe(0.5);
    run(c, 3, 1, at);
    expect(c.factor(A)).toBe(MIN_FACTOR);
  });

  it('never slows below the least share', () => {
    const { c, at } = start();
    run(c, 100, 1, at);
    expect(c.factor(A)).toBe(MIN_FACTOR);
  });

  it('does not slow a tenant alone on the instance: there is no one to protect', () => {
    const { c, at } = start();
    run(c, 20, 1, at, { a: true, b: false });
    expect(c.factor(A)).toBe(1);
  });

  it('does not slow tenants that all press against their limits', () => {
    const { c, at } = start();
    for (let i = 0; i < 20; i++) {
      at.now += TICK_MS;
      c.note(A, true, at.now);
      c.note(B, true, at.now);
      c.tick(1, at.now);
    }
    expect([c.factor(A), c.factor(B)]).toEqual([1, 1]);
  });

  it('does not slow a tenant whose requests wait now and then, only one whose requests mostly wait', () => {
    const { c, at } = start();
    for (let i = 0; i < 40; i++) {
      at.now += TICK_MS;
      c.note(A, i % 4 === 0, at.now); // a quarter of its requests wait
      c.note(B, false, at.now);
      c.tick(1, at.now);
    }
    expect(c.factor(A)).toBe(1);
  });

  it('leaves the factors alone between half the threshold and the threshold, and gives the limits back below half of it', () => {
    const { c, at } = start();
    run(c, 8, 1, at);
    run(c, 4, 0.3, at); // the smoothed pressure settles at 0.3: between 0.2 and 0.4
    const slowed = c.factor(A);
    expect(slowed).toBeLessThan(1);
    run(c, 20, 0.3, at);
    expect(c.factor(A)).toBe(slowed);
    run(c, 3 * SECOND, 0, at); // all of it back within about two seconds
    expect(c.factor(A)).toBe(1);
    expect(c.slowed).toBe(0);
  });

  it('gives the limits back once the tenants within theirs stop working, whatever the pressure', () => {
    const { c, at } = start();
    run(c, 8, 1, at);
    expect(c.factor(A)).toBeLessThan(1);
    run(c, 2 * SECOND + 3 * SECOND, 1, at, { a: true, b: false }); // B idle for 2 s, then A alone
    expect(c.factor(A)).toBe(1);
  });

  it('stops counting a tenant as held a second after its rates last decided on it', () => {
    const { c, at } = start();
    run(c, 8, 1, at);
    const f = c.factor(A);
    expect(f).toBeLessThan(1);
    // A keeps working, but none of its requests passes a rate (say, only cached images).
    for (let i = 0; i < 12; i++) {
      at.now += TICK_MS;
      c.note(A, undefined, at.now);
      c.note(B, false, at.now);
      c.tick(1, at.now);
    }
    expect(c.factor(A)).toBeLessThan(f); // still held during the first second
    const after = c.factor(A);
    run(c, 4, 1, at, { a: false, b: true });
    expect(c.factor(A)).toBe(after);
  });

  it('smooths the pressure over ticks: one busy tick alone does not slow anyone', () => {
    const c = new Contention(0.6);
    const at = { now: 0 };
    run(c, 4, 0.1, at);
    run(c, 1, 1, at);
    expect(c.factor(A)).toBe(1);
    expect(c.pressure).toBeCloseTo(0.55, 1);
  });
});

describe('Contention: reads and renders in progress', () => {
  /** Starts `n` of the tenant's reads or renders at `now` (none slowed: each starts at once); their ends. */
  async function begun(c: Contention, tenant: string, kind: 'read' | 'render', n: number, now: number) {
    const ends: (() => void)[] = [];
    for (let i = 0; i < n; i++) ends.push((await c.begin(tenant, kind, 1000, now))!);
    return ends;
  }

  it('slows a tenant keeping many reads and renders in progress, though no rate of it ever waits', async () => {
    const { c, at } = start();
    await begun(c, A, 'read', 4, at.now);
    await begun(c, A, 'render', 4, at.now);
    const [bRender] = await begun(c, B, 'render', 1, at.now);
    at.now += TICK_MS;
    c.note(A, false, at.now); // A's rates never hold it: its limits are beyond what the machine serves
    c.note(B, false, at.now);
    c.tick(1, at.now); // the first tick of a flood already slows it
    expect(c.factor(A)).toBe(0.5);
    expect(c.factor(B)).toBe(1);
    bRender();
  });

  it('does not count a tenant as pressing with few in progress, or with as many as the others', async () => {
    const { c, at } = start();
    await begun(c, A, 'read', BUSY_IN_PROGRESS - 1, at.now);
    await begun(c, B, 'render', 1, at.now);
    run(c, 3, 1, at, { a: false, b: true });
    expect(c.factor(A)).toBe(1);
    const other = start();
    await begun(other.c, A, 'read', 8, 0);
    await begun(other.c, B, 'read', 6, 0);
    run(other.c, 3, 1, other.at, { a: false, b: false });
    expect([other.c.factor(A), other.c.factor(B)]).toEqual([1, 1]);
  });

  it("caps a slowed tenant's reads and renders at their share of what it had, each kind apart, and starts the waiting ones in turn", async () => {
    const { c, at } = start();
    const reads = await begun(c, A, 'read', 8, at.now);
    const renders = await begun(c, A, 'render', 2, at.now);
    await begun(c, B, 'render', 1, at.now);
    run(c, 6, 1, at, { a: false, b: true });
    expect(c.factor(A)).toBe(MIN_FACTOR);
    expect([c.inProgressCap(A, 'read'), c.inProgressCap(A, 'render'), c.inProgressCap(B, 'read')]).toEqual([1, 1, Infinity]);
    const nextRead = c.begin(A, 'read', 10_000, at.now);
    const laterRead = c.begin(A, 'read', 10_000, at.now);
    const nextRender = c.begin(A, 'render', 10_000, at.now);
    reads.slice(0, 7).forEach((end) => end());
    expect(await settled(nextRead)).toBe(false); // one read still in progress: the cap
    reads[7]();
    reads[7](); // ending twice counts once
    expect(await settled(nextRead)).toBe(true);
    expect(await settled(laterRead)).toBe(false);
    expect(await settled(nextRender)).toBe(false); // the renders wait for a render, not for the reads
    renders.forEach((end) => end());
    expect(await settled(nextRender)).toBe(true);
    (await nextRead)!();
    expect(await settled(laterRead)).toBe(true);
  });

  it('refuses a read that waited the longest wait, and starts the waiting ones when the share comes back', async () => {
    const { c, at } = start();
    await begun(c, A, 'read', 8, at.now);
    await begun(c, B, 'render', 1, at.now);
    run(c, 6, 1, at, { a: false, b: true });
    expect(await c.begin(A, 'read', 20, at.now)).toBeUndefined();
    const waiting = c.begin(A, 'read', 60_000, at.now);
    run(c, 3 * SECOND, 0, at, { a: false, b: true });
    expect(c.factor(A)).toBe(1);
    expect(typeof (await waiting)).toBe('function');
  });
});

describe('Contention: a tenant that starts working while others work', () => {
  // A read or render ends on the wall clock (Date.now()), so these run on it: the clock starts now.
  const now = () => ({ c: new Contention(0.4), at: { now: Date.now() } });

  it('goes one read at a time for its first second, each after the reads in progress of a tenant working within its limits', async () => {
    const { c, at } = now();
    const bRead = (await c.begin(B, 'read', 10_000, at.now))!; // B works, within its limits
    const aFirst = c.begin(A, 'read', 10_000, at.now); // A starts: new
    const aSecond = c.begin(A, 'read', 10_000, at.now);
    expect([c.inProgressCap(A, 'read', at.now), c.inProgressCap(B, 'read', at.now)]).toEqual([0, Infinity]);
    expect(await settled(aFirst)).toBe(false); // B's read first
    bRead();
    expect(await settled(aFirst)).toBe(true);
    expect(await settled(aSecond)).toBe(false); // one at a time
    const aRender = c.begin(A, 'render', 10_000, at.now);
    expect(await settled(aRender)).toBe(true); // each kind apart: no render of B in progress
    // A second later (a tick past it), A is no longer new: what waits goes on.
    at.now += NEW_MS;
    c.note(B, false, at.now);
    c.tick(0, at.now);
    expect(await settled(aSecond)).toBe(true);
    expect(c.inProgressCap(A, 'read', at.now)).toBe(Infinity);
    await Promise.all([aFirst, aSecond, aRender].map(async (p) => (await p)!()));
  });

  it('is not held when it starts alone, nor by tenants that press against their limits', async () => {
    const alone = now();
    const reads = await Promise.all([1, 2, 3].map(() => alone.c.begin(A, 'read', 10_000, alone.at.now)));
    expect(reads.every((end) => typeof end === 'function')).toBe(true); // A alone: never new

    const { c, at } = now();
    // A presses: its rates hold it (counted at the tick) and it keeps reads in progress.
    for (let i = 0; i < 9; i++) c.note(A, true, at.now);
    const aRead = (await c.begin(A, 'read', 10_000, at.now))!;
    at.now += TICK_MS;
    c.tick(0, at.now);
    // B starts while A works: new, but A presses, so B has no one to yield to.
    const bReads = await Promise.all([1, 2].map(() => c.begin(B, 'read', 10_000, at.now)));
    expect(bReads.every((end) => typeof end === 'function')).toBe(true);
    expect(c.inProgressCap(B, 'read', at.now)).toBe(Infinity);
    aRead();
    bReads.forEach((end) => end!());
  });

  it('does not yield to a tenant with many reads and renders in progress before any tick counted it', async () => {
    const { c, at } = now();
    const aReads = await Promise.all(Array.from({ length: BUSY_IN_PROGRESS }, () => c.begin(A, 'read', 10_000, at.now)));
    const bRead = await c.begin(B, 'read', 10_000, at.now);
    expect(typeof bRead).toBe('function');
    [...aReads, bRead].forEach((end) => end!());
  });
});

describe('CpuPressure', () => {
  const psi = (total: number) => `some avg10=1.00 avg60=0.50 avg300=0.10 total=${total}\nfull avg10=0.00 avg60=0.00 avg300=0.00 total=0\n`;

  it('gives the share of wall time stalled since the last sample', () => {
    let text = psi(1_000_000);
    const p = new CpuPressure(() => text);
    expect(p.sample(0n)).toBe(0);
    text = psi(1_125_000); // 125 ms stalled in 250 ms
    expect(p.sample(250_000_000n)).toBeCloseTo(0.5, 10);
    text = psi(1_125_000);
    expect(p.sample(500_000_000n)).toBe(0);
  });

  it('clamps to 0–1 and answers undefined for a file without the line', () => {
    let text = psi(0);
    const p = new CpuPressure(() => text);
    p.sample(0n);
    text = psi(10_000_000);
    expect(p.sample(1_000_000n)).toBe(1);
    text = 'nothing here';
    expect(p.sample(2_000_000n)).toBeUndefined();
  });
});
