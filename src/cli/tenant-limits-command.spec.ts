import { TenantLimitsAdmin } from '../admin/tenant-limits-admin.service';
import { MemoryKv, memoryNats } from '../auth/testing/memory-kv';
import { TenantRegistry } from '../auth/tenant-registry';
import type { CliContext } from './command';
import type { CliIo } from './tenant-cli-support';
import { limitArgument, makeTenantLimitsCommand } from './tenant-limits-command';

const cfg = {
  TENANT_INGEST_EVENTS_PER_SECOND: 5000,
  TENANT_INGEST_BYTES_PER_SECOND: 2097152,
  TENANT_WEBSOCKETS: 1000,
  TENANT_READ_BYTES_PER_SECOND: 8388608,
  TENANT_STORED_BYTES: 0,
  TENANT_RENDERS: 8,
  TENANT_RENDERS_PER_SECOND: 5,
  TENANT_LIVE_VIEWERS: 200,
};

async function cli() {
  const registry = new TenantRegistry(memoryNats(new MemoryKv()));
  await registry.start();
  await registry.createTenant('acme');
  const limits = new TenantLimitsAdmin(registry, cfg);
  const out: string[] = [];
  const err: string[] = [];
  const io: CliIo = { out: (l) => void out.push(l), err: (l) => void err.push(l), readStdin: async () => '' };
  const cmd = makeTenantLimitsCommand(async () => ({ limits, close: async () => undefined }), io)['tenants limits'];
  const run = async (line: string) => {
    out.length = 0;
    err.length = 0;
    const code = await cmd(line.split(' ').filter(Boolean), {} as CliContext);
    return { code, out: [...out], err: [...err] };
  };
  return { run, registry };
}

describe('tenants limits', () => {
  it('shows the limits in force and where each comes from', async () => {
    const { run } = await cli();
    const r = await run('acme');
    expect(r.code).toBe(0);
    expect(r.out[0]).toMatch(/^LIMIT\s+VALUE\s+SOURCE$/);
    expect(r.out).toContainEqual(expect.stringMatching(/^ingestEventsPerSecond\s+5000\s+default$/));
    expect(r.out).toContainEqual(expect.stringMatching(/^storedBytes\s+unlimited\s+default$/));
  });

  it("sets the tenant's own values (with byte units, unlimited), returns one to the default, and stores them in the registry", async () => {
    const { run, registry } = await cli();
    const set = await run('acme --stored-bytes 50GiB --websockets unlimited --ingest-events-per-second 20000 --json');
    expect(set.code).toBe(0);
    expect(JSON.parse(set.out[0])).toMatchObject({
      tenantId: 'acme',
      limits: { storedBytes: 50 * 2 ** 30, webSockets: 0, ingestEventsPerSecond: 20000, readBytesPerSecond: 8388608 },
      own: { storedBytes: 50 * 2 ** 30, webSockets: 0, ingestEventsPerSecond: 20000 },
    });
    expect(registry.tenant('acme')?.limits).toEqual({ storedBytes: 50 * 2 ** 30, webSockets: 0, ingestEventsPerSecond: 20000 });
    const back = await run('acme --websockets default');
    expect(back.out).toContainEqual(expect.stringMatching(/^webSockets\s+1000\s+default$/));
    expect(back.out).toContainEqual(expect.stringMatching(/^storedBytes\s+53687091200\s+tenant$/));
  });

  it('refuses bad values (exit 2) and unknown tenants (exit 1), changing nothing', async () => {
    const { run, registry } = await cli();
    for (const bad of ['acme --websockets 2KiB', 'acme --stored-bytes -5', 'acme --read-bytes-per-second lots', 'acme extra', 'acme --bogus 1']) {
      expect((await run(bad)).code).toBe(2);
    }
    expect((await run('ghost --websockets 3')).code).toBe(1);
    expect(registry.tenant('acme')?.limits).toBeUndefined();
    expect(limitArgument('storedBytes', ' 3 MiB ')).toBe(3 * 2 ** 20);
  });
});
