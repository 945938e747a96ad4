// `projections rebuild [name]` and `projections status [--json]`.
import { LockHeld, migrateLocked, rebuildLocked } from '../infrastructure/migration-lock';
import { consumerName } from '../projections/consumer-config';
import { JetStreamProjectionSource } from '../projections/jetstream-projection-source';
import type { Projection } from '../projections/projection';
import type { ProjectionLag } from '../projections/projection-ports';
import { PROJECTIONS } from '../projections/projections.registry';
import { describeLeftover, findLeftovers, RebuildLeftover } from '../projections/rebuild/leftovers';
import { ProgressPrinter } from '../projections/rebuild/progress';
import { RebuildStopped, rebuildProjection } from '../projections/rebuild/projection-rebuild';
import { ArgOptions, ArgValues, command, CommandMap, givenValues, parseCommandArgs, unknownOptionWords, UsageError } from './command';

const errText = (e: unknown) => String((e as Error)?.message ?? e);

function select(name: string | undefined): readonly Projection[] {
  if (name === undefined) return PROJECTIONS;
  const p = PROJECTIONS.find((x) => x.name === name);
  if (!p) throw new UsageError(`unknown projection "${name}"; known: ${PROJECTIONS.map((x) => x.name).join(', ')}`);
  return [p];
}

/**
 * Messages per insert of a rebuild unless `--batch` says otherwise: more than the live projector's
 * PROJECTOR_BATCH, which keeps lag low. Replaying 300 000 messages, batches of 2 000 cost ClickHouse
 * 19 s of CPU against 54 s for batches of 500 (fewer, larger parts to merge), and took 32 s instead
 * of 41-73 s.
 */
export const REBUILD_BATCH = 2000;
const REBUILD_USAGE = 'projections rebuild [name] [--batch <1-10000>]';
const STATUS_USAGE = 'projections status [name] [--json]';

const REBUILD_OPTIONS: ArgOptions = { batch: { type: 'string' } };
const STATUS_OPTIONS: ArgOptions = { json: { type: 'boolean' } };

/** A projection command's arguments: at most one positional (the projection's name); any misuse answers the usage. */
function projectionArgs(args: readonly string[], options: ArgOptions, usage: string): { values: ArgValues; name?: string } {
  try {
    const { values, positionals } = parseCommandArgs(args, options);
    if (positionals.length <= 1) return { values, name: positionals[0] };
  } catch (e) {
    if (!(e instanceof UsageError)) throw e;
  }
  throw new UsageError(`usage: ${usage}`);
}

export function parseRebuildArgs(args: readonly string[]): { name?: string; batch: number } {
  // Read leniently first, so that a missing or dash-leading value (`--batch`, `--batch -5`), which
  // strict parsing refuses without naming it, is told what --batch takes too.
  for (const v of givenValues(args, REBUILD_OPTIONS, 'batch')) {
    if (!/^\d{1,5}$/.test(v) || Number(v) < 1 || Number(v) > 10_000)
      throw new UsageError(`--batch takes a whole number from 1 to 10000, not "${v}"\nusage: ${REBUILD_USAGE}`);
  }
  const { values, name } = projectionArgs(args, REBUILD_OPTIONS, REBUILD_USAGE);
  return { name, batch: typeof values.batch === 'string' ? Number(values.batch) : REBUILD_BATCH };
}

/**
 * `projections status` takes a word it does not know as an option (`--bogus`) for the projection's name,
 * so that it is answered as an unknown projection, with the names it could be.
 */
export function parseStatusArgs(args: readonly string[]): { name?: string; json: boolean } {
  const unknown = unknownOptionWords(args, STATUS_OPTIONS);
  const rest = args.filter((_, i) => !unknown.includes(i));
  const { values, name } = projectionArgs(rest, STATUS_OPTIONS, STATUS_USAGE);
  const names = [...(name === undefined ? [] : [name]), ...unknown.map((i) => args[i])];
  if (names.length > 1) throw new UsageError(`usage: ${STATUS_USAGE}`);
  return { name: names[0], json: values.json === true };
}

