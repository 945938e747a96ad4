import { EventEmitter } from 'node:events';
import { AppError } from '../../common/app-error';
import { BrowserLease, BrowserPool } from './browser-pool';
import type { RenderBrowser } from './render-browser';

class FakeBrowser extends EventEmitter {
  connected = true;
  closed = 0;
  isConnected() {
    return this.connected;
  }
  async close() {
    this.closed++;
    this.crash();
  }
  crash() {
    if (!this.connected) return;
    this.connected = false;
    this.emit('disconnected');
  }
}

function setup(
  opts: Partial<{ concurrency: number; browsers: number; browserIdleMs: number; queueLimit: number; timeoutMs: number; recycleAfter: number }> = {},
) {
  const browsers: FakeBrowser[] = [];
  const pool = new BrowserPool({
    chromiumPath: '/nonexistent',
    concurrency: opts.concurrency ?? 1,
    browsers: opts.browsers,
    browserIdleMs: opts.browserIdleMs,
    queueLimit: opts.queueLimit ?? 0,
    timeoutMs: opts.timeoutMs ?? 1000,
    recycleAfter: opts.recycleAfter,
    launch: async () => {
      const b = new FakeBrowser();
      browsers.push(b);
      return b as unknown as RenderBrowser;
    },
  });
  return { pool, browsers };
}

function deferred<T = void>() {
  let resolve!: (v: T) => void;
  let reject!: (e: unknown) => void;
  const promise = new Promise<T>((res, rej) => ((resolve = res), (reject = rej)));
  return { promise, resolve, reject };
}

const tick = () => new Promise((r) => setTimeout(r, 5));

async function errorOf(p: Promise<unknown>): Promise<AppError> {
  try {
    await p;
  } catch (e) {
    return e as AppError;
  }
  throw new Error('expected a rejection');
}

