import { MemoryKv, memoryNats } from '../auth/testing/memory-kv';
import { TenantRegistry } from '../auth/tenant-registry';
import { TenantDeletion, TenantDeletionPorts } from './tenant-deletion';

async function setup(fail?: { step: string; times: number }) {
  const registry = new TenantRegistry(memoryNats(new MemoryKv()));
  await registry.start();
  await registry.createTenant('acme');
  const calls: string[] = [];
  const failing = (step: string) => {
    if (fail && fail.step === step && fail.times-- > 0) throw new Error(`${step} down`);
  };
  const ports: TenantDeletionPorts = {
    registry,
    stream: {
      erase: async (id, o) => {
        calls.push(`stream ${id} quiet ${o.quietAfter - registry.tenant(id)!.statusSince!} refused ${registry.tenant(id)!.status}`);
        failing('stream');
        return { deleted: 5, throughSeq: 42 };
      },
    },
    projections: {
      awaitPast: async (seq) => void calls.push(`await ${seq}`),
      erase: async (id) => {
        calls.push(`rows ${id}`);
        failing('projections');
        return ['recordings'];
      },
    },
    archives: [{ name: 'archive', erase: async (id) => void calls.push(`archive ${id}`) }],
    entries: {
      erase: async (id) => {
        calls.push(`entries ${id}`);
        await registry.remove(`tenants.${id}`);
        return 1;
      },
    },
  };
  return { registry, calls, deletion: new TenantDeletion(ports, 100) };
}

describe('TenantDeletion', () => {
  it('refuses the tenant first, then erases the stream, waits for the projectors past its last sequence, erases rows, archives, entries', async () => {
    const { registry, calls, deletion } = await setup();
    const steps: string[] = [];
    const report = await deletion.run('acme', (p) => p.messages === undefined && steps.push(p.step));
    expect(calls).toEqual(['stream acme quiet 100 refused deleting', 'await 42', 'rows acme', 'archive acme', 'entries acme']);
    expect(steps).toEqual(['stream', 'projections', 'archives', 'registry']);
    expect(report).toMatchObject({ tenantId: 'acme', messages: 5, tables: ['recordings'] });
    expect(registry.tenant('acme')).toBeUndefined();
  });

  it('leaves a run cut short refused, with its step and error, and finishes it when run again (same refusal time)', async () => {
    const { registry, calls, deletion } = await setup({ step: 'projections', times: 1 });
    await expect(deletion.run('acme')).rejects.toThrow('projections down');
    const stopped = registry.tenant('acme')!;
    expect(stopped).toMatchObject({ status: 'deleting', deletion: { step: 'projections', error: 'projections down' } });
    expect(() => registry.assertServing('acme')).toThrow(/being deleted/);
    calls.length = 0;
    await deletion.run('acme');
    expect(calls).toEqual(['stream acme quiet 100 refused deleting', 'await 42', 'rows acme', 'archive acme', 'entries acme']);
    expect(registry.tenant('acme')).toBeUndefined();
  });

  it('answers 404 for an unknown tenant and touches nothing', async () => {
    const { calls, deletion } = await setup();
    await expect(deletion.run('ghost')).rejects.toMatchObject({ code: 'not_found' });
    expect(calls).toEqual([]);
  });
});
