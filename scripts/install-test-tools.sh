#!/usr/bin/env bash
# Installs the Debian packages the tests use beside npm's: chromium (the browser test; playwright-core only drives
# it) and whois (its mkpasswd, libxcrypt's SHA-crypt, an independent implementation the hash tests compare with).
# Idempotent. Without apt (not a Debian-like machine) it says so and exits 0; the tests needing them then skip.
set -euo pipefail

declare -A wanted=([chromium]=chromium [mkpasswd]=whois)
missing=()
for command in "${!wanted[@]}"; do
  command -v "$command" >/dev/null 2>&1 || missing+=("${wanted[$command]}")
done
if [ ${#missing[@]} -eq 0 ]; then
  echo "install-test-tools: chromium and mkpasswd already installed"
  exit 0
fi
if ! command -v apt-get >/dev/null 2>&1; then
  echo "install-test-tools: apt-get is not available here; install ${missing[*]} by hand or the tests needing them skip"
  exit 0
fi
sudo=""
if [ "$(id -u)" -ne 0 ]; then sudo="sudo"; fi
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -qq
$sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
echo "install-test-tools: installed ${missing[*]}"
