#!/usr/bin/env bash
# The README's test command (npm test): installs what is missing, builds, then runs the unit specs
# and the end-to-end specs (which start their own nats-server, clickhouse-server and Chromium).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/ensure-deps.sh
export PATH="$PATH:/usr/sbin"
npm run build --silent
# Jest strips types without checking them: type-check the tests and the bench code here.
npx tsc --noEmit -p test/tsconfig.json
npx tsc --noEmit -p bench/tsconfig.json
npx jest --selectProjects unit --ci "$@"
npx jest --selectProjects e2e --ci --runInBand "$@"
