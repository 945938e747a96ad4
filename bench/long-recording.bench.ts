// Long recordings (issue #27): real rrweb recordings of a busy page made in Chromium on Playwright's
// fake clock — one minute, 60 minutes (about 18 MB) and 180 minutes (about 53 MB) — with rrweb's
// checkouts every five minutes as our recorder takes them, and the long ones again without any (as
// rrweb's official client records: those get server-made keyframes). Ingested like a recorder (HTTP
// batches of five seconds), three copies of each; then for each case: a cold screenshot at 90 % (the
// first render of each copy, the median), the hosted player's first frame at 90 % (through a
// presigned link until the page says it is ready, median of three), and a windowed read of the last
// minute (median of five). Targets are ratios to the one-minute recording. Storage added by
// keyframes: the checkouts' events, or the server's kf messages, as a share of the recording. The
// server-made keyframes come from a projector-role instance started for this section only (the
// shared stack runs without the maker, so other sections are not disturbed by it): its time to make
// them is reported, and every figure is taken after it finished.
import { randomUUID } from 'node:crypto';
import { chromium, Browser } from 'playwright-core';
import { presignQuery, sign } from '../src/auth/presign';
import { CHROMIUM_ARGS } from '../test/harness/browser';
import { RECORD_UMD } from '../test/integration/rendering-fixtures';
import type { TestEnv } from '../test/harness/stack';
import { connect } from 'nats';
import { startService } from '../test/harness/stack';
import { EVENTS_STREAM, recordingSubject } from '../src/infrastructure/nats/subjects';
import { sql } from '../src/infrastructure/clickhouse/sql';
import { BenchContext, BenchSection, benchClickHouse, httpClient, now, sized, sleep, waitForProjector } from './bench-kit';

const LONG_MINUTES = sized([60, 180], [2, 3]);
const SHORT_MINUTES = 1;
export const CHECKOUT_MS = 300_000;
/** Recordings ingested per case, for as many cold screenshots. */
const COPIES = sized(3, 1);
const BATCH_MS = 5_000;
const TARGETS = { screenshotRatio: 1.5, playerRatio: 1.5, lastMinuteReadMs: 50 };

export type Ev = { type: number; timestamp: number; data?: unknown };

/** A busy page (about 20 MB of rrweb events an hour): table cells change every second, the rows are replaced every 15 s, typing, scrolling. */
const PAGE = `<!doctype html><html><head><meta charset="utf-8"><style>
body{margin:0;font-family:sans-serif} header{background:#2b3a67;color:#fff;padding:12px 24px;font-size:20px}
td{padding:2px 8px;border-bottom:1px solid #ddd} .hot{background:#ffe8b0} input{margin:12px 24px;width:300px}
</style></head><body><header>Orders <span id="clock"></span></header><input id="q" placeholder="Search">
<table id="t"><tbody></tbody></table><div style="height:2000px"></div>
<script>
var n = 0;
function rows() {
  var b = document.querySelector('#t tbody'); b.textContent = '';
  for (var i = 0; i < 40; i++) { var tr = document.createElement('tr'); tr.innerHTML = '<td>#' + (n * 40 + i) + '</td><td>Customer ' + ((n * 7 + i) % 97) + '</td><td class="amt">' + ((n + i) * 13 % 1000) + '.00</td><td>pending</td>'; b.appendChild(tr); }
  n++;
}
rows();
setInterval(function () {
  document.getElementById('clock').textContent = new Date().toISOString();
  var cells = document.querySelectorAll('#t td.amt');
  for (var i = 0; i < cells.length; i += 3) { cells[i].textContent = String((Date.now() / 1000 + i) % 1000 | 0) + '.00'; cells[i].parentNode.className = (Date.now() / 1000 + i) % 3 < 1 ? 'hot' : ''; }
}, 1000);
setInterval(rows, 15000);
setInterval(function () { var q = document.getElementById('q'); q.value = q.value.length > 20 ? '' : q.value + 'x'; q.dispatchEvent(new Event('input', { bubbles: true })); }, 20000);
setInterval(function () { window.scrollTo(0, (window.scrollY + 150) % 900); }, 30000);
</script></body></html>`;

