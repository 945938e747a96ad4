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
# Every bench section once at a tiny size on a private stack (about 20 s): a section that no longer
# runs fails the tests; no figure is checked, and bench/results/ is left alone.
if [ $# -eq 0 ]; then
  BENCH_SMOKE=1 node dist-bench/bench/run.js
fi
npx jest --selectProjects unit --ci "$@"
npx jest --selectProjects e2e --ci --runInBand "$@"
# The specs whose SQL reaches every ClickHouse table, again against the current ClickHouse engine that
# deploy/ runs (chDB from npm behind scripts/chdb-http-server.mjs; Debian has only 18.16): the same SQL
# must give the same answers on both. TAPEDECK_TEST_CLICKHOUSE=chdb runs any spec that way.
if [ $# -eq 0 ]; then
  TAPEDECK_TEST_CLICKHOUSE=chdb npx jest --selectProjects e2e --ci --runInBand \
    test/e2e/listing.e2e-spec.ts test/e2e/listing-range.e2e-spec.ts test/e2e/listing-links.e2e-spec.ts test/e2e/statistics.e2e-spec.ts \
    test/e2e/replays.e2e-spec.ts test/e2e/projections.e2e-spec.ts test/e2e/projections-rebuild.e2e-spec.ts \
    test/e2e/clickhouse-client.e2e-spec.ts test/e2e/sql-escaping.e2e-spec.ts test/e2e/admin-cli.e2e-spec.ts \
    test/e2e/tenant-lifecycle.e2e-spec.ts test/e2e/keyframes.e2e-spec.ts test/e2e/listing-live.e2e-spec.ts \
    test/e2e/activity.e2e-spec.ts test/integration/activity-plans.int-spec.ts test/integration/retention.int-spec.ts test/integration/rebuild-swap.int-spec.ts
fi
