// Activity (docs/activity.md) against a stack of its own (the spec runs a rebuild): three recordings
// posted over HTTP one batch a second, as our recorder cuts them, in hand-built rrweb events of the
// shapes rrweb and its console and network plugins record. Checked: the projected rows equal what the
// events say, the timeline (rules across batches, offsets, a batch stored twice counted once, a
// presigned link), every listing filter finding and not finding each recording, alone, combined and
// with a metadata filter, the listing's activity summary, 400s naming the parameter, a rebuild giving
// identical rows, and deletion (of a recording, of a tenant) removing the rows.
// Also run against the current ClickHouse engine (chDB) by scripts/test.sh.
import { randomUUID } from 'node:crypto';
import { batchActivity } from '../../src/domain/activity/batch-activity';
import {
  addLink,
  click,
  consoleLog,
  input,
  meta,
  move,
  network,
  recordingMeta,
  snapshot,
  textChange,
} from '../../src/domain/activity/testing/activity-fixtures';
import type { RrwebEvent } from '../../src/domain/rrweb-event';
import type { ClickHouse } from '../../src/infrastructure/clickhouse/clickhouse-client';
import { ident, sql } from '../../src/infrastructure/clickhouse/sql';
import type { NatsClient } from '../../src/infrastructure/nats/nats-connection';
import type { TenantCreds } from './auth-fixtures';
import { adminOn, tenantOn } from './tenant-lifecycle-fixtures';
import { runCli } from '../harness/cli';
import { api, Res } from '../harness/http';
import { pollUntil } from '../harness/poll-until';
import { PrivateStack } from '../harness/private-stack';
import { clickhouse, natsClient, publishRaw, storedHeaders, waitCaughtUp } from './projections-fixtures';

/** Whole seconds: active time counts epoch seconds. */
const T0 = Math.floor((Date.now() - 10 * 60_000) / 1000) * 1000;
const at = (ms: number) => T0 + ms;
const TABLES = ['recording_activity', 'recording_activity_nodes', 'recording_activity_batches', 'recording_activity_timeline'];

/** A: a checkout with a reload, a thrown error and a console.error, a failed payment request, a rage click (dead, too). */
const A = [
  [recordingMeta(at(0)), meta(at(0), 'https://shop.test/cart'), snapshot(at(1), 'Cart'), move(at(200))],
  [click(at(1000), 7)], // answered by the text change of the next batch
  [textChange(at(1300)), recordingMeta(at(2000)), meta(at(2000), 'https://shop.test/checkout?step=1'), snapshot(at(2001), 'Checkout')],
  [
    consoleLog(at(3000), 'error', 'Uncaught Error: boom'),
    consoleLog(at(3100), 'error', 'payment failed', { code: 402 }),
    network(at(3200), { name: 'https://shop.test/api/pay', method: 'POST', status: 502 }),
  ],
  [click(at(4000), 11), click(at(4300), 11), click(at(4600), 11)],
  [input(at(6000)), move(at(8000))], // nothing in the second after each of the three clicks
];
/** B: a dead click on a plain element, then a long idle stretch. */
const B = [[meta(at(0), 'https://shop.test/pricing'), snapshot(at(1), 'Pricing')], [click(at(1000), 9)], [move(at(30_000))]];
/** C: calm: answered clicks (one on a link added later), a navigation, no error, a successful request; two minutes long. */
const C = [
  [meta(at(0), 'https://shop.test/home?ref=ad'), snapshot(at(1), 'Home')],
  [click(at(500), 7), textChange(at(700)), network(at(800), { name: 'https://shop.test/api/cart', status: 200 })],
  [addLink(at(1500))],
  [click(at(2000), 21), meta(at(2300), 'https://shop.test/help'), snapshot(at(2301), 'Help')],
  [move(at(120_000))],
];