/** Records PAGE for `minutes` of simulated time; `checkout` as rrweb's checkoutEveryNms (0: none). */
export async function record(browser: Browser, minutes: number, checkout: number): Promise<Ev[]> {
  const context = await browser.newContext({ viewport: { width: 1280, height: 720 } });
  try {
    const page = await context.newPage();
    await page.clock.install();
    await page.setContent(PAGE);
    await page.addScriptTag({ content: RECORD_UMD });
    await page.evaluate((every) => {
      const w = window as unknown as { __events: unknown[]; rrwebRecord: { record: (o: object) => void } };
      w.__events = [];
      w.rrwebRecord.record({ emit: (e: unknown) => w.__events.push(e), ...(every ? { checkoutEveryNms: every } : {}) });
    }, checkout);
    for (let m = 0; m < minutes; m++) await page.clock.runFor(60_000);
    const events: Ev[] = [];
    const total = await page.evaluate(() => (window as unknown as { __events: unknown[] }).__events.length);
    for (let i = 0; i < total; i += 5000) {
      const part = await page.evaluate(([from, to]) => JSON.stringify((window as unknown as { __events: unknown[] }).__events.slice(from, to)), [i, i + 5000]);
      events.push(...(JSON.parse(part) as Ev[]));
    }
    return events.sort((a, b) => a.timestamp - b.timestamp);
  } finally {
    await context.close();
  }
}

/** The first `minutes` of a recording. */
const prefix = (events: Ev[], minutes: number) => events.filter((e) => e.timestamp - events[0].timestamp <= minutes * 60_000);

function presigned(env: TestEnv, recordingId: string): string {
  const expires = Math.floor(Date.now() / 1000) + 3600;
  const signature = sign(env.signingSecret, { kind: 'recording', recordingId }, env.tenantId, expires);
  return presignQuery({ tenantId: env.tenantId, expires, keyId: env.signingKeyId, signature });
}

const mb = (bytes: number) => Math.round((bytes / 1e6) * 100) / 100;

