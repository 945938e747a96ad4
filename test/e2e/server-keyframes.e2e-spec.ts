// Server-made keyframes against the whole stack (a private one: nats-server, clickhouse-server, the
// service): a recording made in Chromium by rrweb without checkouts is posted over HTTP while the
// keyframe maker is off; then an instance with it on (projector role work, KEYFRAME_* small enough
// for a recording of seconds) gives it keyframes. The keyframe index gets their rows and windowed
// reads start at them; GET …/events without a window, the recording's detail and /statistics
// answer byte for byte what they did; a projection rebuild gives the rows back; deleting the
// recording removes the messages and the rows.
import { randomUUID } from 'node:crypto';
import { chromium } from 'playwright-core';
import type { ClickHouse } from '../../src/infrastructure/clickhouse/clickhouse-client';
import { sql } from '../../src/infrastructure/clickhouse/sql';
import { JetStreamEventStore } from '../../src/infrastructure/nats/event-store';
import { EVENTS_STREAM } from '../../src/infrastructure/nats/subjects';
import type { NatsClient } from '../../src/infrastructure/nats/nats-connection';
import { KeyframeCandidatesRepository } from '../../src/read-model/keyframe-candidates.repository';
import { KeyframesRepository } from '../../src/read-model/keyframes.repository';
import { CHROMIUM_ARGS } from '../harness/browser';
import { pollUntil } from '../harness/poll-until';
import { PrivateStack } from '../harness/private-stack';
import type { RrwebEvent } from '../../src/domain/rrweb-event';
import { recordWithoutCheckouts } from '../integration/server-keyframes-fixtures';
import { eventWindow } from '../../src/recordings/event-window';
import { WindowHints } from '../../src/recordings/window-hints.service';
import { clickhouse, natsClient, runCli, waitCaughtUp } from './projections-fixtures';

jest.setTimeout(300_000);

let stack: PrivateStack;
let ch: ClickHouse;
let nats: NatsClient;
let store: JetStreamEventStore;
let keyframes: KeyframesRepository;
let events: RrwebEvent[];
const rec = randomUUID();

beforeAll(async () => {
  // Live for the whole test: the detail and statistics compared before and after would say so.
  stack = await PrivateStack.start({ env: { KEYFRAME_CONCURRENCY: '0', LIVE_IDLE_SECONDS: '3600' } });
  await stack.startService('service');
  ch = clickhouse(stack.serviceEnv);
  nats = await natsClient(stack.serviceEnv.NATS_URL);
  store = new JetStreamEventStore(nats, 5000);
  keyframes = new KeyframesRepository(ch);
  const browser = await chromium.launch({ executablePath: stack.serviceEnv.CHROMIUM_PATH, args: CHROMIUM_ARGS });
  try {
    const context = await browser.newContext({ viewport: { width: 800, height: 600 }, deviceScaleFactor: 1 });
    events = await recordWithoutCheckouts(await context.newPage());
  } finally {
    await browser.close();
  }
});

afterAll(async () => {
  await ch?.close();
  await nats?.close();
  await stack?.close();
});

const serverRows = (id = rec) =>
  ch.rows<{ kind: string; ts: string; seq: string }>(
    sql`SELECT kind, toString(ts) AS ts, toString(seq) AS seq FROM recording_keyframes FINAL WHERE tenant_id = ${stack.keys.tenantId} AND recording_id = ${id} AND kind IN ('server', 'failed') ORDER BY ts`,
  );

/** Waits until every projector's durable consumer acknowledged the whole stream. */
async function projectorsCaughtUp(): Promise<void> {
  await pollUntil(
    async () => {
      const last = (await nats.jsm.streams.info(EVENTS_STREAM)).state.last_seq;
      const consumers = await nats.jsm.consumers.list(EVENTS_STREAM).next();
      return consumers
        .filter((c) => c.name.startsWith('projector-'))
        .map((c) => c.num_pending === 0 && c.num_ack_pending === 0 && c.ack_floor.stream_seq >= last);
    },
    (ok) => ok.length >= 2 && ok.every(Boolean),
    30_000,
  );
}

const post = async (id: string, batch: unknown[]) => {
  const r = await stack.api(`/recordings/${id}/events`, {
    method: 'POST',
    key: stack.keys.publicKey,
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(batch),
  });
  expect(r.status).toBe(200);
};

