import { applyDecorators, Controller, Get, Param, Query, Res } from '@nestjs/common';
import { ApiOperation, ApiParam, ApiQuery, ApiResponse, ApiTags } from '@nestjs/swagger';
import type { FastifyReply } from 'fastify';
import type { Readable } from 'node:stream';
import { abortWhenClientGone, sendJsonStream } from '../common/stream-reply';
import { z } from 'zod';
import { Auth, CurrentAuth } from '../auth/auth.decorator';
import type { AuthContext } from '../auth/auth-context';
import { AppError } from '../common/app-error';
import { parseWith, queryBoolean, queryInt } from '../common/validation';
import { parseMetadataFilters } from '../read-model/metadata-filter';
import { ApiMetadataFilters } from '../recordings/metadata-filter.swagger';
import { ApiPagination, ApiStoreUnavailable, QUERY_BOOLEAN } from '../recordings/recordings-query.openapi';
import { LIST_LIMIT, MAX_OFFSET } from '../recordings/recordings-query.params';
import { replayEventsSchema, replayListSchema, replaySchema } from './replays.schemas';
import { ReplaysService } from './replays.service';

const PROP_LENGTH = { min: 1, max: 100 };
const VALUE_LENGTH = { min: 1, max: 500 };
const length = ({ min, max }: { min: number; max: number }) => z.string().min(min, { message: `must be ${min}-${max} characters` }).max(max, { message: `must be ${min}-${max} characters` });
const groupingProp = length(PROP_LENGTH);
const replayValue = length(VALUE_LENGTH);
const listQuery = z.object({ limit: queryInt(LIST_LIMIT.min, LIST_LIMIT.max, LIST_LIMIT.default), offset: queryInt(0, MAX_OFFSET, 0), includeSignedUrls: queryBoolean(false) });

const ApiGroupingProp = () =>
  ApiParam({ name: 'groupingProp', schema: { type: 'string', minLength: PROP_LENGTH.min, maxLength: PROP_LENGTH.max }, description: 'A metadata key' });
/** The path parameters of one replay, with the lengths they are validated against (else 400). */
const ApiReplayGroup = () =>
  applyDecorators(
    ApiGroupingProp(),
    ApiParam({ name: 'replayValue', schema: { type: 'string', minLength: VALUE_LENGTH.min, maxLength: VALUE_LENGTH.max }, description: 'Its value (percent-encoded in the path)' }),
  );

async function stream(reply: FastifyReply, make: (signal: AbortSignal) => Promise<Readable>) {
  return sendJsonStream(reply, await make(abortWhenClientGone(reply)));
}

@ApiTags('replays')
@Controller()
export class ReplaysController {
  constructor(private readonly replays: ReplaysService) {}

  private group(prop: string, value: string) {
    return [{ key: parseWith(groupingProp, prop, 'groupingProp'), value: parseWith(replayValue, value, 'replayValue') }];
  }

  @Get('replays/:groupingProp/:replayValue')
  @Auth({ keys: ['secret'], presign: 'replay' })
  @ApiOperation({
    summary: 'Get replay',
    description:
      'Merged metadata and composed events of the recordings whose latest value of groupingProp equals replayValue. Page views (a FullSnapshot with the page-load and Meta events right before it) play whole, ordered by start; ' +
      'timestamps are renumbered from 0 with a 1000 ms gap between page views; originalTimestamp keeps the absolute time and recordingId the source. Merged metadata: union; on conflicts the most recently written value wins. Streamed.',
  })
  @ApiReplayGroup()
  @ApiResponse({ status: 200, schema: replaySchema })
  @ApiResponse({ status: 400, description: 'groupingProp or replayValue length out of range' })
  @ApiResponse({ status: 404, description: 'No recording with events in the group (metadata alone makes no member)' })
  @ApiStoreUnavailable('both')
  get(@Param('groupingProp') p: string, @Param('replayValue') v: string, @CurrentAuth() auth: AuthContext, @Res() reply: FastifyReply) {
    const filters = this.group(p, v);
    return stream(reply, (signal) => this.replays.replay(auth.tenantId, filters, signal));
  }

