// `npm start`: the whole local stack in one process. Starts nats-server (JetStream) and
// clickhouse-server as supervised children with data under ./.data/ (unless NATS_URL /
// CLICKHOUSE_URL point elsewhere), generates the demo tenant's keys once, serves the API with
// projectors in-process, writes where the stack listens for the CLI (local-stack-file.ts) and prints
// the banner last. SIGINT, SIGTERM or SIGHUP, at any point, stop the service gracefully, then the
// children; a second one, a second or more later, kills them. The children run in process groups of their own, so a
// terminal's Ctrl-C reaches this process alone and the servers outlive the service's drain.
import 'reflect-metadata';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createApp } from '../app.factory';
import { processLogger } from '../common/logger';
import { ConfigError, loadConfig } from '../config/config';
import { banner } from './banner';
import { localDataDir, writeLocalStack } from './local-stack-file';
import { ManagedProcess, startClickHouse, startNats } from './processes';

const DATA = localDataDir(process.env);
// Away from a broker on 4222 and a ClickHouse on 8123/9000; TAPEDECK_LOCAL_PORT_BASE moves all three.
const PORT_BASE = Number(process.env.TAPEDECK_LOCAL_PORT_BASE ?? 14000);
const LOCAL_NATS_PORT = PORT_BASE + 222;
const LOCAL_CH_HTTP_PORT = PORT_BASE + 123;
const LOCAL_CH_TCP_PORT = PORT_BASE + 900;

interface Bootstrap {
  TAPEDECK_BOOTSTRAP_TENANT_ID: string;
  TAPEDECK_BOOTSTRAP_PUBLIC_KEY: string;
  TAPEDECK_BOOTSTRAP_SECRET_KEY: string;
  TAPEDECK_BOOTSTRAP_SIGNING_KEY_ID: string;
  TAPEDECK_BOOTSTRAP_SIGNING_SECRET: string;
  TAPEDECK_ADMIN_TOKEN: string;
}

const keysFile = () => join(DATA, 'bootstrap.json');

function bootstrapKeys(): Bootstrap {
  const file = keysFile();
  if (existsSync(file)) return JSON.parse(readFileSync(file, 'utf8')) as Bootstrap;
  const r = (n = 24) => randomBytes(n).toString('base64url');
  const b: Bootstrap = {
    TAPEDECK_BOOTSTRAP_TENANT_ID: 'demo',
    TAPEDECK_BOOTSTRAP_PUBLIC_KEY: `public_key_svc_${r()}`,
    TAPEDECK_BOOTSTRAP_SECRET_KEY: `secret_key_svc_${r()}`,
    TAPEDECK_BOOTSTRAP_SIGNING_KEY_ID: 'demo-signing-1',
    TAPEDECK_BOOTSTRAP_SIGNING_SECRET: r(32),
    TAPEDECK_ADMIN_TOKEN: r(32),
  };
  writeFileSync(file, JSON.stringify(b, null, 2), { mode: 0o600 });
  return b;
}

/** The stack's parts, stopped in reverse: the service first (it drains into NATS), then the servers. */
class Stack {
  stopping = false;
  app?: NestFastifyApplication;
  private readonly children: { current: ManagedProcess }[] = [];

  /** Starts a child and restarts it whenever it exits while the stack is up. */
  async supervise(start: () => Promise<ManagedProcess>): Promise<void> {
    const holder = { current: await start() };
    this.children.push(holder);
    const watch = (p: ManagedProcess) =>
      p.child.once('exit', (code, signal) => {
        if (this.stopping) return;
        process.stderr.write(`${p.name} exited (${code ?? signal}); restarting in 1 s\n`);
        setTimeout(() => {
          if (this.stopping) return;
          start()
            .then((next) => {
              holder.current = next;
              watch(next);
              if (this.stopping) void next.stop();
            })
            .catch((e) => process.stderr.write(`could not restart ${p.name}: ${String(e)}\n`));
        }, 1000);
      });
    watch(holder.current);
  }

