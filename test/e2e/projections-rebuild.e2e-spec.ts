// `projections rebuild` against a stack of its own: the rebuild replays the whole stream, so on the
// shared stack its duration grew with what other suites had left there (after the soak's 60 000
// batches it took 120 s, the test's timeout). Here the stream holds only this test's data, and the CLI
// replays it in small batches so that the ingestion going on meanwhile lands in the rebuild's tail.
import { randomUUID } from 'node:crypto';
import type { ClickHouse } from '../../src/infrastructure/clickhouse/clickhouse-client';
import { sql } from '../../src/infrastructure/clickhouse/sql';
import { JetStreamEventStore } from '../../src/infrastructure/nats/event-store';
import type { NatsClient } from '../../src/infrastructure/nats/nats-connection';
import { sampleEvents } from '../harness/http';
import { pollUntil } from '../harness/poll-until';
import { PrivateStack } from '../harness/private-stack';
import {
  appendBatch,
  clickhouse,
  deleteRecording,
  metaEvent,
  natsClient,
  publishRaw,
  recordingCounts,
  runCli,
  snapshot,
  storedHeaders,
  waitCaughtUp,
} from './projections-fixtures';

/** Batches the CLI replays per insert: small, so the replay lasts while the test keeps ingesting. */
const REPLAY_BATCH = '5';
/** Extra recordings (3 batches each) that lengthen the replay. */
const FILLER = 40;

