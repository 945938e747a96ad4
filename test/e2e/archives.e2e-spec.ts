// Recording archives (docs/archives.md) against a stack of its own, over HTTP and the CLI as an
// operator runs them: a sealed recording answers GET …/events (whole, windows, gzip) with the same
// bytes as before; `projections rebuild` after sealing gives the same tables (activity included);
// the sealing process killed (SIGKILL) after each step, or nats-server killed between the commit and
// the removal, loses and doubles nothing and the next seal finishes; clickhouse-server killed while the
// projector role's seal is held at each step neither stops the seal nor changes the projections;
// DELETE removes the archive, and a deletion racing a seal that dies before its own check leaves no
// message or archive behind; the projector role seals idle recordings by itself and counts them in /metrics.
import { randomUUID } from 'node:crypto';
import { isDeepStrictEqual } from 'node:util';
import type { ClickHouse } from '../../src/infrastructure/clickhouse/clickhouse-client';
import { ident, join, sql } from '../../src/infrastructure/clickhouse/sql';
import { ArchiveStore } from '../../src/infrastructure/nats/archive-store';
import type { NatsClient } from '../../src/infrastructure/nats/nats-connection';
import { SealStates } from '../../src/infrastructure/nats/seal-states';
import { EVENTS_STREAM, recordingSubject, recordingWildcard } from '../../src/infrastructure/nats/subjects';
import { api, sampleEvents } from '../harness/http';
import { pollUntil } from '../harness/poll-until';
import { PrivateStack } from '../harness/private-stack';
import { stopped } from '../harness/proc';
import { evMessages as sealedMessages } from '../harness/stream-messages';
import { clickhouse, deleteRecording, metaEvent, natsClient, recordingCounts, runCli, snapshot, waitCaughtUp } from './projections-fixtures';

jest.setTimeout(240_000);

const T0 = Date.UTC(2033, 0, 1);
/** Batch b of a recording: Meta + FullSnapshot every third batch, clicks and text (activity rows), ten events a second. */
function batch(b: number) {
  const at = T0 + b * 1000;
  const events: { type: number; timestamp: number; data: unknown }[] = sampleEvents(10, at, { href: `https://example.test/p${Math.floor(b / 3)}` }).map(
    (e, i) => ({
      ...e,
      timestamp: at + i * 100,
    }),
  );
  if (b % 3 !== 0)
    events.splice(
      0,
      2,
      { type: 3, timestamp: at, data: { source: 2, type: 2, id: 5, x: 10 + b, y: 20 } },
      { type: 3, timestamp: at + 100, data: { source: 5, id: 6, text: `t${b}`, isChecked: false } },
    );
  if (b === 0) events.push(metaEvent(at + 950, { userId: 'u-archive', plan: 'pro' }));
  return events;
}

