#!/usr/bin/env bash
# Installs the headless browser the browser test drives: Debian's chromium (playwright-core, an npm devDependency,
# only drives it and downloads nothing). Idempotent. Without apt (not a Debian-like machine) it says so and exits 0;
# the browser test then skips with the same reason.
set -euo pipefail

if command -v chromium >/dev/null 2>&1; then
  echo "install-browser: $(chromium --version 2>/dev/null || echo chromium) already installed"
  exit 0
fi
if ! command -v apt-get >/dev/null 2>&1; then
  echo "install-browser: apt-get is not available here; the browser test will be skipped (install chromium by hand)"
  exit 0
fi
sudo=""
if [ "$(id -u)" -ne 0 ]; then sudo="sudo"; fi
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -qq
$sudo apt-get install -y -qq --no-install-recommends chromium >/dev/null
echo "install-browser: $(chromium --version)"
