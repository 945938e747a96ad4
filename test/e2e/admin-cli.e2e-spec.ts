// The tenant commands of the CLI (node dist/cli/main.js) against the test stack's NATS: what they
// write is what the running service enforces.
import { execFile } from 'node:child_process';
import { randomBytes, randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connect } from 'nats';
import { startNats } from '../../src/local/processes';
import { api, postEvents, sampleEvents } from '../harness/http';
import { testEnv } from '../harness/env';
import { pollUntil } from '../harness/poll-until';
import { ROOT } from '../harness/stack';
import { admin } from './auth-fixtures';

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

function cli(args: string[], stdin?: string, natsUrl = testEnv().natsUrl): Promise<Run> {
  return new Promise((resolve) => {
    const child = execFile(
      process.execPath,
      [join(ROOT, 'dist', 'cli', 'main.js'), ...args],
      { env: { PATH: process.env.PATH ?? '', NATS_URL: natsUrl }, timeout: 30_000 },
      (err, stdout, stderr) => resolve({ code: err ? (typeof err.code === 'number' ? err.code : 1) : 0, stdout, stderr }),
    );
    child.stdin?.end(stdin ?? '');
  });
}

const ok = async (args: string[], stdin?: string) => {
  const r = await cli(args, stdin);
  if (r.code !== 0) throw new Error(`tapedeck ${args.join(' ')} exited ${r.code}: ${r.stderr}`);
  return r;
};

describe('CLI tenant commands', () => {
  const tenant = `cli_${randomBytes(4).toString('hex')}`;

  it('creates a tenant and keys the service accepts, lists handles only, and revokes', async () => {
    expect((await ok(['tenants', 'create', tenant, '--name', 'CLI tenant', '--retention-days', '14'])).stdout).toBe(`created tenant ${tenant}\n`);
    expect((await ok(['tenants', 'list'])).stdout).toMatch(new RegExp(`^${tenant}\\s+CLI tenant\\s+14\\s`, 'm'));
    expect((await ok(['tenants', 'update', tenant, '--retention-days', '5'])).stdout).toBe(
      `tenant ${tenant}: recordings are deleted 5 days after their last write\n`,
    );
    // The service's own registry copy (what its retention sweep reads) follows the CLI's change.
    const retention = async () =>
      ((await admin('GET', '/tenants')).json().tenants as { id: string; retentionDays?: number }[]).find((t) => t.id === tenant)?.retentionDays;
    await pollUntil(retention, (d) => d === 5, 5000, 50);
    await ok(['tenants', 'update', tenant, '--retention-days', 'none']);
    await pollUntil(retention, (d) => d === undefined, 5000, 50);
    await ok(['tenants', 'update', tenant, '--retention-days', '14']);

    const pub = (await ok(['keys', 'create', '--tenant', tenant, '--kind', 'public'])).stdout.trim();
    const created = await ok(['keys', 'create', '--tenant', tenant, '--kind', 'secret', '--json']);
    const { key: secret, handle } = JSON.parse(created.stdout) as { key: string; handle: string };
    expect(pub).toMatch(/^public_key_svc_\S+$/);

    const rec = randomUUID();
    await pollUntil(
      () => postEvents(rec, sampleEvents(4), pub),
      (r) => r.status === 200,
      5000,
      50,
    );
    await pollUntil(
      () => api(`/recordings/${rec}/events`, { key: secret }),
      (r) => r.status === 200,
      5000,
      50,
    );

    const listed = await ok(['keys', 'list', '--tenant', tenant]);
    expect(listed.stdout).toContain(handle);
    expect(listed.stdout).not.toContain(secret);
    expect(listed.stdout).not.toContain(pub);

    await ok(['keys', 'revoke', '--tenant', tenant, handle]);
    await pollUntil(
      () => api(`/recordings/${rec}/events`, { key: secret }),
      (r) => r.status === 401,
      2000,
      20,
    );
    expect((await cli(['keys', 'revoke', '--tenant', tenant, handle])).code).toBe(1);
  });

  it('creates signing keys and signs links the service opens', async () => {
    const rec = randomUUID();
    const pub = (await ok(['keys', 'create', '--tenant', tenant, '--kind', 'public'])).stdout.trim();
    await pollUntil(
      () => postEvents(rec, sampleEvents(4), pub),
      (r) => r.status === 200,
      5000,
      50,
    );

    const generated = await ok(['signing-keys', 'create', '--tenant', tenant, '--key-id', 'cli-1']);
    expect(generated.stdout.trim()).toMatch(/^[A-Za-z0-9_-]{40,}$/);
    await ok(['signing-keys', 'create', '--tenant', tenant, '--key-id', 'cli-2', '--secret-stdin'], 'a-secret-from-stdin-0123\n');
    const listed = await ok(['signing-keys', 'list', '--tenant', tenant]);
    expect(listed.stdout).toMatch(/cli-1/);
    expect(listed.stdout).not.toContain(generated.stdout.trim());

    const link = (await ok(['sign', '--tenant', tenant, '--recording', rec, '--key-id', 'cli-2', '--ttl', '120'])).stdout.trim();
    expect(link).toMatch(new RegExp(`^/recordings/${rec}/events\\?tenantId=${tenant}&expires=\\d+&keyId=cli-2&signature=[0-9a-f]{64}$`));
    await pollUntil(
      () => api(link),
      (r) => r.status === 200,
      5000,
      50,
    );

    await ok(['signing-keys', 'revoke', '--tenant', tenant, '--key-id', 'cli-2']);
    await pollUntil(
      () => api(link),
      (r) => r.status === 403,
      2000,
      20,
    );
  });

  it('explains misuse with exit code 2 and failures with exit code 1', async () => {
    const unknown = await cli(['tenants', 'frobnicate']);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toMatch(/unknown command/);
    const missing = await cli(['keys', 'create', '--kind', 'public']);
    expect([missing.code, missing.stderr]).toEqual([2, expect.stringMatching(/--tenant is required[\s\S]*usage: tapedeck keys create/)]);
    expect((await cli(['sign', '--tenant', tenant, '--recording', randomUUID(), '--ttl', String(8 * 24 * 3600)])).code).toBe(2);
    const ghost = await cli(['keys', 'list', '--tenant', 'ghost_tenant']);
    expect([ghost.code, ghost.stderr]).toEqual([1, expect.stringMatching(/No tenant ghost_tenant/)]);
    const help = await cli(['signing-keys', 'create', '--help']);
    expect([help.code, help.stdout]).toEqual([0, expect.stringMatching(/^usage: tapedeck signing-keys create/)]);
  });

  it('refuses a NATS that has no tenant registry, and creates none there', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'tapedeck-test-bare-nats-'));
    const bare = await startNats({ dir });
    try {
      for (const args of [
        ['tenants', 'list'],
        ['tenants', 'create', 'lost_tenant'],
      ]) {
        const r = await cli(args, undefined, bare.url);
        expect([r.code, r.stderr]).toEqual([1, expect.stringMatching(/no tenant registry .*is NATS_URL the one the service uses/)]);
      }
      const nc = await connect({ servers: bare.url });
      try {
        const streams = await (await nc.jetstreamManager()).streams.names().next();
        expect(streams).toEqual([]);
      } finally {
        await nc.close();
      }
    } finally {
      await bare.stop('SIGKILL');
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
