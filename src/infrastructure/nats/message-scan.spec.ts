import { idleWatch } from './message-scan';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('idleWatch', () => {
  it('stops a read that waited checkMs without progress once nothing is left', async () => {
    const stop = jest.fn();
    const w = idleWatch(
      () => true,
      async () => true,
      stop,
      40,
    );
    await sleep(120);
    w.stop();
    expect(stop).toHaveBeenCalledTimes(1);
    expect(w.fired).toBe(true);
  });

  it('leaves alone a reader that is busy, that makes progress, or whose consumer still holds messages', async () => {
    const stop = jest.fn();
    const busy = idleWatch(
      () => false,
      async () => true,
      stop,
      40,
    );
    const pending = idleWatch(
      () => true,
      async () => false,
      stop,
      40,
    );
    const moving = idleWatch(
      () => true,
      async () => true,
      stop,
      40,
    );
    const ticker = setInterval(() => moving.progress(), 10);
    await sleep(150);
    clearInterval(ticker);
    for (const w of [busy, pending, moving]) {
      w.stop();
      expect(w.fired).toBe(false);
    }
    expect(stop).not.toHaveBeenCalled();
  });
});
