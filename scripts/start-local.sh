#!/usr/bin/env bash
# `npm start`: install what is missing, build, then run the local stack (src/local/start-local.ts).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/ensure-deps.sh
export PATH="$PATH:/usr/sbin"
npm run build --silent
exec node dist/local/start-local.js
