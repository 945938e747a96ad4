// A tenant's lifecycle from the command line: suspend, resume, status, and delete (which runs the
// whole deletion in this process, step by step on stderr, and finishes one cut short when run again).
import { tenantIdSchema } from '../admin/admin.dto';
import type { Tenant } from '../auth/tenant-records';
import { parseWith } from '../common/validation';
import { UsageError } from './command';
import type { TenantCommandSpec } from './tenant-cli-support';

const json = { json: { type: 'boolean' } } as const;
const idOf = (id: string) => parseWith(tenantIdSchema, id, 'arguments: <id>');
const date = (ms: number) => new Date(ms).toISOString();

/** The STATUS column: active, suspended, or deleting:<step> (with "stopped" when its last run failed). */
export function statusOf(t: Tenant): string {
  if (t.status !== 'deleting') return t.status ?? 'active';
  return `deleting:${t.deletion?.step ?? 'refuse'}${t.deletion?.error ? ' (stopped; run tenants delete again)' : ''}`;
}

/** Progress lines on stderr: each step, and the stream step's count at most once a second. */
function progressPrinter(err: (line: string) => void) {
  let last = 0;
  return ({ step, messages }: { step: string; messages?: number }) => {
    if (messages === undefined) return err(`${step}…`);
    if (Date.now() - last < 1000) return;
    last = Date.now();
    err(`${step}: ${messages} messages deleted`);
  };
}

export const lifecycleSpecs: Record<string, TenantCommandSpec> = {
  'tenants status': {
    usage: 'tenants status <id> [--json]',
    options: { ...json },
    positionals: 1,
    async run(v, [id], admin, io) {
      const t = admin.getTenant(idOf(id));
      if (v.json) return io.out(JSON.stringify(t));
      io.out(`tenant ${t.id}: ${statusOf(t)}${t.statusSince ? ` since ${date(t.statusSince)}` : ''}`);
      if (t.deletion?.error) io.out(`last run stopped at step ${t.deletion.step}: ${t.deletion.error}`);
    },
  },
  'tenants suspend': {
    usage: 'tenants suspend <id> [--json]',
    options: { ...json },
    positionals: 1,
    async run(v, [id], admin, io) {
      const t = await admin.suspend(idOf(id));
      if (v.json) return io.out(JSON.stringify(t));
      io.out(`tenant ${t.id} is suspended: its keys and links are refused (403); its data is kept`);
    },
  },
  'tenants resume': {
    usage: 'tenants resume <id> [--json]',
    options: { ...json },
    positionals: 1,
    async run(v, [id], admin, io) {
      const t = await admin.resume(idOf(id));
      if (v.json) return io.out(JSON.stringify(t));
      io.out(`tenant ${t.id} is active`);
    },
  },
  'tenants delete': {
    usage: 'tenants delete <id> --yes [--json]',
    options: { yes: { type: 'boolean' }, ...json },
    positionals: 1,
    async run(v, [raw], admin, io, session) {
      const id = idOf(raw);
      if (!v.yes) throw new UsageError(`deleting tenant ${id} removes all of its data for good: add --yes`);
      admin.getTenant(id); // 404 (exit 1) before anything else
      try {
        const report = await session.deletion().run(id, progressPrinter(io.err));
        if (v.json) return io.out(JSON.stringify(report));
        io.out(`deleted tenant ${id}: ${report.messages} stream messages, rows in ${report.tables.length} tables (${report.seconds.toFixed(1)} s)`);
      } catch (e) {
        throw new Error(`${(e as Error)?.message ?? String(e)}\nthe tenant stays refused; run \`tapedeck tenants delete ${id} --yes\` again to finish`);
      }
    },
  },
};
