// The hosted player page: /player.html (and its alias /preview) always answers HTML; /player answers
// HTML when Accept admits it (no Accept, text/html, text/* or */*) and 406 otherwise. Query
// parameters other than the spec's (and the presigned link's) are ignored.
import { applyDecorators, Controller, Get, Headers, Param, Query, Req, Res } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { z } from 'zod';
import { Auth, CurrentAuth } from '../../auth/auth.decorator';
import type { AuthContext } from '../../auth/auth-context';
import { setReplyHeaders } from '../../common/reply-headers';
import { ApiBadRequest, ApiContent, ApiTextError } from '../../common/openapi/api-responses';
import { ApiQueryParams } from '../../common/openapi/openapi-schema';
import { RecordingIdParams } from '../../domain/recording.dto';
import { PlayerQuerySchema } from './player.dto';
import { PLAYER_EVENTS_TTL_SECONDS, PLAYER_LIVE_EVENTS_TTL_SECONDS, PlayerService } from './player.service';

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
        `With live=true the page reads the live feed instead (the same events URL with live=true; a link signed here lasts ${PLAYER_LIVE_EVENTS_TTL_SECONDS / 60} minutes, and the feed ends when its link expires): ` +
        'it follows the live edge, shows a LIVE badge and how far behind the recorded page it is, lets the viewer pause, go back within what it received and go live again, and says when the session ended; window.__tapedeck.live holds that state. ' +
        'Served with a nonce-based Content-Security-Policy whose frame-ancestors is PLAYER_FRAME_ANCESTORS, and Cache-Control: no-store. ' +
        'window.__tapedeck.ready turns true once the recording is shown (error holds the message otherwise). Query parameters other than those listed are ignored.',
    }),
    ApiQueryParams(PlayerQuerySchema),
    ApiContent('The player page', ['text/html'], z.string()),
    ApiBadRequest(
      'recordingId not a UUID; controls/autoplay/live not a boolean; time given with live=true; mode unknown; speed outside 0.25-4; time malformed; eventsUrl not same-origin or carrying a key; private key used by a tenant without a signing key',
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
    @Param() { recordingId }: RecordingIdParams,
    @Query() q: Record<string, unknown>,
    @Headers('accept') accept: string | undefined,
    @CurrentAuth() a: AuthContext,
    @Req() req: FastifyRequest,
    @Res() r: FastifyReply,
  ) {
    return this.send({ html: false, recordingId, query: q, accept, auth: a, req, reply: r });
  }

  @Get(['player.html', 'preview'])
  @ApiPlayer('html')
  html(
    @Param() { recordingId }: RecordingIdParams,
    @Query() q: Record<string, unknown>,
    @Headers('accept') accept: string | undefined,
    @CurrentAuth() a: AuthContext,
    @Req() req: FastifyRequest,
    @Res() r: FastifyReply,
  ) {
    return this.send({ html: true, recordingId, query: q, accept, auth: a, req, reply: r });
  }

  /** `html`: the route always answers HTML (player.html, preview), whatever the request accepts. */
  private async send(o: {
    html: boolean;
    recordingId: string;
    query: Record<string, unknown>;
    accept: string | undefined;
    auth: AuthContext;
    req: FastifyRequest;
    reply: FastifyReply;
  }): Promise<void> {
    const { html, recordingId, query, accept, auth, req, reply } = o;
    const page = await this.player.page({ auth, recordingId, html, accept, query, origin: `${req.protocol}://${req.host}` });
    void setReplyHeaders(reply.status(200), page.headers).send(page.html);
  }
}
