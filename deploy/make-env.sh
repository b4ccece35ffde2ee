#!/usr/bin/env bash
# Create the stack's .env from .env.example with every "change-me" secret replaced by a random one.
#   deploy/make-env.sh [PATH]     # default: .env beside docker-compose.yml
# An existing file is left untouched (rotate a secret by editing it; see deploy/README.md).
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
target="${1:-$root/.env}"
if [ -e "$target" ]; then
  echo "make-env: $target exists; left untouched" >&2
  exit 0
fi
random_secret() { head -c 32 /dev/urandom | od -An -tx1 | tr -d ' \n'; }
umask 077
tmp="$(mktemp "$target.XXXXXX")"
while IFS= read -r line || [ -n "$line" ]; do
  case "$line" in
    [A-Z]*=change-me*) printf '%s=%s\n' "${line%%=*}" "$(random_secret)" ;;
    *) printf '%s\n' "$line" ;;
  esac
done < "$root/.env.example" > "$tmp"
mv "$tmp" "$target"
echo "make-env: wrote $target (mode 600); keep it out of version control" >&2
