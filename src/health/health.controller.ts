import { Controller, Get, Headers, Res } from '@nestjs/common';
import { ApiOperation, ApiResponse, ApiTags } from '@nestjs/swagger';
import type { FastifyReply } from 'fastify';
import { ApiMetricsToken, MetricsToken } from '../metrics/metrics-token';
import { Liveness, Readiness } from './health.dto';
import { HealthService } from './health.service';

@ApiTags('operations')
@Controller()
export class HealthController {
  constructor(
    private readonly health: HealthService,
    private readonly token: MetricsToken,
  ) {}

  @Get('healthz')
  @ApiOperation({ summary: 'Liveness: the process is up' })
  @ApiResponse({ status: 200, type: Liveness.Output })
  healthz(): Liveness {
    return { status: 'ok' };
  }

  @Get('readyz')
  @ApiOperation({
    summary: 'Readiness: NATS and the JetStream stream; ClickHouse migrated when reachable (unreachable: 200 "degraded"); with projection lag details',
    description:
      "The status code answers every probe. With METRICS_TOKEN set, the details (each dependency's detail, and details) only come with Authorization: Bearer <METRICS_TOKEN>; without it (or with another value) the body holds ready, status and each check's ok.",
  })
  @ApiResponse({ status: 200, description: 'Ready; body names each dependency state', type: Readiness.Output })
  @ApiResponse({ status: 503, description: 'Not ready; body names the failing dependency', type: Readiness.Output })
  @ApiMetricsToken('details')
  async readyz(@Headers('authorization') authorization: string | undefined, @Res() reply: FastifyReply) {
    const r: Readiness = await this.health.readiness(this.token.admits(authorization));
    reply.status(r.ready ? 200 : 503).send(r);
  }
}
