// Runs one projection over its durable consumer. A batch is what has arrived within the linger
// after its first message (a full batch at once when that many are pending), so a quiet stream is
// projected within about the linger plus one insert and a busy one in large batches. Contract: a
// fetched batch is applied, written with one insert per table (then its deletions), and only then
// is every message acknowledged. If anything fails, every message of the batch is nak'ed with a
// growing delay (never term'ed: an outage must not become data loss), fetching pauses until
// ClickHouse answers again (so an outage does not use up max_deliver), and the next messages are
// taken one at a time so that one bad message cannot hold back the rest. A failing fetch (consumer
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

export class ProjectorRunner {
  /** Messages still to be fetched one at a time after a failed batch. */
  private isolate = 0;
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
        const deliveries = await source.fetch(this.isolate > 0 ? 1 : this.opts.batch, { expiresMs: this.opts.expiresMs, lingerMs: this.opts.lingerMs });
        fetchFailures = 0;
        if (deliveries.length > 0) await this.handle(deliveries);
      } catch (e) {
        fetchFailures++;
        needsEnsure = true;
        this.logger.warn({ msg: 'projector fetch failed; re-ensuring the consumer', projection: projection.name, attempt: fetchFailures, err: errText(e) });
        await this.sleep(retryDelayMs(fetchFailures), signal);
      }
    }
  }

  /** Projects, writes and settles one fetched batch. Never throws; true when written and acked. */
  async handle(deliveries: Delivery[]): Promise<boolean> {
    const { projection, source, sink, stats } = this.deps;
    const keepAlive = setInterval(() => deliveries.forEach((d) => d.working()), this.opts.workingIntervalMs ?? 10_000);
    let rows = 0;
    let skipped: { seq: number; reason: string }[] = [];
    try {
      const messages = deliveries.map((d) => d.message);
      await source.loadBodies(messages);
      const out = projection.apply(messages);
      rows = await writeOutput(sink, out);
      skipped = out.skipped;
    } catch (e) {
      this.fail(deliveries, e);
      return false;
    } finally {
      clearInterval(keepAlive);
    }
    for (const d of deliveries) d.ack();
    if (this.isolate > 0) this.isolate--;
    stats.consecutiveFailures = 0;
    stats.batches++;
    stats.messages += deliveries.length;
    stats.rows += rows;
    stats.skipped += skipped.length;
    stats.lastBatchAt = Date.now();
    if (skipped.length > 0) this.logger.warn({ msg: 'messages without rows (acknowledged)', projection: projection.name, skipped: skipped.slice(0, 10) });
    return true;
  }

  private fail(deliveries: Delivery[], e: unknown) {
    const { stats, projection } = this.deps;
    stats.failures++;
    stats.consecutiveFailures++;
    stats.lastError = errText(e);
    const delay = retryDelayMs(stats.consecutiveFailures);
    this.isolate = deliveries.length > 1 ? Math.max(this.isolate, deliveries.length) : Math.max(0, this.isolate - 1);
    const exhausted = deliveries.filter((d) => d.deliveryCount >= this.opts.maxDeliver).map((d) => d.message.seq);
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
