// Soak (TAPEDECK_SLOW_TESTS only): TAPEDECK_SOAK_CLIENTS (200) WebSocket recorders speaking the batch
// protocol (keep every batch until its ack, resend after a reconnect; a few connections are cut on
// purpose) send a small batch every 500 ms for TAPEDECK_SOAK_SECONDS (150) against a service instance
// of its own. Its RSS and event-loop delay are sampled from /metrics every 5 s. Asserts nothing lost
// or doubled (every acked batch's events read back exactly once), memory flat (median RSS of the last
// third within 1.5x the first third's), event-loop delay bounded; writes bench/results/soak-<ts>.json.
import { randomUUID } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import WebSocket from 'ws';
import { api } from '../harness/http';
import { testEnv } from '../harness/env';
import { ROOT, ServiceProcess, startService } from '../harness/stack';

const SLOW = !!process.env.TAPEDECK_SLOW_TESTS;
const SECONDS = Number(process.env.TAPEDECK_SOAK_SECONDS ?? 150);
const CLIENTS = Number(process.env.TAPEDECK_SOAK_CLIENTS ?? 200);
const BATCH_EVERY_MS = 500;
const EVENTS_PER_BATCH = 5;
const SAMPLE_EVERY_MS = 5000;
/** Chance per client and tick that the client cuts its own connection (and resends what was unacked). */
const CUT_CHANCE = 0.0005;
/** An unacked batch is sent again after this long (it may have been refused with an error frame). */
const RESEND_AFTER_MS = 5000;
const BOUNDS = { rssGrowth: 1.5, loopP99MedianMs: 100, loopP99MaxMs: 1000 };

interface Sample {
  t: number;
  rssBytes: number;
  heapUsedBytes: number;
  loopP50Ms: number;
  loopP99Ms: number;
  loopMaxMs: number;
  wsConnections: number;
  cpuSeconds: number;
}

const ackLatencies: number[] = [];

class Recorder {
  readonly id = randomUUID();
  private ws?: WebSocket;
  private seq = 0;
  private stopped = false;
  /** batch id → [frame, last sent at] until acked. */
  readonly unacked = new Map<string, { frame: string; sentAt: number; firstSentAt: number }>();
  readonly acked = new Map<string, number>();
  duplicates = 0;
  errors = 0;
  cuts = 0;
  reconnects = 0;

  constructor(
    private readonly url: string,
    private readonly key: string,
    private readonly start: number,
  ) {}

  connect() {
    if (this.stopped) return;
    const ws = new WebSocket(`${this.url.replace(/^http/, 'ws')}/recordings/${this.id}/events/ws?token=${this.key}`);
    this.ws = ws;
    ws.on('open', () => {
      for (const [, b] of this.unacked) this.send(b);
    });
    ws.on('message', (m) => this.onFrame(JSON.parse(String(m))));
    ws.on('error', () => undefined);
    ws.on('close', () => {
      if (this.ws !== ws || this.stopped) return;
      this.reconnects++;
      setTimeout(() => this.connect(), 200 + Math.random() * 800);
    });
  }

  private send(b: { frame: string; sentAt: number }) {
    if (this.ws?.readyState !== WebSocket.OPEN) return;
    b.sentAt = Date.now();
    this.ws.send(b.frame);
  }

  private onFrame(f: { type: string; batch?: string; events?: number; duplicate?: boolean; status?: number }) {
    if (f.type === 'ack' && f.batch) {
      const b = this.unacked.get(f.batch);
      if (b) {
        ackLatencies.push(Date.now() - b.sentAt);
        this.unacked.delete(f.batch);
        this.acked.set(f.batch, f.events ?? 0);
      }
      if (f.duplicate) this.duplicates++;
    } else if (f.type === 'error') {
      this.errors++;
    }
  }

  tick() {
    const batch = `${this.id.slice(0, 8)}-${this.seq}`;
    const base = this.start + this.seq * EVENTS_PER_BATCH;
    const events = Array.from({ length: EVENTS_PER_BATCH }, (_, i) => ({
      type: 3,
      timestamp: base + i,
      data: { source: 1, positions: [{ x: i, y: this.seq % 500, id: 1, timeOffset: 0 }], k: `${batch}:${i}` },
    }));
    this.seq++;
    const b = { frame: JSON.stringify({ type: 'batch', batch, events }), sentAt: 0, firstSentAt: Date.now() };
    this.unacked.set(batch, b);
    this.send(b);
    this.resendStale();
    if (Math.random() < CUT_CHANCE && this.ws?.readyState === WebSocket.OPEN) {
      this.cuts++;
      this.ws.terminate();
    }
  }

