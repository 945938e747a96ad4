// Deletion and retention, the privacy promises: DELETE /recordings/{id} (private key only, own tenant
// only) removes the events from JetStream and answers once every projection hides the recording (or
// after a bounded wait, the detail then checking the deletion marker itself), and a projection
// rebuild cannot bring them back; a running projector sweeps tenants' retention by when recordings
// were stored. The rebuild runs on a stack of its own: it replays the whole stream, so on the shared
// stack its duration grew with what other suites had written.
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { api, postEvents, Res, sampleEvents } from '../harness/http';
import { testEnv } from '../harness/env';
import { pollUntil } from '../harness/poll-until';
import { ServiceProcess, startService } from '../harness/stack';
import { admin, createTenant, TenantCreds } from './auth-fixtures';
import { PrivateStack } from '../harness/private-stack';
import { runCli } from './projections-fixtures';

const env = () => testEnv();
const secret = () => env().secretKey;
const DAY = 86_400_000;

/** Where a test writes and reads: the shared stack's bootstrap tenant, another tenant, or a stack of its own. */
interface Target {
  publicKey: string;
  secretKey: string;
  /** Service base URL; the shared stack's when absent. */
  base?: string;
}
const shared = (): Target => ({ publicKey: env().publicKey, secretKey: secret() });

const meta = (id: string, m: Record<string, string>, t: Target) =>
  api(`/recordings/${id}/metadata`, {
    method: 'POST',
    key: t.publicKey,
    base: t.base,
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(m),
  });
const listed = (q: Record<string, string>, t: Target) => api(`/recordings?${new URLSearchParams({ limit: '100', ...q })}`, { key: t.secretKey, base: t.base });
const ids = (r: Res) => (r.json().recordings as { recordingId: string }[]).map((x) => x.recordingId);

/** A recording with events and a metadata key of its own, waited for until the listing shows it. */
async function storedRecording(tag: string, t = shared(), start = Date.now()) {
  const id = randomUUID();
  const events = await api(`/recordings/${id}/events`, {
    method: 'POST',
    key: t.publicKey,
    base: t.base,
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(sampleEvents(6, start)),
  });
  expect(events.status).toBe(200);
  expect((await meta(id, { 'privacy-tag': tag, 'privacy-group': tag }, t)).status).toBe(200);
  await pollUntil(
    () => listed({ 'metadata[privacy-tag]': tag }, t),
    (r) => r.status === 200 && ids(r).includes(id),
    20_000,
  );
  return id;
}

/** Everything a reader could see of a recording, from the event store and every projection. */
async function visibility(id: string, tag: string, t = shared()) {
  const get = (path: string) => api(path, { key: t.secretKey, base: t.base });
  const [events, detail, list, stats, replay, replays] = await Promise.all([
    get(`/recordings/${id}/events`),
    get(`/recordings/${id}`),
    listed({ 'metadata[privacy-tag]': tag }, t),
    get(`/statistics?${new URLSearchParams({ 'metadata[privacy-tag]': tag, from: String(Date.now() - 10 * DAY) })}`),
    get(`/replays/privacy-group/${encodeURIComponent(tag)}`),
    get('/replays/privacy-group?limit=100'),
  ]);
  return {
    events: events.status,
    detail: detail.status,
    listed: ids(list).includes(id),
    statRecordings: stats.json().totals.recordings as number,
    replay: replay.status,
    inReplayListing: (replays.json().replays as { replayValue: string }[]).some((r) => r.replayValue === tag),
  };
}
const gone = { events: 404, detail: 404, listed: false, statRecordings: 0, replay: 404, inReplayListing: false };

