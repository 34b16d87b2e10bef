#!/usr/bin/env bash
# Generates what the agent clients take from the ledger API's OpenAPI document: the document itself
# (clients/openapi.json, printed by `opledger openapi`), the Python client's models and endpoints
# (clients/python/src/opledger/_api, openapi-python-client) and the TypeScript client's types
# (clients/typescript/src/schema.d.ts, openapi-typescript). With --check it writes nothing and fails
# when any of them differs from what the server's document gives: the clients cannot drift.
#
#   scripts/generate_clients.sh [--check] [--binary target/release/opledger] [--python PYTHON]
#
# PYTHON has openapi-python-client installed (scripts/test.sh makes target/agent-clients); the
# TypeScript client's packages must be installed (npm ci in clients/typescript).
set -euo pipefail
cd "$(dirname "$0")/.."

check=false
binary=target/release/opledger
python=target/agent-clients/bin/python
while [ $# -gt 0 ]; do
  case "$1" in
    --check) check=true; shift ;;
    --binary) binary=$2; shift 2 ;;
    --python) python=$2; shift 2 ;;
    -h|--help) sed -n '2,12p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "error: unknown argument $1 (see --help)" >&2; exit 2 ;;
  esac
done

# The interpreter by its absolute path (not resolved: a virtual environment's python is a link).
python="$(cd "$(dirname "$python")" && pwd)/$(basename "$python")"
document=$(mktemp)
trap 'rm -f "$document"' EXIT
"$binary" openapi > "$document"
if $check; then
  if ! diff -u clients/openapi.json "$document"; then
    echo "error: clients/openapi.json differs from the server's document; run scripts/generate_clients.sh" >&2
    exit 1
  fi
  clients/python/generate.sh --check "$python"
  (cd clients/typescript && npm run --silent check-generated)
  echo "The clients match the server's OpenAPI document."
else
  cp "$document" clients/openapi.json
  clients/python/generate.sh "$python"
  (cd clients/typescript && npm run --silent generate)
  echo "Generated clients/openapi.json, the Python client's models and the TypeScript client's types."
fi
