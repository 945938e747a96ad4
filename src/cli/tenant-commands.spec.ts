import { TenantAdmin } from '../admin/tenant-admin.service';
import { TenantDeletion } from '../admin/tenant-deletion';
import { sign } from '../auth/presign';
import { MemoryKv, memoryNats } from '../auth/testing/memory-kv';
import { TenantRegistry } from '../auth/tenant-registry';
import type { CliContext } from './command';
import type { CliIo } from './tenant-cli-support';
import { makeTenantCommands } from './tenant-commands';

const RID = '0b0e7f2c-1d2e-4f60-8a9b-0c1d2e3f4a5b';
const cfg = { PRESIGN_MAX_TTL_SECONDS: 3600, PRESIGN_DEFAULT_TTL_SECONDS: 600, PUBLIC_BASE_URL: '' };

async function cli(stdin = '') {
  const registry = new TenantRegistry(memoryNats(new MemoryKv()));
  await registry.start();
  const admin = new TenantAdmin(registry, cfg);
  let opened = 0;
  const out: string[] = [];
  const err: string[] = [];
  const io: CliIo = { out: (l) => void out.push(l), err: (l) => void err.push(l), readStdin: async () => stdin };
  const erased: string[] = [];
  const deletion = new TenantDeletion(
    {
      registry,
      stream: { erase: async () => ({ deleted: 3, throughSeq: 10 }) },
      projections: { awaitPast: async () => undefined, erase: async () => ['recordings'] },
      archives: [],
      entries: { erase: async (id) => (erased.push(id), 0) },
    },
    0,
  );
  const cmds = makeTenantCommands(async () => (opened++, { admin, deletion: () => deletion, close: async () => undefined }), io);
  const run = async (line: string) => {
    out.length = 0;
    err.length = 0;
    const [a, b, ...rest] = line.split(' ');
    const name = cmds[`${a} ${b}`] ? `${a} ${b}` : a;
    const argv = cmds[`${a} ${b}`] ? rest : [b, ...rest].filter((x) => x !== undefined);
    const code = await cmds[name](argv, {} as CliContext);
    return { code, out: [...out], err: [...err] };
  };
  return { run, registry, opened: () => opened, erased };
}

