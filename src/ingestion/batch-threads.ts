// Where HTTP batches are prepared and stored (batch-preparation.ts): large ones in INGEST_THREADS
// worker threads (batch-worker.ts), small ones in the service's thread. Preparing a batch (decoding,
// parsing, validating, hashing, summarising) costs about 12 ms per MB: a 64 MiB body held the event
// loop, and so every tenant's requests, for most of a second, and an 8 MiB one for a tenth. In a
// thread those stalls are gone. A batch below INGEST_THREAD_MIN_BYTES (a compressed one counted 8 to
// 1) costs less than a millisecond here, and measured under a flood of 16 KiB batches, sending them
// over made other tenants' tails no better and sometimes worse (the hop, and one more thread on the
// cores): they stay. With no threads, or without the compiled worker (the sources under ts-jest),
// every batch is prepared here.
//
// A large batch is staged, not handed back: the thread keeps its payload and answers with what the
// admission needs (events, bytes, batch id); the service's thread admits it against the tenant's
// limits, then has the thread append it to JetStream on a NATS connection of its own, or drop it.
// So the payload and nats.js's copies of it (about four times the batch, measured) never reach the
// service's heap, whose full collections under a tenant's 8 MiB batches were what other tenants'
// requests waited behind (bench/README.md, noisy neighbour). A body crosses as one move (or one copy
// from a shared buffer). A batch goes to the thread with the fewest in flight; a thread that stops
// fails its batches with a 503 (nothing acknowledged: a retry may succeed, and a batch stored just
// before is a duplicate then) and the next batch starts a new one.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import { AppError } from '../common/app-error';
import { fromThreadError, ThreadError } from '../common/thread-errors';
import type { AppendResult } from '../domain/event-store';
import type { ThreadSettings } from '../infrastructure/nats/thread-event-store';
import type { BatchBody } from './batch-preparation';

const WORKER_FILE = join(__dirname, 'batch-worker.js');
/** How many bytes a compressed body is taken to hold per byte sent, to choose where it is prepared. */
const COMPRESSION_GUESS = 8;

/** What the admission of a batch needs to know of it. */
export interface StagedInfo {
  events: number;
  /** The payload's size, as stored. */
  bytes: number;
  batchId: string;
}

/** A batch as stored: the payload comes along only for a keyed batch JetStream called a duplicate (compared with the first). */
export interface StoredBatch extends AppendResult {
  payload?: Uint8Array;
}

/** A batch prepared and waiting for its admission: `append` stores it, `drop` lets it go (once, either). */
export interface StagedBatch extends StagedInfo {
  append(): Promise<StoredBatch>;
  drop(): void;
}

export type ToBatchThread = { id: number; stage: BatchBody } | { id: number; append: true } | { id: number; drop: true };

export type FromBatchThread = { id: number; staged: StagedInfo } | { id: number; stored: StoredBatch } | { id: number; error: ThreadError };

interface Pending {
  resolve: (m: FromBatchThread) => void;
  reject: (e: Error) => void;
}

const stoppedError = () => new AppError('unavailable', 'The thread storing this batch stopped; nothing was acknowledged, retry', { retryAfterSeconds: 1 });

class BatchThread {
  /** Batches waiting for an answer of the thread. */
  readonly pending = new Map<number, Pending>();
  stopped = false;

  constructor(
    readonly worker: Worker,
    private readonly onStopped: (t: BatchThread) => void,
  ) {
    worker.unref(); // closed at shutdown; it never keeps the process alive
    worker.on('message', (m: FromBatchThread) => this.receive(m));
    worker.on('error', () => this.stop());
    worker.on('exit', () => this.stop());
  }

  /** Sends `m` and resolves with the thread's answer (its refusal as an AppError, its own failure as an Error). */
  ask(m: ToBatchThread, transfer: ArrayBuffer[] = []): Promise<FromBatchThread> {
    if (this.stopped) return Promise.reject(stoppedError());
    return new Promise((resolve, reject) => {
      this.pending.set(m.id, { resolve, reject });
      this.worker.postMessage(m, transfer);
    });
  }

