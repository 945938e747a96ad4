// Splits the end-to-end specs into shards of about equal running time (`jest --shard=i/n`), for
// scripts/test.sh, which runs two shards at once, each on a stack of its own: most of an end-to-end
// spec's time is spent waiting (a service starting, a poll, a crash being noticed), so two at once
// take little more than one. Jest's own sharding splits the files by count; the soak alone runs as
// long as twenty ordinary specs. Longest first, each to the shard with the least time so far.
// TAPEDECK_SHARD_LOADS ("0,150"): seconds each shard runs besides these files (what the script runs
// after them in that shard).
import { relative, sep } from 'node:path';
import sequencer from '@jest/test-sequencer';

const Sequencer = sequencer.default ?? sequencer;

/** Seconds each spec took in a CI run (`Time` of the specs above jest's 30 s threshold); any other: DEFAULT_SECONDS. */
const SECONDS = {
  'test/e2e/soak.e2e-spec.ts': 160,
  'test/e2e/archives.e2e-spec.ts': 87,
  'test/e2e/faults/clickhouse-outage.e2e-spec.ts': 63,
  'test/e2e/archives-aging.e2e-spec.ts': 61,
  'test/e2e/projections-resilience.e2e-spec.ts': 54,
  'test/integration/rendering.int-spec.ts': 44,
  'test/e2e/official-client.e2e-spec.ts': 43,
  'test/e2e/faults/nats-restart.e2e-spec.ts': 41,
  'test/e2e/tenant-limits.e2e-spec.ts': 41,
  'test/e2e/player-live.e2e-spec.ts': 36,
  'test/e2e/screenshot.e2e-spec.ts': 35,
  'test/e2e/recorder.e2e-spec.ts': 34,
  'test/e2e/tenant-lifecycle.e2e-spec.ts': 33,
};
const DEFAULT_SECONDS = 9;

const pathOf = (test) => relative(test.context.config.rootDir, test.path).split(sep).join('/');
const secondsOf = (test) => SECONDS[pathOf(test)] ?? DEFAULT_SECONDS;

export default class DurationSequencer extends Sequencer {
  shard(tests, { shardIndex, shardCount }) {
    const loads = Array.from({ length: shardCount }, (_, i) => Number((process.env.TAPEDECK_SHARD_LOADS ?? '').split(',')[i]) || 0);
    const byLength = [...tests].sort((a, b) => secondsOf(b) - secondsOf(a) || (pathOf(a) < pathOf(b) ? -1 : 1));
    const mine = [];
    for (const test of byLength) {
      const least = loads.indexOf(Math.min(...loads));
      loads[least] += secondsOf(test);
      if (least === shardIndex - 1) mine.push(test);
    }
    return mine;
  }
}
