#!/usr/bin/env python3
"""The agent clients' suites against a real server: starts a Stripe sandbox and `opledger serve`
(the binary given, on a fresh SQLite file, its reconciler every second) with a tenant `shop` whose
refunds go to the sandbox and whose e-mail goes to a mail sandbox, a token for it with every scope,
one for a second tenant, and two console users of `shop` made with `opledger user add` (an admin,
who adds approval rules, and a manager, who approves; neither is the token, the requester), then
runs:

  contract    schemathesis against GET /api/v1/openapi.json with the token: fails on any 5xx, any
              status, header or body the document does not describe, and any 2xx to input the
              document calls invalid; then the same document is checked against the other
              tenant's token, which must see none of `shop`'s operations;
  python      the Python client's tests (clients/python/tests), the DBOS example killed mid-send
              and the Temporal example (test_temporal.py, on Temporal's test server from the
              venv's temporal-test-server) among them;
  typescript  the TypeScript client's tests and its examples (npm test in clients/typescript), the
              Temporal example among them, on Temporal's test server from the venv's
              temporal-test-server (named by OPLEDGER_TEMPORAL_TEST_SERVER);
  temporal-postgres
              the Temporal example's tests again, against a second sandbox and `opledger serve` on
              a fresh PostgreSQL database made with psql at --postgres-url (dropped afterwards),
              so that they pass on both of the ledger's engines.

Each suite gets the server's address in the environment: OPLEDGER_URL, OPLEDGER_TOKEN,
OPLEDGER_TENANT, OPLEDGER_STRIPE_URL and OPLEDGER_STRIPE_KEY (the sandbox, for sending refunds
the way an agent does), OPLEDGER_CONSOLE_ADMIN, OPLEDGER_CONSOLE_MANAGER and
OPLEDGER_CONSOLE_PASSWORD (the console users' names and their password, for signing in to the
console over HTTP), OPLEDGER_POSTGRES_URL and OPLEDGER_BINARY. `--python` is the interpreter
of a virtual environment with the client and its test requirements installed (scripts/test.sh
makes one in target/agent-clients). Exits 1 when a suite fails. Loopback only.
"""

import argparse
import json
import os
import shutil
import socket
import sqlite3
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.parse
import urllib.request

STRIPE_KEY = "sk_test_agent_clients"
MAIL_KEY = "re_agent_clients"
SECRET_KEY = "7c" * 32
TENANT = "shop"
OTHER_TENANT = "elsewhere"
SUITES = ("contract", "python", "typescript", "temporal-postgres")
CONSOLE_ADMIN = "policy-admin"
CONSOLE_MANAGER = "refund-manager"
CONSOLE_PASSWORD = "agent clients console password"


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def answers(url, token=None):
    request = urllib.request.Request(url, headers={"Authorization": f"Bearer {token}"} if token else {})
    try:
        with urllib.request.urlopen(request, timeout=2) as response:
            return response.status
    except urllib.error.HTTPError as error:
        return error.code
    except OSError:
        return None


def wait_for(url, what, token=None, timeout=60):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if answers(url, token) == 200:
            return
        time.sleep(0.2)
    sys.exit(f"error: {what} did not answer at {url} within {timeout} s")


def create_token(binary, database_url, tenant, name):
    subprocess.run([binary, "tenant", "add", "--database-url", database_url, tenant],
                   capture_output=True, check=True, text=True)
    created = subprocess.run([binary, "token", "create", "--database-url", database_url, "--tenant", tenant,
                              "--name", name], capture_output=True, check=True, text=True)
    return next(word for word in created.stdout.split() if word.startswith("opl_"))


