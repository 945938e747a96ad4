// One process at a time runs the ClickHouse migrations. ClickHouse has no locks, and a migration
// that copies and renames tables (005) wedged the schema when two instances ran it together (seen
// starting two instances on a fresh stack: one renamed `recordings` away while the other dropped its
// copy, and every later attempt failed on the missing table). The lock is a key in a NATS KV bucket,
// created only if absent (atomic on the server), renewed while held, and gone LEASE_MS after a holder
// that died without releasing it. Projection rebuilds take one per projection (without waiting).
import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import { setTimeout as sleep } from 'node:timers/promises';
import type { ClickHouse } from './clickhouse/clickhouse-client';
import { migrate } from './clickhouse/migrator';
import { isWrongLastSequence } from './nats/jetstream-errors';
import type { NatsClient } from './nats/nats-connection';

export const LOCKS_BUCKET = 'tapedeck_locks';
const MIGRATIONS_KEY = 'clickhouse-migrations';

export interface LockTiming {
  leaseMs: number;
  renewMs: number;
  pollMs: number;
}
const DEFAULT_TIMING: LockTiming = { leaseMs: 60_000, renewMs: 15_000, pollMs: 1_000 };

/** The lock is held by another process and the caller chose not to wait. */
export class LockHeld extends Error {
  constructor(readonly holder: string) {
    super(`held by ${holder}`);
  }
}

/**
 * Runs `work` while holding `key`; while another process holds it, waits (polling), or with
 * `wait: false` throws LockHeld naming the holder.
 */
export async function withLock<T>(
  nats: NatsClient,
  replicas: number,
  key: string,
  work: () => Promise<T>,
  timing = DEFAULT_TIMING,
  opts: { wait?: boolean } = {},
): Promise<T> {
  const kv = await nats.js.views.kv(LOCKS_BUCKET, { history: 1, replicas, ttl: timing.leaseMs });
  const owner = new TextEncoder().encode(`${hostname()} pid ${process.pid} ${randomUUID()}`);
  let revision: number;
  for (;;) {
    try {
      revision = await kv.create(key, owner);
      break;
    } catch (e) {
      // Held by another process (the key exists): its holder renews it or it expires.
      if (!isWrongLastSequence(e)) throw e;
      if (opts.wait === false) {
        const held = await kv.get(key).catch(() => null);
        throw new LockHeld(held?.string().split(' ').slice(0, 3).join(' ') || 'another process');
      }
      await sleep(timing.pollMs);
    }
  }
  const renew = setInterval(() => {
    kv.update(key, owner, revision).then(
      (r) => (revision = r),
      () => undefined,
    );
  }, timing.renewMs);
  try {
    return await work();
  } finally {
    clearInterval(renew);
    await kv.delete(key, { previousSeq: revision }).catch(() => undefined);
  }
}

/** The ClickHouse migrations under the lock (the service at start-up, the CLI before a rebuild). */
export function migrateLocked(ch: ClickHouse, nats: NatsClient, replicas: number): Promise<number[]> {
  return withLock(nats, replicas, MIGRATIONS_KEY, () => migrate(ch));
}

/**
 * One rebuild of a projection at a time: two at once each copy the stream into fresh tables and swap
 * them in (the later swap wins, the earlier one's tables are left behind and reported as leftovers).
 */
export function rebuildLocked<T>(nats: NatsClient, replicas: number, projection: string, work: () => Promise<T>): Promise<T> {
  return withLock(nats, replicas, `projection-rebuild.${projection}`, work, DEFAULT_TIMING, { wait: false });
}
