// GET /recordings latency with 100 000 recordings of one tenant, without and with metadata filters.
// Seeding goes through the service's event store (JetStream, the same messages ingestion writes)
// and the running projector, so the tables hold what production would: several batch rows per
// recording, in-band metadata, parts not yet merged. Then `projections rebuild recordings` replays
// the seeded stream (300 000 messages) through the CLI: the rebuild throughput operators can expect.
import { randomUUID } from 'node:crypto';
import { Agent } from 'node:http';
import type { RrwebEvent } from '../src/domain/rrweb-event';
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

function recordingBatch(i: number, b: number, start: number): RrwebEvent[] {
  const t = start + b * 5000;
  const events: RrwebEvent[] = [];
  if (b === 0) {
    events.push({ type: 4, timestamp: t, data: { href: `https://shop.example/p/${i % 500}`, width: 1280 + (i % 3) * 160, height: 720 } });
    events.push({ type: 2, timestamp: t + 1, data: { node: { type: 0, id: 1, childNodes: [] }, initialOffset: { left: 0, top: 0 } } });
    events.push({
      type: 5,
      timestamp: t + 2,
      data: { tag: 'recording-meta', payload: { plan: PLANS[i % PLANS.length], country: `c${i % COUNTRIES}`, user: `u${i}` } },
    });
  }
  for (let k = 0; k < 8; k++)
    events.push({ type: 3, timestamp: t + 10 + k * 50, data: { source: 1, positions: [{ x: (i + k) % 1280, y: k * 9, id: 9, timeOffset: 0 }] } });
  return events;
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
  await sleep(2000);
  return { publishMs: Math.round(publishMs), projectorCatchUpMs: Math.round(catchUpMs) };
}

/**
 * `projections rebuild recordings` over the seeded stream, run by the CLI as an operator would (the
 * service keeps running beside it): messages replayed per second, from the CLI's own report.
 */
async function measureRebuild(env: TestEnv, log: (m: string) => void) {
  const t = now();
  const r = await runCli(['projections', 'rebuild', 'recordings'], env.serviceEnv).done;
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
  log(`  rebuild: ${messages} messages in ${report.seconds} s (${result.messagesPerSecond} messages/s)`);
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
    const rebuild = await measureRebuild(env, log);
    return {
      recordings: RECORDINGS,
      batchesPerRecording: BATCHES_PER_RECORDING,
      seeding,
      requestsPerCase: REQUESTS,
      cases: results,
      rebuild,
      target: 'GET /recordings p95 < 50 ms at 100 000 recordings, with metadata filters',
    };
  },
};
