// Plumbing of the tenant commands: the TenantAdmin session over the CLI context's NATS connection,
// error-to-exit-code mapping, and plain-text tables. Messages never repeat a key or secret given on
// the command line.
import { TenantAdmin } from '../admin/tenant-admin.service';
import { TenantDeletion, tenantDeletionOver } from '../admin/tenant-deletion';
import { TenantRegistry } from '../auth/tenant-registry';
import { AppError } from '../common/app-error';
import { ValidationError } from '../common/validation';
import type { ArgOptions, ArgValues, CliContext } from './command';
import { UsageError } from './command';

/** One tenant command: its usage, options, number of positionals, and what it does. */
export interface TenantCommandSpec {
  usage: string;
  options: ArgOptions;
  positionals?: number;
  run(v: ArgValues, pos: string[], admin: TenantAdmin, io: CliIo, session: AdminSession): Promise<void>;
}

export interface CliIo {
  out(line: string): void;
  err(line: string): void;
  readStdin(): Promise<string>;
}

export function contextIo(ctx: CliContext): CliIo {
  return {
    out: (line) => void ctx.stdout.write(line + '\n'),
    err: (line) => void ctx.stderr.write(line + '\n'),
    readStdin: async () => {
      const chunks: Buffer[] = [];
      for await (const c of process.stdin) chunks.push(c as Buffer);
      return Buffer.concat(chunks).toString('utf8');
    },
  };
}

export interface AdminSession {
  admin: TenantAdmin;
  /** The tenant deletion over this session's registry (opens ClickHouse). */
  deletion(): TenantDeletion;
  close(): Promise<void>;
}

const LOAD_TIMEOUT_MS = 10_000;

/** Loads the tenant registry over the context's NATS connection (closed by the CLI's main). */
export async function openTenantAdmin(ctx: CliContext): Promise<AdminSession> {
  const registry = await openTenantRegistry(ctx);
  const nats = await ctx.nats();
  return {
    admin: new TenantAdmin(registry, ctx.cfg),
    deletion: () => tenantDeletionOver(nats, ctx.clickhouse(), registry, ctx.cfg.STREAM_REPLICAS),
    close: async () => registry.stop(),
  };
}

/** The tenant registry, loaded (stop() it when done); refuses a NATS without one. */
export async function openTenantRegistry(ctx: CliContext): Promise<TenantRegistry> {
  const registry = new TenantRegistry(await ctx.nats(), ctx.cfg.STREAM_REPLICAS);
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`the tenant registry did not load from NATS within ${LOAD_TIMEOUT_MS / 1000} s`)), LOAD_TIMEOUT_MS);
  });
  try {
    await Promise.race([registry.start({ mustExist: true }), timeout]);
  } finally {
    clearTimeout(timer);
  }
  return registry;
}

/**
 * Runs one command: `prepare` parses the arguments (throwing on misuse) and returns the work, or
 * 'help'. Exit code 0 on success, 2 for usage and validation errors, 1 otherwise.
 */
export async function runCli(name: string, usage: string, io: CliIo, prepare: () => 'help' | ((io: CliIo) => Promise<void>)): Promise<number> {
  try {
    const work = prepare();
    if (work === 'help') {
      io.out(`usage: tapedeck ${usage}`);
      return 0;
    }
    await work(io);
    return 0;
  } catch (e) {
    const usageError = e instanceof UsageError;
    io.err(`tapedeck ${name}: ${e instanceof Error ? e.message : String(e)}`);
    if (usageError) io.err(`usage: tapedeck ${usage}`);
    const invalid = usageError || e instanceof ValidationError || (e instanceof AppError && e.code === 'bad_request');
    return invalid ? 2 : 1;
  }
}

/** Left-aligned columns separated by two spaces. */
export function table(io: CliIo, header: string[], rows: string[][]): void {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)));
  for (const r of [header, ...rows]) io.out(r.map((c, i) => (i === r.length - 1 ? c : c.padEnd(widths[i]))).join('  '));
}
