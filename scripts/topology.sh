#!/usr/bin/env bash
# npm run test:topology: the core behind PgBouncer in transaction mode, and a failover between two hosts, on the
# machine's PostgreSQL (DATABASE_URL, default postgresql://postgres@127.0.0.1:5432/postgres), loopback only.
# Exit 3 with a plain line when PgBouncer is not installed and cannot be.
set -euo pipefail
cd "$(dirname "$0")/.."

if ! command -v pgbouncer >/dev/null && [ ! -x /usr/sbin/pgbouncer ]; then
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
    DEBIAN_FRONTEND=noninteractive apt-get install -y -q pgbouncer >/dev/null 2>&1 ||
      (apt-get update -q >/dev/null 2>&1 && DEBIAN_FRONTEND=noninteractive apt-get install -y -q pgbouncer >/dev/null 2>&1) || true
  fi
fi
if ! command -v pgbouncer >/dev/null && [ ! -x /usr/sbin/pgbouncer ]; then
  echo "topology: NOT CHECKED: the Debian package pgbouncer is not installed and cannot be installed here"
  exit 3
fi

exec npx vitest run --config vitest.topology.config.ts "$@"
