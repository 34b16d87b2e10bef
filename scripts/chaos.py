#!/usr/bin/env python3
"""Kills `opledger serve` with SIGKILL at random moments while agents work, then checks that
nothing was lost, nothing was done twice and nothing is stuck.

The sandbox providers run as processes of their own and are the ground truth: they outlive every
kill and list every refund they made. Three shops work on orders added to them: tenant `acme` on the
Stripe sandbox (the server's own account), tenant `nl-chaos` on an Adyen sandbox (its own
account, set with `opledger provider set`), which answers every refund `received` and says the
outcome only in signed notifications to the server, sent again until one is accepted, and tenant
`tw-chaos` on an ECPay sandbox, which takes no idempotency key at all: each of its refunds is sent
once, and a lost answer is settled by ECPay's list of the payment's refunds against the list kept
before the send (its payments' TradeNo and gwsr saved with `opledger provider payment-add`, its
orders read from the Adyen sandbox's shop, ECPay's nightly close run while the run drains). Agents of
three kinds work, each retrying a call the server did not answer: tool callers of the three shops
(`POST /api/v1/tools/refund_item`, the server sends), email senders of `nl-chaos`
(`POST /api/v1/tools/send_customer_email` through its SMTP account, which honours no key and
cannot be asked, so each message goes at most once), and agents of `acme` that follow the ledger
protocol and send themselves (register, begin an attempt with a declared send deadline, POST the
refund with the key the ledger gave, report the outcome). A share of their requests meets the
sandboxes' faults: a delay longer than the provider timeout, an answer dropped after the refund
was made, a 500 after it was made; and of the emails, an SMTP connection dropped right after the
message's final `.`.

After the last kill the agents stop, the server settles what is open, and the run checks:
  lost      an acknowledged registration, or an acknowledged "succeeded", that the ledger lacks;
  doubled   a (tenant, op id) with more than one refund at the provider (at ECPay, a payment with
            more than one refund), or more than one message at the SMTP sink;
  mismatch  an operation that is succeeded without a refund at the provider, or not succeeded
            (and not handed to a person) with one, or succeeded under another refund's id;
  stuck     an operation still planned by the server, approved, submitted, unknown or accepted;
  unchecked an email waiting for a person without the words that nobody can tell what happened,
            or an email the tool refused;
  audit     each tenant's audit chain, exported and verified by `opledger audit verify`;
  integrity SQLite's `pragma integrity_check`.
It prints its figures and exits 1 when any check fails. Loopback only; standard library only.
"""

import argparse
import datetime
import http.client
import json
import os
import random
import shutil
import signal
import socket
import sqlite3
import subprocess
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.parse
import urllib.request

SANDBOX_KEY = "sk_test_chaos"
SECRET_KEY = "6f" * 32
TENANT = "acme"
ADYEN_TENANT = "nl-chaos"
ADYEN_KEY = "AQE_chaos_api_key"
ADYEN_MERCHANT = "ChaosECOM"
ADYEN_HMAC = "44782DEF547AAA06C910C43932B1EB0C71FC68D9D0C057550C48EC2ACF6BA056"
MAIL_KEY = "re_chaos"
ECPAY_TENANT = "tw-chaos"
ECPAY_KEY = "pwFHCqoQZGmho4w6"
ECPAY_SECRET = f"{ECPAY_KEY}:EkRm7iFT261dpevs:59997889"
ECPAY_MERCHANT = "3002607"
ECPAY_PAID = 1580
PROVIDER_TIMEOUT_S = 2
SETTLE_S = 2
AGENT_SEND_TIMEOUT_S = 3
AGENT_SEND_DEADLINE_S = 5
FAULTS = [
    {"fault": "delay", "ms": 2600},
    {"fault": "drop_response", "ms": 4000},
    {"fault": "error_500_after"},
]


class Unreachable(Exception):
    """The server did not answer: it is down, restarting or was killed mid-request."""


