#!/usr/bin/env bash
# Install JDK 17 and Maven (Debian packages) for the test run's Neo4j (tools/neo4j/with_neo4j.py).
# Idempotent; does nothing when java and mvn are already on PATH. Needs root (or sudo) and apt-get.
set -euo pipefail
if command -v java >/dev/null && command -v mvn >/dev/null; then
  exit 0
fi
if ! command -v apt-get >/dev/null; then
  echo "install_jdk_maven: apt-get not found; install JDK 17 and Maven 3.8+ another way" >&2
  exit 1
fi
sudo=""
if [ "$(id -u)" -ne 0 ]; then
  sudo="sudo"
fi
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -qq
$sudo apt-get install -y -qq --no-install-recommends openjdk-17-jdk-headless maven >/dev/null
java -version 2>&1 | head -n 1
