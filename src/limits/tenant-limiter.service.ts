// Every per-tenant limit in one place, for ingestion (HTTP and WebSocket), event and replay reads,
// WebSocket upgrades and screenshot renders. Each limit is the tenant's own value (tenant registry) or the configured
// default; the state behind them is shared by all instances (NATS KV documents, the projections'
// byte counts), never per process. Refusals: 429 with Retry-After (OverLimit), 507 for the quota;
// both name the limit. Shared-state failures let requests through (fail open) and are logged.
import { Inject, Injectable, Logger, OnModuleDestroy } from '@nestjs/common';
import { readFileSync } from 'node:fs';
import { finished, type Readable } from 'node:stream';
import { setTimeout as sleep } from 'node:timers/promises';
import { AppError, RateLimited } from '../common/app-error';
import { TenantRegistry } from '../auth/tenant-registry';
import { APP_CONFIG, AppConfig } from '../config/config';
import { defaultLimits, effectiveLimits, LimitName, TenantLimits } from '../domain/tenant-limits';
import { MetricsService } from '../metrics/metrics.service';
import { StorageUsageRepository } from '../read-model/storage-usage.repository';
import { LEASE_SECONDS } from './leased-bucket';
import { LimitDocuments } from './limit-documents';
import { ReadMeter } from './read-meter';
import { ALWAYS_DRAINED_BYTES, RefusedBodies } from './refused-bodies';
import { StorageQuota } from './storage-quota';
import { OverLimit, rateLimited, RateLimitName, TenantRates } from './tenant-rates';
import { Pace, Pacer } from './pacer';
import { Contention, CpuPressure, TICK_MS, WorkKind } from './contention';
import { ConcurrentSlots, LIVE_VIEWERS, RENDERS, WEBSOCKETS } from './concurrent-slots';

/** What every event or replay read pays at least, whatever its size (docs/limits.md). */
export const READ_MIN_BYTES = 256 * 1024;
/** What a tenant's ingestion requests may send at once in a process without being spaced (pacer.ts). */
const PACE_TOLERANCE_SECONDS = 0.05;
/** What a tenant's renders may start at once in a process without being spaced (pacer.ts): two at the default rate. */
const RENDER_PACE_TOLERANCE_SECONDS = 0.2;
/** What a tenant's reads may pass at once in a process without being spaced (pacer.ts): 1 MiB at the default rate, four reads' least cost. */
const READ_PACE_TOLERANCE_SECONDS = 0.5;
/** Until a tenant's HTTP batches are seen, the pacer assumes 300 bytes an event, uncompressed, 16 KiB a body. */
const ASSUMED_BATCH: BatchShape = { eventsPerByte: 1 / 300, storedPerByte: 1, received: 16 * 1024 };
/** Shared-state failures are logged at most this often. */
const LOG_EVERY_MS = 10_000;

/** Per byte of an HTTP body as received: its events and its stored (uncompressed) bytes; and a body's size. */
interface BatchShape {
  eventsPerByte: number;
  storedPerByte: number;
  received: number;
}

@Injectable()
export class TenantLimiter implements OnModuleDestroy {
  private readonly logger = new Logger('limits');
  readonly defaults: TenantLimits;
  private readonly burstSeconds: number;
  private readonly rates: TenantRates;
  private readonly sockets: ConcurrentSlots;
  private readonly renders: ConcurrentSlots;
  private readonly viewers: ConcurrentSlots;
  private readonly quota: StorageQuota;
  private readonly reads = new ReadMeter();
  private readonly refusedBodies: RefusedBodies;
  private readonly pacer?: Pacer;
  private readonly renderPacer?: Pacer;
  private readonly readPacer?: Pacer;
  private readonly contention?: Contention;
  private readonly ticker?: NodeJS.Timeout;
  /** Each ingesting tenant's recent HTTP batches (moving averages), for the pacer's estimate of a body's events and bytes. */
  private readonly batchShape = new Map<string, BatchShape>();
  /** Refusals by limit; `contention`: a slowed tenant's read or render that waited its turn too long (contention.ts). */
  private readonly refused: (labels: { limit: LimitName | 'contention' }) => void;
  private readonly lastLogged = new Map<string, number>();