def call(method, url, body=None, *, token=None, form=None, key=None, timeout=10.0, headers=None):
    headers = dict(headers or {})
    data = None
    if body is not None:
        data = json.dumps(body).encode()
        headers["Content-Type"] = "application/json"
    if form is not None:
        data = urllib.parse.urlencode(form).encode()
        headers["Content-Type"] = "application/x-www-form-urlencoded"
    if token:
        headers["Authorization"] = f"Bearer {token}"
    if key:
        headers["Idempotency-Key"] = key
    request = urllib.request.Request(url, data=data, method=method, headers=headers)
    try:
        with urllib.request.urlopen(request, timeout=timeout) as response:
            return response.status, parse(response.read())
    except urllib.error.HTTPError as error:
        return error.code, parse(error.read())
    except (urllib.error.URLError, OSError, http.client.HTTPException) as error:
        raise Unreachable(str(error)) from error


def parse(raw):
    try:
        return json.loads(raw or b"null")
    except ValueError:
        return {"raw": raw.decode(errors="replace")}


def free_port():
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def wait_until(check, seconds, what):
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        try:
            if check():
                return
        except Unreachable:
            pass
        time.sleep(0.1)
    raise SystemExit(f"chaos: {what} did not happen within {seconds} s")


class Server:
    """One `opledger serve` on its own port, killed and started again on demand."""

    def __init__(self, binary, database_url, sandbox_url, workdir, name):
        self.binary, self.database_url, self.sandbox_url = binary, database_url, sandbox_url
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.log = open(os.path.join(workdir, f"{name}.log"), "ab")
        self.site_root = os.path.join(workdir, "site")
        os.makedirs(self.site_root, exist_ok=True)
        self.process = None
        self.kills = 0

    def start(self):
        self.process = subprocess.Popen(
            [self.binary, "serve", "--database-url", self.database_url, "--addr", f"127.0.0.1:{self.port}",
             "--site-root", self.site_root, "--stripe-base-url", self.sandbox_url,
             "--services-base-url", self.sandbox_url, "--stripe-secret-key", SANDBOX_KEY,
             "--default-tenant", TENANT, "--allow-egress", "127.0.0.1",
             "--provider-timeout", f"{PROVIDER_TIMEOUT_S}s", "--settle-after", f"{SETTLE_S}s",
             "--reconcile-every", "1s", "--api-calls-per-second", "10000", "--lookup-lag", "ecpay=5s"],
            stdout=self.log, stderr=self.log, env={**os.environ, "OPLEDGER_SECRET_KEY": SECRET_KEY},
        )
        wait_until(lambda: call("GET", f"{self.url}/healthz", timeout=1)[0] == 200, 60, f"{self.url} answering")

    def kill(self):
        self.process.send_signal(signal.SIGKILL)
        self.process.wait()
        self.kills += 1

    def stop(self):
        if self.process and self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()


