// A tenant's lifecycle (docs/tenants.md), on a stack of its own with two instances (the second an
// API-only one without the admin API): suspension refuses every kind of credential on every instance
// and keeps the data; deletion leaves no byte of the tenant in any stream of NATS (the event stream,
// the KV buckets) or any table of ClickHouse (rebuild leftovers included), not even after a
// `projections rebuild`, while another tenant keeps everything; the CLI deletes a big tenant in
// bounded time and finishes a deletion cut short by a crash.
import { randomUUID } from 'node:crypto';
import type { ClickHouse } from '../../src/infrastructure/clickhouse/clickhouse-client';
import { sql } from '../../src/infrastructure/clickhouse/sql';
import type { NatsClient } from '../../src/infrastructure/nats/nats-connection';
import { api } from '../harness/http';
import { pollUntil } from '../harness/poll-until';
import { PrivateStack } from '../harness/private-stack';
import type { ServiceProcess } from '../harness/stack';
import type { TenantCreds } from './auth-fixtures';
import { clickhouse, natsClient, runCli, waitCaughtUp } from './projections-fixtures';
import {
  adminOn,
  clickhouseTraces,
  credentialAnswers,
  markedEvents,
  natsTraces,
  openSocket,
  storeMarked,
  tenantOn,
  upgradeStatus,
} from './tenant-lifecycle-fixtures';

let stack: PrivateStack;
let second: ServiceProcess;
let nats: NatsClient;
let ch: ClickHouse;

beforeAll(async () => {
  stack = await PrivateStack.start();
  await stack.startService('service-1');
  second = await stack.startService('service-2', { TAPEDECK_ROLE: 'api', TAPEDECK_ADMIN_TOKEN: '' });
  nats = await natsClient(stack.serviceEnv.NATS_URL);
  ch = clickhouse(stack.serviceEnv);
}, 120_000);

afterAll(async () => {
  await ch?.close();
  await nats?.close();
  await stack?.close();
});

const cli = async (...args: string[]) => runCli(args, stack.serviceEnv).done;
const bases = () => [stack.url, second.url];
const events = (base: string, t: TenantCreds, rec: string) => api(`/recordings/${rec}/events`, { base, key: t.secretKey });
const listed = async (base: string, t: TenantCreds) =>
  ((await api('/recordings?limit=100', { base, key: t.secretKey })).json().recordings as { recordingId: string }[]).map((r) => r.recordingId).sort();

describe('a suspended tenant', () => {
  it('is refused with 403 on every instance for every kind of credential, its WebSockets closed with an error frame and 1008; resuming restores its data', async () => {
    const t = await tenantOn(stack, 'susp');
    const bystander = await tenantOn(stack, 'bystander');
    const rec = await storeMarked(stack.url, t, `MARK-${randomUUID()}`);
    const other = await storeMarked(stack.url, bystander, `MARK-${randomUUID()}`);
    for (const base of bases())
      await pollUntil(
        () => events(base, t, rec),
        (r) => r.status === 200,
        10_000,
      );
    const stored = (await events(stack.url, t, rec)).text;
    const accepted = Object.values(await credentialAnswers(second.url, t, rec));
    expect(accepted.every((a) => a === '200')).toBe(true);
    const sockets = await Promise.all(bases().map((b) => openSocket(b, t.publicKey)));

    const suspended = await adminOn(stack, 'POST', `/tenants/${t.tenantId}/suspend`);
    expect([suspended.status, suspended.json().status]).toEqual([200, 'suspended']);
    const refused = `403 Tenant ${t.tenantId} is suspended: its keys and presigned links are refused until an operator resumes it`;
    // At once on the instance that suspended it; within about a second on the other one.
    expect(Object.values(await credentialAnswers(stack.url, t, rec))).toEqual(accepted.map(() => refused));
    await pollUntil(
      async () => Object.values(await credentialAnswers(second.url, t, rec)),
      (answers) => answers.every((a) => a === refused),
      2000,
      20,
    );
    const closes = await Promise.all(sockets.map((s) => Promise.race([s.closed, new Promise((r) => setTimeout(() => r('still open'), 3000))])));
    expect(closes).toEqual([1008, 1008]);
    for (const s of sockets) expect(s.frames).toContainEqual({ type: 'error', status: 403, message: refused.slice(4) });
    for (const base of bases()) expect(await upgradeStatus(base, t.publicKey)).toBe(403);
    // Another tenant is not affected.
    expect((await events(second.url, bystander, other)).status).toBe(200);

    const status = await cli('tenants', 'status', t.tenantId);
    expect([status.code, status.stdout]).toEqual([0, expect.stringMatching(new RegExp(`^tenant ${t.tenantId}: suspended since \\d{4}-`))]);
    expect((await cli('tenants', 'list')).stdout).toMatch(new RegExp(`^${t.tenantId}\\s.*\\ssuspended$`, 'm'));

    expect((await cli('tenants', 'resume', t.tenantId)).code).toBe(0);
    for (const base of bases())
      await pollUntil(
        () => events(base, t, rec),
        (r) => r.status === 200,
        2000,
        20,
      );
    expect((await events(second.url, t, rec)).text).toBe(stored);
    expect(Object.values(await credentialAnswers(second.url, t, rec)).every((a) => a === '200')).toBe(true);
    expect(await upgradeStatus(second.url, t.publicKey)).toBe(101);
  });
});

