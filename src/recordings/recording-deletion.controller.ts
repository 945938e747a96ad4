import { Controller, Delete, HttpCode, Param } from '@nestjs/common';
import { ApiOperation, ApiResponse, ApiTags } from '@nestjs/swagger';
import { Auth, CurrentAuth } from '../auth/auth.decorator';
import type { AuthContext } from '../auth/auth-context';
import { ApiInvalidRecordingId, ApiTextError } from '../common/openapi/api-responses';
import { RecordingIdParams } from '../domain/recording.dto';
import { RecordingDeletion } from './recording-deletion.service';

@ApiTags('recordings')
@Controller('recordings/:recordingId')
export class RecordingDeletionController {
  constructor(private readonly deletion: RecordingDeletion) {}

  @Delete()
  @HttpCode(204)
  @Auth({ keys: ['secret'] })
  @ApiOperation({
    summary: 'Delete a recording',
    description:
      "Removes the recording's events and metadata from the event store, and answers once every projection hides it (listing, detail, statistics, replays), " +
      'waiting at most 3 s for the projector; if it lags longer, the listing and statistics follow shortly after (a deletion marker is projected) while detail, events, player and screenshots are 404 at once. ' +
      'A rebuild cannot bring it back: the data is gone from the stream. Events ingested for the same id afterwards start a new recording.',
  })
  @ApiResponse({ status: 204, description: 'Deleted' })
  @ApiInvalidRecordingId()
  @ApiTextError(404, 'No such recording for this tenant', 'Recording not found')
  @ApiResponse({ status: 503, description: 'JetStream unreachable; retry' })
  async delete(@Param() { recordingId }: RecordingIdParams, @CurrentAuth() auth: AuthContext): Promise<void> {
    return this.deletion.delete(auth.tenantId, recordingId);
  }
}
