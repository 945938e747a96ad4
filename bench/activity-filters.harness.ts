// A quick harness for the activity filters' SQL (issue #31), without NATS or the service: a private
// clickhouse-server (or chDB), the projections' own rows for the listing bench's recordings (the
// projectors' pure apply functions over the same messages ingestion would store), then the listing
// service's listing (the planner's page and the page's activity summaries, without the service's memory
// of finished recordings' summaries) timed for every filter case of the listing bench.
// Not part of `npm run bench`. Usage (after `npx tsc -p bench/tsconfig.json`):
//   HARNESS_RECORDINGS=100000 HARNESS_DIR=/tmp/activity-harness node dist-bench/bench/activity-filters.harness.js
// Seeds only when HARNESS_DIR holds no data yet (about 3 minutes for 100 000 recordings): later runs,
// of this or another checkout, time the same data (a dir seeded before a migration gets what it adds
// from the migration's backfill, e.g. 009's recording_activity_timeline; HARNESS_SEED=1 seeds again
// on top). HARNESS_AB=guess alternates requests with a planner that reads no checks beside its window,
// HARNESS_MEMORY=1 keeps one listing service (its summary memory) per planner. HARNESS_CASES=a,b picks cases; HARNESS_TRACE=1
// prints each query of a case's last request with its time (HARNESS_TRACE_SQL=1: its whole SQL); HARNESS_ENGINE=chdb runs on chDB.
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync } from 'node:fs';
import { loadavg } from 'node:os';
import { ClickHouse } from '../src/infrastructure/clickhouse/clickhouse-client';
import { join } from 'node:path';
import { loadMigrations, migrate } from '../src/infrastructure/clickhouse/migrator';
import { startClickHouse } from '../src/local/processes';
import { applyActivityMessages } from '../src/projections/activity-projection';
import type { ProjectionMessage } from '../src/projections/projection';
import { applyRecordingMessages } from '../src/projections/recording-projection';
import { ActivityRepository } from '../src/read-model/activity.repository';
import { ListingPlanner, ListingQuery } from '../src/read-model/listing.planner';
import { RecordingsQueryService } from '../src/recordings/recordings-query.service';
import { batchMessage, recordingBatch } from './listing.bench';

const N = Number(process.env.HARNESS_RECORDINGS ?? 100_000);
const DIR = process.env.HARNESS_DIR ?? '/tmp/activity-harness';
const REQUESTS = Number(process.env.HARNESS_REQUESTS ?? 40);
const TENANT = 'bench';
const ONLY = process.env.HARNESS_CASES?.split(',');

const uuid = (i: number) => {
  const h = createHash('sha256').update(String(i)).digest('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-4${h.slice(13, 16)}-8${h.slice(17, 20)}-${h.slice(20, 32)}`;
};

async function seed(ch: ClickHouse) {
  const t0 = Date.now() - N * 1000;
  let seq = 0;
  const CHUNK = 5000;
  for (let b = 0; b < 3; b++) {
    for (let from = 0; from < N; from += CHUNK) {
      const messages: ProjectionMessage[] = [];
      for (let i = from; i < Math.min(N, from + CHUNK); i++) {
        messages.push(batchMessage(++seq, TENANT, uuid(i), recordingBatch(i, b, t0 + i * 1000)));
      }
      for (const out of [applyRecordingMessages(messages), applyActivityMessages(messages)]) {
        for (const [table, rows] of Object.entries(out.rows)) if (rows.length) await ch.insert(table, rows);
      }
    }
    process.stdout.write(`seeded batch ${b}\n`);
  }
}

const CASES: Record<string, Partial<ListingQuery>> = {
  newest: {},
  planPro: { filters: [{ key: 'plan', value: 'pro' }] },
  visitedPath: { activity: { urls: [{ value: '/p/17', match: 'exact', on: 'path' }] } },
  visitedPathPrefix: { activity: { urls: [{ value: '/p/1', match: 'prefix', on: 'path' }] } },
  visitedUrlContains: { activity: { urls: [{ value: 'P/49', match: 'contains', on: 'url' }] } },
  clickedText: { activity: { clickedText: 'pay now' } },
  hasErrors: { activity: { hasErrors: true } },
  errorText: { activity: { errorText: 'x7 is' } },
  noErrors: { activity: { hasErrors: false } },
  rageClicks: { activity: { hasRageClicks: true } },
  deadClicks: { activity: { hasDeadClicks: true } },
  minDuration: { activity: { minDuration: 10000 } },
  activeTime: { activity: { minActiveTime: 10000, maxActiveTime: 11000 } },
  planFreeHasErrors: { filters: [{ key: 'plan', value: 'free' }], activity: { hasErrors: true } },
  oneUserClickedText: { filters: [{ key: 'user', value: `u${N - 17}` }], activity: { clickedText: 'cart' } },
  planFreeRageClicks: { filters: [{ key: 'plan', value: 'free' }], activity: { hasRageClicks: true, minDuration: 1000 } },
};

const pct = (xs: number[], p: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.ceil((p / 100) * xs.length) - 1)];

