// What the renderer needs to find a recording: a content key that changes whenever the recording's
// events change, and a loader for the events (called only when no cache of the renderer can answer).
// The key is the JetStream sequence of the recording's last event batch: one direct lookup per
// request, and stream sequences are never reused, so an append, a deletion or a re-ingestion after a
// deletion all give a new key. Loaded events must hold replayable documents (see assertRenderable).
// `around` reads a time window (from the keyframe at or before its start, docs/event-windows.md),
// starting at the keyframe index's position when it has one.
import { Inject, Injectable } from '@nestjs/common';
import { AppError } from '../../common/app-error';
import { EVENT_STORE, EventStore } from '../../domain/event-store';
import { EventType, RrwebEvent } from '../../domain/rrweb-event';
import { RecordingEventsService } from '../../recordings/recording-events.service';
import { WindowHints } from '../../recordings/window-hints.service';
import type { WindowLoader } from '../screenshot/screenshot-renderer';

export interface RenderSource {
  contentKey: string;
  events: () => Promise<readonly RrwebEvent[]>;
  around: WindowLoader;
}

@Injectable()
export class RecordingRenderSource {
  constructor(
    @Inject(EVENT_STORE) private readonly store: EventStore,
    private readonly recordings: RecordingEventsService,
    private readonly hints: WindowHints,
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
      around: (bounds) => this.around(tenantId, recordingId, bounds),
    };
  }

  private async around(tenantId: string, recordingId: string, bounds: (first: number, last: number) => { from: number; to: number }) {
    const hinted = await this.hints.withHint(tenantId, recordingId, { resolve: bounds });
    // The read resolves the window once it knows the recording's span from its headers: that span
    // places the moment (the index's, which the hint used, may lag).
    let span: { first: number; last: number } | undefined;
    const window = {
      ...hinted,
      resolve: (first: number, last: number) => {
        span = { first, last };
        return bounds(first, last);
      },
    };
    const events = assertRenderable(await this.recordings.loadEvents(tenantId, recordingId, window));
    return { events, span };
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