it('gives a recording without checkouts server-made keyframes, and changes no answer about its events', async () => {
  const { publicKey, tenantId } = stack.keys;
  for (let i = 0; i < events.length; i += 4) {
    const r = await stack.api(`/recordings/${rec}/events`, {
      method: 'POST',
      key: publicKey,
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(events.slice(i, i + 4)),
    });
    expect(r.status).toBe(200);
  }
  const first = events[0].timestamp;
  const last = events[events.length - 1].timestamp;
  const statistics = `/statistics?from=${first - 3_600_000}&to=${last + 3_600_000}`;
  const detail = await pollUntil(
    () => stack.api(`/recordings/${rec}`),
    (r) => r.status === 200 && r.json().eventCount === events.length,
    30_000,
  );
  await projectorsCaughtUp(); // every projection (the detail shows the activity projection's too)
  const before = { events: (await stack.api(`/recordings/${rec}/events`)).text, detail: detail.text, statistics: (await stack.api(statistics)).text };
  expect(JSON.parse(before.events)).toHaveLength(events.length);
  expect(await keyframes.keyframes(tenantId, rec)).toEqual([expect.objectContaining({ ts: first })]); // its one page view

  // The maker on: an instance whose projector role makes keyframes, about every fifth of the events after the snapshot.
  const snapshotAt = events.findIndex((e) => e.type === 2);
  const after = events.slice(snapshotAt + 1).reduce((n, e) => n + JSON.stringify(e).length, 0);
  const MAKER = { KEYFRAME_CONCURRENCY: '1', KEYFRAME_SCAN_SECONDS: '1', KEYFRAME_EVERY_MINUTES: '1', KEYFRAME_EVERY_BYTES: String(Math.floor(after / 5)) };
  // The maker's query finds it (each criterion alone, both together); nothing else is stored here.
  const candidates = new KeyframeCandidatesRepository(ch);
  const query = { everyMs: 60_000, everyBytes: Number(MAKER.KEYFRAME_EVERY_BYTES), maxFailures: 3, nowMs: Date.now(), limit: 10 };
  for (const q of [query, { ...query, everyBytes: 0, everyMs: 1000 }, { ...query, everyMs: 0 }])
    expect(await candidates.candidates(q)).toEqual([{ tenantId, recordingId: rec, lastTs: last }]);
  expect(await candidates.candidates({ ...query, everyMs: 3_600_000, everyBytes: 1e9 })).toEqual([]);
  await stack.services[0].stop();
  stack.services.length = 0;
  await stack.startService('maker', MAKER);
  const rows = await pollUntil(
    () => serverRows(),
    (r) => r.length >= 2,
    40_000,
  );
  expect(rows.every((r) => r.kind === 'server')).toBe(true);
  const made = rows.map((r) => Number(r.ts));
  expect((await store.messageCounts(tenantId, rec)).kf).toBe(made.length);

  // The index orders them with the recording's own keyframe; windows start at them.
  expect((await keyframes.keyframes(tenantId, rec)).map((k) => k.ts)).toEqual([first, ...made]);
  for (const t of made) {
    const w = await stack.api(`/recordings/${rec}/events?from=epoch:${Math.min(t + 5, last)}`);
    expect(w.status).toBe(200);
    const got = w.json<RrwebEvent[]>();
    expect(got.slice(0, 2).map((e) => [e.type, e.timestamp])).toEqual([
      [4, t],
      [2, t],
    ]);
    expect(got.slice(2).map((e) => e.timestamp)).toEqual(events.filter((e) => e.timestamp > t).map((e) => e.timestamp));
  }
  // The index's hint names the server keyframe: windows read it without listing every kf message.
  await waitCaughtUp(nats);
  const hinted = await new WindowHints(keyframes, nats).withHint(tenantId, rec, eventWindow({ from: { kind: 'epoch', value: made[0] } }));
  expect(hinted?.hint).toMatchObject({ ts: made[0], server: expect.any(Number) });
  const viaHint: RrwebEvent[] = [];
  for await (const e of store.read(tenantId, rec, { window: hinted })) viaHint.push(e);
  expect(viaHint.slice(0, 2).map((e) => [e.type, e.timestamp])).toEqual([
    [4, made[0]],
    [2, made[0]],
  ]);
  const shot = await stack.api(`/recordings/${rec}/screenshot.png?time=epoch:${Math.min(made[made.length - 1] + 1, last)}`);
  expect([shot.status, shot.headers.get('content-type')]).toEqual([200, 'image/png']);

  // Nothing else moved, byte for byte.
  await projectorsCaughtUp();
  expect((await stack.api(`/recordings/${rec}/events`)).text).toBe(before.events);
  // The detail without the activity projection's counts (they settle on their own timing, from the events alone).
  const withoutActivity = (text: string) => ({ ...JSON.parse(text), activity: undefined });
  expect(withoutActivity((await stack.api(`/recordings/${rec}`)).text)).toEqual(withoutActivity(before.detail));
  expect((await stack.api(statistics)).text).toBe(before.statistics);

  // A rebuild of the projections gives the rows back.
  const rebuilt = await runCli(['projections', 'rebuild', 'recordings'], stack.serviceEnv).done;
  expect(rebuilt.code).toBe(0);
  expect((await serverRows()).map((r) => Number(r.ts))).toEqual(made);

  // Deleting the recording deletes them: messages and rows.
  expect((await stack.api(`/recordings/${rec}`, { method: 'DELETE' })).status).toBeLessThan(300);
  expect(await store.messageCounts(tenantId, rec)).toMatchObject({ ev: 0, kf: 0 });
  expect(
    await pollUntil(
      () => keyframes.keyframes(tenantId, rec),
      (k) => k.length === 0,
      15_000,
    ),
  ).toEqual([]);
});

