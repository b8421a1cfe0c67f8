#!/usr/bin/env bash
# Makes sure haproxy (the load balancer of the compose topology) is installed: from Debian's
# packages when absent (root only). `npm run topology` runs it; a CI machine starts with nothing.
set -euo pipefail
command -v haproxy >/dev/null 2>&1 && exit 0
if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
  echo "ensure-haproxy: installing haproxy" >&2
  (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends haproxy) >/dev/null 2>&1 \
    || { echo "ensure-haproxy: apt-get install haproxy failed" >&2; exit 1; }
  # Debian's package starts its own service on port 80 where an init system runs: not ours.
  exit 0
fi
echo "ensure-haproxy: haproxy is not installed and this user cannot install it" >&2
exit 1
