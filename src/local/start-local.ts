// `npm start`: the whole local stack in one process tree. Starts nats-server (JetStream) and
// clickhouse-server as supervised children with data under ./.data/ (unless NATS_URL /
// CLICKHOUSE_URL point elsewhere), generates the demo tenant's keys once, then serves the API with
// projectors in-process. Ctrl-C stops the service first, then the children.
import 'reflect-metadata';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { createApp } from '../app.factory';
import { withoutCredentials } from '../common/redact';
import { ConfigError, loadConfig } from '../config/config';
import { ManagedProcess, startClickHouse, startNats } from './processes';

const DATA = resolve(process.env.TAPEDECK_DATA_DIR ?? '.data');
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

function bootstrapKeys(): Bootstrap {
  const file = join(DATA, 'bootstrap.json');
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

/** Restarts a child that exits while the stack is up. */
function supervise(start: () => Promise<ManagedProcess>, state: { stopping: boolean }): Promise<{ current: ManagedProcess }> {
  return start().then((first) => {
    const holder = { current: first };
    const watch = (p: ManagedProcess) =>
      p.child.once('exit', (code, signal) => {
        if (state.stopping) return;
        process.stderr.write(`${p.name} exited (${code ?? signal}); restarting in 1 s\n`);
        setTimeout(() => {
          start()
            .then((next) => {
              holder.current = next;
              watch(next);
            })
            .catch((e) => process.stderr.write(`could not restart ${p.name}: ${String(e)}\n`));
        }, 1000);
      });
    watch(first);
    return holder;
  });
}

async function main() {
  mkdirSync(DATA, { recursive: true });
  const state = { stopping: false };
  const children: { current: ManagedProcess }[] = [];
  const env: Record<string, string | undefined> = { ...process.env };
  if (!env.NATS_URL) {
    children.push(await supervise(() => startNats({ dir: join(DATA, 'nats'), port: LOCAL_NATS_PORT }), state));
    env.NATS_URL = `nats://127.0.0.1:${LOCAL_NATS_PORT}`;
  }
  if (!env.CLICKHOUSE_URL) {
    children.push(await supervise(() => startClickHouse({ dir: join(DATA, 'clickhouse'), httpPort: LOCAL_CH_HTTP_PORT, tcpPort: LOCAL_CH_TCP_PORT }), state));
    env.CLICKHOUSE_URL = `http://127.0.0.1:${LOCAL_CH_HTTP_PORT}`;
  }
  // A development stack with well-known demo keys: loopback only (both families where localhost has
  // them: Fastify listens on every address the name resolves to), unless HOST says otherwise.
  env.HOST ??= 'localhost';
  const boot = bootstrapKeys();
  for (const [k, v] of Object.entries(boot)) env[k] ??= v;
  const stopChildren = async () => {
    state.stopping = true;
    await Promise.all(children.map((c) => c.current.stop()));
  };

  let cfg;
  try {
    cfg = loadConfig(env);
  } catch (e) {
    await stopChildren();
    if (e instanceof ConfigError) {
      process.stderr.write(e.message + '\n');
      process.exit(2);
    }
    throw e;
  }
  const app = await createApp(cfg, { shutdownHooks: false });
  await app.listen({ port: cfg.PORT, host: cfg.HOST });
  const base = `http://127.0.0.1:${cfg.PORT}`;
  const id = '00000000-0000-4000-8000-000000000001';
  process.stdout.write(
    [
      '',
      `Tapedeck is running at ${base}`,
      `  NATS ${withoutCredentials(cfg.NATS_URL)}   ClickHouse ${withoutCredentials(cfg.CLICKHOUSE_URL)}   data ${DATA}`,
      `  tenant:       ${cfg.TAPEDECK_BOOTSTRAP_TENANT_ID}`,
      `  public key:   ${cfg.TAPEDECK_BOOTSTRAP_PUBLIC_KEY}`,
      `  private key:  ${cfg.TAPEDECK_BOOTSTRAP_SECRET_KEY}`,
      `  signing key:  ${cfg.TAPEDECK_BOOTSTRAP_SIGNING_KEY_ID}`,
      `  admin token:  ${cfg.TAPEDECK_ADMIN_TOKEN}   (keys are kept in ${join(DATA, 'bootstrap.json')})`,
      '',
      'Try it:',
      `  curl -s -X POST ${base}/recordings/${id}/events -H 'Authorization: Bearer ${cfg.TAPEDECK_BOOTSTRAP_PUBLIC_KEY}' -H 'Content-Type: application/json' \\`,
      `    -d '[{"type":4,"timestamp":1700000000000,"data":{"href":"https://example.com","width":1280,"height":720}}]'`,
      `  curl -s ${base}/recordings/${id}/events -H 'Authorization: Bearer ${cfg.TAPEDECK_BOOTSTRAP_SECRET_KEY}'`,
      `  curl -s ${base}/readyz`,
      '',
      'Ctrl-C stops everything.',
      '',
    ].join('\n'),
  );

  let closing = false;
  const shutdown = async (signal: string) => {
    if (closing) return;
    closing = true;
    process.stderr.write(`\n${signal}: stopping Tapedeck\n`);
    await app.close().catch(() => undefined);
    await stopChildren();
    process.exit(0);
  };
  process.on('SIGINT', () => void shutdown('SIGINT'));
  process.on('SIGTERM', () => void shutdown('SIGTERM'));
}

main().catch((e) => {
  process.stderr.write(`failed to start: ${String((e as Error)?.stack ?? e)}\n`);
  process.exit(1);
});
