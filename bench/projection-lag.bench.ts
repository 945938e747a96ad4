// Projection lag at steady ingestion: batches are POSTed over HTTP at a fixed rate, and the bench
// watches ClickHouse for each acknowledged batch. Lag of a batch = time from the client receiving
// the ingest acknowledgement (200) to its recording_batches row being visible to a query (the
// listing and detail read the rows of the same insert). Resolution: the poll interval plus one
// query. The projector's own metric (age of the oldest unprojected message, /readyz) is sampled too.
import { randomUUID } from 'node:crypto';
import { Agent, request } from 'node:http';
import { list, sql } from '../src/infrastructure/clickhouse/sql';
import { benchClickHouse, BenchSection, latencySummary, makeBatch, now, projectorLag, sized, sleep } from './bench-kit';

const RATE_PER_SECOND = sized(100, 20);
const SECONDS = sized(30, 1);
const EVENTS_PER_BATCH = 50;
const RECORDINGS = 50;
const POLL_MS = 20;

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
    await ch.close();
    agent.destroy();
    const summary = latencySummary(lags);
    log(`  lag p50 ${summary.p50} ms, p99 ${summary.p99} ms; never seen ${neverSeen}, failures ${failures}`);
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
      definition: 'ingest 200 received by the client -> recording_batches row visible to a ClickHouse query',
      target: 'p99 < 1000 ms',
    };
  },
};
