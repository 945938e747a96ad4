// Event reads come from JetStream, not ClickHouse, so a write is readable as soon as it was
// acknowledged (read-your-writes), even while projections lag or ClickHouse is down.
import { Inject, Injectable } from '@nestjs/common';
import { Readable } from 'node:stream';
import { assertRecordingExists, EVENT_STORE, EventStore, ReadOptions, ReadWindow } from '../domain/event-store';
import type { ReadEvent, RrwebEvent } from '../domain/rrweb-event';
import { rawEventsJsonArray } from '../infrastructure/nats/recording-events.json';

/** For a single recording, originalTimestamp equals timestamp. */
export const asReadEvent = (e: RrwebEvent): ReadEvent => ({ ...e, originalTimestamp: e.timestamp });

@Injectable()
export class RecordingEventsService {
  constructor(@Inject(EVENT_STORE) private readonly store: EventStore) {}

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
   * recording has no message (see sendJsonStream for when that can still be a status).
   */
  streamEvents(tenantId: string, recordingId: string, signal?: AbortSignal, window?: ReadWindow, seqs?: ReadOptions['seqs']): Readable {
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
