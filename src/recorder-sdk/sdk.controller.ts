import { applyDecorators, Controller, Get, Req, Res } from '@nestjs/common';
import { ApiOperation, ApiResponse, ApiTags } from '@nestjs/swagger';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { notFound } from '../common/app-error';
import { ApiCompressed, ApiConditionalGet, ApiContent, ApiTextError } from '../common/openapi/api-responses';
import { negotiatedGet } from '../common/static-asset';
import { SdkAssetService, type SdkAssetName } from './sdk-asset.service';
import { ScriptBody, SourceMap } from './sdk.dto';

/** Public scripts: cacheable for 5 minutes, loadable from any origin. */
const SCRIPT_HEADERS = {
  'Cache-Control': 'public, max-age=300',
  'Access-Control-Allow-Origin': '*',
  'Cross-Origin-Resource-Policy': 'cross-origin',
};

/** What serving `name` answers besides its 200: 304 to a matching If-None-Match, 404 (text/plain) while it is missing. */
const ApiServed = (name: SdkAssetName, missing: string) =>
  applyDecorators(ApiConditionalGet(), ApiCompressed(), ApiTextError(404, missing, `${name} is not built`));
const ApiScript = (name: SdkAssetName, missing: string) =>
  applyDecorators(
    ApiContent('The script (ETag, Cache-Control: public, max-age=300, Access-Control-Allow-Origin: *)', ['application/javascript'], ScriptBody),
    ApiServed(name, missing),
  );

@ApiTags('sdk')
@Controller()
export class SdkController {
  constructor(private readonly assets: SdkAssetService) {}

  @Get('sdk/recorder.js')
  @ApiOperation({
    summary: 'The browser recorder',
    description:
      'The Tapedeck recorder (rrweb record bundled in), an IIFE exposing the global Tapedeck. ' +
      '`<script src="https://HOST/sdk/recorder.js" data-public-key="public_key_svc_..." async></script>` starts recording; see docs/recorder.md. ' +
      'Public, cacheable for 5 minutes, loadable from any origin.',
  })
  @ApiScript('recorder.js', 'The recorder was not built (run npm run build)')
  recorder(@Req() req: FastifyRequest, @Res() reply: FastifyReply) {
    return this.serve('recorder.js', req, reply);
  }

  @Get('sdk/recorder.js.map')
  @ApiOperation({ summary: 'Source map of the browser recorder' })
  @ApiResponse({ status: 200, description: 'The source map', type: SourceMap.Output })
  @ApiServed('recorder.js.map', 'The recorder was not built')
  sourceMap(@Req() req: FastifyRequest, @Res() reply: FastifyReply) {
    return this.serve('recorder.js.map', req, reply);
  }

  @Get('record.js')
  @ApiOperation({
    summary: "rrweb's official browser client (script-tag SDK)",
    description:
      "@rrweb/browser-client's UMD build, unchanged, as rrweb Cloud serves it at /record.js: " +
      '`<script src="https://HOST/record.js" autostart>{ "publicApiKey": "public_key_svc_...", "serverUrl": "/recordings/{recordingId}/events/ws" }</script>`. ' +
      "Without serverUrl the client derives https://HOST/recordings/{recordingId}/events/ws from the script's host (no port), so set it when the service is not on https port 443. " +
      'The global is rrwebBrowserClient. Public, cacheable for 5 minutes, loadable from any origin.',
  })
  @ApiScript('record.js', '@rrweb/browser-client is not installed')
  officialClient(@Req() req: FastifyRequest, @Res() reply: FastifyReply) {
    return this.serve('record.js', req, reply);
  }

  private serve(name: SdkAssetName, req: FastifyRequest, reply: FastifyReply) {
    const asset = this.assets.get(name);
    if (!asset) throw notFound(`${name} is not built`);
    const answer = negotiatedGet(req.headers['accept-encoding'], req.headers['if-none-match'], asset, SCRIPT_HEADERS, { 'Content-Type': asset.contentType });
    return reply.status(answer.status).headers(answer.headers).send(answer.body);
  }
}
