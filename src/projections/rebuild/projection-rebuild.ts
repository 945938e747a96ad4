// Rebuilds a projection from the stream while the service keeps answering from the live tables:
//   1. fresh tables `<table>_rebuild_<ts>` AS the live ones;
//   2. replay [1, last seq at start] into them with an ordered consumer;
//   3. swap table by table, one RENAME each (live → `<table>_old_<ts>`, fresh → live; see
//      rebuild-sql.ts for why not one RENAME of all), so for those moments reads may see some
//      tables swapped and others not: they differ only by what the tail restores next;
//   4. replay the tail (last seq at start, last seq after the swap] into the now live tables: rows the
//      live projector wrote into the old tables during the rebuild are lost at the swap, and the
//      tail holds every one of their messages; re-applying is harmless, rows are versioned by seq;
//   5. drop the old tables.
// The live durable consumer is not touched. On a failure before the swap the fresh tables are dropped;
// once a RENAME was sent they are left alone (a RENAME the client gave up on may still run).
import { Logger } from '@nestjs/common';
import type { ClickHouse } from '../../infrastructure/clickhouse/clickhouse-client';
import type { NatsClient } from '../../infrastructure/nats/nats-connection';
import { ALL_RECORDINGS, EVENTS_STREAM } from '../../infrastructure/nats/subjects';
import { retryDelayMs } from '../backoff';
import { loadBodies } from '../body-loader';
import { ClickHouseProjectionSink } from '../clickhouse-projection-sink';
import type { Projection } from '../projection';
import type { ProjectionSink } from '../projection-ports';
import { abortableSleep } from '../projector-runner';
import { writeOutput } from '../write-output';
import type { RebuildProgress } from './progress';
import { createLike, dropTable, freshName, retiredName, swapTable } from './rebuild-sql';
import { readRange } from './stream-range-reader';

export interface RebuildOptions {
  batch: number;
  expiresMs: number;
  onProgress?: (p: RebuildProgress, final: boolean) => void;
  logger?: Pick<Logger, 'log' | 'warn'>;
  /** Stops the replay before the swap (the fresh tables are dropped, RebuildStopped thrown); ignored once the swap began. */
  signal?: AbortSignal;
}

/** The rebuild was stopped through `signal` before its swap; the live tables are as they were. */
export class RebuildStopped extends Error {}

export interface RebuildReport {
  projection: string;
  tables: readonly string[];
  /** Messages replayed into the fresh tables, and the last sequence of that range. */
  replayed: number;
  toSeq: number;
  /** Messages the stream held at the start (checked against `replayed` when the filter covers the stream). */
  expected?: number;
  tail: number;
  tailToSeq: number;
  rows: number;
  skipped: number;
  seconds: number;
}

const WRITE_ATTEMPTS = 6;

export async function rebuildProjection(p: Projection, nats: NatsClient, ch: ClickHouse, opts: RebuildOptions): Promise<RebuildReport> {
  const logger = opts.logger ?? new Logger('rebuild');
  const started = Date.now();
  const suffix = String(started);
  const report: RebuildReport = { projection: p.name, tables: p.tables, replayed: 0, toSeq: 0, tail: 0, tailToSeq: 0, rows: 0, skipped: 0, seconds: 0 };
  for (const t of p.tables) await ch.command(createLike(freshName(t, suffix), t));
  let swapping = false;
  try {
    const start = await nats.jsm.streams.info(EVENTS_STREAM);
    report.toSeq = start.state.last_seq;
    if (p.filterSubject === ALL_RECORDINGS) report.expected = start.state.messages;
    const fresh = new ClickHouseProjectionSink(ch, (t) => freshName(t, suffix));
    report.replayed = await replay(p, nats, fresh, 1, report.toSeq, 'rebuild', opts, report);
    if (report.expected !== undefined && report.replayed < report.expected) {
      logger.warn({
        msg: 'replayed fewer messages than the stream held at the start (removed meanwhile?)',
        projection: p.name,
        replayed: report.replayed,
        expected: report.expected,
      });
    }
    if (opts.signal?.aborted) throw new RebuildStopped(`${p.name}: stopped before its swap`);
    swapping = true;
    await swapIn(ch, p.tables, suffix);
    report.tailToSeq = (await nats.jsm.streams.info(EVENTS_STREAM)).state.last_seq;
    report.tail = await replay(p, nats, new ClickHouseProjectionSink(ch), report.toSeq + 1, report.tailToSeq, 'tail', opts, report);
    for (const t of p.tables) await ch.command(dropTable(retiredName(t, suffix)));
  } catch (e) {
    if (!swapping) for (const t of p.tables) await ch.command(dropTable(freshName(t, suffix))).catch(() => undefined);
    throw e;
  }
  report.seconds = (Date.now() - started) / 1000;
  return report;
}

/** Fresh tables in, live ones out (renamed `<table>_old_<suffix>`), one table at a time. */
export async function swapIn(ch: ClickHouse, tables: readonly string[], suffix: string): Promise<void> {
  for (const t of tables) await ch.command(swapTable(t, suffix));
}

async function replay(
  p: Projection,
  nats: NatsClient,
  sink: ProjectionSink,
  from: number,
  to: number,
  phase: string,
  opts: RebuildOptions,
  report: RebuildReport,
): Promise<number> {
  if (from > to) return 0;
  const started = Date.now();
  let read = 0;
  let seq = from - 1;
  const progress = (final: boolean) =>
    opts.onProgress?.({ phase, read, seq: final ? Math.max(seq, to) : seq, fromSeq: from, toSeq: to, elapsedMs: Date.now() - started }, final);
  const batches = readRange(nats, p.filterSubject, from, to, opts.batch, opts.expiresMs);
  // The next fetch runs while this batch is written (its rejection is handled where it is awaited).
  const ahead = () => {
    const n = batches.next();
    n.catch(() => undefined);
    return n;
  };
  let next = ahead();
  try {
    for (let r = await next; !r.done; r = await next) {
      if (phase === 'rebuild' && opts.signal?.aborted) throw new RebuildStopped(`${p.name}: stopped before its swap`);
      const batch = r.value;
      next = ahead();
      await loadBodies(nats, batch, p);
      const out = p.apply(batch);
      for (let attempt = 1; ; attempt++) {
        try {
          report.rows += await writeOutput(sink, out);
          break;
        } catch (e) {
          if (attempt >= WRITE_ATTEMPTS) throw e;
          await abortableSleep(retryDelayMs(attempt));
        }
      }
      report.skipped += out.skipped.length;
      read += batch.length;
      seq = batch[batch.length - 1].streamSeq ?? batch[batch.length - 1].seq;
      progress(false);
    }
  } finally {
    await next.catch(() => undefined);
    await batches.return(undefined);
  }
  progress(true);
  return read;
}
