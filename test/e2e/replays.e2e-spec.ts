// Replays end to end: three Chromium tabs load our recorder (/sdk/recorder.js) from the service, all
// tagged sessionId=S, and navigate and click in turn with real time between steps (six page views).
// The composed replay must order page views by start, play each whole, renumber time from 0 with the
// documented gap, keep originalTimestamp and recordingId, merge metadata (latest write wins), answer
// 400/404/401/403 as documented, list the group, and play in rrweb's Replayer showing each tab's page
// at the right moments. Last, a deleted recording must leave the group at once, before the ClickHouse
// mutation removes its rows (merges, hence mutations, are stopped meanwhile).
import { randomBytes, randomUUID } from 'node:crypto';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { sql } from '../../src/infrastructure/clickhouse/sql';
import { launchChromium } from '../harness/browser';
import { testEnv } from '../harness/env';
import { api, postEvents, Res, sampleEvents } from '../harness/http';
import { PageServer } from '../harness/page-server';
import { pollUntil } from '../harness/poll-until';
import { playToEnd } from '../harness/replayer';
import { createTenant, nowSeconds, presign, qs, TenantCreds } from './auth-fixtures';
import { clickhouse } from './projections-fixtures';

const GAP_MS = 1000; // PAGE_VIEW_GAP_MS, as documented on GET /replays/{groupingProp}/{replayValue}
const STEP_MS = 700; // real time between two steps of the browsing session

type Ev = { type: number; timestamp: number; data: any; sequenceId?: number; originalTimestamp?: number; recordingId?: string };
type Replay = { metadata: Record<string, string>; events: Ev[] };
type ListItem = {
  groupingProp: string;
  replayValue: string;
  recordings: number;
  startedAt: number;
  endedAt: number;
  duration: number;
  links: Record<string, string>;
  signedUrlsExpireAt?: number;
};

const S = `sess ${randomBytes(4).toString('hex')} ü/1`; // a space, a slash and a non-ASCII letter: encoded in paths, signed plain
const replayPath = (prop: string, value: string) => `/replays/${encodeURIComponent(prop)}/${encodeURIComponent(value)}`;

function pageHtml(baseUrl: string, publicKey: string, tab: string, marker: string): string {
  const meta = { sessionId: S, [`tab${tab}`]: 'yes' };
  return `<!doctype html><html><head><title>${marker}</title></head><body>
<h1 id="marker">MARKER-${marker}</h1><input id="name" autocomplete="off">
<button id="go" onclick="document.getElementById('out').textContent = 'clicked ${marker}'">Go</button><p id="out"></p>
<script src="${baseUrl}/sdk/recorder.js"></script>
<script>Tapedeck.start({ publicKey: ${JSON.stringify(publicKey)}, serverUrl: ${JSON.stringify(baseUrl)}, meta: ${JSON.stringify(meta)} });</script>
</body></html>`;
}

/**
 * The page (path) each stored event of one recording belongs to: the href of the latest Meta event,
 * except that the DomContentLoaded and Load events a page load emits just before its Meta belong to
 * that new page.
 */
function pageOf(events: Ev[]): string[] {
  const labels: string[] = [];
  let current = '?';
  events.forEach((e, i) => {
    if (e.type === 4) current = new URL(e.data.href).pathname.slice(1);
    let label = current;
    if (e.type === 0 || e.type === 1) {
      const next = events.slice(i + 1).find((x) => x.type !== 0 && x.type !== 1);
      if (next?.type === 4) label = new URL(next.data.href).pathname.slice(1);
    }
    labels.push(label);
  });
  return labels;
}

/** Pages of the composed events, from the stored events of their recordings (stored order is kept per recording). */
function composedPages(events: Ev[]): string[] {
  const pages = new Map(Object.entries(stored).map(([rid, evs]) => [rid, pageOf(evs)]));
  const next = new Map<string, number>();
  return events.map((e) => {
    const k = next.get(e.recordingId!) ?? 0;
    next.set(e.recordingId!, k + 1);
    return pages.get(e.recordingId!)![k];
  });
}

