#!/usr/bin/env bash
# `npm test`: provides what the suite needs (Temporal CLI build, MariaDB), type-checks, checks the
# layering (.dependency-cruiser.cjs, docs/architecture.md "Layers"), then runs the unit and
# integration tests against real services. The unit tests include the OpenAPI lint
# (test/unit/openapi-lint.test.ts) and the generated-client check (test/unit/openapi-client.test.ts).
set -euo pipefail
cd "$(dirname "$0")/.."
# Installs when a declared dependency is missing: a fresh checkout, or a change that added one
# (the suite runs @redocly/cli and openapi-typescript, for instance).
node -e 'const fs = require("fs"); const p = require("./package.json");
  const missing = Object.keys({ ...p.dependencies, ...p.devDependencies }).filter((name) => !fs.existsSync(`node_modules/${name}/package.json`));
  process.exit(missing.length ? 1 : 0);' || bash scripts/install-deps.sh
bash scripts/temporal-cli.sh >/dev/null
bash scripts/ensure-mariadb.sh "${TEST_DATABASE_URL:-mysql://root@127.0.0.1:3306/payments_test}"
npx tsc --noEmit -p tsconfig.json
npx depcruise src contracts workflows activities workers scripts bench sdk --config .dependency-cruiser.cjs
npx jest --runInBand "$@"
