import { Module } from '@nestjs/common';
import { ProjectionMetrics } from './projection-metrics';
import { ProjectorService } from './projector.service';

/** The projector role: durable consumers → ClickHouse projections. */
@Module({
  providers: [ProjectionMetrics, ProjectorService],
  exports: [ProjectionMetrics],
})
export class ProjectionsModule {}