  constructor(
    private readonly registry: TenantRegistry,
    @Inject(APP_CONFIG) cfg: AppConfig,
    docs: LimitDocuments,
    usage: StorageUsageRepository,
    metrics: MetricsService,
  ) {
    this.defaults = defaultLimits(cfg);
    this.burstSeconds = cfg.TENANT_BURST_SECONDS;
    this.refusedBodies = new RefusedBodies(cfg.TENANT_BURST_SECONDS);
    if (cfg.TENANT_PACING) {
      this.pacer = new Pacer(PACE_TOLERANCE_SECONDS, cfg.TENANT_BURST_SECONDS);
      this.renderPacer = new Pacer(RENDER_PACE_TOLERANCE_SECONDS, cfg.TENANT_BURST_SECONDS);
      this.readPacer = new Pacer(READ_PACE_TOLERANCE_SECONDS, cfg.TENANT_BURST_SECONDS);
    }
    this.rates = new TenantRates(docs, cfg.TENANT_BURST_SECONDS, (e) => this.storeFailed('the limits bucket', e));
    this.sockets = new ConcurrentSlots(WEBSOCKETS, docs, (e) => this.storeFailed('the limits bucket', e));
    this.renders = new ConcurrentSlots(RENDERS, docs, (e) => this.storeFailed('the limits bucket', e));
    this.viewers = new ConcurrentSlots(LIVE_VIEWERS, docs, (e) => this.storeFailed('the limits bucket', e));
    this.quota = new StorageQuota(usage, cfg.TENANT_USAGE_REFRESH_SECONDS * 1000, (e) => this.storeFailed('stored bytes (ClickHouse)', e));
    if (cfg.TENANT_CPU_PRESSURE > 0) {
      const pressure = new CpuPressure(() => readFileSync(cfg.CPU_PRESSURE_FILE, 'latin1'));
      if (this.samplePressure(pressure, cfg.CPU_PRESSURE_FILE) !== undefined) {
        const contention = (this.contention = new Contention(cfg.TENANT_CPU_PRESSURE));
        this.ticker = setInterval(() => contention.tick(this.samplePressure(pressure, cfg.CPU_PRESSURE_FILE) ?? 0), TICK_MS).unref();
        metrics.gauge(
          'tapedeck_cpu_pressure',
          'CPU pressure (smoothed share of time some task waited for a core) seen by the contention guard',
          () => contention.pressure,
        );
        metrics.gauge('tapedeck_tenants_slowed', 'Tenants slowed below their limits while the CPU is contended', () => contention.slowed);
      }
    }
    this.refused = metrics.labelledCounter('tapedeck_tenant_limit_refusals_total', 'Requests, frames and upgrades refused by a per-tenant limit', ['limit']);
  }

  onModuleDestroy() {
    clearInterval(this.ticker);
    this.sockets.stop();
    this.renders.stop();
    this.viewers.stop();
  }

  /** The tenant's limits: its own values over the configured defaults. */
  limitsOf(tenantId: string): TenantLimits {
    return effectiveLimits(this.defaults, this.registry.tenant(tenantId)?.limits);
  }

  /** Before a batch is even parsed: refuses at once when this instance already knows the tenant is over a limit. */
  precheckIngest(tenantId: string): void {
    const l = this.limitsOf(tenantId);
    this.counted(() => {
      this.quota.assertKnownRoom(tenantId, l.storedBytes);
      try {
        this.rates.assertOpen(tenantId, 'ingestEventsPerSecond', l.ingestEventsPerSecond);
        this.rates.assertOpen(tenantId, 'ingestBytesPerSecond', l.ingestBytesPerSecond);
      } catch (e) {
        this.contention?.note(tenantId, true);
        throw e;
      }
    });
  }

