import { Controller, Get, Param, Res } from '@nestjs/common';
import { ApiOperation, ApiProduces, ApiResponse, ApiTags } from '@nestjs/swagger';
import type { FastifyReply } from 'fastify';
import { abortWhenClientGone, sendJsonStream } from '../common/stream-reply';
import { Auth, CurrentAuth } from '../auth/auth.decorator';
import type { AuthContext } from '../auth/auth-context';
import { ApiInvalidRecordingId, ApiStoreUnavailable, ApiTextError } from '../common/openapi/api-responses';
import { EventList, RecordingIdParams } from '../domain/recording.dto';
import { ApiReadBandwidth } from '../limits/limits.openapi';
import { TenantLimiter } from '../limits/tenant-limiter.service';
import { RecordingEventsService } from './recording-events.service';

@ApiTags('recordings')
@Controller('recordings/:recordingId')
export class RecordingEventsController {
  constructor(
    private readonly events: RecordingEventsService,
    private readonly limits: TenantLimiter,
  ) {}

  @Get('events')
  @Auth({ keys: ['secret'], presign: 'recording' })
  @ApiOperation({
    summary: 'Get recording events',
    description:
      "The recording's events from the event store, in timestamp order (stable), with repeated batches and repeated sequenceIds removed, each with originalTimestamp (equal to timestamp for a single recording). " +
      'In-band metadata events (custom events tagged recording-meta / pageview-meta) become metadata and are not returned. Streamed; readable immediately after ingestion was acknowledged.',
  })
  @ApiProduces('application/json')
  @ApiResponse({ status: 200, type: EventList.Output })
  @ApiInvalidRecordingId()
  @ApiTextError(404, 'No such recording for this tenant', 'Recording not found')
  @ApiStoreUnavailable('events')
  @ApiReadBandwidth()
  async get(@Param() { recordingId }: RecordingIdParams, @CurrentAuth() auth: AuthContext, @Res() reply: FastifyReply) {
    const body = await this.limits.metered(auth.tenantId, () => this.events.streamEvents(auth.tenantId, recordingId, abortWhenClientGone(reply)));
    return sendJsonStream(reply, body);
  }
}
