// GET /recordings latency with 100 000 recordings of one tenant, without and with metadata filters,
// and with the activity filters (docs/activity.md) alone and beside a metadata filter: the recordings
// carry realistic activity (a page with a button, answered and dead clicks, some rage clicks, console
// errors and failed requests, input), projected by the activity projection.
// Seeding goes through the service's event store (JetStream, the same messages ingestion writes)
// and the running projector, so the tables hold what production would: several batch rows per
// recording, in-band metadata, parts not yet merged. Then `projections rebuild recordings`, then
// `activity`, replay the seeded stream (300 000 messages) through the CLI: the rebuild throughput
// operators can expect.
import { createHash, randomUUID } from 'node:crypto';
import { Agent } from 'node:http';
import { headerJson, summarizeBatch } from '../src/domain/batch-summary';
import type { RrwebEvent } from '../src/domain/rrweb-event';
import { H, recordingSubject } from '../src/infrastructure/nats/subjects';
import type { ProjectionMessage } from '../src/projections/projection';
import type { RebuildReport } from '../src/projections/rebuild/projection-rebuild';
import { runCli } from '../test/harness/cli';
import type { TestEnv } from '../test/harness/stack';
import { appendEvents, benchEventStore, BenchSection, get, latencySummary, now, pool, sized, sleep, waitForProjector } from './bench-kit';

const RECORDINGS = Number(process.env.BENCH_LIST_RECORDINGS ?? sized(100_000, 300));
const BATCHES_PER_RECORDING = 3;
const PUBLISH_IN_FLIGHT = 64;
const REQUESTS = sized(100, 2);
const WARMUP = sized(10, 1);
const PLANS = ['free', 'pro', 'team', 'enterprise'];
const COUNTRIES = 20;

/** A page with a title and two clickable elements: a button (id 5, its text 6) and a link (7, 8). */
const page = (i: number) => ({
  type: 0,
  id: 1,
  childNodes: [
    {
      type: 2,
      id: 2,
      tagName: 'body',
      attributes: {},
      childNodes: [
        { type: 2, id: 3, tagName: 'title', attributes: {}, childNodes: [{ type: 3, id: 4, textContent: `Product ${i % 500}` }] },
        { type: 2, id: 5, tagName: 'button', attributes: { id: 'buy' }, childNodes: [{ type: 3, id: 6, textContent: i % 7 ? 'Add to cart' : 'Pay now' }] },
        { type: 2, id: 7, tagName: 'a', attributes: { href: '/help' }, childNodes: [{ type: 3, id: 8, textContent: 'Help' }] },
      ],
    },
  ],
});
const click = (t: number, id: number) => ({ type: 3, timestamp: t, data: { source: 2, type: 2, id, x: 40, y: 80 } });
const change = (t: number) => ({ type: 3, timestamp: t, data: { source: 0, texts: [{ id: 6, value: 'Added' }], attributes: [], removes: [], adds: [] } });

/** Activity by recording: every recording clicks (answered); 1 in 5 also dead-clicks, 1 in 50 rage-clicks, 1 in 10 logs an error, 1 in 20 has a failed request. */
function activityEvents(i: number, b: number, t: number): RrwebEvent[] {
  const events: RrwebEvent[] = [];
  if (b === 1) events.push(click(t, 5), change(t + 120), { type: 3, timestamp: t + 300, data: { source: 5, id: 5, text: '*', isChecked: false } });
  if (b === 1 && i % 5 === 0) events.push(click(t + 2000, 8));
  if (b === 2 && i % 50 === 0) events.push(click(t, 5), click(t + 200, 5), click(t + 400, 5));
  if (b === 2 && i % 10 === 0)
    events.push({
      type: 6,
      timestamp: t + 500,
      data: { plugin: 'rrweb/console@1', payload: { level: 'error', payload: [JSON.stringify(`TypeError: x${i % 13} is undefined`)], trace: [] } },
    });
  if (b === 2 && i % 20 === 0)
    events.push({
      type: 6,
      timestamp: t + 600,
      data: {
        plugin: 'rrweb/network@1',
        payload: { requests: [{ name: 'https://shop.example/api/cart', method: 'POST', status: 500, initiatorType: 'fetch' }] },
      },
    });
  return events;
}