describe('tenant commands', () => {
  it('creates and lists tenants', async () => {
    const { run } = await cli();
    expect(await run('tenants create acme --name Acme --retention-days 30')).toMatchObject({ code: 0, out: ['created tenant acme'] });
    expect(await run('tenants create acme')).toMatchObject({ code: 0, out: ['tenant acme already exists; unchanged'] });
    const list = await run('tenants list');
    expect(list.out[0]).toMatch(/^ID\s+NAME\s+RETENTION_DAYS\s+CREATED\s+STATUS$/);
    expect(list.out[1]).toMatch(/^acme\s+Acme\s+30\s+\d{4}-\S+\s+active$/);
    expect(JSON.parse((await run('tenants list --json')).out[0])).toEqual([expect.objectContaining({ id: 'acme', retentionDays: 30 })]);
  });

  it("changes a tenant's retention with tenants update, and points there from tenants create", async () => {
    const { run, registry } = await cli();
    await run('tenants create gamma');
    expect(await run('tenants create gamma --retention-days 5')).toMatchObject({
      code: 0,
      out: ['tenant gamma already exists; unchanged'],
      err: [expect.stringContaining('tenants update gamma --retention-days 5')],
    });
    expect(await run('tenants update gamma --retention-days 5')).toMatchObject({
      code: 0,
      out: ['tenant gamma: recordings are deleted 5 days after their last write'],
    });
    expect(registry.tenant('gamma')?.retentionDays).toBe(5);
    expect(JSON.parse((await run('tenants update gamma --retention-days 30 --json')).out[0])).toMatchObject({ id: 'gamma', retentionDays: 30 });
    for (const none of ['none', '0']) {
      await run('tenants update gamma --retention-days 7');
      expect(await run(`tenants update gamma --retention-days ${none}`)).toMatchObject({
        code: 0,
        out: ['tenant gamma: no retention period; recordings are kept until deleted'],
      });
      expect(registry.tenant('gamma')?.retentionDays).toBeUndefined();
    }
    expect(await run('tenants update ghost --retention-days 5')).toMatchObject({ code: 1, err: [expect.stringMatching(/No tenant ghost/)] });
    expect((await run('tenants update --help')).out).toEqual(['usage: tapedeck tenants update <id> --retention-days <1-36500|0|none> [--json]']);
  });

  it('prints a new key alone on stdout, once, and lists handles only', async () => {
    const { run, registry } = await cli();
    await run('tenants create acme');
    const created = await run('keys create --tenant acme --kind public --allowed-origin https://a.test --allowed-origin https://b.test');
    expect(created.code).toBe(0);
    expect(created.out).toHaveLength(1);
    const key = created.out[0];
    expect(registry.authenticate(key)).toMatchObject({ kind: 'public', allowedOrigins: ['https://a.test', 'https://b.test'] });
    expect(created.err.join('\n')).toMatch(/shown only this once/);
    expect(created.err.join('\n')).not.toContain(key);
    const list = await run('keys list --tenant acme');
    expect(list.out.join('\n')).not.toContain(key);
    expect(list.out[1]).toMatch(/^[0-9a-f]{16}\s+public\s+\S+\s+https:\/\/a.test,https:\/\/b.test$/);
    expect(await run(`keys revoke --tenant acme ${key}`)).toMatchObject({ code: 0, out: [expect.not.stringContaining(key)] });
    expect(registry.authenticate(key)).toBeNull();
    expect((await run(`keys revoke --tenant acme ${key}`)).code).toBe(1);
  });

  it('generates a signing secret (printed once), takes one from stdin, and signs verifiable links', async () => {
    const { run } = await cli('from-stdin-secret-0123\n');
    await run('tenants create acme');
    const gen = await run('signing-keys create --tenant acme --key-id k1');
    expect(gen.code).toBe(0);
    expect(gen.out).toEqual([expect.stringMatching(/^[A-Za-z0-9_-]{40,}$/)]);
    expect(await run('signing-keys create --tenant acme --key-id k1')).toMatchObject({ code: 1, err: [expect.stringMatching(/already exists/)] });
    expect(await run('signing-keys create --tenant acme --key-id k2 --secret-stdin')).toMatchObject({
      code: 0,
      out: ['created signing key k2 for tenant acme'],
    });
    const link = await run(`sign --tenant acme --recording ${RID} --key-id k2 --ttl 60 --resource player`);
    expect(link.code).toBe(0);
    const url = new URL(link.out[0], 'http://x');
    expect(url.pathname).toBe(`/recordings/${RID}/player`);
    const expires = Number(url.searchParams.get('expires'));
    expect(url.searchParams.get('signature')).toBe(sign('from-stdin-secret-0123', { kind: 'recording', recordingId: RID }, 'acme', expires));
    const replay = await run('sign --tenant acme --replay userId/u-1');
    expect(new URL(replay.out[0], 'http://x').pathname).toBe('/replays/userId/u-1');
    expect((await run('signing-keys list --tenant acme')).out.join('\n')).not.toMatch(/from-stdin|[A-Za-z0-9_-]{40,}/);
    expect((await run('signing-keys revoke --tenant acme --key-id k1')).code).toBe(0);
    expect((await run('signing-keys revoke --tenant acme --key-id k1')).code).toBe(1);
  });

  it.each([
    'tenants create',
    'tenants create a b',
    'tenants create acme --bogus',
    'tenants create acme --retention-days x',
    'tenants create a.b',
    'tenants update acme',
    'tenants update --retention-days 5',
    'tenants update acme --retention-days x',
    'tenants update acme --retention-days -1',
    'tenants update acme --retention-days 36501',
    'tenants update a.b --retention-days 5',
    'keys create --kind public',
    'keys create --tenant acme --kind root',
    'keys create --tenant acme --kind public --allowed-origin https://a.test/',
    'signing-keys create --tenant acme --key-id k --secret short',
    'signing-keys create --tenant acme --key-id k --secret abcdefghijklmnopq --secret-stdin',
    'sign --tenant acme',
    `sign --tenant acme --recording ${RID} --replay a/b`,
    'sign --tenant acme --recording not-a-uuid',
    `sign --tenant acme --recording ${RID} --ttl 1h`,
    `sign --tenant acme --recording ${RID} --ttl 3601`,
  ])('answers exit code 2 with usage or a reason for: %s', async (line) => {
    const { run } = await cli();
    await run('tenants create acme');
    await run('signing-keys create --tenant acme --key-id k0');
    const r = await run(line);
    expect(r.code).toBe(2);
    expect(r.err.join('\n')).toMatch(/\S/);
    expect(r.out).toEqual([]);
  });

  it('suspends, resumes, shows the status and deletes (only with --yes) a tenant', async () => {
    const { run, registry, erased } = await cli();
    await run('tenants create acme');
    expect(await run('tenants suspend acme')).toMatchObject({ code: 0, out: [expect.stringMatching(/^tenant acme is suspended/)] });
    expect(() => registry.assertServing('acme')).toThrow(/suspended/);
    expect((await run('tenants list')).out[1]).toMatch(/\ssuspended$/);
    expect(await run('tenants status acme')).toMatchObject({ code: 0, out: [expect.stringMatching(/^tenant acme: suspended since \d{4}-/)] });
    expect(await run('tenants resume acme')).toMatchObject({ code: 0, out: ['tenant acme is active'] });
    expect(() => registry.assertServing('acme')).not.toThrow();

    expect(await run('tenants delete acme')).toMatchObject({
      code: 2,
      err: [expect.stringMatching(/removes all of its data for good: add --yes/), expect.anything()],
    });
    expect(registry.tenant('acme')?.status).toBeUndefined();
    const deleted = await run('tenants delete acme --yes');
    expect(deleted).toMatchObject({ code: 0, out: [expect.stringMatching(/^deleted tenant acme: 3 stream messages, rows in 1 tables/)] });
    expect(deleted.err).toEqual(['stream…', 'projections…', 'archives…', 'registry…']);
    expect(erased).toEqual(['acme']);
    expect(await run('tenants delete ghost --yes')).toMatchObject({ code: 1, err: [expect.stringMatching(/No tenant ghost/)] });
  });

  it('answers exit code 1 for an unknown tenant, and prints help with exit code 0', async () => {
    const { run, opened } = await cli();
    expect(await run('keys list --tenant ghost')).toMatchObject({ code: 1, err: [expect.stringMatching(/No tenant ghost/)] });
    const before = opened();
    expect(await run('keys create --help')).toMatchObject({ code: 0, out: [expect.stringMatching(/^usage: tapedeck keys create --tenant T/)] });
    expect(opened()).toBe(before);
  });
});
