// Event reads come from JetStream, not ClickHouse, so a write is readable as soon as it was
// acknowledged (read-your-writes), even while projections lag or ClickHouse is down.
import { Inject, Injectable, OnApplicationShutdown } from '@nestjs/common';
import { Readable } from 'node:stream';
import { assertRecordingExists, EVENT_STORE, EventStore, ReadOptions, ReadWindow } from '../domain/event-store';
import type { ReadEvent, RrwebEvent } from '../domain/rrweb-event';
import { APP_CONFIG, AppConfig } from '../config/config';
import { rawEventsJsonArray } from '../infrastructure/nats/recording-events.json';
import { threadSettings } from '../infrastructure/nats/thread-event-store';
import { specOf } from './event-window';
import { ReadThread } from './read-thread';

/** For a single recording, originalTimestamp equals timestamp. */
export const asReadEvent = (e: RrwebEvent): ReadEvent => ({ ...e, originalTimestamp: e.timestamp });

@Injectable()
export class RecordingEventsService implements OnApplicationShutdown {
  /** Where GET …/events bodies are assembled, when not in this thread (read-thread.ts). */
  private readonly thread?: ReadThread;

  constructor(
    @Inject(EVENT_STORE) private readonly store: EventStore,
    @Inject(APP_CONFIG) cfg?: AppConfig,
  ) {
    if (cfg && cfg.READ_THREADS > 0 && ReadThread.available()) this.thread = new ReadThread(threadSettings(cfg, cfg.READ_THREAD_NICE));
  }

  /** After the HTTP server closed (Nest closes it before this hook): reads in flight have been answered. */
  async onApplicationShutdown() {
    await this.thread?.close();
  }

  /** 404 unless the event store holds the recording (an event batch or metadata). */
  assertExists(tenantId: string, recordingId: string): Promise<void> {
    return assertRecordingExists(this.store, tenantId, recordingId);
  }

  /** Stream sequence of the recording's latest deletion marker in the event store, if any. */
  lastDeletionSeq(tenantId: string, recordingId: string): Promise<number | undefined> {
    return this.store.lastDeletionSeq(tenantId, recordingId);
  }

  /**
   * The events (of `window` only, when given) as a JSON array; the read fails with 404 when the
   * recording has no message (see sendJsonStream for when that can still be a status). Assembled in
   * the read thread when there is one (every window made by eventWindow can cross to it), else here.
   */
  streamEvents(tenantId: string, recordingId: string, signal?: AbortSignal, window?: ReadWindow, seqs?: ReadOptions['seqs']): Readable {
    const spec = window && specOf(window);
    if (this.thread && (!window || spec)) {
      const order = { tenantId, recordingId, seqs, window: spec && { spec, hint: window!.hint } };
      return this.thread.stream(order, signal);
    }
    const store = this.store;
    const opts = { signal, mustExist: true, window, seqs };
    // A sealed recording's whole read is stored ready-made: passed on without parsing an event.
    async function* body() {
      const source = await store.readForResponse(tenantId, recordingId, opts);
      yield* source.stored ?? rawEventsJsonArray(source.runs);
    }
    return Readable.from(body(), { objectMode: false, highWaterMark: 256 * 1024 });
  }

  /** All events (of `window` only, when given) in memory (rendering needs them whole; bounded by the renderer's own limits). */
  async loadEvents(tenantId: string, recordingId: string, window?: ReadWindow): Promise<RrwebEvent[]> {
    const out: RrwebEvent[] = [];
    for await (const e of this.store.read(tenantId, recordingId, { mustExist: true, window })) out.push(e);
    return out;
  }
}