  /**
   * Whether the body of an ingestion request refused before it was read (`bytes` announced; NaN:
   * unknown) is read and dropped, or left unread with its connection closed: a small one always, a
   * larger one up to the tenant's byte rate in this process (refused-bodies.ts; a guard of this
   * process's CPU, so not shared), one of unknown length never.
   */
  drainsRefusedBody(tenantId: string, bytes: number): boolean {
    if (bytes <= ALWAYS_DRAINED_BYTES) return true;
    return bytes >= 0 && this.refusedBodies.drains(tenantId, bytes, this.limitsOf(tenantId).ingestBytesPerSecond);
  }

  /**
   * Seconds an HTTP ingestion request of the tenant waits before its body is read, so that its
   * requests in this process go at the pace of its rates instead of in bursts (pacer.ts), or throws
   * the rate's 429 when it is more than TENANT_BURST_SECONDS ahead of them. `bytes`: the length
   * announced (NaN: unknown); its events and stored bytes are estimated from the tenant's recent
   * HTTP batches (a compressed body stores several times its length).
   */
  paceIngest(tenantId: string, bytes: number): number {
    if (!this.pacer) return 0;
    const l = this.limitsOf(tenantId);
    const shape = this.batchShape.get(tenantId) ?? ASSUMED_BATCH;
    const size = bytes >= 0 ? bytes : shape.received;
    // Seconds of each rate the body costs (0: unlimited); the costlier one paces it and names a refusal.
    const seconds = (value: number, amount: number) => (value > 0 ? amount / value : 0);
    const events = seconds(l.ingestEventsPerSecond, size * shape.eventsPerByte);
    const stored = seconds(l.ingestBytesPerSecond, size * shape.storedPerByte);
    const { pace, share } = this.paced(this.pacer, tenantId, Math.max(events, stored));
    if (pace.refusedForSeconds === undefined) return pace.waitSeconds;
    const [limit, value]: [RateLimitName, number] =
      events >= stored ? ['ingestEventsPerSecond', l.ingestEventsPerSecond] : ['ingestBytesPerSecond', l.ingestBytesPerSecond];
    return this.counted(() => {
      throw rateLimited(limit, value, pace.refusedForSeconds, share);
    });
  }

  /**
   * Admits a batch of `events` and `bytes` (as stored) before it is stored, or throws (nothing taken
   * then). `received`: an HTTP body's size as received (compressed or not), for the pacer's estimates.
   */
  async admitIngest(tenantId: string, events: number, bytes: number, received?: number): Promise<void> {
    const l = this.limitsOf(tenantId);
    if (this.pacer && received) {
      const was = this.batchShape.get(tenantId);
      const avg = (a: number | undefined, x: number) => (a === undefined ? x : a + (x - a) / 4);
      this.batchShape.set(tenantId, {
        eventsPerByte: avg(was?.eventsPerByte, events / received),
        storedPerByte: avg(was?.storedPerByte, bytes / received),
        received: avg(was?.received, received),
      });
    }
    await this.countedAsync(async () => {
      await this.quota.assertRoom(tenantId, l.storedBytes);
      await this.noted(tenantId, () =>
        this.rates.takeAll(tenantId, [
          { limit: 'ingestEventsPerSecond', value: l.ingestEventsPerSecond, cost: events },
          { limit: 'ingestBytesPerSecond', value: l.ingestBytesPerSecond, cost: bytes },
        ]),
      );
    });
  }

  /** Counts the bytes of a batch stored for the tenant (not a duplicate) towards its quota. */
  stored(tenantId: string, bytes: number): void {
    this.quota.added(tenantId, bytes);
  }

  /**
   * A read's body from `open`, once admitted, slowed to the tenant's read bandwidth (its reads
   * together). Each read pays at least READ_MIN_BYTES up front, for what a read costs whatever its
   * size: small reads are bounded in number too. Refused (429) while the tenant's reads already wait
   * for bandwidth here, or when the shared bucket lacks that much. Paced (TENANT_PACING), a read
   * waits for what the tenant's earlier reads in this process have not paid yet (refused when that
   * is more than TENANT_BURST_SECONDS), and its bytes beyond READ_PACE_TOLERANCE_SECONDS of the rate
   * pass at the rate: a tenant's reads go at an even pace, not in bursts of the bucket's depth.
   */
  async metered(tenantId: string, open: () => Readable | Promise<Readable>): Promise<Readable> {
    const limit = this.limitsOf(tenantId).readBytesPerSecond;
    if (limit <= 0) return open();
    const prepaid = Math.min(READ_MIN_BYTES, limit * this.burstSeconds);
    const end = await this.begin(tenantId, 'read');
    try {
      const body = await this.admittedRead(tenantId, limit, prepaid, open);
      finished(body, end);
      return body;
    } catch (e) {
      end();
      throw e;
    }
  }

