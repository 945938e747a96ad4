// Long-lived Chromiums behind admission control: run() holds one of `concurrency` slots for the
// whole task (see AdmissionQueue for the queue and 503 rules). Tasks of different owners (tenants)
// running at the same time get different browsers (`browsers` of them, launched as needed): a
// browser's process and its compositor serve one tenant's renders at a time, and each browser is a
// scheduling group of its own (chromium-launch.ts), so the kernel shares the CPU between tenants'
// renders rather than between their threads. An owner keeps its browser while it has tasks, and goes
// back to the one it used last when that is free (its warm pages are there).
// Each attempt gets timeoutMs; on expiry the caller gets 503, the lease's signal is aborted so the
// task closes what it opened, and a task that still has not settled after a grace period takes the
// browser down with it. The browser is replaced after `recycleAfter` renders.
// Crashes are contained: a browser (or page) crash fails every task running in it, and which one
// caused it is not known, so each of them is retried once alone, in a fresh browser of its own
// (closed after it), without its caller seeing the crash. A task that crashes that browser too is
// the cause: answered 422, and its `key` (the recording's content) is remembered (CrashMemory) and
// refused at once from then on, without a browser. Tasks queued meanwhile get the relaunched browser.
// The browsers are driven from the render thread (render-thread.ts, RENDER_THREAD); the pool and its
// bookkeeping stay in the service's thread.
import { Logger } from '@nestjs/common';
import { LRUCache } from 'lru-cache';
import { AppError, StoreUnavailable } from '../../common/app-error';
import { LocalBrowser } from '../screenshot/replay-page';
import { AdmissionQueue } from './admission-queue';
import { launchBrowser, launchedWithin, withTimeout } from './chromium-launch';
import { CrashMemory } from './crash-memory';
import type { RenderBrowser } from './render-browser';
import { RenderThread } from './render-thread';

export interface BrowserPoolOptions {
  chromiumPath: string;
  /** RENDER_NICE: Chromium's CPU priority below the service's (0: as the service). */
  nice?: number;
  /** RENDER_CONCURRENCY */
  concurrency: number;
  /** RENDER_BROWSERS: browsers at most, so that owners rendering at once do not share one. Default 1. */
  browsers?: number;
  /** A browser with no task for this long closes while another runs (its memory back). Default 5 minutes. */
  browserIdleMs?: number;
  /** RENDER_QUEUE: callers allowed to wait for a slot. */
  queueLimit: number;
  /** RENDER_TIMEOUT_MS: per attempt and per queue wait. */
  timeoutMs: number;
  /** Chromium start-up, slower than a render on a loaded host. Default max(timeoutMs, 30 s). */
  launchTimeoutMs?: number;
  recycleAfter?: number;
  /** How many crashing recordings are remembered (for an hour each). Default 10 000. */
  crashMemory?: number;
  /**
   * RENDER_THREAD: Chromium driven from a thread of its own (render-thread.ts), where the compiled
   * worker is there (not under ts-jest), else from this thread. Default true.
   */
  renderThread?: boolean;
  /** Replaces the Chromium launch (tests). */
  launch?: () => Promise<RenderBrowser>;
}

export interface RunOptions {
  /** What the task renders (a recording's content key): if it crashes Chromium alone, it is refused from then on. */
  key?: string;
  /** Whom it renders for (a tenant): waiting tasks take turns by owner (AdmissionQueue). */
  owner?: string;
}

export interface BrowserLease {
  readonly browser: RenderBrowser;
  /** Changes on every launch: pages from another generation belong to a browser that is gone. */
  readonly generation: number;
  /** Aborted when the attempt runs out of time: close whatever the task opened. */
  readonly signal: AbortSignal;
  /** A retry after a crash, alone in a browser that is closed after it: keep nothing open for later. */
  readonly isolated: boolean;
}

/** One browser's place: its current instance, and the owners running tasks in it (with their counts). */
interface Lane {
  current?: Instance;
  launching?: Promise<Instance>;
  users: Map<string, number>;
  /** Some owner ran a task here (its warm pages may be here). */
  used: boolean;
  /** Closes its browser once idle (reset whenever its last task ends). */
  idleTimer?: NodeJS.Timeout;
}

