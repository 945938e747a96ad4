// Event reads come from JetStream, not ClickHouse, so a write is readable as soon as it was
// acknowledged (read-your-writes), even while projections lag or ClickHouse is down.
import { Injectable } from '@nestjs/common';
import type { Readable } from 'node:stream';
import type { ReadEvent, RrwebEvent } from '../domain/rrweb-event';
import { JetStreamEventStore } from '../infrastructure/nats/event-store';
import { rawEventsJsonArray } from './recording-events.json';

/** For a single recording, originalTimestamp equals timestamp. */
export const asReadEvent = (e: RrwebEvent): ReadEvent => ({ ...e, originalTimestamp: e.timestamp });

@Injectable()
export class RecordingEventsService {
  constructor(private readonly store: JetStreamEventStore) {}

  async exists(tenantId: string, recordingId: string): Promise<boolean> {
    const c = await this.store.messageCounts(tenantId, recordingId);
    return c.ev + c.meta > 0;
  }

  /** Stream sequence of the recording's latest deletion marker in the event store, if any. */
  lastDeletionSeq(tenantId: string, recordingId: string): Promise<number | undefined> {
    return this.store.lastDeletionSeq(tenantId, recordingId);
  }

  /** The events as a JSON array; the read fails with 404 when the recording has no message (see sendJsonStream for when that can still be a status). */
  streamEvents(tenantId: string, recordingId: string, signal?: AbortSignal): Readable {
    return rawEventsJsonArray(this.store.readRaw(tenantId, recordingId, signal, { mustExist: true }));
  }

  /** All events in memory (rendering needs them whole; bounded by the renderer's own limits). */
  async loadEvents(tenantId: string, recordingId: string): Promise<RrwebEvent[]> {
    const out: RrwebEvent[] = [];
    for await (const e of this.store.read(tenantId, recordingId, undefined, { mustExist: true })) out.push(e);
    return out;
  }
}
