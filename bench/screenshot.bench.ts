// Screenshot latency, throughput and memory at 1280x720 against the running service, on a recording
// of about a thousand events (the rendering fixture page recorded in Chromium while a script changes
// it every few milliseconds). Every timed request asks for a position not asked before, so the image
// cache never answers; only the warm replay page is reused. 503s are counted, never retried.
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { chromium } from 'playwright-core';
import { CHROMIUM_ARGS } from '../test/harness/browser';
import { descendants } from '../test/harness/proc';
import { fixtureHtml, playBusyFixture, recordedEvents, startRecording, startServer } from '../test/integration/rendering-fixtures';
import { BenchContext, BenchSection, httpClient, latencySummary, now, sized, sleep } from './bench-kit';

const SIZE = 'width=1280&height=720';
const WARM_REQUESTS = sized(30, 2);
const THROUGHPUT_CLIENTS = sized(8, 2);
const THROUGHPUT_SECONDS = sized(10, 1);
const BURST = sized(50, 4);
/** Changes of the fixture's panel while it is recorded (a smoke run's recording is short). */
const FIXTURE_CHANGES = sized(990, 50);
/** Settling time after the burst before memory is read again. */
const SETTLE_MS = sized(2000, 100);
const TARGETS = { warmP50Ms: 150, warmP95Ms: 400, coldMs: 2000 };

type Ev = { type: number; timestamp: number; data: unknown };

/**
 * ~1000 events: the fixture page with its panel rewritten 990 times, 2 ms apart. Recorded in a browser
 * of the bench with the tests' arguments: it loads the fixture from a loopback server, which the
 * renderer's no-network arguments (src/rendering) rightly refuse.
 */
async function recordBusyPage(chromiumPath: string): Promise<Ev[]> {
  const browser = await chromium.launch({ executablePath: chromiumPath, args: CHROMIUM_ARGS });
  const { server, origin } = await startServer((_req, res, url) => {
    if (url.pathname === '/fixture') res.writeHead(200, { 'Content-Type': 'text/html' }).end(fixtureHtml('data:,'));
    else res.writeHead(404).end();
  });
  try {
    const context = await browser.newContext({ viewport: { width: 1280, height: 720 } });
    const page = await context.newPage();
    await page.goto(`${origin}/fixture`);
    await startRecording(page);
    await playBusyFixture(page, FIXTURE_CHANGES);
    return (await recordedEvents(page)) as Ev[];
  } finally {
    await browser.close();
    await new Promise((r) => server.close(r));
  }
}

/**
 * Memory of a process and all its descendants (the service and its Chromium processes), MiB, as PSS
 * (shared pages split between their users, so Chromium's many processes are not counted many times
 * over); Linux /proc.
 */
function treePssMiB(root: number): number {
  let kb = 0;
  for (const pid of [root, ...descendants(root)]) {
    try {
      kb += Number(/^Pss:\s+(\d+) kB/m.exec(readFileSync(`/proc/${pid}/smaps_rollup`, 'utf8'))?.[1] ?? 0);
    } catch {
      /* exited meanwhile */
    }
  }
  return kb / 1024;
}