  private async admittedRead(tenantId: string, limit: number, prepaid: number, open: () => Readable | Promise<Readable>): Promise<Readable> {
    await this.countedAsync(() =>
      this.noted(tenantId, async () => {
        if (this.reads.isWaiting(tenantId)) throw rateLimited('readBytesPerSecond', limit, LEASE_SECONDS);
        const { pace, share } = this.paced(this.readPacer, tenantId, prepaid / limit);
        if (pace.refusedForSeconds !== undefined) throw rateLimited('readBytesPerSecond', limit, pace.refusedForSeconds, share);
        if (pace.waitSeconds > 0) await sleep(pace.waitSeconds * 1000);
        const wait = await this.rates.take(tenantId, 'readBytesPerSecond', limit, prepaid);
        if (wait > 0) throw rateLimited('readBytesPerSecond', limit, wait);
      }),
    );
    // A slowed tenant's bytes cost it more of its bandwidth (a cost beyond the bucket's depth passes on a full bucket, then is paid back).
    const pay = async (bytes: number) => {
      const value = this.limitsOf(tenantId).readBytesPerSecond;
      const wait = await this.rates.take(tenantId, 'readBytesPerSecond', value, bytes / this.share(tenantId));
      if (wait > 0 || !this.readPacer) this.contention?.note(tenantId, wait > 0);
      return wait;
    };
    const paceBytes = (bytes: number) => {
      const value = this.limitsOf(tenantId).readBytesPerSecond;
      const wait = value > 0 ? this.readPacer!.owe(tenantId, bytes / value / this.share(tenantId)) : 0;
      this.contention?.note(tenantId, wait > 0);
      return wait;
    };
    return this.reads.meter(tenantId, await open(), pay, prepaid, this.readPacer && paceBytes);
  }

  /** Reserves a WebSocket slot of the tenant; resolves the function that frees it (on close). */
  openWebSocket(tenantId: string): Promise<() => void> {
    return this.countedAsync(() => this.sockets.acquire(tenantId, this.limitsOf(tenantId).webSockets));
  }

  /**
   * Reserves one of the tenant's renders (in progress or waiting), then takes it from the tenant's
   * render rate: spaced in this process to that rate (waiting up to TENANT_BURST_SECONDS, as HTTP
   * ingestion is paced) and taken from the shared bucket. Resolves the function that frees the
   * slot; a refusal by the rate frees it at once. `rate: false` (thumbnails, rendered in a
   * background queue) takes the slot only.
   */
  async startRender(tenantId: string, { rate = true } = {}): Promise<() => void> {
    const l = this.limitsOf(tenantId);
    const end = rate ? await this.begin(tenantId, 'render') : () => undefined;
    return this.countedAsync(async () => {
      let free: (() => void) | undefined;
      try {
        free = await this.renders.acquire(tenantId, l.renders);
        if (rate && l.rendersPerSecond > 0) await this.takeRender(tenantId, l.rendersPerSecond);
        const slot = free;
        return () => {
          slot();
          end();
        };
      } catch (e) {
        free?.();
        end();
        throw e;
      }
    });
  }

