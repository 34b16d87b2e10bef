#!/usr/bin/env bash
# The kill -9 test: builds the server (debug; --release as the first argument for a release build;
# --binary PATH to run a server built already, without building), then runs scripts/chaos.py with
# the other arguments (see `scripts/chaos.sh --help`).
set -euo pipefail
cd "$(dirname "$0")/.."
profile=debug
cargo_flags=()
if [ "${1:-}" = "--release" ]; then
  profile=release
  cargo_flags=(--release)
  shift
fi
if [ "${1:-}" = "--help" ] || [ "${1:-}" = "-h" ]; then
  exec python3 scripts/chaos.py --help
fi
if [ "${1:-}" = "--binary" ]; then
  binary=$2
  shift 2
else
  cargo build --locked --features ssr --bin opledger "${cargo_flags[@]}"
  binary="target/$profile/opledger"
fi
exec python3 scripts/chaos.py --binary "$binary" "$@"