async function main() {
  const fresh = !existsSync(`${DIR}/data`);
  mkdirSync(DIR, { recursive: true });
  const engine = process.env.HARNESS_ENGINE === 'chdb' ? 'chdb' : 'server';
  const server = await startClickHouse({ dir: DIR, engine });
  const ch = new ClickHouse({ CLICKHOUSE_URL: server.url, CLICKHOUSE_DATABASE: 'harness', CLICKHOUSE_USER: 'default', CLICKHOUSE_PASSWORD: '' });
  try {
    await ch.ensureDatabase();
    await migrate(ch, loadMigrations(join(__dirname, '..', '..', 'src', 'infrastructure', 'clickhouse', 'migrations')));
    if (fresh || process.env.HARNESS_SEED === '1') await seed(ch);
    // HARNESS_TRACE=1: each query of a case's last request, with its time.
    const trace: string[] = [];
    if (process.env.HARNESS_TRACE === '1') {
      for (const m of ['rows', 'rowsBeforeLimit'] as const) {
        const orig = (ch[m] as (q: { text: string }) => Promise<unknown>).bind(ch);
        (ch as unknown as Record<string, unknown>)[m] = async (q: { text: string }) => {
          const t = performance.now();
          const r = await orig(q);
          trace.push(
            `    ${Math.round(performance.now() - t)} ms ${q.text.length} chars: ${q.text.slice(0, process.env.HARNESS_TRACE_SQL ? undefined : 160).replace(/\s+/g, ' ')}`,
          );
          return r;
        };
      }
    }
    const planner = new ListingPlanner(ch);
    const activity = new ActivityRepository(ch);
    // HARNESS_AB=1: every other request with a planner that does not tell the likely page, so the
    // activity summaries are read after the page (as before they were read beside its checks).
    const late = { page: (t: string, q: ListingQuery) => planner.page(t, { ...q, onLikelyPage: undefined }) } as ListingPlanner;
    // HARNESS_AB=guess: every other request with a planner that reads the checks of the page's
    // recordings after its window only (ListingPlanner.guessChecks off), each planner its own memory.
    const AB = process.env.HARNESS_AB === '1' || process.env.HARNESS_AB === 'guess';
    if (process.env.HARNESS_AB === 'guess') {
      const unguessed = new ListingPlanner(ch);
      unguessed.guessChecks = false;
      late.page = (t: string, q: ListingQuery) => unguessed.page(t, q);
    }
    // HARNESS_MEMORY=1: one service per planner for all requests, its memory of finished recordings'
    // summaries answering repeats (as the HTTP service's does).
    const services = new Map<ListingPlanner, RecordingsQueryService>();
    const out: Record<string, unknown> = {};
    for (const [name, q] of Object.entries(CASES)) {
      if (ONLY && !ONLY.includes(name)) continue;
      const lat: number[] = [];
      const latLate: number[] = [];
      let returned = 0;
      let ids = '';
      for (let r = 0; r < (AB ? 2 : 1) * REQUESTS + 3; r++) {
        const after = AB && r % 2 === 1;
        trace.length = 0;
        const t = performance.now();
        // The service's own listing (the page, then the views with their activity summaries), a new
        // instance per request: its memory of finished recordings' summaries would answer repeats.
        const which = after ? late : planner;
        const service =
          (process.env.HARNESS_MEMORY === '1' ? services.get(which) : undefined) ??
          new RecordingsQueryService(which, undefined as never, undefined as never, { base: 'http://bench' } as never, { LIVE_IDLE_SECONDS: 60 }, activity);
        services.set(which, service);
        const list = await service.list(TENANT, { limit: 50, offset: 0, includeSignedUrls: false, filters: [...(q.filters ?? [])], activity: q.activity });
        const ms = performance.now() - t;
        returned = list.recordings.length;
        ids = createHash('sha256')
          .update(list.recordings.map((x) => x.recordingId).join(','))
          .digest('hex')
          .slice(0, 10);
        if (r >= 3) (after ? latLate : lat).push(ms);
      }
      if (trace.length) process.stdout.write(trace.join('\n') + '\n');
      const ab = AB ? { late: { p50: Math.round(pct(latLate, 50)), p95: Math.round(pct(latLate, 95)) } } : {};
      out[name] = { returned, ids, p50: Math.round(pct(lat, 50)), p95: Math.round(pct(lat, 95)), ...ab };
      process.stdout.write(
        `${name}: ${returned} (${ids}) p50 ${Math.round(pct(lat, 50))} ms p95 ${Math.round(pct(lat, 95))} ms${AB ? ` (${process.env.HARNESS_AB === 'guess' ? 'checks after the window' : 'summaries after the page'}: p50 ${ab.late?.p50} ms p95 ${ab.late?.p95} ms)` : ''} load ${loadavg()[0].toFixed(1)}\n`,
      );
    }
    process.stdout.write(JSON.stringify(out) + '\n');
  } finally {
    await ch.close();
    await server.stop();
  }
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
