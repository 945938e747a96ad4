// Screenshots of a recording at a moment: /screenshot (format from Accept, else PNG) and one route per
// extension (.png, .jpeg, .jpg, .webp: the extension wins over Accept). Query parameters other than
// the spec's (and the presigned link's) are ignored.
import { applyDecorators, Controller, Get, Headers, Param, Query, Res } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import type { FastifyReply } from 'fastify';
import { Auth, CurrentAuth } from '../../auth/auth.decorator';
import type { AuthContext } from '../../auth/auth-context';
import { setReplyHeaders } from '../../common/reply-headers';
import { ApiBadRequest, ApiConditionalGet, ApiContent, ApiTextError } from '../../common/openapi/api-responses';
import { ApiQueryParams } from '../../common/openapi/openapi-schema';
import { RecordingIdParams } from '../../domain/recording.dto';
import { ScreenshotImage, ScreenshotQuerySchema } from './screenshot.dto';
import { ScreenshotService } from './screenshot.service';

function ApiScreenshot(extension: string | undefined) {
  const produces =
    extension === undefined
      ? ['image/png', 'image/jpeg', 'image/webp']
      : [extension === 'png' ? 'image/png' : extension === 'webp' ? 'image/webp' : 'image/jpeg'];
  return applyDecorators(
    Auth({ keys: ['secret'], presign: 'recording' }),
    ApiOperation({
      summary: extension === undefined ? 'Get recording screenshot (format from Accept)' : `Get recording screenshot as .${extension}`,
      description:
        (extension === undefined
          ? 'The format follows the Accept header (q-values respected; image/png, image/jpeg, image/webp, image/*, */*), PNG when nothing acceptable is named. '
          : `Always ${produces[0]}: the extension takes precedence over Accept${extension === 'jpg' ? ' (.jpg is an alias of .jpeg)' : ''}. `) +
        "The page as it stood at `time`, replayed in Chromium from the recording's events, resized to fit the requested box (white bars when its ratio differs from the recording's). " +
        'Strong ETag (If-None-Match answers 304); Cache-Control: private, max-age=60 (with a presigned link: at most until the link expires). Query parameters other than those listed are ignored. Private key or a presigned link of the recording.',
    }),
    ApiQueryParams(ScreenshotQuerySchema),
    ApiContent('The image', produces, ScreenshotImage),
    ApiConditionalGet(),
    ApiBadRequest(
      'recordingId not a UUID, or time, width, height or quality malformed or out of range',
      'Invalid time: expected offset:<milliseconds>, percent:<0-100> or epoch:<milliseconds>',
    ),
    ApiTextError(404, 'The tenant has no such recording', 'Recording not found'),
    ApiTextError(
      422,
      'The position is outside the recording, or the recording has nothing to render yet',
      'Position offset:99999 is outside the recording (4210 ms long, epoch … to …)',
    ),
    ApiTextError(
      429,
      "Over the key's request rate, the tenant's renders at once (renders), or its render rate (rendersPerSecond) by more than TENANT_BURST_SECONDS (a render a little ahead of the rate waits its turn instead); nothing was rendered, retry after Retry-After (text/plain, names the limit)",
      'Render rate limit reached: this tenant may use 5 renders per second (limit rendersPerSecond); retry later',
    ),
    ApiTextError(
      503,
      'Renderer over capacity, timed out or restarting, or the event store unreachable; see Retry-After',
      'Renderer is busy, try again shortly',
    ),
  );
}

@ApiTags('rendering')
@Controller('recordings/:recordingId')
export class ScreenshotController {
  constructor(private readonly screenshots: ScreenshotService) {}

  @Get('screenshot')
  @ApiScreenshot(undefined)
  negotiated(
    @Param() { recordingId }: RecordingIdParams,
    @Query() q: Record<string, unknown>,
    @Headers() h: Record<string, string | undefined>,
    @CurrentAuth() a: AuthContext,
    @Res() r: FastifyReply,
  ) {
    return this.send(undefined, recordingId, q, h, a, r);
  }

  @Get('screenshot.png')
  @ApiScreenshot('png')
  png(
    @Param() { recordingId }: RecordingIdParams,
    @Query() q: Record<string, unknown>,
    @Headers() h: Record<string, string | undefined>,
    @CurrentAuth() a: AuthContext,
    @Res() r: FastifyReply,
  ) {
    return this.send('png', recordingId, q, h, a, r);
  }

  @Get('screenshot.jpeg')
  @ApiScreenshot('jpeg')
  jpeg(
    @Param() { recordingId }: RecordingIdParams,
    @Query() q: Record<string, unknown>,
    @Headers() h: Record<string, string | undefined>,
    @CurrentAuth() a: AuthContext,
    @Res() r: FastifyReply,
  ) {
    return this.send('jpeg', recordingId, q, h, a, r);
  }

  @Get('screenshot.jpg')
  @ApiScreenshot('jpg')
  jpg(
    @Param() { recordingId }: RecordingIdParams,
    @Query() q: Record<string, unknown>,
    @Headers() h: Record<string, string | undefined>,
    @CurrentAuth() a: AuthContext,
    @Res() r: FastifyReply,
  ) {
    return this.send('jpg', recordingId, q, h, a, r);
  }

  @Get('screenshot.webp')
  @ApiScreenshot('webp')
  webp(
    @Param() { recordingId }: RecordingIdParams,
    @Query() q: Record<string, unknown>,
    @Headers() h: Record<string, string | undefined>,
    @CurrentAuth() a: AuthContext,
    @Res() r: FastifyReply,
  ) {
    return this.send('webp', recordingId, q, h, a, r);
  }

  private async send(
    extension: string | undefined,
    recordingId: string,
    query: Record<string, unknown>,
    headers: Record<string, string | undefined>,
    auth: AuthContext,
    reply: FastifyReply,
  ): Promise<void> {
    const res = await this.screenshots.respond({
      tenantId: auth.tenantId,
      recordingId,
      extension,
      accept: headers.accept,
      ifNoneMatch: headers['if-none-match'],
      query,
      linkExpires: auth.credential === 'presigned' ? auth.expires : undefined,
    });
    void setReplyHeaders(reply.status(res.status), res.headers).send(res.body);
  }
}