export const screenshotBench: BenchSection = {
  name: 'screenshot',
  async run(ctx: BenchContext) {
    const { env } = ctx;
    const http = httpClient(env.baseUrl, 64);
    const events = await recordBusyPage(env.chromiumPath);
    const duration = events[events.length - 1].timestamp - events[0].timestamp;
    ctx.log(`screenshot: recorded ${events.length} events over ${duration} ms`);

    // Four recordings with the same events, ingested in batches of 100 like a recorder would.
    const ids = Array.from({ length: 4 }, () => randomUUID());
    for (const id of ids) {
      for (let i = 0; i < events.length; i += 100) {
        const r = await http.call('POST', `/recordings/${id}/events`, env.publicKey, JSON.stringify(events.slice(i, i + 100)));
        if (r.status !== 200) throw new Error(`ingestion answered ${r.status}: ${r.text}`);
      }
    }

    let offset = 0; // every timed request asks for a new position: no image-cache hits
    const nextTime = () => `time=offset:${(offset++ % duration) + 1}`;
    const shot = async (id: string, time = nextTime()) => {
      const t = now();
      const r = await http.call('GET', `/recordings/${id}/screenshot.png?${SIZE}&${time}`, env.secretKey);
      if (r.status !== 200 && r.status !== 503) throw new Error(`screenshot answered ${r.status}: ${r.text}`);
      return { ms: now() - t, status: r.status, bytes: r.bytes };
    };
    const metric = async (name: string) => {
      const m = (await http.call('GET', '/metrics', env.secretKey)).text;
      return Number(new RegExp(`^${name} (\\S+)$`, 'm').exec(m)?.[1]);
    };
    const rss = async () => (await metric('tapedeck_process_resident_memory_bytes')) / 2 ** 20;
    const tree = () => treePssMiB(env.pids.service);
    const rssStart = await rss();

    // Cold: the service's first render launches Chromium; then the first render of another recording.
    const coldWithLaunch = await shot(ids[0]);
    const coldPage = await shot(ids[1]);
    const cached = await shot(ids[0], `time=offset:1`);
    ctx.log(`  cold with Chromium launch ${coldWithLaunch.ms.toFixed(0)} ms; cold page ${coldPage.ms.toFixed(0)} ms; cached ${cached.ms.toFixed(1)} ms`);

    const warm: number[] = [];
    for (let i = 0; i < WARM_REQUESTS; i++) warm.push((await shot(ids[0])).ms);
    const warmMs = latencySummary(warm);
    ctx.log(`  warm p50 ${warmMs.p50} ms, p95 ${warmMs.p95} ms`);

    // Throughput: 8 clients for ~10 s, on one recording, then spread over four.
    const throughput = async (recordings: string[]) => {
      const lat: number[] = [];
      let ok = 0;
      let busy = 0;
      const [warmBefore, coldBefore] = [await metric('tapedeck_render_warm_page_hits_total'), await metric('tapedeck_render_cold_total')];
      const deadline = now() + THROUGHPUT_SECONDS * 1000;
      const start = now();
      await Promise.all(
        Array.from({ length: THROUGHPUT_CLIENTS }, async (_, c) => {
          while (now() < deadline) {
            const r = await shot(recordings[c % recordings.length]);
            if (r.status === 200) {
              ok++;
              lat.push(r.ms);
            } else busy++;
          }
        }),
      );
      const seconds = (now() - start) / 1000;
      const pages = {
        warmPageRenders: (await metric('tapedeck_render_warm_page_hits_total')) - warmBefore,
        newPageRenders: (await metric('tapedeck_render_cold_total')) - coldBefore,
      };
      return {
        ...pages,
        clients: THROUGHPUT_CLIENTS,
        recordings: recordings.length,
        seconds: Math.round(seconds * 10) / 10,
        rendersPerSecond: Math.round((ok / seconds) * 10) / 10,
        ok,
        status503: busy,
        latencyMs: latencySummary(lat),
      };
    };
    const oneRecording = await throughput([ids[0]]);
    ctx.log(`  8 clients, 1 recording: ${oneRecording.rendersPerSecond}/s, p50 ${oneRecording.latencyMs.p50} ms, 503s ${oneRecording.status503}`);
    const fourRecordings = await throughput(ids);
    ctx.log(`  8 clients, 4 recordings: ${fourRecordings.rendersPerSecond}/s, p50 ${fourRecordings.latencyMs.p50} ms, 503s ${fourRecordings.status503}`);

    // Memory: the service's RSS (its /metrics) and the PSS of the service with its Chromium, before and
    // after 50 concurrent requests (peaks sampled every 100 ms meanwhile).
    const rssBefore = await rss();
    const treeBefore = tree();
    let rssPeak = rssBefore;
    let treePeak = treeBefore;
    let sampling = true;
    const sampler = (async () => {
      while (sampling) {
        rssPeak = Math.max(rssPeak, await rss());
        treePeak = Math.max(treePeak, tree());
        await new Promise((r) => setTimeout(r, 100));
      }
    })();
    const burstStart = now();
    const burst = await Promise.all(Array.from({ length: BURST }, (_, i) => shot(ids[i % ids.length])));
    const burstMs = now() - burstStart;
    sampling = false;
    await sampler;
    await sleep(SETTLE_MS);
    const rssAfter = await rss();
    const treeAfter = tree();
    const burstOk = burst.filter((r) => r.status === 200);
    const burstResult = {
      requests: BURST,
      ok: burstOk.length,
      status503: burst.filter((r) => r.status === 503).length,
      wallMs: Math.round(burstMs),
      latencyMsOk: latencySummary(burstOk.map((r) => r.ms)),
      latencyMs503: latencySummary(burst.filter((r) => r.status === 503).map((r) => r.ms)),
    };
    ctx.log(
      `  burst of ${BURST}: ${burstResult.ok} ok, ${burstResult.status503} x 503; RSS ${rssBefore.toFixed(0)} -> peak ${rssPeak.toFixed(0)} -> ${rssAfter.toFixed(0)} MiB; service + Chromium PSS ${treeBefore.toFixed(0)} -> ${treePeak.toFixed(0)} -> ${treeAfter.toFixed(0)} MiB`,
    );
    http.close();

    const round = (x: number) => Math.round(x * 10) / 10;
    return {
      events: events.length,
      recordingMs: duration,
      size: '1280x720 PNG',
      pngBytes: coldWithLaunch.bytes,
      coldMs: { withChromiumLaunch: round(coldWithLaunch.ms), newRecordingWarmBrowser: round(coldPage.ms) },
      cachedMs: round(cached.ms),
      warmMs,
      throughput: { oneRecording, fourRecordings },
      burst: burstResult,
      rssMiB: { serviceStart: round(rssStart), beforeBurst: round(rssBefore), peakDuringBurst: round(rssPeak), afterBurst: round(rssAfter) },
      pssWithChromiumMiB: { beforeBurst: round(treeBefore), peakDuringBurst: round(treePeak), afterBurst: round(treeAfter) },
      targets: TARGETS,
      meets: {
        warmP50: warmMs.p50 < TARGETS.warmP50Ms,
        warmP95: warmMs.p95 < TARGETS.warmP95Ms,
        cold: coldPage.ms < TARGETS.coldMs,
        coldWithChromiumLaunch: coldWithLaunch.ms < TARGETS.coldMs,
      },
    };
  },
};
