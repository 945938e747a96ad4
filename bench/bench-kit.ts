// Shared pieces of `npm run bench`: timing, percentiles, payloads, and the section contract.
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { Agent, request } from 'node:http';
import type { AppConfig } from '../src/config/config';
import { summarizeBatch } from '../src/domain/batch-summary';
import { activityHeader } from '../src/domain/activity/activity-header';
import type { RrwebEvent } from '../src/domain/rrweb-event';
import { ClickHouse } from '../src/infrastructure/clickhouse/clickhouse-client';
import { JetStreamEventStore } from '../src/infrastructure/nats/event-store';
import { NatsClient } from '../src/infrastructure/nats/nats-connection';
import type { TestEnv } from '../test/harness/stack';

/**
 * BENCH_SMOKE=1 (run by `npm test`): every section once at a tiny size, to prove it still runs; its
 * figures mean nothing.
 */
export const SMOKE = process.env.BENCH_SMOKE === '1';

/** A size of the real bench, or the tiny one of a smoke run. */
export const sized = <T>(full: T, smoke: T): T => (SMOKE ? smoke : full);

export interface BenchContext {
  env: TestEnv;
  /** Process ids of the stack's parts, for CPU accounting. */
  pids: { service: number; nats: number; clickhouse: number };
  log(msg: string): void;
}

/** CPU time (user + system, ms) a process has used so far; Linux /proc, 100 ticks per second. */
export function cpuMs(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) * 10;
}

/** CPU used by the bench process itself (the load generator), ms. */
export function ownCpuMs(): number {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
}

/**
 * Starts counting the CPU of the stack's parts and of this process (`client`: the load generator);
 * `used()` returns the ms each has spent since.
 */
export function cpuMeter(pids: BenchContext['pids']): { used(): Record<'client' | 'service' | 'nats' | 'clickhouse', number> } {
  const read = () => ({ client: ownCpuMs(), service: cpuMs(pids.service), nats: cpuMs(pids.nats), clickhouse: cpuMs(pids.clickhouse) });
  const before = read();
  return {
    used() {
      const now = read();
      return {
        client: now.client - before.client,
        service: now.service - before.service,
        nats: now.nats - before.nats,
        clickhouse: now.clickhouse - before.clickhouse,
      };
    },
  };
}

export interface BenchSection {
  name: string;
  run(ctx: BenchContext): Promise<Record<string, unknown>>;
}

export const now = () => performance.now();

export function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return NaN;
  const i = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[i];
}

export function latencySummary(samplesMs: number[]) {
  const s = [...samplesMs].sort((a, b) => a - b);
  const round = (x: number) => Math.round(x * 100) / 100;
  return { n: s.length, p50: round(percentile(s, 50)), p95: round(percentile(s, 95)), p99: round(percentile(s, 99)), max: round(s[s.length - 1] ?? NaN) };
}

/** Runs `total` tasks with at most `concurrency` in flight; returns wall time in ms. */
export async function pool(total: number, concurrency: number, task: (i: number) => Promise<void>): Promise<number> {
  let next = 0;
  const start = now();
  await Promise.all(
    Array.from({ length: Math.min(concurrency, total) }, async () => {
      while (next < total) await task(next++);
    }),
  );
  return now() - start;
}

/**
 * A realistic batch: 50 rrweb incremental events (mouse moves, scrolls, small DOM mutations), about
 * 13 KB of JSON, like the NOTES baseline. `seed` makes every batch distinct (no accidental dedup).
 */
export function makeBatch(
  seed: number,
  events = 50,
  startTs = 1_700_000_000_000 + seed * 1000,
): { type: number; timestamp: number; data: Record<string, unknown> }[] {
  const out = [];
  for (let i = 0; i < events; i++) {
    const ts = startTs + i * 10;
    if (i % 5 === 0) {
      out.push({
        type: 3,
        timestamp: ts,
        data: {
          source: 0,
          texts: [],
          attributes: [{ id: 40 + i, attributes: { class: `row row-${seed}-${i} is-selected`, style: 'color: rgb(12, 34, 56); padding: 4px 8px' } }],
          removes: [],
          adds: [
            {
              parentId: 12,
              nextId: null,
              node: { type: 2, tagName: 'div', attributes: { class: 'toast', 'data-id': `${seed}-${i}` }, childNodes: [], id: 1000 + i },
            },
          ],
        },
      });
    } else {
      out.push({
        type: 3,
        timestamp: ts,
        data: {
          source: 1,
          positions: Array.from({ length: 6 }, (_, k) => ({ x: (seed * 7 + i * 13 + k) % 1280, y: (seed * 3 + i * 11 + k) % 720, id: 9, timeOffset: -k * 16 })),
        },
      });
    }
  }
  return out;
}