describe('DELETE /recordings/{id}', () => {
  let tenantB: TenantCreds;
  beforeAll(async () => {
    tenantB = await createTenant('privacy');
  });

  it('needs the private key (public key: 401), is scoped to the tenant (another tenant: 404), then answers 204', async () => {
    const tag = `del-${randomUUID()}`;
    const id = await storedRecording(tag);
    expect((await api(`/recordings/${id}`, { method: 'DELETE', key: env().publicKey })).status).toBe(401);
    expect((await api(`/recordings/${id}`, { method: 'DELETE' })).status).toBe(401);
    expect((await api(`/recordings/${id}`, { method: 'DELETE', key: tenantB.secretKey })).status).toBe(404);
    expect((await api(`/recordings/${id}`, { method: 'DELETE', key: tenantB.publicKey })).status).toBe(401);
    expect((await api('/recordings/not-a-uuid', { method: 'DELETE', key: secret() })).status).toBe(400);
    // Nothing was removed by the refused attempts.
    expect(await visibility(id, tag)).toMatchObject({ events: 200, detail: 200, listed: true, statRecordings: 1, replay: 200, inReplayListing: true });

    const del = await api(`/recordings/${id}`, { method: 'DELETE', key: secret() });
    expect(del.status).toBe(204);
    expect(del.text).toBe('');
    // DELETE answers once the projections hide the recording too: every read agrees at once.
    expect(await visibility(id, tag)).toEqual(gone);
    expect((await api(`/recordings/${id}`, { method: 'DELETE', key: secret() })).status).toBe(404);
  });

  it('removes a recording whose id is given in upper case, and its presigned links stop working', async () => {
    const tag = `del-${randomUUID()}`;
    const id = await storedRecording(tag);
    const signed = await api(`/recordings/${id}?includeSignedUrls=true`, { key: secret() });
    const eventsSigned: string = signed.json().links.eventsSigned;
    expect((await api(eventsSigned.replace(/^https?:\/\/[^/]+/, ''))).status).toBe(200);
    expect((await api(`/recordings/${id.toUpperCase()}`, { method: 'DELETE', key: secret() })).status).toBe(204);
    expect((await api(eventsSigned.replace(/^https?:\/\/[^/]+/, ''))).status).toBe(404);
    expect(await visibility(id, tag)).toEqual(gone);
  });

  it('starts a new recording when the same id is written again, without any of the deleted events', async () => {
    const tag = `del-${randomUUID()}`;
    const id = await storedRecording(tag, shared(), Date.now() - 60_000);
    expect((await api(`/recordings/${id}`, { method: 'DELETE', key: secret() })).status).toBe(204);
    const fresh = sampleEvents(3, Date.now()).map((e) => ({ ...e, data: { ...e.data, fresh: true } }));
    expect((await postEvents(id, fresh)).status).toBe(200);
    const back = JSON.parse((await api(`/recordings/${id}/events`, { key: secret() })).text) as { data: { fresh?: boolean } }[];
    expect(back).toHaveLength(3);
    expect(back.every((e) => e.data.fresh === true)).toBe(true);
    // The old metadata went with the old recording.
    const detail = await pollUntil(
      () => api(`/recordings/${id}`, { key: secret() }),
      (r) => r.status === 200 && r.json().eventCount === 3,
      15_000,
      200,
    );
    expect(detail.json().metadata).toEqual({});
  });
});

describe('DELETE beside ingestion', () => {
  it('projects every batch acknowledged for other recordings meanwhile, and every deletion of a quick succession', async () => {
    // The projector is usually between two pulls (its linger) when a deletion lands. A filtered stream
    // purge moved its consumer past everything not yet delivered on nats-server 2.9: other recordings'
    // acknowledged batches and the next deletion's marker were never projected.
    const tags = [0, 1, 2].map((i) => `del-${i}-${randomUUID()}`);
    const doomed = [];
    for (const tag of tags) doomed.push(await storedRecording(tag));
    const kept = randomUUID();
    const BATCHES = 30;
    const start = Date.now() - 60_000;
    const writing = (async () => {
      for (let b = 0; b < BATCHES; b++) {
        expect((await postEvents(kept, sampleEvents(5, start + b * 1_000))).status).toBe(200);
      }
    })();
    for (const id of doomed) {
      await new Promise((r) => setTimeout(r, 60));
      expect((await api(`/recordings/${id}`, { method: 'DELETE', key: secret() })).status).toBe(204);
    }
    await writing;
    const detail = await pollUntil(
      () => api(`/recordings/${kept}`, { key: secret() }),
      (r) => r.status === 200 && r.json().eventCount === BATCHES * 5,
      15_000,
      200,
    );
    expect(detail.json().eventCount).toBe(BATCHES * 5);
    for (const [i, id] of doomed.entries()) {
      await pollUntil(
        () => visibility(id, tags[i]),
        (v) => JSON.stringify(v) === JSON.stringify(gone),
        15_000,
        200,
      );
    }
  });
});

