#!/usr/bin/env bash
# Checks the alert rules and the dashboard under ops/ with Prometheus's own tools: `promtool check rules` and
# `promtool test rules`, then every dashboard and alert query run by a real Prometheus on loopback scraping a core
# after a small migration (test/metrics/ops-prometheus.test.ts). Uses promtool and prometheus from the PATH, or takes
# them from Debian's prometheus package without installing the package (no service is started).
# Exit 0: checked (or skipped, with a plain message, where neither is possible); 1: a rule, its test or a query failed.
set -euo pipefail
cd "$(dirname "$0")/.."

promtool=$(command -v promtool || true)
prometheus=$(command -v prometheus || true)
if [[ -z $promtool || -z $prometheus ]]; then
  work=$(mktemp -d)
  trap 'rm -rf "$work"' EXIT
  if (cd "$work" && apt-get download prometheus >/dev/null 2>&1) && dpkg -x "$work"/prometheus_*.deb "$work/x"; then
    promtool=$work/x/usr/bin/promtool
    prometheus=$work/x/usr/bin/prometheus
  else
    echo "ops: NOT CHECKED: promtool and prometheus are not installed and Debian's prometheus package cannot be downloaded here"
    exit 0
  fi
fi
"$promtool" check rules ops/prometheus/alerts.yml
(cd ops/prometheus && "$promtool" test rules alerts.test.yml)
PROMETHEUS=$prometheus npx vitest run --reporter=default test/metrics/ops-prometheus.test.ts
