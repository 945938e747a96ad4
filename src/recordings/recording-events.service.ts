// Event reads come from JetStream, not ClickHouse, so a write is readable as soon as it was
// acknowledged (read-your-writes), even while projections lag or ClickHouse is down.
import { Injectable } from '@nestjs/common';
import type { Readable } from 'node:stream';
import { notFound } from '../common/app-error';
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

  async streamEvents(tenantId: string, recordingId: string, signal?: AbortSignal): Promise<Readable> {
    if (!(await this.exists(tenantId, recordingId))) throw notFound('Recording not found');
    return rawEventsJsonArray(this.store.readRaw(tenantId, recordingId, signal));
  }

  /** All events in memory (rendering needs them whole; bounded by the renderer's own limits). */
  async loadEvents(tenantId: string, recordingId: string): Promise<RrwebEvent[]> {
    if (!(await this.exists(tenantId, recordingId))) throw notFound('Recording not found');
    const out: RrwebEvent[] = [];
    for await (const e of this.store.read(tenantId, recordingId)) out.push(e);
    return out;
  }
}