/** Consecutive runs of one label: [label, first index, last index]. */
function runs(events: Ev[], labelOf: (e: Ev, i: number) => string): [string, number, number][] {
  const out: [string, number, number][] = [];
  events.forEach((e, i) => {
    const l = labelOf(e, i);
    if (out.length && out[out.length - 1][0] === l) out[out.length - 1][2] = i;
    else out.push([l, i, i]);
  });
  return out;
}

let T: TenantCreds;
let other: TenantCreds;
let browser: Browser;
let pages: PageServer;
let ids: Record<'A' | 'B' | 'C', string>;
let stored: Record<string, Ev[]>;
let replay: Replay;

const secret = (path: string, key = T.secretKey) => api(path, { key });
const group = () => secret(replayPath('sessionId', S));

beforeAll(async () => {
  T = await createTenant('rp');
  other = await createTenant('rpo');
  const base = testEnv().baseUrl;
  const routes: Record<string, string> = {};
  for (const tab of ['A', 'B', 'C']) for (const n of [1, 2]) routes[`/${tab.toLowerCase()}${n}`] = pageHtml(base, T.publicKey, tab, `${tab}${n}`);
  routes['/player'] = '<!doctype html><html><head></head><body><div id="root"></div></body></html>';
  pages = await PageServer.start(routes);
  browser = await launchChromium();

  const ctx: BrowserContext = await browser.newContext({ viewport: { width: 800, height: 600 } });
  const errors: string[] = [];
  const tab = async () => {
    const p = await ctx.newPage();
    p.on('pageerror', (e) => errors.push(e.message));
    return p;
  };
  const open = async (p: Page, path: string) => {
    await p.goto(`${pages.url}${path}`);
    await pollUntil(
      () => p.evaluate(() => (window as any).Tapedeck.stats()),
      (s) => !!s && s.acked > 0,
      15_000,
    );
  };
  const step = () => new Promise((r) => setTimeout(r, STEP_MS)); // real time between page views is the point
  const addMeta = async (p: Page, meta: Record<string, string>) => {
    await p.evaluate((m) => (window as any).Tapedeck.addMeta(m), meta);
    await p.evaluate(() => (window as any).Tapedeck.flush());
  };

  const [a, b, c] = [await tab(), await tab(), await tab()];
  await open(a, '/a1');
  await a.click('#go');
  await addMeta(a, { plan: 'free' }); // written first: loses to C's later write
  await step();
  await open(b, '/b1');
  await b.click('#go');
  await step();
  await open(a, '/a2');
  await a.fill('#name', 'second page of A');
  await a.click('#go');
  await step();
  await open(c, '/c1');
  await c.click('#go');
  await step();
  await open(b, '/b2');
  await b.fill('#name', 'typed in B2');
  await step();
  await open(c, '/c2');
  await c.click('#go');
  await addMeta(c, { plan: 'pro' }); // the latest write of the key in the group
  const id = (p: Page) => p.evaluate(() => (window as any).Tapedeck.getRecordingId() as string);
  ids = { A: await id(a), B: await id(b), C: await id(c) };
  for (const p of [a, b, c]) {
    await p.evaluate(() => (window as any).Tapedeck.flush());
    const s = await p.evaluate(() => (window as any).Tapedeck.stats());
    expect(s).toMatchObject({ pending: 0, dropped: 0, lost: 0 });
  }
  await ctx.close();
  expect(errors).toEqual([]);

  stored = {};
  for (const rid of Object.values(ids)) {
    const r = await secret(`/recordings/${rid}/events`);
    expect(r.status).toBe(200);
    stored[rid] = r.json<Ev[]>();
  }
  // Every tab recorded two page views (one FullSnapshot each).
  for (const rid of Object.values(ids)) expect(stored[rid].filter((e) => e.type === 2)).toHaveLength(2);

  // The projections: the group is complete once all three recordings and C's last write are in.
  const total = Object.values(stored).reduce((n, s) => n + s.length, 0);
  const ready = await pollUntil(
    group,
    (r) => r.status === 200 && r.json<Replay>().metadata.plan === 'pro' && r.json<Replay>().events.length === total,
    30_000,
    200,
  );
  replay = ready.json<Replay>();
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await pages?.close();
});