class Run:
    """One engine's run: the servers, the agents, what the agents were told, and the checks."""

    def __init__(self, args, engine, database_url, servers, sandbox_url, adyen_url, mail_url, ecpay_url, tokens):
        self.args, self.engine, self.database_url = args, engine, database_url
        self.servers, self.sandbox_url, self.adyen_url, self.tokens = servers, sandbox_url, adyen_url, tokens
        self.mail_url, self.ecpay_url = mail_url, ecpay_url
        self.email_ops = set()
        self.email_refusals = []
        self.tenant_of = {}
        self.stop_agents = threading.Event()
        self.lock = threading.Lock()
        self.registered = set()
        self.acknowledged_success = {}
        self.op_ids = set()
        self.calls = 0
        self.unanswered = 0
        self.next_order = 0
        self.agent_calls = (0, 0)
        self.ecpay_payments = {}

    def api(self, method, path, body=None, timeout=15.0, tenant=TENANT):
        server = random.choice(self.servers)
        with self.lock:
            self.calls += 1
        try:
            status, answer = call(method, f"{server.url}/api/v1{path}", body, token=self.tokens[tenant], timeout=timeout)
        except Unreachable:
            with self.lock:
                self.unanswered += 1
            raise
        if status == 429:
            raise Unreachable("rate limited")
        return status, answer

    def until_answered(self, method, path, body=None, tenant=TENANT):
        """Calls until the server answers; an agent that was not answered tries again."""
        while True:
            try:
                status, answer = self.api(method, path, body, tenant=tenant)
                if status < 500:
                    return status, answer
            except Unreachable:
                pass
            time.sleep(random.uniform(0.05, 0.3))

    def new_order(self, tenant=TENANT):
        with self.lock:
            number = self.next_order
            self.next_order += 1
        order_id = f"C{number}"
        items = [{"id": "li_1", "name": "Kettle", "amount_minor": 120000},
                 {"id": "li_2", "name": "Filter", "amount_minor": 38000}]
        if tenant == ECPAY_TENANT:
            return self.new_ecpay_order(order_id, items)
        if tenant == ADYEN_TENANT:
            order = {"id": order_id, "currency": "EUR", "payment": f"88{number:014d}", "line_items": items,
                     "customer_email": f"customer-{order_id}@example.com"}
            adyen = {"X-API-Key": ADYEN_KEY}
            status, answer = call("POST", f"{self.adyen_url}/_sandbox/orders", order, headers=adyen)
            assert status == 201, answer
            for op_id in (f"refund-{order_id}-li_1", f"refund-{order_id}-li_2"):
                if random.random() < self.args.fault_share:
                    fault = {"match": f"{ADYEN_TENANT}:{op_id}", "times": 1, **random.choice(FAULTS)}
                    call("POST", f"{self.adyen_url}/_sandbox/faults", fault, headers=adyen)
            return order_id
        order = {"id": order_id, "currency": "TWD", "payment_intent": f"pi_chaos_{number}", "line_items": items}
        status, answer = call("POST", f"{self.sandbox_url}/v1/_sandbox/orders", order, token=SANDBOX_KEY)
        assert status == 201, answer
        for op_id in (f"refund-{order_id}-li_1", f"refund-{order_id}-li_2"):
            if random.random() < self.args.fault_share:
                fault = {"match": op_id, "times": 1, **random.choice(FAULTS)}
                call("POST", f"{self.sandbox_url}/v1/_sandbox/faults", fault, token=SANDBOX_KEY)
        return order_id

    def new_ecpay_order(self, order_id, items):
        """A card payment at ECPay (closed: a part of it is refunded with `R`), its ids saved as a shop
        saves them, and the order in the shop; a share of its refunds meets a fault."""
        payment = f"CH{order_id[1:]}{random.randrange(1000, 9999)}"
        ecpay = {"Authorization": f"Bearer {ECPAY_KEY}"}
        status, paid = call("POST", f"{self.ecpay_url}/_sandbox/payments",
                            {"merchant_trade_no": payment, "amount": ECPAY_PAID, "state": "closed"}, headers=ecpay)
        assert status == 201, paid
        for attempt in range(5):
            saved = subprocess.run([self.args.binary, "provider", "payment-add", "--database-url", self.database_url,
                                    "--tenant", ECPAY_TENANT, "--name", "ecpay", "--payment", payment,
                                    "--trade-no", paid["TradeNo"], "--gwsr", paid["gwsr"], "--paid", str(ECPAY_PAID)],
                                   capture_output=True, text=True, check=False)
            if saved.returncode == 0:
                break
            time.sleep(0.2 * (attempt + 1))
        else:
            raise SystemExit(f"chaos: the payment {payment} could not be saved: {saved.stderr}")
        order = {"id": order_id, "currency": "TWD", "payment": payment, "line_items": items}
        status, answer = call("POST", f"{self.adyen_url}/_sandbox/orders", order, headers={"X-API-Key": ADYEN_KEY})
        assert status == 201, answer
        if random.random() < self.args.fault_share:
            fault = {"match": payment, "times": 1, **random.choice(FAULTS)}
            call("POST", f"{self.ecpay_url}/_sandbox/faults", fault, headers=ecpay)
        with self.lock:
            self.ecpay_payments[f"refund-{order_id}-li_1"] = payment
        return order_id

    def tool_caller(self, tenant=TENANT):
        while not self.stop_agents.is_set():
            order_id = self.new_order(tenant)
            status, answer = self.until_answered("POST", "/tools/refund_item", {"order_id": order_id, "line_item_id": "li_1"},
                                                 tenant=tenant)
            if status == 200:
                with self.lock:
                    self.op_ids.add(answer["op_id"])
                    self.tenant_of[answer["op_id"]] = tenant
                    self.registered.add(answer["op_id"])
                    if answer["status"] == "succeeded":
                        self.acknowledged_success[answer["op_id"]] = answer.get("external_id")

    def email_sender(self):
        while not self.stop_agents.is_set():
            order_id = self.new_order(ADYEN_TENANT)
            if random.random() < self.args.fault_share:
                fault = {"match": f"{ADYEN_TENANT}:email-{order_id}-*", "fault": "drop_response", "times": 1}
                call("POST", f"{self.mail_url}/_sandbox/faults", fault, token=MAIL_KEY)
            status, answer = self.until_answered("POST", "/tools/send_customer_email",
                                                 {"order_id": order_id, "template": "shipped"}, tenant=ADYEN_TENANT)
            if status != 200:
                with self.lock:
                    self.email_refusals.append(answer)
            if status == 200:
                with self.lock:
                    self.op_ids.add(answer["op_id"])
                    self.email_ops.add(answer["op_id"])
                    self.tenant_of[answer["op_id"]] = ADYEN_TENANT
                    self.registered.add(answer["op_id"])
                    if answer["status"] == "succeeded":
                        self.acknowledged_success[answer["op_id"]] = answer.get("external_id")

    def protocol_agent(self):
        while not self.stop_agents.is_set():
            order_id = self.new_order()
            op_id = f"refund-{order_id}-li_2"
            body = {"op_id": op_id, "kind": "refund", "subject": f"order:{order_id}", "provider": "stripe",
                    "params": {"payment_intent": f"pi_chaos_{order_id[1:]}",
                               "amount": {"minor": 38000, "currency": "TWD"}}}
            with self.lock:
                self.op_ids.add(op_id)
                self.tenant_of[op_id] = TENANT
            status, answer = self.until_answered("POST", "/operations", body)
            if status not in (200, 201):
                continue
            with self.lock:
                self.registered.add(op_id)
            self.send_own(op_id, order_id)

    def send_own(self, op_id, order_id):
        status, started = self.until_answered("POST", f"/operations/{op_id}/attempts",
                                              {"send_deadline_s": AGENT_SEND_DEADLINE_S})
        if status == 201:
            attempt, key = started["attempt"], started["idempotency_key"]
        else:
            status, view = self.until_answered("GET", f"/operations/{op_id}")
            open_attempts = [a for a in view.get("attempts", []) if not a.get("outcome")]
            if view.get("state") != "submitted" or not open_attempts:
                return
            attempt, key = open_attempts[-1]["number"], view["idempotency_key"]
        form = {"payment_intent": f"pi_chaos_{order_id[1:]}", "amount": "38000", "currency": "twd",
                "metadata[op_id]": op_id, "metadata[tenant]": TENANT}
        try:
            sent, refund = call("POST", f"{self.sandbox_url}/v1/refunds", form=form, token=SANDBOX_KEY,
                                key=key, timeout=AGENT_SEND_TIMEOUT_S)
            if sent == 200:
                outcome = {"outcome": "succeeded", "http_status": 200, "external_id": refund["id"]}
            elif sent == 402:
                outcome = {"outcome": "rejected", "http_status": 402}
            elif sent == 409:
                outcome = {"outcome": "timeout", "http_status": 409, "error": "the same key is still in flight"}
            else:
                outcome = {"outcome": "server_error", "http_status": sent}
        except Unreachable as error:
            outcome = {"outcome": "timeout", "error": str(error)[:200]}
        status, _ = self.until_answered("POST", f"/operations/{op_id}/attempts/{attempt}/outcome", outcome)
        if status == 200 and outcome["outcome"] == "succeeded":
            with self.lock:
                self.acknowledged_success[op_id] = outcome["external_id"]

    def killer(self):
        for _ in range(self.args.kills):
            time.sleep(random.uniform(self.args.min_gap, self.args.max_gap))
            server = random.choice(self.servers)
            server.kill()
            time.sleep(random.uniform(0, 0.3))
            server.start()

    def work(self):
        agents = [threading.Thread(target=self.tool_caller, daemon=True) for _ in range(self.args.agents)]
        agents += [threading.Thread(target=self.protocol_agent, daemon=True) for _ in range(self.args.agents)]
        agents += [threading.Thread(target=self.tool_caller, args=(ADYEN_TENANT,), daemon=True)
                   for _ in range(self.args.agents)]
        agents += [threading.Thread(target=self.tool_caller, args=(ECPAY_TENANT,), daemon=True)
                   for _ in range(self.args.agents)]
        agents += [threading.Thread(target=self.email_sender, daemon=True) for _ in range(self.args.agents)]
        for agent in agents:
            agent.start()
        started = time.monotonic()
        self.killer()
        self.stop_agents.set()
        for agent in agents:
            agent.join(timeout=120)
        self.agent_calls = (self.calls, self.unanswered)
        return time.monotonic() - started

    def ledger_states(self):
        states = {}
        for op_id in sorted(self.op_ids):
            status, view = self.until_answered("GET", f"/operations/{op_id}", tenant=self.tenant_of[op_id])
            if status == 200:
                refs = [r.rsplit("/", 1)[-1] for r in view.get("external_refs", [])]
                states[op_id] = (view["state"], view.get("attempts", []), refs)
        return states

    def settled(self):
        open_states = {"submitted", "unknown", "approved", "accepted"}
        call("POST", f"{self.ecpay_url}/_sandbox/nightly_close", {}, headers={"Authorization": f"Bearer {ECPAY_KEY}"})
        states = self.ledger_states()
        return states, [op for op, (state, _, _) in states.items() if state in open_states or
                        (state == "planned" and (op.endswith("-li_1") or op in self.email_ops))]

    def check(self, elapsed):
        drain_started = time.monotonic()
        states, stuck = self.settled()
        while stuck and time.monotonic() - drain_started < self.args.drain:
            time.sleep(1)
            states, stuck = self.settled()
        drained = time.monotonic() - drain_started
        status, made = call("GET", f"{self.sandbox_url}/v1/_sandbox/ledger", token=SANDBOX_KEY)
        refunds = {}
        for made_object in made["data"]:
            if made_object["type"] == "refund" and made_object["metadata"].get("tenant") == TENANT:
                refunds.setdefault(made_object["metadata"].get("op_id"), []).append(made_object["id"])
        status, made = call("GET", f"{self.adyen_url}/_sandbox/ledger", headers={"X-API-Key": ADYEN_KEY})
        for made_object in made["data"]:
            tenant, _, op_id = (made_object["idempotency_key"] or "").partition(":")
            if tenant == ADYEN_TENANT:
                refunds.setdefault(op_id, []).append(made_object["id"])
        status, made = call("GET", f"{self.ecpay_url}/_sandbox/ledger", token=ECPAY_KEY)
        op_of_payment = {payment: op for op, payment in self.ecpay_payments.items()}
        for made_object in made["data"]:
            payment = made_object["metadata"].get("MerchantTradeNo")
            refunds.setdefault(op_of_payment.get(payment, f"unasked:{payment}"), []).append(made_object["id"])
        status, mail = call("GET", f"{self.mail_url}/_sandbox/mail", token=MAIL_KEY)
        messages = {}
        for message in mail["data"]:
            tenant, _, op_id = (message["op"] or "").partition(":")
            if tenant == ADYEN_TENANT:
                messages.setdefault(op_id, []).append(message["id"])
        lost = [op for op in self.registered if op not in states]
        lost += [op for op, external in self.acknowledged_success.items()
                 if op not in states or states[op][0] != "succeeded" or (external and external not in states[op][2])]
        doubled = {op: ids for op, ids in refunds.items() if len(ids) > 1}
        doubled.update({op: ids for op, ids in messages.items() if len(ids) > 1})
        mismatch = []
        unchecked = []
        reviewed = 0
        for op_id in self.email_ops:
            if states.get(op_id, ("",))[0] == "needs_review":
                status, view = self.until_answered("GET", f"/operations/{op_id}", tenant=ADYEN_TENANT)
                if "nobody can tell whether this happened" not in json.dumps(view.get("audit")):
                    unchecked.append(op_id)
        for op_id, (state, _, refs) in states.items():
            if op_id in self.email_ops:
                held = messages.get(op_id, [])
                if state == "needs_review":
                    reviewed += 1
                elif (state == "succeeded") != bool(held):
                    mismatch.append((op_id, state, held, refs))
                continue
            held = refunds.get(op_id, [])
            if state == "needs_review":
                reviewed += 1
            elif (state == "succeeded") != bool(held) or (held and refs and refs[-1] not in held):
                mismatch.append((op_id, state, held, refs))
        audit_ok = self.audit_verifies()
        integrity = self.integrity()
        print(f"\n{self.engine} ({len(self.servers)} serve instance{'s' if len(self.servers) > 1 else ''})")
        print(f"  kills                 {sum(s.kills for s in self.servers)} in {elapsed:.0f} s")
        adyen_ops = sum(1 for op in states if self.tenant_of[op] == ADYEN_TENANT and op not in self.email_ops)
        ecpay_ops = sum(1 for op in states if self.tenant_of[op] == ECPAY_TENANT)
        print(f"  operations            {len(states)}, {adyen_ops} refunds on Adyen, {ecpay_ops} on ECPay without a key "
              f"({len(refunds)} refunded at the providers)")
        print(f"  customer emails       {len(self.email_ops)} by SMTP ({len(messages)} reached the sink)")
        if self.email_refusals:
            print(f"  emails refused        {len(self.email_refusals)}, the first: {self.email_refusals[0]}")
        print(f"  agents' API calls     {self.agent_calls[0]} ({self.agent_calls[1]} unanswered, tried again)")
        print(f"  settled after agents  {drained:.1f} s")
        counts = {}
        for state, _, _ in states.values():
            counts[state] = counts.get(state, 0) + 1
        print("  states                " + ", ".join(f"{s} {n}" for s, n in sorted(counts.items())))
        print(f"  lost acknowledged     {len(lost)}")
        print(f"  duplicate effects     {len(doubled)}")
        print(f"  mismatches            {len(mismatch)}")
        print(f"  stuck                 {len(stuck)}")
        print(f"  left for a person     {reviewed}")
        print(f"  unexplained reviews   {len(unchecked)}")
        print(f"  audit chain           {'verifies' if audit_ok else 'BROKEN'}")
        print(f"  integrity check       {integrity}")
        for label, items in (("lost", lost), ("doubled", list(doubled.items())), ("mismatch", mismatch), ("stuck", stuck),
                             ("unchecked", unchecked)):
            for item in items[:5]:
                print(f"    {label}: {item}")
        return (not lost and not doubled and not mismatch and not stuck and not unchecked and not self.email_refusals
                and audit_ok and integrity in ("ok", "n/a"))

    def audit_verifies(self):
        for tenant in self.tokens:
            export = subprocess.run([self.args.binary, "audit", "export", "--database-url", self.database_url,
                                     "--tenant", tenant], capture_output=True, check=False)
            if export.returncode != 0:
                print(export.stderr.decode(errors="replace"), file=sys.stderr)
                return False
            verify = subprocess.run([self.args.binary, "audit", "verify", "-"], input=export.stdout,
                                    capture_output=True, check=False)
            if verify.returncode != 0:
                return False
        return True

    def integrity(self):
        if not self.database_url.startswith("sqlite://"):
            return "n/a"
        path = self.database_url[len("sqlite://"):].split("?")[0]
        with sqlite3.connect(path) as connection:
            return connection.execute("pragma integrity_check").fetchone()[0]


