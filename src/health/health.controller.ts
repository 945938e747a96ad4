import { Controller, Get, Res } from '@nestjs/common';
import { ApiOperation, ApiResponse, ApiTags } from '@nestjs/swagger';
import type { FastifyReply } from 'fastify';
import { HealthService } from './health.service';

@ApiTags('operations')
@Controller()
export class HealthController {
  constructor(private readonly health: HealthService) {}

  @Get('healthz')
  @ApiOperation({ summary: 'Liveness: the process is up' })
  @ApiResponse({ status: 200, schema: { type: 'object', required: ['status'], properties: { status: { type: 'string', enum: ['ok'] } } } })
  healthz() {
    return { status: 'ok' };
  }

  @Get('readyz')
  @ApiOperation({ summary: 'Readiness: NATS and the JetStream stream; ClickHouse migrated when reachable (unreachable: 200 "degraded"); with projection lag details' })
  @ApiResponse({ status: 200, description: 'Ready; body names each dependency state' })
  @ApiResponse({ status: 503, description: 'Not ready; body names the failing dependency' })
  async readyz(@Res() reply: FastifyReply) {
    const r = await this.health.readiness();
    reply.status(r.ready ? 200 : 503).send(r);
  }
}
