import { Controller, Get, Headers, Param, Query, Res } from '@nestjs/common';
import { ApiOperation, ApiProduces, ApiResponse, ApiTags } from '@nestjs/swagger';
import type { FastifyReply } from 'fastify';
import { abortWhenClientGone, sendJsonStream } from '../common/stream-reply';
import { Auth, CurrentAuth } from '../auth/auth.decorator';
import type { AuthContext } from '../auth/auth-context';
import { ApiStoreUnavailable, ApiTextError, ApiValidationError } from '../common/openapi/api-responses';
import { EventList, RecordingIdParams } from '../domain/recording.dto';
import { ApiReadBandwidth } from '../limits/limits.openapi';
import { TenantLimiter } from '../limits/tenant-limiter.service';
import { eventWindow } from './event-window';
import { RecordingEventsQuery } from './event-window.dto';
import { LiveFeed } from '../live/live-feed.service';
import { parseLastEventId } from '../live/sse';
import { ValidationError } from '../common/validation';
import type { ReadWindow } from '../domain/event-store';
import { RecordingEventsService } from './recording-events.service';
import { WindowHints } from './window-hints.service';

/** What a window adds to an event read's description (recordings and replays). */
export const WINDOW_DESCRIPTION =
  ' With from and/or to, only a window: it begins at the last keyframe at or before from (its Meta first, so it replays on its own; the first event when there is none) and ends with the last event at or before to; limit keeps the first limit events. ' +
  'A windowed read reads only the stored batches the window needs and stops after the last. Without from, to and limit: the whole recording.';

@ApiTags('recordings')
@Controller('recordings/:recordingId')
export class RecordingEventsController {
  constructor(
    private readonly events: RecordingEventsService,
    private readonly limits: TenantLimiter,
    private readonly hints: WindowHints,
    private readonly live: LiveFeed,
  ) {}

  @Get('events')
  @Auth({ keys: ['secret'], presign: 'recording' })
  @ApiOperation({
    summary: 'Get recording events',
    description:
      "The recording's events from the event store, in timestamp order (stable), with repeated batches and repeated sequenceIds removed, each with originalTimestamp (equal to timestamp for a single recording). " +
      'In-band metadata events (custom events tagged recording-meta / pageview-meta) become metadata and are not returned. Streamed; readable immediately after ingestion was acknowledged.' +
      WINDOW_DESCRIPTION +
      ' With live=true: a live feed (Server-Sent Events, see docs/live.md) of the recording from its latest keyframe, then each batch as soon as JetStream stored it; resumable with Last-Event-ID.',
  })
  @ApiProduces('application/json', 'text/event-stream')
  @ApiResponse({ status: 200, type: EventList.Output })
  @ApiValidationError('recordingId not a UUID, or a bad from, to or limit (malformed, limit out of range, from after to)')
  @ApiTextError(404, 'No such recording for this tenant', 'Recording not found')
  @ApiTextError(
    422,
    'The window misses the recording: from after its last event, or to before its first',
    "from=epoch:1900000000000 is after the recording's last event (its events are from epoch 1700000000000 to 1700000060000)",
  )
  @ApiStoreUnavailable('events')
  @ApiReadBandwidth()
  // The query before the path: a bad path is the error reported (ZodValidationPipe).
  async get(
    @Query() q: RecordingEventsQuery,
    @Param() { recordingId }: RecordingIdParams,
    @CurrentAuth() auth: AuthContext,
    @Res() reply: FastifyReply,
    @Headers('last-event-id') lastEventId?: string,
  ) {
    if (q.live) return this.openLive(q, recordingId, auth, reply, lastEventId);
    // Only a window with a start has a keyframe to look up.
    const window = q.from ? await this.hints.withHint(auth.tenantId, recordingId, eventWindow(q)) : eventWindow(q);
    const body = await this.limits.metered(auth.tenantId, () => this.events.streamEvents(auth.tenantId, recordingId, abortWhenClientGone(reply), window));
    return sendJsonStream(reply, body);
  }

  private async openLive(q: RecordingEventsQuery, recordingId: string, auth: AuthContext, reply: FastifyReply, header: string | undefined) {
    const windowed = (['from', 'to', 'limit'] as const).filter((k) => q[k] !== undefined);
    if (windowed.length) {
      const message = 'a live feed starts at the latest keyframe; it takes no window';
      throw new ValidationError(
        `Invalid query: ${windowed.join(', ')}: ${message}`,
        windowed.map((path) => ({ path, message })),
      );
    }
    const after = parseLastEventId(header) ?? parseLastEventId(q.lastEventId);
    const { tenantId } = auth;
    await this.events.assertExists(tenantId, recordingId);
    return this.live.open({ tenantId, recordingId, expires: auth.expires, after }, reply, async (upTo, from, signal) => {
      const seqs = { after: from, upTo };
      // A viewer that has nothing yet starts at the latest keyframe: a window from the last event.
      const window: ReadWindow | undefined = from === undefined ? await this.hints.withHint(tenantId, recordingId, LATEST_KEYFRAME) : undefined;
      return this.limits.metered(tenantId, () => this.events.streamEvents(tenantId, recordingId, signal, window, seqs));
    });
  }
}

/** The window that begins at a recording's latest keyframe (its Meta first) and runs to its end. */
const LATEST_KEYFRAME: ReadWindow = eventWindow({ from: { kind: 'percent', value: 100 } })!;