export const longRecordingBench: BenchSection = {
  name: 'long-recording',
  async run(ctx: BenchContext) {
    const { env } = ctx;
    const http = httpClient(env.baseUrl, 8);
    const browser = await chromium.launch({ executablePath: env.chromiumPath, args: CHROMIUM_ARGS });
    try {
      const longest = Math.max(...LONG_MINUTES);
      let t = now();
      const withCheckouts = await record(browser, longest, CHECKOUT_MS);
      const without = await record(browser, longest, 0);
      const short = await record(browser, SHORT_MINUTES, CHECKOUT_MS);
      ctx.log(`long-recording: recorded ${longest} simulated minutes twice and one in ${Math.round(now() - t)} ms`);
      const cases: { name: string; minutes: number; keyframes: 'recorder' | 'none'; events: Ev[] }[] = [
        { name: `${SHORT_MINUTES}min`, minutes: SHORT_MINUTES, keyframes: 'recorder', events: short },
        ...LONG_MINUTES.map((m) => ({ name: `${m}min`, minutes: m, keyframes: 'recorder' as const, events: prefix(withCheckouts, m) })),
        ...LONG_MINUTES.map((m) => ({ name: `${m}min-no-checkouts`, minutes: m, keyframes: 'none' as const, events: prefix(without, m) })),
      ];
      // Ingested like a recorder: a batch per five seconds of events; each case COPIES times, for as
      // many cold screenshots (a recording has one: later ones find its page warm).
      const ids = new Map<string, string>();
      const copies = new Map<string, string[]>();
      t = now();
      for (const c of cases) {
        for (let k = 0; k < COPIES; k++) {
          const id = randomUUID();
          if (k === 0) ids.set(c.name, id);
          copies.set(c.name, [...(copies.get(c.name) ?? []), id]);
          let batch: Ev[] = [];
          const send = async () => {
            if (!batch.length) return;
            const r = await http.call('POST', `/recordings/${id}/events`, env.publicKey, JSON.stringify(batch));
            if (r.status !== 200) throw new Error(`ingest ${c.name}: HTTP ${r.status}`);
            batch = [];
          };
          for (const e of c.events) {
            if (batch.length && e.timestamp - batch[0].timestamp >= BATCH_MS) await send();
            batch.push(e);
          }
          await send();
        }
      }
      ctx.log(`long-recording: ingested ${cases.length} recordings in ${Math.round(now() - t)} ms`);
      // Both projections caught up, so that neither competes with the measurements.
      await waitForProjector(env, 120_000, ctx.log);
      await waitForProjector(env, 120_000, ctx.log, 'activity');
      const made = await makeServerKeyframes(
        ctx,
        cases.filter((c) => c.keyframes === 'none').flatMap((c) => copies.get(c.name)!.map((id) => ({ id, minutes: c.minutes }))),
      );
      await waitForProjector(env, 120_000, ctx.log, 'activity'); // the keyframe rows' messages too
      await sleep(sized(2000, 200));

      // The renderer's browser is launched before the first timed render (by a recording of its own).
      const warm = randomUUID();
      await http.call('POST', `/recordings/${warm}/events`, env.publicKey, JSON.stringify(short.slice(0, 20)));
      await http.call('GET', `/recordings/${warm}/screenshot.png?width=1280&height=720`, env.secretKey);
      const results: Record<string, Record<string, unknown>> = {};
      for (const c of cases) {
        const id = ids.get(c.name)!;
        const bytes = c.events.reduce((s, e) => s + JSON.stringify(e).length + 1, 0);
        const snapshotBytes = c.events.filter((e) => e.type === 2 || e.type === 4).reduce((s, e) => s + JSON.stringify(e).length + 1, 0);
        const firstSnapshot = JSON.stringify(c.events.find((e) => e.type === 2) ?? {}).length;
        // Cold: the first screenshot of each copy (no warm page, nothing cached); the median. A recording
        // replayed whole in the renderer may not make it in time (RENDER_TIMEOUT_MS): reported, not fatal.
        const shots: number[] = [];
        let failed: string | undefined;
        let s = 0;
        for (const copy of copies.get(c.name)!) {
          s = now();
          const shot = await http.call('GET', `/recordings/${copy}/screenshot.png?width=1280&height=720&time=percent:90`, env.secretKey);
          if (shot.status !== 200) failed = `HTTP ${shot.status} after ${Math.round(now() - s)} ms`;
          shots.push(now() - s);
        }
        const screenshotMs = shots.sort((x, y) => x - y)[Math.floor(shots.length / 2)];
        // Player: a fresh page through a presigned link, until it shows the moment (median of three).
        const players: number[] = [];
        for (let i = 0; i < 3; i++) {
          const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
          const page = await context.newPage();
          s = now();
          await page.goto(`${env.baseUrl}/recordings/${id}/player?time=percent:90&${presigned(env, id)}`, { timeout: 120_000 });
          await page.waitForFunction(() => (window as unknown as { __tapedeck?: { ready?: boolean } }).__tapedeck?.ready === true, undefined, {
            timeout: 120_000,
          });
          players.push(now() - s);
          await context.close();
        }
        const playerMs = players.sort((x, y) => x - y)[1];
        // A windowed read of the last minute, five times.
        const reads: number[] = [];
        let windowBytes = 0;
        for (let i = 0; i < 5; i++) {
          s = now();
          const r = await http.call('GET', `/recordings/${id}/events?from=offset:-60000`, env.secretKey);
          reads.push(now() - s);
          if (r.status !== 200) throw new Error(`window ${c.name}: HTTP ${r.status}`);
          windowBytes = r.bytes;
        }
        reads.sort((a, b) => a - b);
        results[c.name] = {
          minutes: c.minutes,
          keyframes: c.keyframes === 'none' ? `server (${made.counts[ids.get(c.name)!] ?? 0})` : c.keyframes,
          events: c.events.length,
          mb: mb(bytes),
          fullSnapshots: c.events.filter((e) => e.type === 2).length,
          // Recorder-made: the checkouts' Meta and FullSnapshot events; server-made: the kf messages (gzip).
          keyframeShare:
            c.keyframes === 'none'
              ? Math.round(((made.bytes[ids.get(c.name)!] ?? 0) / bytes) * 10000) / 10000
              : Math.round(((snapshotBytes - firstSnapshot) / bytes) * 10000) / 10000,
          coldScreenshotMs: failed ?? Math.round(screenshotMs),
          coldScreenshotsMs: shots.map(Math.round),
          playerFirstFrameMs: Math.round(playerMs),
          lastMinuteReadMs: Math.round(reads[2]),
          lastMinuteBytes: windowBytes,
        };
        ctx.log(`long-recording: ${c.name} ${JSON.stringify(results[c.name])}`);
      }
      const base = results[`${SHORT_MINUTES}min`];
      const ratios: Record<string, unknown> = {};
      for (const [name, r] of Object.entries(results)) {
        if (name === `${SHORT_MINUTES}min`) continue;
        ratios[name] = {
          screenshot:
            typeof r.coldScreenshotMs === 'number' ? Math.round((r.coldScreenshotMs / (base.coldScreenshotMs as number)) * 100) / 100 : r.coldScreenshotMs,
          player: Math.round(((r.playerFirstFrameMs as number) / (base.playerFirstFrameMs as number)) * 100) / 100,
        };
      }
      return { targets: TARGETS, serverKeyframes: { makeMs: made.ms, counts: made.counts, bytes: made.bytes }, results, ratios };
    } finally {
      await browser.close();
    }
  },
};

