import 'reflect-metadata';
import { createApp } from './app.factory';
import { createLogger, processLogger } from './common/logger';
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
  const logger = processLogger(cfg.LOG_LEVEL, cfg.LOG_FORMAT);
  const app = await createApp(cfg, { logger });
  await app.listen({ port: cfg.PORT, host: cfg.HOST });
  logger.info({ url: await app.getUrl(), role: cfg.TAPEDECK_ROLE }, 'tapedeck listening');
}

main().catch((e) => {
  // Whatever LOG_LEVEL says: a service that did not start says why.
  createLogger('fatal').fatal({ err: String((e as Error)?.stack ?? e) }, 'failed to start');
  process.exit(1);
});
