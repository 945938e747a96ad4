import { Controller, Get, Param, Query } from '@nestjs/common';
import { ApiOperation, ApiResponse, ApiTags } from '@nestjs/swagger';
import { Auth, CurrentAuth } from '../auth/auth.decorator';
import type { AuthContext } from '../auth/auth-context';
import { AppError } from '../common/app-error';
import { ApiBadRequest, ApiStoreUnavailable, ApiTextError } from '../common/openapi/api-responses';
import { RecordingIdParams } from '../domain/recording.dto';
import { ApiMetadataFilters } from '../read-model/metadata-filter.dto';
import { listParams } from './recordings-query.params';
import { RecordingsQueryService } from './recordings-query.service';
import { ListRecordingsQuery, RecordingDetail, RecordingList, RecordingQuery } from './recordings.dto';

@ApiTags('recordings')
@Controller('recordings')
export class RecordingsController {
  constructor(private readonly recordings: RecordingsQueryService) {}

  @Get()
  @Auth({ keys: ['secret'] })
  @ApiOperation({
    summary: 'List recordings',
    description:
      'Recordings of the tenant, newest first by first event time (ties by recordingId, so pages are stable), with metadata, links and a summary; offset-paginated. ' +
      "A recording is listed once its first event batch is projected (about a second after ingestion). Compatible with rrweb Cloud's listing (recordings[].recordingId, timestamp, links.self/events/eventsSigned, metadata).",
  })
  @ApiMetadataFilters()
  @ApiResponse({ status: 200, description: 'A page of recordings', type: RecordingList.Output })
  @ApiBadRequest(
    "limit outside 1-100, negative or non-integer offset, includeSignedUrls not true/false, a bad metadata filter, an unknown parameter (JSON, each named in issues[].path; a presigned link's parameters and token are not unknown), or includeSignedUrls without a signing key",
    'The query string is not valid UTF-8 (at %FC)',
  )
  @ApiStoreUnavailable('projections')
  list(@Query() query: ListRecordingsQuery, @CurrentAuth() auth: AuthContext): Promise<RecordingList> {
    return this.recordings.list(auth.tenantId, listParams(query));
  }

  @Get(':recordingId')
  @Auth({ keys: ['secret'], presign: 'recording' })
  @ApiOperation({
    summary: 'Get recording',
    description:
      "One recording: metadata, links and summary (the listing's item plus `projected`). Also opens with a presigned link of the recording (links.selfSigned). " +
      'Read-your-writes: a recording JetStream holds but the projection does not yet answers 200 with projected: false and an empty summary rather than 404.',
  })
  @ApiResponse({ status: 200, type: RecordingDetail.Output })
  @ApiBadRequest(
    'recordingId not a UUID, includeSignedUrls not true/false, or includeSignedUrls without a signing key',
    'Signed URLs need a signing key for this tenant; …',
  )
  @ApiTextError(404, 'The tenant has no such recording', 'Recording not found')
  // The query before the path: a bad path is the error reported (ZodValidationPipe).
  async get(
    @Query() { includeSignedUrls }: RecordingQuery,
    @Param() { recordingId }: RecordingIdParams,
    @CurrentAuth() auth: AuthContext,
  ): Promise<RecordingDetail> {
    if (includeSignedUrls && auth.credential !== 'secret') throw new AppError('unauthorized', 'includeSignedUrls=true needs the private API key');
    return this.recordings.get(auth.tenantId, recordingId, includeSignedUrls);
  }
}