describe('a deleted tenant', () => {
  it('leaves no byte in any stream or table, while another tenant keeps everything; a rebuild brings nothing back', async () => {
    const doomed = await tenantOn(stack, 'doomed');
    const kept = await tenantOn(stack, 'kept');
    const [markD, markK] = [`MARK-${randomUUID()}`, `MARK-${randomUUID()}`];
    const recsD = [await storeMarked(stack.url, doomed, markD), await storeMarked(stack.url, doomed, markD), await storeMarked(stack.url, doomed, markD)];
    const recsK = [await storeMarked(stack.url, kept, markK), await storeMarked(stack.url, kept, markK)];
    expect((await api(`/recordings/${recsD[2]}`, { method: 'DELETE', base: stack.url, key: doomed.secretKey })).status).toBe(204);
    await pollUntil(
      () => listed(stack.url, doomed),
      (l) => l.length === 2,
      15_000,
    );
    await pollUntil(
      () => listed(stack.url, kept),
      (l) => l.length === 2,
      15_000,
    );
    const keptEvents = await Promise.all(recsK.map(async (r) => (await events(stack.url, kept, r)).text));
    // Tables a rebuild that stopped part way would leave behind, holding both tenants' rows.
    await ch.command(sql`CREATE TABLE recording_metadata_rebuild_1000 AS recording_metadata`);
    await ch.command(sql`INSERT INTO recording_metadata_rebuild_1000 SELECT * FROM recording_metadata`);
    await ch.command(sql`CREATE TABLE recording_batches_old_1000 AS recording_batches`);
    await ch.command(sql`INSERT INTO recording_batches_old_1000 SELECT * FROM recording_batches`);
    const needles = [doomed.tenantId, markD];
    // The searches find the tenant before its deletion (else they could not fail).
    expect((await natsTraces(nats, needles)).length).toBeGreaterThan(0);
    expect(await clickhouseTraces(ch, needles)).toEqual(
      expect.arrayContaining([expect.stringMatching(/^recording_metadata_rebuild_1000: /), expect.stringMatching(/^recording_keyframes: /)]),
    );
    const socket = await openSocket(second.url, doomed.publicKey);

    const started = Date.now();
    const accepted = await adminOn(stack, 'DELETE', `/tenants/${doomed.tenantId}`);
    expect([accepted.status, accepted.json().status]).toEqual([202, 'deleting']);
    expect((await events(stack.url, doomed, recsD[0])).text).toBe(`Tenant ${doomed.tenantId} is being deleted: its keys and presigned links are refused`);
    expect(await Promise.race([socket.closed, new Promise((r) => setTimeout(() => r('still open'), 3000))])).toBe(1008);
    await pollUntil(
      () => adminOn(stack, 'GET', `/tenants/${doomed.tenantId}`),
      (r) => r.status === 404,
      60_000,
      200,
    );
    console.log(`tenant deletion (API): ${Date.now() - started} ms`);

    expect(await natsTraces(nats, needles)).toEqual([]);
    expect(await clickhouseTraces(ch, needles)).toEqual([]);
    for (const base of bases()) expect((await events(base, doomed, recsD[0])).status).toBe(401); // its keys are gone
    expect((await natsTraces(nats, [markK])).length).toBeGreaterThan(0);
    for (const base of bases()) {
      expect(await listed(base, kept)).toEqual([...recsK].sort());
      expect(await Promise.all(recsK.map(async (r) => (await events(base, kept, r)).text))).toEqual(keptEvents);
    }

    const rebuilt = await cli('projections', 'rebuild');
    expect({ code: rebuilt.code, stderr: rebuilt.code === 0 ? '' : rebuilt.stderr.slice(-2000) }).toEqual({ code: 0, stderr: '' });
    expect(await clickhouseTraces(ch, needles)).toEqual([]);
    expect(await listed(stack.url, kept)).toEqual([...recsK].sort());

    // The id is free again, for a tenant that starts empty.
    const again = await adminOn(stack, 'POST', '/tenants', { id: doomed.tenantId });
    expect(again.status).toBe(201);
    expect(again.json().status).toBeUndefined();
  });
});

