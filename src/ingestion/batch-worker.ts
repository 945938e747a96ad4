// A batch thread (a worker of the service process, started by batch-threads.ts): it prepares HTTP
// batches (batch-preparation.ts) on its own event loop and heap, and answers each by id, moving the
// payload's bytes back. An AppError crosses as its code, message and retry hint; anything else as
// a failure of the thread's own. It runs at INGEST_THREAD_NICE: a large batch takes the CPU that the
// service's thread (every tenant's requests) leaves.
import { parentPort, workerData } from 'node:worker_threads';
import { AppError } from '../common/app-error';
import { lowerThreadPriority } from '../common/thread-priority';
import { BatchBody, prepareBody } from './batch-preparation';
import type { FromBatchThread, ToBatchThread } from './batch-threads';

const port = parentPort!;
lowerThreadPriority((workerData as { nice?: number } | undefined)?.nice ?? 0);

port.on('message', (m: ToBatchThread) => {
  let answer: FromBatchThread;
  try {
    const batch = prepareBody(m.batch as BatchBody);
    answer = { id: m.id, batch };
    port.postMessage(answer, [batch.payload.buffer as ArrayBuffer]);
    return;
  } catch (e) {
    answer =
      e instanceof AppError
        ? { id: m.id, error: { code: e.code, message: e.message, retryAfterSeconds: e.retryAfterSeconds } }
        : { id: m.id, error: { message: String((e as Error)?.message ?? e) } };
  }
  port.postMessage(answer);
});
