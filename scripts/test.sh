#!/usr/bin/env bash
# The README's test command (npm test): installs what is missing, builds, type-checks, lints, checks
# the formatting, runs every bench section once at a tiny size, then runs the unit specs and the end-to-end specs (which start their own nats-server, clickhouse-server and Chromium), and
# the SQL-heavy end-to-end specs once more against a current ClickHouse (chDB).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/ensure-deps.sh
export PATH="$PATH:/usr/sbin"
npm run build --silent
# Jest strips types without checking them: type-check the tests and the bench code here (the bench is
# compiled to dist-bench/, for the smoke run below).
npx tsc --noEmit -p test/tsconfig.json
npx tsc -p bench/tsconfig.json
# Review's first pass: typed lint rules and layer imports (eslint.config.mjs), then the formatting.
npx eslint --max-warnings 0 .
npx prettier --check . > /dev/null || { npx prettier --list-different . >&2; echo "Formatting differs in the files above: npm run format" >&2; exit 1; }
# Runs "$@" beside what follows, its output kept in a file (its path in $bg_log, its pid in $bg_pid).
background() {
  bg_log=$(mktemp "/tmp/tapedeck-$1.XXXXXX")
  shift
  "$@" > "$bg_log" 2>&1 &
  bg_pid=$!
}
# Waits for a job started by `background` (pid, log, what it ran), prints its output, returns its status.
collect() {
  local rc=0
  wait "$1" || rc=$?
  echo "--- ${3} (${2}) ---"
  cat "$2"
  return "$rc"
}
# Every bench section once at a tiny size on a private stack (about 100 s, beside the unit specs): a
# section that no longer runs fails the tests; no figure is checked, and bench/results/ is left alone.
smoke=
if [ $# -eq 0 ]; then
  background bench-smoke env BENCH_SMOKE=1 node dist-bench/bench/run.js
  smoke=$bg_pid smoke_log=$bg_log
fi
unit_rc=0
npx jest --selectProjects unit --ci "$@" || unit_rc=$?
if [ -n "$smoke" ]; then
  collect "$smoke" "$smoke_log" 'the benches at a tiny size' || {
    echo "A bench section no longer runs: see above" >&2
    exit 1
  }
fi
[ "$unit_rc" -eq 0 ] || exit "$unit_rc"
# The end-to-end specs in two shards at once (test/harness/sequencer.mjs splits them by running
# time), each in its own Jest process with a stack of its own (global-setup.ts): they spend most of
# their time waiting, so two at once take little more than half as long as one after the other.
# The second shard then runs the SQL-heavy specs once more against a current ClickHouse engine (chDB
# from npm behind scripts/chdb-http-server.mjs, as deploy/ runs; Debian has only 18.16): the same SQL
# must give the same answers on both. TAPEDECK_TEST_CLICKHOUSE=chdb runs any spec that way. Given
# arguments (a spec's path), the specs they select run in one process, and chDB is skipped.
if [ $# -gt 0 ]; then
  npx jest --selectProjects e2e --ci --runInBand "$@"
  exit 0
fi
CHDB_SPECS=(
  test/e2e/listing.e2e-spec.ts test/e2e/listing-range.e2e-spec.ts test/e2e/listing-links.e2e-spec.ts test/e2e/statistics.e2e-spec.ts
  test/e2e/replays.e2e-spec.ts test/e2e/projections.e2e-spec.ts test/e2e/projections-rebuild.e2e-spec.ts
  test/e2e/clickhouse-client.e2e-spec.ts test/e2e/sql-escaping.e2e-spec.ts test/e2e/admin-cli.e2e-spec.ts
  test/e2e/tenant-lifecycle.e2e-spec.ts test/e2e/keyframes.e2e-spec.ts test/e2e/listing-live.e2e-spec.ts
  test/e2e/activity.e2e-spec.ts test/integration/activity-plans.int-spec.ts test/integration/retention.int-spec.ts test/integration/rebuild-swap.int-spec.ts
)
second_shard() {
  npx jest --selectProjects e2e --ci --runInBand --shard=2/2 &&
    TAPEDECK_TEST_CLICKHOUSE=chdb npx jest --selectProjects e2e --ci --runInBand "${CHDB_SPECS[@]}"
}
# The chDB run's seconds, counted to the second shard when the files are split (both shards split alike).
export TAPEDECK_SHARD_LOADS=0,150
background e2e-shard2 second_shard
first_rc=0
npx jest --selectProjects e2e --ci --runInBand --shard=1/2 || first_rc=$?
second_rc=0
collect "$bg_pid" "$bg_log" 'the second shard and the chDB run' || second_rc=$?
if [ "$first_rc" -ne 0 ] || [ "$second_rc" -ne 0 ]; then
  echo "End-to-end specs failed: first shard exit ${first_rc}, second shard or chDB exit ${second_rc}" >&2
  exit 1
fi