describe('recording archives', () => {
  let stack: PrivateStack;
  let ch: ClickHouse;
  let nats: NatsClient;
  let archives: ArchiveStore;
  let env: Record<string, string>;

  beforeAll(async () => {
    stack = await PrivateStack.start();
    env = { ...stack.serviceEnv, ARCHIVE_REMOVE_DELAY_SECONDS: '0', ARCHIVE_IDLE_SECONDS: '0' };
    await stack.startService('service', env);
    ch = clickhouse(stack.serviceEnv);
    nats = await natsClient(stack.serviceEnv.NATS_URL);
    archives = new ArchiveStore(nats);
  });

  afterAll(async () => {
    await ch?.close();
    await nats?.close();
    await stack?.close();
  });

  const post = (id: string, events: unknown) =>
    stack.api(`/recordings/${id}/events`, {
      method: 'POST',
      key: stack.keys.publicKey,
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(events),
    });
  async function record(batches = [0, 1, 2, 3, 5, 4, 6, 7]): Promise<string> {
    const id = randomUUID();
    for (const b of batches) expect((await post(id, batch(b))).status).toBe(200);
    await waitCaughtUp(nats);
    return id;
  }
  const seal = (id: string, extra: Record<string, string> = {}) => runCli(['recordings', 'seal', stack.keys.tenantId, id, '--json'], { ...env, ...extra });
  /** Every read that must answer the same bytes sealed as unsealed (gzip: as sent, and decoded). */
  async function reads(id: string) {
    const out: Record<string, string | null> = {};
    for (const q of ['', '?from=offset:2500&to=offset:5200', '?from=percent:60', '?limit=13', '?from=offset:3100']) {
      const r = await stack.api(`/recordings/${id}/events${q}`);
      expect(r.status).toBe(200);
      out[q] = r.text;
    }
    const raw = await fetch(`${stack.url}/recordings/${id}/events`, {
      headers: { authorization: `Bearer ${stack.keys.secretKey}`, 'accept-encoding': 'gzip' },
    });
    out.gzipEncoding = raw.headers.get('content-encoding');
    out.gzipBody = await raw.text();
    return out;
  }
  const mine = async (id: string) => (await archives.list()).filter((o) => o.name.includes(`.${id}.`)).map((o) => o.name);
  const evMessages = (id: string) => sealedMessages(nats, stack.keys.tenantId, id);
  async function activity() {
    const q = (table: string, order: string[]) =>
      ch.rows<Record<string, unknown>>(sql`SELECT * FROM ${ident(table)} FINAL ORDER BY ${join(order.map(ident), ', ')}`);
    return {
      activity: await q('recording_activity', ['tenant_id', 'recording_id', 'seq', 'idx']),
      nodes: await q('recording_activity_nodes', ['tenant_id', 'recording_id', 'node_id', 'seq']),
      batches: await q('recording_activity_batches', ['tenant_id', 'recording_id', 'seq']),
      timeline: await q('recording_activity_timeline', ['tenant_id', 'recording_id', 'seq', 'kind', 'idx', 'node_id']),
    };
  }

  it('answers the same bytes sealed, and a rebuild after sealing gives the same tables', async () => {
    const id = await record();
    const before = await reads(id);
    expect(before.gzipEncoding).toBe('gzip');
    const tables = await snapshot(ch);
    const act = await activity();
    expect(act.activity.length).toBeGreaterThan(0);

    const r = await seal(id).done;
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ recordingId: id, status: 'sealed', batches: 8 });
    expect(await evMessages(id)).toEqual({ sealed: 8, raw: 0 });
    expect(await reads(id)).toEqual(before);
    await waitCaughtUp(nats);
    expect(await snapshot(ch)).toEqual(tables);

    const rebuilt = await runCli(['projections', 'rebuild'], env).done;
    expect(rebuilt.code).toBe(0);
    expect(await snapshot(ch)).toEqual(tables);
    expect(await activity()).toEqual(act);

    const status = await runCli(['recordings', 'archives', '--json'], env).done;
    const sum = JSON.parse(status.stdout) as { sealed: number; rawBytes: number; archiveBytes: number };
    expect(sum.sealed).toBeGreaterThanOrEqual(1);
    expect(sum.archiveBytes).toBeLessThan(sum.rawBytes);

    // Deleted: the archive and its state go with the messages.
    expect(await mine(id)).toHaveLength(1);
    expect((await stack.api(`/recordings/${id}`, { method: 'DELETE' })).status).toBeLessThan(300);
    expect(await mine(id)).toEqual([]);
    expect(await new SealStates(nats).get(stack.keys.tenantId, id)).toBeUndefined();
    expect((await stack.api(`/recordings/${id}/events`)).status).toBe(404);
  });

  it('answers a large sealed recording from its records alone, and merges whenever anything else is among them', async () => {
    // 40 batches, two out of order: past the size at which a whole read looks for the records first.
    const order = Array.from({ length: 40 }, (_, b) => (b === 20 ? 21 : b === 21 ? 20 : b));
    const id = await record(order);
    const before = await reads(id);
    // Cut short after its commit: the old messages and the records both there (the merge's answer).
    expect((await seal(id, { ARCHIVE_CRASH_AFTER: 'published' }).done).code).toBeNull();
    expect(await evMessages(id)).toEqual({ sealed: 40, raw: 40 });
    expect(await reads(id)).toEqual(before);
    expect(JSON.parse((await seal(id).done).stdout)).toMatchObject({ status: 'sealed', batches: 40 });
    expect(await evMessages(id)).toEqual({ sealed: 40, raw: 0 });
    const [name] = await mine(id);
    expect((await archives.load(name))?.index.records).toBe(40);
    expect(await reads(id)).toEqual(before);

    // A late batch after the records: merged with them, its events last.
    expect((await post(id, batch(40))).status).toBe(200);
    const late = JSON.parse((await stack.api(`/recordings/${id}/events`)).text) as unknown[];
    const whole = JSON.parse(before['']!) as unknown[];
    expect(late.length).toBe(whole.length + batch(40).length);
    expect(late.slice(0, whole.length)).toEqual(whole);
  });

  it.each(['sealing', 'archived', 'published', 'removing'])(
    'loses and doubles nothing when the sealing process is killed (SIGKILL) after "%s"',
    async (step) => {
      const id = await record();
      const before = await reads(id);
      const killed = seal(id, { ARCHIVE_CRASH_AFTER: step });
      const r = await killed.done;
      expect(r.code).toBeNull();
      expect(killed.child.signalCode).toBe('SIGKILL');
      expect(await reads(id)).toEqual(before);
      const again = await seal(id).done;
      expect(again.code).toBe(0);
      expect(JSON.parse(again.stdout)).toMatchObject({ status: 'sealed' });
      expect(await reads(id)).toEqual(before);
      expect(await evMessages(id)).toEqual({ sealed: 8, raw: 0 });
      expect(await mine(id)).toHaveLength(1);
    },
  );

  it('loses and doubles nothing when nats-server is killed between the commit and the removal', async () => {
    const id = await record();
    const before = await reads(id);
    const tables = await snapshot(ch);
    // The seal waits 5 s after its commit before removing: nats-server dies then.
    const cli = seal(id, { ARCHIVE_REMOVE_DELAY_SECONDS: '5' });
    await pollUntil(
      () => evMessages(id),
      (c) => c.sealed === 8,
      20_000,
      100,
    );
    await stack.killNats();
    await stack.restartNats();
    const first = await Promise.race([cli.done, new Promise<null>((r) => setTimeout(() => r(null), 30_000))]);
    if (first === null) cli.child.kill('SIGKILL');
    await pollUntil(
      () => stack.api(`/recordings/${id}/events`).then((r) => r.status),
      (s) => s === 200,
      60_000,
      250,
    );
    expect(await reads(id)).toEqual(before);
    const again = await seal(id).done;
    expect(again.code).toBe(0);
    expect(await reads(id)).toEqual(before);
    expect(await evMessages(id)).toEqual({ sealed: 8, raw: 0 });
    expect(await mine(id)).toHaveLength(1);
    await waitCaughtUp(nats);
    expect(await snapshot(ch)).toEqual(tables);
  });

  /** Messages the stream holds of the recording, by subject. */
  async function storedSubjects(id: string): Promise<Record<string, number>> {
    const info = await nats.jsm.streams.info(EVENTS_STREAM, { subjects_filter: recordingWildcard(stack.keys.tenantId, id) });
    return (info.state.subjects ?? {}) as Record<string, number>;
  }

  /** A CLI seal of `id` stopped (SIGSTOP) after step `hold`, to be killed (SIGKILL) after step `crash` once let on (SIGCONT). */
  async function heldSeal(id: string, hold: string, crash: string) {
    const cli = seal(id, { ARCHIVE_HOLD_AFTER: hold, ARCHIVE_CRASH_AFTER: crash });
    const pid = cli.child.pid!;
    await pollUntil(
      async () => stopped(pid),
      (s) => s,
      30_000,
      50,
    );
    return cli;
  }

  it('leaves nothing behind when a deletion races a seal that dies between its records and its own check', async () => {
    const id = await record();
    const tenant = stack.keys.tenantId;
    // The seal stops itself once its archive is verified, and dies (SIGKILL) right after its records.
    const cli = await heldSeal(id, 'archived', 'published');
    // Meanwhile a deletion stores its marker, and its process dies before deleting a message: the
    // window in which the seal's records (each expecting the recording's last batch message, which a
    // marker on its own subject does not change) still go in, above the marker.
    await deleteRecording(nats, tenant, id);
    cli.child.kill('SIGCONT');
    await cli.done;
    expect(cli.child.signalCode).toBe('SIGKILL');
    expect(await evMessages(id)).toEqual({ sealed: 8, raw: 8 });
    // The next read finishes the deletion, as it finishes any deletion cut short after its marker.
    expect((await stack.api(`/recordings/${id}/events`)).status).toBe(404);
    expect(await storedSubjects(id)).toEqual({ [recordingSubject(tenant, id, 'del')]: 1 });
    expect(await mine(id)).toEqual([]);
    expect(await new SealStates(nats).get(tenant, id)).toBeUndefined();
    const again = await seal(id).done;
    expect(JSON.parse(again.stdout)).toMatchObject({ status: 'empty' });
    expect(await storedSubjects(id)).toEqual({ [recordingSubject(tenant, id, 'del')]: 1 });
  });

  it('sweeps the archive of a seal that dies between its archive and its records while a deletion runs to its end', async () => {
    const id = await record();
    const tenant = stack.keys.tenantId;
    // The seal stops itself once its seal state names the archive (not put yet), and dies right after putting it.
    const cli = await heldSeal(id, 'sealing', 'archived');
    // The whole deletion meanwhile: it finds the seal state, but the archive it names is not there yet.
    expect((await stack.api(`/recordings/${id}`, { method: 'DELETE' })).status).toBe(204);
    cli.child.kill('SIGCONT');
    await cli.done;
    expect(cli.child.signalCode).toBe('SIGKILL');
    // Left: the archive alone, named by no record and no seal state.
    expect(await mine(id)).toHaveLength(1);
    expect(await storedSubjects(id)).toEqual({ [recordingSubject(tenant, id, 'del')]: 1 });
    expect(await new SealStates(nats).get(tenant, id)).toBeUndefined();
    // The retention sweep (projector role, every sweep) removes it: it was made below the marker.
    const worker = await stack.startService('sweeper', { ...env, TAPEDECK_ROLE: 'projector', ARCHIVE_IDLE_SECONDS: '0', RETENTION_SWEEP_SECONDS: '1' });
    try {
      await pollUntil(
        () => mine(id),
        (names) => names.length === 0,
        30_000,
        250,
      );
    } finally {
      await worker.stop();
    }
    expect((await stack.api(`/recordings/${id}/events`)).status).toBe(404);
  });

  /** This recording's rows in every projection table, as reads see them. */
  async function rowsOf(id: string) {
    const all = { ...(await snapshot(ch)), ...(await activity()) };
    return Object.fromEntries(Object.entries(all).map(([table, rows]) => [table, rows.filter((r) => r.recording_id === id)]));
  }

  it.each(['sealing', 'archived', 'published', 'removing'])(
    'loses and doubles nothing when clickhouse-server is killed (SIGKILL) while the worker seals, held after "%s"',
    async (step) => {
      const id = await record();
      const before = await reads(id);
      const rows = await rowsOf(id);
      expect(rows.recording_batches).toHaveLength(8);
      // The worker finds the recording idle (from ClickHouse) and stops itself at the step; ClickHouse dies there.
      const worker = await stack.startService(`ch-kill-${step}`, {
        ...env,
        TAPEDECK_ROLE: 'projector',
        ARCHIVE_IDLE_SECONDS: '1',
        ARCHIVE_SCAN_SECONDS: '1',
        ARCHIVE_CRASH_AFTER: step,
        ARCHIVE_CRASH_SIGNAL: 'SIGSTOP',
      });
      const pid = worker.child.pid!;
      try {
        await pollUntil(
          async () => stopped(pid),
          (s) => s,
          30_000,
          50,
        );
        await stack.killClickHouse();
        worker.child.kill('SIGCONT');
        // Acknowledged while ClickHouse is down: stored, read back, projected once it is back.
        const down = randomUUID();
        expect((await post(down, batch(1))).status).toBe(200);
        await pollUntil(
          () => evMessages(id),
          (c) => c.sealed === 8 && c.raw === 0,
          30_000,
          200,
        );
        // The seal needs nothing of ClickHouse: it ends while ClickHouse is still down.
        await pollUntil(
          () => new SealStates(nats).get(stack.keys.tenantId, id),
          (s) => s?.state === 'sealed',
          30_000,
          200,
        );
        expect(await reads(id)).toEqual(before);
        await stack.restartClickHouse();
        expect(await reads(id)).toEqual(before);
        expect(await evMessages(id)).toEqual({ sealed: 8, raw: 0 });
        expect(await mine(id)).toHaveLength(1);
        await waitCaughtUp(nats);
        const converged = await pollUntil(
          () => rowsOf(id),
          (r) => isDeepStrictEqual(r, rows),
          30_000,
          250,
        ).catch(() => rowsOf(id));
        expect(converged).toEqual(rows);
        const readBack = (await stack.api(`/recordings/${down}/events`)).json<{ timestamp: number }[]>();
        expect(readBack.map((e) => e.timestamp)).toEqual(batch(1).map((e) => e.timestamp));
        expect((await recordingCounts(ch, stack.keys.tenantId, down)).events).toBe(batch(1).length);
      } finally {
        worker.child.kill('SIGCONT');
        await worker.stop('SIGKILL');
        if (stack.clickhouse?.child.exitCode !== null || stack.clickhouse?.child.signalCode !== null) await stack.restartClickHouse();
      }
    },
  );

  it('seals idle recordings in the projector role and counts them in /metrics', async () => {
    const id = await record();
    const before = await reads(id);
    const worker = await stack.startService('worker', { ...env, TAPEDECK_ROLE: 'projector', ARCHIVE_IDLE_SECONDS: '1', ARCHIVE_SCAN_SECONDS: '1' });
    await pollUntil(
      () => evMessages(id),
      (c) => c.sealed === 8 && c.raw === 0,
      60_000,
      500,
    );
    expect(await reads(id)).toEqual(before);
    const token = env.METRICS_TOKEN;
    const metrics = await api('/metrics', { base: worker.url, ...(token ? { key: token } : {}) });
    expect(metrics.text).toMatch(/^tapedeck_archives_sealed_total [1-9]/m);
    expect(metrics.text).toMatch(/^tapedeck_archives_archive_bytes_total [1-9]/m);
  });
});
