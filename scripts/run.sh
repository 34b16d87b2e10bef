#!/usr/bin/env bash
# Builds opledger (release) and serves the console at http://127.0.0.1:3000 on the SQLite file
# opledger.db, with the sandbox provider mounted at /sandbox and the demo tenant seeded (its API
# token is in the log). Arguments are passed to `opledger serve` (see `--help`).
set -euo pipefail
cd "$(dirname "$0")/.."

scripts/setup.sh
# The key that seals tenants' provider secrets: made once for this folder's database and kept
# beside it (the demo's second tenant has an account of its own). Set OPLEDGER_SECRET_KEY to use yours.
if [ -z "${OPLEDGER_SECRET_KEY:-}" ]; then
  if [ ! -s .opledger-secret-key ]; then
    (umask 077 && od -An -N32 -tx1 /dev/urandom | tr -d ' \n' > .opledger-secret-key)
  fi
  OPLEDGER_SECRET_KEY=$(cat .opledger-secret-key)
  export OPLEDGER_SECRET_KEY
fi

printf '\n==> Building opledger (release)\n'
cargo leptos build --release
exec target/release/opledger serve --site-root target/site --demo "$@"
