// What the renderer needs to find a recording: a content key that changes whenever the recording's
// events change, and a loader for the events (called only when no cache of the renderer can answer).
// The key is the JetStream sequence of the recording's last event batch: one direct lookup per
// request, and stream sequences are never reused, so an append, a deletion or a re-ingestion after a
// deletion all give a new key. Loaded events must hold replayable documents (see assertRenderable).
import { Inject, Injectable } from '@nestjs/common';
import { AppError } from '../../common/app-error';
import { EVENT_STORE, EventStore } from '../../domain/event-store';
import { EventType, RrwebEvent } from '../../domain/rrweb-event';
import { RecordingEventsService } from '../../recordings/recording-events.service';

export interface RenderSource {
  contentKey: string;
  events: () => Promise<readonly RrwebEvent[]>;
}

@Injectable()
export class RecordingRenderSource {
  constructor(
    @Inject(EVENT_STORE) private readonly store: EventStore,
    private readonly recordings: RecordingEventsService,
  ) {}

  /** 404 for an unknown recording; 422 for one that holds metadata but no events yet. */
  async resolve(tenantId: string, recordingId: string): Promise<RenderSource> {
    const lastSeq = await this.store.lastEventSeq(tenantId, recordingId);
    if (lastSeq === undefined) {
      await this.recordings.assertExists(tenantId, recordingId);
      throw new AppError('unprocessable', 'The recording has no events to render yet');
    }
    return {
      contentKey: `${tenantId}/${recordingId}/${lastSeq}`,
      events: async () => assertRenderable(await this.recordings.loadEvents(tenantId, recordingId)),
    };
  }

  /** 404 for an unknown recording. */
  assertExists(tenantId: string, recordingId: string): Promise<void> {
    return this.recordings.assertExists(tenantId, recordingId);
  }
}

/**
 * 422 unless every full snapshot is a document with an <html> element. rrweb's Replayer rebuilds a
 * document without one once, then throws on every later seek of the same replay page (its style
 * rules go into a missing documentElement), which would surface as a 500.
 */
export function assertRenderable<T extends readonly RrwebEvent[]>(events: T): T {
  for (const e of events) {
    if (e.type !== EventType.FullSnapshot) continue;
    const node = e.data?.node as { type?: unknown; childNodes?: unknown } | undefined;
    const children = node?.type === 0 && Array.isArray(node.childNodes) ? (node.childNodes as { type?: unknown; tagName?: unknown }[]) : [];
    if (!children.some((c) => c?.type === 2 && typeof c.tagName === 'string' && c.tagName.toLowerCase() === 'html')) {
      throw new AppError('unprocessable', 'The recording cannot be rendered: a full snapshot holds no <html> document');
    }
  }
  return events;
}
