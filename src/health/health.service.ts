import { Injectable } from '@nestjs/common';
import { BootService } from '../infrastructure/boot.service';
import { ClickHouse } from '../infrastructure/clickhouse/clickhouse-client';
import { isMigrated } from '../infrastructure/clickhouse/migrator';
import { NatsClient } from '../infrastructure/nats/nats-connection';
import { EVENTS_STREAM } from '../infrastructure/nats/subjects';
import type { Readiness } from './health.dto';

type State = { ok: boolean; detail?: unknown };

/** Something that adds details to readiness (projector lag, renderer); never makes it fail. */
export interface ReadinessContributor {
  name: string;
  details(): Promise<unknown>;
}

@Injectable()
export class HealthService {
  constructor(
    private readonly nats: NatsClient,
    private readonly ch: ClickHouse,
    private readonly boot: BootService,
  ) {}

  private readonly contributors: ReadinessContributor[] = [];

  register(c: ReadinessContributor): void {
    this.contributors.push(c);
  }

  /**
   * Ready means ingestion and event reads work: NATS up and the stream present. ClickHouse is not on
   * that path: while it is unreachable the service is "degraded" (listings stale or 503) but stays in
   * rotation, also when it started during the outage and has not migrated yet (an API pod restarted
   * then would otherwise stay out until ClickHouse is back, and ingestion with it). A reachable
   * ClickHouse that is not migrated yet keeps the instance not ready: its migration is under way.
   * Without `withDetails` (a probe without METRICS_TOKEN, when one is set) the answer holds the
   * states alone: no dependency's detail, and the contributors are not asked.
   */
  async readiness(withDetails = true): Promise<Readiness> {
    const checks: Record<string, State> = {};
    checks.nats = { ok: this.nats.connected && !this.nats.nc.isClosed() };
    // Each probe is bounded: a probe must answer within a kubelet's timeout even while NATS or
    // ClickHouse hangs, and a disconnected NATS is not asked at all (it would wait for the timeout).
    checks.stream = !checks.nats.ok
      ? { ok: false, detail: 'NATS is not connected' }
      : await within(
          PROBE_TIMEOUT_MS,
          this.nats.jsm.streams.info(EVENTS_STREAM).then((i) => ({ ok: true, detail: { messages: i.state.messages, bytes: i.state.bytes } })),
        ).catch((e) => ({ ok: false, detail: String((e as Error).message) }));
    const clickhouse = await this.ch.reach();
    const reachable = clickhouse.ok;
    checks.clickhouse = clickhouse.ok ? { ok: true } : { ok: false, detail: clickhouse.reason };
    checks.migrations = { ok: this.boot.migrated && (!reachable || (await isMigrated(this.ch).catch(() => false))) };
    const ready = checks.nats.ok && checks.stream.ok && (checks.migrations.ok || !reachable);
    const status = !ready ? 'not_ready' : reachable ? 'ready' : 'degraded';
    if (!withDetails) return { ready, status, checks: Object.fromEntries(Object.entries(checks).map(([name, c]) => [name, { ok: c.ok }])) };
    const details: Record<string, unknown> = {};
    const answers = await Promise.all(
      this.contributors.map((c) => within(PROBE_TIMEOUT_MS, c.details()).catch((e) => ({ error: String((e as Error)?.message ?? e) }))),
    );
    this.contributors.forEach((c, i) => (details[c.name] = answers[i]));
    return { ready, status, checks, details };
  }
}

/** Bound of each readiness probe (NATS stream, each contributor); ClickHouse's has its own 2 s. */
const PROBE_TIMEOUT_MS = 2000;

function within<T>(ms: number, p: Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(`no answer within ${ms} ms`)), ms)));
  return Promise.race([p, late]).finally(() => clearTimeout(timer));
}