describe('activity', () => {
  let stack: PrivateStack;
  let ch: ClickHouse;
  let nats: NatsClient;
  const rec = { A: randomUUID(), B: randomUUID(), C: randomUUID() };
  const plan = { A: 'pro', B: 'free', C: 'pro' };
  const name = new Map<string, string>(Object.entries(rec).map(([k, v]) => [v, k]));

  beforeAll(async () => {
    stack = await PrivateStack.start();
    await stack.startService('service');
    ch = clickhouse(stack.serviceEnv);
    nats = await natsClient(stack.serviceEnv.NATS_URL);
  });

  afterAll(async () => {
    await ch?.close();
    await nats?.close();
    await stack?.close();
  });

  const post = (id: string, events: unknown[], key = stack.keys.publicKey) =>
    api(`/recordings/${id}/events`, { method: 'POST', base: stack.url, key, headers: { 'content-type': 'application/json' }, body: JSON.stringify(events) });
  const timeline = (id: string) => stack.api(`/recordings/${id}/activity`);
  /** The names (A, B, C) of the recordings a listing query finds. */
  const found = async (query: string): Promise<string> => {
    const r = await stack.api(`/recordings?limit=100&${query}`);
    expect(r.status).toBe(200);
    return r
      .json<{ recordings: { recordingId: string }[] }>()
      .recordings.map((x) => name.get(x.recordingId) ?? x.recordingId)
      .sort()
      .join(',');
  };
  const tableRows = (table: string) =>
    ch.rows<Record<string, unknown>>(
      table === 'recording_activity_timeline'
        ? sql`SELECT * FROM ${ident(table)} FINAL ORDER BY tenant_id, recording_id, seq, kind, idx, node_id`
        : sql`SELECT * FROM ${ident(table)} FINAL ORDER BY tenant_id, recording_id, seq`,
    );
  const rowsOf = async (recordingId: string) =>
    Promise.all(
      TABLES.map(async (t) => Number((await ch.rows<{ n: string }>(sql`SELECT count() AS n FROM ${ident(t)} WHERE recording_id = ${recordingId}`))[0].n)),
    );

  it('projects what the events say, per batch', async () => {
    for (const [k, batches] of Object.entries({ A, B, C })) {
      const id = rec[k as keyof typeof rec];
      for (const [i, events] of batches.entries()) {
        const withMeta =
          i === 0
            ? [{ type: 5, timestamp: events[0].timestamp, data: { tag: 'recording-meta', payload: { plan: plan[k as keyof typeof plan] } } }, ...events]
            : events;
        expect((await post(id, withMeta)).status).toBe(200);
      }
    }
    // A's rage clicks stored again (a retry after the de-duplication window: same batch, new message id).
    const rage = await pollUntil(
      () => ch.rows<{ seq: string }>(sql`SELECT seq FROM recording_activity WHERE recording_id = ${rec.A} AND kind = 'click' AND ts = ${at(4000)}`),
      (r) => r.length > 0,
      30_000,
    );
    const m = await storedHeaders(nats, Number(rage[0].seq));
    await publishRaw(nats, m.subject, m.data, m.headers, `again-${randomUUID()}`);
    await waitCaughtUp(nats);

    for (const [k, batches] of Object.entries({ A, B, C })) {
      const id = rec[k as keyof typeof rec];
      const expected = batches.map((b) => batchActivity(b as RrwebEvent[]));
      const kinds = await ch.rows<{ kind: string; n: string }>(
        sql`SELECT kind, uniqExact(batch_id, idx) AS n FROM recording_activity WHERE recording_id = ${id} GROUP BY kind ORDER BY kind`,
      );
      const count = (kind: string) => expected.reduce((n, a) => n + a.items.filter((x) => x.kind === kind).length, 0);
      expect(Object.fromEntries(kinds.map((r) => [r.kind, Number(r.n)]))).toEqual(
        Object.fromEntries(['page', 'click', 'error', 'network'].filter((kind) => count(kind) > 0).map((kind) => [kind, count(kind)])),
      );
      const [labels] = await ch.rows<{ n: string }>(sql`SELECT uniqExact(batch_id, node_id) AS n FROM recording_activity_nodes WHERE recording_id = ${id}`);
      expect(Number(labels.n)).toBe(expected.reduce((n, a) => n + a.nodes.length, 0));
      const [inputs] = await ch.rows<{ n: string }>(
        sql`SELECT sum(inputs) AS n FROM (SELECT inputs FROM recording_activity_batches WHERE recording_id = ${id} LIMIT 1 BY batch_id)`,
      );
      expect(Number(inputs.n)).toBe(expected.reduce((n, a) => n + a.inputs, 0));
    }
  });

  it('answers the timeline: rules across batches, offsets from the first event, the repeated batch once', async () => {
    const r = await timeline(rec.A);
    expect(r.status).toBe(200);
    const a = r.json();
    expect(a).toMatchObject({ recordingId: rec.A, projected: true, startedAt: at(0), endedAt: at(8000) });
    expect(a.summary).toEqual({
      pageViews: 2,
      clicks: 4,
      rageClicks: 1,
      deadClicks: 3,
      errors: 2,
      networkFailures: 1,
      inputs: 1,
      activeTime: 8000,
      idleTime: 0,
    });
    expect(a.errorMessages).toEqual([
      { message: 'Uncaught Error: boom', count: 1 },
      { message: 'payment failed {"code":402}', count: 1 },
    ]);
    expect(a.items.map((i: { kind: string; offset: number }) => [i.kind, i.offset])).toEqual([
      ['pageView', 0],
      ['click', 1000],
      ['pageView', 2000],
      ['error', 3000],
      ['error', 3100],
      ['networkFailure', 3200],
      ['click', 4000],
      ['rageClick', 4000],
      ['click', 4300],
      ['click', 4600],
    ]);
    expect(a.items[0]).toEqual({ kind: 'pageView', timestamp: at(0), offset: 0, url: 'https://shop.test/cart', path: '/cart', title: 'Cart', duration: 2000 });
    expect(a.items[1]).toEqual({
      kind: 'click',
      timestamp: at(1000),
      offset: 1000,
      x: 100,
      y: 200,
      nodeId: 7,
      text: 'Pay now',
      selector: 'button#pay.btn.primary',
      rage: false,
      dead: false,
    });
    expect(a.items[2]).toMatchObject({ path: '/checkout', title: 'Checkout', duration: 6000 });
    expect(a.items[5]).toEqual({
      kind: 'networkFailure',
      timestamp: at(3200),
      offset: 3200,
      url: 'https://shop.test/api/pay',
      method: 'POST',
      status: 502,
      duration: 10,
    });
    expect(a.items[7]).toEqual({
      kind: 'rageClick',
      timestamp: at(4000),
      offset: 4000,
      clicks: 3,
      nodeId: 11,
      text: 'Pay now',
      selector: 'button#pay.btn.primary',
    });
    expect(a.items[9]).toMatchObject({ rage: true, dead: true, text: 'Pay now' });

    const b = (await timeline(rec.B)).json();
    expect(b.summary).toMatchObject({ pageViews: 1, clicks: 1, rageClicks: 0, deadClicks: 1, errors: 0, activeTime: 6_000, idleTime: 24_000 });
    expect(b.items[1]).toMatchObject({ kind: 'click', text: '', selector: '', dead: true });
    const c = (await timeline(rec.C)).json();
    expect(c.summary).toMatchObject({ pageViews: 2, clicks: 2, rageClicks: 0, deadClicks: 0, errors: 0, networkFailures: 0, activeTime: 8_000 });
    expect(c.items.filter((i: { kind: string }) => i.kind === 'click').map((i: { text: string }) => i.text)).toEqual(['Pay now', 'Help']);

    // A presigned link of the recording opens it; no credential, another recording's link, a bad id, an unknown recording do not.
    const signed = new URL(stack.url + (await stack.api(`/recordings/${rec.A}?includeSignedUrls=true`)).json().links.selfSigned);
    expect((await api(`/recordings/${rec.A}/activity${signed.search}`, { base: stack.url })).json().summary.clicks).toBe(4);
    expect((await api(`/recordings/${rec.B}/activity${signed.search}`, { base: stack.url })).status).toBe(403);
    expect((await api(`/recordings/${rec.A}/activity`, { base: stack.url })).status).toBe(401);
    expect((await stack.api(`/recordings/not-a-uuid/activity`)).status).toBe(400);
    expect((await stack.api(`/recordings/${randomUUID()}/activity`)).status).toBe(404);
  });

  it('finds recordings by each activity filter, alone, combined and with metadata filters', async () => {
    const cases: [string, string][] = [
      ['visitedPath=/checkout', 'A'],
      ['visitedPath=/nowhere', ''],
      ['visitedPathPrefix=/check', 'A'],
      ['visitedPathContains=PRIC', 'B'],
      [`visitedUrl=${encodeURIComponent('https://shop.test/home?ref=ad')}`, 'C'],
      [`visitedUrl=${encodeURIComponent('https://shop.test/home')}`, ''],
      [`visitedUrlPrefix=${encodeURIComponent('https://shop.test/he')}`, 'C'],
      ['visitedUrlContains=CART', 'A'],
      ['clickedText=pay', 'A,C'],
      ['clickedText=HELP', 'C'],
      ['clickedText=plain', ''],
      [`clickedText=${encodeURIComponent("it's \\ ü 😀 %_")}`, ''], // every value reaches SQL escaped
      [`visitedUrlPrefix=${encodeURIComponent("https://shop.test/'ü")}`, ''],
      ['hasErrors=true', 'A'],
      ['hasErrors=false', 'B,C'],
      ['errorText=BOOM', 'A'],
      ['errorText=timeout', ''],
      ['hasErrors=false&errorText=boom', 'B,C'],
      ['hasRageClicks=true', 'A'],
      ['hasRageClicks=false', 'B,C'],
      ['hasDeadClicks=true', 'A,B'],
      ['hasDeadClicks=false', 'C'],
      ['minDuration=20000', 'B,C'],
      ['maxDuration=10000', 'A'],
      ['minDuration=20000&maxDuration=60000', 'B'],
      ['minActiveTime=7000', 'A,C'],
      ['maxActiveTime=6000', 'B'],
      ['minActiveTime=8000&maxActiveTime=8000', 'A,C'],
      ['minActiveTime=8001', ''],
      ['visitedPathPrefix=/&hasDeadClicks=true&maxDuration=10000', 'A'],
      ['clickedText=pay&hasErrors=false', 'C'],
      ['metadata[plan]=pro&hasErrors=false', 'C'],
      ['metadata[plan]=pro&clickedText=pay', 'A,C'],
      ['metadata[plan]=free&clickedText=pay', ''],
      ['metadata[plan]=free&hasDeadClicks=true&minActiveTime=6000&maxActiveTime=6000', 'B'],
    ];
    const answers: [string, string][] = [];
    for (const [q] of cases) answers.push([q, await found(q)]);
    expect(answers).toEqual(cases);

    // Pages of a filtered listing, and each item's activity summary (the timeline's numbers).
    const pages = [
      (await stack.api('/recordings?hasDeadClicks=true&limit=1')).json(),
      (await stack.api('/recordings?hasDeadClicks=true&limit=1&offset=1')).json(),
    ];
    expect(pages.map((p) => [p.hasMore, p.recordings.length])).toEqual([
      [true, 1],
      [false, 1],
    ]);
    expect(pages.map((p) => name.get(p.recordings[0].recordingId)).sort()).toEqual(['A', 'B']);
    const listed = (await stack.api('/recordings?limit=10')).json().recordings;
    expect(Object.fromEntries(listed.map((x: { recordingId: string; activity: unknown }) => [name.get(x.recordingId), x.activity]))).toEqual({
      A: { pages: 2, clicks: 4, errors: 2, activeTime: 8000 },
      B: { pages: 1, clicks: 1, errors: 0, activeTime: 6_000 },
      C: { pages: 2, clicks: 2, errors: 0, activeTime: 8_000 },
    });
    expect((await stack.api(`/recordings/${rec.C}`)).json().activity).toEqual({ pages: 2, clicks: 2, errors: 0, activeTime: 8_000 });
  });

  it.each([
    ['hasErrors=yes', 'hasErrors', 'must be true or false'],
    ['minDuration=-5', 'minDuration', 'must be at least 0'],
    ['maxActiveTime=abc', 'maxActiveTime', 'must be an integer'],
    ['minDuration=5000&maxDuration=10', 'minDuration', 'must not exceed maxDuration'],
    ['visitedPath=', 'visitedPath', 'must not be empty'],
    ['clickedText=a&clickedText=b', 'clickedText', ''],
    ['visitedURL=x', 'visitedURL', 'unknown parameter'],
  ])('refuses %s with a 400 naming the parameter', async (query, param, message) => {
    const r: Res = await stack.api(`/recordings?${query}`);
    expect(r.status).toBe(400);
    expect(r.json()).toMatchObject({ error: 'validation_failed', issues: [{ path: param, message: expect.stringContaining(message) }] });
  });

  it('counts errors, rage clicks and top pages in the statistics, with the same filters', async () => {
    const window = `from=${at(-60_000)}&to=${at(3_600_000)}&interval=hour`;
    const s = (await stack.api(`/statistics?${window}`)).json();
    expect(s.totals.recordings).toBe(3);
    expect(s.activity.totals).toEqual({ errors: 2, recordingsWithErrors: 1, rageClicks: 1, recordingsWithRageClicks: 1 });
    expect(s.activity.series.reduce((n: number, b: { errors: number }) => n + b.errors, 0)).toBe(2);
    expect(s.activity.series.find((b: { errors: number }) => b.errors > 0)).toMatchObject({
      recordingsWithErrors: 1,
      rageClicks: 1,
      recordingsWithRageClicks: 1,
    });
    expect(s.activity.topPages).toEqual(['/cart', '/checkout', '/help', '/home', '/pricing'].map((path) => ({ path, recordings: 1 })));
    expect(s.activity.topPagesTruncated).toBe(false);
    const pro = (await stack.api(`/statistics?${window}&metadata[plan]=pro&hasRageClicks=false`)).json();
    expect([pro.totals.recordings, pro.activity.totals, pro.activity.topPages.map((p: { path: string }) => p.path)]).toEqual([
      1,
      { errors: 0, recordingsWithErrors: 0, rageClicks: 0, recordingsWithRageClicks: 0 },
      ['/help', '/home'],
    ]);
    expect((await stack.api(`/statistics?${window}&minActiveTime=1&maxActiveTime=0`)).status).toBe(400);
  });

  it('rebuilds the activity tables exactly', async () => {
    await waitCaughtUp(nats);
    const before = await Promise.all(TABLES.map(tableRows));
    expect(before.map((rows) => rows.length).every((n) => n > 0)).toBe(true);
    const r = await runCli(['projections', 'rebuild', 'activity', '--batch', '2'], stack.serviceEnv).done;
    expect(r).toMatchObject({ code: 0 });
    expect(await Promise.all(TABLES.map(tableRows))).toEqual(before);
    expect(await found('hasRageClicks=true')).toBe('A');
  });

  it("removes a deleted recording's activity, and a deleted tenant's", async () => {
    expect((await stack.api(`/recordings/${rec.B}`, { method: 'DELETE' })).status).toBe(204);
    // Hidden at once (deletion rule), rows removed by the projector's mutation.
    expect(await found('hasDeadClicks=true')).toBe('A');
    expect((await timeline(rec.B)).status).toBe(404);
    expect(
      await pollUntil(
        () => rowsOf(rec.B),
        (n) => n.every((x) => x === 0),
        30_000,
        200,
      ),
    ).toEqual([0, 0, 0, 0]);
    expect((await rowsOf(rec.A)).every((n) => n > 0)).toBe(true);

    const t: TenantCreds = await tenantOn(stack, 'act');
    const id = randomUUID();
    for (const events of A) expect((await post(id, events, t.publicKey)).status).toBe(200);
    await pollUntil(
      () => rowsOf(id),
      (n) => n.every((x) => x > 0),
      30_000,
      200,
    );
    const tenantRows = () =>
      Promise.all(
        TABLES.map(async (tb) => Number((await ch.rows<{ n: string }>(sql`SELECT count() AS n FROM ${ident(tb)} WHERE tenant_id = ${t.tenantId}`))[0].n)),
      );
    expect((await adminOn(stack, 'DELETE', `/tenants/${t.tenantId}`)).status).toBe(202);
    expect(await pollUntil(tenantRows, (n) => n.every((x) => x === 0), 60_000, 200)).toEqual([0, 0, 0, 0]);
    expect((await rowsOf(rec.A)).every((n) => n > 0)).toBe(true);
  });
});
