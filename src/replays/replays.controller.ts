import { Controller, Get, Param, Query, Res } from '@nestjs/common';
import { ApiOperation, ApiResponse, ApiTags } from '@nestjs/swagger';
import type { FastifyReply } from 'fastify';
import type { Readable } from 'node:stream';
import { abortWhenClientGone, sendJsonStream } from '../common/stream-reply';
import { Auth, CurrentAuth } from '../auth/auth.decorator';
import type { AuthContext } from '../auth/auth-context';
import { AppError } from '../common/app-error';
import { parseWith } from '../common/validation';
import { eventWindow } from '../recordings/event-window';
import { EventWindowQuery, EventWindowQuerySchema } from '../recordings/event-window.dto';
import { ApiBadRequest, ApiStoreUnavailable, ApiTextError, ApiValidationError } from '../common/openapi/api-responses';
import { ApiQueryParams } from '../common/openapi/openapi-schema';
import { EventList } from '../domain/recording.dto';
import { parseMetadataFilters } from '../read-model/metadata-filter';
import { ApiMetadataFilters } from '../read-model/metadata-filter.dto';
import { ComposeReplayQuery, GroupingPropParams, ListReplaysQuery, Replay, ReplayGroupParams, ReplayList } from './replays.dto';
import { ApiReadBandwidth } from '../limits/limits.openapi';
import { TenantLimiter } from '../limits/tenant-limiter.service';
import { ReplaysService } from './replays.service';

const NO_MEMBER = 'No recording with events in the group (metadata alone makes no member)';
const WINDOW =
  " With from and/or to, only a window of the replay's own timeline (its renumbered timestamps, from 0: epoch:<ms> and plain numbers are such a timestamp): it begins at the last keyframe (a FullSnapshot with the Meta before it) at or before from, its Meta first (the first event when there is none), and ends with the last event at or before to; limit keeps the first limit events. " +
  'Composing still reads every member once to place its page views; the second read stops once the window is done.';
const WINDOW_ERRORS = 'groupingProp or replayValue length out of range, or a bad from, to or limit (malformed, limit out of range, from after to)';
const ApiWindowMissed = () =>
  ApiTextError(
    422,
    'The window misses the replay: from after its last event, or to before its first',
    "from=offset:900000 is after the replay's last event (its timeline is from 0 to 61000 ms)",
  );

async function stream(reply: FastifyReply, limits: TenantLimiter, tenantId: string, make: (signal: AbortSignal) => Promise<Readable>) {
  return sendJsonStream(reply, await limits.metered(tenantId, () => make(abortWhenClientGone(reply))));
}

@ApiTags('replays')
@Controller()
export class ReplaysController {
  constructor(
    private readonly replays: ReplaysService,
    private readonly limits: TenantLimiter,
  ) {}

  @Get('replays/:groupingProp/:replayValue')
  @Auth({ keys: ['secret'], presign: 'replay' })
  @ApiOperation({
    summary: 'Get replay',
    description:
      'Merged metadata and composed events of the recordings whose latest value of groupingProp equals replayValue. Page views (a FullSnapshot with the page-load and Meta events right before it) play whole, ordered by start; ' +
      'timestamps are renumbered from 0 with a 1000 ms gap between page views; originalTimestamp keeps the absolute time and recordingId the source. Merged metadata: union; on conflicts the most recently written value wins. Streamed.' +
      WINDOW,
  })
  @ApiResponse({ status: 200, type: Replay.Output })
  @ApiValidationError(WINDOW_ERRORS)
  @ApiTextError(404, NO_MEMBER, 'No recording matches this replay')
  @ApiWindowMissed()
  @ApiStoreUnavailable('both')
  @ApiReadBandwidth()
  // The query before the path: a bad path is the error reported (ZodValidationPipe).
  get(@Query() q: EventWindowQuery, @Param() group: ReplayGroupParams, @CurrentAuth() auth: AuthContext, @Res() reply: FastifyReply) {
    const window = eventWindow(q, 'replay');
    return stream(reply, this.limits, auth.tenantId, (signal) =>
      this.replays.replay(auth.tenantId, [{ key: group.groupingProp, value: group.replayValue }], signal, window),
    );
  }

