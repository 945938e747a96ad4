// `npm run bench`: starts a private stack (nats-server, clickhouse-server, the built service) on free
// loopback ports, runs every section, and writes bench/results/<timestamp>.json and latest.json.
// Bounded in count and time; a benchmark, never a timed test.
import { mkdirSync, writeFileSync } from 'node:fs';
import { cpus, totalmem } from 'node:os';
import { join, resolve } from 'node:path';
import { startStack } from '../test/harness/stack';
import type { BenchSection } from './bench-kit';
import { ingestionBench } from './ingestion.bench';
import { listingBench } from './listing.bench';
import { projectionLagBench } from './projection-lag.bench';
import { retrievalBench } from './retrieval.bench';
import { screenshotBench } from './screenshot.bench';

const SECTIONS: BenchSection[] = [ingestionBench, projectionLagBench, retrievalBench, screenshotBench, listingBench];

async function main() {
  const only = process.argv.slice(2);
  const log = (msg: string) => process.stderr.write(msg + '\n');
  const { env, procs, service } = await startStack();
  const results: Record<string, unknown> = {};
  try {
    for (const s of SECTIONS) {
      if (only.length && !only.includes(s.name)) continue;
      const t = performance.now();
      try {
        results[s.name] = await s.run({ env, log });
      } catch (e) {
        results[s.name] = { error: String((e as Error)?.stack ?? e) };
        log(`section ${s.name} failed: ${String(e)}`);
      }
      log(`${s.name}: ${Math.round(performance.now() - t)} ms`);
    }
  } finally {
    await service.stop();
    await Promise.all(procs.map((p) => p.stop()));
  }
  const out = {
    date: new Date().toISOString(),
    machine: { cpus: cpus().length, cpuModel: cpus()[0]?.model, memoryGiB: Math.round(totalmem() / 2 ** 30), node: process.version },
    results,
  };
  const dir = resolve(__dirname, '..', '..', 'bench', 'results');
  mkdirSync(dir, { recursive: true });
  const stamp = out.date.replace(/[:.]/g, '-');
  writeFileSync(join(dir, `${stamp}.json`), JSON.stringify(out, null, 2));
  writeFileSync(join(dir, 'latest.json'), JSON.stringify(out, null, 2));
  process.stdout.write(JSON.stringify(out, null, 2) + '\n');
}

main().catch((e) => {
  process.stderr.write(String(e?.stack ?? e) + '\n');
  process.exit(1);
});
