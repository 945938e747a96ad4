// Where HTTP batches are prepared (batch-preparation.ts): large ones in INGEST_THREADS worker threads
// (batch-worker.ts), small ones in the service's thread. Preparing a batch (decoding, parsing,
// validating, hashing, summarising) costs about 12 ms per MB: a 64 MiB body held the event loop, and
// so every tenant's requests, for most of a second, and an 8 MiB one for a tenth. In a thread those
// stalls are gone. A batch below INGEST_THREAD_MIN_BYTES (a compressed one counted 8 to 1) costs less
// than a millisecond here, and measured under a flood of 16 KiB batches, sending them over made
// other tenants' tails no better and sometimes worse (the hop, and one more thread on the cores): they
// stay. With no threads, or without the compiled worker (the sources under ts-jest), every batch is
// prepared here. A body crosses as one copy; its payload comes back moved. A batch goes to the thread
// with the fewest in flight; a thread that stops fails its batches with a 503 (nothing was stored, a
// retry may succeed) and the next batch starts a new one.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import { AppError, AppErrorCode } from '../common/app-error';
import { BatchBody, PreparedBatch, prepareBody } from './batch-preparation';

const WORKER_FILE = join(__dirname, 'batch-worker.js');
/** How many bytes a compressed body is taken to hold per byte sent, to choose where it is prepared. */
const COMPRESSION_GUESS = 8;

export interface ToBatchThread {
  id: number;
  batch: BatchBody;
}

export type FromBatchThread =
  { id: number; batch: PreparedBatch } | { id: number; error: { code?: AppErrorCode; message: string; retryAfterSeconds?: number } };

interface Pending {
  resolve: (b: PreparedBatch) => void;
  reject: (e: Error) => void;
}

class BatchThread {
  readonly pending = new Map<number, Pending>();

  constructor(
    readonly worker: Worker,
    private readonly onStopped: (t: BatchThread) => void,
  ) {
    worker.unref(); // closed at shutdown; it never keeps the process alive
    worker.on('message', (m: FromBatchThread) => this.receive(m));
    worker.on('error', () => this.stopped());
    worker.on('exit', () => this.stopped());
  }

  private receive(m: FromBatchThread): void {
    const waiting = this.pending.get(m.id);
    if (!waiting) return;
    this.pending.delete(m.id);
    if ('batch' in m) {
      waiting.resolve(m.batch);
    } else {
      const e = m.error;
      waiting.reject(e.code ? new AppError(e.code, e.message, { retryAfterSeconds: e.retryAfterSeconds }) : new Error(`Batch thread: ${e.message}`));
    }
  }

  private stopped(): void {
    this.onStopped(this);
    const waiting = [...this.pending.values()];
    this.pending.clear();
    for (const w of waiting)
      w.reject(new AppError('unavailable', 'The thread preparing this batch stopped; nothing was stored, retry', { retryAfterSeconds: 1 }));
  }
}

export class BatchThreads {
  private readonly threads: BatchThread[] = [];
  private ids = 0;

  /** Whether the compiled worker is there (not under ts-jest: batches are then prepared in this thread). */
  static available(file = WORKER_FILE): boolean {
    return existsSync(file);
  }

  /**
   * `count` 0: every batch is prepared in this thread; else those of at least `minBytes` (decoded, as
   * far as the body tells) go to a thread, which runs at nice `nice` (batch-worker.ts). `file`: the
   * worker's script (tests give their own).
   */
  constructor(
    private readonly count: number,
    private readonly minBytes = 0,
    private readonly nice = 0,
    private readonly file = WORKER_FILE,
  ) {
    if (!BatchThreads.available(file)) this.count = 0;
  }

  /** Where batches are prepared now: 'worker' threads or this 'service' thread. */
  get where(): 'worker' | 'service' {
    return this.count > 0 ? 'worker' : 'service';
  }

  async prepare(batch: BatchBody): Promise<PreparedBatch> {
    if (this.count === 0 || batch.body.length * (batch.coding === 'identity' ? 1 : COMPRESSION_GUESS) < this.minBytes) return prepareBody(batch);
    const thread = this.leastBusy();
    // Moved, not copied, when the body is its buffer's only content (Fastify concatenates a body
    // above 4 KiB into a buffer of its own): one copy of a large batch less on this thread. A body
    // in a shared (pooled) buffer is copied first. The request's body is not read again.
    const own = batch.body.byteOffset === 0 && batch.body.buffer.byteLength === batch.body.length;
    const body = own ? batch.body : new Uint8Array(batch.body);
    const id = ++this.ids;
    return new Promise<PreparedBatch>((resolve, reject) => {
      thread.pending.set(id, { resolve, reject });
      const m: ToBatchThread = { id, batch: { ...batch, body } };
      thread.worker.postMessage(m, [body.buffer]);
    });
  }

  async close(): Promise<void> {
    const threads = this.threads.splice(0);
    await Promise.all(threads.map((t) => t.worker.terminate()));
  }

  private leastBusy(): BatchThread {
    let best: BatchThread | undefined;
    for (const t of this.threads) if (!best || t.pending.size < best.pending.size) best = t;
    if (best && (best.pending.size === 0 || this.threads.length >= this.count)) return best;
    const thread = new BatchThread(new Worker(this.file, { workerData: { nice: this.nice } }), (t) => {
      const i = this.threads.indexOf(t);
      if (i >= 0) this.threads.splice(i, 1);
    });
    this.threads.push(thread);
    return thread;
  }
}
