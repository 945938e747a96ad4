// One long-lived Chromium per process, behind admission control: run() holds one of
// `concurrency` slots for the whole task (see AdmissionQueue for the queue and 503 rules).
// Each attempt gets timeoutMs; on expiry the caller gets 503, the lease's signal is aborted so the
// task closes what it opened, and a task that still has not settled after a grace period takes the
// browser down with it. A task that fails because the browser or its page crashed is retried once
// on a fresh browser, then answered 503. The browser is replaced after `recycleAfter` renders.
import { Logger } from '@nestjs/common';
import { chromium, type Browser } from 'playwright-core';
import { AppError, StoreUnavailable } from '../../common/app-error';
import { AdmissionQueue } from './admission-queue';

export interface BrowserPoolOptions {
  chromiumPath: string;
  /** RENDER_CONCURRENCY */
  concurrency: number;
  /** RENDER_QUEUE: callers allowed to wait for a slot. */
  queueLimit: number;
  /** RENDER_TIMEOUT_MS: per attempt and per queue wait. */
  timeoutMs: number;
  /** Chromium start-up, slower than a render on a loaded host. Default max(timeoutMs, 30 s). */
  launchTimeoutMs?: number;
  recycleAfter?: number;
  /** Replaces the Chromium launch (tests). */
  launch?: () => Promise<Browser>;
}

export interface BrowserLease {
  readonly browser: Browser;
  /** Changes on every launch: pages from another generation belong to a browser that is gone. */
  readonly generation: number;
  /** Aborted when the attempt runs out of time: close whatever the task opened. */
  readonly signal: AbortSignal;
}

export const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
  // No network at all. Replayed documents are untrusted, and the request interception of
  // replay-page.ts does not see what Chromium fetches on its own: <link rel=prefetch> requests and
  // rel=preconnect connections reached any address the service can reach (ClickHouse's HTTP port
  // answers queries on GET). Every host name and IP literal resolves to nothing, and every
  // connection, loopback included, goes to a proxy that is not there.
  '--host-resolver-rules=MAP * ~NOTFOUND',
  '--proxy-server=http://127.0.0.1:1',
  '--proxy-bypass-list=<-loopback>',
];

interface Instance {
  browser: Browser;
  generation: number;
  renders: number;
  active: number;
  retired: boolean;
}

const CRASHED = /crash|has been closed|has disconnected|Target closed|Browser closed|Connection closed/i;
const TIMED_OUT = Symbol('timed out');
/** How long a timed-out task may take to let go after its abort before its browser is killed. */
const GRACE_MS = 2000;

export class BrowserPool {
  private readonly logger = new Logger('BrowserPool');
  private readonly recycleAfter: number;
  private readonly admission: AdmissionQueue;
  private readonly instances = new Set<Instance>();
  private current?: Instance;
  private launching?: Promise<Instance>;
  private generation = 0;
  private closed = false;
  private readonly counts = { renders: 0, failures: 0, timeouts: 0, crashes: 0, launches: 0 };

  constructor(private readonly options: BrowserPoolOptions) {
    this.recycleAfter = options.recycleAfter ?? 500;
    this.admission = new AdmissionQueue({ concurrency: options.concurrency, queueLimit: options.queueLimit, waitMs: options.timeoutMs });
  }

  get renders(): number {
    return this.counts.renders;
  }
  get failures(): number {
    return this.counts.failures;
  }
  get rejected(): number {
    return this.admission.rejected;
  }
  get timeouts(): number {
    return this.counts.timeouts;
  }
  get crashes(): number {
    return this.counts.crashes;
  }
  get launches(): number {
    return this.counts.launches;
  }
  get queueLength(): number {
    return this.admission.queueLength;
  }
  get inFlight(): number {
    return this.admission.inFlight;
  }

  async run<T>(task: (lease: BrowserLease) => Promise<T>): Promise<T> {
    if (this.closed) throw unavailable('Renderer is shutting down');
    await this.admission.acquire();
    let slotHeld = true;
    try {
      for (let attempt = 0; ; attempt++) {
        try {
          const result = await this.attempt(task, (orphan) => {
            // The caller is answered now; the slot stays taken until the timed-out task lets go.
            slotHeld = false;
            void orphan.finally(() => this.admission.release());
          });
          this.counts.renders++;
          return result;
        } catch (err) {
          if (err instanceof RetryableCrash && attempt === 0 && !this.closed) {
            this.counts.crashes++;
            this.logger.warn(`render hit a browser crash, retrying once: ${err.message}`);
            continue;
          }
          this.counts.failures++;
          if (err instanceof RetryableCrash) {
            this.counts.crashes++;
            throw unavailable(this.closed ? 'Renderer is shutting down' : 'Renderer crashed, try again');
          }
          throw err;
        }
      }
    } finally {
      if (slotHeld) this.admission.release();
    }
  }

  async close(): Promise<void> {
    this.closed = true;
    this.admission.rejectAll(unavailable('Renderer is shutting down'));
    await this.launching?.catch(() => undefined);
    await Promise.all([...this.instances].map((i) => this.shutdown(i)));
  }

