// Liveness and readiness (GET /healthz, /readyz). Global: features add readiness details with
// HealthService.register (projector lag, renderer); they never make readiness fail.
import { Global, Module } from '@nestjs/common';
import { HealthController } from './health.controller';
import { HealthService } from './health.service';

@Global()
@Module({ controllers: [HealthController], providers: [HealthService], exports: [HealthService] })
export class HealthModule {}
