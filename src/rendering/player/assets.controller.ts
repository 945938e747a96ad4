// Public static assets of the player page (no credentials: they hold nothing recording-specific).
import { Controller, Get, Headers, Param, Query, Res } from '@nestjs/common';
import { ApiOperation, ApiParam, ApiQuery, ApiResponse, ApiTags } from '@nestjs/swagger';
import type { FastifyReply } from 'fastify';
import { PlayerAssets } from './player-assets';

@ApiTags('rendering')
@Controller('assets')
export class AssetsController {
  constructor(private readonly assets: PlayerAssets) {}

  @Get(':name')
  @ApiOperation({
    summary: 'Player page asset',
    description: "rrweb-player's script and stylesheet, as the player page links them. Public; immutable with the ?v= the page uses, else revalidated by ETag.",
  })
  @ApiParam({ name: 'name', schema: { type: 'string', enum: ['rrweb-player.js', 'rrweb-player.css'] } })
  @ApiQuery({ name: 'v', required: false, schema: { type: 'string' }, description: 'Asset version (from the player page)' })
  @ApiResponse({ status: 200, content: { 'text/javascript': { schema: { type: 'string' } }, 'text/css': { schema: { type: 'string' } } } })
  @ApiResponse({ status: 304, description: 'If-None-Match matched the ETag' })
  @ApiResponse({ status: 404, description: 'No such asset (text/plain)' })
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
