#!/usr/bin/env python3
"""Start-up smoke test of a built opledger: serves `opledger serve --demo` on a free loopback port
with a new SQLite file, checks that `GET /` answers with the console and that the page names the
browser bundle by its hashed names (`/pkg/opledger.<hash>.js`, `.wasm`, `.css`), downloads each of
them (the wasm must be a WebAssembly module), then stops the server with SIGTERM and expects it to
exit cleanly. Exits 1 with the reason when any step fails. Standard library only.

    python3 scripts/smoke.py --binary target/release/opledger --site-root target/site
"""

import argparse
import os
import re
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request

START_TIMEOUT_S = 60
STOP_TIMEOUT_S = 20
HASHED = re.compile(r"/pkg/opledger\.([A-Za-z0-9_-]+)\.(js|wasm|css)\b")


def free_port():
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def get(url):
    with urllib.request.urlopen(url, timeout=10) as response:
        return response.status, response.headers, response.read()


def fail(reason, log_path=None):
    print(f"smoke: FAILED: {reason}", file=sys.stderr)
    if log_path and os.path.exists(log_path):
        with open(log_path, encoding="utf-8", errors="replace") as log:
            tail = log.read()[-3000:]
        print(f"--- the server's log (last lines) ---\n{tail}", file=sys.stderr)
    sys.exit(1)


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--binary", required=True, help="the opledger binary to start")
    parser.add_argument("--site-root", required=True, help="the built browser bundle (target/site)")
    args = parser.parse_args()

    work = tempfile.mkdtemp(prefix="opledger-smoke-")
    log_path = os.path.join(work, "serve.log")
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    env = dict(os.environ, OPLEDGER_SECRET_KEY="5a" * 32)
    command = [
        args.binary, "serve", "--demo",
        "--addr", f"127.0.0.1:{port}",
        "--database-url", f"sqlite://{work}/smoke.db",
        "--site-root", args.site_root,
    ]
    print(f"smoke: {' '.join(command)}")
    with open(log_path, "w") as log:
        server = subprocess.Popen(command, stdout=log, stderr=subprocess.STDOUT, env=env)
    try:
        started = time.monotonic()
        while True:
            if server.poll() is not None:
                fail(f"the server exited with {server.returncode} before it answered", log_path)
            try:
                if get(f"{base}/healthz")[0] == 200:
                    break
            except (urllib.error.URLError, OSError):
                pass
            if time.monotonic() - started > START_TIMEOUT_S:
                fail(f"no answer on {base}/healthz within {START_TIMEOUT_S} s", log_path)
            time.sleep(0.2)
        print(f"smoke: serving after {time.monotonic() - started:.1f} s")

        status, _, body = get(f"{base}/")
        page = body.decode("utf-8", errors="replace")
        if status != 200 or "opledger" not in page:
            fail(f"GET / answered {status} without the console", log_path)
        named = {kind: f"/pkg/opledger.{digest}.{kind}" for digest, kind in HASHED.findall(page)}
        for kind in ("js", "wasm", "css"):
            if kind not in named:
                fail(f"GET / names no hashed {kind} file (/pkg/opledger.<hash>.{kind})", log_path)
        for kind, path in sorted(named.items()):
            status, headers, content = get(f"{base}{path}")
            if status != 200 or not content:
                fail(f"{path} answered {status} with {len(content)} bytes", log_path)
            if kind == "wasm" and not content.startswith(b"\0asm"):
                fail(f"{path} is not a WebAssembly module", log_path)
            print(f"smoke: {path}: {len(content)} bytes, {headers.get('content-type')}")
    finally:
        if server.poll() is None:
            server.send_signal(signal.SIGTERM)
            try:
                server.wait(timeout=STOP_TIMEOUT_S)
            except subprocess.TimeoutExpired:
                server.kill()
                fail(f"the server did not stop within {STOP_TIMEOUT_S} s of SIGTERM", log_path)
    if server.returncode != 0:
        fail(f"the server exited with {server.returncode} after SIGTERM", log_path)
    print("smoke: the release server served the console and its bundle, and stopped")


if __name__ == "__main__":
    main()
