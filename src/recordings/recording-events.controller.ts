import { Controller, Get, Param, Query, Res } from '@nestjs/common';
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
import { EventWindowQuery } from './event-window.dto';
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
  ) {}

  @Get('events')
  @Auth({ keys: ['secret'], presign: 'recording' })
  @ApiOperation({
    summary: 'Get recording events',
    description:
      "The recording's events from the event store, in timestamp order (stable), with repeated batches and repeated sequenceIds removed, each with originalTimestamp (equal to timestamp for a single recording). " +
      'In-band metadata events (custom events tagged recording-meta / pageview-meta) become metadata and are not returned. Streamed; readable immediately after ingestion was acknowledged.' +
      WINDOW_DESCRIPTION,
  })
  @ApiProduces('application/json')
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
  async get(@Query() q: EventWindowQuery, @Param() { recordingId }: RecordingIdParams, @CurrentAuth() auth: AuthContext, @Res() reply: FastifyReply) {
    // Only a window with a start has a keyframe to look up.
    const window = q.from ? await this.hints.withHint(auth.tenantId, recordingId, eventWindow(q)) : eventWindow(q);
    const body = await this.limits.metered(auth.tenantId, () => this.events.streamEvents(auth.tenantId, recordingId, abortWhenClientGone(reply), window));
    return sendJsonStream(reply, body);
  }
}
