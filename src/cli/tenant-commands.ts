// Tenant, key and signing-key administration from the command line, over the CLI context's NATS
// connection (configured by loadConfig() in main): TenantAdmin over TenantRegistry, the same code path
// as the bootstrap and the admin API. Keys and generated secrets are printed once, alone on stdout
// (scriptable); notes go to stderr. Exit codes: 0 ok, 1 operation failed, 2 usage or bad input.
import 'reflect-metadata';
import { hashKey, keyHandle, kindOfKey } from '../auth/key-material';
import { createKeySchema, createSigningKeySchema, createTenantSchema, signingKeyIdSchema, tenantIdSchema, updateTenantSchema } from '../admin/admin.dto';
import { LinkResource, recordingScope, replayScope } from '../admin/presigned-link';
import { parseWith } from '../common/validation';
import type { ArgValues, CliContext, CommandMap } from './command';
import { command, parseCommandArgs, UsageError } from './command';
import { AdminSession, CliIo, contextIo, openTenantAdmin, runCli, TenantCommandSpec as Spec, table } from './tenant-cli-support';
import { lifecycleSpecs, statusOf } from './tenant-lifecycle-commands';

const tenant = { tenant: { type: 'string' } } as const;
const json = { json: { type: 'boolean' } } as const;
const str = (v: unknown) => (typeof v === 'string' ? v : undefined);
const tenantOf = (v: ArgValues) => parseWith(tenantIdSchema, need(v, 'tenant'), 'arguments: --tenant');
const date = (ms: number) => new Date(ms).toISOString();
const num = (v: unknown) => (typeof v === 'string' ? Number(v) : undefined);

function need(v: ArgValues, name: string): string {
  const s = str(v[name]);
  if (s === undefined) throw new UsageError(`--${name} is required`);
  return s;
}

