// Start-up and shutdown of the adapters. Streams and the tenant registry must be ready before the
// service answers (ingestion depends on them); ClickHouse migrations are retried in the background
// so that ingestion and event reads work while ClickHouse is down (readiness says so).
import { Inject, Injectable, Logger, OnApplicationShutdown, OnModuleInit } from '@nestjs/common';
import { applyBootstrapTenant } from '../auth/bootstrap-tenant';
import { AppError } from '../common/app-error';
import { TenantRegistry } from '../auth/tenant-registry';
import { APP_CONFIG, AppConfig } from '../config/config';
import { ClickHouse } from './clickhouse/clickhouse-client';
import { migrateLocked } from './migration-lock';
import { isNatsError } from './nats/jetstream-errors';
import { NatsClient } from './nats/nats-connection';
import { provisionStreams } from './nats/stream-provisioner';

/** How long start-up keeps retrying NATS before the process gives up (and its supervisor restarts it). */
const BOOT_NATS_RETRY_MS = 60_000;

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
    await this.retryingNats('provision streams', () => provisionStreams(this.nats, this.cfg));
    await this.retryingNats('open the tenant registry', () => this.registry.start());
    if (await this.retryingNats('apply the bootstrap tenant', () => applyBootstrapTenant(this.registry, this.cfg))) {
      const id = this.cfg.TAPEDECK_BOOTSTRAP_TENANT_ID!;
      for (let i = 0; i < 100 && !this.registry.authenticate(this.cfg.TAPEDECK_BOOTSTRAP_SECRET_KEY!); i++) await sleep(20);
      this.logger.log({ msg: 'bootstrap tenant ready', tenantId: id });
    }
    this.migrating = this.migrateWithRetry();
    await Promise.race([this.migrating, sleep(15_000)]);
  }

  /**
   * Runs a start-up step again while NATS answers with its own errors (a fresh cluster still electing
   * its JetStream meta leader times out; two instances booting at once race to create the same
   * stream, bucket or bootstrap tenant). Our own refusals (plain Errors, e.g. a stream with other
   * subjects; bad bootstrap keys) fail at once.
   */
  private async retryingNats<T>(what: string, step: () => Promise<T>): Promise<T> {
    const deadline = Date.now() + BOOT_NATS_RETRY_MS;
    for (let attempt = 1; ; attempt++) {
      try {
        return await step();
      } catch (e) {
        // A read right after a write (e.g. the tenant just created, read back by createKey) may be
        // answered by a replica that has not seen it yet: "not found" is transient here too.
        const transient = isNatsError(e) || (e instanceof AppError && e.code === 'not_found');
        if (!transient || Date.now() > deadline || this.stopped) throw e;
        this.logger.warn({ msg: `could not ${what}; retrying`, attempt, err: String((e as Error).message).slice(0, 300) });
        await sleep(Math.min(2000, 250 * attempt));
      }
    }
  }

  /** Resolves once ClickHouse is migrated (projectors wait for it). */
  whenMigrated(): Promise<void> {
    return this.migrating ?? Promise.resolve();
  }

  private async migrateWithRetry(): Promise<void> {
    for (let attempt = 1; !this.stopped; attempt++) {
      try {
        await migrateLocked(this.ch, this.nats, this.cfg.STREAM_REPLICAS);
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
