// Child processes for the local stack and the test harness: nats-server with JetStream and
// clickhouse-server, each on loopback ports of its own with data in a directory of its own.
import { ChildProcess, spawn } from 'node:child_process';
import { mkdirSync, openSync } from 'node:fs';
import { createServer, connect as tcpConnect } from 'node:net';
import { join } from 'node:path';

/** Ports handed out by this process: the OS may offer a just-closed port again, so never twice. */
const handedOut = new Set<number>();

export async function freePort(): Promise<number> {
  for (;;) {
    const port = await new Promise<number>((resolve, reject) => {
      const s = createServer();
      s.unref();
      s.on('error', reject);
      s.listen(0, '127.0.0.1', () => {
        const p = (s.address() as { port: number }).port;
        s.close(() => resolve(p));
      });
    });
    if (!handedOut.has(port)) {
      handedOut.add(port);
      return port;
    }
  }
}

export interface ManagedProcess {
  name: string;
  url: string;
  child: ChildProcess;
  /** Stops the process (SIGTERM, then SIGKILL after a grace period). */
  stop(signal?: NodeJS.Signals): Promise<void>;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function assertPortFree(port: number, what: string) {
  if (await tcpOpen(port)) throw new Error(`${what}: port ${port} on 127.0.0.1 is already in use by another process`);
}

/** The server process ended before it was ready (e.g. a port taken meanwhile; its log says why). */
class ExitedWhileStarting extends Error {}

async function waitFor(what: string, check: () => Promise<boolean>, child: ChildProcess, timeoutMs: number) {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new ExitedWhileStarting(`${what} exited with code ${child.exitCode} while starting`);
    if ((await check().catch(() => false)) && child.exitCode === null) return;
    await sleep(100);
  }
  throw new Error(`${what} did not become ready within ${timeoutMs} ms`);
}

const tcpOpen = (port: number) =>
  new Promise<boolean>((resolve) => {
    const s = tcpConnect(port, '127.0.0.1');
    s.once('connect', () => (s.destroy(), resolve(true)));
    s.once('error', () => resolve(false));
  });

/** `group`: the child leads a process group of its own (ownProcessGroup), signalled whole. */
function manage(name: string, url: string, child: ChildProcess, group = false): ManagedProcess {
  const kill = (signal: NodeJS.Signals) => {
    if (!group || child.pid === undefined) return void child.kill(signal);
    try {
      process.kill(-child.pid, signal);
    } catch {
      child.kill(signal); // the group is gone: at most the leader is left
    }
  };
  return {
    name,
    url,
    child,
    stop: async (signal: NodeJS.Signals = 'SIGTERM') => {
      if (child.exitCode !== null || child.signalCode !== null) return;
      const exited = new Promise<void>((r) => child.once('exit', () => r()));
      kill(signal);
      const t = setTimeout(() => kill('SIGKILL'), 10_000);
      await exited;
      clearTimeout(t);
    },
  };
}

/**
 * ownProcessGroup: the server runs in a process group of its own, so a terminal's Ctrl-C (sent to the
 * foreground group) reaches only its parent, which stops it after what depends on it (`npm start`).
 */
interface GroupOption {
  ownProcessGroup?: boolean;
}

export interface NatsOptions extends GroupOption {
  dir: string;
  port?: number;
  binary?: string;
  /** Extra nats-server arguments (e.g. cluster routes). */
  args?: string[];
  configFile?: string;
}

/**
 * Starts a server on ports from freePort: another process may bind one of them between freePort and
 * the server's bind (the server then exits while starting), so such a start is tried again on new
 * ports, up to `attempts` times. Ports given by the caller are not retried.
 */
async function onFreshPorts<T>(chosen: boolean, start: () => Promise<T>, attempts = 3): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await start();
    } catch (e) {
      if (!chosen || attempt >= attempts || !(e instanceof ExitedWhileStarting)) throw e;
    }
  }
}

export function startNats(o: NatsOptions): Promise<ManagedProcess & { port: number }> {
  return onFreshPorts(o.port === undefined && !o.configFile, () => startNatsOnce(o));
}