describe('DELETE and `projections rebuild` (a stack of its own: the rebuild replays the whole stream)', () => {
  let stack: PrivateStack;
  let t: Target;
  beforeAll(async () => {
    stack = await PrivateStack.start();
    await stack.startService('service');
    t = { base: stack.url, publicKey: stack.keys.publicKey, secretKey: stack.keys.secretKey };
  }, 120_000);
  afterAll(async () => {
    await stack?.close();
  });

  it('stays deleted after `projections rebuild`, while recordings that were not deleted come back whole', async () => {
    const tagDeleted = `del-${randomUUID()}`;
    const tagKept = `keep-${randomUUID()}`;
    const deleted = await storedRecording(tagDeleted, t);
    const kept = await storedRecording(tagKept, t);
    const keptBefore = (await stack.api(`/recordings/${kept}`)).json();
    expect((await stack.api(`/recordings/${deleted}`, { method: 'DELETE' })).status).toBe(204);
    await pollUntil(
      () => visibility(deleted, tagDeleted, t),
      (v) => JSON.stringify(v) === JSON.stringify(gone),
      15_000,
      200,
    );

    const r = await runCli(['projections', 'rebuild'], stack.serviceEnv).done;
    expect({ code: r.code, stderr: r.code === 0 ? '' : r.stderr.slice(-2000) }).toEqual({ code: 0, stderr: '' });

    expect(await visibility(deleted, tagDeleted, t)).toEqual(gone);
    const keptAfter = await pollUntil(
      () => stack.api(`/recordings/${kept}`),
      (x) => x.status === 200 && x.json().projected === true,
      15_000,
    );
    const fields = ['recordingId', 'timestamp', 'metadata', 'startedAt', 'endedAt', 'duration', 'eventCount', 'bytes', 'pageViews', 'viewport', 'firstUrl'];
    const pick = (o: Record<string, unknown>) => Object.fromEntries(fields.map((f) => [f, o[f]]));
    expect(pick(keptAfter.json())).toEqual(pick(keptBefore));
    expect(await visibility(kept, tagKept, t)).toMatchObject({ events: 200, detail: 200, listed: true, statRecordings: 1, replay: 200, inReplayListing: true });
  });

  it('with no projector running, DELETE waits a bounded time, the detail is 404 at once, and the listing follows once a projector runs', async () => {
    const tag = `lag-${randomUUID()}`;
    const id = await storedRecording(tag, t);
    const apiOnly = await stack.startService('api-only', { TAPEDECK_ROLE: 'api' });
    await stack.services[0].stop();
    const at: Target = { ...t, base: apiOnly.url };
    const started = Date.now();
    expect((await api(`/recordings/${id}`, { method: 'DELETE', key: t.secretKey, base: apiOnly.url })).status).toBe(204);
    const waited = Date.now() - started;
    expect(waited).toBeGreaterThanOrEqual(2_500);
    expect(waited).toBeLessThan(10_000);
    // The projection still holds the rows; the detail checks the event store's deletion marker.
    expect(await visibility(id, tag, at)).toMatchObject({ events: 404, detail: 404, listed: true });
    await stack.startService('projector-again', { TAPEDECK_ROLE: 'projector' });
    await pollUntil(
      () => visibility(id, tag, at),
      (v) => JSON.stringify(v) === JSON.stringify(gone),
      20_000,
      200,
    );
  }, 60_000);
});

describe('retention (tenant retentionDays, RETENTION_SWEEP_SECONDS)', () => {
  let sweeper: ServiceProcess | undefined;
  afterAll(async () => {
    await sweeper?.stop();
  });

  // Expiry itself (a clock days ahead, metadata-only recordings, the last write counting) is proved
  // against the real servers in test/integration/retention.int-spec.ts: here nothing can be stored
  // days ago. This proves the running projector sweeps and goes by when recordings were stored.
  it("a running sweeper keeps what was stored within the period, however old its events' timestamps", async () => {
    const tenantId = `ret_${randomUUID().slice(0, 8)}`;
    expect((await admin('POST', '/tenants', { id: tenantId, name: 'Retention test', retentionDays: 1 })).status).toBe(201);
    const pub = (await admin('POST', `/tenants/${tenantId}/keys`, { kind: 'public' })).json().key as string;
    const sec = (await admin('POST', `/tenants/${tenantId}/keys`, { kind: 'secret' })).json().key as string;
    const retainedTenant: Target = { publicKey: pub, secretKey: sec };
    // A browser whose clock is three days behind (or a server importing history).
    const oldTag = `old-${randomUUID()}`;
    const backdated = await storedRecording(oldTag, retainedTenant, Date.now() - 3 * DAY);

    const e = env();
    sweeper = await startService(
      { ...e.serviceEnv, TAPEDECK_ROLE: 'projector', RETENTION_SWEEP_SECONDS: '1', TAPEDECK_ADMIN_TOKEN: '' },
      e.dir,
      'privacy-retention',
    );
    const sweeps = () =>
      readFileSync(sweeper!.logFile, 'utf8')
        .split('\n')
        .filter((l) => l.includes('"msg":"retention sweep"'));
    await pollUntil(
      async () => sweeps(),
      (lines) => lines.length >= 2,
      30_000,
      250,
    );
    expect(JSON.parse(sweeps()[1])).toMatchObject({ deleted: 0 });
    expect(JSON.parse(sweeps()[1]).tenants).toBeGreaterThanOrEqual(1);
    expect(await visibility(backdated, oldTag, retainedTenant)).toMatchObject({ events: 200, detail: 200, listed: true, replay: 200, inReplayListing: true });
    expect(JSON.parse((await api(`/recordings/${backdated}/events`, { key: sec })).text)).toHaveLength(6);
  }, 120_000);
});
