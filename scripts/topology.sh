#!/usr/bin/env bash
# npm run test:topology, loopback only:
#   1. the core behind PgBouncer in transaction mode, and a failover between two hosts, on the machine's PostgreSQL
#      (DATABASE_URL, default postgresql://postgres@127.0.0.1:5432/postgres);
#   2. alone afterwards (it loads the machine), the production shape: Patroni with etcd running two PostgreSQL 15
#      servers in synchronous mode, HAProxy by Patroni's /primary, two core processes (one through PgBouncer) under a
#      write load while the primary is lost twice (test/topology/patroni.test.ts, about two minutes); then, on a stack
#      of its own, three cores through PgBouncer under a bounded client load while the primary's PostgreSQL is killed
#      (test/topology/patroni-clients.test.ts, about one minute).
# Debian's pgbouncer, patroni, etcd-server and haproxy are installed where they are missing and apt-get can run as
# root. Exit 3 with a plain "NOT CHECKED" line when a part could not run because its packages are missing.
# Arguments are passed to one vitest run (npm run test:topology -- test/topology/patroni.test.ts).
set -euo pipefail
cd "$(dirname "$0")/.."

declare -A package_of=([pgbouncer]=/usr/sbin/pgbouncer [patroni]=/usr/bin/patroni [etcd-server]=/usr/bin/etcd [haproxy]=/usr/sbin/haproxy)
missing() {
  local package
  for package in "$@"; do [ -x "${package_of[$package]}" ] || echo "$package"; done
}

wanted=$(missing pgbouncer patroni etcd-server haproxy)
if [ -n "$wanted" ] && [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
  # The test starts its own servers on free ports; the packages' services are not started (where nothing already
  # says so: a container's policy-rc.d usually does).
  added_policy=""
  if [ ! -e /usr/sbin/policy-rc.d ]; then
    printf '#!/bin/sh\nexit 101\n' >/usr/sbin/policy-rc.d && chmod +x /usr/sbin/policy-rc.d && added_policy=yes
  fi
  # shellcheck disable=SC2086 # one package a word
  install_packages() { DEBIAN_FRONTEND=noninteractive apt-get install -o DPkg::Lock::Timeout=300 -y -q --no-install-recommends $wanted >/dev/null 2>&1; }
  install_packages || (apt-get update -q >/dev/null 2>&1 && install_packages) || true
  if [ -n "$added_policy" ]; then rm -f /usr/sbin/policy-rc.d; fi
fi

if [ -n "$(missing pgbouncer)" ]; then
  echo "topology: NOT CHECKED: the Debian package pgbouncer is not installed and cannot be installed here"
  exit 3
fi
# The Patroni test starts the core as production does, from dist/.
node scripts/build-if-stale.mjs

if [ $# -gt 0 ]; then
  exec npx vitest run --config vitest.topology.config.ts "$@"
fi

npx vitest run --config vitest.topology.config.ts --exclude 'test/topology/patroni*.test.ts'
stack_missing=$(missing patroni etcd-server haproxy | tr '\n' ' ')
if [ -n "$stack_missing" ]; then
  echo "topology: NOT CHECKED: the Patroni failover: the Debian packages ${stack_missing% } are not installed and cannot be installed here"
  exit 3
fi
# One stack at a time: each file starts its own.
npx vitest run --config vitest.topology.config.ts --no-file-parallelism test/topology/patroni.test.ts test/topology/patroni-clients.test.ts
