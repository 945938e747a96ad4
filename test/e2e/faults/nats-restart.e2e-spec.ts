// nats-server killed with SIGKILL in the middle of ingestion, then started again on the same port
// and data directory. Clients see 503s / error frames during the outage (never a false success),
// retry with the same Idempotency-Key / batch id, and every acknowledged event is stored exactly once.
import { randomUUID } from 'node:crypto';
import { pollUntil } from '../../harness/poll-until';
import { PrivateStack } from '../../harness/private-stack';
import { expectAckedStoredOnce, HttpIngester, WsIngester } from './ingest-clients';

const slow = process.env.TAPEDECK_SLOW_TESTS ? describe : describe.skip;

slow('nats-server killed (SIGKILL) during ingestion and restarted on the same port and data dir', () => {
  let stack: PrivateStack;

  beforeAll(async () => {
    stack = await PrivateStack.start();
    await stack.startService('service');
  });
  afterAll(() => stack?.close());

  /**
   * Kills NATS once every client has acknowledged batches; restarts it once every client saw errors
   * and at least 3 s passed (and, with `readiness`, /readyz said not ready). Returns, per client, the
   * acks received from 2 s after the kill until the restart: none can be true (no NATS could store them).
   */
  async function outage(clients: { acked: Map<string, { at: number }>; failureCount: number }[], readiness = false) {
    await pollUntil(
      async () => clients.map((c) => c.acked.size),
      (n) => n.every((x) => x >= 5),
      30_000,
    );
    const killedAt = Date.now();
    await stack.killNats();
    let restartAt: number;
    try {
      await Promise.all([
        pollUntil(
          async () => clients.map((c) => c.failureCount),
          (n) => n.every((x) => x >= 2) && Date.now() - killedAt >= 3000,
          30_000,
        ),
        // While NATS is away the instance is not ready, and says so within a probe's patience (3 s).
        readiness &&
          pollUntil(
            () => stack.api('/readyz', { signal: AbortSignal.timeout(3000) }).catch(() => undefined),
            (r) => r?.status === 503 && r.json().status === 'not_ready',
            30_000,
          ),
      ]);
    } finally {
      restartAt = Date.now();
      await stack.restartNats();
    }
    const acksDuringOutage = clients.map((c) => [...c.acked.values()].filter((a) => a.at > killedAt + 2000 && a.at < restartAt).length);
    const before = clients.map((c) => c.acked.size);
    await pollUntil(
      async () => clients.map((c, i) => c.acked.size - before[i]),
      (n) => n.every((x) => x >= 5),
      60_000,
    );
    console.log(`nats-server down ${restartAt - killedAt} ms; every client had 5 more acks ${Date.now() - restartAt} ms after the restart`);
    if (readiness)
      await pollUntil(
        () => stack.api('/readyz'),
        (r) => r.status === 200,
        30_000,
      );
    return acksDuringOutage;
  }

  it('HTTP: 503 (and /readyz not ready) during the outage, retries with the same Idempotency-Key, every acknowledged event once, large batches too', async () => {
    const shared = randomUUID();
    const key = stack.keys.publicKey;
    const clients = [
      new HttpIngester(() => stack.url, key, randomUUID(), 'h1'),
      new HttpIngester(() => stack.url, key, shared, 'h2'),
      new HttpIngester(() => stack.url, key, shared, 'h3'),
      // About 110 KB a batch: prepared and stored by a batch thread, on its own NATS connection.
      new HttpIngester(() => stack.url, key, randomUUID(), 'h4', 1000),
    ].map((c) => c.start());
    let acksDuringOutage: number[];
    try {
      acksDuringOutage = await outage(clients, true);
      await Promise.all(clients.map((c) => c.stop()));
    } finally {
      clients.forEach((c) => c.close());
    }

    for (const c of clients) {
      expect(c.unexpected).toEqual([]);
      expect(Object.keys(c.failures).every((k) => k === '503')).toBe(true);
    }
    expect(acksDuringOutage).toEqual([0, 0, 0, 0]);
    console.log(`HTTP: ${await expectAckedStoredOnce(stack.url, stack.keys.secretKey, clients)}`);
  });

  it('WebSocket batch frames: error frames during the outage, resends with the same batch id, every acknowledged event once', async () => {
    const shared = randomUUID();
    const key = stack.keys.publicKey;
    const clients = [
      new WsIngester(() => stack.url, key, randomUUID(), 'w1'),
      new WsIngester(() => stack.url, key, shared, 'w2'),
      new WsIngester(() => stack.url, key, shared, 'w3'),
    ].map((c) => c.start());
    try {
      const acksDuringOutage = await outage(clients);
      await Promise.all(clients.map((c) => c.stop()));
      for (const c of clients) {
        expect(c.unexpected).toEqual([]);
        // The service stays up: the sockets survive the outage; only error frames (503) are seen.
        expect(Object.keys(c.failures)).toEqual(['503']);
      }
      expect(acksDuringOutage).toEqual([0, 0, 0]);
      console.log(`WS: ${await expectAckedStoredOnce(stack.url, stack.keys.secretKey, clients)}`);
    } finally {
      clients.forEach((c) => c.close());
    }
  });
});
