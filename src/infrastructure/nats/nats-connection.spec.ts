import { createServer } from 'node:net';
import { loadConfig } from '../../config/config';
import { NatsClient } from './nats-connection';

/** A loopback port nobody listens on. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as { port: number };
  await new Promise((r) => server.close(r));
  return port;
}

describe('NatsClient.connect', () => {
  it('gives up on an unreachable server after the first-connect window, naming it without credentials', async () => {
    const port = await closedPort();
    const cfg = loadConfig({ NATS_URL: `nats://user:hunter2@127.0.0.1:${port}` });
    const started = Date.now();
    const failure = await NatsClient.connect(cfg, 'test', 1200).then(
      () => 'connected',
      (e: Error) => e.message,
    );
    expect(failure).toMatch(new RegExp(`^Could not connect to NATS at nats://\\[redacted\\]@127\\.0\\.0\\.1:${port} within 1 s: CONNECTION_REFUSED`));
    expect(failure).not.toContain('hunter2');
    // It kept trying for the window, then stopped.
    expect(Date.now() - started).toBeGreaterThanOrEqual(1200);
    expect(Date.now() - started).toBeLessThan(6000);
  });
});