def create_token(binary, database_url, tenant):
    subprocess.run([binary, "tenant", "add", "--database-url", database_url, tenant],
                   capture_output=True, check=True, text=True)
    created = subprocess.run([binary, "token", "create", "--database-url", database_url, "--tenant", tenant,
                              "--name", "chaos-agent"], capture_output=True, check=True, text=True)
    return next(word for word in created.stdout.split() if word.startswith("opl_"))


def connect_adyen_shop(binary, database_url, adyen_url, smtp_url):
    """Gives the Adyen shop its own account, its orders endpoint, the notifications' HMAC key, its
    mail server and an email template."""
    env = {**os.environ, "OPLEDGER_SECRET_KEY": SECRET_KEY}
    common = ["--database-url", database_url, "--tenant", ADYEN_TENANT]
    egress = ["--allow-egress", "127.0.0.1"]
    subprocess.run([binary, "provider", "set", *common, *egress, "--name", "adyen", "--kind", "adyen",
                    "--base-url", f"{adyen_url}/v71", "--account", ADYEN_MERCHANT],
                   input=ADYEN_KEY + "\n", env=env, check=True, capture_output=True, text=True)
    subprocess.run([binary, "provider", "set", *common, *egress, "--name", "orders", "--kind", "orders",
                    "--base-url", adyen_url], input=ADYEN_KEY + "\n", env=env, check=True, capture_output=True, text=True)
    subprocess.run([binary, "provider", "webhook-secret", *common, "--name", "adyen"],
                   input=ADYEN_HMAC + "\n", env=env, check=True, capture_output=True, text=True)
    subprocess.run([binary, "provider", "set", *common, *egress, "--name", "email", "--kind", "smtp",
                    "--base-url", smtp_url, "--account", "Chaos Shop <shop@chaos.example>"],
                   input="smtp-password\n", env=env, check=True, capture_output=True, text=True)
    subprocess.run([binary, "template", "set", *common, "--name", "shipped", "--subject", "Order {order} is on its way"],
                   input="Hello,\n\norder {order} has left our warehouse.\n", env=env, check=True, capture_output=True,
                   text=True)


