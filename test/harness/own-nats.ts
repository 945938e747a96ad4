// A nats-server of a spec's own, for specs that freeze (SIGSTOP), kill or restart it without touching
// the shared test stack: the service's streams provisioned and a client connected before the spec's
// tests, everything stopped and removed after them.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig } from '../../src/config/config';
import { NatsClient } from '../../src/infrastructure/nats/nats-connection';
import { provisionStreams } from '../../src/infrastructure/nats/stream-provisioner';
import { ManagedProcess, startNats } from '../../src/local/processes';

export interface OwnNats {
  dir: string;
  /** Reassign after a restart on the same port and directory: `own.server = await startNats({ dir: own.dir, port: own.server.port })`. */
  server: ManagedProcess & { port: number };
  nats: NatsClient;
}

export function useOwnNats(name: string): OwnNats {
  const own = {} as OwnNats;
  beforeAll(async () => {
    own.dir = mkdtempSync(join(tmpdir(), `tapedeck-${name}-`));
    own.server = await startNats({ dir: own.dir });
    const cfg = loadConfig({ NATS_URL: own.server.url });
    own.nats = await NatsClient.connect(cfg, name);
    await provisionStreams(own.nats, cfg);
  });
  afterAll(async () => {
    own.server?.child.kill('SIGCONT'); // a spec that failed while the server was frozen
    await own.nats?.close().catch(() => undefined);
    await own.server?.stop('SIGKILL');
    if (own.dir) rmSync(own.dir, { recursive: true, force: true });
  });
  return own;
}