  /**
   * A read or render of the tenant about to start: at once, or (while the tenant is slowed on a
   * contended machine and has its share in progress already, or is new while others work: its first
   * second) when its turn comes, up to TENANT_BURST_SECONDS, then refused with a 429 (contention.ts).
   * Resolves what ends it.
   */
  private async begin(tenantId: string, kind: WorkKind): Promise<() => void> {
    if (!this.contention) return () => undefined;
    const end = await this.contention.begin(tenantId, kind, this.burstSeconds * 1000);
    if (end) return end;
    this.refused({ limit: 'contention' });
    const share = this.share(tenantId);
    if (share === 1)
      throw new RateLimited(
        `This tenant started working while others work here: for its first second its ${kind}s go one at a time, ` +
          `after the others' (TENANT_CPU_PRESSURE); retry later`,
        1,
      );
    const cap = this.contention.inProgressCap(tenantId, kind);
    throw new RateLimited(
      `This tenant is slowed to ${Math.round(share * 100)}% of its limits while this instance's CPU is contended (TENANT_CPU_PRESSURE): ` +
        `at most ${cap} ${kind}${cap === 1 ? '' : 's'} at once here; retry later`,
      1,
    );
  }

  private async takeRender(tenantId: string, perSecond: number): Promise<void> {
    const { pace, share } = this.paced(this.renderPacer, tenantId, 1 / perSecond);
    if (pace.refusedForSeconds !== undefined) throw rateLimited('rendersPerSecond', perSecond, pace.refusedForSeconds, share);
    if (pace.waitSeconds > 0) await sleep(pace.waitSeconds * 1000);
    const wait = await this.rates.take(tenantId, 'rendersPerSecond', perSecond, 1);
    if (wait > 0) throw rateLimited('rendersPerSecond', perSecond, wait);
  }

  /** Paces `seconds` of the tenant's rate at its share of it (no pacer: no wait), noted for the contention guard (held when it waits). */
  private paced(pacer: Pacer | undefined, tenantId: string, seconds: number): { pace: Pace; share: number } {
    const share = this.share(tenantId);
    const pace: Pace = pacer?.pace(tenantId, seconds / share) ?? { waitSeconds: 0 };
    this.contention?.note(tenantId, pace.waitSeconds !== 0);
    return { pace, share };
  }

  /** The share of its rates the tenant is given now: below 1 while it presses against them on a contended machine (contention.ts). */
  private share(tenantId: string): number {
    return this.contention?.factor(tenantId) ?? 1;
  }

  /** `work`'s outcome, noted for the contention guard: the tenant works, and was held by a rate when it throws OverLimit. */
  private async noted<T>(tenantId: string, work: () => Promise<T>): Promise<T> {
    try {
      const out = await work();
      this.contention?.note(tenantId);
      return out;
    } catch (e) {
      this.contention?.note(tenantId, e instanceof OverLimit || undefined);
      throw e;
    }
  }

  /** The CPU pressure read from `file`; undefined when it cannot be (logged: the contention guard is then off). */
  private samplePressure(pressure: CpuPressure, file: string): number | undefined {
    try {
      const x = pressure.sample();
      if (x === undefined) throw new Error('no "some … total=" line');
      return x;
    } catch (e) {
      this.storeFailed(`the CPU pressure (${file})`, e);
      return undefined;
    }
  }

  /** Reserves one of the tenant's live viewers (an open live feed); resolves the function that frees it. */
  openLiveViewer(tenantId: string): Promise<() => void> {
    return this.countedAsync(() => this.viewers.acquire(tenantId, this.limitsOf(tenantId).liveViewers));
  }

  private counted<T>(work: () => T): T {
    try {
      return work();
    } catch (e) {
      this.count(e);
      throw e;
    }
  }

  private async countedAsync<T>(work: () => Promise<T>): Promise<T> {
    try {
      return await work();
    } catch (e) {
      this.count(e);
      throw e;
    }
  }

  private count(e: unknown) {
    if (e instanceof OverLimit) this.refused({ limit: e.limit });
    else if (e instanceof AppError && e.code === 'quota_exceeded') this.refused({ limit: 'storedBytes' });
  }

  private storeFailed(what: string, e: unknown) {
    const now = Date.now();
    if (now - (this.lastLogged.get(what) ?? 0) < LOG_EVERY_MS) return;
    this.lastLogged.set(what, now);
    this.logger.warn({ msg: `per-tenant limits could not use ${what}; not enforced meanwhile`, err: String((e as Error)?.message ?? e).slice(0, 300) });
  }
}