export function recordingBatch(i: number, b: number, start: number): RrwebEvent[] {
  const t = start + b * 5000;
  const events: RrwebEvent[] = [];
  if (b === 0) {
    events.push({ type: 4, timestamp: t, data: { href: `https://shop.example/p/${i % 500}`, width: 1280 + (i % 3) * 160, height: 720 } });
    events.push({ type: 2, timestamp: t + 1, data: { node: page(i), initialOffset: { left: 0, top: 0 } } });
    events.push({
      type: 5,
      timestamp: t + 2,
      data: { tag: 'recording-meta', payload: { plan: PLANS[i % PLANS.length], country: `c${i % COUNTRIES}`, user: `u${i}` } },
    });
  }
  for (let k = 0; k < 8; k++)
    events.push({ type: 3, timestamp: t + 10 + k * 50, data: { source: 1, positions: [{ x: (i + k) % 1280, y: k * 9, id: 9, timeOffset: 0 }] } });
  events.push(...activityEvents(i, b, t + 1000));
  return events.sort((x, y) => x.timestamp - y.timestamp);
}

/**
 * A batch of `events` as the projectors receive it (the message ingestion stores: batch id and summary
 * headers, the payload): for harnesses and specs that fill the projections without NATS.
 */
export function batchMessage(seq: number, tenantId: string, recordingId: string, events: RrwebEvent[]): ProjectionMessage {
  const data = Buffer.from(JSON.stringify(events));
  const batchId = createHash('sha256').update(data).digest('hex').slice(0, 40);
  return {
    seq,
    subject: recordingSubject(tenantId, recordingId, 'ev'),
    timeMs: Date.now(),
    headers: { [H.batch]: batchId, [H.summary]: headerJson(summarizeBatch(events, data.length)) },
    data,
  };
}

/** Publishes RECORDINGS recordings of BATCHES_PER_RECORDING batches each and waits for the projector. */
export async function seedRecordings(env: TestEnv, log: (m: string) => void) {
  const { store, close } = await benchEventStore(env);
  const ids = Array.from({ length: RECORDINGS }, () => randomUUID());
  const t0 = Date.now() - RECORDINGS * 1000;
  log(`listing: seeding ${RECORDINGS} recordings x ${BATCHES_PER_RECORDING} batches`);
  let publishMs: number;
  try {
    // Batch b of every recording before batch b + 1 of any: recordings interleave as in production.
    publishMs = await pool(RECORDINGS * BATCHES_PER_RECORDING, PUBLISH_IN_FLIGHT, async (n) => {
      const b = Math.floor(n / RECORDINGS);
      const i = n % RECORDINGS;
      await appendEvents(store, env.tenantId, ids[i], recordingBatch(i, b, t0 + i * 1000));
    });
  } finally {
    await close();
  }
  log(`  published in ${Math.round(publishMs)} ms; waiting for the projector`);
  const catchUpMs = await waitForProjector(env, 15 * 60_000, log);
  log(`  projector caught up ${Math.round(catchUpMs)} ms after the last publish`);
  // The activity projection reads each batch's Td-Activity header (stored as ingestion stores it): it may finish later.
  const activityCatchUpMs = await waitForProjector(env, 30 * 60_000, log, 'activity');
  log(`  activity projector caught up ${Math.round(activityCatchUpMs)} ms after that`);
  await sleep(2000);
  return { publishMs: Math.round(publishMs), projectorCatchUpMs: Math.round(catchUpMs), activityCatchUpMsAfterThat: Math.round(activityCatchUpMs) };
}

/**
 * `projections rebuild <projection>` over the seeded stream, run by the CLI as an operator would (the
 * service keeps running beside it): messages replayed per second, from the CLI's own report.
 */
