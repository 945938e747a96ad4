// Screenshots of a recording at a moment: /screenshot (format from Accept, else PNG) and one route per
// extension (.png, .jpeg, .jpg, .webp: the extension wins over Accept). Query parameters other than
// the spec's (and the presigned link's) are ignored.
import { applyDecorators, Controller, Get, Headers, Param, Query, Res } from '@nestjs/common';
import { ApiOperation, ApiParam, ApiProduces, ApiQuery, ApiResponse, ApiTags } from '@nestjs/swagger';
import type { FastifyReply } from 'fastify';
import { Auth, CurrentAuth } from '../../auth/auth.decorator';
import type { AuthContext } from '../../auth/auth-context';
import { setReplyHeaders } from '../../common/reply-headers';
import { parseWith, uuidParam } from '../../common/validation';
import { ApiBadRequest, ApiTextError } from '../../common/openapi/api-responses';
import { MAX_SCREENSHOT_SIDE } from './screenshot-params';
import { ScreenshotService } from './screenshot.service';

const TIME_RULES =
  'Playback position: offset:<ms> from the first event (negative: back from the last event), percent:<0-100> of the duration, or epoch:<ms>. Default (when absent) offset:0. Malformed, empty included: 400; outside the recording: 422.';

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
    ApiParam({ name: 'recordingId', format: 'uuid' }),
    ApiQuery({ name: 'time', required: false, schema: { type: 'string', maxLength: 64, example: 'offset:1500' }, description: TIME_RULES }),
    ApiQuery({
      name: 'width',
      required: false,
      schema: { type: 'integer', minimum: 1, maximum: MAX_SCREENSHOT_SIDE, example: 1280 },
      description:
        "Integer 1-4096 (else 400). Default 1280; when only height is given, height × the recording's viewport ratio at that time (its last Meta event or window resize), else 1280.",
    }),
    ApiQuery({
      name: 'height',
      required: false,
      schema: { type: 'integer', minimum: 1, maximum: MAX_SCREENSHOT_SIDE, example: 720 },
      description:
        "Integer 1-4096 (else 400). When omitted: width ÷ the recording's viewport ratio at that time (its last Meta event or window resize) when the recording names one, else 720.",
    }),
    ApiQuery({
      name: 'quality',
      required: false,
      schema: { type: 'integer', minimum: 1, maximum: 100, default: 80 },
      description: 'Integer 1-100, default 80 (else 400). JPEG and WebP only; ignored for PNG.',
    }),
    ApiProduces(...produces),
    ApiResponse({
      status: 200,
      description: 'The image',
      content: Object.fromEntries(produces.map((t) => [t, { schema: { type: 'string', format: 'binary' } }])),
    }),
    ApiResponse({ status: 304, description: 'If-None-Match matched the ETag' }),
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
    @Param('recordingId') id: string,
    @Query() q: Record<string, unknown>,
    @Headers() h: Record<string, string | undefined>,
    @CurrentAuth() a: AuthContext,
    @Res() r: FastifyReply,
  ) {
    return this.send(undefined, id, q, h, a, r);
  }

  @Get('screenshot.png')
  @ApiScreenshot('png')
  png(
    @Param('recordingId') id: string,
    @Query() q: Record<string, unknown>,
    @Headers() h: Record<string, string | undefined>,
    @CurrentAuth() a: AuthContext,
    @Res() r: FastifyReply,
  ) {
    return this.send('png', id, q, h, a, r);
  }

  @Get('screenshot.jpeg')
  @ApiScreenshot('jpeg')
  jpeg(
    @Param('recordingId') id: string,
    @Query() q: Record<string, unknown>,
    @Headers() h: Record<string, string | undefined>,
    @CurrentAuth() a: AuthContext,
    @Res() r: FastifyReply,
  ) {
    return this.send('jpeg', id, q, h, a, r);
  }

  @Get('screenshot.jpg')
  @ApiScreenshot('jpg')
  jpg(
    @Param('recordingId') id: string,
    @Query() q: Record<string, unknown>,
    @Headers() h: Record<string, string | undefined>,
    @CurrentAuth() a: AuthContext,
    @Res() r: FastifyReply,
  ) {
    return this.send('jpg', id, q, h, a, r);
  }

  @Get('screenshot.webp')
  @ApiScreenshot('webp')
  webp(
    @Param('recordingId') id: string,
    @Query() q: Record<string, unknown>,
    @Headers() h: Record<string, string | undefined>,
    @CurrentAuth() a: AuthContext,
    @Res() r: FastifyReply,
  ) {
    return this.send('webp', id, q, h, a, r);
  }

  private async send(
    extension: string | undefined,
    rawId: string,
    query: Record<string, unknown>,
    headers: Record<string, string | undefined>,
    auth: AuthContext,
    reply: FastifyReply,
  ): Promise<void> {
    const recordingId = parseWith(uuidParam, rawId, 'recordingId');
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
