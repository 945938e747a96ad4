// `npm run bench`: starts a private stack (nats-server, clickhouse-server, the built service) on free
// loopback ports, runs every section, and writes bench/results/<timestamp>.json and latest.json.
// Bounded in count and time; a benchmark, never a timed test. With BENCH_SMOKE=1 (`npm test`) every
// section runs once at a tiny size and the results go to a temporary directory. Exit code 1 when a
// section failed (the others still run, and the results are written).
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, tmpdir, totalmem } from 'node:os';
import { join, resolve } from 'node:path';
import { loadConfig } from '../src/config/config';
import { startStack } from '../test/harness/stack';
import { BenchSection, SMOKE } from './bench-kit';
import { consoleBench } from './console.bench';
import { ingestionBench } from './ingestion.bench';
import { listingBench } from './listing.bench';
import { liveBench } from './live.bench';
import { longRecordingBench } from './long-recording.bench';
import { noisyNeighbourBench } from './noisy-neighbour.bench';
import { projectionLagBench } from './projection-lag.bench';
import { replayBench } from './replay.bench';
import { retrievalBench } from './retrieval.bench';
import { screenshotBench } from './screenshot.bench';
import { storageBench } from './storage.bench';

// The listing section last: it seeds 100 000 recordings into the shared stack.
const SECTIONS: BenchSection[] = [
  ingestionBench,
  projectionLagBench,
  retrievalBench,
  screenshotBench,
  replayBench,
  noisyNeighbourBench,
  liveBench,
  longRecordingBench,
  storageBench,
  consoleBench,
  listingBench,
];

async function main() {
  const only = process.argv.slice(2);
  const log = (msg: string) => process.stderr.write(msg + '\n');
  // The stack turns the contention guard off for the suites; the benches measure the service's default.
  process.env.TENANT_CPU_PRESSURE ??= String(loadConfig({}).TENANT_CPU_PRESSURE);
  const { env, procs, service } = await startStack();
  const results: Record<string, unknown> = {};
  const failed: string[] = [];
  try {
    for (const s of SECTIONS) {
      if (only.length && !only.includes(s.name)) continue;
      const t = performance.now();
      try {
        const pids = {
          service: service.child.pid!,
          nats: procs.find((p) => p.name.includes('nats'))!.child.pid!,
          clickhouse: procs.find((p) => p.name.includes('clickhouse'))!.child.pid!,
        };
        results[s.name] = await s.run({ env, pids, log });
      } catch (e) {
        results[s.name] = { error: String((e as Error)?.stack ?? e) };
        failed.push(s.name);
        log(`section ${s.name} failed: ${String(e)}`);
      }
      log(`${s.name}: ${Math.round(performance.now() - t)} ms`);
    }
  } finally {
    await service.stop();
    await Promise.all(procs.map((p) => p.stop()));
    // The stack's data (the listing section's is over a gigabyte) goes, unless a failure needs its logs.
    if (failed.length || process.env.TAPEDECK_KEEP_TEST_DATA) log(`the stack's data and logs are in ${env.dir}`);
    else rmSync(env.dir, { recursive: true, force: true });
  }
  const out = {
    date: new Date().toISOString(),
    machine: { cpus: cpus().length, cpuModel: cpus()[0]?.model, memoryGiB: Math.round(totalmem() / 2 ** 30), node: process.version },
    ...(SMOKE ? { smoke: true } : {}),
    results,
  };
  const stamp = out.date.replace(/[:.]/g, '-');
  if (SMOKE) {
    const file = join(mkdtempSync(join(tmpdir(), 'tapedeck-bench-smoke-')), `${stamp}.json`);
    writeFileSync(file, JSON.stringify(out, null, 2));
    log(`smoke run: results in ${file}`);
  } else {
    const dir = resolve(__dirname, '..', '..', 'bench', 'results');
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, `${stamp}.json`), JSON.stringify(out, null, 2));
    writeFileSync(join(dir, 'latest.json'), JSON.stringify(mergeLatest(join(dir, 'latest.json'), out), null, 2));
    process.stdout.write(JSON.stringify(out, null, 2) + '\n');
  }
  if (failed.length) {
    log(`failed sections: ${failed.join(', ')}`);
    process.exitCode = 1;
  }
}

/**
 * latest.json holds the newest result of every section: a run of some sections replaces only those,
 * each section stamped with the date of the run that measured it.
 */
function mergeLatest(path: string, run: { date: string; machine: unknown; results: Record<string, unknown> }) {
  let previous: { sections?: Record<string, unknown>; date?: string; machine?: unknown; results?: Record<string, unknown> } = {};
  try {
    previous = JSON.parse(readFileSync(path, 'utf8'));
  } catch {
    // first run, or an unreadable file: start afresh
  }
  // An older latest.json is one run's output: its results become sections of that run's date.
  const older = Object.fromEntries(
    Object.entries(previous.results ?? {}).map(([name, result]) => [name, { date: previous.date, machine: previous.machine, result }]),
  );
  const sections: Record<string, unknown> = { ...older, ...(previous.sections ?? {}) };
  for (const [name, result] of Object.entries(run.results)) sections[name] = { date: run.date, machine: run.machine, result };
  return { updated: run.date, sections };
}

main().catch((e) => {
  process.stderr.write(String(e?.stack ?? e) + '\n');
  process.exit(1);
});
