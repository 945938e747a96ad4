#!/usr/bin/env bash
# `npm start`: scripts/start-local.mjs, which installs what is missing, builds, then runs the local
# stack (src/local/start-local.ts). exec, here and in package.json's "start": no shell stays between
# npm and node to swallow SIGINT or SIGTERM, so stopping npm's process (or this one) stops the stack.
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$PATH:/usr/sbin"
exec node scripts/start-local.mjs "$@"