interface Instance {
  browser: RenderBrowser;
  generation: number;
  renders: number;
  active: number;
  retired: boolean;
  /** Launched for one retry after a crash. */
  isolated: boolean;
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
  private readonly lanes: Lane[];
  /** The lane each owner used last (the least recently used owners go). */
  private readonly lastLane = new LRUCache<string, number>({ max: LAST_LANES });
  private generation = 0;
  private closed = false;
  private readonly counts = { renders: 0, failures: 0, timeouts: 0, crashes: 0, launches: 0 };
  private readonly crashing: CrashMemory;
  private readonly renderThread?: RenderThread;

  constructor(private readonly options: BrowserPoolOptions) {
    if (!options.launch && (options.renderThread ?? true) && RenderThread.available()) this.renderThread = new RenderThread(options.nice ?? 0);
    this.recycleAfter = options.recycleAfter ?? 500;
    this.crashing = new CrashMemory(options.crashMemory ?? 10_000);
    this.admission = new AdmissionQueue({ concurrency: options.concurrency, queueLimit: options.queueLimit, waitMs: options.timeoutMs });
    const lanes = Math.max(1, Math.min(options.browsers ?? 1, options.concurrency));
    this.lanes = Array.from({ length: lanes }, () => ({ users: new Map<string, number>(), used: false }));
  }

  /** Where Chromium is driven from (RENDER_THREAD): its own thread, or the service's. */
  get thread(): 'worker' | 'service' {
    return this.renderThread ? 'worker' : 'service';
  }

