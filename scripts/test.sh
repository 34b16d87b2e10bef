#!/usr/bin/env bash
# Runs every test of opledger: unit and property tests, integration tests on SQLite and
# PostgreSQL, and end-to-end tests in Chromium. With CI=true, a suite that cannot run fails the run.
set -euo pipefail
cd "$(dirname "$0")/.."

step() { printf '\n==> %s\n' "$*"; }
in_ci() { [ "${CI:-}" = "true" ] || [ "${CI:-}" = "1" ]; }

scripts/setup.sh --e2e

# The PostgreSQL tests create and drop one database per test at OPLEDGER_TEST_POSTGRES_URL
# (default: postgres://postgres@127.0.0.1:5432/postgres).
postgres_url=${OPLEDGER_TEST_POSTGRES_URL:-postgres://postgres@127.0.0.1:5432/postgres}
postgres_ready() { psql "$postgres_url" -Atqc 'select 1' >/dev/null 2>&1; }
if ! postgres_ready && command -v pg_ctlcluster >/dev/null && [ -d /etc/postgresql ]; then
  step "Starting the local PostgreSQL cluster"
  for version in /etc/postgresql/*; do
    pg_ctlcluster --skip-systemctl-redirect "$(basename "$version")" main start || true
  done
  for _ in $(seq 1 30); do postgres_ready && break; sleep 1; done
fi
if ! postgres_ready; then
  if in_ci; then
    echo "error: PostgreSQL is required in CI, and $postgres_url does not answer" >&2
    exit 1
  fi
  echo "warning: no PostgreSQL at $postgres_url: its tests will print SKIPPED and pass" >&2
fi

# Independent clients the tests talk to the sandbox with, in a virtual environment of their own.
clients=target/test-clients
requirements_hash=$(sha256sum tests/clients/requirements.txt | cut -d' ' -f1)
if [ "$(cat "$clients/.opledger-requirements-hash" 2>/dev/null)" != "$requirements_hash" ]; then
  step "Installing the Python test clients (tests/clients/requirements.txt)"
  rm -rf "$clients"
  python3 -m venv "$clients"
  "$clients/bin/pip" install --quiet --disable-pip-version-check -r tests/clients/requirements.txt
  echo "$requirements_hash" > "$clients/.opledger-requirements-hash"
fi
export OPLEDGER_TEST_PYTHON="$PWD/$clients/bin/python"

step "Direction of dependencies in src/ (no import circles, no room using a room above it)"
python3 scripts/check_layers.py

step "Unit, property and integration tests (SQLite and PostgreSQL)"
cargo test --locked --features ssr

step "Kill -9 test: serve killed at random moments under agents and faults (scripts/chaos.sh, short)"
chaos_engines=sqlite
if postgres_ready; then
  chaos_engines=sqlite,postgres,postgres-pair
else
  echo "warning: no PostgreSQL at $postgres_url: the kill -9 test runs on SQLite only" >&2
fi
scripts/chaos.sh --kills 4 --engines "$chaos_engines"

step "Building the console for the end-to-end tests"
cargo leptos build

step "End-to-end tests in Chromium"
(cd end2end && npx playwright test)
