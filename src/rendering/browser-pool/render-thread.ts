// The service's side of the render thread (render-worker.ts): browsers and replay pages that live
// there, as the pool and the renders use them here (RenderBrowser). Playwright keeps an
// AsyncLocalStorage for its calls, which in Node.js 20 turns on promise hooks for every promise of
// the thread it runs in, and each render parses its protocol messages, sends the recording's events
// and decodes the image: measured, about 25 ms of the service thread's CPU per screenshot and 5 % of
// it under ingestion alone once anything was rendered. In a thread of its own, none of it delays a
// request of the service, and the events and images cross as one copy each (images are moved).
// If the thread stops, every browser reads as disconnected and every call in flight fails as a
// browser crash would (the pool retries or answers 503); the next launch starts a new thread.
// Shutdown closes the browsers (RenderingModule); a process that exits without it leaves them to
// end on their own once their pipe closes (about 1.5 s here), as after a kill -9.
import { EventEmitter } from 'node:events';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import type { Viewport } from '../screenshot/screenshot-params';
import type { OpenPageOptions, RenderBrowser, ReplayPageHandle } from './render-browser';
import type { FromRenderThread, ToRenderThread } from './render-thread-protocol';
import { untilAborted } from './until-aborted';

const WORKER_FILE = join(__dirname, 'render-worker.js');
/** The message of every call cut short by the thread stopping: read as a crash by the pool. */
const GONE = 'Browser has been closed: the render thread stopped';

type Request = ToRenderThread extends infer M ? (M extends unknown ? Omit<M, 'id'> : never) : never;

export class RenderThread {
  private worker?: Worker;
  private ids = 0;
  private readonly pending = new Map<number, { resolve: (v: unknown) => void; reject: (e: Error) => void }>();
  private readonly browsers = new Map<number, RemoteBrowser>();
  private readonly pages = new Map<number, RemotePage>();

  /** Whether the compiled worker is there (it is not when the sources run under ts-jest: renders then stay in the thread). */
  static available(): boolean {
    return existsSync(WORKER_FILE);
  }

  /** `file`: the worker's script (tests give a stand-in). */
  constructor(
    private readonly nice: number,
    private readonly file = WORKER_FILE,
  ) {}

  async launch(chromiumPath: string, timeoutMs: number): Promise<RenderBrowser> {
    const browser = new RemoteBrowser(this, ++this.ids);
    this.browsers.set(browser.id, browser);
    try {
      await this.call({ op: 'launch', browser: browser.id, chromiumPath, timeoutMs }, true);
    } catch (err) {
      this.browsers.delete(browser.id);
      throw err;
    }
    return browser;
  }

  /** Ends the thread (its browsers are closed first by the pool). */
  async close(): Promise<void> {
    const worker = this.worker;
    if (!worker) return;
    this.stopped();
    await worker.terminate();
  }

  /** Sends a request and resolves its answer; only a launch starts the thread (else: failed as after a crash). */
  call(request: Request, start = false): Promise<unknown> {
    const worker = start ? this.started() : this.worker;
    if (!worker) return Promise.reject(new Error(GONE));
    const id = ++this.ids;
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      worker.postMessage({ ...request, id });
    });
  }

  /** Sends a request that needs no answer (nothing when the thread is not running). */
  post(request: Request): void {
    this.worker?.postMessage({ ...request, id: 0 });
  }

  /** A page of the thread, numbered and known to it before it is asked to open. */
  newPage(): RemotePage {
    const page = new RemotePage(this, ++this.ids);
    this.pages.set(page.id, page);
    return page;
  }

  forgetPage(id: number): void {
    this.pages.delete(id);
  }

  forgetBrowser(id: number): void {
    this.browsers.delete(id);
  }

  private started(): Worker {
    if (this.worker) return this.worker;
    const worker = new Worker(this.file, { workerData: { nice: this.nice } });
    worker.unref(); // the pool closes it at shutdown; it never keeps the process alive
    worker.on('message', (m: FromRenderThread) => this.receive(m));
    worker.on('error', () => worker === this.worker && this.stopped());
    worker.on('exit', () => worker === this.worker && this.stopped());
    this.worker = worker;
    return worker;
  }

  private receive(m: FromRenderThread): void {
    if ('event' in m) {
      if (m.event === 'disconnected') this.browsers.get(m.browser)?.disconnected();
      else this.pages.get(m.page)?.gone();
      return;
    }
    const waiting = this.pending.get(m.id);
    if (!waiting) return;
    this.pending.delete(m.id);
    if (m.ok) waiting.resolve(m.value);
    else waiting.reject(new Error(m.message));
  }

  /** The thread is gone: what waited fails as after a crash, and every browser and page is gone. */
  private stopped(): void {
    this.worker = undefined;
    const waiting = [...this.pending.values()];
    this.pending.clear();
    for (const w of waiting) w.reject(new Error(GONE));
    for (const page of [...this.pages.values()]) page.gone();
    for (const browser of [...this.browsers.values()]) browser.disconnected();
  }
}

class RemoteBrowser extends EventEmitter implements RenderBrowser {
  private connected = true;

  constructor(
    private readonly thread: RenderThread,
    readonly id: number,
  ) {
    super();
  }

  isConnected(): boolean {
    return this.connected;
  }

  async close(): Promise<void> {
    if (!this.connected) return;
    await this.thread.call({ op: 'closeBrowser', browser: this.id }).catch(() => undefined);
    this.disconnected(); // as Playwright's Browser: disconnected once close() resolved
  }

  disconnected(): void {
    if (!this.connected) return;
    this.connected = false;
    this.thread.forgetBrowser(this.id);
    this.emit('disconnected');
  }

  async openReplayPage(eventsJson: string, viewport: Viewport, options: OpenPageOptions): Promise<ReplayPageHandle> {
    if (!this.connected) throw new Error('Browser has been closed');
    const { signal } = options;
    const page = this.thread.newPage();
    const open = this.thread.call({
      op: 'open',
      browser: this.id,
      page: page.id,
      eventsJson,
      viewport,
      timeoutMs: options.timeoutMs,
      settleMs: options.settleMs,
    });
    const onAbort = () => this.thread.post({ op: 'abort', target: page.id });
    signal?.addEventListener('abort', onAbort, { once: true });
    try {
      await untilAborted(open, signal);
      return page;
    } catch (err) {
      // Opened after its render gave up: closed there, as an in-thread page would close its context.
      void open.then(
        () => page.close(),
        () => page.gone(),
      );
      throw err;
    } finally {
      signal?.removeEventListener('abort', onAbort);
    }
  }
}

class RemotePage implements ReplayPageHandle {
  private isClosed = false;

  constructor(
    private readonly thread: RenderThread,
    readonly id: number,
  ) {}

  get closed(): boolean {
    return this.isClosed;
  }

  async shoot(offsetMs: number, box?: Viewport): Promise<Buffer> {
    const png = (await this.thread.call({ op: 'shoot', page: this.id, offsetMs, box })) as Uint8Array;
    return Buffer.from(png.buffer, png.byteOffset, png.byteLength);
  }

  async keyframeAt(offsetMs: number, ts: number): Promise<string | null> {
    return (await this.thread.call({ op: 'keyframe', page: this.id, offsetMs, ts })) as string | null;
  }

  async close(): Promise<void> {
    if (this.isClosed) return;
    this.gone();
    await this.thread.call({ op: 'closePage', page: this.id }).catch(() => undefined);
  }

  gone(): void {
    this.isClosed = true;
    this.thread.forgetPage(this.id);
  }
}
