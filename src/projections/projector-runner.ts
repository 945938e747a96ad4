// Runs one projection over its durable consumer. A batch is what has arrived within the linger
// after its first message, and no sooner than the write interval after the previous write began (a
// full batch at once when that many are pending), so a quiet stream is projected within about the
// linger plus one insert, a steady trickle in one write per interval (ClickHouse pays per insert: a
// part per table, then merges; at 20 small batches a second, 100 ms apart, ClickHouse spent about
// 0.3 of a core, three times what the same rows cost 500 ms apart: docs/operations.md), and a busy
// one in large batches. Contract: a
// fetched batch is applied, written with one insert per table (then its deletions), and only then
// is every message acknowledged. If anything fails, every message of the batch is nak'ed with a
// growing delay (never term'ed: an outage must not become data loss), fetching pauses until
// ClickHouse answers again (so an outage does not use up max_deliver), and the next batches are half
// the size of the failed one, doubling again with each success: one bad message ends up alone within
// about log2(batch) failures, and once it has failed alone it is projected alone whenever it comes
// back, so it cannot hold back the rest or use up its neighbours' deliveries, while a passing hiccup
// costs a few small batches, not hundreds of single-message ones. A failing fetch (consumer
// deleted, NATS restarted) re-ensures the consumer. Workers sharing the consumer may write a
// message twice; rows are versioned by stream sequence, so copies collapse.
import { Logger } from '@nestjs/common';
import { retryDelayMs } from './backoff';
import type { Projection } from './projection';
import type { ProjectionStats } from './projection-metrics';
import type { Delivery, ProjectionSink, ProjectionSource } from './projection-ports';
import { writeOutput } from './write-output';

export interface RunnerOptions {
  batch: number;
  /** Long-poll for the first message of a batch. */
  expiresMs: number;
  /** After the first message, how long a partial batch may fill before it is written. */
  lingerMs: number;
  /** A partial batch is written no sooner than this long after the previous write began (0: no spacing). */
  writeIntervalMs?: number;
  /** The consumer's max_deliver: a nak on the last allowed delivery is reported as exhausted. */
  maxDeliver: number;
  /** How often `working` is signalled while a batch is being written. */
  workingIntervalMs?: number;
}

export interface RunnerDeps {
  projection: Projection;
  source: ProjectionSource;
  sink: ProjectionSink;
  stats: ProjectionStats;
  logger?: Pick<Logger, 'log' | 'warn' | 'error'>;
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
}

export const abortableSleep = (ms: number, signal?: AbortSignal) =>
  new Promise<void>((resolve) => {
    if (signal?.aborted) return resolve();
    const t = setTimeout(done, ms);
    function done() {
      clearTimeout(t);
      signal?.removeEventListener('abort', done);
      resolve();
    }
    signal?.addEventListener('abort', done);
  });

const errText = (e: unknown) => String((e as Error)?.message ?? e).slice(0, 500);

/** How long the messages of a failed batch keep the batch size reduced at most (ProjectorRunner.suspects). */
const SUSPECT_MS = 60_000;

export class ProjectorRunner {
  /** The batch size while recovering from a failed batch (halved by a failure, doubled by a success); undefined: the full batch. */
  private limit?: number;
  /** Messages that failed alone (by stream sequence): projected alone until acked or exhausted. */
  private readonly failedAlone = new Set<number>();
  /**
   * Messages of failed batches not yet projected, and since when: the batch size stays reduced until
   * none is left (later messages succeeding prove nothing about the bad one), until one fails alone
   * (found), or for at most SUSPECT_MS (another worker sharing the consumer may have taken them).
   */
  private readonly suspects = new Set<number>();
  private suspectedAt = 0;
  /** When the last batch was fetched (its write began), epoch ms; spaces the writes (writeIntervalMs). */
  private lastWriteAt?: number;
  private readonly logger: Pick<Logger, 'log' | 'warn' | 'error'>;
  private readonly sleep: (ms: number, signal?: AbortSignal) => Promise<void>;

  constructor(
    private readonly deps: RunnerDeps,
    private readonly opts: RunnerOptions,
  ) {
    this.logger = deps.logger ?? new Logger('projector');
    this.sleep = deps.sleep ?? abortableSleep;
  }

