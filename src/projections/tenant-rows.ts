// Erasing a tenant from ClickHouse, the step after its stream messages are gone:
//   1. wait until no projector still holds one of them: every projection's durable consumer has
//      nothing unacknowledged at or below the last sequence they could have had (`awaitProjectorsPast`);
//   2. under every projection's rebuild lock (a rebuild that read the messages before they were
//      deleted would write their rows again), one `ALTER TABLE … DELETE WHERE tenant_id = …` per table
//      that has a tenant_id column: the projection tables and whatever rebuilds left behind
//      (`*_rebuild_*`, `*_old_*`); then wait until none of them holds a row of the tenant
//      (mutations run in the background on a server).
// Idempotent; a bound passed is a StoreUnavailable, and running the deletion again finishes it.
import { StoreUnavailable } from '../common/app-error';
import type { ClickHouse } from '../infrastructure/clickhouse/clickhouse-client';
import { ident, sql } from '../infrastructure/clickhouse/sql';
import { LockHeld, rebuildLocked } from '../infrastructure/migration-lock';
import { isConsumerNotFound } from '../infrastructure/nats/jetstream-errors';
import type { NatsClient } from '../infrastructure/nats/nats-connection';
import { EVENTS_STREAM } from '../infrastructure/nats/subjects';
import { consumerName } from './consumer-config';
import type { Projection } from './projection';
import { PROJECTIONS } from './projections.registry';

export interface TenantRowsTiming {
  /** How long to wait for the projectors (their linger plus an insert when healthy). */
  projectorWaitMs: number;
  /** How long to wait for a running rebuild to finish. */
  rebuildWaitMs: number;
  /** How long to wait for the mutations. */
  mutationWaitMs: number;
  pollMs: number;
}

export const TENANT_ROWS_TIMING: TenantRowsTiming = { projectorWaitMs: 60_000, rebuildWaitMs: 60_000, mutationWaitMs: 300_000, pollMs: 250 };

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * Resolves once no projector can still write a message at or below `seq`: each projection's consumer
 * has nothing delivered and unacknowledged (`num_ack_pending` 0), or has acknowledged everything up to
 * `seq`. Messages it has not been given yet do not matter: the ones that did are deleted.
 */
export async function awaitProjectorsPast(nats: NatsClient, seq: number, timing = TENANT_ROWS_TIMING, projections: readonly Projection[] = PROJECTIONS) {
  const deadline = Date.now() + timing.projectorWaitMs;
  for (const p of projections) {
    for (;;) {
      const info = await nats.jsm.consumers.info(EVENTS_STREAM, consumerName(p)).catch((e: unknown) => {
        if (isConsumerNotFound(e)) return undefined; // no consumer: no projector holds anything
        throw e;
      });
      if (!info || info.num_ack_pending === 0 || info.ack_floor.stream_seq >= seq) break;
      if (Date.now() > deadline) {
        throw new StoreUnavailable(
          `The projector of ${p.name} has not acknowledged the stream up to ${seq} (it is at ${info.ack_floor.stream_seq}); is a projector running? Run the deletion again`,
        );
      }
      await sleep(timing.pollMs);
    }
  }
}

/** Tables of the database that can hold a tenant's rows: every MergeTree table with a tenant_id column. */
export async function tenantTables(ch: ClickHouse): Promise<string[]> {
  const rows = await ch.rows<{ name: string }>(
    sql`SELECT name FROM system.tables WHERE database = currentDatabase() AND engine LIKE '%MergeTree'
          AND name IN (SELECT table FROM system.columns WHERE database = currentDatabase() AND name = 'tenant_id') ORDER BY name`,
  );
  return rows.map((r) => r.name);
}

const rowsOf = async (ch: ClickHouse, table: string, tenantId: string) =>
  Number((await ch.rows<{ n: string | number }>(sql`SELECT count() AS n FROM ${ident(table)} WHERE tenant_id = ${tenantId}`))[0]?.n ?? 0);

/** Deletes the tenant's rows from every table that has them and waits until they are gone; returns the tables that had some. */
export async function eraseTenantRows(
  ch: ClickHouse,
  nats: NatsClient,
  replicas: number,
  tenantId: string,
  timing = TENANT_ROWS_TIMING,
  projections: readonly Projection[] = PROJECTIONS,
): Promise<string[]> {
  return withRebuildsPaused(nats, replicas, projections, timing, async () => {
    const tables: string[] = [];
    for (const t of await tenantTables(ch)) {
      if ((await rowsOf(ch, t, tenantId)) === 0) continue;
      await ch.command(sql`ALTER TABLE ${ident(t)} DELETE WHERE tenant_id = ${tenantId}`);
      tables.push(t);
    }
    const deadline = Date.now() + timing.mutationWaitMs;
    for (const t of tables) {
      while ((await rowsOf(ch, t, tenantId)) > 0) {
        if (Date.now() > deadline) throw new StoreUnavailable(`ClickHouse has not finished deleting the tenant's rows from ${t}; run the deletion again`);
        await sleep(timing.pollMs);
      }
    }
    return tables;
  });
}

/** Runs `work` holding every projection's rebuild lock, waiting up to `rebuildWaitMs` for a running rebuild. */
async function withRebuildsPaused<T>(nats: NatsClient, replicas: number, projections: readonly Projection[], timing: TenantRowsTiming, work: () => Promise<T>) {
  const deadline = Date.now() + timing.rebuildWaitMs;
  const locked = (i: number): Promise<T> => (i === projections.length ? work() : rebuildLocked(nats, replicas, projections[i].name, () => locked(i + 1)));
  for (;;) {
    try {
      return await locked(0);
    } catch (e) {
      if (!(e instanceof LockHeld)) throw e;
      if (Date.now() > deadline) throw new StoreUnavailable(`A projections rebuild is running (${e.holder}); run the deletion again once it has finished`);
      await sleep(1000);
    }
  }
}
