import { Controller, Get, Headers, Res } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import type { FastifyReply } from 'fastify';
import { z } from 'zod';
import { ApiContent } from '../common/openapi/api-responses';
import { ApiMetricsToken, MetricsToken } from './metrics-token';
import { MetricsService } from './metrics.service';

@ApiTags('operations')
@Controller()
export class MetricsController {
  constructor(
    private readonly metrics: MetricsService,
    private readonly token: MetricsToken,
  ) {}

  @Get('metrics')
  @ApiOperation({
    summary: 'Prometheus metrics of this process',
    description: 'Prometheus text exposition format (docs/operations.md, Monitoring). With METRICS_TOKEN set, only for Authorization: Bearer <METRICS_TOKEN>.',
  })
  @ApiContent('The metrics, Prometheus text format 0.0.4', ['text/plain'], z.string())
  @ApiMetricsToken('required')
  async scrape(@Headers('authorization') authorization: string | undefined, @Res() reply: FastifyReply) {
    this.token.check(authorization);
    reply.header('content-type', this.metrics.registry.contentType).send(await this.metrics.registry.metrics());
  }
}
