// The local stack's process starts (src/local/processes.ts) against the real nats-server: a start on
// ports it chose itself is tried again when the server exits while starting (a port taken meanwhile).
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connect } from 'nats';
import { startNats } from '../../src/local/processes';

describe('local processes', () => {
  let dir: string;
  beforeEach(() => (dir = mkdtempSync(join(tmpdir(), 'local-processes-'))));
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  /** A nats-server that fails its first `failures` starts, as one whose port was taken would. */
  function flakyNats(failures: number): string {
    const path = join(dir, 'flaky-nats');
    writeFileSync(
      path,
      `#!/bin/sh\nn=$(cat "${dir}/starts" 2>/dev/null || echo 0); echo $((n + 1)) > "${dir}/starts"\n[ "$n" -lt ${failures} ] && { echo "address already in use" >&2; exit 1; }\nexec nats-server "$@"\n`,
      { mode: 0o755 },
    );
    return path;
  }

  it('tries again on new ports when the server exits while starting, and serves', async () => {
    const nats = await startNats({ dir, binary: flakyNats(1) });
    try {
      const nc = await connect({ servers: nats.url });
      expect((await (await nc.jetstreamManager()).getAccountInfo()).limits).toBeDefined();
      await nc.close();
      expect(readFileSync(join(dir, 'starts'), 'utf8').trim()).toBe('2');
    } finally {
      await nats.stop();
    }
  });

  it('gives up after three attempts, and never retries ports the caller chose', async () => {
    await expect(startNats({ dir, binary: flakyNats(3) })).rejects.toThrow(/exited with code 1 while starting/);
    await expect(startNats({ dir: join(dir, 'again'), binary: flakyNats(100), port: 1 })).rejects.toThrow(
      /port 1 on 127.0.0.1 is already in use|exited with code 1/,
    );
  });
});
