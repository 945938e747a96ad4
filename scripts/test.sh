#!/usr/bin/env bash
# The README's test command (npm test): installs what is missing, builds, then runs the unit specs
# and the end-to-end specs (which start their own nats-server, clickhouse-server and Chromium).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/ensure-deps.sh
export PATH="$PATH:/usr/sbin"
npm run build --silent
npx jest --selectProjects unit --ci "$@"
npx jest --selectProjects e2e --ci --runInBand "$@"
