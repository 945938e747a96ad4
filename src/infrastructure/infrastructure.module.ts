// Adapters as Nest providers: configuration, NATS (connection, event store), ClickHouse and the
// tenant registry. Boot order lives in BootService; shutdown drains NATS last.
import { DynamicModule, Global, Module } from '@nestjs/common';
import { APP_CONFIG, AppConfig } from '../config/config';
import { TenantRegistry } from '../auth/tenant-registry';
import { ClickHouse } from './clickhouse/clickhouse-client';
import { JetStreamEventStore } from './nats/event-store';
import { NatsClient } from './nats/nats-connection';
import { EVENT_STORE } from '../domain/event-store';
import { BootService } from './boot.service';
import { HealthService } from '../health/health.service';

@Global()
@Module({})
export class InfrastructureModule {
  static forRoot(cfg: AppConfig): DynamicModule {
    return {
      module: InfrastructureModule,
      providers: [
        { provide: APP_CONFIG, useValue: cfg },
        { provide: NatsClient, useFactory: () => NatsClient.connect(cfg, `tapedeck-${cfg.TAPEDECK_ROLE}`) },
        { provide: EVENT_STORE, useFactory: (n: NatsClient) => new JetStreamEventStore(n, cfg.INGEST_PUBLISH_TIMEOUT_MS), inject: [NatsClient] },
        { provide: ClickHouse, useFactory: () => new ClickHouse(cfg) },
        { provide: TenantRegistry, useFactory: (n: NatsClient) => new TenantRegistry(n, cfg.STREAM_REPLICAS), inject: [NatsClient] },
        BootService,
        HealthService,
      ],
      exports: [APP_CONFIG, NatsClient, EVENT_STORE, ClickHouse, TenantRegistry, BootService, HealthService],
    };
  }
}