/**
 * Runs the keyframe maker (a projector-role instance with KEYFRAME_CONCURRENCY=1, scanning every
 * 2 s) until each recording has a server keyframe every five minutes up to its last five (or for at
 * most five minutes); returns how long that took and the keyframes made per recording.
 */
async function makeServerKeyframes(
  ctx: BenchContext,
  recordings: { id: string; minutes: number }[],
): Promise<{ ms: number; counts: Record<string, number>; bytes: Record<string, number> }> {
  const { env } = ctx;
  const ch = benchClickHouse(env);
  const started = now();
  const maker = await startService(
    { ...env.serviceEnv, TAPEDECK_ROLE: 'projector', KEYFRAME_CONCURRENCY: '1', KEYFRAME_SCAN_SECONDS: '2' },
    env.dir,
    'keyframe-maker',
  );
  const counts: Record<string, number> = {};
  try {
    const deadline = Date.now() + sized(300_000, 60_000);
    for (;;) {
      const rows = await ch.rows<{ recording_id: string; n: string | number }>(
        sql`SELECT recording_id, count() AS n FROM (SELECT DISTINCT recording_id, ts FROM recording_keyframes WHERE tenant_id = ${env.tenantId} AND kind = 'server') GROUP BY recording_id`,
      );
      for (const r of rows) counts[r.recording_id] = Number(r.n);
      const done = recordings.every((r) => (counts[r.id] ?? 0) >= Math.max(0, Math.floor(r.minutes / 5) - 1));
      if (done || Date.now() > deadline) break;
      await sleep(1000);
    }
  } finally {
    await maker.stop();
    await ch.close();
  }
  const ms = Math.round(now() - started);
  ctx.log(`long-recording: server keyframes ${JSON.stringify(counts)} in ${ms} ms`);
  return {
    ms,
    counts,
    bytes: await keyframeBytes(
      env,
      recordings.map((r) => r.id),
    ),
  };
}

/** Bytes of the server-made keyframe messages (kf subject) stored for each recording. */
async function keyframeBytes(env: TestEnv, ids: string[]): Promise<Record<string, number>> {
  const nc = await connect({ servers: env.natsUrl });
  const out: Record<string, number> = {};
  try {
    const js = nc.jetstream();
    for (const id of ids) {
      let bytes = 0;
      const consumer = await js.consumers.get(EVENTS_STREAM, { filterSubjects: recordingSubject(env.tenantId, id, 'kf') });
      const info = await consumer.info();
      let left = info.num_pending;
      while (left > 0) {
        const batch = await consumer.fetch({ max_messages: Math.min(left, 100), expires: 2000 });
        let got = 0;
        for await (const m of batch) {
          bytes += m.data.length;
          got++;
        }
        if (!got) break;
        left -= got;
      }
      out[id] = bytes;
    }
  } finally {
    await nc.close();
  }
  return out;
}
