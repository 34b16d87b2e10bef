#!/usr/bin/env bash
# Runs every test of opledger: unit and property tests, integration tests on SQLite and
# PostgreSQL (debug build), then the release build the run command serves, a start-up smoke test of
# it, the agent clients (generated without drift, the OpenAPI contract, their tests and examples),
# the kill -9 test and the end-to-end tests in Chromium against it. With CI=true, a suite that
# cannot run fails the run.
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

# The OpenID provider the sign-in tests run (panva's oidc-provider, on the Node 22 it needs, both from
# npm): installed from its lock file; in CI the tests fail without it rather than skip.
oidc_hash=$(sha256sum tests/oidc/package-lock.json | cut -d' ' -f1)
if [ "$(cat tests/oidc/node_modules/.opledger-lock-hash 2>/dev/null)" != "$oidc_hash" ]; then
  step "Installing the OpenID provider for the sign-in tests (tests/oidc)"
  (cd tests/oidc && npm ci --no-fund --no-audit)
  echo "$oidc_hash" > tests/oidc/node_modules/.opledger-lock-hash
fi

# ECPay's official Node client (ecpay_aio_nodejs), which drives the ECPay sandbox in the tests, on
# the Node of the PATH: installed from its lock file; in CI the test fails without it rather than skip.
ecpay_hash=$(sha256sum tests/ecpay/package-lock.json | cut -d' ' -f1)
if [ "$(cat tests/ecpay/node_modules/.opledger-lock-hash 2>/dev/null)" != "$ecpay_hash" ]; then
  step "Installing ECPay's Node client for the ECPay tests (tests/ecpay)"
  (cd tests/ecpay && npm ci --no-fund --no-audit)
  echo "$ecpay_hash" > tests/ecpay/node_modules/.opledger-lock-hash
fi

# The agent clients' virtual environment: the Python client (clients/python, installed as a user
# installs it) with its test requirements and the agent frameworks of its examples; and the
# TypeScript client's npm packages, from its lock file.
agents=target/agent-clients
agents_hash=$(cat clients/python/requirements-test.txt clients/python/examples/requirements.txt clients/python/pyproject.toml | sha256sum | cut -d' ' -f1)
if [ "$(cat "$agents/.opledger-requirements-hash" 2>/dev/null)" != "$agents_hash" ]; then
  step "Installing the agent clients' test environment (clients/python and its requirements)"
  rm -rf "$agents"
  python3 -m venv "$agents"
  "$agents/bin/pip" install --quiet --disable-pip-version-check ./clients/python \
    -r clients/python/requirements-test.txt -r clients/python/examples/requirements.txt
  echo "$agents_hash" > "$agents/.opledger-requirements-hash"
fi
# The client itself is installed again on every run, so that its tests run the code of this tree.
"$agents/bin/pip" install --quiet --disable-pip-version-check --no-deps --force-reinstall ./clients/python
ts_hash=$(sha256sum clients/typescript/package-lock.json | cut -d' ' -f1)
if [ "$(cat clients/typescript/node_modules/.opledger-lock-hash 2>/dev/null)" != "$ts_hash" ]; then
  step "Installing the TypeScript client's packages (clients/typescript)"
  (cd clients/typescript && npm ci --no-fund --no-audit)
  echo "$ts_hash" > clients/typescript/node_modules/.opledger-lock-hash
fi

step "Direction of dependencies in src/ (no import circles, no room using a room above it)"
python3 scripts/check_layers.py

step "Unit, property and integration tests (SQLite and PostgreSQL)"
cargo test --locked --features ssr

# The benches are run by hand (scripts/bench.sh); compiling them here keeps them from breaking unseen.
step "The benches compile (scripts/bench.sh runs them)"
cargo check --locked --features ssr --benches

# What users run: the release build of the run command (server and hashed browser bundle), which a
# debug build does not prove (the browser bundle's release profile alone can fail to compile).
step "Building the release bundle, as the run command does (cargo leptos build --release)"
cargo leptos build --release

step "Start-up smoke test: the release server serves / and its hashed bundle with --demo, then stops"
python3 scripts/smoke.py --binary target/release/opledger --site-root target/site

step "The clients are generated from the OpenAPI document the release server prints, with no drift (scripts/generate_clients.sh --check)"
scripts/generate_clients.sh --check --binary target/release/opledger --python "$agents/bin/python"

step "Agent clients against the release server: the OpenAPI contract (schemathesis), the Python client with the DBOS example killed mid-send and the Temporal example (on SQLite and PostgreSQL), the TypeScript client and its example (scripts/agent_clients.py)"
python3 scripts/agent_clients.py --binary target/release/opledger --python "$agents/bin/python"

step "Kill -9 test: the release server killed at random moments under agents and faults (scripts/chaos.sh, short)"
chaos_engines=sqlite
if postgres_ready; then
  chaos_engines=sqlite,postgres,postgres-pair
else
  echo "warning: no PostgreSQL at $postgres_url: the kill -9 test runs on SQLite only" >&2
fi
scripts/chaos.sh --binary target/release/opledger --kills 4 --engines "$chaos_engines"

step "End-to-end tests in Chromium against the release server and bundle"
(cd end2end && OPLEDGER_E2E_BIN=../target/release/opledger npx playwright test)