  resendStale() {
    const now = Date.now();
    for (const [, b] of this.unacked) if (now - b.sentAt > RESEND_AFTER_MS) this.send(b);
  }

  close() {
    this.stopped = true;
    this.ws?.close();
  }

  /** Every acked batch's events, exactly once; returns [lost, doubled, read]. */
  async verify(key: string): Promise<[number, number, number]> {
    const r = await api(`/recordings/${this.id}/events`, { key });
    if (r.status !== 200) return [[...this.acked.values()].reduce((a, b) => a + b, 0), 0, 0];
    const seen = new Map<string, number>();
    for (const e of JSON.parse(r.text) as { data: { k: string } }[]) seen.set(e.data.k, (seen.get(e.data.k) ?? 0) + 1);
    let lost = 0;
    let doubled = 0;
    for (const batch of this.acked.keys()) {
      for (let i = 0; i < EVENTS_PER_BATCH; i++) {
        const n = seen.get(`${batch}:${i}`) ?? 0;
        if (n === 0) lost++;
        if (n > 1) doubled += n - 1;
      }
    }
    return [lost, doubled, seen.size];
  }
}

async function sample(url: string, t0: number): Promise<Sample> {
  const text = await (await fetch(`${url}/metrics`)).text();
  const v = (name: string) => Number(new RegExp(`^${name} ([0-9.e+-]+)$`, 'm').exec(text)?.[1] ?? NaN);
  return {
    t: Math.round((Date.now() - t0) / 1000),
    rssBytes: v('tapedeck_process_resident_memory_bytes'),
    heapUsedBytes: v('tapedeck_nodejs_heap_size_used_bytes'),
    loopP50Ms: v('tapedeck_nodejs_eventloop_lag_p50_seconds') * 1000,
    loopP99Ms: v('tapedeck_nodejs_eventloop_lag_p99_seconds') * 1000,
    loopMaxMs: v('tapedeck_nodejs_eventloop_lag_max_seconds') * 1000,
    wsConnections: v('tapedeck_ws_connections'),
    cpuSeconds: v('tapedeck_process_cpu_seconds_total'),
  };
}

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length ? (s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2) : NaN;
};
const pct = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length ? s[Math.min(s.length - 1, Math.ceil((p / 100) * s.length) - 1)] : NaN;
};
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