describe('BrowserPool', () => {
  it('launches lazily, once, and shares the browser', async () => {
    const { pool, browsers } = setup({ concurrency: 2 });
    expect(browsers).toHaveLength(0);
    const gens = await Promise.all([pool.run(async (l) => l.generation), pool.run(async (l) => l.generation)]);
    expect(browsers).toHaveLength(1);
    expect(gens).toEqual([1, 1]);
    expect(pool.renders).toBe(2);
    await pool.close();
    expect(browsers[0].closed).toBe(1);
  });

  describe('browsers by owner', () => {
    /** Starts a task of `owner` that holds its browser until released; resolves which browser it got. */
    const holding = (pool: BrowserPool, browsers: FakeBrowser[], owner: string) => {
      const gate = deferred();
      const got = deferred<number>();
      const done = pool.run(
        async (l) => {
          got.resolve(browsers.indexOf(l.browser as unknown as FakeBrowser));
          await gate.promise;
        },
        { owner },
      );
      return { browser: got.promise, release: async () => (gate.resolve(), await done) };
    };

    it('gives owners rendering at once browsers of their own, and an owner its own tasks one browser', async () => {
      const { pool, browsers } = setup({ concurrency: 3, browsers: 2, queueLimit: 4 });
      const a1 = holding(pool, browsers, 'A');
      const a2 = holding(pool, browsers, 'A');
      const b = holding(pool, browsers, 'B');
      expect(await a1.browser).toBe(0);
      expect(await a2.browser).toBe(0);
      expect(await b.browser).toBe(1);
      expect(browsers).toHaveLength(2);
      expect(pool.browsers).toBe(2);
      await Promise.all([a1.release(), a2.release(), b.release()]);
      // Each goes back to the browser it used last (its warm pages are there), the other one free or not.
      const b2 = holding(pool, browsers, 'B');
      expect(await b2.browser).toBe(1);
      const a3 = holding(pool, browsers, 'A');
      expect(await a3.browser).toBe(0);
      await Promise.all([b2.release(), a3.release()]);
      expect(browsers).toHaveLength(2);
      await pool.close();
    });

    it('shares the least used browser when every browser serves another owner', async () => {
      const { pool, browsers } = setup({ concurrency: 4, browsers: 2, queueLimit: 4 });
      const a1 = holding(pool, browsers, 'A');
      const a2 = holding(pool, browsers, 'A');
      const b = holding(pool, browsers, 'B');
      expect([await a1.browser, await a2.browser, await b.browser]).toEqual([0, 0, 1]);
      const c = holding(pool, browsers, 'C');
      expect(await c.browser).toBe(1);
      expect(browsers).toHaveLength(2);
      await Promise.all([a1.release(), a2.release(), b.release(), c.release()]);
      await pool.close();
    });

    it("a new owner takes a browser no owner used yet, then a free one that runs, before another owner's last", async () => {
      const { pool, browsers } = setup({ concurrency: 2, browsers: 2 });
      const first = async (owner: string) => {
        const h = holding(pool, browsers, owner);
        const i = await h.browser;
        await h.release();
        return i;
      };
      expect(await first('A')).toBe(0);
      // Browser 0 is free, but holds A's warm pages: B gets the unused one.
      expect(await first('B')).toBe(1);
      // Both used: C takes a free one that runs, launching none.
      const a = holding(pool, browsers, 'A');
      expect(await a.browser).toBe(0);
      expect(await first('C')).toBe(1);
      await a.release();
      expect(browsers).toHaveLength(2);
      await pool.close();
    });

    it('closes a browser idle for browserIdleMs while another runs, and launches one again when needed', async () => {
      const { pool, browsers } = setup({ concurrency: 2, browsers: 2, browserIdleMs: 300 });
      const a = holding(pool, browsers, 'A');
      const b = holding(pool, browsers, 'B');
      expect([await a.browser, await b.browser]).toEqual([0, 1]);
      await b.release();
      await new Promise((r) => setTimeout(r, 30));
      expect(browsers[1].closed).toBe(0); // not idle long enough yet
      await new Promise((r) => setTimeout(r, 500));
      expect(browsers[1].closed).toBe(1);
      expect(browsers[0].closed).toBe(0); // A's is busy
      expect(pool.browsers).toBe(1);
      await a.release();
      await new Promise((r) => setTimeout(r, 500));
      expect(browsers[0].closed).toBe(0); // the only one running stays
      const b2 = holding(pool, browsers, 'B');
      const a2 = holding(pool, browsers, 'A');
      expect([await b2.browser, await a2.browser]).toEqual([2, 0]);
      await Promise.all([a2.release(), b2.release()]);
      await pool.close();
    });

    it('with one browser (the default), every owner shares it', async () => {
      const { pool, browsers } = setup({ concurrency: 2 });
      const a = holding(pool, browsers, 'A');
      const b = holding(pool, browsers, 'B');
      expect([await a.browser, await b.browser]).toEqual([0, 0]);
      await Promise.all([a.release(), b.release()]);
      await pool.close();
    });

    it('relaunches a crashed browser in the owner lane, not in the other', async () => {
      const { pool, browsers } = setup({ concurrency: 2, browsers: 2, queueLimit: 2 });
      const a = holding(pool, browsers, 'A');
      const b = holding(pool, browsers, 'B');
      expect([await a.browser, await b.browser]).toEqual([0, 1]);
      await Promise.all([a.release(), b.release()]);
      browsers[1].crash();
      const b2 = holding(pool, browsers, 'B');
      expect(await b2.browser).toBe(2);
      const a2 = holding(pool, browsers, 'A');
      expect(await a2.browser).toBe(0);
      await Promise.all([a2.release(), b2.release()]);
      await pool.close();
    });
  });

  it('bounds concurrency and the queue, refusing at once over capacity', async () => {
    const { pool } = setup({ concurrency: 2, queueLimit: 1 });
    const gate = deferred();
    let started = 0;
    const task = async () => {
      started++;
      await gate.promise;
      return 'ok';
    };
    const running = [pool.run(task), pool.run(task), pool.run(task)];
    await tick();
    expect(started).toBe(2);
    expect(pool.inFlight).toBe(2);
    expect(pool.queueLength).toBe(1);
    const refused = await errorOf(pool.run(task));
    expect(refused).toBeInstanceOf(AppError);
    expect(refused.code).toBe('unavailable');
    expect(refused.retryAfterSeconds).toBe(1);
    expect(pool.rejected).toBe(1);
    gate.resolve();
    await expect(Promise.all(running)).resolves.toEqual(['ok', 'ok', 'ok']);
    expect(pool.inFlight).toBe(0);
    expect(pool.queueLength).toBe(0);
    await pool.close();
  });

  it('gives up waiting in the queue after the timeout', async () => {
    const { pool } = setup({ concurrency: 1, queueLimit: 5, timeoutMs: 60 });
    const gate = deferred();
    const first = pool.run(() => gate.promise);
    const waited = await errorOf(pool.run(async () => 'never'));
    expect(waited.code).toBe('unavailable');
    expect(pool.queueLength).toBe(0);
    gate.resolve();
    await first;
    await pool.close();
  });

  it('times out an attempt, aborts its signal and keeps the slot until the task lets go', async () => {
    const { pool } = setup({ concurrency: 1, queueLimit: 1, timeoutMs: 50 });
    let lease: BrowserLease | undefined;
    const let_go = deferred();
    const err = await errorOf(
      pool.run(async (l) => {
        lease = l;
        await let_go.promise;
      }),
    );
    expect(err.code).toBe('unavailable');
    expect(err.message).toMatch(/timed out/);
    expect(lease!.signal.aborted).toBe(true);
    expect(pool.timeouts).toBe(1);
    expect(pool.inFlight).toBe(1);
    let_go.resolve();
    await tick();
    expect(pool.inFlight).toBe(0);
    await pool.close();
  });

  it('restarts the browser when a timed-out task ignores its abort signal', async () => {
    const { pool, browsers } = setup({ timeoutMs: 30 });
    await errorOf(pool.run(() => new Promise(() => undefined)));
    await new Promise((r) => setTimeout(r, 2100));
    expect(browsers[0].connected).toBe(false);
    expect(pool.inFlight).toBe(0);
    await expect(pool.run(async (l) => l.generation)).resolves.toBe(2);
    await pool.close();
  });

  it('retries a task that hit a crash once, alone in a fresh browser closed after it', async () => {
    const { pool, browsers } = setup();
    const leases: BrowserLease[] = [];
    const result = await pool.run(async (l) => {
      leases.push(l);
      if (leases.length === 1) {
        browsers[0].crash();
        throw new Error('page.screenshot: Target page, context or browser has been closed');
      }
      return 'second try';
    });
    expect(result).toBe('second try');
    expect(leases.map((l) => [l.generation, l.isolated])).toEqual([
      [1, false],
      [2, true],
    ]);
    expect(browsers[1].connected).toBe(false); // the retry's own browser is gone with it
    expect(pool.crashes).toBe(1);
    expect(pool.failures).toBe(0);
    // The next task gets a new shared browser, not the retry's.
    await expect(pool.run(async (l) => [l.generation, l.isolated])).resolves.toEqual([3, false]);
    await pool.close();
  });

  it('retries every task the crash took down, each alone; the one that crashes alone gets 422', async () => {
    const { pool, browsers } = setup({ concurrency: 3, queueLimit: 1 });
    const bothRunning = deferred();
    let running = 0;
    const innocent = (name: string) => async (l: BrowserLease) => {
      if (!l.isolated && ++running === 2) bothRunning.resolve();
      if (!l.isolated) await new Promise((_, reject) => l.browser.on('disconnected', () => reject(new Error('Target closed'))));
      return name;
    };
    const poison = async (l: BrowserLease) => {
      await bothRunning.promise;
      (l.browser as unknown as FakeBrowser).crash();
      throw new Error('Browser has been closed');
    };
    const results = await Promise.allSettled([
      pool.run(innocent('a'), { key: 'tenant-a/rec-a/1' }),
      pool.run(innocent('b'), { key: 'tenant-b/rec-b/1' }),
      pool.run(poison, { key: 'tenant-c/evil/1' }),
    ]);
    expect(results.slice(0, 2)).toEqual([
      { status: 'fulfilled', value: 'a' },
      { status: 'fulfilled', value: 'b' },
    ]);
    expect((results[2] as PromiseRejectedResult).reason).toMatchObject({ code: 'unprocessable', message: expect.stringMatching(/crashes the renderer/) });
    expect(browsers.filter((b) => b.connected)).toHaveLength(0); // the three retries' browsers are closed
    // Remembered: refused at once, without a slot or a browser; another recording still renders.
    const launches = pool.launches;
    let ran = false;
    const again = await errorOf(
      pool.run(
        async () => {
          ran = true;
        },
        { key: 'tenant-c/evil/1' },
      ),
    );
    expect(again.code).toBe('unprocessable');
    expect(ran).toBe(false);
    expect(pool.launches).toBe(launches);
    await expect(pool.run(async () => 'fine', { key: 'tenant-c/evil/2' })).resolves.toBe('fine');
    await pool.close();
  });

  it('answers 503 when the retry of a task without a key crashes too', async () => {
    const { pool, browsers } = setup();
    const err = await errorOf(
      pool.run(async () => {
        browsers[browsers.length - 1].crash();
        throw new Error('Browser has been closed');
      }),
    );
    expect(err.code).toBe('unavailable');
    expect(err.message).toMatch(/crashed/);
    expect(pool.crashes).toBe(2);
    expect(pool.failures).toBe(1);
    await pool.close();
  });

  it('passes other errors through without a retry', async () => {
    const { pool } = setup();
    let calls = 0;
    const plain = await errorOf(
      pool.run(async () => {
        calls++;
        throw new TypeError('bug');
      }),
    );
    expect(plain).toBeInstanceOf(TypeError);
    const app = await errorOf(
      pool.run(async () => {
        calls++;
        throw new AppError('unprocessable', 'no snapshot');
      }),
    );
    expect(app.code).toBe('unprocessable');
    expect(calls).toBe(2);
    expect(pool.failures).toBe(2);
    await pool.close();
  });

  it('recycles the browser after N renders, once it is idle', async () => {
    const { pool, browsers } = setup({ recycleAfter: 2 });
    for (let i = 0; i < 5; i++) await pool.run(async () => undefined);
    await tick();
    expect(browsers).toHaveLength(3);
    expect(browsers.map((b) => b.connected)).toEqual([false, false, true]);
    await pool.close();
  });

  it('refuses work after close and rejects the queue', async () => {
    const { pool } = setup({ concurrency: 1, queueLimit: 2 });
    const gate = deferred();
    const first = pool.run(() => gate.promise);
    const queued = pool.run(async () => 'x');
    await tick();
    const closing = pool.close();
    expect((await errorOf(queued)).code).toBe('unavailable');
    expect((await errorOf(pool.run(async () => 'y'))).code).toBe('unavailable');
    gate.resolve();
    await first.catch(() => undefined);
    await closing;
  });

  it('answers 503 when Chromium cannot start', async () => {
    const pool = new BrowserPool({
      chromiumPath: '/nonexistent',
      concurrency: 1,
      queueLimit: 0,
      timeoutMs: 1000,
      launch: () => Promise.reject(new Error('spawn ENOENT')),
    });
    const err = await errorOf(pool.run(async () => 1));
    expect(err.code).toBe('unavailable');
    expect(pool.inFlight).toBe(0);
    await pool.close();
  });
});