  @Get('replays/:groupingProp/:replayValue/events')
  @Auth({ keys: ['secret'], presign: 'replay' })
  @ApiOperation({ summary: 'Get replay events', description: 'The composed events of the replay alone (see Get replay).' + WINDOW })
  @ApiResponse({ status: 200, type: EventList.Output })
  @ApiValidationError(WINDOW_ERRORS)
  @ApiTextError(404, NO_MEMBER, 'No recording matches this replay')
  @ApiWindowMissed()
  @ApiStoreUnavailable('both')
  @ApiReadBandwidth()
  events(@Query() q: EventWindowQuery, @Param() group: ReplayGroupParams, @CurrentAuth() auth: AuthContext, @Res() reply: FastifyReply) {
    const window = eventWindow(q, 'replay');
    return stream(reply, this.limits, auth.tenantId, (signal) =>
      this.replays.events(auth.tenantId, [{ key: group.groupingProp, value: group.replayValue }], signal, window),
    );
  }

  @Get('replays/:groupingProp')
  @Auth({ keys: ['secret'] })
  @ApiOperation({
    summary: 'List replays',
    description:
      'Replays of a grouping key, one per distinct latest value, from the ClickHouse projections: a recording counts once its first event batch is projected, and no longer once its deletion is. ' +
      'Most recently active first (latest event), ties by value; offset-paginated, hasMore when another page follows. ' +
      "startedAt and endedAt: epoch ms of the group's first and last stored event (their timestamps as recorded). duration: endedAt - startedAt in ms, the wall-clock span of the session, idle time between page views included. " +
      "It is not the length of the composed replay (Get replay), which puts 1000 ms between page views instead of the real idle time and plays page views of tabs open side by side one after another; that length is the last composed event's timestamp.",
  })
  @ApiResponse({ status: 200, type: ReplayList.Output })
  @ApiBadRequest(
    'Bad limit/offset/includeSignedUrls, groupingProp length, an unknown parameter (JSON, each named in issues[].path; metadata filters included: this listing takes none), or includeSignedUrls for a groupingProp with "/"',
    'includeSignedUrls: presigned links cannot open replays of a groupingProp that contains "/"',
  )
  @ApiStoreUnavailable('projections')
  // The query before the path: a bad path is the error reported (ZodValidationPipe).
  list(@Query() q: ListReplaysQuery, @Param() { groupingProp }: GroupingPropParams, @CurrentAuth() auth: AuthContext): Promise<ReplayList> {
    return this.replays.list(auth.tenantId, groupingProp, q.limit, q.offset, q.includeSignedUrls);
  }

  @Get(['replay', 'replays'])
  @Auth({ keys: ['secret'] })
  @ApiOperation({
    summary: 'Compose replay',
    description:
      "Composes the recordings matching every metadata[<key>]=<value> filter (AND; rrweb Cloud's meta[<key>]=<value> accepted; at least one filter, else 400) into one replayable event array, as Get replay composes a group." +
      WINDOW,
  })
  @ApiMetadataFilters()
  @ApiQueryParams(EventWindowQuerySchema)
  @ApiResponse({ status: 200, type: EventList.Output })
  @ApiBadRequest(
    'No filter (text/plain), or a bad filter, from, to or limit, or any other parameter (JSON)',
    'Compose needs at least one metadata[<key>]=<value> filter',
  )
  @ApiTextError(404, 'No recording matches', 'No recording matches this replay')
  @ApiWindowMissed()
  @ApiStoreUnavailable('both')
  @ApiReadBandwidth()
  compose(@Query() query: Record<string, unknown>, @CurrentAuth() auth: AuthContext, @Res() reply: FastifyReply) {
    const parsed = parseWith(ComposeReplayQuery, query, 'query');
    const filters = parseMetadataFilters(parsed);
    if (filters.length === 0) throw new AppError('bad_request', 'Compose needs at least one metadata[<key>]=<value> filter');
    const window = eventWindow(parsed, 'replay');
    return stream(reply, this.limits, auth.tenantId, (signal) => this.replays.events(auth.tenantId, filters, signal, window));
  }
}
