// What the renderer needs to find a recording: a content key that changes whenever the recording's
// events change, and a loader for the events (called only when no cache of the renderer can answer).
// The key is the JetStream sequence of the recording's last event batch: one direct lookup per
// request, and stream sequences are never reused, so an append, a purge or a re-ingestion after a
// deletion all give a new key. Loaded events must hold replayable documents (see assertRenderable).
import { Injectable } from '@nestjs/common';
import { AppError, notFound } from '../common/app-error';
import { EventType, RrwebEvent } from '../domain/rrweb-event';
import { NatsClient } from '../infrastructure/nats/nats-connection';
import { EVENTS_STREAM, recordingSubject } from '../infrastructure/nats/subjects';
import { RecordingEventsService } from '../recordings/recording-events.service';

export interface RenderSource {
  contentKey: string;
  events: () => Promise<readonly RrwebEvent[]>;
}

@Injectable()
export class RecordingRenderSource {
  constructor(
    private readonly nats: NatsClient,
    private readonly recordings: RecordingEventsService,
  ) {}

  /** 404 for an unknown recording; 422 for one that holds metadata but no events yet. */
  async resolve(tenantId: string, recordingId: string): Promise<RenderSource> {
    const lastSeq = await this.lastEventSeq(tenantId, recordingId);
    if (lastSeq === undefined) {
      if (await this.recordings.exists(tenantId, recordingId)) throw new AppError('unprocessable', 'The recording has no events to render yet');
      throw notFound('Recording not found');
    }
    return {
      contentKey: `${tenantId}/${recordingId}/${lastSeq}`,
      events: async () => assertRenderable(await this.recordings.loadEvents(tenantId, recordingId)),
    };
  }

  async exists(tenantId: string, recordingId: string): Promise<boolean> {
    this.assertConnected();
    return this.recordings.exists(tenantId, recordingId);
  }

  private assertConnected(): void {
    if (!this.nats.connected) {
      throw new AppError('unavailable', 'Event store (NATS JetStream) is unreachable; retry later', { 'Retry-After': '1' });
    }
  }

  private async lastEventSeq(tenantId: string, recordingId: string): Promise<number | undefined> {
    this.assertConnected();
    try {
      const m = await this.nats.jsm.streams.getMessage(EVENTS_STREAM, { last_by_subj: recordingSubject(tenantId, recordingId, 'ev') });
      return m.seq;
    } catch (err) {
      // "no message found" (JetStream API error 10037) is the only expected failure.
      if (/no message found/i.test(String((err as Error)?.message)) || (err as { api_error?: { err_code?: number } })?.api_error?.err_code === 10037) {
        return undefined;
      }
      throw err;
    }
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