class Server:
    """The Stripe sandbox and one `opledger serve` beside it, in a work folder of their own."""

    def __init__(self, binary, workdir, database_url=None):
        self.binary, self.workdir = binary, workdir
        self.processes = []
        self.stripe_url = f"http://127.0.0.1:{free_port()}"
        self.url = f"http://127.0.0.1:{free_port()}"
        self.database_url = database_url or f"sqlite://{os.path.join(workdir, 'agent-clients.db')}"

    def spawn(self, name, args, env=None):
        log = open(os.path.join(self.workdir, f"{name}.log"), "ab")
        self.processes.append(subprocess.Popen([self.binary, *args], stdout=log, stderr=log, env=env))

    def start(self):
        self.spawn("sandbox", ["sandbox", "--addr", self.stripe_url[len("http://"):], "--secret-key", STRIPE_KEY])
        mail_url, smtp_port = f"http://127.0.0.1:{free_port()}", free_port()
        self.spawn("mail", ["sandbox", "--kind", "email", "--addr", mail_url[len("http://"):],
                            "--secret-key", MAIL_KEY, "--smtp-addr", f"127.0.0.1:{smtp_port}"])
        wait_for(f"{self.stripe_url}/v1/_sandbox/ledger", "the Stripe sandbox", token=STRIPE_KEY)
        wait_for(f"{mail_url}/_sandbox/mail", "the mail sandbox", token=MAIL_KEY)
        subprocess.run([self.binary, "migrate", "--database-url", self.database_url], check=True, capture_output=True)
        self.token = create_token(self.binary, self.database_url, TENANT, "agent-clients")
        self.other_token = create_token(self.binary, self.database_url, OTHER_TENANT, "other-agent")
        for name, role in ((CONSOLE_ADMIN, "admin"), (CONSOLE_MANAGER, "manager")):
            subprocess.run([self.binary, "user", "add", "--database-url", self.database_url, "--tenant", TENANT,
                            "--name", name, "--role", role], input=f"{CONSOLE_PASSWORD}\n", check=True,
                           capture_output=True, text=True)
        self.connect_mail(smtp_port)
        site_root = os.path.join(self.workdir, "site")
        os.makedirs(site_root, exist_ok=True)
        self.spawn("serve", [
            "serve", "--database-url", self.database_url, "--addr", self.url[len("http://"):],
            "--site-root", site_root, "--stripe-base-url", self.stripe_url, "--services-base-url", self.stripe_url,
            "--stripe-secret-key", STRIPE_KEY, "--default-tenant", TENANT, "--allow-egress", "127.0.0.1",
            "--provider-timeout", "2s", "--settle-after", "2s", "--reconcile-every", "1s",
            "--api-calls-per-second", "10000",
        ], env={**os.environ, "OPLEDGER_SECRET_KEY": SECRET_KEY})
        wait_for(f"{self.url}/healthz", "opledger serve")

    def connect_mail(self, smtp_port):
        """Gives `shop` a mail server and a template, so that send_customer_email has what it needs."""
        env = {**os.environ, "OPLEDGER_SECRET_KEY": SECRET_KEY}
        common = ["--database-url", self.database_url, "--tenant", TENANT]
        subprocess.run([self.binary, "provider", "set", *common, "--allow-egress", "127.0.0.1", "--name", "email",
                        "--kind", "smtp", "--base-url", f"smtp://127.0.0.1:{smtp_port}",
                        "--account", "Shop <shop@shop.example>"],
                       input="smtp-password\n", env=env, check=True, capture_output=True, text=True)
        subprocess.run([self.binary, "template", "set", *common, "--name", "shipped",
                        "--subject", "Order {order} is on its way"],
                       input="Hello,\n\norder {order} has left our warehouse.\n", env=env, check=True,
                       capture_output=True, text=True)

    def environment(self, postgres_url):
        return {
            **os.environ,
            "OPLEDGER_URL": self.url, "OPLEDGER_TOKEN": self.token, "OPLEDGER_TENANT": TENANT,
            "OPLEDGER_STRIPE_URL": self.stripe_url, "OPLEDGER_STRIPE_KEY": STRIPE_KEY,
            "OPLEDGER_CONSOLE_ADMIN": CONSOLE_ADMIN, "OPLEDGER_CONSOLE_MANAGER": CONSOLE_MANAGER,
            "OPLEDGER_CONSOLE_PASSWORD": CONSOLE_PASSWORD,
            "OPLEDGER_POSTGRES_URL": postgres_url, "OPLEDGER_BINARY": os.path.abspath(self.binary),
        }

    def stop(self):
        for process in self.processes:
            process.terminate()
        for process in self.processes:
            try:
                process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()


def contract(server, python, env, workdir):
    """schemathesis with the checks that hold the document to the server; then the other tenant's
    token reads what `shop`'s run recorded and must find none of it."""
    schemathesis = os.path.join(os.path.dirname(python), "schemathesis")
    checks = ",".join([
        "not_a_server_error", "status_code_conformance", "content_type_conformance",
        "response_headers_conformance", "response_schema_conformance", "negative_data_rejection",
        "ignored_auth",
    ])
    report = os.path.join(workdir, "schemathesis")
    run = subprocess.run([
        schemathesis, "run", f"{server.url}/api/v1/openapi.json", "--url", server.url, "--request-timeout", "20",
        "--header", f"Authorization: Bearer {server.token}", "--checks", checks,
        "--max-examples", os.environ.get("OPLEDGER_CONTRACT_EXAMPLES", "200"), "--seed", "1043",
        "--workers", "1", "--no-color", "--report-dir", report, "--report", "junit",
    ], env={**env, "SCHEMATHESIS_HOOKS": os.path.abspath("scripts/schemathesis_hooks.py")})
    if run.returncode != 0:
        return False
    return no_leak(server)


