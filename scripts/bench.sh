#!/usr/bin/env bash
# Measures, on SQLite and, when it answers at OPLEDGER_TEST_POSTGRES_URL (default
# postgres://postgres@127.0.0.1:5432/postgres), PostgreSQL: the console's pages (overview, orders,
# the list with every filter alone and two at once, the searches) at 5,000,000 operations, the
# streamed audit export at a million events (time, rows per second, the server's memory, the
# command line's export, sqlite3 -json on the same rows), reconcile passes settling 10,000
# unknown operations against the sandbox, and the write path (the three-step protocol through the
# ledger API, beside the same rows written straight to the engine, and beside DBOS Transact doing
# the same three steps on the same PostgreSQL, installed from PyPI in target/bench-venv). Prints
# Markdown tables; BENCHMARKS.md records a run. Also the console's first visit on an emulated
# slow 4G phone (the release build in Debian's Chromium). And retention at scale: every console page,
# the write path beside its floor and the sweep's rows a second at tens of millions of operations
# (OPLEDGER_BENCH_POSTGRES_OPERATIONS, OPLEDGER_BENCH_SQLITE_OPERATIONS; OPLEDGER_BENCH_KEEP=1 keeps
# the filled databases for the next run). And what checking an archive file against its signed
# manifest costs an archived operation's page. Pass a bench's name (operations_list, audit_export,
# reconcile_unknowns, write_path, retention, archive_reads or first_visit) to run only that one.
set -euo pipefail
cd "$(dirname "$0")/.."

write_path() {
  cargo bench --locked --features ssr --bench write_path
  if [ ! -x target/bench-venv/bin/python ]; then
    python3 -m venv target/bench-venv
  fi
  target/bench-venv/bin/pip install --quiet --disable-pip-version-check -r benches/peers/requirements.txt
  target/bench-venv/bin/python benches/peers/dbos_write_path.py 2> target/bench-dbos.log \
    || { echo "the DBOS peer failed; its log is target/bench-dbos.log" >&2; exit 1; }
}

first_visit() {
  scripts/setup.sh --e2e
  cargo leptos build --release
  (cd end2end && npx playwright test --config bench.config.ts)
}

case "${1:-all}" in
  write_path) write_path ;;
  first_visit) first_visit ;;
  all)
    cargo bench --locked --features ssr --bench operations_list
    cargo bench --locked --features ssr --bench audit_export
    cargo bench --locked --features ssr --bench reconcile_unknowns
    write_path
    cargo bench --locked --features ssr --bench retention
    cargo bench --locked --features ssr --bench archive_reads
    first_visit
    ;;
  *) exec cargo bench --locked --features ssr --bench "$1" ;;
esac