  private async attempt<T>(task: (lease: BrowserLease) => Promise<T>, orphaned: (p: Promise<unknown>) => void): Promise<T> {
    const inst = await this.instance();
    inst.active++;
    inst.renders++;
    const abort = new AbortController();
    let timer: NodeJS.Timeout | undefined;
    const running = Promise.resolve().then(() => task({ browser: inst.browser, generation: inst.generation, signal: abort.signal }));
    const settled = running.then(
      () => undefined,
      () => undefined,
    );
    let done = true;
    try {
      return await Promise.race([
        running,
        new Promise<never>((_, reject) => {
          timer = setTimeout(() => reject(TIMED_OUT), this.options.timeoutMs);
        }),
      ]);
    } catch (err) {
      if (err === TIMED_OUT) {
        this.counts.timeouts++;
        abort.abort();
        done = false;
        orphaned(this.awaitOrphan(settled, inst));
        throw new AppError('unavailable', `Rendering timed out after ${this.options.timeoutMs} ms`);
      }
      if (err instanceof AppError) throw err;
      if (!inst.browser.isConnected() || CRASHED.test(String((err as Error)?.message))) {
        if (!inst.browser.isConnected()) this.forget(inst);
        throw new RetryableCrash(String((err as Error)?.message ?? err));
      }
      throw err;
    } finally {
      clearTimeout(timer);
      if (done) this.leaseEnded(inst);
    }
  }

  /** Waits for a timed-out task; if it ignores its abort signal for too long, its browser goes. */
  private async awaitOrphan(settled: Promise<void>, inst: Instance): Promise<void> {
    let grace: NodeJS.Timeout | undefined;
    const late = await Promise.race([settled.then(() => false), new Promise<boolean>((resolve) => (grace = setTimeout(() => resolve(true), GRACE_MS)))]);
    clearTimeout(grace);
    if (late) {
      this.logger.warn('a timed-out render ignored its abort signal; restarting the browser');
      this.forget(inst);
      await this.shutdown(inst);
    }
    this.leaseEnded(inst);
  }

  private async instance(): Promise<Instance> {
    if (this.closed) throw unavailable('Renderer is shutting down');
    const cur = this.current;
    if (cur && cur.browser.isConnected() && cur.renders < this.recycleAfter) return cur;
    if (cur) this.retire(cur);
    this.launching ??= this.launch().finally(() => (this.launching = undefined));
    return this.launching;
  }

  private async launch(): Promise<Instance> {
    let browser: Browser;
    const timeout = this.options.launchTimeoutMs ?? Math.max(this.options.timeoutMs, 30_000);
    // Playwright's own signal handlers stay off: on SIGINT it closes the browsers and exits the process
    // with 130 at once, cutting the service's graceful stop short (npm start then left nats-server and
    // clickhouse-server running). The service closes the browsers in its shutdown (RenderingModule);
    // playwright still kills them if the process exits without that.
    const launching =
      this.options.launch?.() ??
      chromium.launch({
        executablePath: this.options.chromiumPath,
        args: CHROMIUM_ARGS,
        timeout,
        handleSIGINT: false,
        handleSIGTERM: false,
        handleSIGHUP: false,
      });
    try {
      browser = await withTimeout(launching, timeout);
    } catch (err) {
      launching.then(
        (b) => b.close(),
        () => undefined,
      ); // a launch that finishes late must not leak
      this.logger.error(`could not launch Chromium at ${this.options.chromiumPath}: ${String((err as Error)?.message ?? err)}`);
      throw unavailable('Renderer is not available');
    }
    this.counts.launches++;
    const inst: Instance = { browser, generation: ++this.generation, renders: 0, active: 0, retired: false };
    this.instances.add(inst);
    browser.on('disconnected', () => {
      this.forget(inst);
      this.instances.delete(inst);
    });
    if (this.closed) {
      await this.shutdown(inst);
      throw unavailable('Renderer is shutting down');
    }
    this.current = inst;
    return inst;
  }

  private forget(inst: Instance): void {
    if (this.current === inst) this.current = undefined;
    inst.retired = true;
  }

  private retire(inst: Instance): void {
    this.forget(inst);
    if (inst.active === 0) void this.shutdown(inst);
  }

  private leaseEnded(inst: Instance): void {
    inst.active--;
    if (inst.retired && inst.active === 0) void this.shutdown(inst);
  }

  private async shutdown(inst: Instance): Promise<void> {
    this.instances.delete(inst);
    await withTimeout(inst.browser.close(), this.options.timeoutMs).catch(() => undefined);
  }
}

class RetryableCrash extends Error {}

function unavailable(message: string): AppError {
  return new StoreUnavailable(message);
}

function withTimeout<T>(p: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  return Promise.race([p, new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(`timed out after ${ms} ms`)), ms)))]).finally(() =>
    clearTimeout(timer),
  );
}
