// Counters and lag of each projection in this process, for /readyz details and /metrics.
// Counters are per process; lag is per durable consumer (shared by every worker), read on demand
// from JetStream and cached for a short while.
import { Injectable } from '@nestjs/common';
import { Counter, Gauge } from 'prom-client';
import { MetricsService } from '../metrics/metrics.service';
import type { ProjectionLag } from './projection-ports';

export interface ProjectionStats {
  /** Batches written and acknowledged. */
  batches: number;
  messages: number;
  rows: number;
  /** Malformed messages acknowledged without rows. */
  skipped: number;
  /** Batches that failed and were nak'ed for redelivery. */
  failures: number;
  consecutiveFailures: number;
  /** Messages nak'ed on their last allowed delivery (they will not be projected; rebuild after fixing). */
  exhausted: number;
  lastError?: string;
  lastBatchAt?: number;
  lag?: ProjectionLag & { checkedAt: number };
  lagError?: string;
}

const LAG_CACHE_MS = 2000;

@Injectable()
export class ProjectionMetrics {
  private readonly stats = new Map<string, ProjectionStats>();
  private readonly lagReaders = new Map<string, () => Promise<ProjectionLag>>();

  constructor(metrics: MetricsService) {
    const collectAll = () => this.collect();
    const labelNames = ['projection'];
    const registers = [metrics.registry];
    const gauge = (name: string, help: string, read: (s: ProjectionStats) => number | undefined) =>
      new Gauge({
        name,
        help,
        labelNames,
        registers,
        async collect() {
          for (const [projection, s] of Object.entries(await collectAll())) {
            const v = read(s);
            if (v !== undefined) this.set({ projection }, v);
          }
        },
      });
    const counter = (name: string, help: string, read: (s: ProjectionStats) => number) =>
      new Counter({
        name,
        help,
        labelNames,
        registers,
        async collect() {
          const all = Object.entries(await collectAll());
          this.reset();
          for (const [projection, s] of all) this.inc({ projection }, read(s));
        },
      });
    gauge('tapedeck_projection_pending_messages', 'Messages not yet projected (pending + ack pending)', (s) =>
      s.lag ? s.lag.pending + s.lag.ackPending : undefined,
    );
    gauge('tapedeck_projection_lag_seconds', 'Age of the oldest unprojected message', (s) => s.lag?.oldestUnprojectedAgeSeconds);
    counter('tapedeck_projection_messages_total', 'Messages projected by this process', (s) => s.messages);
    counter('tapedeck_projection_failures_total', 'Failed projection batches in this process', (s) => s.failures);
  }

  of(name: string): ProjectionStats {
    let s = this.stats.get(name);
    if (!s) {
      s = { batches: 0, messages: 0, rows: 0, skipped: 0, failures: 0, consecutiveFailures: 0, exhausted: 0 };
      this.stats.set(name, s);
    }
    return s;
  }

  watchLag(name: string, read: () => Promise<ProjectionLag>): void {
    this.of(name);
    this.lagReaders.set(name, read);
  }

  /** Every projection's stats, with lag refreshed when older than a couple of seconds. */
  async collect(): Promise<Record<string, ProjectionStats>> {
    const now = Date.now();
    await Promise.all(
      [...this.lagReaders].map(async ([name, read]) => {
        const s = this.of(name);
        if (s.lag && now - s.lag.checkedAt < LAG_CACHE_MS) return;
        try {
          s.lag = { ...(await read()), checkedAt: now };
          s.lagError = undefined;
        } catch (e) {
          s.lagError = String((e as Error).message ?? e);
        }
      }),
    );
    return Object.fromEntries([...this.stats].map(([name, s]) => [name, { ...s }]));
  }
}
