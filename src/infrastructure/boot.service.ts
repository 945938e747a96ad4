// Start-up and shutdown of the adapters. Streams and the tenant registry must be ready before the
// service answers (ingestion depends on them); ClickHouse migrations are retried in the background
// so that ingestion and event reads work while ClickHouse is down (readiness says so).
import { Inject, Injectable, Logger, OnApplicationShutdown, OnModuleInit } from '@nestjs/common';
import { applyBootstrapTenant } from '../auth/bootstrap-tenant';
import { TenantRegistry } from '../auth/tenant-registry';
import { APP_CONFIG, AppConfig } from '../config/config';
import { ClickHouse } from './clickhouse/clickhouse-client';
import { migrate } from './clickhouse/migrator';
import { NatsClient } from './nats/nats-connection';
import { provisionStreams } from './nats/stream-provisioner';

@Injectable()
export class BootService implements OnModuleInit, OnApplicationShutdown {
  private readonly logger = new Logger('boot');
  migrated = false;
  private migrating?: Promise<void>;
  private stopped = false;

  constructor(
    private readonly nats: NatsClient,
    private readonly ch: ClickHouse,
    private readonly registry: TenantRegistry,
    @Inject(APP_CONFIG) private readonly cfg: AppConfig,
  ) {}

  async onModuleInit() {
    await provisionStreams(this.nats, this.cfg);
    await this.registry.start();
    if (await applyBootstrapTenant(this.registry, this.cfg)) {
      const id = this.cfg.TAPEDECK_BOOTSTRAP_TENANT_ID!;
      for (let i = 0; i < 100 && !this.registry.authenticate(this.cfg.TAPEDECK_BOOTSTRAP_SECRET_KEY!); i++) await sleep(20);
      this.logger.log({ msg: 'bootstrap tenant ready', tenantId: id });
    }
    this.migrating = this.migrateWithRetry();
    await Promise.race([this.migrating, sleep(15_000)]);
  }

  /** Resolves once ClickHouse is migrated (projectors wait for it). */
  whenMigrated(): Promise<void> {
    return this.migrating ?? Promise.resolve();
  }

  private async migrateWithRetry(): Promise<void> {
    for (let attempt = 1; !this.stopped; attempt++) {
      try {
        await migrate(this.ch);
        this.migrated = true;
        return;
      } catch (e) {
        this.logger.warn({ msg: 'clickhouse migration failed; retrying', attempt, err: String((e as Error).message).slice(0, 300) });
        await sleep(Math.min(5000, 250 * attempt));
      }
    }
  }

  async onApplicationShutdown() {
    this.stopped = true;
    this.registry.stop();
    await this.ch.close().catch(() => undefined);
    await this.nats.close();
  }
}

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
