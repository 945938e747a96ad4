// POST /recordings/{id}/links: signs a link to one recording with the tenant's newest signing key,
// for as long as the caller asks (within PRESIGN_MAX_TTL_SECONDS). The console's Share button.
import { Controller, HttpCode, Inject, Param, Post, Req } from '@nestjs/common';
import { ApiBody, ApiOperation, ApiResponse, ApiTags } from '@nestjs/swagger';
import type { FastifyRequest } from 'fastify';
import { Auth, CurrentAuth } from '../auth/auth.decorator';
import type { AuthContext } from '../auth/auth-context';
import { LinkSigner } from '../auth/link-signer';
import { AppError } from '../common/app-error';
import { ApiJsonBodyLimits, ApiTextError, ApiValidationError } from '../common/openapi/api-responses';
import { jsonBody } from '../common/request-body';
import { parseWith } from '../common/validation';
import { APP_CONFIG, AppConfig } from '../config/config';
import { RecordingIdParams } from '../domain/recording.dto';
import { recordingLinks } from './recording-links';
import { ShareLink, ShareLinkBody, SHARE_MAX_BODY_BYTES } from './recording-share.dto';
import { RecordingEventsService } from './recording-events.service';

const SIGNED = { player: 'playerSigned', events: 'eventsSigned', screenshot: 'screenshotSigned', thumbnail: 'thumbnailSigned', detail: 'selfSigned' } as const;

@ApiTags('recordings')
@Controller('recordings/:recordingId')
export class RecordingShareController {
  constructor(
    private readonly signer: LinkSigner,
    private readonly recordings: RecordingEventsService,
    @Inject(APP_CONFIG) private readonly cfg: AppConfig,
  ) {}

  @Post('links')
  @HttpCode(201)
  @Auth({ keys: ['secret'] })
  @ApiOperation({
    summary: 'Make a presigned link to share',
    description:
      "A link that opens the recording's player (or its events, screenshot, thumbnail or detail) with no other credential until it expires, signed with the tenant's newest signing key (docs/presigned-links.md). " +
      'Revoking that signing key ends the link early. Private key or console session (with its CSRF token).',
  })
  @ApiBody({ type: ShareLinkBody })
  @ApiJsonBodyLimits(SHARE_MAX_BODY_BYTES)
  @ApiResponse({ status: 201, description: 'The link', type: ShareLink.Output })
  @ApiValidationError('recordingId not a UUID, or a bad body (ttlSeconds not a whole number from 60 to PRESIGN_MAX_TTL_SECONDS, an unknown resource or field)')
  @ApiTextError(404, 'The tenant has no such recording', 'Recording not found')
  async create(@Param() { recordingId }: RecordingIdParams, @Req() req: FastifyRequest, @CurrentAuth() auth: AuthContext): Promise<ShareLink> {
    const body = parseWith(ShareLinkBody.schema, jsonBody(req, SHARE_MAX_BODY_BYTES), 'body');
    if (body.ttlSeconds > this.cfg.PRESIGN_MAX_TTL_SECONDS) {
      throw new AppError('bad_request', `ttlSeconds may be at most ${this.cfg.PRESIGN_MAX_TTL_SECONDS} (PRESIGN_MAX_TTL_SECONDS)`);
    }
    await this.recordings.assertExists(auth.tenantId, recordingId);
    const signing = this.signer.forTenant(auth.tenantId, body.ttlSeconds);
    const links = recordingLinks(recordingId, this.signer.base, signing.query({ kind: 'recording', recordingId }));
    return { url: links[SIGNED[body.resource]]!, expires: signing.expires, expiresAt: signing.expires * 1000 };
  }
}
