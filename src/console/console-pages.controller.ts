// The console's pages (one HTML shell for every console path; the app routes in the browser) and its
// bundles, and `/` sending visitors to it. Not part of the API, so not in /openapi.json.
import { Controller, Get, Headers, Param, Query, Redirect, Res } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import type { FastifyReply } from 'fastify';
import { setReplyHeaders } from '../common/reply-headers';
import { ConsoleAssets } from './console-assets';

/** Every path the console's router knows (console/src/routes.ts). */
export const CONSOLE_PATHS = [
  'console',
  'console/sign-in',
  'console/recordings',
  'console/recordings/:recordingId',
  'console/replays',
  'console/statistics',
  'console/admin',
];

@ApiExcludeController()
@Controller()
export class ConsolePagesController {
  constructor(private readonly assets: ConsoleAssets) {}

  @Get()
  @Redirect('/console/recordings', 302)
  root(): void {}

  @Get(CONSOLE_PATHS)
  page(@Headers('if-none-match') ifNoneMatch: string | undefined, @Res() reply: FastifyReply): void {
    const a = this.assets.respondPage(ifNoneMatch);
    void setReplyHeaders(reply.status(a.status), a.headers).send(a.body);
  }

  @Get('console/assets/:name')
  asset(
    @Param('name') name: string,
    @Query('v') v: unknown,
    @Headers('if-none-match') ifNoneMatch: string | undefined,
    @Headers('accept-encoding') acceptEncoding: string | undefined,
    @Res() reply: FastifyReply,
  ): void {
    const a = this.assets.respondAsset(name, typeof v === 'string' ? v : undefined, ifNoneMatch, acceptEncoding);
    void setReplyHeaders(reply.status(a.status), a.headers).send(a.body);
  }
}