describe('GET /replays/{groupingProp}/{replayValue}', () => {
  it('plays page views whole, in the order they started, across the tabs', () => {
    const labels = composedPages(replay.events);
    const blocks = runs(replay.events, (_e, i) => labels[i]);
    expect(blocks.map(([l]) => l)).toEqual(['a1', 'b1', 'a2', 'c1', 'b2', 'c2']);
    // Each block is one recording, and its page's FullSnapshot names the page.
    for (const [label, from, to] of blocks) {
      const events = replay.events.slice(from, to + 1);
      expect(new Set(events.map((e) => e.recordingId))).toEqual(new Set([ids[label[0].toUpperCase() as 'A' | 'B' | 'C']]));
      const snapshots = events.filter((e) => e.type === 2);
      expect(snapshots).toHaveLength(1);
      expect(JSON.stringify(snapshots[0].data)).toContain(`MARKER-${label.toUpperCase()}`);
      // It starts with the page load's events: DomContentLoaded, Load, then Meta before the FullSnapshot.
      expect(events.slice(0, 3).map((e) => e.type)).toEqual([0, 1, 4]);
    }
    // Page views start in real time in that order.
    const starts = blocks.map(([, from]) => replay.events[from].originalTimestamp!);
    expect([...starts].sort((x, y) => x - y)).toEqual(starts);
  });

  it('renumbers time from 0, keeps spacing within a page view and puts the documented gap between them', () => {
    const events = replay.events;
    expect(events[0].timestamp).toBe(0);
    const labels = composedPages(events);
    const blocks = runs(events, (_e, i) => labels[i]);
    for (const [, from, to] of blocks) {
      const shift = events[from].originalTimestamp! - events[from].timestamp;
      for (let i = from; i <= to; i++) expect(events[i].originalTimestamp! - events[i].timestamp).toBe(shift);
    }
    for (let k = 1; k < blocks.length; k++) expect(events[blocks[k][1]].timestamp - events[blocks[k - 1][2]].timestamp).toBe(GAP_MS);
    for (let i = 1; i < events.length; i++) expect(events[i].timestamp).toBeGreaterThanOrEqual(events[i - 1].timestamp);
  });

  it('carries each stored event once, with recordingId and originalTimestamp equal to its stored timestamp', () => {
    for (const [tab, rid] of Object.entries(ids)) {
      const mine = replay.events.filter((e) => e.recordingId === rid);
      expect(mine.map((e) => e.originalTimestamp)).toEqual(stored[rid].map((e) => e.timestamp));
      const asStored = mine.map(({ recordingId: _r, timestamp: _t, originalTimestamp, ...rest }) => ({ ...rest, timestamp: originalTimestamp }));
      expect(asStored).toEqual(stored[rid].map(({ originalTimestamp: _o, ...rest }) => rest));
      expect(mine.length).toBeGreaterThan(0);
      expect(tab).toMatch(/^[ABC]$/);
    }
    expect(replay.events.every((e) => Object.values(ids).includes(e.recordingId!))).toBe(true);
  });

  it('merges metadata: the union of the tabs, the latest write winning a conflicting key', () => {
    expect(replay.metadata).toMatchObject({ sessionId: S, tabA: 'yes', tabB: 'yes', tabC: 'yes', plan: 'pro', recorder: 'tapedeck' });
  });

  it('serves the events alone on /events, and the same through the compose forms', async () => {
    const events = await secret(`${replayPath('sessionId', S)}/events`);
    expect(events.status).toBe(200);
    expect(events.json()).toEqual(replay.events);
    const compose = await secret(`/replay?${qs({ 'meta[sessionId]': S })}`);
    expect(compose.status).toBe(200);
    expect(compose.json()).toEqual(replay.events);
    // Filters combine with AND: only tab B's recording.
    const onlyB = await secret(`/replays?${qs({ 'metadata[sessionId]': S, 'metadata[tabB]': 'yes' })}`);
    expect(onlyB.status).toBe(200);
    const bEvents = onlyB.json<Ev[]>();
    expect(new Set(bEvents.map((e) => e.recordingId))).toEqual(new Set([ids.B]));
    expect(bEvents.map((e) => e.originalTimestamp)).toEqual(stored[ids.B].map((e) => e.timestamp));
    expect(bEvents[0].timestamp).toBe(0);
    expect((await secret(`/replay?${qs({ 'meta[sessionId]': S, 'meta[tabB]': 'no' })}`)).status).toBe(404);
    expect((await secret('/replay')).status).toBe(400);
    // A parameter other than a filter is refused, not ignored (compose would merge whatever the filters left).
    const extra = await secret(`/replay?${qs({ 'meta[sessionId]': S, tab: 'B' })}`);
    expect([extra.status, extra.json()]).toEqual([
      400,
      expect.objectContaining({ error: 'validation_failed', issues: [expect.objectContaining({ path: 'tab' })] }),
    ]);
  });

  it('answers 400 for lengths out of range and 404 for an empty group', async () => {
    const bad = async (r: Promise<Res>) => {
      const res = await r;
      expect({ status: res.status, type: res.headers.get('content-type') }).toMatchObject({ status: 400, type: expect.stringMatching(/json/) });
    };
    for (const suffix of ['', '/events']) {
      await bad(secret(`${replayPath('p'.repeat(101), 'v')}${suffix}`));
      await bad(secret(`${replayPath('sessionId', 'v'.repeat(501))}${suffix}`));
      const empty = await secret(`${replayPath('p'.repeat(100), 'v'.repeat(500))}${suffix}`);
      expect(empty.status).toBe(404);
      expect(empty.headers.get('content-type')).toMatch(/text\/plain/);
      expect((await secret(`${replayPath('sessionId', `${S}-none`)}${suffix}`)).status).toBe(404);
    }
    await bad(secret(`/replays/${'p'.repeat(101)}`));
    // The group listing takes no metadata filter: one is named, not ignored.
    const filtered = await secret(`/replays/sessionId?${qs({ 'metadata[tabB]': 'yes' })}`);
    expect([filtered.status, filtered.json()]).toEqual([400, expect.objectContaining({ issues: [expect.objectContaining({ path: 'metadata[tabB]' })] })]);
  });

  it('does not find a group whose recordings have metadata but no events yet, as the group listing does not list it', async () => {
    const value = `${S}-meta-only`; // under its own key: the listing test below counts the sessionId groups
    const id = randomUUID();
    const meta = await api(`/recordings/${id}/metadata`, {
      method: 'POST',
      key: T.publicKey,
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ metaOnlyProbe: value }),
    });
    expect(meta.status).toBe(200);
    // Projected (the recording's detail shows it), yet no replay.
    await pollUntil(
      () => secret(`/recordings/${id}`),
      (r) => r.status === 200 && r.json().metadata?.metaOnlyProbe === value,
      15_000,
      100,
    );
    for (const suffix of ['', '/events']) expect((await secret(`${replayPath('metaOnlyProbe', value)}${suffix}`)).status).toBe(404);
    // Its first events make it a replay.
    expect((await postEvents(id, sampleEvents(3), T.publicKey)).status).toBe(200);
    const found = await pollUntil(
      () => secret(replayPath('metaOnlyProbe', value)),
      (r) => r.status === 200,
      15_000,
      100,
    );
    expect(found.json().events).toHaveLength(3);
  });

  it('opens with a presigned replay link and refuses bad credentials', async () => {
    const path = replayPath('sessionId', S);
    const link = presign(`/replays/sessionId/${S}`, T); // signed over the plain values
    const viaLink = await api(`${path}?${qs(link)}`);
    expect(viaLink.status).toBe(200);
    expect(viaLink.json()).toEqual(replay);
    expect((await api(`${path}/events?${qs(link)}`)).json()).toEqual(replay.events);

    const status = async (url: string, key?: string) => (await api(url, { key })).status;
    expect(await status(path)).toBe(401);
    expect(await status(path, T.publicKey)).toBe(401);
    expect(await status(path, `secret_key_svc_${randomBytes(18).toString('base64url')}`)).toBe(401);
    expect(await status(path, other.secretKey)).toBe(404); // another tenant has no such group
    expect(await status(`${replayPath('sessionId', `${S}x`)}?${qs(link)}`)).toBe(403);
    const tampered = { ...link, signature: (link.signature[0] === 'a' ? 'b' : 'a') + link.signature.slice(1) };
    expect(await status(`${path}?${qs(tampered)}`)).toBe(403);
    expect(await status(`${path}?${qs(presign(`/replays/sessionId/${S}`, T, nowSeconds() - 1))}`)).toBe(403);
    expect(await status(`/replays/sessionId?${qs(link)}`)).toBe(401); // a replay link does not open the listing
  });
});

