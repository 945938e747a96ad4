import { PeriodicPass, runPool } from './periodic-pass';

/** A pass that stays under way until released. */
function gated() {
  const releases: (() => void)[] = [];
  const pass = jest.fn(() => new Promise<void>((r) => releases.push(r)));
  return { pass, release: () => releases.shift()?.() };
}
const logger = () => ({ warn: jest.fn() });

describe('PeriodicPass', () => {
  afterEach(() => jest.useRealTimers());

  it('runs a pass every interval, the first after one interval or after `firstMs`, none after stop', async () => {
    jest.useFakeTimers();
    const pass = jest.fn(async () => undefined);
    const every = new PeriodicPass(pass, logger(), 'failed');
    every.start(1000);
    await jest.advanceTimersByTimeAsync(999);
    expect(pass).toHaveBeenCalledTimes(0);
    await jest.advanceTimersByTimeAsync(2001);
    expect(pass).toHaveBeenCalledTimes(3);
    await every.shutdown();
    await jest.advanceTimersByTimeAsync(10_000);
    expect(pass).toHaveBeenCalledTimes(3);

    const early = jest.fn(async () => undefined);
    const soon = new PeriodicPass(early, logger(), 'failed');
    soon.start(1000, 100);
    await jest.advanceTimersByTimeAsync(100);
    expect(early).toHaveBeenCalledTimes(1);
    await jest.advanceTimersByTimeAsync(1000);
    expect(early).toHaveBeenCalledTimes(2);
    soon.stop();
    await jest.advanceTimersByTimeAsync(10_000);
    expect(early).toHaveBeenCalledTimes(2);
  });

  it('runs one pass at a time: a tick while one is under way joins it', async () => {
    jest.useFakeTimers();
    const { pass, release } = gated();
    const p = new PeriodicPass(pass, logger(), 'failed');
    p.start(1000);
    const first = p.tick();
    expect(p.tick()).toBe(first);
    await jest.advanceTimersByTimeAsync(5000);
    expect(pass).toHaveBeenCalledTimes(1);
    release();
    await first;
    const second = p.tick(); // once done, a tick starts the next pass
    expect(second).not.toBe(first);
    expect(pass).toHaveBeenCalledTimes(2);
    release();
    await p.shutdown();
  });

  it('logs a failed pass and runs the next one', async () => {
    const log = logger();
    let fail = true;
    const pass = jest.fn(async () => {
      if (fail) throw new Error('boom');
    });
    const p = new PeriodicPass(pass, log, 'sweep failed');
    await expect(p.tick()).resolves.toBeUndefined();
    expect(log.warn).toHaveBeenCalledWith({ msg: 'sweep failed', err: 'boom' });
    fail = false;
    await p.tick();
    expect(pass).toHaveBeenCalledTimes(2);
    expect(log.warn).toHaveBeenCalledTimes(1);
  });

  it('shuts down once the pass under way is done, marking it stopping', async () => {
    const { pass, release } = gated();
    const p = new PeriodicPass(pass, logger(), 'failed');
    void p.tick();
    let done = false;
    const shutdown = p.shutdown().then(() => (done = true));
    await Promise.resolve();
    expect(p.stopping).toBe(true);
    expect(done).toBe(false);
    release();
    await shutdown;
    expect(done).toBe(true);
  });
});

describe('runPool', () => {
  it('runs every item in order, never more than `concurrency` at once', async () => {
    let active = 0;
    let most = 0;
    const started: number[] = [];
    await runPool([1, 2, 3, 4, 5, 6, 7], 3, async (n) => {
      started.push(n);
      most = Math.max(most, ++active);
      await new Promise((r) => setTimeout(r, n % 3));
      active--;
    });
    expect(started).toEqual([1, 2, 3, 4, 5, 6, 7]);
    expect(most).toBe(3);
    const none = jest.fn(async () => undefined);
    await runPool([], 3, none);
    expect(none).not.toHaveBeenCalled();
  });

  it('takes no new item once stopping, letting those under way finish', async () => {
    let stopping = false;
    const finished: number[] = [];
    await runPool(
      [1, 2, 3, 4, 5],
      2,
      async (n) => {
        if (n === 2) stopping = true;
        await Promise.resolve();
        finished.push(n);
      },
      () => stopping,
    );
    expect(finished).toEqual([1, 2]);
  });
});