async function measureRebuild(env: TestEnv, log: (m: string) => void, projection: 'recordings' | 'activity') {
  const t = now();
  const r = await runCli(['projections', 'rebuild', projection], env.serviceEnv).done;
  if (r.code !== 0) throw new Error(`projections rebuild exited with ${r.code}: ${r.stderr.slice(-500)}`);
  const report = JSON.parse(r.stdout.trim().split('\n').pop()!) as RebuildReport;
  const messages = report.replayed + report.tail;
  const result = {
    messages,
    rows: report.rows,
    seconds: report.seconds,
    messagesPerSecond: Math.round(messages / report.seconds),
    wallSeconds: Math.round(now() - t) / 1000,
  };
  log(`  rebuild ${projection}: ${messages} messages in ${report.seconds} s (${result.messagesPerSecond} messages/s)`);
  return result;
}

export const listingBench: BenchSection = {
  name: 'listing',
  async run(ctx) {
    const { env, log } = ctx;
    const seeding = await seedRecordings(env, log);
    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    const cases: Record<string, string> = {
      newest: '/recordings?limit=50',
      deepPage: '/recordings?limit=50&offset=5000',
      planPro: '/recordings?limit=50&metadata[plan]=pro',
      country: '/recordings?limit=50&metadata[country]=c7',
      planAndCountry: '/recordings?limit=50&metadata[plan]=pro&metadata[country]=c5',
      oneUser: `/recordings?limit=50&metadata[user]=u${RECORDINGS - 17}`,
      noMatch: '/recordings?limit=50&metadata[plan]=nobody',
      // Activity filters (matching share of the recordings in brackets), alone and with a metadata filter.
      visitedPath: '/recordings?limit=50&visitedPath=/p/17', // 0.2 %
      visitedPathPrefix: '/recordings?limit=50&visitedPathPrefix=/p/1', // 22 %
      visitedUrlContains: '/recordings?limit=50&visitedUrlContains=P/49', // 2 %
      clickedText: '/recordings?limit=50&clickedText=pay%20now', // 14 %
      hasErrors: '/recordings?limit=50&hasErrors=true', // 10 %
      errorText: '/recordings?limit=50&errorText=x7%20is', // 0.8 %
      noErrors: '/recordings?limit=50&hasErrors=false', // 90 %
      rageClicks: '/recordings?limit=50&hasRageClicks=true', // 2 %
      deadClicks: '/recordings?limit=50&hasDeadClicks=true', // 20 %
      minDuration: '/recordings?limit=50&minDuration=10000', // 100 %
      activeTime: '/recordings?limit=50&minActiveTime=10000&maxActiveTime=11000', // most
      planFreeHasErrors: '/recordings?limit=50&metadata[plan]=free&hasErrors=true', // 5 %
      oneUserClickedText: `/recordings?limit=50&metadata[user]=u${RECORDINGS - 17}&clickedText=cart`,
      planFreeRageClicks: '/recordings?limit=50&metadata[plan]=free&hasRageClicks=true&minDuration=1000', // 2 %
    };
    const results: Record<string, unknown> = {};
    for (const [name, path] of Object.entries(cases)) {
      const lat: number[] = [];
      let returned = 0;
      for (let r = 0; r < WARMUP + REQUESTS; r++) {
        const t = now();
        const res = await get(agent, env.baseUrl, path, env.secretKey);
        const ms = now() - t;
        if (res.status !== 200) throw new Error(`${path}: ${res.status} ${res.body.slice(0, 200)}`);
        returned = (JSON.parse(res.body) as { recordings: unknown[] }).recordings.length;
        if (r >= WARMUP) lat.push(ms);
      }
      results[name] = { path, returned, latencyMs: latencySummary(lat) };
      log(`  ${name}: ${returned} returned, p50 ${latencySummary(lat).p50} ms, p95 ${latencySummary(lat).p95} ms`);
    }
    agent.destroy();
    const rebuild = await measureRebuild(env, log, 'recordings');
    const rebuildActivity = await measureRebuild(env, log, 'activity');
    return {
      recordings: RECORDINGS,
      batchesPerRecording: BATCHES_PER_RECORDING,
      seeding,
      requestsPerCase: REQUESTS,
      cases: results,
      rebuild,
      rebuildActivity,
      target:
        'GET /recordings p95 < 50 ms at 100 000 recordings, with metadata filters, and with each activity filter alone and beside a metadata filter (issue #31)',
    };
  },
};