(SLOW ? describe : describe.skip)(`soak: ${CLIENTS} WebSocket recorders for ${SECONDS} s`, () => {
  let service: ServiceProcess;

  beforeAll(async () => {
    const e = testEnv();
    service = await startService({ ...e.serviceEnv, TAPEDECK_ROLE: 'api', LOG_LEVEL: 'warn' }, e.dir, 'soak');
  });

  afterAll(async () => {
    await service?.stop();
  });

  it(
    'loses and doubles nothing, keeps memory flat and the event loop responsive',
    async () => {
      const e = testEnv();
      const t0 = Date.now();
      const start = Date.now() - 3_600_000;
      const recorders = Array.from({ length: CLIENTS }, (_, i) => new Recorder(service.url, e.publicKey, start + i));
      const samples: Sample[] = [await sample(service.url, t0)];
      const sampler = setInterval(
        () =>
          void sample(service.url, t0).then(
            (s) => samples.push(s),
            () => undefined,
          ),
        SAMPLE_EVERY_MS,
      );
      const tickers: NodeJS.Timeout[] = [];
      try {
        // Stagger connections and ticks over one interval, as real browsers would be.
        for (const r of recorders) {
          r.connect();
          const offset = Math.random() * BATCH_EVERY_MS;
          tickers.push(setTimeout(() => tickers.push(setInterval(() => r.tick(), BATCH_EVERY_MS)), offset));
          await sleep(2000 / CLIENTS);
        }
        await sleep(SECONDS * 1000);
      } finally {
        tickers.forEach((t) => clearInterval(t));
      }
      // Drain: every batch must be acked eventually (resends included).
      const drainDeadline = Date.now() + 60_000;
      while (recorders.some((r) => r.unacked.size > 0) && Date.now() < drainDeadline) {
        recorders.forEach((r) => r.resendStale());
        await sleep(250);
      }
      const sendSeconds = (Date.now() - t0) / 1000;
      samples.push(await sample(service.url, t0));
      clearInterval(sampler);
      recorders.forEach((r) => r.close());

      let lost = 0;
      let doubled = 0;
      let read = 0;
      for (let i = 0; i < recorders.length; i += 8) {
        for (const [l, d, n] of await Promise.all(recorders.slice(i, i + 8).map((r) => r.verify(e.secretKey)))) {
          lost += l;
          doubled += d;
          read += n;
        }
      }

      const third = Math.max(1, Math.floor(samples.length / 3));
      const rssFirst = median(samples.slice(0, third).map((s) => s.rssBytes));
      const rssLast = median(samples.slice(-third).map((s) => s.rssBytes));
      const loopP99s = samples.slice(1).map((s) => s.loopP99Ms);
      const ackedBatches = recorders.reduce((a, r) => a + r.acked.size, 0);
      const summary = {
        clients: CLIENTS,
        seconds: SECONDS,
        batchEveryMs: BATCH_EVERY_MS,
        eventsPerBatch: EVENTS_PER_BATCH,
        ackedBatches,
        ackedEvents: ackedBatches * EVENTS_PER_BATCH,
        batchesPerSecond: Math.round(ackedBatches / sendSeconds),
        unackedAtEnd: recorders.reduce((a, r) => a + r.unacked.size, 0),
        eventsRead: read,
        lost,
        doubled,
        duplicateAcks: recorders.reduce((a, r) => a + r.duplicates, 0),
        errorFrames: recorders.reduce((a, r) => a + r.errors, 0),
        cuts: recorders.reduce((a, r) => a + r.cuts, 0),
        reconnects: recorders.reduce((a, r) => a + r.reconnects, 0),
        ackLatencyMs: { p50: pct(ackLatencies, 50), p95: pct(ackLatencies, 95), p99: pct(ackLatencies, 99), max: pct(ackLatencies, 100) },
        rssMiB: {
          firstThirdMedian: +(rssFirst / 2 ** 20).toFixed(1),
          lastThirdMedian: +(rssLast / 2 ** 20).toFixed(1),
          max: +(Math.max(...samples.map((s) => s.rssBytes)) / 2 ** 20).toFixed(1),
          growth: +(rssLast / rssFirst).toFixed(3),
        },
        eventLoopMs: {
          p99Median: +median(loopP99s).toFixed(1),
          p99Max: +Math.max(...loopP99s).toFixed(1),
          max: +Math.max(...samples.slice(1).map((s) => s.loopMaxMs)).toFixed(1),
        },
        serviceCpuSeconds: +(samples[samples.length - 1].cpuSeconds - samples[0].cpuSeconds).toFixed(1),
        bounds: BOUNDS,
      };
      const dir = join(ROOT, 'bench', 'results');
      mkdirSync(dir, { recursive: true });
      const file = join(dir, `soak-${new Date().toISOString().replace(/[:.]/g, '-')}.json`);
      writeFileSync(file, JSON.stringify({ kind: 'soak', at: new Date().toISOString(), summary, samples }, null, 2) + '\n');
      process.stdout.write(`soak report ${file}\n${JSON.stringify(summary)}\n`);

      expect(summary.unackedAtEnd).toBe(0);
      expect(ackedBatches).toBeGreaterThan(CLIENTS * ((SECONDS * 1000) / BATCH_EVERY_MS) * 0.8);
      expect({ lost, doubled }).toEqual({ lost: 0, doubled: 0 });
      expect(rssLast).toBeLessThanOrEqual(rssFirst * BOUNDS.rssGrowth);
      expect(summary.eventLoopMs.p99Median).toBeLessThan(BOUNDS.loopP99MedianMs);
      expect(summary.eventLoopMs.p99Max).toBeLessThan(BOUNDS.loopP99MaxMs);
      expect((await api('/healthz', { base: service.url })).status).toBe(200);
    },
    (SECONDS + 240) * 1000,
  );
});
