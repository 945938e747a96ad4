import { Controller, Get, Res } from '@nestjs/common';
import { ApiOperation, ApiResponse, ApiTags } from '@nestjs/swagger';
import type { FastifyReply } from 'fastify';
import { Liveness, Readiness } from './health.dto';
import { HealthService } from './health.service';

@ApiTags('operations')
@Controller()
export class HealthController {
  constructor(private readonly health: HealthService) {}

  @Get('healthz')
  @ApiOperation({ summary: 'Liveness: the process is up' })
  @ApiResponse({ status: 200, type: Liveness.Output })
  healthz(): Liveness {
    return { status: 'ok' };
  }

  @Get('readyz')
  @ApiOperation({
    summary: 'Readiness: NATS and the JetStream stream; ClickHouse migrated when reachable (unreachable: 200 "degraded"); with projection lag details',
  })
  @ApiResponse({ status: 200, description: 'Ready; body names each dependency state', type: Readiness.Output })
  @ApiResponse({ status: 503, description: 'Not ready; body names the failing dependency', type: Readiness.Output })
  async readyz(@Res() reply: FastifyReply) {
    const r: Readiness = await this.health.readiness();
    reply.status(r.ready ? 200 : 503).send(r);
  }
}
