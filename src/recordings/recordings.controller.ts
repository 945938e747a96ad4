import { Controller, Get, Param, Query } from '@nestjs/common';
import { ApiOperation, ApiParam, ApiQuery, ApiResponse, ApiTags } from '@nestjs/swagger';
import { Auth, CurrentAuth } from '../auth/auth.decorator';
import type { AuthContext } from '../auth/auth-context';
import { AppError } from '../common/app-error';
import { parseWith, uuidParam } from '../common/validation';
import { ApiMetadataFilters } from './metadata-filter.swagger';
import { ApiBadRequest, ApiPagination, ApiStoreUnavailable, ApiTextError, QUERY_BOOLEAN } from './recordings-query.openapi';
import { RecordingsQueryParams } from './recordings-query.params';
import { recordingDetailSchema, recordingListSchema } from './recordings-query.schemas';
import { RecordingsQueryService } from './recordings-query.service';

const signedUrlsQuery = ApiQuery({
  name: 'includeSignedUrls',
  required: false,
  schema: QUERY_BOOLEAN,
  description:
    'Default false. true adds links.selfSigned, eventsSigned, playerSigned and screenshotSigned (presigned with the tenant\'s current signing key, valid PRESIGN_DEFAULT_TTL_SECONDS) and signedUrlsExpireAt. 400 if the tenant has no signing key.',
});

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
      'A recording is listed once its first event batch is projected (about a second after ingestion). Compatible with rrweb Cloud\'s listing (recordings[].recordingId, timestamp, links.self/events/eventsSigned, metadata).',
  })
  @ApiPagination('Recordings')
  @signedUrlsQuery
  @ApiMetadataFilters()
  @ApiResponse({ status: 200, description: 'A page of recordings', schema: recordingListSchema })
  @ApiBadRequest('limit outside 1-100, negative or non-integer offset, includeSignedUrls not true/false, a bad metadata filter, or includeSignedUrls without a signing key', 'The query string is not valid UTF-8 (at %FC)')
  @ApiStoreUnavailable('projections')
  list(@Query() query: Record<string, unknown>, @CurrentAuth() auth: AuthContext) {
    return this.recordings.list(auth.tenantId, RecordingsQueryParams.list(query));
  }

  @Get(':recordingId')
  @Auth({ keys: ['secret'], presign: 'recording' })
  @ApiOperation({
    summary: 'Get recording',
    description:
      'One recording: metadata, links and summary (the listing\'s item plus `projected`). Also opens with a presigned link of the recording (links.selfSigned). ' +
      'Read-your-writes: a recording JetStream holds but the projection does not yet answers 200 with projected: false and an empty summary rather than 404.',
  })
  @ApiParam({ name: 'recordingId', format: 'uuid' })
  @signedUrlsQuery
  @ApiResponse({ status: 200, schema: recordingDetailSchema })
  @ApiBadRequest('recordingId not a UUID, includeSignedUrls not true/false, or includeSignedUrls without a signing key', 'Signed URLs need a signing key for this tenant; …')
  @ApiTextError(404, 'The tenant has no such recording', 'Recording not found')
  async get(@Param('recordingId') rawId: string, @Query() query: Record<string, unknown>, @CurrentAuth() auth: AuthContext) {
    const recordingId = parseWith(uuidParam, rawId, 'recordingId');
    const { includeSignedUrls } = RecordingsQueryParams.detail(query);
    if (includeSignedUrls && auth.credential !== 'secret') throw new AppError('unauthorized', 'includeSignedUrls=true needs the private API key');
    return this.recordings.get(auth.tenantId, recordingId, includeSignedUrls);
  }
}
