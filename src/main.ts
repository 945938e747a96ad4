import 'reflect-metadata';
import { createApp } from './app.factory';
import { ConfigError, loadConfig } from './config/config';

async function main() {
  let cfg;
  try {
    cfg = loadConfig();
  } catch (e) {
    if (e instanceof ConfigError) {
      process.stderr.write(e.message + '\n');
      process.exit(2);
    }
    throw e;
  }
  const app = await createApp(cfg);
  await app.listen({ port: cfg.PORT, host: cfg.HOST });
  const url = await app.getUrl();
  process.stdout.write(JSON.stringify({ level: 30, time: Date.now(), msg: 'tapedeck listening', url, role: cfg.TAPEDECK_ROLE }) + '\n');
}

main().catch((e) => {
  process.stderr.write(JSON.stringify({ level: 60, time: Date.now(), msg: 'failed to start', err: String((e as Error)?.stack ?? e) }) + '\n');
  process.exit(1);
});
