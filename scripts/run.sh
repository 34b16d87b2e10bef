#!/usr/bin/env bash
# Builds opledger (release) and serves the console at http://127.0.0.1:3000 on the SQLite file
# opledger.db, with the sandbox provider mounted at /sandbox and the demo tenant seeded (its API
# token is in the log). Arguments are passed to `opledger serve` (see `--help`).
set -euo pipefail
cd "$(dirname "$0")/.."

scripts/setup.sh
printf '\n==> Building opledger (release)\n'
cargo leptos build --release
exec target/release/opledger serve --site-root target/site --demo "$@"
