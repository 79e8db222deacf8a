#!/usr/bin/env bash
# Checks the alert rules under ops/ with promtool: `promtool check rules` and `promtool test rules`. Uses promtool from
# the PATH, or takes it from Debian's prometheus package without installing the package (no service is started).
# Exit 0: checked (or skipped, with a plain message, where neither is possible); 1: a rule or its test failed.
set -euo pipefail
cd "$(dirname "$0")/.."

promtool=$(command -v promtool || true)
if [[ -z $promtool ]]; then
  work=$(mktemp -d)
  trap 'rm -rf "$work"' EXIT
  if (cd "$work" && apt-get download prometheus >/dev/null 2>&1) && dpkg -x "$work"/prometheus_*.deb "$work/x"; then
    promtool=$work/x/usr/bin/promtool
  else
    echo "ops: NOT CHECKED: promtool is not installed and Debian's prometheus package cannot be downloaded here"
    exit 0
  fi
fi
"$promtool" check rules ops/prometheus/alerts.yml
(cd ops/prometheus && "$promtool" test rules alerts.test.yml)
