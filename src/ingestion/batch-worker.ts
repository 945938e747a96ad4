// A batch thread (a worker of the service process, started by batch-threads.ts): it prepares HTTP
// batches (batch-preparation.ts) on its own event loop and heap, keeps each one until the service's
// thread has admitted it, then appends it to JetStream on a NATS connection of its own (the same
// JetStreamEventStore, so the same chunking, acknowledgement and duplicate rules) or drops it. An
// AppError crosses as its code, message and retry hint; anything else as a failure of the thread's
// own. It runs at INGEST_THREAD_NICE: a large batch takes the CPU that the service's thread (every
// tenant's requests) leaves.
import { Logger } from '@nestjs/common';
import { parentPort, workerData } from 'node:worker_threads';
import { nestLogger, processLogger } from '../common/logger';
import { toThreadError } from '../common/thread-errors';
import { lowerThreadPriority } from '../common/thread-priority';
import { threadEventStore, ThreadSettings } from '../infrastructure/nats/thread-event-store';
import { BatchBody, PreparedBatch, prepareBody } from './batch-preparation';
import type { FromBatchThread, StoredBatch, ToBatchThread } from './batch-threads';

const port = parentPort!;
const settings = workerData as ThreadSettings;
lowerThreadPriority(settings.nice);
Logger.overrideLogger(nestLogger(processLogger(settings.log.level, settings.log.format)));

/** Batches prepared and not yet appended or dropped, by the service thread's id. */
const staged = new Map<number, { body: Omit<BatchBody, 'body'>; batch: PreparedBatch }>();

const connected = threadEventStore(settings.nats, 'tapedeck-batch-thread', settings.publishTimeoutMs);

async function answer(m: Exclude<ToBatchThread, { drop: true }>): Promise<{ answer: FromBatchThread; transfer?: ArrayBuffer[] }> {
  if ('stage' in m) {
    const { body: _body, ...rest } = m.stage;
    const batch = prepareBody(m.stage);
    staged.set(m.id, { body: rest, batch });
    return { answer: { id: m.id, staged: { events: batch.events, bytes: batch.payload.length, batchId: batch.batchId } } };
  }
  const held = staged.get(m.id);
  staged.delete(m.id);
  if (!held) throw new Error('no such batch');
  const { body, batch } = held;
  const r = await (await connected()).appendBatch(body.tenantId, body.recordingId, batch.batchId, batch.payload, batch.summary, batch.activity);
  // A keyed duplicate is compared with what the key stored first, by the service's thread.
  const keyed = r.duplicate && body.idempotencyKey !== undefined;
  const stored: StoredBatch = keyed ? { ...r, payload: batch.payload } : r;
  return { answer: { id: m.id, stored }, transfer: keyed ? [batch.payload.buffer as ArrayBuffer] : [] };
}

port.on('message', (m: ToBatchThread) => {
  if ('drop' in m) return void staged.delete(m.id);
  answer(m).then(
    (a) => port.postMessage(a.answer, a.transfer ?? []),
    (e: unknown) => port.postMessage({ id: m.id, error: toThreadError(e) } satisfies FromBatchThread),
  );
});
