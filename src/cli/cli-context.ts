// The clients a CLI run needs, opened on first use and closed once the command ends.
import { withoutCredentials } from '../common/redact';
import type { AppConfig } from '../config/config';
import { ClickHouse } from '../infrastructure/clickhouse/clickhouse-client';
import { NatsClient } from '../infrastructure/nats/nats-connection';
import type { CliContext } from './command';

const NATS_CONNECT_TIMEOUT_MS = 15_000;

/** `natsFrom`: the file NATS_URL was read from (local-stack.env), named when NATS does not answer. */
export function createCliContext(cfg: AppConfig, natsFrom?: string): CliContext & { close(): Promise<void> } {
  let nats: Promise<NatsClient> | undefined;
  let ch: ClickHouse | undefined;
  return {
    cfg,
    stdout: process.stdout,
    stderr: process.stderr,
    nats() {
      const hint = natsFrom ? ` (NATS_URL from ${natsFrom}: is npm start running? Set NATS_URL to reach another server)` : '';
      nats ??= Promise.race([
        NatsClient.connect(cfg, 'tapedeck-cli', NATS_CONNECT_TIMEOUT_MS),
        new Promise<never>((_, reject) =>
          setTimeout(
            () => reject(new Error(`NATS at ${withoutCredentials(cfg.NATS_URL)} did not answer within ${NATS_CONNECT_TIMEOUT_MS / 1000} s`)),
            NATS_CONNECT_TIMEOUT_MS,
          ).unref(),
        ),
      ]).catch((e: unknown) => {
        throw new Error(`${String((e as Error)?.message ?? e)}${hint}`);
      });
      return nats;
    },
    clickhouse() {
      ch ??= new ClickHouse(cfg);
      return ch;
    },
    async close() {
      await ch?.close().catch(() => undefined);
      const n = await nats?.catch(() => undefined);
      await n?.close();
    },
  };
}
