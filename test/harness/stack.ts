// Starts the real parts for end-to-end tests: nats-server, clickhouse-server and the built service
// (node dist/main.js) as child processes on free loopback ports, with temporary data directories.
import { ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, openSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { freePort, ManagedProcess, startNats } from '../../src/local/processes';
import { startTestClickHouse } from './clickhouse';

/** The repository root (this file also runs compiled from dist-bench/). */
export const ROOT = (() => {
  for (let dir = __dirname; dir !== dirname(dir); dir = dirname(dir)) if (existsSync(join(dir, 'nest-cli.json'))) return dir;
  return resolve(__dirname, '..', '..');
})();

export interface TestEnv {
  dir: string;
  baseUrl: string;
  natsUrl: string;
  clickhouseUrl: string;
  tenantId: string;
  publicKey: string;
  secretKey: string;
  signingKeyId: string;
  signingSecret: string;
  adminToken: string;
  chromiumPath: string;
  /** Environment the service was started with (to start more instances). */
  serviceEnv: Record<string, string>;
  pids: { nats: number; clickhouse: number; service: number };
}

export function randomKeys() {
  const r = () => randomBytes(18).toString('base64url');
  return {
    tenantId: `t_${randomBytes(4).toString('hex')}`,
    publicKey: `public_key_svc_${r()}`,
    secretKey: `secret_key_svc_${r()}`,
    signingKeyId: 'test-key-1',
    signingSecret: r() + r(),
  };
}

/** Per-tenant limit defaults that no suite reaches (0 would turn the limiter off). */
export const HIGH_TENANT_LIMITS: Record<string, string> = {
  TENANT_INGEST_EVENTS_PER_SECOND: '1000000000',
  TENANT_INGEST_BYTES_PER_SECOND: '1000000000000',
  TENANT_WEBSOCKETS: '1000000',
  TENANT_READ_BYTES_PER_SECOND: '1000000000000',
  TENANT_STORED_BYTES: '1000000000000000',
  TENANT_RENDERS: '1000',
  TENANT_RENDERS_PER_SECOND: '1000000',
  TENANT_LIVE_VIEWERS: '1000',
};

export interface ServiceProcess {
  url: string;
  child: ChildProcess;
  /** Its stdout and stderr (JSON lines). */
  logFile: string;
  stop(signal?: NodeJS.Signals): Promise<void>;
}

/**
 * Starts one instance of the built service and waits for /readyz. A free port can be taken by
 * another process before the service listens on it (suites and their browsers start servers all the
 * time): an instance that exits with EADDRINUSE is started again on another port.
 */
export async function startService(env: Record<string, string>, dir: string, name = 'service'): Promise<ServiceProcess> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await startServiceOnce(env, dir, name);
    } catch (e) {
      if (!(e instanceof PortTaken) || attempt >= 3) throw e;
    }
  }
}

class PortTaken extends Error {}

