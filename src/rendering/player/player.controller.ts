// The hosted player page: /player.html (and its alias /preview) always answers HTML; /player answers
// HTML when Accept admits it (no Accept, text/html, text/* or */*) and 406 otherwise. Query
// parameters other than the spec's (and the presigned link's) are ignored.
import { applyDecorators, Controller, Get, Headers, Param, Query, Req, Res } from '@nestjs/common';
import { ApiOperation, ApiParam, ApiProduces, ApiQuery, ApiResponse, ApiTags } from '@nestjs/swagger';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { Auth, CurrentAuth } from '../../auth/auth.decorator';
import type { AuthContext } from '../../auth/auth-context';
import { setReplyHeaders } from '../../common/reply-headers';
import { parseWith, uuidParam } from '../../common/validation';
import { ApiBadRequest, ApiTextError, QUERY_BOOLEAN } from '../../common/openapi/api-responses';
import { PLAYER_EVENTS_TTL_SECONDS, PlayerService } from './player.service';

const SUMMARY = {
  negotiated: 'Get recording player (HTML by Accept)',
  html: 'Get recording player (HTML)',
};
const ABOUT = {
  negotiated:
    'text/html when Accept is absent or admits text/html (text/html, text/*, */*); 406 for an Accept that excludes HTML, e.g. application/json alone. ',
  html: "Always text/html: the extension takes precedence over Accept. Also reachable as /recordings/{recordingId}/preview, the path rrweb Cloud tools (OpenClaw's session recording) link as a recording's replay URL. ",
};

function ApiPlayer(kind: keyof typeof SUMMARY) {
  const html = kind !== 'negotiated';
  return applyDecorators(
    Auth({ keys: ['secret'], presign: 'recording' }),
    ApiOperation({
      summary: SUMMARY[kind],
      description:
        ABOUT[kind] +
        "An HTML page around rrweb-player that fetches the recording's events itself. The page never contains the caller's key: " +
        `with the private key it carries an events link presigned for ${PLAYER_EVENTS_TTL_SECONDS / 60} minutes (signed with the tenant's newest signing key: every new tenant has one, "default"; none left: 400); ` +
        "opened through a presigned link it reuses that link's tenantId, expires, keyId and signature; eventsUrl overrides both. " +
        'Served with a nonce-based Content-Security-Policy whose frame-ancestors is PLAYER_FRAME_ANCESTORS, and Cache-Control: no-store. ' +
        'window.__tapedeck.ready turns true once the recording is shown (error holds the message otherwise). Query parameters other than those listed are ignored.',
    }),
    ApiParam({ name: 'recordingId', format: 'uuid' }),
    ApiQuery({
      name: 'controls',
      required: false,
      schema: QUERY_BOOLEAN,
      description: 'Show the control bar; default true. Only true/false/1/0 (else 400). Ignored in capture mode (no controls).',
    }),
    ApiQuery({
      name: 'autoplay',
      required: false,
      schema: QUERY_BOOLEAN,
      description: 'Start playing on load; default false. Only true/false/1/0 (else 400).',
    }),
    ApiQuery({
      name: 'mode',
      required: false,
      schema: { type: 'string', enum: ['standard', 'minimal', 'capture'], default: 'standard' },
      description:
        'standard (default): page with a title bar; minimal: the player alone, for embeds; capture: the replay fills the viewport, no chrome or controls (for screenshots). Else 400.',
    }),
    ApiQuery({
      name: 'speed',
      required: false,
      schema: { type: 'number', minimum: 0.25, maximum: 4, default: 1 },
      description: 'Playback speed, a number from 0.25 to 4; default 1. Else 400.',
    }),
    ApiQuery({
      name: 'time',
      required: false,
      schema: { type: 'string', maxLength: 64, example: 'percent:50' },
      description:
        'Start position, as for screenshots: offset:<ms> (negative from the end), percent:<0-100> or epoch:<ms>; default (when absent) offset:0. Malformed, empty included: 400; outside the recording the player starts at the nearest end.',
    }),
    ApiQuery({
      name: 'eventsUrl',
      required: false,
      type: String,
      description:
        'Where the page fetches the events: a relative URL or an absolute one of this origin (else 400), typically a presigned events URL. Must not carry an API key (400).',
    }),
    ApiProduces('text/html'),
    ApiResponse({ status: 200, description: 'The player page', content: { 'text/html': { schema: { type: 'string' } } } }),
    ApiBadRequest(
      'recordingId not a UUID; controls/autoplay not a boolean; mode unknown; speed outside 0.25-4; time malformed; eventsUrl not same-origin or carrying a key; private key used by a tenant without a signing key',
      'The player page loads the events through a presigned URL, and this tenant has no signing key: …',
    ),
    ApiTextError(404, 'The tenant has no such recording', 'Recording not found'),
    ApiTextError(503, 'Event store unreachable; retry (see Retry-After)', 'Event store (NATS JetStream) is unreachable; retry later'),
    ...(html ? [] : [ApiTextError(406, 'Accept excludes text/html', 'The player is an HTML page: request /player.html or send Accept: text/html')]),
  );
}

@ApiTags('rendering')
@Controller('recordings/:recordingId')
export class PlayerController {
  constructor(private readonly player: PlayerService) {}

  @Get('player')
  @ApiPlayer('negotiated')
  negotiated(
    @Param('recordingId') id: string,
    @Query() q: Record<string, unknown>,
    @Headers('accept') accept: string | undefined,
    @CurrentAuth() a: AuthContext,
    @Req() req: FastifyRequest,
    @Res() r: FastifyReply,
  ) {
    return this.send(false, id, q, accept, a, req, r);
  }

  @Get(['player.html', 'preview'])
  @ApiPlayer('html')
  html(
    @Param('recordingId') id: string,
    @Query() q: Record<string, unknown>,
    @Headers('accept') accept: string | undefined,
    @CurrentAuth() a: AuthContext,
    @Req() req: FastifyRequest,
    @Res() r: FastifyReply,
  ) {
    return this.send(true, id, q, accept, a, req, r);
  }

  private async send(
    html: boolean,
    rawId: string,
    query: Record<string, unknown>,
    accept: string | undefined,
    auth: AuthContext,
    req: FastifyRequest,
    reply: FastifyReply,
  ): Promise<void> {
    const recordingId = parseWith(uuidParam, rawId, 'recordingId');
    const page = await this.player.page({ auth, recordingId, html, accept, query, origin: `${req.protocol}://${req.host}` });
    void setReplyHeaders(reply.status(200), page.headers).send(page.html);
  }
}
