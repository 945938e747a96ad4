// Ingestion throughput and latency over HTTP and WebSocket, next to a raw JetStream publish of the
// same payloads from the same machine in the same run (the baseline), plus stored bytes per event.
import { fork } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { Agent, request } from 'node:http';
import { join } from 'node:path';
import { AckPolicy, connect, NatsConnection } from 'nats';
import WebSocket from 'ws';
import { BARE_PROXY_STREAM } from './bare-proxy';
import { BenchContext, BenchSection, cpuMeter, latencySummary, makeBatch, now, pool, projectorLag, sized, waitForProjector } from './bench-kit';

const BATCHES = sized(4000, 20);
const EVENTS_PER_BATCH = 50;
const RAW_IN_FLIGHT = 64;
const HTTP_CONCURRENCY = 32;
const WS_CONNECTIONS = 8;
const WS_WINDOW = 16;

function payloads(offset: number) {
  return Array.from({ length: BATCHES }, (_, i) => JSON.stringify(makeBatch(offset + i, EVENTS_PER_BATCH)));
}

function rates(totalMs: number, bytes: number) {
  const s = totalMs / 1000;
  return {
    seconds: Math.round(s * 1000) / 1000,
    batchesPerSecond: Math.round(BATCHES / s),
    eventsPerSecond: Math.round((BATCHES * EVENTS_PER_BATCH) / s),
    mbPerSecond: Math.round((bytes / 1e6 / s) * 10) / 10,
  };
}

async function raw(nc: NatsConnection, bodies: string[]) {
  const jsm = await nc.jetstreamManager();
  await jsm.streams.add({ name: 'BENCH_RAW', subjects: ['bench.raw.>'] }).catch(() => undefined);
  const js = nc.jetstream();
  const enc = new TextEncoder();
  const data = bodies.map((b) => enc.encode(b));
  const lat: number[] = [];
  const total = await pool(BATCHES, RAW_IN_FLIGHT, async (i) => {
    const t = now();
    await js.publish(`bench.raw.${i % 64}`, data[i], { msgID: `raw-${i}` });
    lat.push(now() - t);
  });
  const info = await jsm.streams.info('BENCH_RAW');
  await jsm.streams.delete('BENCH_RAW');
  return {
    ...rates(
      total,
      data.reduce((n, d) => n + d.length, 0),
    ),
    latencyMs: latencySummary(lat),
    storedBytesPerEvent: Math.round(info.state.bytes / (BATCHES * EVENTS_PER_BATCH)),
  };
}

/** Where a mode sends its batches: the service, or the bare proxy (which takes any path and no key). */
interface Target {
  baseUrl: string;
  key: string;
}

/** node:http with keep-alive: fetch (undici) costs the load generator several times more CPU per request. */
function post(agent: Agent, url: URL, path: string, key: string, body: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: url.hostname,
        port: url.port,
        path,
        method: 'POST',
        agent,
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) },
      },
      (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode ?? 0));
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

async function http(target: Target, bodies: string[]) {
  const ids = Array.from({ length: HTTP_CONCURRENCY * 4 }, () => randomUUID());
  const lat: number[] = [];
  let failures = 0;
  const agent = new Agent({ keepAlive: true, maxSockets: HTTP_CONCURRENCY });
  const url = new URL(target.baseUrl);
  const total = await pool(BATCHES, HTTP_CONCURRENCY, async (i) => {
    const t = now();
    const status = await post(agent, url, `/recordings/${ids[i % ids.length]}/events`, target.key, bodies[i]);
    if (status !== 200) failures++;
    lat.push(now() - t);
  });
  agent.destroy();
  return {
    ...rates(
      total,
      bodies.reduce((n, b) => n + b.length, 0),
    ),
    latencyMs: latencySummary(lat),
    failures,
    concurrency: HTTP_CONCURRENCY,
  };
}

/** Runs `work` on WS_CONNECTIONS ingesting sockets at once, each on a new recording; the wall time in ms. */
async function onSockets(target: Target, work: (ws: WebSocket) => Promise<void>): Promise<number> {
  const start = now();
  await Promise.all(
    Array.from({ length: WS_CONNECTIONS }, async () => {
      const ws = new WebSocket(`${target.baseUrl.replace(/^http/, 'ws')}/recordings/${randomUUID()}/events/ws?token=${target.key}`);
      await new Promise((resolve, reject) => (ws.once('open', resolve), ws.once('error', reject)));
      await work(ws);
      ws.close();
    }),
  );
  return now() - start;
}

