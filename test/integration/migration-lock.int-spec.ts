// The lock the ClickHouse migrations run under, against a nats-server of its own (a fresh bucket with
// a short lease): holders never overlap, a holder that keeps working past the lease keeps the lock
// (it renews it), and the lock of a holder that died is taken over once its lease runs out.
import { mkdtempSync, rmSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import type { NatsClient } from '../../src/infrastructure/nats/nats-connection';
import { LockHeld, LOCKS_BUCKET, withLock } from '../../src/infrastructure/migration-lock';
import { ManagedProcess, startNats } from '../../src/local/processes';
import { natsClient } from '../e2e/projections-fixtures';

jest.setTimeout(60_000);

const TIMING = { leaseMs: 1_500, renewMs: 300, pollMs: 50 };
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

let dir: string;
let server: ManagedProcess & { port: number };
let nats: NatsClient;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'tapedeck-lock-'));
  server = await startNats({ dir });
  nats = await natsClient(`nats://127.0.0.1:${server.port}`);
});

afterAll(async () => {
  await nats?.close();
  await server?.stop();
  rmSync(dir, { recursive: true, force: true });
});

describe('withLock (NATS KV)', () => {
  it('lets one holder at a time work', async () => {
    const spans: [number, number][] = [];
    await Promise.all(
      [1, 2, 3].map(() =>
        withLock(
          nats,
          1,
          'exclusive',
          async () => {
            const start = performance.now();
            await sleep(200);
            spans.push([start, performance.now()]);
          },
          TIMING,
        ),
      ),
    );
    spans.sort((a, b) => a[0] - b[0]);
    expect(spans).toHaveLength(3);
    for (let i = 1; i < spans.length; i++) expect(spans[i][0]).toBeGreaterThanOrEqual(spans[i - 1][1]);
  });

  it('with wait: false refuses at once while the lock is held, naming the holder, and takes it once free', async () => {
    let release!: () => void;
    const held = withLock(nats, 1, 'no-wait', () => new Promise<void>((r) => (release = r)), TIMING);
    try {
      await sleep(100);
      const refused = await withLock(nats, 1, 'no-wait', async () => 'second', TIMING, { wait: false }).catch((e: unknown) => e);
      expect(refused).toBeInstanceOf(LockHeld);
      expect((refused as LockHeld).holder).toBe(`${hostname()} pid ${process.pid}`);
    } finally {
      release();
      await held;
    }
    await expect(withLock(nats, 1, 'no-wait', async () => 'second', TIMING, { wait: false })).resolves.toBe('second');
  });

  it('keeps the lock for a holder working longer than the lease (renewed), then releases it at once', async () => {
    let firstEnd = 0;
    const first = withLock(
      nats,
      1,
      'long',
      async () => {
        await sleep(3 * TIMING.leaseMs);
        firstEnd = performance.now();
      },
      TIMING,
    );
    await sleep(100);
    const secondStart = await withLock(nats, 1, 'long', async () => performance.now(), TIMING);
    await first;
    expect(secondStart).toBeGreaterThanOrEqual(firstEnd);
    expect(secondStart - firstEnd).toBeLessThan(1_000); // released, not expired
  });

  it('takes over the lock of a holder that died once its lease has run out', async () => {
    // A holder that never renews nor releases: the key written directly, as a crashed process leaves it.
    const kv = await nats.js.views.kv(LOCKS_BUCKET);
    await kv.create('orphaned', new TextEncoder().encode('dead holder'));
    const t0 = performance.now();
    const waited = await withLock(nats, 1, 'orphaned', async () => performance.now() - t0, TIMING);
    expect(waited).toBeGreaterThanOrEqual(TIMING.leaseMs * 0.9);
    expect(waited).toBeLessThan(TIMING.leaseMs + 5_000);
  });
});
