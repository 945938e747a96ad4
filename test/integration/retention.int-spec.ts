// Retention sweeps against the shared stack's real nats-server and clickhouse-server (its projector
// projects what is written here). A recording expires by the time the service last stored something
// for it, not by its events' own timestamps, so the sweep is run with a clock moved days ahead.
import { randomBytes, randomUUID } from 'node:crypto';
import { JetStreamEventStore } from '../../src/infrastructure/nats/event-store';
import type { NatsClient } from '../../src/infrastructure/nats/nats-connection';
import type { ClickHouse } from '../../src/infrastructure/clickhouse/clickhouse-client';
import { RecordingDeletion } from '../../src/recordings/recording-deletion.service';
import { RetentionService } from '../../src/retention/retention.service';
import { appendBatch, clickhouse, natsClient, recordingCounts, waitCaughtUp } from '../e2e/projections-fixtures';

jest.setTimeout(60_000);

const DAY = 86_400_000;
const retained = `t_ret_${randomBytes(4).toString('hex')}`;
const unlimited = `t_keep_${randomBytes(4).toString('hex')}`;
const batch = (ts: number) => [{ type: 3, timestamp: ts, data: { source: 1, positions: [] } }];

let nats: NatsClient;
let ch: ClickHouse;
let store: JetStreamEventStore;
let retention: RetentionService;
const tenants = [{ id: retained, retentionDays: 1 }, { id: unlimited }];

beforeAll(async () => {
  nats = await natsClient();
  ch = clickhouse();
  store = new JetStreamEventStore(nats, 10_000);
  retention = new RetentionService(
    {
      listTenants: () => tenants,
      tenant: (id: string) => tenants.find((t) => t.id === id),
    } as never,
    ch,
    new RecordingDeletion(store),
    { migrated: true } as never,
    { RETENTION_SWEEP_SECONDS: 0 } as never,
  );
});

afterAll(async () => {
  await nats?.close();
  await ch?.close();
});

const stored = async (tenantId: string, id: string) => {
  const c = await store.messageCounts(tenantId, id);
  return c.ev + c.meta;
};

describe('RetentionService against ClickHouse and JetStream', () => {
  it('expires recordings by when they were stored: old event timestamps alone delete nothing; metadata-only recordings expire too', async () => {
    const [backdated, metadataOnly, recent, otherTenant] = [randomUUID(), randomUUID(), randomUUID(), randomUUID()];
    // A browser whose clock is three days behind, and a server importing three-day-old history.
    await appendBatch(store, retained, backdated, batch(Date.now() - 3 * DAY));
    await store.appendMetadata(retained, metadataOnly, randomUUID(), { user: 'u-1' });
    await appendBatch(store, retained, recent, batch(Date.now()));
    await appendBatch(store, unlimited, otherTenant, batch(Date.now() - 3 * DAY));
    await waitCaughtUp(nats);
    expect((await recordingCounts(ch, retained, backdated)).batches).toBeGreaterThan(0);

    // Now: everything was stored a moment ago.
    expect(await retention.sweep(Date.now())).toBe(0);
    for (const id of [backdated, metadataOnly, recent]) expect(await stored(retained, id)).toBeGreaterThan(0);

    // Two days on: every recording of the tenant with a one-day period, the metadata-only one too.
    const later = Date.now() + 2 * DAY;
    expect(await retention.expired(retained, later - DAY)).toEqual(expect.arrayContaining([backdated, metadataOnly, recent]));
    expect(await retention.sweep(later)).toBeGreaterThanOrEqual(3);
    for (const id of [backdated, metadataOnly, recent]) expect(await stored(retained, id)).toBe(0);
    expect(await stored(unlimited, otherTenant)).toBe(1);
  });

  it('keeps a recording written to again within the period: the last write counts', async () => {
    const id = randomUUID();
    await appendBatch(store, retained, id, batch(Date.now() - 5 * DAY));
    await waitCaughtUp(nats);
    const firstWritten = Date.now();
    await new Promise((r) => setTimeout(r, 1_200));
    await store.appendMetadata(retained, id, randomUUID(), { later: 'yes' });
    await waitCaughtUp(nats);
    // A cutoff between the two writes: the batch is older, the metadata write is not.
    expect(await retention.expired(retained, firstWritten + 600)).not.toContain(id);
    expect(await retention.expired(retained, Date.now() + 1_000)).toContain(id);
  });
});
