// GET /recordings/{id}/thumbnail: the poster thumbnail the background renderer made (thumbnail.service.ts).
import { Controller, Get, Headers, Param, Res } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import type { FastifyReply } from 'fastify';
import { Auth, CurrentAuth } from '../../auth/auth.decorator';
import type { AuthContext } from '../../auth/auth-context';
import { setReplyHeaders } from '../../common/reply-headers';
import { ApiBadRequest, ApiConditionalGet, ApiContent, ApiTextError } from '../../common/openapi/api-responses';
import { RecordingIdParams } from '../../domain/recording.dto';
import { ScreenshotImage } from '../screenshot/screenshot.dto';
import { screenshotMaxAge } from '../screenshot/screenshot.service';
import { THUMBNAIL_WIDTH, ThumbnailService } from './thumbnail.service';

@ApiTags('rendering')
@Controller('recordings/:recordingId')
export class ThumbnailController {
  constructor(private readonly thumbnails: ThumbnailService) {}

  @Get('thumbnail')
  @Auth({ keys: ['secret'], presign: 'recording' })
  @ApiOperation({
    summary: 'Get recording thumbnail',
    description:
      `The recording's poster (the page as its visitor saw it) as a ${THUMBNAIL_WIDTH} px wide WebP, rendered in the background and kept by the instance: ` +
      'never waits for Chromium. 404 with Retry-After while it is being rendered (show a placeholder); a recording that changed is rendered again once it has been quiet a minute, the older image answering meanwhile. ' +
      'Strong ETag (If-None-Match answers 304); Cache-Control: private, max-age=60 (with a presigned link: at most until it expires). Private key, console session or a presigned link of the recording.',
  })
  @ApiContent('The thumbnail', ['image/webp'], ScreenshotImage)
  @ApiConditionalGet()
  @ApiBadRequest('recordingId not a UUID', 'recordingId: Invalid UUID')
  @ApiTextError(
    404,
    'The tenant has no such recording, or its thumbnail is not rendered yet (then with Retry-After)',
    'The thumbnail is not rendered yet; it is being rendered in the background',
  )
  @ApiTextError(422, 'The recording has nothing to render, or cannot be rendered', 'The recording has no events to render yet')
  @ApiTextError(503, 'Event store unreachable; retry (see Retry-After)', 'Event store (NATS JetStream) is unreachable; retry later')
  async get(
    @Param() { recordingId }: RecordingIdParams,
    @Headers('if-none-match') ifNoneMatch: string | undefined,
    @CurrentAuth() auth: AuthContext,
    @Res() reply: FastifyReply,
  ): Promise<void> {
    const answer = await this.thumbnails.respond(auth.tenantId, recordingId, ifNoneMatch, screenshotMaxAge(auth.expires, Date.now()));
    void setReplyHeaders(reply.status(answer.status), answer.headers).send(answer.body);
  }
}