def connect_ecpay_shop(binary, database_url, ecpay_url, shop_url):
    """Gives the ECPay shop its own ECPay account and its orders endpoint (the Adyen sandbox's shop)."""
    env = {**os.environ, "OPLEDGER_SECRET_KEY": SECRET_KEY}
    common = ["--database-url", database_url, "--tenant", ECPAY_TENANT]
    egress = ["--allow-egress", "127.0.0.1"]
    subprocess.run([binary, "provider", "set", *common, *egress, "--name", "ecpay", "--kind", "ecpay",
                    "--base-url", ecpay_url, "--account", ECPAY_MERCHANT],
                   input=ECPAY_SECRET + "\n", env=env, check=True, capture_output=True, text=True)
    subprocess.run([binary, "provider", "set", *common, *egress, "--name", "orders", "--kind", "orders",
                    "--base-url", shop_url], input=ADYEN_KEY + "\n", env=env, check=True, capture_output=True, text=True)


def start_sandbox(binary, workdir, name, kind_args):
    port = free_port()
    log = open(os.path.join(workdir, f"{name}.log"), "ab")
    process = subprocess.Popen([binary, "sandbox", "--addr", f"127.0.0.1:{port}", *kind_args], stdout=log, stderr=log)
    return process, f"http://127.0.0.1:{port}"