  async stop(signal: NodeJS.Signals = 'SIGTERM'): Promise<void> {
    this.stopping = true;
    if (signal !== 'SIGKILL') await this.app?.close().catch((e) => process.stderr.write(`stopping the service: ${String(e)}\n`));
    await Promise.all(this.children.map((c) => c.current.stop(signal)));
  }
}

const stack = new Stack();
/** When the first stopping signal came; 0 before. */
let firstSignalAt = 0;
/**
 * A terminal's Ctrl-C reaches npm and this process alike (both in the foreground group), and npm
 * passes its SIGINT on: one key press, two signals within milliseconds. Signals this close to the
 * first are that same request; a later one (a second Ctrl-C) kills the servers.
 */
const SAME_SIGNAL_MS = 1000;

/** Stops the stack and exits; during start-up, once the step under way has finished (its children are then known). */
function onSignal(signal: NodeJS.Signals) {
  const now = Date.now();
  if (firstSignalAt > 0 && now - firstSignalAt < SAME_SIGNAL_MS) return;
  const again = firstSignalAt > 0;
  firstSignalAt ||= now;
  if (again) {
    process.stderr.write(`${signal} again: killing NATS and ClickHouse\n`);
    void stack.stop('SIGKILL').finally(() => process.exit(1));
    return;
  }
  process.stderr.write(`\n${signal}: stopping Tapedeck (the service, then NATS and ClickHouse)\n`);
  stack.stopping = true;
  if (started) void finish(0);
}
let started = false;

async function finish(code: number): Promise<never> {
  await stack.stop();
  process.exit(code);
}

/** Runs a start-up step; when a signal came meanwhile, stops the stack and exits instead of going on. */
async function step<T>(run: () => Promise<T>): Promise<T> {
  const value = await run();
  if (stack.stopping) await finish(0);
  return value;
}

async function main() {
  mkdirSync(DATA, { recursive: true });
  const env: Record<string, string | undefined> = { ...process.env };
  if (!env.NATS_URL) {
    await step(() => stack.supervise(() => startNats({ dir: join(DATA, 'nats'), port: LOCAL_NATS_PORT, ownProcessGroup: true })));
    env.NATS_URL = `nats://127.0.0.1:${LOCAL_NATS_PORT}`;
  }
  if (!env.CLICKHOUSE_URL) {
    await step(() =>
      stack.supervise(() =>
        startClickHouse({ dir: join(DATA, 'clickhouse'), httpPort: LOCAL_CH_HTTP_PORT, tcpPort: LOCAL_CH_TCP_PORT, ownProcessGroup: true }),
      ),
    );
    env.CLICKHOUSE_URL = `http://127.0.0.1:${LOCAL_CH_HTTP_PORT}`;
  }
  // A development stack with well-known demo keys: loopback only (both families where localhost has
  // them: Fastify listens on every address the name resolves to), unless HOST says otherwise.
  env.HOST ??= 'localhost';
  const boot = bootstrapKeys();
  for (const [k, v] of Object.entries(boot)) env[k] ??= v;

  let cfg;
  try {
    cfg = loadConfig(env);
  } catch (e) {
    if (!(e instanceof ConfigError)) throw e;
    process.stderr.write(e.message + '\n');
    await stack.stop();
    process.exit(2);
  }
  stack.app = await step(() => createApp(cfg, { shutdownHooks: false, logger: processLogger(cfg.LOG_LEVEL, cfg.LOG_FORMAT) }));
  await step(() => stack.app!.listen({ port: cfg.PORT, host: cfg.HOST }));
  const base = `http://127.0.0.1:${cfg.PORT}`;
  const stackFile = writeLocalStack(DATA, { NATS_URL: cfg.NATS_URL, CLICKHOUSE_URL: cfg.CLICKHOUSE_URL, PUBLIC_BASE_URL: cfg.PUBLIC_BASE_URL || base });
  started = true;
  process.stdout.write(banner({ cfg, base, data: DATA, keysFile: keysFile(), stackFile }));
}

// Before anything starts: a signal during start-up stops what has started so far.
for (const s of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) process.on(s, () => onSignal(s));

main().catch(async (e) => {
  process.stderr.write(`failed to start: ${String((e as Error)?.stack ?? e)}\n`);
  await stack.stop().catch(() => undefined);
  process.exit(1);
});
