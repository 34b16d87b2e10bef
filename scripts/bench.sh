#!/usr/bin/env bash
# Measures the console's operations list at a million operations on SQLite and, when it answers at
# OPLEDGER_TEST_POSTGRES_URL (default postgres://postgres@127.0.0.1:5432/postgres), PostgreSQL.
# Prints a Markdown table of medians; BENCHMARKS.md records a run.
set -euo pipefail
cd "$(dirname "$0")/.."
exec cargo bench --locked --features ssr --bench operations_list
