// Starts one runner per projection in processes with the projector role. The consumers are ensured
// at start (configuration drift fails the start); the loops wait for ClickHouse migrations, then run
// until shutdown, when the batch in hand is settled before NATS and ClickHouse close.
import { BeforeApplicationShutdown, Inject, Injectable, Logger, OnApplicationBootstrap } from '@nestjs/common';
import { APP_CONFIG, AppConfig } from '../config/config';
import { HealthService } from '../health/health.service';
import { BootService } from '../infrastructure/boot.service';
import { ClickHouse } from '../infrastructure/clickhouse/clickhouse-client';
import { NatsClient } from '../infrastructure/nats/nats-connection';
import { ClickHouseProjectionSink } from './clickhouse-projection-sink';
import { MAX_DELIVER } from './consumer-config';
import { JetStreamProjectionSource } from './jetstream-projection-source';
import { ProjectionMetrics } from './projection-metrics';
import { PROJECTIONS } from './projections.registry';
import { ProjectorRunner } from './projector-runner';

@Injectable()
export class ProjectorService implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly logger = new Logger('projector');
  private readonly abort = new AbortController();
  private running: Promise<void>[] = [];

  constructor(
    private readonly nats: NatsClient,
    private readonly ch: ClickHouse,
    private readonly boot: BootService,
    private readonly health: HealthService,
    private readonly metrics: ProjectionMetrics,
    @Inject(APP_CONFIG) private readonly cfg: AppConfig,
  ) {}

  async onApplicationBootstrap() {
    const sink = new ClickHouseProjectionSink(this.ch);
    for (const projection of PROJECTIONS) {
      const source = new JetStreamProjectionSource(this.nats, projection, this.cfg);
      await source.ensure();
      this.metrics.watchLag(projection.name, () => source.lag());
      const runner = new ProjectorRunner(
        { projection, source, sink, stats: this.metrics.of(projection.name), logger: this.logger },
        {
          batch: this.cfg.PROJECTOR_BATCH,
          expiresMs: this.cfg.PROJECTOR_FETCH_EXPIRES_MS,
          lingerMs: this.cfg.PROJECTOR_LINGER_MS,
          writeIntervalMs: this.cfg.PROJECTOR_WRITE_INTERVAL_MS,
          maxDeliver: MAX_DELIVER,
        },
      );
      this.running.push(
        this.boot
          .whenMigrated()
          .then(() => runner.run(this.abort.signal, true))
          .catch((e) => this.logger.error({ msg: 'projector stopped', projection: projection.name, err: String(e) })),
      );
      this.logger.log({ msg: 'projector started', projection: projection.name, consumer: source.name });
    }
    this.health.register({ name: 'projections', details: () => this.metrics.collect() });
  }

  async beforeApplicationShutdown() {
    this.abort.abort();
    // A write in progress may take up to the ClickHouse request timeout; do not wait longer.
    await Promise.race([Promise.allSettled(this.running), new Promise((r) => setTimeout(r, 35_000).unref())]);
  }
}
