// Replay composition: a group of 20 recordings (4 page views each, interleaved in time across the
// recordings, about 1 MB of events per recording) composed by GET /replays/{prop}/{value}. Reports
// time to the last byte (p50/p95 over a few runs), MB/s of the response, and the service's memory
// while the response streams: RSS sampled from /proc every 20 ms, V8 heap from its /metrics before
// and after. The response is streamed, so memory should not grow with its size. For comparison, the
// same recordings read one by one from GET /recordings/{id}/events (composition reads each twice).
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { BenchContext, BenchSection, httpClient, latencySummary, makeBatch, now, sized } from './bench-kit';

const RECORDINGS = sized(20, 2);
const PAGE_VIEWS = sized(4, 1);
const EVENTS_PER_PAGE_VIEW = sized(1000, 50);
const POST_BATCH = 250;
const RUNS = sized(5, 1);
const PROP = 'benchSession';

type Ev = { type: number; timestamp: number; data: Record<string, unknown> };

/** A FullSnapshot of a plausible page: a list of `rows` rows with text and attributes (~40 KB). */
function fullSnapshot(ts: number, page: string, rows = 200): Ev {
  let id = 10;
  const row = (i: number) => ({
    type: 2,
    tagName: 'li',
    id: id++,
    attributes: { class: `row row-${i}`, 'data-id': `${page}-${i}` },
    childNodes: [{ type: 3, id: id++, textContent: `Item ${i} of ${page}: some product name and a short description` }],
  });
  const body = {
    type: 2,
    tagName: 'body',
    id: 4,
    attributes: {},
    childNodes: [{ type: 2, tagName: 'ul', id: 5, attributes: { id: 'list' }, childNodes: Array.from({ length: rows }, (_, i) => row(i)) }],
  };
  const html = { type: 2, tagName: 'html', id: 2, attributes: {}, childNodes: [{ type: 2, tagName: 'head', id: 3, attributes: {}, childNodes: [] }, body] };
  return { type: 2, timestamp: ts, data: { node: { type: 0, id: 1, childNodes: [html] }, initialOffset: { top: 0, left: 0 } } };
}

/** Recording r: page view p starts at base + p * 60 s + r * 2.5 s, so page views interleave across recordings. */
function recordingEvents(r: number, base: number): Ev[] {
  const out: Ev[] = [];
  for (let p = 0; p < PAGE_VIEWS; p++) {
    const start = base + p * 60_000 + r * 2_500;
    const page = `https://shop.example/r${r}/p${p}`;
    out.push({ type: 4, timestamp: start, data: { href: page, width: 1280, height: 720 } });
    out.push(fullSnapshot(start + 1, `r${r}p${p}`));
    for (let b = 0; out.length < (p + 1) * (EVENTS_PER_PAGE_VIEW + 2); b++) {
      out.push(...makeBatch(r * 1000 + p * 100 + b, 50, start + 10 + b * 500).slice(0, (p + 1) * (EVENTS_PER_PAGE_VIEW + 2) - out.length));
    }
  }
  return out;
}

const rssMiB = (pid: number) => Number(/^VmRSS:\s+(\d+) kB/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? NaN) / 1024;
const round = (x: number, d = 1) => Math.round(x * 10 ** d) / 10 ** d;