describe('GET /replays/{groupingProp}', () => {
  it('lists groups newest first with counts, time spans and signed links', async () => {
    // An older and a newer group of one recording each, next to the browser session.
    const older = `old-${randomUUID()}`;
    const newer = `new-${randomUUID()}`;
    const lastStored = Math.max(
      ...Object.values(stored)
        .flat()
        .map((e) => e.timestamp),
    );
    for (const [value, start] of [
      [older, Date.now() - 3_600_000],
      [newer, lastStored + 60_000],
    ] as const) {
      const rid = randomUUID();
      expect((await postEvents(rid, sampleEvents(5, start), T.publicKey)).status).toBe(200);
      const meta = await api(`/recordings/${rid}/metadata`, {
        method: 'POST',
        key: T.publicKey,
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ sessionId: value }),
      });
      expect(meta.status).toBe(200);
    }
    const list = await pollUntil(
      () => secret('/replays/sessionId?limit=100'),
      (r) => r.status === 200 && r.json().replays.length === 3,
      30_000,
      200,
    );
    const body = list.json<{ replays: ListItem[]; limit: number; offset: number; hasMore: boolean }>();
    expect(body).toMatchObject({ limit: 100, offset: 0, hasMore: false });
    expect(body.replays.map((r) => [r.replayValue, r.recordings])).toEqual([
      [newer, 1],
      [S, 3],
      [older, 1],
    ]);
    const mine = body.replays[1];
    const all = Object.values(stored)
      .flat()
      .map((e) => e.timestamp);
    // The span covers every stored event (and the in-band metadata events around them).
    expect(mine.startedAt).toBeLessThanOrEqual(Math.min(...all));
    expect(mine.startedAt).toBeGreaterThan(Math.min(...all) - 5000);
    expect(mine.endedAt).toBeGreaterThanOrEqual(Math.max(...all));
    expect(mine.endedAt).toBeLessThan(Math.max(...all) + 5000);
    expect(mine.duration).toBe(mine.endedAt - mine.startedAt);
    expect(mine).toMatchObject({ groupingProp: 'sessionId', links: { self: replayPath('sessionId', S), events: `${replayPath('sessionId', S)}/events` } });
    expect(mine.links.selfSigned).toBeUndefined();

    const page = (await secret('/replays/sessionId?limit=1&offset=1')).json<{ replays: ListItem[]; hasMore: boolean }>();
    expect(page.replays.map((r) => r.replayValue)).toEqual([S]);
    expect(page.hasMore).toBe(true);

    const signed = (await secret('/replays/sessionId?limit=100&includeSignedUrls=true')).json<{ replays: ListItem[] }>();
    const s = signed.replays.find((r) => r.replayValue === S)!;
    expect(s.signedUrlsExpireAt).toBeGreaterThan(nowSeconds());
    expect((await api(s.links.selfSigned)).json()).toEqual(replay);
    expect((await api(s.links.eventsSigned)).json()).toEqual(replay.events);
    expect((await api(signed.replays.find((r) => r.replayValue === older)!.links.eventsSigned)).status).toBe(200);
  });
});