  @Get('replays/:groupingProp/:replayValue/events')
  @Auth({ keys: ['secret'], presign: 'replay' })
  @ApiOperation({ summary: 'Get replay events', description: 'The composed events of the replay alone (see Get replay).' })
  @ApiReplayGroup()
  @ApiResponse({ status: 200, schema: replayEventsSchema })
  @ApiResponse({ status: 400, description: 'groupingProp or replayValue length out of range' })
  @ApiResponse({ status: 404, description: 'No recording with events in the group (metadata alone makes no member)' })
  @ApiStoreUnavailable('both')
  events(@Param('groupingProp') p: string, @Param('replayValue') v: string, @CurrentAuth() auth: AuthContext, @Res() reply: FastifyReply) {
    const filters = this.group(p, v);
    return stream(reply, (signal) => this.replays.events(auth.tenantId, filters, signal));
  }

  @Get('replays/:groupingProp')
  @Auth({ keys: ['secret'] })
  @ApiOperation({
    summary: 'List replays',
    description:
      'Replays of a grouping key, one per distinct latest value, from the ClickHouse projections: a recording counts once its first event batch is projected, and no longer once its deletion is. ' +
      'Most recently active first (latest event), ties by value; offset-paginated, hasMore when another page follows. ' +
      'startedAt and endedAt: epoch ms of the group\'s first and last stored event (their timestamps as recorded). duration: endedAt - startedAt in ms, the wall-clock span of the session, idle time between page views included. ' +
      'It is not the length of the composed replay (Get replay), which puts 1000 ms between page views instead of the real idle time and plays page views of tabs open side by side one after another; that length is the last composed event\'s timestamp.',
  })
  @ApiGroupingProp()
  @ApiPagination('Replays')
  @ApiQuery({ name: 'includeSignedUrls', required: false, schema: QUERY_BOOLEAN, description: 'true adds links.selfSigned, links.eventsSigned and signedUrlsExpireAt (UNIX seconds, on each item and on the response); 400 if the tenant has no signing key, or if groupingProp contains "/" (links cannot open such replays)' })
  @ApiResponse({ status: 200, schema: replayListSchema })
  @ApiResponse({ status: 400, description: 'Bad limit/offset/includeSignedUrls, groupingProp length, or includeSignedUrls for a groupingProp with "/"' })
  @ApiStoreUnavailable('projections')
  list(@Param('groupingProp') p: string, @Query() q: Record<string, string>, @CurrentAuth() auth: AuthContext) {
    const prop = parseWith(groupingProp, p, 'groupingProp');
    const { limit, offset, includeSignedUrls } = parseWith(listQuery, { limit: q.limit, offset: q.offset, includeSignedUrls: q.includeSignedUrls }, 'query');
    return this.replays.list(auth.tenantId, prop, limit!, offset!, includeSignedUrls);
  }

  @Get(['replay', 'replays'])
  @Auth({ keys: ['secret'] })
  @ApiOperation({
    summary: 'Compose replay',
    description: 'Composes the recordings matching every metadata[<key>]=<value> filter (AND; rrweb Cloud\'s meta[<key>]=<value> accepted; at least one filter, else 400) into one replayable event array, as Get replay composes a group.',
  })
  @ApiMetadataFilters()
  @ApiResponse({ status: 200, schema: replayEventsSchema })
  @ApiResponse({ status: 400, description: 'No filter, or a bad filter' })
  @ApiResponse({ status: 404, description: 'No recording matches' })
  @ApiStoreUnavailable('both')
  compose(@Query() q: Record<string, unknown>, @CurrentAuth() auth: AuthContext, @Res() reply: FastifyReply) {
    const filters = parseMetadataFilters(q);
    if (filters.length === 0) throw new AppError('bad_request', 'Compose needs at least one metadata[<key>]=<value> filter');
    return stream(reply, (signal) => this.replays.events(auth.tenantId, filters, signal));
  }
}