  /** Browsers running now (tests, metrics). */
  get browsers(): number {
    return this.lanes.filter((l) => l.current?.browser.isConnected()).length;
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
  /** Resolves once no render runs or waits (AdmissionQueue.whenIdle). */
  whenIdle(): Promise<void> {
    return this.admission.whenIdle();
  }

  async run<T>(task: (lease: BrowserLease) => Promise<T>, options: RunOptions = {}): Promise<T> {
    if (this.closed) throw unavailable('Renderer is shutting down');
    const { key } = options;
    if (key !== undefined && this.crashing.has(key)) throw crashes();
    await this.admission.acquire(options.owner);
    const lane = this.enterLane(options.owner ?? '');
    const leave = () => {
      this.leaveLane(options.owner ?? '', lane);
      this.admission.release(options.owner);
    };
    let slotHeld = true;
    // The caller is answered at a timeout; the slot (and the lane) stay taken until the timed-out task lets go.
    const orphaned = (orphan: Promise<unknown>) => {
      slotHeld = false;
      void orphan.finally(leave);
    };
    try {
      let result: T;
      try {
        result = await this.attempt(task, () => this.instance(lane), orphaned);
      } catch (err) {
        if (!(err instanceof RetryableCrash) || this.closed) throw err;
        this.counts.crashes++;
        this.logger.warn(`a render hit a Chromium crash; retrying it alone in a fresh browser: ${err.message}`);
        result = await this.attempt(task, () => this.isolatedInstance(), orphaned);
      }
      this.counts.renders++;
      return result;
    } catch (err) {
      this.counts.failures++;
      if (!(err instanceof RetryableCrash)) throw err;
      if (this.closed) throw unavailable('Renderer is shutting down');
      this.counts.crashes++;
      if (key === undefined) throw unavailable('Renderer crashed, try again');
      this.crashing.remember(key);
      this.logger.warn(`a recording crashed Chromium alone; refusing it from now on: ${JSON.stringify(key)}`);
      throw crashes();
    } finally {
      if (slotHeld) leave();
    }
  }

  /**
   * The lane of an owner's task: the one its running tasks use; else the one it used last if no other
   * owner uses it now; else a free one, first one never used (not another owner's warm pages), then
   * one with a browser running; else the least used.
   */
  private enterLane(owner: string): Lane {
    const free = (l: Lane) => l.users.size === 0;
    let i = this.lanes.findIndex((l) => l.users.has(owner));
    const last = this.lastLane.get(owner);
    if (i < 0 && last !== undefined && free(this.lanes[last])) i = last;
    if (i < 0) i = this.lanes.findIndex((l) => free(l) && !l.used);
    if (i < 0) i = this.lanes.findIndex((l) => free(l) && l.current);
    if (i < 0) i = this.lanes.findIndex(free);
    if (i < 0) i = this.lanes.reduce((best, l, j) => (tasksIn(l) < tasksIn(this.lanes[best]) ? j : best), 0);
    const lane = this.lanes[i];
    lane.used = true;
    lane.users.set(owner, (lane.users.get(owner) ?? 0) + 1);
    this.lastLane.set(owner, i);
    return lane;
  }

  private leaveLane(owner: string, lane: Lane): void {
    const n = (lane.users.get(owner) ?? 1) - 1;
    if (n > 0) lane.users.set(owner, n);
    else lane.users.delete(owner);
    if (lane.users.size > 0 || this.lanes.length === 1) return;
    clearTimeout(lane.idleTimer);
    lane.idleTimer = setTimeout(() => this.closeIfIdle(lane), this.options.browserIdleMs ?? 5 * 60_000).unref();
  }

  /** Closes an idle lane's browser, unless it is the only one running (a render then needs no launch). */
  private closeIfIdle(lane: Lane): void {
    const cur = lane.current;
    if (!cur || lane.users.size > 0) return;
    if (!this.lanes.some((l) => l !== lane && l.current?.browser.isConnected())) return;
    this.retire(cur);
  }

  async close(): Promise<void> {
    this.closed = true;
    this.admission.rejectAll(unavailable('Renderer is shutting down'));
    for (const lane of this.lanes) clearTimeout(lane.idleTimer);
    await Promise.all(this.lanes.map((l) => l.launching?.catch(() => undefined) ?? Promise.resolve()));
    await Promise.all([...this.instances].map((i) => this.shutdown(i)));
    await this.renderThread?.close();
  }

  private async attempt<T>(task: (lease: BrowserLease) => Promise<T>, instance: () => Promise<Instance>, orphaned: (p: Promise<unknown>) => void): Promise<T> {
    const inst = await instance();
    inst.active++;
    inst.renders++;
    const abort = new AbortController();
    let timer: NodeJS.Timeout | undefined;
    const lease: BrowserLease = { browser: inst.browser, generation: inst.generation, signal: abort.signal, isolated: inst.isolated };
    const running = Promise.resolve().then(() => task(lease));
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

  private async instance(lane: Lane): Promise<Instance> {
    if (this.closed) throw unavailable('Renderer is shutting down');
    const cur = lane.current;
    if (cur && cur.browser.isConnected() && cur.renders < this.recycleAfter) return cur;
    if (cur) this.retire(cur);
    lane.launching ??= this.launch(lane).finally(() => (lane.launching = undefined));
    return lane.launching;
  }

  /** A browser for one retry after a crash: never the current one, shut down when its lease ends. */
  private async isolatedInstance(): Promise<Instance> {
    const inst = await this.launch();
    inst.retired = true;
    return inst;
  }

  /** A browser for `lane`; without one, isolated (a retry after a crash). */
  private async launch(lane?: Lane): Promise<Instance> {
    const isolated = !lane;
    let browser: RenderBrowser;
    const timeout = this.options.launchTimeoutMs ?? Math.max(this.options.timeoutMs, 30_000);
    const { chromiumPath, nice, launch } = this.options;
    try {
      if (launch) browser = await launchedWithin(launch(), timeout);
      else if (this.renderThread) browser = await this.renderThread.launch(chromiumPath, timeout);
      else browser = new LocalBrowser(await launchBrowser(chromiumPath, timeout, nice));
    } catch (err) {
      this.logger.error(`could not launch Chromium at ${this.options.chromiumPath}: ${String((err as Error)?.message ?? err)}`);
      throw unavailable('Renderer is not available');
    }
    this.counts.launches++;
    const inst: Instance = { browser, generation: ++this.generation, renders: 0, active: 0, retired: false, isolated };
    this.instances.add(inst);
    browser.on('disconnected', () => {
      this.forget(inst);
      this.instances.delete(inst);
    });
    if (this.closed) {
      await this.shutdown(inst);
      throw unavailable('Renderer is shutting down');
    }
    if (lane) lane.current = inst;
    return inst;
  }

  private forget(inst: Instance): void {
    for (const lane of this.lanes) if (lane.current === inst) lane.current = undefined;
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

/** Owners whose last lane is remembered. */
const LAST_LANES = 10_000;

const tasksIn = (lane: Lane) => [...lane.users.values()].reduce((a, b) => a + b, 0);

function unavailable(message: string): AppError {
  return new StoreUnavailable(message);
}

function crashes(): AppError {
  return new AppError('unprocessable', 'The recording cannot be rendered: replaying it crashes the renderer (Chromium), twice so far');
}