  /** The supervised loop; returns once `signal` is aborted and the batch in hand is settled. */
  async run(signal: AbortSignal, ensured = false): Promise<void> {
    const { source, projection } = this.deps;
    let needsEnsure = !ensured;
    let fetchFailures = 0;
    while (!signal.aborted) {
      try {
        if (needsEnsure) {
          await source.ensure();
          needsEnsure = false;
        }
        if (this.deps.stats.consecutiveFailures > 0) await this.waitForSink(signal);
        if (signal.aborted) break;
        const { expiresMs, lingerMs, writeIntervalMs = 0 } = this.opts;
        const deliveries = await source.fetch(this.limit ?? this.opts.batch, {
          expiresMs,
          lingerMs,
          ...(writeIntervalMs > 0 && this.lastWriteAt !== undefined ? { notBefore: this.lastWriteAt + writeIntervalMs } : {}),
        });
        fetchFailures = 0;
        if (deliveries.length > 0) {
          this.lastWriteAt = Date.now();
          await this.handle(deliveries);
        }
      } catch (e) {
        fetchFailures++;
        needsEnsure = true;
        this.logger.warn({ msg: 'projector fetch failed; re-ensuring the consumer', projection: projection.name, attempt: fetchFailures, err: errText(e) });
        await this.sleep(retryDelayMs(fetchFailures), signal);
      }
    }
  }

  /**
   * Projects, writes and settles one fetched batch (messages that failed alone before, each alone).
   * Never throws; true when all of it was written and acked.
   */
  async handle(deliveries: Delivery[]): Promise<boolean> {
    const keepAlive = setInterval(() => deliveries.forEach((d) => d.working()), this.opts.workingIntervalMs ?? 10_000);
    try {
      const alone = deliveries.filter((d) => this.failedAlone.has(d.message.seq));
      const rest = deliveries.filter((d) => !this.failedAlone.has(d.message.seq));
      let ok = rest.length === 0 || (await this.project(rest, true));
      for (const d of alone) ok = (await this.project([d], false)) && ok;
      return ok;
    } finally {
      clearInterval(keepAlive);
    }
  }

  /** One write of `deliveries`; `adapt`: its outcome sets the next batch size (not for a known bad message). */
  private async project(deliveries: Delivery[], adapt: boolean): Promise<boolean> {
    const { projection, source, sink, stats } = this.deps;
    let rows = 0;
    let skipped: { seq: number; reason: string }[] = [];
    try {
      const messages = deliveries.map((d) => d.message);
      await source.loadBodies(messages);
      const out = projection.apply(messages);
      rows = await writeOutput(sink, out);
      skipped = out.skipped;
    } catch (e) {
      this.fail(deliveries, e, adapt);
      return false;
    }
    for (const d of deliveries) {
      d.ack();
      this.failedAlone.delete(d.message.seq);
      this.suspects.delete(d.message.seq);
    }
    if (adapt && (this.suspects.size === 0 || Date.now() - this.suspectedAt > SUSPECT_MS)) this.forgive();
    stats.consecutiveFailures = 0;
    stats.batches++;
    stats.messages += deliveries.length;
    stats.rows += rows;
    stats.skipped += skipped.length;
    stats.lastBatchAt = Date.now();
    if (skipped.length > 0) this.logger.warn({ msg: 'messages without rows (acknowledged)', projection: projection.name, skipped: skipped.slice(0, 10) });
    return true;
  }

  private fail(deliveries: Delivery[], e: unknown, adapt: boolean) {
    const { stats, projection } = this.deps;
    stats.failures++;
    stats.consecutiveFailures++;
    stats.lastError = errText(e);
    const delay = retryDelayMs(stats.consecutiveFailures);
    if (deliveries.length === 1) {
      // Found: projected alone from now on; its neighbours are no longer suspected, full batches again.
      if (this.failedAlone.size < 10_000) this.failedAlone.add(deliveries[0].message.seq);
      if (adapt) this.forgive();
    } else if (adapt) {
      this.limit = Math.max(1, Math.floor(deliveries.length / 2));
      for (const d of deliveries) this.suspects.add(d.message.seq);
      this.suspectedAt = Date.now();
    }
    const exhausted = deliveries.filter((d) => d.deliveryCount >= this.opts.maxDeliver).map((d) => d.message.seq);
    for (const seq of exhausted) {
      this.failedAlone.delete(seq);
      this.suspects.delete(seq);
    }
    for (const d of deliveries) d.nak(delay);
    this.logger.warn({
      msg: 'projection write failed; redelivering',
      projection: projection.name,
      messages: deliveries.length,
      delayMs: delay,
      err: stats.lastError,
    });
    if (exhausted.length > 0) {
      stats.exhausted += exhausted.length;
      this.logger.error({
        msg: 'messages reached max_deliver and will not be projected; run `projections rebuild` once fixed',
        projection: projection.name,
        seqs: exhausted.slice(0, 20),
      });
    }
  }

  private forgive(): void {
    this.suspects.clear();
    this.limit = undefined;
  }

  /** After a failure: wait the backoff, then until the sink answers. */
  private async waitForSink(signal: AbortSignal) {
    let wait = retryDelayMs(this.deps.stats.consecutiveFailures);
    await this.sleep(wait, signal);
    while (!signal.aborted && !(await this.deps.sink.ready())) {
      wait = Math.min(5000, wait * 2);
      await this.sleep(wait, signal);
    }
  }
}