describe("the listing's duration", () => {
  it("is the wall-clock span of the group, documented as not the composed replay's length", async () => {
    const item = (await secret('/replays/sessionId?limit=100')).json<{ replays: ListItem[] }>().replays.find((r) => r.replayValue === S)!;
    const composedLength = replay.events[replay.events.length - 1].timestamp;
    // Six page views with STEP_MS of real time between them, composed with GAP_MS between them.
    expect(item.duration).toBe(item.endedAt - item.startedAt);
    expect(composedLength).not.toBe(item.duration);
    const doc = (await api('/openapi.json')).json<{ paths: Record<string, { get: { description: string } }> }>();
    const description = doc.paths['/replays/{groupingProp}'].get.description;
    expect(description).toMatch(/duration: endedAt - startedAt in ms, the wall-clock span/);
    expect(description).toMatch(/not the length of the composed replay/);
  });
});

describe("the composed replay in rrweb's Replayer", () => {
  it("plays to the end without errors and shows each tab's page at its moments", async () => {
    const labels = composedPages(replay.events);
    const blocks = runs(replay.events, (_e, i) => labels[i]);
    const viewing = await browser.newContext({ viewport: { width: 1000, height: 800 } });
    const player = await viewing.newPage();
    const problems: string[] = [];
    player.on('pageerror', (e) => problems.push(`pageerror: ${e.message}`));
    player.on('console', (m) => {
      if (m.type() === 'error') problems.push(`console: ${m.text()}`);
    });
    try {
      await player.goto(`${pages.url}/player`);
      const duration = replay.events[replay.events.length - 1].timestamp;
      const finishedAt = await playToEnd(player, replay.events, 8, 30_000);
      expect(finishedAt).toBeGreaterThanOrEqual(duration);

      const shownAt = (time: number) =>
        player.evaluate((t) => {
          const r = (window as any).replayer;
          r.pause(t);
          const doc: Document = r.iframe.contentDocument;
          return { marker: doc.querySelector('#marker')?.textContent, out: doc.querySelector('#out')?.textContent ?? '' };
        }, time);
      const clicked = new Set(['a1', 'b1', 'a2', 'c1', 'c2']);
      for (let k = 0; k < blocks.length; k++) {
        const [label, from, to] = blocks[k];
        const marker = `MARKER-${label.toUpperCase()}`;
        // Inside the page view, and in the gap after it (the Replayer applies events before the seek time).
        const start = replay.events[from].timestamp;
        const end = replay.events[to].timestamp;
        expect({ t: 'inside', label, ...(await shownAt(Math.round((start + end) / 2) + 1)) }).toMatchObject({ marker });
        const after = await shownAt(end + GAP_MS / 2);
        expect({ t: 'after', label, ...after }).toMatchObject({ marker, out: clicked.has(label) ? `clicked ${label.toUpperCase()}` : '' });
      }
      expect(problems).toEqual([]);
    } finally {
      await viewing.close();
    }
  });
});

