// A stack of its own for one test file: nats-server (or a three-node NATS cluster), clickhouse-server
// and any number of service instances, with data in a temporary directory. Fault tests kill and
// freeze these processes without disturbing the shared stack the other specs use. The service
// environment is the shared stack's (testEnv().serviceEnv) with this stack's URLs and fresh keys.
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ManagedProcess, startNats } from '../../src/local/processes';
import { startTestClickHouse } from './clickhouse';
import { NatsCluster } from './cluster';
import { testEnv } from './env';
import { api, Res } from './http';
import { randomKeys, ServiceProcess, startService } from './stack';

export interface PrivateStackOptions {
  /** A three-node NATS cluster instead of one nats-server. */
  cluster?: boolean;
  /** Extra service environment (every instance). */
  env?: Record<string, string>;
}

type Keys = ReturnType<typeof randomKeys>;

/** Children of every private stack still running, killed if the test process exits without close(). */
const live = new Set<() => number[]>();
process.once('exit', () => {
  for (const pids of live)
    for (const pid of pids()) {
      try {
        process.kill(pid, 'SIGKILL');
      } catch {
        /* already gone */
      }
    }
});

export class PrivateStack {
  readonly services: ServiceProcess[] = [];
  private readonly pidsOf = () => [
    ...(this.nats?.child.pid ? [this.nats.child.pid] : []),
    ...(this.cluster?.pids() ?? []),
    ...(this.clickhouse?.child.pid ? [this.clickhouse.child.pid] : []),
    ...this.services.filter((s) => s.child.exitCode === null).map((s) => s.child.pid!),
  ];

  private constructor(
    readonly dir: string,
    readonly keys: Keys,
    readonly adminToken: string,
    readonly serviceEnv: Record<string, string>,
    public nats: (ManagedProcess & { port: number }) | undefined,
    readonly cluster: NatsCluster | undefined,
    public clickhouse: (ManagedProcess & { httpPort: number; tcpPort: number }) | undefined,
  ) {
    live.add(this.pidsOf);
  }

  /** Starts NATS (or a cluster) and ClickHouse; services are started with `startService`. */
  static async start(o: PrivateStackOptions = {}): Promise<PrivateStack> {
    const dir = mkdtempSync(join(tmpdir(), 'tapedeck-private-'));
    const parts = await Promise.allSettled([
      o.cluster ? Promise.resolve(undefined) : startNats({ dir: join(dir, 'nats') }),
      o.cluster ? NatsCluster.start(dir) : Promise.resolve(undefined),
      startTestClickHouse({ dir: join(dir, 'clickhouse') }),
    ] as const);
    const failed = parts.find((r): r is PromiseRejectedResult => r.status === 'rejected');
    if (failed) {
      // Stop what did start: a failed start must not leave servers behind.
      for (const r of parts) if (r.status === 'fulfilled') await r.value?.stop();
      throw failed.reason;
    }
    const [nats, cluster, ch] = parts.map((r) => (r as PromiseFulfilledResult<unknown>).value) as [
      Awaited<ReturnType<typeof startNats>> | undefined,
      NatsCluster | undefined,
      Awaited<ReturnType<typeof startTestClickHouse>>,
    ];
    const keys = randomKeys();
    const adminToken = randomBytes(24).toString('hex');
    const serviceEnv: Record<string, string> = {
      ...testEnv().serviceEnv,
      NATS_URL: cluster ? cluster.url : nats!.url,
      CLICKHOUSE_URL: ch.url,
      CLICKHOUSE_DATABASE: 'tapedeck_private',
      TAPEDECK_ADMIN_TOKEN: adminToken,
      TAPEDECK_BOOTSTRAP_TENANT_ID: keys.tenantId,
      TAPEDECK_BOOTSTRAP_PUBLIC_KEY: keys.publicKey,
      TAPEDECK_BOOTSTRAP_SECRET_KEY: keys.secretKey,
      TAPEDECK_BOOTSTRAP_SIGNING_KEY_ID: keys.signingKeyId,
      TAPEDECK_BOOTSTRAP_SIGNING_SECRET: keys.signingSecret,
      ...(cluster ? { STREAM_REPLICAS: '3' } : {}),
      ...o.env,
    };
    return new PrivateStack(dir, keys, adminToken, serviceEnv, nats, cluster, ch);
  }

  /** Starts one more instance of the built service (dist/main.js) and waits for /readyz. */
  async startService(name = `service-${this.services.length + 1}`, env: Record<string, string> = {}): Promise<ServiceProcess> {
    const s = await startService({ ...this.serviceEnv, ...env }, this.dir, name);
    this.services.push(s);
    return s;
  }

  /** Base URL of the first service instance. */
  get url(): string {
    if (!this.services[0]) throw new Error('no service started');
    return this.services[0].url;
  }

  /** A request to a service instance (the first unless `base`), with the secret key unless `key`. */
  api(path: string, init: RequestInit & { key?: string; base?: string } = {}): Promise<Res> {
    return api(path, { key: this.keys.secretKey, base: this.url, ...init });
  }

  /** Kills the single nats-server (SIGKILL by default). */
  async killNats(signal: NodeJS.Signals = 'SIGKILL'): Promise<void> {
    if (!this.nats) throw new Error('no single nats-server in this stack');
    await this.nats.stop(signal);
  }

  /** Starts nats-server again on the same port with the same data directory. */
  async restartNats(): Promise<void> {
    if (!this.nats) throw new Error('no single nats-server in this stack');
    if (this.nats.child.exitCode === null && this.nats.child.signalCode === null) throw new Error('nats-server is running');
    this.nats = await startNats({ dir: join(this.dir, 'nats'), port: this.nats.port });
  }

  /** Freezes (SIGSTOP) or thaws (SIGCONT) clickhouse-server: connections hang rather than fail. */
  signalClickHouse(signal: 'SIGSTOP' | 'SIGCONT'): void {
    this.clickhouse?.child.kill(signal);
  }

  async killClickHouse(): Promise<void> {
    this.clickhouse?.child.kill('SIGCONT');
    await this.clickhouse?.stop('SIGKILL');
  }

  /** Starts clickhouse-server again on the same HTTP and TCP ports with the same data directory. */
  async restartClickHouse(): Promise<void> {
    const ch = this.clickhouse!;
    if (ch.child.exitCode === null && ch.child.signalCode === null) throw new Error('clickhouse-server is running');
    this.clickhouse = await startTestClickHouse({ dir: join(this.dir, 'clickhouse'), httpPort: ch.httpPort, tcpPort: ch.tcpPort });
  }

  /** Kills everything (SIGKILL: nothing here needs a graceful stop) and removes the data directory. */
  async close(): Promise<void> {
    live.delete(this.pidsOf);
    this.clickhouse?.child.kill('SIGCONT');
    await Promise.all([...this.services.map((s) => s.stop('SIGKILL')), this.nats?.stop('SIGKILL'), this.cluster?.stop(), this.clickhouse?.stop('SIGKILL')]);
    if (!process.env.TAPEDECK_KEEP_TEST_DATA) rmSync(this.dir, { recursive: true, force: true });
  }
}