async function startServiceOnce(env: Record<string, string>, dir: string, name: string): Promise<ServiceProcess> {
  const port = await freePort();
  const logFile = join(dir, `${name}-${port}.log`);
  const log = openSync(logFile, 'a');
  // TAPEDECK_SERVICE_NODE_ARGS: extra node arguments for the service (e.g. `--cpu-prof --cpu-prof-dir=/tmp/prof` to profile a bench).
  const nodeArgs = process.env.TAPEDECK_SERVICE_NODE_ARGS?.split(' ').filter(Boolean) ?? [];
  const child = spawn(process.execPath, [...nodeArgs, join(ROOT, 'dist', 'main.js')], {
    env: { ...process.env, ...env, PORT: String(port), HOST: '127.0.0.1' },
    stdio: ['ignore', log, log],
  });
  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 60_000;
  for (;;) {
    if (child.exitCode !== null) {
      if (/EADDRINUSE/.test(readFileSync(logFile, 'utf8'))) throw new PortTaken(`${name}: port ${port} was taken`);
      throw new Error(`${name} exited with ${child.exitCode}; see ${dir}`);
    }
    const ok = await fetch(`${url}/readyz`)
      .then((r) => r.ok)
      .catch(() => false);
    if (ok) break;
    if (Date.now() > deadline) {
      // Not left behind: a running child would also keep jest from exiting.
      child.kill('SIGKILL');
      throw new Error(`${name} not ready in 60 s; see ${dir}`);
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  return {
    url,
    child,
    logFile,
    stop: async (signal: NodeJS.Signals = 'SIGTERM') => {
      if (child.exitCode !== null || child.signalCode !== null) return;
      const exited = new Promise((r) => child.once('exit', r));
      child.kill(signal);
      await exited;
    },
  };
}

/** `serverKeyframes`: the service makes keyframes for recordings without checkouts (docs/keyframes.md); off for the test suites. */
export async function startStack(o: { serverKeyframes?: boolean } = {}): Promise<{ env: TestEnv; procs: ManagedProcess[]; service: ServiceProcess }> {
  const dir = mkdtempSync(join(tmpdir(), 'tapedeck-test-'));
  const [nats, ch] = await Promise.all([startNats({ dir: join(dir, 'nats') }), startTestClickHouse({ dir: join(dir, 'clickhouse') })]);
  const keys = randomKeys();
  const adminToken = randomBytes(24).toString('hex');
  const serviceEnv: Record<string, string> = {
    NATS_URL: nats.url,
    CLICKHOUSE_URL: ch.url,
    CLICKHOUSE_DATABASE: 'tapedeck_test',
    LOG_LEVEL: 'info',
    TAPEDECK_ROLE: 'all',
    TAPEDECK_ADMIN_TOKEN: adminToken,
    TAPEDECK_BOOTSTRAP_TENANT_ID: keys.tenantId,
    TAPEDECK_BOOTSTRAP_PUBLIC_KEY: keys.publicKey,
    TAPEDECK_BOOTSTRAP_SECRET_KEY: keys.secretKey,
    TAPEDECK_BOOTSTRAP_SIGNING_KEY_ID: keys.signingKeyId,
    TAPEDECK_BOOTSTRAP_SIGNING_SECRET: keys.signingSecret,
    CHROMIUM_PATH: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
    INGEST_PUBLISH_TIMEOUT_MS: '2000',
    // No server-made keyframes in the suites: they would add messages to other suites' recordings
    // (server-keyframes.e2e-spec.ts starts a stack that makes them).
    KEYFRAME_CONCURRENCY: o.serverKeyframes ? '1' : '0',
    // No automatic sealing either: a long run would replace other suites' batch messages by sealed
    // records (archives.e2e-spec.ts and the storage bench seal on purpose; docs/archives.md).
    ARCHIVE_IDLE_SECONDS: '0',
    // No background thumbnails: Chromium renders would eat the CI's cores (thumbnail-idle.e2e-spec.ts turns them on).
    THUMBNAIL_IDLE_SECONDS: '0',
    // Per-tenant limits far above what the suites and benches send, yet on: the limiter's code runs
    // on every request (the noisy-neighbour bench gives its tenants their own limits).
    ...HIGH_TENANT_LIMITS,
    // The contention guard reads the machine's CPU pressure, which would make the suites' timings
    // depend on the CI's load (tenant-contention.e2e-spec.ts turns it on; the benches keep the service's default).
    TENANT_CPU_PRESSURE: process.env.TENANT_CPU_PRESSURE ?? '0',
  };
  let service: ServiceProcess;
  try {
    service = await startService(serviceEnv, dir);
  } catch (e) {
    await Promise.all([nats.stop(), ch.stop()]);
    throw e;
  }
  const env: TestEnv = {
    dir,
    baseUrl: service.url,
    natsUrl: nats.url,
    clickhouseUrl: ch.url,
    ...keys,
    adminToken,
    chromiumPath: serviceEnv.CHROMIUM_PATH,
    serviceEnv,
    pids: { nats: nats.child.pid!, clickhouse: ch.child.pid!, service: service.child.pid! },
  };
  return { env, procs: [nats, ch], service };
}
