#!/usr/bin/env bash
# Installs what a fresh Debian machine lacks: the Debian packages of the local stack (nats-server,
# clickhouse-server, clickhouse-client, chromium, fonts) and the npm dependencies. Used by
# `npm start`, `npm test` and .ci/run, so all three install the same things.
set -euo pipefail
cd "$(dirname "$0")/.."

# The fonts: Latin/Greek/Cyrillic, most other scripts, Chinese/Japanese/Korean and colour emoji, so a
# recorded page's text shows in screenshots instead of empty boxes.
APT_PACKAGES=(nats-server clickhouse-server clickhouse-client chromium fonts-liberation fonts-dejavu-core fonts-noto-core fonts-noto-cjk fonts-noto-color-emoji)
missing=()
command -v nats-server >/dev/null 2>&1 || [ -x /usr/sbin/nats-server ] || missing+=(nats-server)
command -v clickhouse-server >/dev/null 2>&1 || missing+=(clickhouse-server clickhouse-client)
[ -x "${CHROMIUM_PATH:-/usr/bin/chromium}" ] || missing+=(chromium)
dpkg -s fonts-liberation fonts-noto-core fonts-noto-cjk fonts-noto-color-emoji >/dev/null 2>&1 || missing+=(fonts)
if [ ${#missing[@]} -gt 0 ]; then
  echo "Installing Debian packages: ${APT_PACKAGES[*]}" >&2
  SUDO=""
  [ "$(id -u)" -eq 0 ] || SUDO="sudo"
  $SUDO apt-get update -q
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -q "${APT_PACKAGES[@]}"
fi
export PATH="$PATH:/usr/sbin"

# `npm install --no-save`, not `npm ci`: the registry this machine (and CI) can reach lacks other
# platforms' optional native bindings (e.g. @unrs/resolver-binding-darwin-*), so they cannot be in
# the lock file, and `npm ci` rejects a lock without them as "out of sync". `npm install` installs
# exactly the locked versions here and, with --no-save, never rewrites the lock.
if [ ! -d node_modules ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
  echo "Installing npm dependencies (npm install from package-lock.json)" >&2
  npm install --no-save --no-audit --no-fund --loglevel=error
fi