/** A GET over node:http with keep-alive; the body is counted (and kept only when `keep`). */
export function get(
  agent: Agent,
  base: string,
  path: string,
  key: string,
  keep = true,
  onChunk?: (chunk: Buffer) => void,
): Promise<{ status: number; bytes: number; body: string }> {
  const url = new URL(base);
  return new Promise((resolve, reject) => {
    const req = request({ host: url.hostname, port: url.port, path, method: 'GET', agent, headers: { authorization: `Bearer ${key}` } }, (res) => {
      const parts: Buffer[] = [];
      let bytes = 0;
      res.on('data', (c: Buffer) => {
        bytes += c.length;
        onChunk?.(c);
        if (keep) parts.push(c);
      });
      res.on('end', () => resolve({ status: res.statusCode ?? 0, bytes, body: keep ? Buffer.concat(parts).toString('utf8') : '' }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end();
  });
}

export interface CallResult {
  status: number;
  bytes: number;
  /** The body as text (empty for images, and unless kept). */
  text: string;
  headers: Record<string, string | string[] | undefined>;
}

/**
 * Requests over node:http with keep-alive (at most `maxSockets` at once), the key as a Bearer header
 * and a JSON body when given; the response is read whole, counted, and kept as text unless `keep` is false.
 */
export function httpClient(baseUrl: string, maxSockets: number) {
  const url = new URL(baseUrl);
  const agent = new Agent({ keepAlive: true, maxSockets });
  const call = (method: string, path: string, key: string, body?: string | Buffer, keep = true): Promise<CallResult> =>
    new Promise((resolve, reject) => {
      const headers: Record<string, string | number> = { authorization: `Bearer ${key}` };
      if (body !== undefined) Object.assign(headers, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) });
      const req = request({ host: url.hostname, port: url.port, path, method, agent, headers }, (res) => {
        const chunks: Buffer[] = [];
        let bytes = 0;
        const text = keep && !res.headers['content-type']?.startsWith('image/');
        res.on('data', (c: Buffer) => {
          bytes += c.length;
          if (text) chunks.push(c);
        });
        res.on('end', () => resolve({ status: res.statusCode ?? 0, bytes, text: text ? Buffer.concat(chunks).toString('utf8') : '', headers: res.headers }));
        res.on('error', reject);
      });
      req.on('error', reject);
      req.end(body);
    });
  return { call, close: () => agent.destroy() };
}

/** Resident set size of a process in MiB (Linux /proc). */
export function rssMiB(pid: number): number {
  const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return m ? Math.round((Number(m[1]) / 1024) * 10) / 10 : NaN;
}

/** Samples a process's RSS every `everyMs` until stopped; returns the samples in MiB. */
export function sampleRss(pid: number, everyMs = 50): { stop(): number[] } {
  const samples = [rssMiB(pid)];
  const t = setInterval(() => samples.push(rssMiB(pid)), everyMs);
  return {
    stop() {
      clearInterval(t);
      samples.push(rssMiB(pid));
      return samples;
    },
  };
}

/**
 * The service's own event store (JetStreamEventStore: the same subjects, headers and Td-Summary as
 * ingestion) on a connection of the bench, to seed large datasets without the HTTP layer's cost.
 */
export async function benchEventStore(env: TestEnv): Promise<{ store: JetStreamEventStore; close(): Promise<void> }> {
  const client = await NatsClient.connect({ NATS_URL: env.natsUrl } as AppConfig, 'tapedeck-bench');
  return { store: new JetStreamEventStore(client, 10_000), close: () => client.close() };
}

/** Stores a batch as ingestion does: a content-derived batch id, its summary and its activity (Td-Activity) as headers. */
export function appendEvents(store: JetStreamEventStore, tenantId: string, recordingId: string, events: RrwebEvent[]) {
  const payload = Buffer.from(JSON.stringify(events), 'utf8');
  const batchId = createHash('sha256').update(`${tenantId}\n${recordingId}\n`).update(payload).digest('hex').slice(0, 40);
  return store.appendBatch(tenantId, recordingId, batchId, payload, summarizeBatch(events, payload.length), activityHeader(events));
}

/** The bench's own ClickHouse client on the service's database (read-only use). */
export function benchClickHouse(env: TestEnv): ClickHouse {
  return new ClickHouse({
    CLICKHOUSE_URL: env.clickhouseUrl,
    CLICKHOUSE_DATABASE: env.serviceEnv.CLICKHOUSE_DATABASE,
    CLICKHOUSE_USER: 'default',
    CLICKHOUSE_PASSWORD: '',
  });
}

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export interface ProjectionLagView {
  pending: number;
  ackPending: number;
  ackFloorSeq: number;
  streamLastSeq: number;
  oldestUnprojectedAgeSeconds: number;
}

/** The projector's own lag as /readyz reports it (cached there for about 2 s). */
export async function projectorLag(env: TestEnv, projection = 'recordings'): Promise<ProjectionLagView | undefined> {
  const r = await fetch(`${env.baseUrl}/readyz`);
  const body = (await r.json()) as { details?: { projections?: Record<string, { lag?: ProjectionLagView }> } };
  return body.details?.projections?.[projection]?.lag;
}

/** Waits until the projection has acknowledged everything the stream held when this was called. */
export async function waitForProjector(env: TestEnv, timeoutMs: number, log?: (m: string) => void, projection = 'recordings'): Promise<number> {
  const start = now();
  let last = 0;
  for (;;) {
    const lag = await projectorLag(env, projection);
    if (lag && lag.pending + lag.ackPending === 0 && lag.ackFloorSeq >= lag.streamLastSeq) return now() - start;
    if (now() - start > timeoutMs) throw new Error(`projector not caught up in ${timeoutMs} ms: ${JSON.stringify(lag)}`);
    if (log && now() - last > 10_000) {
      last = now();
      log(`  projector ${projection}: ${lag?.pending ?? '?'} pending, oldest ${lag?.oldestUnprojectedAgeSeconds?.toFixed(1) ?? '?'} s`);
    }
    await sleep(500);
  }
}