const specs: Record<string, Spec> = {
  'tenants create': {
    usage: 'tenants create <id> [--name N] [--retention-days D] [--json]',
    options: { name: { type: 'string' }, 'retention-days': { type: 'string' }, ...json },
    positionals: 1,
    async run(v, [id], admin, io) {
      const input = parseWith(createTenantSchema, { id, name: str(v.name), retentionDays: num(v['retention-days']) }, 'arguments');
      const r = await admin.createTenant(input);
      if (v.json) return io.out(JSON.stringify(r));
      io.out(r.created ? `created tenant ${r.tenant.id}` : `tenant ${r.tenant.id} already exists; unchanged`);
      if (!r.created && input.retentionDays !== undefined && input.retentionDays !== r.tenant.retentionDays)
        io.err(`to change its retention: tapedeck tenants update ${r.tenant.id} --retention-days ${input.retentionDays}`);
    },
  },
  'tenants update': {
    usage: 'tenants update <id> --retention-days <1-36500|0|none> [--json]',
    options: { 'retention-days': { type: 'string' }, ...json },
    positionals: 1,
    async run(v, [id], admin, io) {
      const days = need(v, 'retention-days');
      const input = parseWith(
        updateTenantSchema,
        { retentionDays: days === 'none' ? null : /^\d{1,9}$/.test(days) ? Number(days) : days },
        'arguments: --retention-days',
      );
      const t = await admin.updateTenant(parseWith(tenantIdSchema, id, 'arguments: <id>'), input);
      if (v.json) return io.out(JSON.stringify(t));
      io.out(
        t.retentionDays
          ? `tenant ${t.id}: recordings are deleted ${t.retentionDays} days after their last write`
          : `tenant ${t.id}: no retention period; recordings are kept until deleted`,
      );
    },
  },
  'tenants list': {
    usage: 'tenants list [--json]',
    options: { ...json },
    async run(v, _p, admin, io) {
      const ts = admin.listTenants();
      if (v.json) return io.out(JSON.stringify(ts));
      table(
        io,
        ['ID', 'NAME', 'RETENTION_DAYS', 'CREATED', 'STATUS'],
        ts.map((t) => [t.id, t.name, String(t.retentionDays ?? '-'), date(t.createdAt), statusOf(t)]),
      );
    },
  },
  'keys create': {
    usage: 'keys create --tenant T --kind public|secret [--allowed-origin O ...] [--json]',
    options: { ...tenant, kind: { type: 'string' }, 'allowed-origin': { type: 'string', multiple: true }, ...json },
    async run(v, _p, admin, io) {
      const origins = v['allowed-origin'] as string[] | undefined;
      const input = parseWith(createKeySchema, { kind: need(v, 'kind'), ...(origins ? { allowedOrigins: origins } : {}) }, 'arguments');
      const r = await admin.createKey(tenantOf(v), input);
      if (v.json) return io.out(JSON.stringify(r));
      io.out(r.key);
      io.err(`created ${r.kind} key ${r.handle} for tenant ${r.tenantId}; the key above is shown only this once`);
    },
  },
  'keys list': {
    usage: 'keys list --tenant T [--json]',
    options: { ...tenant, ...json },
    async run(v, _p, admin, io) {
      const ks = admin.listKeys(tenantOf(v));
      if (v.json) return io.out(JSON.stringify(ks));
      table(
        io,
        ['HANDLE', 'KIND', 'CREATED', 'ALLOWED_ORIGINS'],
        ks.map((k) => [k.handle, k.kind, date(k.createdAt), k.allowedOrigins?.join(',') ?? '*']),
      );
    },
  },
  'keys revoke': {
    usage: 'keys revoke --tenant T <key-or-handle>',
    options: { ...tenant },
    positionals: 1,
    async run(v, [keyOrHandle], admin, io) {
      await admin.revokeKey(tenantOf(v), keyOrHandle);
      io.out(`revoked key ${kindOfKey(keyOrHandle) ? keyHandle(hashKey(keyOrHandle)) : keyOrHandle}`);
    },
  },
  'signing-keys create': {
    usage: 'signing-keys create --tenant T --key-id K [--secret S | --secret-stdin] [--json]',
    options: { ...tenant, 'key-id': { type: 'string' }, secret: { type: 'string' }, 'secret-stdin': { type: 'boolean' }, ...json },
    async run(v, _p, admin, io) {
      if (v.secret !== undefined && v['secret-stdin']) throw new UsageError('give --secret or --secret-stdin, not both');
      const secret = v['secret-stdin'] ? (await io.readStdin()).replace(/\r?\n$/, '') : str(v.secret);
      const input = parseWith(createSigningKeySchema, { keyId: need(v, 'key-id'), ...(secret !== undefined ? { secret } : {}) }, 'arguments');
      const r = await admin.createSigningKey(tenantOf(v), input);
      if (v.json) return io.out(JSON.stringify(r));
      const what = `signing key ${r.signingKey.keyId} for tenant ${r.signingKey.tenantId}`;
      if (r.secret === undefined) return io.out(r.created ? `created ${what}` : `${what} already exists with this secret; unchanged`);
      io.out(r.secret);
      io.err(`created ${what}; the secret above is shown only this once`);
    },
  },
  'signing-keys list': {
    usage: 'signing-keys list --tenant T [--json]',
    options: { ...tenant, ...json },
    async run(v, _p, admin, io) {
      const ks = admin.listSigningKeys(tenantOf(v));
      if (v.json) return io.out(JSON.stringify(ks));
      table(
        io,
        ['KEY_ID', 'CREATED'],
        ks.map((k) => [k.keyId, date(k.createdAt)]),
      );
    },
  },
  'signing-keys revoke': {
    usage: 'signing-keys revoke --tenant T --key-id K',
    options: { ...tenant, 'key-id': { type: 'string' } },
    async run(v, _p, admin, io) {
      const keyId = parseWith(signingKeyIdSchema, need(v, 'key-id'), 'arguments: --key-id');
      await admin.revokeSigningKey(tenantOf(v), keyId);
      io.out(`revoked signing key ${keyId}`);
    },
  },
  sign: {
    usage:
      'sign --tenant T (--recording <uuid> | --replay <groupingProp>/<replayValue>) [--ttl S] [--key-id K]\n' +
      '       [--resource events|player|screenshot|detail (recording) | replay|events (replay)] [--json]',
    options: {
      ...tenant,
      recording: { type: 'string' },
      replay: { type: 'string' },
      ttl: { type: 'string' },
      'key-id': { type: 'string' },
      resource: { type: 'string' },
      ...json,
    },
    async run(v, _p, admin, io) {
      if ((v.recording === undefined) === (v.replay === undefined)) throw new UsageError('give exactly one of --recording or --replay');
      const scope = v.recording !== undefined ? recordingScope(String(v.recording)) : replayScope(String(v.replay));
      if (v.ttl !== undefined && !/^\d{1,9}$/.test(String(v.ttl))) throw new UsageError('--ttl must be a whole number of seconds');
      const link = admin.signLink({
        tenantId: tenantOf(v),
        scope,
        keyId: str(v['key-id']),
        ttlSeconds: num(v.ttl),
        resource: str(v.resource) as LinkResource | undefined,
      });
      if (v.json) return io.out(JSON.stringify(link));
      io.out(link.url);
      io.err(`signed with ${link.keyId}; expires ${date(link.expires * 1000)}`);
    },
  },
};

/** The tenant commands for the CLI's command map; `open` and `io` are replaceable for tests. */
export function makeTenantCommands(open: (ctx: CliContext) => Promise<AdminSession> = openTenantAdmin, io?: CliIo): CommandMap {
  return Object.fromEntries(
    Object.entries({ ...specs, ...lifecycleSpecs }).map(([name, spec]) => [
      name,
      command(spec.usage, (argv, ctx) =>
        runCli(name, spec.usage, io ?? contextIo(ctx), () => {
          const { values, positionals } = parseCommandArgs(argv, spec.options);
          if (values.help) return 'help';
          if (positionals.length !== (spec.positionals ?? 0)) throw new UsageError(`expected ${spec.positionals ?? 0} argument(s), got ${positionals.length}`);
          return async (cliIo: CliIo) => {
            const session = await open(ctx);
            try {
              await spec.run(values, positionals, session.admin, cliIo, session);
            } finally {
              await session.close();
            }
          };
        }),
      ),
    ]),
  );
}

export const tenantCommands = makeTenantCommands();
