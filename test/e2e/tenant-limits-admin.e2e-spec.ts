// A tenant's limits through the admin API and the CLI (node dist/cli/main.js) against the test
// stack: what one sets, the other and the running service see; bad values are refused.
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { testEnv } from '../harness/env';
import { pollUntil } from '../harness/poll-until';
import { HIGH_TENANT_LIMITS, ROOT } from '../harness/stack';
import { admin } from './auth-fixtures';

function cli(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) =>
    execFile(
      process.execPath,
      [join(ROOT, 'dist', 'cli', 'main.js'), ...args],
      { env: { PATH: process.env.PATH ?? '', NATS_URL: testEnv().natsUrl }, timeout: 30_000 },
      (err, stdout, stderr) => resolve({ code: err ? (typeof err.code === 'number' ? err.code : 1) : 0, stdout, stderr }),
    ),
  );
}

const defaults = {
  ingestEventsPerSecond: Number(HIGH_TENANT_LIMITS.TENANT_INGEST_EVENTS_PER_SECOND),
  ingestBytesPerSecond: Number(HIGH_TENANT_LIMITS.TENANT_INGEST_BYTES_PER_SECOND),
  webSockets: Number(HIGH_TENANT_LIMITS.TENANT_WEBSOCKETS),
  readBytesPerSecond: Number(HIGH_TENANT_LIMITS.TENANT_READ_BYTES_PER_SECOND),
  storedBytes: Number(HIGH_TENANT_LIMITS.TENANT_STORED_BYTES),
  renders: Number(HIGH_TENANT_LIMITS.TENANT_RENDERS),
  rendersPerSecond: Number(HIGH_TENANT_LIMITS.TENANT_RENDERS_PER_SECOND),
  liveViewers: Number(HIGH_TENANT_LIMITS.TENANT_LIVE_VIEWERS),
};

describe("a tenant's limits", () => {
  const tenant = `lim_${randomBytes(4).toString('hex')}`;
  beforeAll(async () => {
    expect((await admin('POST', '/tenants', { id: tenant })).status).toBe(201);
  });

  it('are the defaults until set, then the own values win; null returns one to the default', async () => {
    const view = await admin('GET', `/tenants/${tenant}/limits`);
    expect(view.status).toBe(200);
    expect(view.json()).toEqual({ tenantId: tenant, limits: defaults, own: {}, defaults });

    const set = await admin('PATCH', `/tenants/${tenant}/limits`, { webSockets: 3, storedBytes: 0 });
    expect(set.status).toBe(200);
    expect(set.json()).toEqual({ tenantId: tenant, limits: { ...defaults, webSockets: 3, storedBytes: 0 }, own: { webSockets: 3, storedBytes: 0 }, defaults });
    expect((await admin('GET', '/tenants')).json().tenants).toContainEqual(expect.objectContaining({ id: tenant, limits: { webSockets: 3, storedBytes: 0 } }));

    const back = await admin('PATCH', `/tenants/${tenant}/limits`, { webSockets: null });
    expect(back.json()).toMatchObject({ limits: { webSockets: defaults.webSockets, storedBytes: 0 }, own: { storedBytes: 0 } });
  });

  it('refuses bad changes with 400 (JSON naming the field) and unknown tenants with 404', async () => {
    for (const body of [{ webSockets: -1 }, { webSockets: 1.5 }, { storedBytes: '10' }, { bogus: 1 }, {}]) {
      const r = await admin('PATCH', `/tenants/${tenant}/limits`, body);
      expect({ body, status: r.status, error: r.json().error }).toEqual({ body, status: 400, error: 'validation_failed' });
    }
    expect((await admin('PATCH', '/tenants/nobody_here/limits', { webSockets: 1 })).status).toBe(404);
    expect((await admin('GET', '/tenants/nobody_here/limits')).status).toBe(404);
    expect((await admin('GET', `/tenants/${tenant}/limits`, undefined, { token: null })).status).toBe(401);
  });

  it('are set by the CLI as by the admin API, and the running service follows at once', async () => {
    const r = await cli(['tenants', 'limits', tenant, '--ingest-events-per-second', '1234', '--read-bytes-per-second', '2MiB']);
    expect(r).toMatchObject({ code: 0, stderr: '' });
    expect(r.stdout).toMatch(/^ingestEventsPerSecond\s+1234\s+tenant$/m);
    expect(r.stdout).toMatch(/^readBytesPerSecond\s+2097152\s+tenant$/m);
    await pollUntil(
      () => admin('GET', `/tenants/${tenant}/limits`),
      (v) => v.json().own.ingestEventsPerSecond === 1234,
      2000,
      20,
    );
    const shown = await cli(['tenants', 'limits', tenant, '--json']);
    expect(JSON.parse(shown.stdout)).toMatchObject({ own: { ingestEventsPerSecond: 1234, readBytesPerSecond: 2097152, storedBytes: 0 } });
    expect((await cli(['tenants', 'limits', tenant, '--websockets', 'many'])).code).toBe(2);
    expect((await cli(['tenants', 'limits', 'nobody_here'])).code).toBe(1);
  });
});
