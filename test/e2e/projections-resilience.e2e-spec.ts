// The projector survives its own death and a ClickHouse outage: a projector process killed with
// SIGKILL while holding unacknowledged messages loses nothing and counts nothing twice (its messages
// come back after ack_wait to the other workers), and batches ingested while ClickHouse is frozen
// are projected once it answers again.
import { randomUUID } from 'node:crypto';
import type { ClickHouse } from '../../src/infrastructure/clickhouse/clickhouse-client';
import type { NatsClient } from '../../src/infrastructure/nats/nats-connection';
import { testEnv } from '../harness/env';
import { postEvents, sampleEvents } from '../harness/http';
import { pollUntil } from '../harness/poll-until';
import { ServiceProcess, startService } from '../harness/stack';
import { EVENTS_STREAM } from '../../src/infrastructure/nats/subjects';
import { clickhouse, CONSUMER, natsClient, recordingCounts, waitCaughtUp } from './projections-fixtures';

let ch: ClickHouse;
let nats: NatsClient;
const extra: ServiceProcess[] = [];

beforeAll(async () => {
  ch = clickhouse();
  nats = await natsClient();
});

afterAll(async () => {
  process.kill(testEnv().pids.clickhouse, 'SIGCONT');
  process.kill(testEnv().pids.nats, 'SIGCONT');
  await Promise.all(extra.map((s) => s.stop()));
  await ch?.close();
  await nats?.close();
});

const projector = async (name: string, env: Record<string, string>) => {
  const s = await startService({ ...testEnv().serviceEnv, TAPEDECK_ROLE: 'projector', ...env }, testEnv().dir, name);
  extra.push(s);
  return s;
};

async function postMany(id: string, from: number, to: number, eventsPer: number) {
  for (let i = from; i < to; i += 5) {
    const batch = [];
    for (let j = i; j < Math.min(to, i + 5); j++)
      batch.push(postEvents(id, sampleEvents(eventsPer, Date.now() + j), undefined, { 'idempotency-key': `k-${j}` }));
    for (const r of await Promise.all(batch)) expect(r.status).toBe(200);
  }
}

describe('projector resilience', () => {
  it('a projector killed mid-way neither loses nor double counts once another takes over', async () => {
    await waitCaughtUp(nats);
    const id = randomUUID();
    const tenantId = testEnv().tenantId;
    // B long-polls, so it always has a pull request waiting; frozen, it is handed messages it never acks.
    const b = await projector('projector-b', { PROJECTOR_BATCH: '4', PROJECTOR_FETCH_EXPIRES_MS: '10000' });
    await postMany(id, 0, 10, 7);
    await waitCaughtUp(nats); // B idle again, its next long poll waiting
    process.kill(b.child.pid!, 'SIGSTOP');
    await postMany(id, 10, 30, 7);
    const held = await pollUntil(
      () => nats.jsm.consumers.info(EVENTS_STREAM, CONSUMER),
      (ci) => ci.num_pending === 0 && ci.num_ack_pending > 0,
      10_000,
    );
    b.child.kill('SIGKILL');
    expect((await recordingCounts(ch, tenantId, id)).batches).toBeLessThan(30);
    await postMany(id, 30, 60, 7);
    await projector('projector-c', {});
    // B's messages come back after ack_wait (30 s) to A or C.
    const c = await pollUntil(
      () => recordingCounts(ch, tenantId, id),
      (x) => x.batches === 60 && x.minuteEvents === 420,
      90_000,
      250,
    );
    expect(c).toMatchObject({ batches: 60, events: 60 * 7, minuteEvents: 60 * 7 });
    expect(held.num_ack_pending).toBeGreaterThan(0);
    await waitCaughtUp(nats, 90_000);
    expect(await recordingCounts(ch, tenantId, id)).toMatchObject({ batches: 60, events: 420 });
  });

  it('catches up after ClickHouse was frozen during ingestion', async () => {
    const id = randomUUID();
    const pid = testEnv().pids.clickhouse;
    process.kill(pid, 'SIGSTOP');
    try {
      await postMany(id, 0, 20, 5);
      await new Promise((r) => setTimeout(r, 3000)); // the outage itself
    } finally {
      process.kill(pid, 'SIGCONT');
    }
    const c = await pollUntil(
      () => recordingCounts(ch, testEnv().tenantId, id),
      (x) => x.batches === 20 && x.minuteEvents === 100,
      90_000,
      250,
    );
    expect(c).toMatchObject({ batches: 20, events: 100, minuteEvents: 100 });
  });

  it('keeps projecting after NATS stalled long enough for every client to reconnect', async () => {
    const pid = testEnv().pids.nats;
    process.kill(pid, 'SIGSTOP');
    try {
      await new Promise((r) => setTimeout(r, 16_000)); // the outage itself: past the clients' ping timeout
    } finally {
      process.kill(pid, 'SIGCONT');
    }
    const id = randomUUID();
    const events = sampleEvents(5); // a retry resends the same batch under its key
    await pollUntil(
      () => postEvents(id, events, undefined, { 'idempotency-key': 'after-stall' }),
      (r) => r.status === 200,
      30_000,
      250,
    );
    const c = await pollUntil(
      () => recordingCounts(ch, testEnv().tenantId, id),
      (x) => x.batches === 1 && x.minuteEvents === 5,
      60_000,
      250,
    );
    expect(c).toMatchObject({ batches: 1, events: 5 });
  });
});
