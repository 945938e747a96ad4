// Where GET …/events bodies are assembled: in a worker thread (read-worker.ts), with READ_THREADS 1
// (the default), or in the service's thread. Assembling a read (pulling its batches from JetStream,
// splitting them into events, writing the JSON array) costs the service's thread about 30 ms of CPU
// and its collector more per MB read; under one tenant's reads at its bandwidth limit, another
// tenant's ingestion waited behind those stalls (bench/README.md, noisy neighbour). In a thread of
// lower priority (READ_THREAD_NICE) on a NATS connection of its own, the service's thread only
// passes the chunks on to the socket.
//
// A read's chunks cross one at a time, as the response stream asks for them (its backpressure reaches
// the thread, and through it JetStream); each is moved, not copied. A read whose client is gone is
// aborted in the thread. A thread that stops fails its reads with a 503 before their first chunk (a
// read already answering is cut short, as a failing read is) and the next read starts a new one.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { Worker } from 'node:worker_threads';
import { AppError } from '../common/app-error';
import { fromThreadError, ThreadError } from '../common/thread-errors';
import type { ReadOptions, WindowHint } from '../domain/event-store';
import type { ThreadSettings } from '../infrastructure/nats/thread-event-store';
import type { WindowSpec } from './event-window';

const WORKER_FILE = join(__dirname, 'read-worker.js');

/** What a read is of: a recording's events (of a query's window, with its hint, or after a sequence, when given). */
export interface ReadOrder {
  tenantId: string;
  recordingId: string;
  window?: { spec: WindowSpec; hint?: WindowHint };
  seqs?: ReadOptions['seqs'];
}

export type ToReadThread = { id: number; read: ReadOrder } | { id: number; more: true } | { id: number; abort: true };

export type FromReadThread = { id: number; chunk: Uint8Array } | { id: number; end: true } | { id: number; error: ThreadError };

const stoppedError = () => new AppError('unavailable', 'The thread reading these events stopped; retry', { retryAfterSeconds: 1 });

export class ReadThread {
  private worker?: Worker;
  /** Reads in progress: their thread, and whether each has asked for a chunk not arrived yet. */
  private readonly reads = new Map<number, { body: Readable; worker: Worker; asked: boolean }>();
  private ids = 0;

  /** Whether the compiled worker is there (not under ts-jest: reads are then assembled in this thread). */
  static available(file = WORKER_FILE): boolean {
    return existsSync(file);
  }

  constructor(
    private readonly settings: ThreadSettings,
    private readonly file = WORKER_FILE,
  ) {}

  /** The read's JSON array, assembled in the thread; fails (404, 503…) as the read in this thread would. */
  stream(order: ReadOrder, signal?: AbortSignal): Readable {
    const worker = this.started();
    const id = ++this.ids;
    const body: Readable = new Readable({
      highWaterMark: 256 * 1024,
      read: () => {
        if (read.asked) return;
        read.asked = true;
        worker.postMessage({ id, more: true } satisfies ToReadThread);
      },
      destroy: (err, done) => {
        if (this.reads.delete(id)) worker.postMessage({ id, abort: true } satisfies ToReadThread);
        signal?.removeEventListener('abort', abort);
        done(err);
      },
    });
    const abort = () => body.destroy();
    signal?.addEventListener('abort', abort);
    const read = { body, worker, asked: true }; // the read message asks for the first chunk
    this.reads.set(id, read);
    worker.postMessage({ id, read: order } satisfies ToReadThread);
    if (signal?.aborted) body.destroy();
    return body;
  }

  /** Stops the thread; reads in progress fail. */
  async close(): Promise<void> {
    const worker = this.worker;
    this.worker = undefined;
    await worker?.terminate();
  }

  private started(): Worker {
    if (this.worker) return this.worker;
    const worker = new Worker(this.file, { workerData: this.settings });
    worker.unref(); // closed at shutdown; it never keeps the process alive
    worker.on('message', (m: FromReadThread) => this.receive(m));
    // On 'error', then again on 'exit': only this thread's reads (a read since may be in a new one).
    const stopped = () => {
      if (this.worker === worker) this.worker = undefined;
      for (const [id, r] of this.reads)
        if (r.worker === worker) {
          this.reads.delete(id);
          r.body.destroy(stoppedError());
        }
    };
    worker.on('error', stopped);
    worker.on('exit', stopped);
    this.worker = worker;
    return worker;
  }

  private receive(m: FromReadThread): void {
    const read = this.reads.get(m.id);
    if (!read) return;
    const { body } = read;
    if ('chunk' in m) {
      read.asked = false; // the next `read` of the stream asks again
      body.push(Buffer.from(m.chunk.buffer, m.chunk.byteOffset, m.chunk.byteLength));
      return;
    }
    this.reads.delete(m.id);
    if ('end' in m) return void body.push(null);
    body.destroy(fromThreadError(m.error, 'Read thread'));
  }
}
