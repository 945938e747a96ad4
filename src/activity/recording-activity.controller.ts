import { Controller, Get, Param } from '@nestjs/common';
import { ApiOperation, ApiResponse, ApiTags } from '@nestjs/swagger';
import { Auth, CurrentAuth } from '../auth/auth.decorator';
import type { AuthContext } from '../auth/auth-context';
import { ApiInvalidRecordingId, ApiStoreUnavailable, ApiTextError } from '../common/openapi/api-responses';
import { RecordingIdParams } from '../domain/recording.dto';
import { RecordingActivityView } from './recording-activity.dto';
import { RecordingActivityService } from './recording-activity.service';

@ApiTags('recordings')
@Controller('recordings/:recordingId')
export class RecordingActivityController {
  constructor(private readonly activity: RecordingActivityService) {}

  @Get('activity')
  @Auth({ keys: ['secret'], presign: 'recording' })
  @ApiOperation({
    summary: 'Get recording activity',
    description:
      "The recording's page views, clicks (with rage and dead clicks), console errors and failed network requests in time order, each with its timestamp and offset from the first event, and a summary (docs/activity.md). " +
      'From the activity projection: it follows ingestion by about a second; projected: false until it holds the recording. Also opens with a presigned link of the recording.',
  })
  @ApiResponse({ status: 200, type: RecordingActivityView.Output })
  @ApiInvalidRecordingId()
  @ApiTextError(404, 'No such recording for this tenant', 'Recording not found')
  @ApiStoreUnavailable('both')
  get(@Param() { recordingId }: RecordingIdParams, @CurrentAuth() auth: AuthContext): Promise<RecordingActivityView> {
    return this.activity.timeline(auth.tenantId, recordingId);
  }
}
