// Noisy neighbour: tenant A floods ingestion, event reads and screenshots at its limits (its clients
// honour Retry-After: A uses all that the limits allow) and beyond them (they ignore it), with the
// service's default per-tenant limits or TENANT_* variables given to the bench, while tenant B works
// normally: browsers sending a batch a second, a viewer reading events, screenshots. For each kind of
// flood, and all at once, B works alone and under the flood in turns (short phases, so the machine's
// other load falls on both alike), in the same run; reported: B's latencies both ways and the ratio
// of their p95 (target: at most 1.5). A's clients run in a child process (noisy-flood.ts).
import { fork } from 'node:child_process';
import { appendFileSync } from 'node:fs';
import { randomBytes, randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { loadConfig } from '../src/config/config';
import { startService } from '../test/harness/stack';
import type { RrwebEvent } from '../src/domain/rrweb-event';
import { defaultLimits, TenantLimits } from '../src/domain/tenant-limits';
import {
  appendEvents,
  BenchContext,
  benchEventStore,
  BenchSection,
  CallResult,
  cpuMeter,
  cpuMs,
  httpClient,
  latencySummary,
  makeBatch,
  now,
  sized,
  sleep,
  waitForProjector,
} from './bench-kit';
import type { FloodKind, FloodOrder, FloodResult } from './noisy-flood';

/** Per kind of flood: this many turns of B alone then B under the flood, each PHASE_MS. */
const TURNS = sized(3, 1);
const PHASE_MS = sized(5000, 300);
const WARMUP_MS = sized(3000, 200);
/** B's browsers, one 50-event batch a second each; B's viewer reads and screenshots at a steady pace. */
const B_BROWSERS = sized(20, 2);
const B_READ_EVERY_MS = 150;
const B_SHOT_EVERY_MS = 300;
/** A's clients running flat out. */
const A_CLIENTS: Record<FloodKind, number> = { ingest: sized(8, 2), bulk: sized(2, 1), reads: sized(4, 1), screenshots: sized(4, 1) };
/** A's recording for reads: about 4 MB of events JSON. */
const A_READ_BATCHES = sized(250, 10);
const TARGET_RATIO = 1.5;
const SHOT = 'width=1280&height=720';
const FLOODS: [string, FloodKind[]][] = [
  ['ingestion', ['ingest']],
  ['bulk ingestion', ['bulk']],
  ['event reads', ['reads']],
  ['screenshots', ['screenshots']],
  ['all', ['ingest', 'reads', 'screenshots']],
];
/** How A's clients take a refusal: at its limits (Retry-After honoured) and beyond them (ignored). */
const A_MODES: [string, FloodOrder['retryAfter']][] = [
  ['at its limits', 'honoured'],
  ['beyond its limits', 'ignored'],
];
/** BENCH_NN_A=honoured (or ignored): only that way. */
const RUN_MODES = A_MODES.filter(([, m]) => !process.env.BENCH_NN_A || process.env.BENCH_NN_A === m);
/** BENCH_FLOODS=ingestion,screenshots: only these kinds of flood (all by default). */
const ONLY = process.env.BENCH_FLOODS?.split(',').map((s) => s.trim());
const RUN_FLOODS = ONLY ? FLOODS.filter(([name]) => ONLY.includes(name)) : FLOODS;

type Http = ReturnType<typeof httpClient>;
type Ev = RrwebEvent;
type Kind = 'ingest' | 'reads' | 'screenshots';
/** B's latencies of each kind, each with when it started (ms into its phase), and B's errors. */
type Samples = Record<Kind, number[]> & { startedAt: Record<Kind, number[]>; errors: Record<string, number> };
/** How long after a flood starts B's samples count as its first moments (before the contention guard could react). */
const FIRST_MS = 1500;

/** A page of 200 rows, then rows highlighted and the mouse moving, 60 ms apart: renderable at any time. */
function pageEvents(count: number, start: number): Ev[] {
  const rows = Array.from({ length: 200 }, (_, i) => ({
    type: 2,
    tagName: 'li',
    id: 10 + 2 * i,
    attributes: { class: 'row' },
    childNodes: [{ type: 3, id: 11 + 2 * i, textContent: `Row ${i}: a product name and a short description` }],
  }));
  const body = { type: 2, tagName: 'body', id: 4, attributes: {}, childNodes: [{ type: 2, tagName: 'ul', id: 5, attributes: {}, childNodes: rows }] };
  const html = { type: 2, tagName: 'html', id: 2, attributes: {}, childNodes: [{ type: 2, tagName: 'head', id: 3, attributes: {}, childNodes: [] }, body] };
  const out: Ev[] = [
    { type: 4, timestamp: start, data: { href: 'https://shop.example/list', width: 1280, height: 720 } },
    { type: 2, timestamp: start + 1, data: { node: { type: 0, id: 1, childNodes: [html] }, initialOffset: { top: 0, left: 0 } } },
  ];
  for (let i = 0; out.length < count; i++) {
    const ts = start + 2 + i * 60;
    out.push(
      i % 2
        ? { type: 3, timestamp: ts, data: { source: 1, positions: [{ x: (i * 37) % 1280, y: (i * 11) % 720, id: 5, timeOffset: 0 }] } }
        : {
            type: 3,
            timestamp: ts,
            data: { source: 0, texts: [], attributes: [{ id: 10 + 2 * (i % 200), attributes: { class: `row on-${i}` } }], removes: [], adds: [] },
          },
    );
  }
  return out;
}

async function makeTenant(http: Http, adminToken: string, limits: TenantLimits) {
  const id = `nn_${randomBytes(4).toString('hex')}`;
  const ok = async (r: Promise<CallResult>) => {
    const res = await r;
    if (res.status >= 300) throw new Error(`admin API answered ${res.status}: ${res.text}`);
    return JSON.parse(res.text) as Record<string, unknown>;
  };
  await ok(http.call('POST', '/admin/tenants', adminToken, JSON.stringify({ id })));
  const key = async (kind: string) => (await ok(http.call('POST', `/admin/tenants/${id}/keys`, adminToken, JSON.stringify({ kind })))).key as string;
  const [publicKey, secretKey] = [await key('public'), await key('secret')];
  await ok(http.call('PATCH', `/admin/tenants/${id}/limits`, adminToken, JSON.stringify(limits)));
  return { id, publicKey, secretKey };
}

/** Runs `task` every `everyMs` (the next right after a slow one) until `until`, from `offsetMs` on. */
async function steady(until: number, everyMs: number, offsetMs: number, task: () => Promise<void>) {
  await sleep(offsetMs);
  for (let next = now(); now() < until; next += everyMs) {
    await task();
    await sleep(Math.max(0, next + everyMs - now()));
  }
}

/** A child process running A's floods on order. */
function floodProcess() {
  const child = fork(join(__dirname, 'noisy-flood.js'), { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  return {
    pid: child.pid!,
    run: (o: FloodOrder) =>
      new Promise<FloodResult>((resolve, reject) => {
        child.once('message', (m: FloodResult | { error: string }) => ('error' in m ? reject(new Error(m.error)) : resolve(m)));
        child.send(o);
      }),
    stop: () => child.send('exit'),
  };
}

export const noisyNeighbourBench: BenchSection = {
  name: 'noisy-neighbour',
  async run(ctx: BenchContext) {
    const { env } = ctx;
    const api = process.env.BENCH_NN_SPLIT ? await startService({ ...env.serviceEnv, TAPEDECK_ROLE: 'api' }, env.dir, 'nn-api') : undefined;
    const baseUrl = api?.url ?? env.baseUrl;
    const pids = api ? { ...ctx.pids, service: api.child.pid! } : ctx.pids;
    const http = httpClient(baseUrl, 256);
    // The service's defaults, or candidates given as TENANT_* variables to the bench.
    const limits = defaultLimits(loadConfig(Object.fromEntries(Object.entries(process.env).filter(([k]) => k.startsWith('TENANT_')))));
    const [a, b] = [await makeTenant(http, env.adminToken, limits), await makeTenant(http, env.adminToken, limits)];

    // B's recording, ingested by B as a recorder would; A's, written to the store directly (not through A's limits).
    const base = Date.now() - 3_600_000;
    const bRec = randomUUID();
    const bEvents = pageEvents(1000, base);
    for (let i = 0; i < bEvents.length; i += 100) {
      const r = await http.call('POST', `/recordings/${bRec}/events`, b.publicKey, JSON.stringify(bEvents.slice(i, i + 100)));
      if (r.status !== 200) throw new Error(`B's ingestion answered ${r.status}: ${r.text}`);
    }
    const [shotRecording, readRecording] = [randomUUID(), randomUUID()];
    const store = await benchEventStore(env);
    try {
      await appendEvents(store.store, a.id, shotRecording, pageEvents(1000, base));
      for (let i = 0; i < A_READ_BATCHES; i++) await appendEvents(store.store, a.id, readRecording, makeBatch(i) as Ev[]);
    } finally {
      await store.close();
    }
    await waitForProjector(env, 60_000);
    // Screenshot positions never asked before (B's and A's apart): the image cache never answers.
    const span = bEvents[bEvents.length - 1].timestamp - base;
    const shotPath = (i: number) => `screenshot.png?${SHOT}&time=offset:${(i * 7919) % span}`;
    let bShot = 0;
    const aShots = Array.from({ length: 5000 }, (_, i) => shotPath(i + 1_000_000));

    const timed = async (s: Samples, kind: Kind, phaseStart: number, call: () => Promise<CallResult>) => {
      const t = now();
      const r = await call();
      if (r.status !== 200) s.errors[r.status] = (s.errors[r.status] ?? 0) + 1;
      else {
        s[kind].push(now() - t);
        s.startedAt[kind].push(t - phaseStart);
      }
    };
    let seed = 1_000_000;
    const bWorks = async (ms: number, s: Samples) => {
      const phaseStart = now();
      const until = phaseStart + ms;
      const browsers = Array.from({ length: B_BROWSERS }, (_, i) => ({ rec: randomUUID(), offset: (i * 1000) / B_BROWSERS }));
      await Promise.all([
        ...browsers.map((br) =>
          steady(until, 1000, br.offset, () =>
            timed(s, 'ingest', phaseStart, () => http.call('POST', `/recordings/${br.rec}/events`, b.publicKey, JSON.stringify(makeBatch(seed++)))),
          ),
        ),
        steady(until, B_READ_EVERY_MS, 0, () =>
          timed(s, 'reads', phaseStart, () => http.call('GET', `/recordings/${bRec}/events`, b.secretKey, undefined, false)),
        ),
        steady(until, B_SHOT_EVERY_MS, 0, () =>
          timed(s, 'screenshots', phaseStart, () => http.call('GET', `/recordings/${bRec}/${shotPath(bShot++)}`, b.secretKey)),
        ),
      ]);
    };
    const samples = (): Samples => ({ ingest: [], reads: [], screenshots: [], startedAt: { ingest: [], reads: [], screenshots: [] }, errors: {} });

    const flooder = floodProcess();
    const results: Record<string, Record<string, unknown>> = {};
    const meets: Record<string, boolean> = {};
    try {
      ctx.log(
        `noisy-neighbour: limits of each tenant ${JSON.stringify(limits)}; per kind ${TURNS} turns of ${PHASE_MS / 1000} s alone, ${PHASE_MS / 1000} s flooded`,
      );
      await bWorks(WARMUP_MS, samples());
      for (const [mode, retryAfter] of RUN_MODES)
        for (const [name, kinds] of RUN_FLOODS) {
          const [alone, flooded] = [samples(), samples()];
          const cpu = { alone: {} as Record<string, number>, underFlood: {} as Record<string, number> };
          const got: FloodResult = { seconds: 0, ingestedEvents: 0, ingestedBytes: 0, readBytes: 0, screenshots: 0, refusals: {} };
          const add = (into: Record<string, number>, from: Record<string, number>) => Object.entries(from).forEach(([k, v]) => (into[k] = (into[k] ?? 0) + v));
          for (let turn = 0; turn < TURNS; turn++) {
            let meter = cpuMeter(pids);
            await bWorks(PHASE_MS, alone);
            add(cpu.alone, meter.used());
            meter = cpuMeter(pids);
            const floodCpu = cpuMs(flooder.pid);
            const order: FloodOrder = { baseUrl, ...a, readRecording, shotRecording, shotPaths: aShots, kinds, ms: PHASE_MS, clients: A_CLIENTS, retryAfter };
            const start = process.hrtime.bigint();
            const [r] = await Promise.all([flooder.run(order), bWorks(PHASE_MS, flooded)]);
            // BENCH_NN_MARKS=file: each flood phase's start and end on the monotonic clock (µs), to cut a service CPU profile by phase.
            if (process.env.BENCH_NN_MARKS)
              appendFileSync(process.env.BENCH_NN_MARKS, `${retryAfter}/${name} ${start / 1000n} ${process.hrtime.bigint() / 1000n}\n`);
            // A's load generator shares the machine's cores with everything measured: its CPU is reported too.
            add(cpu.underFlood, { ...meter.used(), flood: cpuMs(flooder.pid) - floodCpu });
            got.seconds += r.seconds;
            got.ingestedEvents += r.ingestedEvents;
            got.ingestedBytes += r.ingestedBytes;
            got.readBytes += r.readBytes;
            got.screenshots += r.screenshots;
            add(got.refusals, r.refusals);
          }
          const bLat = Object.fromEntries(
            (['ingest', 'reads', 'screenshots'] as const).map((k: Kind) => {
              const [x, y] = [latencySummary(alone[k]), latencySummary(flooded[k])];
              const p95Ratio = Math.round((y.p95 / x.p95) * 100) / 100;
              meets[`${mode}, ${name}: ${k}`] = p95Ratio <= TARGET_RATIO && !flooded.errors['503'];
              // Where in the flooded phases B's tail falls: its first moments (A's burst, before the guard reacts) or after.
              const first = flooded[k].filter((_, i) => flooded.startedAt[k][i] < FIRST_MS);
              const after = flooded[k].filter((_, i) => flooded.startedAt[k][i] >= FIRST_MS);
              const p95 = (xs: number[]) => (xs.length ? latencySummary(xs).p95 : undefined);
              return [k, { alone: x, underFlood: y, p95Ratio, underFloodP95: { firstMs: FIRST_MS, first: p95(first), after: p95(after) } }];
            }),
          );
          const aGot = {
            eventsPerSecond: Math.round(got.ingestedEvents / got.seconds),
            ingestedBytesPerSecond: Math.round(got.ingestedBytes / got.seconds),
            readBytesPerSecond: Math.round(got.readBytes / got.seconds),
            screenshotsPerSecond: Math.round((got.screenshots / got.seconds) * 10) / 10,
            refusals: got.refusals,
          };
          const line = (k: Kind) =>
            `${k} ${bLat[k].alone.p95} -> ${bLat[k].underFlood.p95} ms (x${bLat[k].p95Ratio}; ${bLat[k].underFloodP95.first} in its first ${FIRST_MS / 1000} s, ${bLat[k].underFloodP95.after} after)`;
          ctx.log(
            `  A floods ${name} ${mode}: B p95 ${line('ingest')}, ${line('reads')}, ${line('screenshots')}; A got ${JSON.stringify(aGot)}; B's errors ${JSON.stringify(flooded.errors)}`,
          );
          (results[mode] ??= {})[name] = { b: bLat, bErrors: { alone: alone.errors, underFlood: flooded.errors }, a: aGot, cpuMs: cpu };
        }
    } finally {
      flooder.stop();
      http.close();
      await api?.stop();
    }
    return {
      turns: TURNS,
      phaseSeconds: PHASE_MS / 1000,
      limitsOfEachTenant: limits,
      aRetryAfter: Object.fromEntries(RUN_MODES),
      floods: results,
      target: `B's p95 under the flood at most ${TARGET_RATIO}x B's p95 alone, and no 503 for B`,
      meets,
    };
  },
};