describe('tenants delete (CLI)', () => {
  it('deletes a tenant of a few thousand messages in bounded time, and finishes a deletion a crash cut short', async () => {
    const big = await tenantOn(stack, 'big');
    const mark = `MARK-${randomUUID()}`;
    const recs = Array.from({ length: 30 }, () => randomUUID());
    const batches = recs.flatMap((rec) => Array.from({ length: 100 }, (_, i) => ({ rec, i })));
    for (let next = 0; next < batches.length;) {
      await Promise.all(
        batches.slice(next, (next += 20)).map(async ({ rec, i }) => {
          const r = await api(`/recordings/${rec}/events`, {
            method: 'POST',
            base: stack.url,
            key: big.publicKey,
            headers: { 'content-type': 'application/json', 'idempotency-key': `b${i}` },
            body: JSON.stringify(
              i === 0 ? markedEvents(mark) : [{ type: 3, timestamp: Date.now(), data: { source: 1, positions: [], mark: i === 99 ? mark : '' } }],
            ),
          });
          if (r.status !== 200) throw new Error(`ingestion answered ${r.status}: ${r.text}`);
        }),
      );
    }
    await waitCaughtUp(nats);
    const needles = [big.tenantId, mark];
    expect((await clickhouseTraces(ch, needles)).length).toBeGreaterThan(0);

    const first = runCli(['tenants', 'delete', big.tenantId, '--yes'], stack.serviceEnv);
    await pollUntil(
      async () => first.stderr(),
      (e) => /stream: \d+ messages deleted/.test(e),
      30_000,
      10,
    );
    first.child.kill('SIGKILL');
    await first.done;
    const list = await cli('tenants', 'list');
    expect(list.stdout).toMatch(new RegExp(`^${big.tenantId}\\s.*\\sdeleting:stream$`, 'm'));
    await pollUntil(
      () => events(second.url, big, recs[0]),
      (r) => r.status === 403,
      2000,
      20,
    );
    expect((await natsTraces(nats, needles)).length).toBeGreaterThan(0); // it was cut short indeed

    const started = Date.now();
    const finished = await cli('tenants', 'delete', big.tenantId, '--yes');
    const took = Date.now() - started;
    console.log(`tenant deletion (CLI, resumed, about 3000 messages): ${took} ms`);
    expect([finished.code, finished.stdout]).toEqual([
      0,
      expect.stringMatching(new RegExp(`^deleted tenant ${big.tenantId}: \\d+ stream messages, rows in \\d+ tables`)),
    ]);
    expect(took).toBeLessThan(60_000);
    expect(await natsTraces(nats, needles)).toEqual([]);
    expect(await clickhouseTraces(ch, needles)).toEqual([]);
    expect((await cli('tenants', 'status', big.tenantId)).code).toBe(1);
  });
});
