// Public static assets of the player page (no credentials: they hold nothing recording-specific).
import { Controller, Get, Headers, Param, Query, Res } from '@nestjs/common';
import type { FastifyReply } from 'fastify';
import { PlayerAssets } from './player-assets';

@Controller('assets')
export class AssetsController {
  constructor(private readonly assets: PlayerAssets) {}

  @Get(':name')
  serve(
    @Param('name') name: string,
    @Query('v') version: string | undefined,
    @Headers('if-none-match') ifNoneMatch: string | undefined,
    @Res() reply: FastifyReply,
  ): void {
    const r = this.assets.respond(name, ifNoneMatch, version);
    void reply.status(r.status).headers(r.headers).send(r.body);
  }
}
