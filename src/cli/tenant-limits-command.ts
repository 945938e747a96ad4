// `tapedeck tenants limits <id> [--<limit> <value> …]`: shows a tenant's limits, or changes some
// first (TenantLimitsAdmin over the tenant registry, as the admin API). Values: a whole number,
// with KiB/MiB/GiB/TiB for byte limits; `unlimited` (0); `default` (back to the configured default).
import { TenantLimitsAdmin } from '../admin/tenant-limits-admin.service';
import { LimitsView, updateLimitsSchema } from '../admin/limits.dto';
import { tenantIdSchema } from '../admin/admin.dto';
import { parseWith } from '../common/validation';
import { LIMIT_INFO, LIMIT_NAMES, LimitName } from '../domain/tenant-limits';
import type { ArgOptions, CliContext, CommandMap } from './command';
import { command, parseCommandArgs, UsageError } from './command';
import { CliIo, contextIo, openTenantRegistry, runCli, table } from './tenant-cli-support';

export const LIMITS_USAGE =
  'tenants limits <id> [--ingest-events-per-second V] [--ingest-bytes-per-second V] [--websockets V] [--read-bytes-per-second V] [--stored-bytes V] [--renders V] [--json]' +
  ' (V: a whole number, bytes also with KiB/MiB/GiB/TiB; unlimited; default)';

const OPTIONS: ArgOptions = { ...Object.fromEntries(LIMIT_NAMES.map((n) => [LIMIT_INFO[n].flag, { type: 'string' }])), json: { type: 'boolean' } };
const UNITS: Record<string, number> = { '': 1, kib: 2 ** 10, mib: 2 ** 20, gib: 2 ** 30, tib: 2 ** 40 };

/** A value as given on the command line: null for `default`, 0 for `unlimited`. */
export function limitArgument(name: LimitName, raw: string): number | null | string {
  const v = raw.trim().toLowerCase();
  if (v === 'default') return null;
  if (v === 'unlimited') return 0;
  const m = /^(\d{1,16})\s*(kib|mib|gib|tib)?$/.exec(v);
  const inBytes = LIMIT_INFO[name].unit.startsWith('bytes');
  // Anything else goes to the schema as given, which refuses it naming the limit.
  if (!m || (m[2] !== undefined && !inBytes)) return raw;
  return Number(m[1]) * UNITS[m[2] ?? ''];
}

function print(io: CliIo, v: LimitsView) {
  table(
    io,
    ['LIMIT', 'VALUE', 'SOURCE'],
    LIMIT_NAMES.map((n) => [n, v.limits[n] === 0 ? 'unlimited' : String(v.limits[n]), v.own[n] !== undefined ? 'tenant' : 'default']),
  );
}

/** The command, with the session opener replaceable for tests. */
export function makeTenantLimitsCommand(
  open: (ctx: CliContext) => Promise<{ limits: TenantLimitsAdmin; close(): Promise<void> }> = openLimitsAdmin,
  io?: CliIo,
): CommandMap {
  const name = 'tenants limits';
  return {
    [name]: command(LIMITS_USAGE, (argv, ctx) =>
      runCli(name, LIMITS_USAGE, io ?? contextIo(ctx), () => {
        const { values, positionals } = parseCommandArgs(argv, OPTIONS);
        if (values.help) return 'help';
        if (positionals.length !== 1) throw new UsageError(`expected 1 argument(s), got ${positionals.length}`);
        const id = parseWith(tenantIdSchema, positionals[0], 'arguments: <id>');
        const given = LIMIT_NAMES.filter((n) => typeof values[LIMIT_INFO[n].flag] === 'string');
        const changes = given.length
          ? parseWith(updateLimitsSchema, Object.fromEntries(given.map((n) => [n, limitArgument(n, String(values[LIMIT_INFO[n].flag]))])), 'arguments')
          : undefined;
        return async (cliIo: CliIo) => {
          const session = await open(ctx);
          try {
            const view = changes ? await session.limits.update(id, changes) : session.limits.view(id);
            if (values.json) cliIo.out(JSON.stringify(view));
            else print(cliIo, view);
          } finally {
            await session.close();
          }
        };
      }),
    ),
  };
}

async function openLimitsAdmin(ctx: CliContext) {
  const registry = await openTenantRegistry(ctx);
  return { limits: new TenantLimitsAdmin(registry, ctx.cfg), close: async () => registry.stop() };
}

export const tenantLimitsCommand = makeTenantLimitsCommand();
