// Start-up and shutdown of the adapters. Streams, then the NATS steps features register (the auth
// module's tenant registry and bootstrap tenant), must be ready before the service answers (ingestion
// depends on them); ClickHouse migrations are retried in the background so that ingestion and event
// reads work while ClickHouse is down (readiness says so).
import { Inject, Injectable, Logger, OnApplicationShutdown, OnModuleInit } from '@nestjs/common';
import { AppError } from '../common/app-error';
import { APP_CONFIG, AppConfig } from '../config/config';
import { ClickHouse } from './clickhouse/clickhouse-client';
import { migrateLocked } from './migration-lock';
import { isNatsError } from './nats/jetstream-errors';
import { NatsClient } from './nats/nats-connection';
import { provisionStreams } from './nats/stream-provisioner';

/** A feature's start-up step on NATS, run once the streams exist and before migrations start. */
export interface NatsBootStep {
  /** For the log: "could not <what>; retrying". */
  what: string;
  run(): Promise<unknown>;
  /** At shutdown, before ClickHouse and NATS close. */
  stop?(): void;
}

/** How long start-up keeps retrying NATS before the process gives up (and its supervisor restarts it). */
const BOOT_NATS_RETRY_MS = 60_000;

@Injectable()
export class BootService implements OnModuleInit, OnApplicationShutdown {
  private readonly logger = new Logger('boot');
  migrated = false;
  private migrating?: Promise<void>;
  private stopped = false;
  private readonly steps: NatsBootStep[] = [];

  constructor(
    private readonly nats: NatsClient,
    private readonly ch: ClickHouse,
    @Inject(APP_CONFIG) private readonly cfg: AppConfig,
  ) {}

  /**
   * Adds a step run in registration order after the streams are provisioned, retried as they are.
   * Features call it from their providers' constructors: every provider is built before any module
   * init runs, so the steps are all known when start-up begins.
   */
  addNatsStep(step: NatsBootStep): void {
    this.steps.push(step);
  }

  async onModuleInit() {
    await this.retryingNats('provision streams', () => provisionStreams(this.nats, this.cfg));
    for (const step of this.steps) await this.retryingNats(step.what, () => step.run());
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
    for (const step of this.steps) step.stop?.();
    await this.ch.close().catch(() => undefined);
    await this.nats.close();
  }
}

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
