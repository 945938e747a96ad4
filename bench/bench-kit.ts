// Shared pieces of `npm run bench`: timing, percentiles, payloads, and the section contract.
import { readFileSync } from 'node:fs';
import type { TestEnv } from '../test/harness/stack';

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
export function makeBatch(seed: number, events = 50, startTs = 1_700_000_000_000 + seed * 1000): { type: number; timestamp: number; data: Record<string, unknown> }[] {
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
          adds: [{ parentId: 12, nextId: null, node: { type: 2, tagName: 'div', attributes: { class: 'toast', 'data-id': `${seed}-${i}` }, childNodes: [], id: 1000 + i } }],
        },
      });
    } else {
      out.push({
        type: 3,
        timestamp: ts,
        data: { source: 1, positions: Array.from({ length: 6 }, (_, k) => ({ x: (seed * 7 + i * 13 + k) % 1280, y: (seed * 3 + i * 11 + k) % 720, id: 9, timeOffset: -k * 16 })) },
      });
    }
  }
  return out;
}
