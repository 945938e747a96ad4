// Live view latency: from a DOM change in a page recorded by our recorder (/sdk/recorder.js, over its
// WebSocket, in Chromium) to that change applied in the replay of viewers watching it in the hosted
// live player (GET /recordings/{id}/player?live=true through a presigned link, in Chromium), with 1,
// 10 and 50 viewers of one recording, and with 1 viewer while 100 recordings ingest live, each
// watched (the other 99 by feed clients, whose own latency from event time to receipt is reported
// too). Then memory over a long viewing (BENCH_LIVE_SOAK_SECONDS, default 600; a change every second): the
// service's RSS and one viewer page's JS heap, first third against last third. All clocks are this machine's.
import { presignQuery, sign } from '../src/auth/presign';
import { chromium, Browser, Page } from 'playwright-core';
import WebSocket from 'ws';
import { randomUUID } from 'node:crypto';
import { CHROMIUM_ARGS } from '../test/harness/browser';
import { PageServer } from '../test/harness/page-server';
import { SseClient } from '../test/harness/sse';
import type { TestEnv } from '../test/harness/stack';
import { BenchContext, BenchSection, latencySummary, rssMiB, sized, sleep } from './bench-kit';

const MARKS = sized(40, 3);
const MARK_EVERY_MS = sized(400, 300);
const VIEWER_COUNTS = sized([1, 10, 50], [1, 2]);
const OTHER_RECORDINGS = sized(99, 2);
const OTHER_BATCH_EVERY_MS = 250;
const SOAK_SECONDS = sized(Number(process.env.BENCH_LIVE_SOAK_SECONDS ?? 600), 2);
const SOAK_VIEWERS = sized(10, 1);
const TARGETS = { p95Ms: 1000, oneViewerP50Ms: 300 };

const recordedPage = (env: TestEnv) => `<!doctype html><html><head><title>live bench</title></head><body>
<h1>Live</h1><div id="mark">m-0</div>
<script>window.__marks = {}; window.mark = function (n) { var t = 'm-' + n; document.getElementById('mark').textContent = t; window.__marks[t] = Date.now(); };</script>
<script src="${env.baseUrl}/sdk/recorder.js" data-public-key="${env.publicKey}" data-server-url="${env.baseUrl}"></script>
</body></html>`;

/** Watches the player's replay frame for the #mark texts and notes when each first appears. */
function watchMarks(): void {
  const w = window as unknown as { __applied: Record<string, number> };
  w.__applied = {};
  let attached: Document | null = null;
  const check = (d: Document) => {
    const t = d.getElementById('mark')?.textContent;
    if (t && t.startsWith('m-') && w.__applied[t] === undefined) w.__applied[t] = Date.now();
  };
  setInterval(() => {
    const d = document.querySelector('iframe')?.contentDocument ?? null;
    if (!d || d === attached) return;
    attached = d;
    new MutationObserver(() => check(d)).observe(d, { subtree: true, childList: true, characterData: true });
    check(d);
  }, 20);
}

function presigned(env: TestEnv, recordingId: string): string {
  const expires = Math.floor(Date.now() / 1000) + 3600;
  const signature = sign(env.signingSecret, { kind: 'recording', recordingId }, env.tenantId, expires);
  return presignQuery({ tenantId: env.tenantId, expires, keyId: env.signingKeyId, signature });
}

async function openViewers(browser: Browser, env: TestEnv, recordingId: string, n: number): Promise<Page[]> {
  const url = `${env.baseUrl}/recordings/${recordingId}/player?live=true&${presigned(env, recordingId)}`;
  // A context each: a browser keeps at most six HTTP/1.1 connections to a host per network context,
  // and each live feed holds one (as separate viewers' browsers would not share any).
  const pages = await Promise.all(Array.from({ length: n }, async () => (await browser.newContext({ viewport: { width: 800, height: 600 } })).newPage()));
  await Promise.all(
    pages.map(async (p) => {
      await p.addInitScript(watchMarks);
      // Generous: in `npm test`'s smoke run this comes right after the noisy-neighbour flood, and one
      // player page once took over 30 s to load there (cause not found; the service logged nothing).
      const t = Date.now();
      await p.goto(url, { timeout: 120_000 });
      if (Date.now() - t > 10_000) console.error(`live: a viewer page took ${Date.now() - t} ms to load`);
      await p.waitForFunction(() => (window as unknown as { __tapedeck?: { ready?: boolean } }).__tapedeck?.ready === true, undefined, { timeout: 60_000 });
    }),
  );
  return pages;
}

/** Changes the recorded page `marks` times and returns each viewer's latency per mark (ms), and marks never applied. */
async function measure(recorded: Page, viewers: Page[], first: number, marks: number, everyMs: number, settleMs = 2000) {
  for (let i = 0; i < marks; i++) {
    await recorded.evaluate((n) => (window as unknown as { mark(n: number): void }).mark(n), first + i);
    await sleep(everyMs);
  }
  await sleep(settleMs);
  const made = await recorded.evaluate(() => (window as unknown as { __marks: Record<string, number> }).__marks);
  const latencies: number[] = [];
  let missing = 0;
  for (const v of viewers) {
    const applied = await v.evaluate(() => (window as unknown as { __applied: Record<string, number> }).__applied);
    for (let i = 0; i < marks; i++) {
      const t = `m-${first + i}`;
      if (applied[t] === undefined) missing++;
      else latencies.push(applied[t] - made[t]);
    }
  }
  return { latencies, missing };
}