export const replayBench: BenchSection = {
  name: 'replay',
  async run(ctx: BenchContext) {
    const { env } = ctx;
    const http = httpClient(env.baseUrl, 8);
    const value = `bench-${randomUUID()}`;
    const base = Date.now() - 3_600_000;
    const ids = Array.from({ length: RECORDINGS }, () => randomUUID());
    let ingestedBytes = 0;
    let events = 0;
    for (const [r, id] of ids.entries()) {
      const all = recordingEvents(r, base);
      events += all.length;
      for (let i = 0; i < all.length; i += POST_BATCH) {
        const body = JSON.stringify(all.slice(i, i + POST_BATCH));
        ingestedBytes += body.length;
        const res = await http.call('POST', `/recordings/${id}/events`, env.publicKey, body);
        if (res.status !== 200) throw new Error(`ingestion answered ${res.status}: ${res.text}`);
      }
      const meta = await http.call('POST', `/recordings/${id}/metadata`, env.publicKey, JSON.stringify({ [PROP]: value, user: `u${r}` }));
      if (meta.status !== 200) throw new Error(`metadata answered ${meta.status}: ${meta.text}`);
    }
    ctx.log(`replay: ${RECORDINGS} recordings x ${PAGE_VIEWS} page views, ${events} events, ${round(ingestedBytes / 1e6)} MB ingested`);

    // Wait until the projections list the whole group.
    const listPath = `/replays/${PROP}?limit=10`;
    for (const deadline = now() + 60_000; ;) {
      const l = await http.call('GET', listPath, env.secretKey);
      if (l.status === 200 && JSON.parse(l.text).replays[0]?.recordings === RECORDINGS) break;
      if (now() > deadline) throw new Error(`group not projected in 60 s: ${l.status} ${l.text.slice(0, 200)}`);
      await new Promise((r) => setTimeout(r, 200));
    }

    const heapMiB = async () => {
      const m = (await http.call('GET', '/metrics', env.secretKey)).text;
      return Number(/^tapedeck_nodejs_heap_size_used_bytes (\S+)$/m.exec(m)?.[1]) / 2 ** 20;
    };
    const path = `/replays/${PROP}/${encodeURIComponent(value)}`;
    const check = await http.call('GET', path, env.secretKey);
    const composed = JSON.parse(check.text) as { metadata: Record<string, string>; events: unknown[] };
    if (check.status !== 200 || composed.events.length !== events)
      throw new Error(`replay answered ${check.status} with ${composed.events?.length} of ${events} events`);

    const pid = env.pids.service;
    const times: number[] = [];
    const runs = [];
    for (let i = 0; i < RUNS; i++) {
      const rssBefore = rssMiB(pid);
      const heapBefore = await heapMiB();
      let rssPeak = rssBefore;
      let sampling = true;
      const sampler = (async () => {
        while (sampling) {
          rssPeak = Math.max(rssPeak, rssMiB(pid));
          await new Promise((r) => setTimeout(r, 20));
        }
      })();
      const t = now();
      const res = await http.call('GET', path, env.secretKey, undefined, false);
      const ms = now() - t;
      sampling = false;
      await sampler;
      if (res.status !== 200) throw new Error(`replay answered ${res.status}`);
      times.push(ms);
      runs.push({
        ms: round(ms),
        bytes: res.bytes,
        mbPerSecond: round(res.bytes / 1e6 / (ms / 1000)),
        rssBeforeMiB: round(rssBefore),
        rssPeakMiB: round(rssPeak),
        heapBeforeMiB: round(heapBefore),
        heapAfterMiB: round(await heapMiB()),
      });
      ctx.log(`  run ${i + 1}: ${round(ms)} ms, ${round(res.bytes / 1e6)} MB, RSS ${round(rssBefore)} -> peak ${round(rssPeak)} MiB`);
    }
    const responseBytes = runs[0].bytes;
    const latency = latencySummary(times);

    // Baseline: the same recordings read one by one, each once.
    const t = now();
    let readBytes = 0;
    for (const id of ids) readBytes += (await http.call('GET', `/recordings/${id}/events`, env.secretKey, undefined, false)).bytes;
    const readMs = now() - t;
    http.close();

    const rssGrowth = Math.max(...runs.map((r) => r.rssPeakMiB - r.rssBeforeMiB));
    return {
      recordings: RECORDINGS,
      pageViewsPerRecording: PAGE_VIEWS,
      events,
      ingestedMB: round(ingestedBytes / 1e6),
      responseMB: round(responseBytes / 1e6),
      composeMs: latency,
      mbPerSecondP50: round(responseBytes / 1e6 / (latency.p50 / 1000)),
      eventsPerSecondP50: Math.round(events / (latency.p50 / 1000)),
      memory: { rssGrowthMaxMiB: round(rssGrowth), ofResponse: round(rssGrowth / (responseBytes / 2 ** 20), 2), runs },
      sequentialReads: { ms: round(readMs), mb: round(readBytes / 1e6), mbPerSecond: round(readBytes / 1e6 / (readMs / 1000)) },
    };
  },
};
