// A read thread (a worker of the service process, started by read-thread.ts): it answers GET
// …/events reads on its own event loop, heap and NATS connection, with the same JetStreamEventStore
// as the service's thread (the same plan, merge, archives and errors), one chunk of the JSON array
// at a time as the service's thread asks for it. It runs at READ_THREAD_NICE: a tenant's reads take
// the CPU that the service's thread (every tenant's requests) leaves. Errors cross as
// common/thread-errors.ts says (a 404 or a window's 400 and 422 as the service's thread answers them).
import { Logger } from '@nestjs/common';
import { parentPort, workerData } from 'node:worker_threads';
import { nestLogger, processLogger } from '../common/logger';
import { toThreadError } from '../common/thread-errors';
import { lowerThreadPriority } from '../common/thread-priority';
import { threadEventStore, ThreadSettings } from '../infrastructure/nats/thread-event-store';
import { rawEventsJsonArray } from '../infrastructure/nats/recording-events.json';
import { eventWindow } from './event-window';
import type { FromReadThread, ReadOrder, ToReadThread } from './read-thread';

const port = parentPort!;
const settings = workerData as ThreadSettings;
lowerThreadPriority(settings.nice);
Logger.overrideLogger(nestLogger(processLogger(settings.log.level, settings.log.format)));

const connected = threadEventStore(settings.nats, 'tapedeck-read-thread', settings.publishTimeoutMs);

/** A read in progress: chunks the service's thread asked for and not yet sent, and its abort. */
interface Read {
  abort: AbortController;
  credit: number;
  wake?: () => void;
}
const reads = new Map<number, Read>();

/** Resolves once the service's thread asked for one more chunk of the read (or it was aborted). */
function asked(r: Read): Promise<void> | undefined {
  if (r.credit > 0 || r.abort.signal.aborted) return undefined;
  return new Promise((resolve) => (r.wake = resolve));
}

async function run(id: number, m: ReadOrder, r: Read): Promise<void> {
  const es = await connected();
  const signal = r.abort.signal;
  // The same window as the service's thread made from the same query (its bounds are resolved here).
  const made = m.window && eventWindow(m.window.spec.query, m.window.spec.what);
  const window = made && (m.window!.hint ? { ...made, hint: m.window!.hint } : made);
  const source = await es.readForResponse(m.tenantId, m.recordingId, { signal, mustExist: true, window, seqs: m.seqs });
  for await (const chunk of source.stored ?? rawEventsJsonArray(source.runs)) {
    await asked(r);
    if (signal.aborted) return;
    r.credit--;
    // A copy of its own, moved: a chunk may be part of a pooled buffer or of a cached archive.
    const own = new Uint8Array((chunk as Uint8Array).length);
    own.set(chunk as Uint8Array);
    port.postMessage({ id, chunk: own } satisfies FromReadThread, [own.buffer]);
  }
  if (!signal.aborted) port.postMessage({ id, end: true } satisfies FromReadThread);
}

port.on('message', (m: ToReadThread) => {
  if ('read' in m) {
    const r: Read = { abort: new AbortController(), credit: 1 };
    reads.set(m.id, r);
    run(m.id, m.read, r)
      .catch((e: unknown) => {
        if (r.abort.signal.aborted) return;
        port.postMessage({ id: m.id, error: toThreadError(e) } satisfies FromReadThread);
      })
      .finally(() => reads.delete(m.id));
    return;
  }
  const r = reads.get(m.id);
  if (!r) return;
  if ('abort' in m) r.abort.abort();
  else r.credit++;
  const wake = r.wake;
  r.wake = undefined;
  wake?.();
});