describe('projections rebuild', () => {
  let stack: PrivateStack;
  let ch: ClickHouse;
  let nats: NatsClient;
  let store: JetStreamEventStore;

  beforeAll(async () => {
    stack = await PrivateStack.start();
    await stack.startService('service');
    ch = clickhouse(stack.serviceEnv);
    nats = await natsClient(stack.serviceEnv.NATS_URL);
    store = new JetStreamEventStore(nats, 5000);
  });

  afterAll(async () => {
    await ch?.close();
    await nats?.close();
    await stack?.close();
  });

  const append = (tenantId: string, id: string, events: unknown[], batchId?: string) => appendBatch(store, tenantId, id, events, batchId);
  const rebuildTables = () =>
    ch.rows<{ name: string }>(
      sql`SELECT name FROM system.tables WHERE database = currentDatabase() AND (name LIKE '%\\_rebuild\\_%' OR name LIKE '%\\_old\\_%')`,
    );
  const rebuild = (args: string[]) => runCli(['projections', 'rebuild', ...args, '--batch', REPLAY_BATCH], stack.serviceEnv);

  it('rebuilds from the stream into fresh tables, swaps them in, and equals the live projection', async () => {
    // A dataset with several tenants, metadata overwrites, duplicates and a deletion.
    const tenants = ['rebuild_a', 'rebuild_b', stack.keys.tenantId];
    const ids = tenants.map(() => [randomUUID(), randomUUID()]);
    const t0 = Date.UTC(2031, 5, 1);
    for (const [ti, t] of tenants.entries()) {
      for (const [ri, id] of ids[ti].entries()) {
        for (let b = 0; b < 3; b++)
          await append(t, id, [...sampleEvents(5 + b, t0 + b * 61_000 + ri), metaEvent(t0 + b * 61_000 + 10, { step: String(b), tenant: t })], `${id}-b${b}`);
        await store.appendMetadata(t, id, randomUUID(), { step: 'written', owner: `o${ri}` });
      }
    }
    expect((await append(tenants[0], ids[0][0], sampleEvents(5, t0), `${ids[0][0]}-b0`)).duplicate).toBe(true); // within the window
    const dup = await storedHeaders(nats, (await append(tenants[1], ids[1][0], sampleEvents(4, t0 + 5), `${ids[1][0]}-dup`)).seq);
    await publishRaw(nats, dup.subject, dup.data, dup.headers, `late-${randomUUID()}`); // stored twice
    await deleteRecording(nats, tenants[1], ids[1][1]);
    await append(tenants[2], ids[2][1], sampleEvents(3, t0 + 999_000), `${ids[2][1]}-late`);
    // A keyframe split over two batches: a Meta waiting at the end of one, its FullSnapshot opening the next.
    const [kfMeta, kfSnapshot] = sampleEvents(2, t0 + 1_500_000);
    await append(tenants[2], ids[2][1], [...sampleEvents(3, t0 + 1_400_000).slice(2), kfMeta], `${ids[2][1]}-meta`);
    await append(tenants[2], ids[2][1], [kfSnapshot], `${ids[2][1]}-snapshot`);
    await Promise.all(
      Array.from({ length: FILLER }, async (_, i) => {
        const id = randomUUID();
        for (let b = 0; b < 3; b++) await append('rebuild_filler', id, sampleEvents(4, t0 + i * 1000 + b * 100));
      }),
    );

    await waitCaughtUp(nats);
    const live = await snapshot(ch);
    expect(live.recording_batches.length).toBeGreaterThan(15 + 3 * FILLER);
    expect(live.deleted_recordings.some((r) => r.recording_id === ids[1][1])).toBe(true);
    expect(live.recording_keyframes.filter((r) => r.recording_id === ids[2][1]).map((r) => r.kind)).toEqual(['kf', 'kf', 'kf', 'kf', 'meta', 'open']);

    // Ingestion continues during the rebuild: what the live projector writes into the old tables in
    // the meantime must reach the new ones (the tail).
    const during = randomUUID();
    const cli = rebuild(['recordings']);
    let finished = false;
    const ended = cli.done.then((r) => ((finished = true), r));
    let posted = 0;
    while (!finished) {
      const r = await stack.api(`/recordings/${during}/events`, {
        method: 'POST',
        key: stack.keys.publicKey,
        headers: { 'content-type': 'application/json', 'idempotency-key': `during-${posted}` },
        body: JSON.stringify(sampleEvents(3, Date.now())),
      });
      expect(r.status).toBe(200);
      posted++;
      await new Promise((r) => setTimeout(r, 50));
    }
    const r = await ended;
    expect(r).toMatchObject({ code: 0, stderr: expect.stringMatching(/recordings rebuild \[#+\] 100\.0%/) });
    const report = JSON.parse(r.stdout);
    expect(report).toMatchObject({ projection: 'recordings' });
    expect(report.replayed).toBeGreaterThanOrEqual(report.expected);
    expect(report.tail).toBeGreaterThan(0);
    expect(posted).toBeGreaterThan(0);

    await waitCaughtUp(nats);
    const rebuilt = await snapshot(ch);
    const withoutDuring = Object.fromEntries(Object.entries(rebuilt).map(([t, rows]) => [t, rows.filter((x) => x.recording_id !== during)]));
    expect(withoutDuring).toEqual(live);
    expect(await recordingCounts(ch, stack.keys.tenantId, during)).toMatchObject({ batches: posted, events: 3 * posted });

    // Nothing of the rebuild is left behind, and a second rebuild (no ingestion) equals the first.
    const tables = await rebuildTables();
    expect(tables).toEqual([]);
    expect(await rebuild([]).done).toMatchObject({ code: 0 });
    await waitCaughtUp(nats);
    expect(await snapshot(ch)).toEqual(rebuilt);
  });

  it('stops at Ctrl-C before its swap, drops its fresh tables and leaves the live ones alone', async () => {
    await waitCaughtUp(nats);
    const before = await snapshot(ch);
    const cli = runCli(['projections', 'rebuild', '--batch', '1'], stack.serviceEnv);
    await pollUntil(
      async () => cli.stderr(),
      (e) => /recordings rebuild \[/.test(e),
      30_000,
      50,
    );
    // A second rebuild meanwhile is refused at once, naming the one running (which stays unharmed).
    const second = await runCli(['projections', 'rebuild', 'recordings'], stack.serviceEnv).done;
    expect(second).toMatchObject({ code: 1, stderr: expect.stringMatching(/another rebuild of recordings is running \(\S+ pid \d+\)/) });
    expect(second.stderr).not.toMatch(/note: .*leftover/);
    cli.child.kill('SIGINT');
    const r = await cli.done;
    expect(r).toMatchObject({ code: 130, stderr: expect.stringMatching(/stopped before its swap; its fresh tables were dropped/) });
    const tables = await rebuildTables();
    expect(tables).toEqual([]);
    expect(await snapshot(ch)).toEqual(before);
  });
});
