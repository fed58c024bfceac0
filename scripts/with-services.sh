#!/usr/bin/env bash
# Run a command with throwaway PostgreSQL and Redis servers (scripts/services.sh):
#
#   scripts/with-services.sh .venv/bin/pytest tests/stores
#
# Exports CHATFOLD_TEST_POSTGRES_URL and CHATFOLD_TEST_REDIS_URL, runs the command, and exits
# with its exit code. When `scripts/services.sh start` already runs servers, they are used and
# left running; otherwise this run starts its own, in .services/run.<pid>/ (so parallel runs do
# not stop each other's servers), and stops them on exit.
set -euo pipefail

[ "$#" -gt 0 ] || { echo "usage: $0 COMMAND [ARGS...]" >&2; exit 1; }
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
services="$here/services.sh"

if "$services" status; then
    eval "$("$services" env)"
else
    export CHATFOLD_SERVICES_DIR="${CHATFOLD_SERVICES_DIR:-$(dirname "$here")/.services}/run.$$"
    trap '"$services" stop >/dev/null 2>&1 || true; rmdir "$(dirname "$CHATFOLD_SERVICES_DIR")" 2>/dev/null || true' EXIT
    trap 'exit 130' INT
    trap 'exit 143' TERM
    eval "$("$services" start)"
fi
export CHATFOLD_TEST_POSTGRES_URL CHATFOLD_TEST_REDIS_URL

set +e
"$@"
rc=$?
set -e
exit "$rc"