def get_json(url, token):
    request = urllib.request.Request(url, headers={"Authorization": f"Bearer {token}"})
    try:
        with urllib.request.urlopen(request, timeout=10) as response:
            return response.status, json.load(response)
    except urllib.error.HTTPError as error:
        return error.code, json.load(error)


def no_leak(server):
    """Every operation the contract run recorded for `shop` is a 404 to the other tenant's token,
    the same answer as an op id never recorded."""
    with sqlite3.connect(server.database_url[len("sqlite://"):]) as connection:
        op_ids = [row[0] for row in connection.execute("select op_id from operations where tenant = ?", (TENANT,))]
    if not op_ids:
        print("contract: the run recorded no operation for shop, so nothing could be checked for leaks")
        return False
    never = get_json(f"{server.url}/api/v1/operations/never-recorded-op", server.other_token)
    for op_id in op_ids:
        path = f"{server.url}/api/v1/operations/{urllib.parse.quote(op_id, safe='')}"
        own, seen = get_json(path, server.token), get_json(path, server.other_token)
        if own[0] != 200 or seen != never:
            print(f"contract: {op_id} answers its own tenant {own[0]} and another tenant {seen}")
            return False
    print(f"contract: none of shop's {len(op_ids)} operations is visible to another tenant's token")
    return True


def python_suite(server, python, env, workdir):
    return subprocess.run([python, "-m", "pytest", "-q", "clients/python/tests"], env=env).returncode == 0


def typescript_suite(server, python, env, workdir):
    test_server = os.path.join(os.path.dirname(os.path.abspath(python)), "temporal-test-server")
    env = {**env, "OPLEDGER_TEMPORAL_TEST_SERVER": test_server}
    return subprocess.run(["npm", "test", "--silent"], cwd="clients/typescript", env=env).returncode == 0


def temporal_postgres_suite(server, python, env, workdir):
    """The Temporal tests against a server of their own on a fresh PostgreSQL database."""
    admin_url = env["OPLEDGER_POSTGRES_URL"]
    name = f"opledger_agent_clients_{os.getpid()}"
    subprocess.run(["psql", admin_url, "-q", "-c", f"drop database if exists {name}", "-c", f"create database {name}"],
                   check=True, capture_output=True)
    folder = os.path.join(workdir, "postgres")
    os.makedirs(folder)
    on_postgres = Server(server.binary, folder, admin_url.rsplit("/", 1)[0] + f"/{name}")
    try:
        on_postgres.start()
        tests = [python, "-m", "pytest", "-q", "clients/python/tests/test_temporal.py"]
        return subprocess.run(tests, env=on_postgres.environment(admin_url)).returncode == 0
    finally:
        on_postgres.stop()
        subprocess.run(["psql", admin_url, "-q", "-c", f"drop database if exists {name} with (force)"],
                       capture_output=True)


RUNNERS = {"contract": contract, "python": python_suite, "typescript": typescript_suite,
           "temporal-postgres": temporal_postgres_suite}


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--binary", required=True, help="the opledger binary to serve")
    parser.add_argument("--python", required=True, help="the virtual environment's python with the clients installed")
    parser.add_argument("--suites", default=",".join(SUITES), help=f"comma-separated, of {', '.join(SUITES)}")
    parser.add_argument("--postgres-url", default=os.environ.get(
        "OPLEDGER_TEST_POSTGRES_URL", "postgres://postgres@127.0.0.1:5432/postgres"))
    parser.add_argument("--keep", action="store_true", help="keep the work folder (database and logs)")
    args = parser.parse_args()
    suites = [suite.strip() for suite in args.suites.split(",") if suite.strip()]
    unknown = [suite for suite in suites if suite not in RUNNERS]
    if unknown:
        parser.error(f"no such suite: {', '.join(unknown)} (the suites are {', '.join(SUITES)})")
    os.chdir(os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
    workdir = tempfile.mkdtemp(prefix="opledger-agent-clients-")
    server = Server(args.binary, workdir)
    failed = []
    try:
        server.start()
        env = server.environment(args.postgres_url)
        for suite in suites:
            print(f"\n--> {suite}", flush=True)
            started = time.monotonic()
            passed = RUNNERS[suite](server, args.python, env, workdir)
            print(f"--> {suite}: {'passed' if passed else 'FAILED'} in {time.monotonic() - started:.0f} s", flush=True)
            if not passed:
                failed.append(suite)
    finally:
        server.stop()
        if failed or args.keep:
            print(f"the work folder (database, server and sandbox logs): {workdir}")
        else:
            shutil.rmtree(workdir, ignore_errors=True)
    if failed:
        sys.exit(f"error: the agent clients' suites failed: {', '.join(failed)}")


if __name__ == "__main__":
    main()