def postgres_database(admin_url, name):
    subprocess.run(["psql", admin_url, "-q", "-c", f"drop database if exists {name}", "-c", f"create database {name}"],
                   check=True, capture_output=True)
    return admin_url.rsplit("/", 1)[0] + f"/{name}"


# ECPay takes no calls from 20:15 to 20:30 Taiwan time (UTC+8) while it closes the day's card
# payments, and the server holds its refunds until then: a run that met those minutes would find
# them still planned when it drains.
ECPAY_BLACKOUT_UTC = ((12, 15), (12, 30))


def wait_out_ecpay_blackout(budget_s, now=None):
    """Sleeps until ECPay's nightly blackout is over when it falls within the next `budget_s`
    seconds; how long it slept."""
    now = now or datetime.datetime.now(datetime.timezone.utc)
    (from_h, from_m), (to_h, to_m) = ECPAY_BLACKOUT_UTC
    for day in (now.date(), now.date() + datetime.timedelta(days=1)):
        start = datetime.datetime(day.year, day.month, day.day, from_h, from_m, tzinfo=datetime.timezone.utc)
        end = datetime.datetime(day.year, day.month, day.day, to_h, to_m, 30, tzinfo=datetime.timezone.utc)
        if now < end and start < now + datetime.timedelta(seconds=budget_s):
            wait = (end - now).total_seconds()
            print(f"chaos: ECPay's nightly blackout (20:15 to 20:30 Taiwan time) falls within this engine's run; "
                  f"waiting {wait:.0f} s for it to end")
            time.sleep(wait)
            return wait
    return 0.0


