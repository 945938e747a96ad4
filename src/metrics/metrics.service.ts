// Prometheus metrics. One registry per process; features register collect-time gauges and
// counters (`gauge(name, help, read)`, `counter(…)`) so no feature depends on prom-client directly.
import { Injectable } from '@nestjs/common';
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';

@Injectable()
export class MetricsService {
  readonly registry = new Registry();
  readonly httpDuration = new Histogram({
    name: 'tapedeck_http_request_duration_seconds',
    help: 'HTTP request duration by route and status',
    labelNames: ['method', 'route', 'status'],
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers: [this.registry],
  });
  readonly ingestLatency = new Histogram({
    name: 'tapedeck_ingest_batch_seconds',
    help: 'Time from a validated batch to its JetStream acknowledgement',
    buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 5],
    registers: [this.registry],
  });

  constructor() {
    collectDefaultMetrics({ register: this.registry, prefix: 'tapedeck_' });
  }

  /** A gauge whose value is read when /metrics is scraped. */
  gauge(name: string, help: string, read: () => number | Promise<number>, labels?: Record<string, string>): void {
    const labelNames = labels ? Object.keys(labels) : [];
    new Gauge({
      name,
      help,
      labelNames,
      registers: [this.registry],
      async collect() {
        const v = await read();
        if (labels) this.set(labels, v);
        else this.set(v);
      },
    });
  }

  /** A histogram (`_bucket`, `_sum`, `_count`); the feature calls the returned function per observation. */
  histogram(name: string, help: string, buckets: number[]): (value: number) => void {
    const h = new Histogram({ name, help, buckets, registers: [this.registry] });
    return (value) => h.observe(value);
  }

  /** A counter with labels; the feature calls the returned function once per occurrence. */
  labelledCounter<L extends string>(name: string, help: string, labelNames: readonly L[]): (labels: Record<L, string | number>) => void {
    const c = new Counter({ name, help, labelNames, registers: [this.registry] });
    return (labels) => c.inc(labels);
  }

  /** A counter whose value is read from a monotonic source when scraped (exported as TYPE counter). */
  counter(name: string, help: string, read: () => number): void {
    new Counter({ name, help, registers: [this.registry], collect: setCounter(read) });
  }
}

/**
 * A collect() for a prom-client Counter mirroring a monotonic value kept elsewhere: counters have
 * no set(), so it resets and increments by the current total (synchronously, so a scrape never
 * sees the reset).
 */
function setCounter(read: () => number): (this: Counter) => void {
  return function (this: Counter) {
    const v = read();
    this.reset();
    this.inc(v);
  };
}

export { Counter };
