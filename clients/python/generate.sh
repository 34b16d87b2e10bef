#!/usr/bin/env bash
# Regenerates clients/python/src/opledger/_api from clients/openapi.json with openapi-python-client
# 0.29.1 and ruff 0.17.6, which tidies its output (settings in openapi-python-client.yaml).
#
#   clients/python/generate.sh [--check] [PYTHON]
#
# PYTHON is an interpreter that has both installed (ruff next to it); without one, a venv is made
# under target/ and both are installed there from PyPI. With --check nothing is written:
# the code is generated into a temporary directory and compared with the checked-in code, and the
# script fails when they differ.
set -euo pipefail

VERSION=0.29.1
RUFF=0.17.6
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
repo="$(cd "$here/../.." && pwd)"
spec="$repo/clients/openapi.json"
package="$here/src/opledger/_api"

check=false
python=""
for arg in "$@"; do
    case "$arg" in
        --check) check=true ;;
        -h | --help) sed -n '2,10p' "$0"; exit 0 ;;
        *) python="$arg" ;;
    esac
done

if [[ -z "$python" ]]; then
    venv="$repo/target/openapi-python-client-$VERSION-ruff-$RUFF"
    if [[ ! -x "$venv/bin/python" ]]; then
        python3 -m venv "$venv"
        "$venv/bin/pip" install --quiet "openapi-python-client==$VERSION" "ruff==$RUFF"
    fi
    python="$venv/bin/python"
fi

export PATH="$(dirname "$python"):$PATH"
found="$("$python" -c 'import importlib.metadata as m; print(m.version("openapi-python-client"))')"
ruff_found="$(ruff --version 2>/dev/null || true)"
if [[ "$found" != "$VERSION" || "$ruff_found" != "ruff $RUFF" ]]; then
    echo "generate.sh: $python has openapi-python-client $found and ${ruff_found:-no ruff}; $VERSION and ruff $RUFF are needed" >&2
    exit 1
fi

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
(
    cd "$work"
    "$python" -m openapi_python_client generate --path "$spec" --config "$here/openapi-python-client.yaml" \
        --meta none --output-path "$work/_api" --fail-on-warning >"$work/log" 2>&1 || { cat "$work/log" >&2; exit 1; }
)
find "$work/_api" -name __pycache__ -prune -exec rm -rf {} +

if $check; then
    if ! diff -r -x __pycache__ "$package" "$work/_api"; then
        echo "generate.sh: src/opledger/_api differs from what clients/openapi.json generates; run clients/python/generate.sh" >&2
        exit 1
    fi
    echo "generate.sh: src/opledger/_api matches clients/openapi.json"
else
    rm -rf "$package"
    cp -r "$work/_api" "$package"
    echo "generate.sh: wrote $package"
fi
