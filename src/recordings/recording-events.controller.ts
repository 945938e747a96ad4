import { Controller, Get, Param, Res } from '@nestjs/common';
import { ApiOperation, ApiParam, ApiProduces, ApiResponse, ApiTags } from '@nestjs/swagger';
import type { FastifyReply } from 'fastify';
import { abortWhenClientGone, sendJsonStream } from '../common/stream-reply';
import { Auth, CurrentAuth } from '../auth/auth.decorator';
import type { AuthContext } from '../auth/auth-context';
import { parseWith, uuidParam } from '../common/validation';
import { ApiInvalidRecordingId, ApiStoreUnavailable } from './recordings-query.openapi';
import { RecordingEventsService } from './recording-events.service';

@ApiTags('recordings')
@Controller('recordings/:recordingId')
export class RecordingEventsController {
  constructor(private readonly events: RecordingEventsService) {}

  @Get('events')
  @Auth({ keys: ['secret'], presign: 'recording' })
  @ApiOperation({
    summary: 'Get recording events',
    description:
      'The recording\'s events from the event store, in timestamp order (stable), with repeated batches and repeated sequenceIds removed, each with originalTimestamp (equal to timestamp for a single recording). ' +
      'In-band metadata events (custom events tagged recording-meta / pageview-meta) become metadata and are not returned. Streamed; readable immediately after ingestion was acknowledged.',
  })
  @ApiParam({ name: 'recordingId', format: 'uuid' })
  @ApiProduces('application/json')
  @ApiResponse({ status: 200, schema: { type: 'array', items: { $ref: '#/components/schemas/Event' } } })
  @ApiInvalidRecordingId()
  @ApiResponse({ status: 404, description: 'No such recording for this tenant' })
  @ApiStoreUnavailable('events')
  async get(@Param('recordingId') rawId: string, @CurrentAuth() auth: AuthContext, @Res() reply: FastifyReply) {
    const recordingId = parseWith(uuidParam, rawId, 'recordingId');
    return sendJsonStream(reply, this.events.streamEvents(auth.tenantId, recordingId, abortWhenClientGone(reply)));
  }
}