async function websocket(target: Target, bodies: string[]) {
  const lat: number[] = [];
  let next = 0;
  let failures = 0;
  const total = await onSockets(target, (ws) => {
    const sentAt = new Map<string, number>();
    return new Promise<void>((resolve) => {
      let inFlight = 0;
      const pump = () => {
        while (inFlight < WS_WINDOW && next < BATCHES) {
          const i = next++;
          const id = `b${i}`;
          sentAt.set(id, now());
          ws.send(`{"type":"batch","batch":"${id}","events":${bodies[i]}}`);
          inFlight++;
        }
        if (inFlight === 0 && next >= BATCHES) resolve();
      };
      ws.on('message', (m) => {
        const f = JSON.parse(String(m)) as { type: string; batch?: string };
        if (f.type !== 'ack' && f.type !== 'error') return;
        if (f.type === 'error') failures++;
        lat.push(now() - (sentAt.get(f.batch!) ?? now()));
        inFlight--;
        pump();
      });
      pump();
    });
  });
  return {
    ...rates(
      total,
      bodies.reduce((n, b) => n + b.length, 0),
    ),
    latencyMs: latencySummary(lat),
    failures,
    connections: WS_CONNECTIONS,
    window: WS_WINDOW,
  };
}

/**
 * rrweb's official browser client (`@rrweb/browser-client`): one JSON event per text frame, no ids.
 * The server buffers such frames and answers each write with an `upstream-result` carrying its event
 * count; the mode ends when every event sent was reported stored. Throughput only: a frame has no
 * acknowledgement of its own to time.
 */
async function websocketPerEvent(target: Target, bodies: string[]) {
  const frames = bodies.flatMap((b) => (JSON.parse(b) as unknown[]).map((e) => JSON.stringify(e)));
  let next = 0;
  let failures = 0;
  const total = await onSockets(target, async (ws) => {
    let sent = 0;
    let stored = 0;
    let sending = true;
    const done = new Promise<void>((resolve) => {
      ws.on('message', (m) => {
        const f = JSON.parse(String(m)) as { type: string; events?: number };
        if (f.type === 'upstream-result') stored += f.events ?? 0;
        else if (f.type === 'error') failures++;
        if (failures > 0 || (!sending && stored >= sent)) resolve();
      });
    });
    // 200 frames at a time, the next slice once the last one was written: bounded client memory.
    while (next < frames.length && failures === 0) {
      const slice = frames.slice(next, Math.min(next + 200, frames.length));
      next += slice.length;
      sent += slice.length;
      await new Promise<void>((resolve) => slice.forEach((f, i) => ws.send(f, i === slice.length - 1 ? () => resolve() : undefined)));
    }
    sending = false;
    if (stored < sent && failures === 0) await done;
  });
  return {
    ...rates(
      total,
      frames.reduce((n, f) => n + f.length, 0),
    ),
    failures,
    connections: WS_CONNECTIONS,
    framesPerSocket: Math.round(frames.length / WS_CONNECTIONS),
  };
}

/**
 * Runs one mode and adds the CPU each process spent per batch: the load generator (this process),
 * the service, nats-server and clickhouse-server (the projector's inserts). On a 2-core machine
 * throughput is bounded by the sum, so this shows where the service path's time goes.
 */
async function withCpu<T extends object>(pids: BenchContext['pids'], run: () => Promise<T>, settle?: () => Promise<unknown>) {
  const meter = cpuMeter(pids);
  const result = await run();
  const perBatch = (used: Record<string, number>) => Object.fromEntries(Object.entries(used).map(([k, ms]) => [k, Math.round((ms / BATCHES) * 1000) / 1000]));
  const cpuMsPerBatch = perBatch(meter.used());
  if (settle) await settle();
  const cpuMsPerBatchProjected: Record<string, number> | undefined = settle ? perBatch(meter.used()) : undefined;
  return { ...result, cpuMsPerBatch, cpuMsPerBatchProjected };
}

/**
 * Until every projection has caught up: the service's CPU per batch then includes the projectors'
 * work for the batches (otherwise it falls partly into the next mode's window, as it did before).
 */
const projected = (ctx: BenchContext) => async () => {
  // Every projection the service runs (/readyz lists them; a build before #31 has no `activity`).
  for (const p of ['recordings', 'activity']) if (await projectorLag(ctx.env, p)) await waitForProjector(ctx.env, 120_000, undefined, p);
};

