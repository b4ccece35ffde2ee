#!/usr/bin/env bash
# Install the real Claude Code CLI (npm, pinned) into .cache/claude-code for tests/claude/.
# Idempotent: reuses the cache when the pinned version is already there. Exit 1 when npm is missing or
# the registry cannot be reached; the real-client tests then skip, naming this script.
set -euo pipefail
version="${CLAUDE_CODE_VERSION:-2.1.332}"
root="$(cd "$(dirname "$0")/.." && pwd)"
dest="$root/.cache/claude-code"
bin="$dest/node_modules/.bin/claude"
if [ -x "$bin" ] && [ "$(cat "$dest/.version" 2>/dev/null)" = "$version" ]; then
  exit 0
fi
if ! command -v npm >/dev/null; then
  echo "install_claude_code: npm not found; install Node.js 18+ to run the real-client tests" >&2
  exit 1
fi
mkdir -p "$dest"
cd "$dest"
[ -f package.json ] || printf '{"name":"reporecall-claude-code-cache","private":true}\n' >package.json
npm install --no-audit --no-fund --loglevel=error "@anthropic-ai/claude-code@$version" >/dev/null
"$bin" --version >/dev/null
printf '%s' "$version" >.version
"$bin" --version