it('remembers a keyframe it could not make, tries no more than three times, and the recording still renders from its start', async () => {
  const { publicKey, tenantId } = stack.keys;
  const broken = randomUUID();
  // A page holding an iframe: the maker makes no keyframe of it (docs/keyframes.md).
  const t0 = Date.now() - 120_000;
  const el = (id: number, tagName: string, childNodes: unknown[] = []) => ({ type: 2, tagName, attributes: {}, childNodes, id });
  const page = [
    { type: 4, timestamp: t0, data: { href: 'https://example.test/frames', width: 800, height: 600 } },
    {
      type: 2,
      timestamp: t0 + 1,
      data: { node: { type: 0, id: 1, childNodes: [el(2, 'html', [el(3, 'head'), el(4, 'body', [el(5, 'iframe')])])] }, initialOffset: { left: 0, top: 0 } },
    },
    ...Array.from({ length: 60 }, (_, i) => ({
      type: 3,
      timestamp: t0 + 100 * (i + 1),
      data: { source: 1, positions: [{ x: i, y: i, id: 4, timeOffset: 0 }], pad: 'x'.repeat(200) },
    })),
  ];
  for (let i = 0; i < page.length; i += 10) {
    const r = await stack.api(`/recordings/${broken}/events`, {
      method: 'POST',
      key: publicKey,
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(page.slice(i, i + 10)),
    });
    expect(r.status).toBe(200);
  }
  const failedRows = () =>
    ch.rows<{ kind: string; ts: string }>(
      sql`SELECT kind, toString(ts) AS ts FROM recording_keyframes FINAL WHERE tenant_id = ${tenantId} AND recording_id = ${broken} AND kind IN ('server', 'failed') ORDER BY ts`,
    );
  const rows = await pollUntil(failedRows, (r) => r.length >= 1, 60_000);
  expect(rows.every((r) => r.kind === 'failed')).toBe(true);
  // Each attempt waits for another interval of events after the last; after three, none (several passes later).
  // A fixed wait: what is shown is that nothing more happens.
  await new Promise((r) => setTimeout(r, 5000));
  const [attempts, counts] = await pollUntil(
    () => Promise.all([failedRows(), store.messageCounts(tenantId, broken)]),
    ([r, c]) => r.length === c.kf,
    15_000,
  );
  expect(attempts.length).toBeLessThanOrEqual(3);
  expect(attempts.every((r) => r.kind === 'failed')).toBe(true);
  console.log(`${counts.kf} failed attempts stored`);
  // Reads and screenshots go on from the recording's own keyframe, its start.
  const w = await stack.api(`/recordings/${broken}/events?from=epoch:${t0 + 5000}&limit=2`);
  expect(w.json<RrwebEvent[]>().map((e) => e.timestamp)).toEqual([t0, t0 + 1]);
  const shot = await stack.api(`/recordings/${broken}/screenshot.png?time=epoch:${t0 + 5000}`);
  expect(shot.status).toBe(200);
});

it('gives an ongoing recording keyframes as it grows', async () => {
  const growing = randomUUID();
  const half = Math.floor(events.length / 2);
  for (let i = 0; i < half; i += 4) await post(growing, events.slice(i, Math.min(i + 4, half)));
  const early = await pollUntil(
    () => serverRows(growing),
    (r) => r.length >= 1,
    40_000,
  );
  expect(early.every((r) => r.kind === 'server' && Number(r.ts) <= events[half - 1].timestamp)).toBe(true);
  for (let i = half; i < events.length; i += 4) await post(growing, events.slice(i, i + 4));
  const later = await pollUntil(
    () => serverRows(growing),
    (r) => r.some((k) => Number(k.ts) > events[half - 1].timestamp),
    40_000,
  );
  const t = Number(later[later.length - 1].ts);
  const w = await stack.api(`/recordings/${growing}/events?from=epoch:${t}&limit=2`);
  expect(w.json<RrwebEvent[]>().map((e) => [e.type, e.timestamp])).toEqual([
    [4, t],
    [2, t],
  ]);
});
