import { Global, Module } from '@nestjs/common';
import { MetricsController } from './metrics.controller';
import { MetricsService } from './metrics.service';
import { MetricsToken } from './metrics-token';

@Global()
@Module({ controllers: [MetricsController], providers: [MetricsService, MetricsToken], exports: [MetricsService, MetricsToken] })
export class MetricsModule {}
