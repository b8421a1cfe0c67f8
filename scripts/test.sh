#!/usr/bin/env bash
# `npm test`: provides what the suite needs (Temporal CLI build, MariaDB), type-checks, then runs
# the unit and integration tests against real services.
set -euo pipefail
cd "$(dirname "$0")/.."
[ -x node_modules/.bin/jest ] || bash scripts/install-deps.sh
bash scripts/temporal-cli.sh >/dev/null
bash scripts/ensure-mariadb.sh "${TEST_DATABASE_URL:-mysql://root@127.0.0.1:3306/payments_test}"
npx tsc --noEmit -p tsconfig.json
npx jest --runInBand "$@"
