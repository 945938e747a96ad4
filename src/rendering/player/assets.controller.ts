// Public static assets of the player page (no credentials: they hold nothing recording-specific).
import { Controller, Get, Headers, Param, Query, Res } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import type { FastifyReply } from 'fastify';
import { ApiCompressed, ApiConditionalGet, ApiContent, ApiTextError } from '../../common/openapi/api-responses';
import { ApiPathParams, ApiQueryParams } from '../../common/openapi/openapi-schema';
import { AssetBody, AssetParamsSchema, AssetQuerySchema } from './assets.dto';
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
  @ApiPathParams(AssetParamsSchema)
  @ApiQueryParams(AssetQuerySchema)
  @ApiContent('The script or the stylesheet', ['text/javascript', 'text/css'], AssetBody)
  @ApiConditionalGet()
  @ApiCompressed()
  @ApiTextError(404, 'No such asset', 'Not found')
  serve(
    @Param('name') name: string,
    @Query('v') version: string | undefined,
    @Headers('if-none-match') ifNoneMatch: string | undefined,
    @Headers('accept-encoding') acceptEncoding: string | undefined,
    @Res() reply: FastifyReply,
  ): void {
    const r = this.assets.respond(name, ifNoneMatch, version, acceptEncoding);
    void reply.status(r.status).headers(r.headers).send(r.body);
  }
}
