// `recordings seal <tenantId> <recordingId>…` (seal now, whatever the idle time) and
// `recordings archives [--json]` (seal states: sealed, sealing, failed; bytes before and after).
import { sealerFor } from '../archives/sealer-factory';
import { SealStates } from '../infrastructure/nats/seal-states';
import { ArgOptions, command, CommandMap, parseCommandArgs, UsageError } from './command';

const SEAL_USAGE = 'recordings seal <tenantId> <recordingId> [<recordingId>…] [--json]';
const STATUS_USAGE = 'recordings archives [--json]';
const JSON_OPTION: ArgOptions = { json: { type: 'boolean' } };
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

export const archiveCommands: CommandMap = {
  'recordings seal': command(SEAL_USAGE, async (args, ctx) => {
    const { values, positionals } = parseCommandArgs(args, JSON_OPTION);
    const [tenantId, ...ids] = positionals;
    if (!tenantId || ids.length === 0 || !/^[A-Za-z0-9_-]+$/.test(tenantId) || !ids.every((id) => UUID.test(id))) throw new UsageError(`usage: ${SEAL_USAGE}`);
    const sealer = sealerFor(await ctx.nats(), ctx.cfg);
    let failed = 0;
    for (const recordingId of ids) {
      try {
        const outcome = await sealer.seal(tenantId, recordingId);
        ctx.stdout.write(values.json ? `${JSON.stringify({ recordingId, ...outcome })}\n` : `${recordingId}: ${describe(outcome)}\n`);
      } catch (e) {
        failed++;
        ctx.stderr.write(`${recordingId}: failed: ${String((e as Error).message)}\n`);
      }
    }
    return failed > 0 ? 1 : 0;
  }),

  'recordings archives': command(STATUS_USAGE, async (args, ctx) => {
    const { values, positionals } = parseCommandArgs(args, JSON_OPTION);
    if (positionals.length > 0) throw new UsageError(`usage: ${STATUS_USAGE}`);
    const states = await new SealStates(await ctx.nats(), ctx.cfg.STREAM_REPLICAS).all();
    const sum = { sealed: 0, sealing: 0, failed: 0, rawBytes: 0, archiveBytes: 0 };
    for (const s of states.values()) {
      sum[s.state]++;
      if (s.state === 'sealed') {
        sum.rawBytes += s.rawBytes ?? 0;
        sum.archiveBytes += s.archiveBytes ?? 0;
      }
    }
    if (values.json) ctx.stdout.write(`${JSON.stringify(sum)}\n`);
    else {
      const ratio = sum.rawBytes > 0 ? ` (${((100 * sum.archiveBytes) / sum.rawBytes).toFixed(1)} %)` : '';
      ctx.stdout.write(
        `sealed ${sum.sealed}, sealing (under way or cut short) ${sum.sealing}, failed ${sum.failed}\n` +
          `event bytes before ${sum.rawBytes}, archive bytes after ${sum.archiveBytes}${ratio}\n`,
      );
    }
  }),
};

function describe(o: Awaited<ReturnType<ReturnType<typeof sealerFor>['seal']>>): string {
  switch (o.status) {
    case 'sealed':
      return `sealed into ${o.archive}: ${o.batches} batches, ${o.rawBytes} bytes → ${o.archiveBytes} bytes`;
    case 'unchanged':
      return `already sealed (${o.archive})`;
    case 'empty':
      return 'no events (nothing to seal)';
    case 'busy':
      return 'a batch arrived while sealing: not sealed, try again later';
    case 'deleted':
      return 'deleted while sealing: nothing kept';
  }
}
