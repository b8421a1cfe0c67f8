#!/usr/bin/env bash
# Prints the path of a Temporal CLI, building v1.5.1 with Go into a cache outside the clone
# when none is available. Later versions cannot be built with `go install` (replace directives).
set -euo pipefail
VERSION=v1.5.1
CACHE_DIR="${TEMPORAL_CLI_CACHE:-$HOME/.cache/payments-service/temporal-cli-$VERSION}"

if [ -n "${TEMPORAL_CLI:-}" ] && [ -x "$TEMPORAL_CLI" ]; then echo "$TEMPORAL_CLI"; exit 0; fi
if [ -x "$CACHE_DIR/temporal" ]; then echo "$CACHE_DIR/temporal"; exit 0; fi
if command -v temporal >/dev/null 2>&1; then command -v temporal; exit 0; fi

GO="${GO:-}"
[ -n "$GO" ] || GO=$(command -v go || true)
[ -n "$GO" ] || { [ -x /usr/local/go/bin/go ] && GO=/usr/local/go/bin/go; } || true
if [ -z "$GO" ]; then echo "temporal-cli: no Temporal CLI found and no Go toolchain to build one (install Go or set TEMPORAL_CLI)" >&2; exit 1; fi

mkdir -p "$CACHE_DIR"
echo "temporal-cli: building github.com/temporalio/cli $VERSION into $CACHE_DIR (first run only, a few minutes)" >&2
log="$CACHE_DIR/build.log"
if ! GOBIN="$CACHE_DIR" GOFLAGS=-mod=mod "$GO" install "github.com/temporalio/cli/cmd/temporal@$VERSION" >"$log" 2>&1; then
  echo "temporal-cli: go install failed: $(tail -n 1 "$log")" >&2
  exit 1
fi
echo "$CACHE_DIR/temporal"