/** Starts the bare proxy (bare-proxy.ts) as a child process; its stream is made here and dropped by `stop`. */
async function startBareProxy(ctx: BenchContext, nc: NatsConnection) {
  const jsm = await nc.jetstreamManager();
  await jsm.streams.add({ name: BARE_PROXY_STREAM, subjects: ['bench.bare.>'] });
  const child = fork(join(__dirname, 'bare-proxy.js'), { env: { ...process.env, NATS_URL: ctx.env.natsUrl }, stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  const port = await new Promise<number>(
    (resolve, reject) => (child.once('message', (m) => resolve(Number(m))), child.once('exit', (code) => reject(new Error(`bare proxy exited with ${code}`)))),
  );
  return {
    target: { baseUrl: `http://127.0.0.1:${port}`, key: 'none' },
    pids: { ...ctx.pids, service: child.pid! },
    async stop() {
      const exited = new Promise((r) => child.once('exit', r));
      child.kill();
      await exited;
      await jsm.streams.delete(BARE_PROXY_STREAM);
    },
  };
}

const ratio = (a: { eventsPerSecond: number }, b: { eventsPerSecond: number }) => Math.round((a.eventsPerSecond / b.eventsPerSecond) * 100) / 100;

export const ingestionBench: BenchSection = {
  name: 'ingestion',
  async run(ctx) {
    const nc = await connect({ servers: ctx.env.natsUrl });
    const jsm = await nc.jetstreamManager();
    const service: Target = { baseUrl: ctx.env.baseUrl, key: ctx.env.publicKey };
    const line = (name: string, r: { eventsPerSecond: number; latencyMs: { p99: number }; cpuMsPerBatch: object; cpuMsPerBatchProjected?: object }) =>
      ctx.log(
        `  ${name}: ${r.eventsPerSecond} events/s, p99 ${r.latencyMs.p99} ms, CPU ms/batch ${JSON.stringify(r.cpuMsPerBatch)}` +
          (r.cpuMsPerBatchProjected ? `, projected ${JSON.stringify(r.cpuMsPerBatchProjected)}` : ''),
      );
    ctx.log(`ingestion: ${BATCHES} batches x ${EVENTS_PER_BATCH} events per mode`);
    const baseline = await withCpu(ctx.pids, () => raw(nc, payloads(0)));
    line('raw JetStream', baseline);
    const bare = await startBareProxy(ctx, nc);
    let bareHttp, bareWs;
    try {
      bareHttp = await withCpu(bare.pids, () => http(bare.target, payloads(30_000)));
      line('bare proxy, HTTP', bareHttp);
      bareWs = await withCpu(bare.pids, () => websocket(bare.target, payloads(40_000)));
      line('bare proxy, WebSocket', bareWs);
    } finally {
      await bare.stop();
    }
    const before = (await jsm.streams.info('TAPEDECK_EVENTS')).state;
    await projected(ctx)();
    const overHttp = await withCpu(ctx.pids, () => http(service, payloads(10_000)), projected(ctx));
    line('service, HTTP', overHttp);
    const overWs = await withCpu(ctx.pids, () => websocket(service, payloads(20_000)), projected(ctx));
    line('service, WebSocket', overWs);
    // Stored bytes of the two batch modes (the per-event mode stores other batch sizes).
    const after = (await jsm.streams.info('TAPEDECK_EVENTS')).state;
    const perEvent = await withCpu(ctx.pids, () => websocketPerEvent(service, payloads(60_000)), projected(ctx));
    ctx.log(
      `  service, WebSocket one event per frame: ${perEvent.eventsPerSecond} events/s, CPU ms/batch ${JSON.stringify(perEvent.cpuMsPerBatch)}, projected ${JSON.stringify(perEvent.cpuMsPerBatchProjected)}`,
    );
    await nc.close();
    const stored = 2 * BATCHES * EVENTS_PER_BATCH;
    return {
      batchBytes: payloads(0)[0].length,
      eventsPerBatch: EVENTS_PER_BATCH,
      rawJetStream: baseline,
      bareProxy: {
        about:
          'node:http / ws server publishing each body to JetStream and answering after the ack: no framework, auth, validation or projector; the ceiling for any service on this machine',
        http: { ...bareHttp, ofBaseline: ratio(bareHttp, baseline) },
        websocket: { ...bareWs, ofBaseline: ratio(bareWs, baseline) },
      },
      http: { ...overHttp, ofBaseline: ratio(overHttp, baseline), ofBareProxy: ratio(overHttp, bareHttp) },
      websocket: { ...overWs, ofBaseline: ratio(overWs, baseline), ofBareProxy: ratio(overWs, bareWs) },
      websocketOneEventPerFrame: {
        about: "rrweb's official browser client: one event per text frame, stored in the server's flushes",
        ...perEvent,
        ofBaseline: ratio(perEvent, baseline),
      },
      storedBytesPerEvent: Math.round((after.bytes - before.bytes) / stored),
      target: 'service >= 60% of raw baseline events/s',
    };
  },
};

export { AckPolicy };
