#!/usr/bin/env bash
# Install Debian's prometheus package (the `prometheus` and `promtool` binaries) for tests/deploy/.
# Idempotent; does nothing when both are already on PATH. Needs root (or sudo) and apt-get.
# The package's systemd unit is not started: tests run their own Prometheus on a free port.
set -euo pipefail
if command -v prometheus >/dev/null && command -v promtool >/dev/null; then
  exit 0
fi
if ! command -v apt-get >/dev/null; then
  echo "install_prometheus: apt-get not found; install prometheus and promtool another way" >&2
  exit 1
fi
sudo=""
if [ "$(id -u)" -ne 0 ]; then
  sudo="sudo"
fi
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -qq
$sudo apt-get install -y -qq --no-install-recommends prometheus >/dev/null
prometheus --version 2>&1 | head -n 1