export const projectionCommands: CommandMap = {
  'projections rebuild': command(REBUILD_USAGE, async (args, ctx) => {
    const { name, batch } = parseRebuildArgs(args);
    const projections = select(name);
    const nats = await ctx.nats();
    const ch = ctx.clickhouse();
    await migrateLocked(ch, nats, ctx.cfg.STREAM_REPLICAS);
    // Ctrl-C (or SIGTERM) stops the replay and drops the fresh tables; once the swap began the
    // rebuild finishes its tail, since stopping there leaves the live tables without it. Again: now.
    const stop = new AbortController();
    const onSignal = (signal: NodeJS.Signals) => {
      if (stop.signal.aborted) process.exit(130);
      stop.abort();
      ctx.stderr.write(`\n${signal}: stopping before the swap (a rebuild already swapping finishes its tail first); again to stop at once\n`);
    };
    process.on('SIGINT', onSignal);
    process.on('SIGTERM', onSignal);
    let stopped = false;
    try {
      for (const p of projections) {
        if ((stopped = stop.signal.aborted)) break;
        const printer = new ProgressPrinter(ctx.stderr);
        try {
          const report = await rebuildLocked(nats, ctx.cfg.STREAM_REPLICAS, p.name, async () => {
            for (const l of await findLeftovers(ch, p)) ctx.stderr.write(`note: ${p.name}: ${describeLeftover(l)}\n`);
            return rebuildProjection(p, nats, ch, {
              batch,
              expiresMs: ctx.cfg.PROJECTOR_FETCH_EXPIRES_MS,
              signal: stop.signal,
              onProgress: (progress, final) => {
                printer.update({ ...progress, phase: `${p.name} ${progress.phase}` }, final);
                if (final) printer.done();
              },
            });
          });
          ctx.stdout.write(JSON.stringify(report) + '\n');
        } catch (e) {
          if (e instanceof LockHeld) throw new Error(`another rebuild of ${p.name} is running (${e.holder}); let it finish, or stop it (Ctrl-C) first`);
          if (!(e instanceof RebuildStopped)) throw e;
          stopped = true;
          ctx.stderr.write(`${e.message}; its fresh tables were dropped, the live ones are unchanged\n`);
        } finally {
          printer.done();
        }
      }
    } finally {
      process.off('SIGINT', onSignal);
      process.off('SIGTERM', onSignal);
    }
    return stopped ? 130 : 0;
  }),

  'projections status': command(STATUS_USAGE, async (args, ctx) => {
    const { json, name } = parseStatusArgs(args);
    const nats = await ctx.nats();
    const rows: { projection: string; consumer: string; lag?: ProjectionLag; error?: string; leftovers?: RebuildLeftover[]; leftoversError?: string }[] = [];
    for (const p of select(name)) {
      const source = new JetStreamProjectionSource(nats, p, ctx.cfg);
      const row: (typeof rows)[number] = { projection: p.name, consumer: consumerName(p) };
      try {
        row.lag = await source.lag();
      } catch (e) {
        row.error = errText(e);
      }
      // Tables of rebuilds that stopped part way (or are running): ClickHouse, not NATS, so apart.
      try {
        row.leftovers = await findLeftovers(ctx.clickhouse(), p);
      } catch (e) {
        row.leftoversError = errText(e);
      }
      rows.push(row);
    }
    if (json) {
      ctx.stdout.write(JSON.stringify(rows) + '\n');
    } else {
      for (const r of rows) {
        const l = r.lag;
        ctx.stdout.write(
          l
            ? `${r.projection}\tconsumer ${r.consumer}\tpending ${l.pending}\tack-pending ${l.ackPending}\tprojected-through ${l.ackFloorSeq}/${l.streamLastSeq}\toldest-unprojected ${l.oldestUnprojectedAgeSeconds.toFixed(1)}s\n`
            : `${r.projection}\tconsumer ${r.consumer}\terror ${r.error}\n`,
        );
        for (const l of r.leftovers ?? []) ctx.stdout.write(`${r.projection}\tleftover ${describeLeftover(l)}\n`);
        if (r.leftoversError) ctx.stdout.write(`${r.projection}\tleftover tables unknown: ${r.leftoversError}\n`);
      }
    }
    return rows.some((r) => r.error) ? 1 : 0;
  }),
};
