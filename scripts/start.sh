#!/usr/bin/env bash
# `npm start`: installs dependencies on first run, then starts everything (scripts/dev.ts).
set -euo pipefail
cd "$(dirname "$0")/.."
[ -x node_modules/.bin/tsx ] || bash scripts/install-deps.sh
exec node_modules/.bin/tsx scripts/dev.ts
