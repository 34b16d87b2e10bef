"""The server's CPU per ledger API call, measured from outside: one or more `opledger` binaries
(say, this build and an older one) each serve a fresh PostgreSQL database in their own process,
a separate client process drives the write path's three calls per operation (register, begin an
attempt, record its outcome) from several threads over keep-alive connections, and the server's
user and system time from /proc, divided by the calls, is the figure. Every binary is measured in
this one run, alternately, so that they share the machine's state.

Usage: python3 benches/peers/server_cpu.py BINARY [BINARY ...] [--operations N] [--clients N]
Needs `psql` and PostgreSQL at 127.0.0.1:5432 (user postgres, trust), as the tests do.
"""

import argparse
import http.client
import json
import os
import socket
import statistics
import subprocess
import sys
import threading
import time
import uuid

POSTGRES = "postgres://postgres@127.0.0.1:5432"
TICKS = os.sysconf("SC_CLK_TCK")


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def cpu_seconds(pid):
    with open(f"/proc/{pid}/stat") as stat:
        fields = stat.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / TICKS


class Server:
    """One binary serving a database of its own until stopped."""

    def __init__(self, binary):
        self.database = f"cpu_{uuid.uuid4().hex[:12]}"
        subprocess.run(["psql", "-q", "-h", "127.0.0.1", "-U", "postgres", "-c", f"create database {self.database}"], check=True)
        url = f"{POSTGRES}/{self.database}"
        env = dict(os.environ, OPLEDGER_DATABASE_URL=url, OPLEDGER_API_CALLS_PER_SECOND="1000000", RUST_LOG="warn")
        subprocess.run([binary, "migrate"], env=env, check=True, capture_output=True)
        # A tenant is added before it gets a token (a binary older than `tenant add` makes it with the token).
        subprocess.run([binary, "tenant", "add", "bench"], env=env, check=False, capture_output=True)
        created = subprocess.run(
            [binary, "token", "create", "--tenant", "bench", "--name", "bench-agent"],
            env=env, check=True, capture_output=True, text=True,
        )
        self.token = created.stdout.strip().splitlines()[-1]
        self.port = free_port()
        self.process = subprocess.Popen(
            [binary, "serve", "--addr", f"127.0.0.1:{self.port}"], env=env,
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        )
        deadline = time.time() + 30
        while time.time() < deadline:
            try:
                socket.create_connection(("127.0.0.1", self.port), timeout=0.2).close()
                return
            except OSError:
                time.sleep(0.1)
        raise SystemExit(f"{binary} did not start listening on {self.port}")

    def stop(self):
        self.process.terminate()
        self.process.wait(timeout=30)
        subprocess.run(["psql", "-q", "-h", "127.0.0.1", "-U", "postgres", "-c", f"drop database {self.database}"], check=True)


def protocol(connection, token, op_id):
    headers = {"authorization": f"Bearer {token}", "content-type": "application/json"}
    calls = [
        ("/api/v1/operations", {"op_id": op_id, "kind": "refund", "subject": f"order:{op_id}", "provider": "stripe",
                                "params": {"payment_intent": "pi_bench", "amount": {"minor": 38000, "currency": "TWD"}}}),
        (f"/api/v1/operations/{op_id}/attempts", {"send_deadline_s": 15}),
        (f"/api/v1/operations/{op_id}/attempts/1/outcome",
         {"outcome": "succeeded", "external_id": f"re_{op_id}", "http_status": 200, "latency_ms": 80}),
    ]
    for path, body in calls:
        connection.request("POST", path, json.dumps(body), headers)
        response = connection.getresponse()
        text = response.read()
        if response.status >= 300:
            raise SystemExit(f"{path}: {response.status} {text[:300]!r}")


def database_cpu():
    """Seconds of CPU every PostgreSQL process on this machine has used (its backends and workers)."""
    total = 0.0
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            with open(f"/proc/{pid}/comm") as comm:
                if comm.read().strip() != "postgres":
                    continue
            total += cpu_seconds(pid)
        except OSError:
            continue
    return total


def load(server, label, operations, clients):
    """Runs `operations` operations from `clients` threads; answers the server's and the database's
    CPU ms a call and the operations a second."""
    counter = iter(range(operations))
    lock = threading.Lock()

    def client():
        connection = http.client.HTTPConnection("127.0.0.1", server.port)
        while True:
            with lock:
                n = next(counter, None)
            if n is None:
                return
            protocol(connection, server.token, f"refund-{label}-{n}-li_1")

    before, database_before, started = cpu_seconds(server.process.pid), database_cpu(), time.perf_counter()
    threads = [threading.Thread(target=client) for _ in range(clients)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    elapsed = time.perf_counter() - started
    calls = 3 * operations
    server_ms = 1000 * (cpu_seconds(server.process.pid) - before) / calls
    database_ms = 1000 * (database_cpu() - database_before) / calls
    return server_ms, database_ms, operations / elapsed


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("binaries", nargs="+")
    parser.add_argument("--operations", type=int, default=2000, help="operations per round (default 2000)")
    parser.add_argument("--clients", type=int, default=8, help="client threads (default 8)")
    parser.add_argument("--rounds", type=int, default=3, help="rounds per binary, alternating (default 3)")
    args = parser.parse_args()
    servers = [Server(binary) for binary in args.binaries]
    results = {binary: [] for binary in args.binaries}
    try:
        for index, server in enumerate(servers):
            load(server, f"w{index}", 200, args.clients)
            # The planner's statistics, as a database in service has them (autovacuum looks at a
            # new database once a minute).
            subprocess.run(["psql", "-q", "-h", "127.0.0.1", "-U", "postgres", "-d", server.database, "-c", "analyze"], check=True)
        for round_ in range(args.rounds):
            for index, (binary, server) in enumerate(zip(args.binaries, servers)):
                results[binary].append(load(server, f"r{round_}b{index}", args.operations, args.clients))
    finally:
        for server in servers:
            server.stop()
    print(f"{args.clients} client threads, {args.operations} operations a round, medians of {args.rounds} rounds")
    print("| binary | server CPU a call | PostgreSQL's CPU a call | operations a second |")
    print("|---|---|---|---|")
    for binary, rounds in results.items():
        server_ms, database_ms, rate = (statistics.median(r[i] for r in rounds) for i in range(3))
        print(f"| {binary} | {server_ms:.3f} ms | {database_ms:.3f} ms | {rate:.0f} |")


if __name__ == "__main__":
    sys.exit(main())
