#!/usr/bin/env bash
# Installs the npm dependencies exactly as locked. npm 11.19 on these machines writes lock files
# without the other platforms' optional packages (@swc/core-*, ...) and then its own `npm ci`
# refuses them; `npm install` honours the same lock, so it is the fallback.
set -euo pipefail
cd "$(dirname "$0")/.."
if ! npm ci --no-audit --no-fund --no-progress 2>/tmp/npm-ci.$$.log; then
  if grep -q "can only install packages when your package.json and package-lock.json" /tmp/npm-ci.$$.log; then
    echo "install-deps: npm ci rejected the lock file (missing other-platform optional packages); using npm install" >&2
    npm install --no-audit --no-fund --no-progress
  else
    cat /tmp/npm-ci.$$.log >&2
    rm -f /tmp/npm-ci.$$.log
    exit 1
  fi
fi
rm -f /tmp/npm-ci.$$.log