def run_engine(args, engine, workdir):
    wait_out_ecpay_blackout(args.kills * args.max_gap + args.drain + 120)
    sandbox, sandbox_url = start_sandbox(args.binary, workdir, f"sandbox-{engine}", ["--secret-key", SANDBOX_KEY])
    adyen, adyen_url = start_sandbox(args.binary, workdir, f"adyen-{engine}",
                                     ["--kind", "adyen", "--secret-key", ADYEN_KEY, "--account", ADYEN_MERCHANT,
                                      "--hmac-key", ADYEN_HMAC])
    smtp_port = free_port()
    mail, mail_url = start_sandbox(args.binary, workdir, f"mail-{engine}",
                                   ["--kind", "email", "--secret-key", MAIL_KEY, "--smtp-addr", f"127.0.0.1:{smtp_port}"])
    ecpay, ecpay_url = start_sandbox(args.binary, workdir, f"ecpay-{engine}",
                                     ["--kind", "ecpay", "--secret-key", ECPAY_SECRET, "--account", ECPAY_MERCHANT])
    adyen_key = {"X-API-Key": ADYEN_KEY}
    servers = []
    try:
        wait_until(lambda: call("GET", f"{sandbox_url}/v1/_sandbox/ledger", token=SANDBOX_KEY)[0] == 200, 30,
                   "the sandbox answering")
        wait_until(lambda: call("GET", f"{adyen_url}/_sandbox/ledger", headers=adyen_key)[0] == 200, 30,
                   "the Adyen sandbox answering")
        wait_until(lambda: call("GET", f"{mail_url}/_sandbox/mail", token=MAIL_KEY)[0] == 200, 30, "the mail sandbox answering")
        wait_until(lambda: call("GET", f"{ecpay_url}/_sandbox/ledger", token=ECPAY_KEY)[0] == 200, 30,
                   "the ECPay sandbox answering")
        if engine == "sqlite":
            database_url = f"sqlite://{os.path.join(workdir, 'chaos.db')}"
        else:
            database_url = postgres_database(args.postgres_url, f"opledger_chaos_{engine.replace('-', '_')}_{os.getpid()}")
        instances = 2 if engine == "postgres-pair" else 1
        subprocess.run([args.binary, "migrate", "--database-url", database_url], check=True, capture_output=True)
        tokens = {tenant: create_token(args.binary, database_url, tenant) for tenant in (TENANT, ADYEN_TENANT, ECPAY_TENANT)}
        connect_adyen_shop(args.binary, database_url, adyen_url, f"smtp://127.0.0.1:{smtp_port}")
        connect_ecpay_shop(args.binary, database_url, ecpay_url, adyen_url)
        servers = [Server(args.binary, database_url, sandbox_url, workdir, f"serve-{engine}-{n}") for n in range(instances)]
        for server in servers:
            server.start()
        destination = {"url": f"{servers[0].url}/webhooks/providers/{ADYEN_TENANT}/adyen"}
        status, answer = call("POST", f"{adyen_url}/_sandbox/notification_destination", destination, headers=adyen_key)
        assert status == 200, answer
        run = Run(args, engine, database_url, servers, sandbox_url, adyen_url, mail_url, ecpay_url, tokens)
        elapsed = run.work()
        return run.check(elapsed)
    finally:
        for server in servers:
            server.stop()
        for process in (sandbox, adyen, mail, ecpay):
            process.terminate()
            process.wait()


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--binary", required=True, help="the opledger binary to run")
    parser.add_argument("--kills", type=int, default=30, help="SIGKILLs per engine (default 30)")
    parser.add_argument("--engines", default="sqlite,postgres,postgres-pair",
                        help="comma-separated: sqlite, postgres, postgres-pair (two serve on one database)")
    parser.add_argument("--agents", type=int, default=3, help="agents of each kind (default 3)")
    parser.add_argument("--fault-share", type=float, default=0.3, help="share of operations that meet a fault")
    parser.add_argument("--min-gap", type=float, default=0.5, help="shortest time between kills, in seconds")
    parser.add_argument("--max-gap", type=float, default=2.5, help="longest time between kills, in seconds")
    parser.add_argument("--drain", type=float, default=90, help="how long open operations may take to settle")
    parser.add_argument("--postgres-url", default=os.environ.get(
        "OPLEDGER_TEST_POSTGRES_URL", "postgres://postgres@127.0.0.1:5432/postgres"))
    parser.add_argument("--seed", type=int, default=None, help="random seed, to replay a run's choices")
    parser.add_argument("--keep", action="store_true", help="keep the work folder (databases and logs)")
    args = parser.parse_args()
    seed = args.seed if args.seed is not None else random.randrange(1 << 30)
    random.seed(seed)
    workdir = tempfile.mkdtemp(prefix="opledger-chaos-")
    print(f"chaos: {args.kills} kills per engine, seed {seed}, logs in {workdir}")
    passed = True
    try:
        for engine in [e.strip() for e in args.engines.split(",") if e.strip()]:
            passed &= run_engine(args, engine, workdir)
    finally:
        if not args.keep and passed:
            shutil.rmtree(workdir, ignore_errors=True)
    print("\nchaos: " + ("every check passed" if passed else f"FAILED (logs in {workdir})"))
    return 0 if passed else 1


if __name__ == "__main__":
    sys.exit(main())