async function startNatsOnce(o: NatsOptions): Promise<ManagedProcess & { port: number }> {
  const port = o.port ?? (await freePort());
  await assertPortFree(port, 'nats-server');
  mkdirSync(join(o.dir, 'jetstream'), { recursive: true });
  const log = openSync(join(o.dir, 'nats.log'), 'a');
  const args = o.configFile ? ['-c', o.configFile] : ['-a', '127.0.0.1', '-p', String(port), '-js', '-sd', join(o.dir, 'jetstream'), ...(o.args ?? [])];
  const child = spawn(o.binary ?? 'nats-server', args, { stdio: ['ignore', log, log], detached: !!o.ownProcessGroup });
  await waitFor('nats-server', () => tcpOpen(port), child, 15_000);
  return { ...manage('nats-server', `nats://127.0.0.1:${port}`, child, o.ownProcessGroup), port };
}

export interface ClickHouseOptions extends GroupOption {
  dir: string;
  httpPort?: number;
  tcpPort?: number;
  binary?: string;
  configFile?: string;
  /**
   * `server`: Debian's clickhouse-server (18.16 here). `chdb`: a current ClickHouse engine (chDB, a
   * dev dependency) behind scripts/chdb-http-server.mjs, for tests of what deploy/ runs; no TCP port.
   */
  engine?: 'server' | 'chdb';
}

export function startClickHouse(o: ClickHouseOptions): Promise<ManagedProcess & { httpPort: number; tcpPort: number }> {
  return onFreshPorts(o.httpPort === undefined && o.tcpPort === undefined, () => startClickHouseOnce(o));
}

async function startClickHouseOnce(o: ClickHouseOptions): Promise<ManagedProcess & { httpPort: number; tcpPort: number }> {
  const httpPort = o.httpPort ?? (await freePort());
  const tcpPort = o.tcpPort ?? (await freePort());
  const interPort = await freePort();
  await assertPortFree(httpPort, 'clickhouse-server');
  await assertPortFree(tcpPort, 'clickhouse-server');
  for (const d of ['data', 'tmp', 'user_files', 'format_schemas']) mkdirSync(join(o.dir, d), { recursive: true });
  const log = openSync(join(o.dir, 'clickhouse.out.log'), 'a');
  if (o.engine === 'chdb') return startChdb(o.dir, httpPort, tcpPort, log);
  const detached = !!o.ownProcessGroup;
  const child = spawn(
    o.binary ?? 'clickhouse-server',
    [
      `--config-file=${o.configFile ?? '/etc/clickhouse-server/config.xml'}`,
      '--',
      `--path=${join(o.dir, 'data')}/`,
      `--tmp_path=${join(o.dir, 'tmp')}/`,
      `--user_files_path=${join(o.dir, 'user_files')}/`,
      `--format_schema_path=${join(o.dir, 'format_schemas')}/`,
      `--logger.log=${join(o.dir, 'clickhouse.log')}`,
      `--logger.errorlog=${join(o.dir, 'clickhouse.err.log')}`,
      `--http_port=${httpPort}`,
      `--tcp_port=${tcpPort}`,
      `--interserver_http_port=${interPort}`,
      '--listen_host=127.0.0.1',
    ],
    { stdio: ['ignore', log, log], detached },
  );
  const url = `http://127.0.0.1:${httpPort}`;
  await waitFor(
    'clickhouse-server',
    async () => {
      const r = await fetch(`${url}/?query=SELECT%201`);
      return r.ok;
    },
    child,
    60_000,
  );
  return { ...manage('clickhouse-server', url, child, detached), httpPort, tcpPort };
}

/** chDB behind ClickHouse's HTTP interface (scripts/chdb-http-server.mjs), managed like clickhouse-server. */
async function startChdb(dir: string, httpPort: number, tcpPort: number, log: number): Promise<ManagedProcess & { httpPort: number; tcpPort: number }> {
  const script = join(__dirname, '..', '..', 'scripts', 'chdb-http-server.mjs');
  const child = spawn(process.execPath, [script, '--path', join(dir, 'data'), '--port', String(httpPort)], { stdio: ['ignore', log, log] });
  const url = `http://127.0.0.1:${httpPort}`;
  await waitFor('chdb-http-server', async () => (await fetch(`${url}/?query=SELECT%201`)).ok, child, 60_000);
  return { ...manage('chdb-http-server', url, child), httpPort, tcpPort };
}
