// Adapters as Nest providers: configuration, NATS (connection, the EventStore port on JetStream) and
// ClickHouse. Boot order lives in BootService; shutdown drains NATS last.
import { DynamicModule, Global, Module } from '@nestjs/common';
import { APP_CONFIG, AppConfig } from '../config/config';
import { ClickHouse } from './clickhouse/clickhouse-client';
import { JetStreamEventStore } from './nats/event-store';
import { NatsClient } from './nats/nats-connection';
import { EVENT_STORE } from '../domain/event-store';
import { BootService } from './boot.service';

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
        BootService,
      ],
      exports: [APP_CONFIG, NatsClient, EVENT_STORE, ClickHouse, BootService],
    };
  }
}
