// The application: one Nest module per feature, adapters from InfrastructureModule. Which features
// run depends on the process role (TAPEDECK_ROLE): api, projector, or all.
import { DynamicModule, Module, Type } from '@nestjs/common';
import type { AppConfig } from './config/config';
import { InfrastructureModule } from './infrastructure/infrastructure.module';
import { ActivityModule } from './activity/activity.module';
import { AdminModule } from './admin/admin.module';
import { AuthModule } from './auth/auth.module';
import { HealthModule } from './health/health.module';
import { MetricsModule } from './metrics/metrics.module';
import { IngestionModule } from './ingestion/ingestion.module';
import { LimitsModule } from './limits/limits.module';
import { RecordingsModule } from './recordings/recordings.module';
import { ProjectionsModule } from './projections/projections.module';
import { ReplaysModule } from './replays/replays.module';
import { SdkModule } from './recorder-sdk/sdk.module';
import { RetentionModule } from './retention/retention.module';
import { StatisticsModule } from './statistics/statistics.module';
import { RenderingModule } from './rendering/rendering.module';
import { ConsoleModule } from './console/console.module';
import { KeyframesModule } from './keyframes/keyframes.module';
import { ArchivesModule } from './archives/archives.module';

/** Feature modules registered by role; features add themselves here. */
export const API_MODULES: Type[] = [
  AuthModule,
  LimitsModule,
  IngestionModule,
  RecordingsModule,
  ActivityModule,
  ReplaysModule,
  SdkModule,
  AdminModule,
  StatisticsModule,
  RenderingModule,
  ConsoleModule,
];
export const PROJECTOR_MODULES: Type[] = [ProjectionsModule, RetentionModule, KeyframesModule, ArchivesModule];

/** Whether a process of this role runs the API modules (and so ingestion). */
export const servesApi = (cfg: Pick<AppConfig, 'TAPEDECK_ROLE'>): boolean => cfg.TAPEDECK_ROLE !== 'projector';

@Module({})
export class AppModule {
  static forRoot(cfg: AppConfig): DynamicModule {
    const roleModules = [...(servesApi(cfg) ? API_MODULES : []), ...(cfg.TAPEDECK_ROLE !== 'api' ? PROJECTOR_MODULES : [])];
    return {
      module: AppModule,
      imports: [InfrastructureModule.forRoot(cfg), HealthModule, MetricsModule, AuthModule, ...new Set(roleModules)],
    };
  }
}
