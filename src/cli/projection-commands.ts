// `projections rebuild [name]` and `projections status [--json]`.
import { migrate } from '../infrastructure/clickhouse/migrator';
import { consumerName } from '../projections/consumer-config';
import { JetStreamProjectionSource } from '../projections/jetstream-projection-source';
import type { Projection } from '../projections/projection';
import type { ProjectionLag } from '../projections/projection-ports';
import { PROJECTIONS } from '../projections/projections.registry';
import { ProgressPrinter } from '../projections/rebuild/progress';
import { rebuildProjection } from '../projections/rebuild/projection-rebuild';
import { CommandMap, UsageError } from './command';

function select(name: string | undefined): readonly Projection[] {
  if (name === undefined) return PROJECTIONS;
  const p = PROJECTIONS.find((x) => x.name === name);
  if (!p) throw new UsageError(`unknown projection "${name}"; known: ${PROJECTIONS.map((x) => x.name).join(', ')}`);
  return [p];
}

export const projectionCommands: CommandMap = {
  async 'projections rebuild'(args, ctx) {
    if (args.length > 1) throw new UsageError('usage: projections rebuild [name]');
    const projections = select(args[0]);
    const nats = await ctx.nats();
    const ch = ctx.clickhouse();
    await migrate(ch);
    for (const p of projections) {
      const printer = new ProgressPrinter(ctx.stderr);
      try {
        const report = await rebuildProjection(p, nats, ch, {
          batch: ctx.cfg.PROJECTOR_BATCH,
          expiresMs: ctx.cfg.PROJECTOR_FETCH_EXPIRES_MS,
          onProgress: (progress, final) => {
            printer.update({ ...progress, phase: `${p.name} ${progress.phase}` }, final);
            if (final) printer.done();
          },
        });
        ctx.stdout.write(JSON.stringify(report) + '\n');
      } finally {
        printer.done();
      }
    }
  },

  async 'projections status'(args, ctx) {
    const json = args.includes('--json');
    const rest = args.filter((a) => a !== '--json');
    if (rest.length > 1) throw new UsageError('usage: projections status [name] [--json]');
    const nats = await ctx.nats();
    const rows: { projection: string; consumer: string; lag?: ProjectionLag; error?: string }[] = [];
    for (const p of select(rest[0])) {
      const source = new JetStreamProjectionSource(nats, p, ctx.cfg);
      try {
        rows.push({ projection: p.name, consumer: consumerName(p), lag: await source.lag() });
      } catch (e) {
        rows.push({ projection: p.name, consumer: consumerName(p), error: String((e as Error).message ?? e) });
      }
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
      }
    }
    return rows.some((r) => r.error) ? 1 : 0;
  },
};
