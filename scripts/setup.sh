#!/usr/bin/env bash
# Installs what building opledger needs, skipping whatever is already present at the right version:
# the wasm32 target, cargo-leptos, wasm-bindgen-cli (the version in Cargo.lock), sass and wasm-opt.
# With --e2e, also Debian's Chromium and the npm packages of end2end/.
set -euo pipefail
cd "$(dirname "$0")/.."

CARGO_LEPTOS_VERSION=0.3.10
WASM_BINDGEN_VERSION=$(awk '$0 == "name = \"wasm-bindgen\"" { getline; gsub(/version = |"/, ""); print; exit }' Cargo.lock)

step() { printf '\n==> %s\n' "$*"; }
as_root() { if [ "$(id -u)" -eq 0 ]; then "$@"; else sudo "$@"; fi; }

if ! rustup target list --installed | grep -qx wasm32-unknown-unknown; then
  step "Adding the wasm32-unknown-unknown target"
  rustup target add wasm32-unknown-unknown
fi

if [ "$(cargo leptos --version 2>/dev/null | awk '{print $2}')" != "$CARGO_LEPTOS_VERSION" ]; then
  step "Installing cargo-leptos $CARGO_LEPTOS_VERSION (compiles once, 15 to 20 minutes)"
  cargo install cargo-leptos --version "$CARGO_LEPTOS_VERSION" --locked --features no_downloads
fi

if [ "$(wasm-bindgen --version 2>/dev/null | awk '{print $2}')" != "$WASM_BINDGEN_VERSION" ]; then
  step "Installing wasm-bindgen-cli $WASM_BINDGEN_VERSION (matches the wasm-bindgen crate in Cargo.lock)"
  cargo install wasm-bindgen-cli --version "$WASM_BINDGEN_VERSION" --force
fi

if ! command -v sass >/dev/null; then
  step "Installing sass"
  npm install --global --no-fund --no-audit sass
fi

if ! command -v wasm-opt >/dev/null; then
  step "Installing wasm-opt (binaryen)"
  npm install --global --no-fund --no-audit binaryen
fi

if [ "${1:-}" = "--e2e" ]; then
  if [ ! -x /usr/bin/chromium ]; then
    step "Installing Chromium from Debian's packages"
    as_root apt-get update
    as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y chromium
  fi
  # The pages are photographed in Chinese too; without a CJK font they would show empty boxes.
  if [ ! -d /usr/share/fonts/opentype/noto ] || ! ls /usr/share/fonts/opentype/noto | grep -q CJK; then
    step "Installing Noto CJK fonts from Debian's packages"
    as_root apt-get update
    as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y fonts-noto-cjk
  fi
  lock_hash=$(sha256sum end2end/package-lock.json | cut -d' ' -f1)
  if [ "$(cat end2end/node_modules/.opledger-lock-hash 2>/dev/null)" != "$lock_hash" ]; then
    step "Installing the end-to-end test packages"
    (cd end2end && PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1 npm ci --no-fund --no-audit)
    echo "$lock_hash" > end2end/node_modules/.opledger-lock-hash
  fi
fi