describe('a deleted recording', () => {
  it('leaves its group, the merged metadata and the listing as soon as its deletion is projected', async () => {
    const ch = clickhouse();
    const rawRows = async (id: string) =>
      Number((await ch.rows<{ n: string }>(sql`SELECT count() AS n FROM recording_metadata WHERE tenant_id = ${T.tenantId} AND recording_id = ${id}`))[0].n);
    // Hold back the mutation that removes the rows, so only the read-side rule can hide them.
    await ch.command(sql`SYSTEM STOP MERGES`);
    try {
      expect((await api(`/recordings/${ids.C}`, { method: 'DELETE', key: T.secretKey })).status).toBe(204);
      await pollUntil(
        async () =>
          Number(
            (await ch.rows<{ n: string }>(sql`SELECT count() AS n FROM deleted_recordings WHERE tenant_id = ${T.tenantId} AND recording_id = ${ids.C}`))[0].n,
          ),
        (n) => n > 0,
        30_000,
        100,
      );
      const [r, list, onlyC] = [await group(), await secret('/replays/sessionId?limit=100'), await secret(`/replay?${qs({ 'meta[tabC]': 'yes' })}`)];
      expect(await rawRows(ids.C)).toBeGreaterThan(0); // the mutation has not run: what follows is the read rule
      expect(r.status).toBe(200);
      const after = r.json<Replay>();
      expect(after.metadata.tabC).toBeUndefined();
      expect(after.metadata).toMatchObject({ sessionId: S, tabA: 'yes', tabB: 'yes', plan: 'free' }); // C's later write is gone with C
      expect(new Set(after.events.map((e) => e.recordingId))).toEqual(new Set([ids.A, ids.B]));
      expect(list.json<{ replays: ListItem[] }>().replays.find((x) => x.replayValue === S)?.recordings).toBe(2);
      expect(onlyC.status).toBe(404);
    } finally {
      await ch.command(sql`SYSTEM START MERGES`);
      await ch.close();
    }
  });
});