/** A recording ingested over a WebSocket like the recorder's (batch frames, watch=1), with one feed viewer. */
async function otherRecording(env: TestEnv) {
  const id = randomUUID();
  const ws = await new Promise<WebSocket>((resolve, reject) => {
    const s = new WebSocket(`${env.baseUrl.replace(/^http/, 'ws')}/recordings/${id}/events/ws?token=${env.publicKey}&watch=1`);
    s.on('open', () => resolve(s));
    s.on('error', reject);
  });
  const start = Date.now();
  const send = (events: unknown[]) => ws.send(JSON.stringify({ type: 'batch', batch: randomUUID(), events }));
  send([
    { type: 4, timestamp: start, data: { href: 'https://example.test/', width: 800, height: 600 } },
    { type: 2, timestamp: start, data: { node: { type: 0, id: 1, childNodes: [] }, initialOffset: { left: 0, top: 0 } } },
  ]);
  await sleep(200);
  const viewer = await SseClient.open(`${env.baseUrl}/recordings/${id}/events?live=true`, { authorization: `Bearer ${env.secretKey}` });
  const timer = setInterval(() => {
    send([{ type: 3, timestamp: Date.now(), data: { source: 1, positions: [{ x: 1, y: 1, id: 1, timeOffset: 0 }] } }]);
  }, OTHER_BATCH_EVERY_MS);
  return {
    stop() {
      clearInterval(timer);
      ws.close();
      viewer.close();
    },
    /** From each event's timestamp (when it was sent) to the feed message holding it arriving here, ms. */
    received(): number[] {
      return viewer.messages
        .filter((m) => m.event === 'events')
        .flatMap((m) => (JSON.parse(m.data) as { type: number; timestamp: number }[]).filter((e) => e.type === 3).map((e) => m.receivedAt - e.timestamp));
    },
  };
}

export const liveBench: BenchSection = {
  name: 'live',
  async run(ctx: BenchContext) {
    const { env } = ctx;
    const server = await PageServer.start({ '/recorded': recordedPage(env) });
    const browser = await chromium.launch({ executablePath: env.chromiumPath, args: CHROMIUM_ARGS });
    const out: Record<string, unknown> = { targets: TARGETS, marks: MARKS, markEveryMs: MARK_EVERY_MS };
    try {
      const recordedContext = await browser.newContext();
      const recorded = await recordedContext.newPage();
      await recorded.goto(`${server.url}/recorded`);
      await recorded.waitForFunction(() => ((window as unknown as { Tapedeck?: { stats(): { acked: number } | null } }).Tapedeck?.stats()?.acked ?? 0) > 0);
      const recordingId = await recorded.evaluate(() => (window as unknown as { Tapedeck: { getRecordingId(): string } }).Tapedeck.getRecordingId());
      let next = 1;

      for (const n of VIEWER_COUNTS) {
        const viewers = await openViewers(browser, env, recordingId, n);
        await sleep(500); // the watch signal reaches the recorder
        const { latencies, missing } = await measure(recorded, viewers, next, MARKS, MARK_EVERY_MS);
        next += MARKS;
        out[`viewers${n}`] = { ...latencySummary(latencies), missing };
        ctx.log(`live: ${n} viewers: ${JSON.stringify(out[`viewers${n}`])}`);
        await Promise.all(viewers.map((v) => v.context().close()));
      }

      // 100 live recordings: ours with one player, the others ingesting with a feed viewer each.
      const others = await Promise.all(Array.from({ length: OTHER_RECORDINGS }, () => otherRecording(env)));
      try {
        await sleep(1000);
        const viewers = await openViewers(browser, env, recordingId, 1);
        await sleep(500);
        const { latencies, missing } = await measure(recorded, viewers, next, MARKS, MARK_EVERY_MS);
        next += MARKS;
        const feeds = others.flatMap((o) => o.received());
        out[`recordings${OTHER_RECORDINGS + 1}`] = { player: { ...latencySummary(latencies), missing }, feeds: latencySummary(feeds) };
        ctx.log(`live: ${OTHER_RECORDINGS + 1} live recordings: ${JSON.stringify(out[`recordings${OTHER_RECORDINGS + 1}`])}`);
        await Promise.all(viewers.map((v) => v.context().close()));
      } finally {
        for (const o of others) o.stop();
      }

      // Memory while viewers watch for a long time, a change every second.
      const viewers = await openViewers(browser, env, recordingId, SOAK_VIEWERS);
      const rss: number[] = [];
      const heap: number[] = [];
      const until = Date.now() + SOAK_SECONDS * 1000;
      const latencies: number[] = [];
      while (Date.now() < until) {
        const r = await measure(recorded, viewers.slice(0, 1), next, 1, 0, 1000);
        next++;
        latencies.push(...r.latencies);
        rss.push(rssMiB(ctx.pids.service));
        heap.push((await viewers[0].evaluate(() => (performance as unknown as { memory?: { usedJSHeapSize: number } }).memory?.usedJSHeapSize ?? 0)) / 2 ** 20);
      }
      const third = (xs: number[], k: 0 | 2) => {
        const part = xs.slice(Math.floor((k * xs.length) / 3), Math.floor(((k + 1) * xs.length) / 3) || 1).sort((a, b) => a - b);
        return Math.round((part[Math.floor(part.length / 2)] ?? NaN) * 10) / 10;
      };
      out.soak = {
        seconds: SOAK_SECONDS,
        viewers: SOAK_VIEWERS,
        latency: latencySummary(latencies),
        serviceRssMiB: { firstThirdMedian: third(rss, 0), lastThirdMedian: third(rss, 2), max: Math.max(...rss) },
        viewerHeapMiB: { firstThirdMedian: third(heap, 0), lastThirdMedian: third(heap, 2) },
      };
      ctx.log(`live: soak ${JSON.stringify(out.soak)}`);
      await Promise.all(viewers.map((v) => v.context().close()));
      return out;
    } finally {
      await browser.close();
      await server.close();
    }
  },
};
