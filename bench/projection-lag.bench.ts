// Projection lag at steady ingestion: batches are POSTed over HTTP at a fixed rate, and the bench
// watches ClickHouse for each acknowledged batch. Lag of a batch = time from the client receiving
// the ingest acknowledgement (200) to its recording_batches row being visible to a query (the
// listing and detail read the rows of the same insert). Resolution: the poll interval plus one
// query. The projector's own metric (age of the oldest unprojected message, /readyz) is sampled too.
// Then a trickle (20 batches/s, no watcher) measures what each process spends per second on a small
// site's steady load; run it with PROJECTOR_WRITE_INTERVAL_MS=0 beside the default for the baseline.
import { randomUUID } from 'node:crypto';
import { Agent, request } from 'node:http';
import { list, sql } from '../src/infrastructure/clickhouse/sql';
import { benchClickHouse, BenchSection, cpuMeter, latencySummary, makeBatch, now, projectorLag, sized, sleep, waitForProjector } from './bench-kit';

const RATE_PER_SECOND = sized(100, 20);
const SECONDS = sized(30, 1);
const EVENTS_PER_BATCH = 50;
const RECORDINGS = 50;
const POLL_MS = 20;
/** The trickle phase: a small site's steady load, with no watcher querying ClickHouse beside it. */
const TRICKLE_PER_SECOND = 20;
const TRICKLE_SECONDS = sized(15, 1);

function post(agent: Agent, base: URL, path: string, key: string, body: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: base.hostname,
        port: base.port,
        path,
        method: 'POST',
        agent,
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) },
      },
      (res) => {
        let text = '';
        res.on('data', (c) => (text += c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text }));
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

export const projectionLagBench: BenchSection = {
  name: 'projection-lag',
  async run(ctx) {
    const { env, log } = ctx;
    const ch = benchClickHouse(env);
    const agent = new Agent({ keepAlive: true, maxSockets: 16 });
    const base = new URL(env.baseUrl);
    const ids = Array.from({ length: RECORDINGS }, () => randomUUID());
    const ackedAt = new Map<string, number>();
    const lags: number[] = [];
    const metric: number[] = [];
    let failures = 0;
    let sending = true;
    log(`projection-lag: ${RATE_PER_SECOND} batches/s of ${EVENTS_PER_BATCH} events for ${SECONDS} s`);

    const watcher = (async () => {
      while (sending || ackedAt.size > 0) {
        const pending = [...ackedAt.keys()];
        if (pending.length) {
          const seen = await ch.rows<{ batch_id: string }>(
            sql`SELECT DISTINCT batch_id FROM recording_batches WHERE tenant_id = ${env.tenantId} AND batch_id IN ${list(pending)}`,
          );
          const t = now();
          for (const { batch_id } of seen) {
            const at = ackedAt.get(batch_id);
            if (at === undefined) continue;
            lags.push(t - at);
            ackedAt.delete(batch_id);
          }
        }
        await sleep(POLL_MS);
      }
    })();
    const metricSampler = (async () => {
      while (sending) {
        const lag = await projectorLag(env).catch(() => undefined);
        if (lag) metric.push(lag.oldestUnprojectedAgeSeconds * 1000);
        await sleep(1000);
      }
    })();

    const total = RATE_PER_SECOND * SECONDS;
    const start = now();
    const inFlight: Promise<void>[] = [];
    for (let i = 0; i < total; i++) {
      const due = start + (i * 1000) / RATE_PER_SECOND;
      const wait = due - now();
      if (wait > 0) await sleep(wait);
      const body = JSON.stringify(makeBatch(50_000 + i, EVENTS_PER_BATCH, Date.now()));
      inFlight.push(
        post(agent, base, `/recordings/${ids[i % RECORDINGS]}/events`, env.publicKey, body).then((r) => {
          if (r.status !== 200) return void failures++;
          ackedAt.set((JSON.parse(r.body) as { batchId: string }).batchId, now());
        }),
      );
    }
    await Promise.all(inFlight);
    const sentSeconds = (now() - start) / 1000;
    sending = false;
    const deadline = now() + 30_000;
    while (ackedAt.size > 0 && now() < deadline) await sleep(100);
    const neverSeen = ackedAt.size;
    ackedAt.clear();
    await Promise.all([watcher, metricSampler]);
    const summary = latencySummary(lags);
    log(`  lag p50 ${summary.p50} ms, p99 ${summary.p99} ms; never seen ${neverSeen}, failures ${failures}`);

    // The trickle: what a steady small load costs each process per second (ClickHouse pays per
    // insert, so this is where the projectors' write spacing, PROJECTOR_WRITE_INTERVAL_MS, shows).
    // Once the first phase's parts are merged (up to 30 s): its merges would be counted otherwise.
    await waitForProjector(env, 30_000);
    const mergeDeadline = now() + 30_000;
    for (;;) {
      await sleep(1000);
      const [m] = await ch.rows<{ n: string }>(sql`SELECT count() AS n FROM system.merges`);
      if (Number(m.n) === 0 || now() > mergeDeadline) break;
    }
    const meter = cpuMeter(ctx.pids);
    const trickleStart = now();
    const trickle: Promise<unknown>[] = [];
    for (let i = 0; i < TRICKLE_PER_SECOND * TRICKLE_SECONDS; i++) {
      const wait = trickleStart + (i * 1000) / TRICKLE_PER_SECOND - now();
      if (wait > 0) await sleep(wait);
      const body = JSON.stringify(makeBatch(900_000 + i, EVENTS_PER_BATCH, Date.now()));
      trickle.push(post(agent, base, `/recordings/${ids[i % RECORDINGS]}/events`, env.publicKey, body));
    }
    await Promise.all(trickle);
    await waitForProjector(env, 30_000);
    const trickleSeconds = (now() - trickleStart) / 1000;
    const cpuMsPerSecond = Object.fromEntries(Object.entries(meter.used()).map(([k, v]) => [k, Math.round(v / trickleSeconds)]));
    log(`  trickle of ${TRICKLE_PER_SECOND} batches/s: CPU ms per second ${JSON.stringify(cpuMsPerSecond)}`);
    agent.destroy();
    await ch.close();
    return {
      ratePerSecond: RATE_PER_SECOND,
      achievedPerSecond: Math.round(total / sentSeconds),
      eventsPerSecond: Math.round((total * EVENTS_PER_BATCH) / sentSeconds),
      batches: total,
      failures,
      notVisibleWithin30s: neverSeen,
      pollIntervalMs: POLL_MS,
      lagMs: summary,
      projectorOldestUnprojectedMs: latencySummary(metric),
      trickle: {
        batchesPerSecond: TRICKLE_PER_SECOND,
        seconds: Math.round(trickleSeconds * 10) / 10,
        cpuMsPerSecond,
        about: 'CPU each process spent per second while a steady trickle was ingested and projected (until caught up); no lag watcher running',
      },
      definition: 'ingest 200 received by the client -> recording_batches row visible to a ClickHouse query',
      target: 'p99 < 1000 ms',
    };
  },
};