  tell(m: ToBatchThread): void {
    if (!this.stopped) this.worker.postMessage(m);
  }

  private receive(m: FromBatchThread): void {
    const waiting = this.pending.get(m.id);
    if (!waiting) return;
    this.pending.delete(m.id);
    if (!('error' in m)) return waiting.resolve(m);
    waiting.reject(fromThreadError(m.error, 'Batch thread'));
  }

  private stop(): void {
    if (this.stopped) return;
    this.stopped = true;
    this.onStopped(this);
    const waiting = [...this.pending.values()];
    this.pending.clear();
    for (const w of waiting) w.reject(stoppedError());
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
   * `count` 0: every batch is prepared and stored by this thread; else those of at least `minBytes`
   * (decoded, as far as the body tells) go to a thread (`settings`). `file`: the worker's script
   * (tests give their own).
   */
  constructor(
    private readonly count: number,
    private readonly minBytes: number,
    private readonly settings: ThreadSettings,
    private readonly file = WORKER_FILE,
  ) {
    if (!BatchThreads.available(file)) this.count = 0;
  }

  /** Where large batches are prepared now: 'worker' threads or this 'service' thread. */
  get where(): 'worker' | 'service' {
    return this.count > 0 ? 'worker' : 'service';
  }

  /** Whether `batch` goes to a thread (stage) or stays in this one (prepareBody). */
  takes(batch: BatchBody): boolean {
    return this.count > 0 && batch.body.length * (batch.coding === 'identity' ? 1 : COMPRESSION_GUESS) >= this.minBytes;
  }

  /** Prepares `batch` in a thread, which keeps it until it is appended or dropped. */
  async stage(batch: BatchBody): Promise<StagedBatch> {
    const thread = this.leastBusy();
    // Moved, not copied, when the body is its buffer's only content (Fastify concatenates a body
    // above 4 KiB into a buffer of its own): one copy of a large batch less on this thread. A body
    // in a shared (pooled) buffer is copied first. The request's body is not read again. (A body moved
    // before is empty: copying it throws, where moving it again would post a message never delivered.)
    const own = batch.body.length > 0 && batch.body.byteOffset === 0 && batch.body.buffer.byteLength === batch.body.length;
    const body = own ? batch.body : new Uint8Array(batch.body);
    const id = ++this.ids;
    const answer = await thread.ask({ id, stage: { ...batch, body } }, [body.buffer as ArrayBuffer]);
    if (!('staged' in answer)) throw new Error('Batch thread: unexpected answer to a batch');
    let settled = false;
    const once = () => {
      if (settled) throw new Error('A staged batch is appended or dropped once');
      settled = true;
    };
    return {
      ...answer.staged,
      append: async () => {
        once();
        const stored = await thread.ask({ id, append: true });
        if (!('stored' in stored)) throw new Error('Batch thread: unexpected answer to an append');
        return stored.stored;
      },
      drop: () => {
        if (settled) return;
        settled = true;
        thread.tell({ id, drop: true });
      },
    };
  }

  /** Stops the threads once the appends in flight are answered (or the publish timeout passed). */
  async close(): Promise<void> {
    const threads = this.threads.splice(0);
    const deadline = Date.now() + this.settings.publishTimeoutMs + 1000;
    while (threads.some((t) => t.pending.size > 0) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    await Promise.all(threads.map((t) => t.worker.terminate()));
  }

  private leastBusy(): BatchThread {
    let best: BatchThread | undefined;
    for (const t of this.threads) if (!best || t.pending.size < best.pending.size) best = t;
    if (best && (best.pending.size === 0 || this.threads.length >= this.count)) return best;
    const thread = new BatchThread(new Worker(this.file, { workerData: this.settings }), (t) => {
      const i = this.threads.indexOf(t);
      if (i >= 0) this.threads.splice(i, 1);
    });
    this.threads.push(thread);
    return thread;
  }
}
