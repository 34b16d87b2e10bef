"""How the client maps what the ledger answers, against a scripted ledger (httpx.MockTransport).

The real approval path (a manager approving in the console) is tested end to end in the browser
tests; here the ledger simply answers with the state under test.
"""

from __future__ import annotations

import json
from typing import Any

import httpx
import pytest

from opledger import (
    ApiError,
    ApprovalPending,
    AsyncLedger,
    Denied,
    Ledger,
    NotSent,
    OperationFailed,
    OutcomeUnknown,
)

OP_ID = "refund-1043-li_2"
CONSOLE = "https://console.example.com"
ARGS: dict[str, Any] = {
    "kind": "refund",
    "op_id": OP_ID,
    "subject": "order:1043",
    "provider": "stripe",
    "params": {"payment_intent": "pi_1043", "amount": {"minor": 38000, "currency": "TWD"}},
}
MESSAGES = {
    "planned": "Recorded; not sent yet.",
    "pending_approval": "Waiting for a manager's approval; do not send it.",
    "denied": "A manager denied this operation; it will not be sent.",
    "submitted": "A send is in progress; do not send it again.",
    "succeeded": "Already done earlier; nothing was sent now.",
    "rejected": "The provider refused it, or it was confirmed not to have happened; nothing was done.",
    "unknown": "Result unknown; do not send again; it is being checked.",
}
OUTCOME_STATES = {
    "succeeded": "succeeded",
    "accepted": "accepted",
    "rejected": "rejected",
    "invalid": "rejected",
    "forbidden": "rejected",
    "failed_at_provider": "rejected",
    "not_sent": "planned",
    "unavailable": "planned",
    "timeout": "unknown",
    "server_error": "unknown",
}


def view(state: str, external_refs: list[str] | None = None) -> dict[str, Any]:
    """An operation as the ledger shows it."""
    return {
        "op_id": OP_ID,
        "kind": "refund",
        "subject": "order:1043",
        "provider": "stripe",
        "state": state,
        "message": MESSAGES.get(state, state),
        "params": ARGS["params"],
        "fingerprint": "sha256:00",
        "amount": {"minor": 38000, "currency": "TWD"},
        "idempotency_key": f"shop:{OP_ID}",
        "requested_by": "agent",
        "compensates": None,
        "retry_of": None,
        "failure_reason": None,
        "failure": None,
        "cancel_requested": False,
        "approval": None,
        "key": {"first_sent_at": None, "retention_s": 86400, "expires_at": None, "after_5xx": "same_key"},
        "version": 1,
        "created_at": "2026-01-01T00:00:00Z",
        "updated_at": "2026-01-01T00:00:00Z",
        "attempts": [],
        "external_refs": external_refs or [],
    }


def error(status: int, code: str, message: str) -> httpx.Response:
    return httpx.Response(status, json={"error": {"code": code, "message": message}})


class ScriptedLedger:
    """Answers register with `state`, begin with an attempt (or `begin_refusal`), outcomes by name."""

    def __init__(self, state: str, begin_refusal: tuple[str, str] | None = None, after_refusal: str = "") -> None:
        self.state = state
        self.begin_refusal = begin_refusal
        self.after_refusal = after_refusal
        self.outcome_status = 200
        self.calls: list[str] = []
        self.outcomes: list[dict[str, Any]] = []

    def __call__(self, request: httpx.Request) -> httpx.Response:
        path = request.url.path
        self.calls.append(f"{request.method} {path}")
        assert request.headers["authorization"] == "Bearer opl_test"
        if request.method == "POST" and path == "/api/v1/operations":
            return httpx.Response(201 if self.state == "pending_approval" else 200, json=view(self.state))
        if request.method == "POST" and path.endswith("/attempts"):
            if self.begin_refusal:
                self.state = self.after_refusal
                return error(409, *self.begin_refusal)
            self.state = "submitted"
            started = {
                "attempt": 1,
                "send_deadline": "2026-01-01T00:00:30Z",
                "idempotency_key": f"shop:{OP_ID}",
                "message": "Recorded as submitted.",
                "operation": view("submitted"),
            }
            return httpx.Response(201, json=started)
        if request.method == "POST" and path.endswith("/attempts/1/outcome"):
            body = json.loads(request.content)
            self.outcomes.append(body)
            if self.outcome_status != 200:
                return error(self.outcome_status, "internal", "The ledger could not complete the call.")
            self.state = OUTCOME_STATES[body["outcome"]]
            refs = [f"stripe/refund/{body['external_id']}"] if body.get("external_id") else []
            answer = {"message": MESSAGES.get(self.state, ""), "operation": view(self.state, refs)}
            return httpx.Response(200, json=answer)
        if request.method == "GET" and path == f"/api/v1/operations/{OP_ID}":
            refs = ["stripe/refund/re_earlier"] if self.state == "succeeded" else []
            return httpx.Response(200, json=view(self.state, refs))
        return error(404, "no_such_route", "No such API route.")


def ledger_for(script: ScriptedLedger) -> Ledger:
    return Ledger("https://ledger.example.com", "opl_test", console_url=CONSOLE, transport=httpx.MockTransport(script))


def async_ledger_for(script: ScriptedLedger) -> AsyncLedger:
    return AsyncLedger(
        "https://ledger.example.com", "opl_test", console_url=CONSOLE, transport=httpx.MockTransport(script)
    )


class ProviderError(Exception):
    """An SDK's error carrying the provider's HTTP status, as stripe's do."""

    def __init__(self, http_status: int, headers: dict[str, str] | None = None) -> None:
        super().__init__(f"provider answered {http_status}")
        self.http_status = http_status
        self.headers = headers or {}


def test_pending_approval_raises_with_the_console_link_and_sends_nothing() -> None:
    script = ScriptedLedger("pending_approval")
    ran: list[str] = []
    with ledger_for(script) as ledger:
        assert ledger.needs_approval(**ARGS) is True

        @ledger.operation(kind="refund", provider="stripe", op_id=OP_ID, subject="order:1043", params=ARGS["params"])
        def refund(*, op: Any) -> dict[str, str]:
            ran.append(op.key)
            return {"id": "re_1", "status": "succeeded"}

        with pytest.raises(ApprovalPending) as pending:
            refund()
    assert pending.value.console_url == f"{CONSOLE}/operations/{OP_ID}"
    assert pending.value.op_id == OP_ID and pending.value.retryable is False
    assert pending.value.operation["state"] == "pending_approval"
    assert "approval" in str(pending.value)
    assert ran == [] and not any(call.endswith("/attempts") for call in script.calls)


def test_denied_raises_denied_and_sends_nothing() -> None:
    script = ScriptedLedger("denied")
    with ledger_for(script) as ledger, pytest.raises(Denied) as denied, ledger.begin(**ARGS):
        pytest.fail("the block of a denied operation ran")
    assert denied.value.retryable is False and "denied" in str(denied.value)
    assert script.calls == ["POST /api/v1/operations"]


async def test_async_pending_approval_and_denied() -> None:
    async with async_ledger_for(ScriptedLedger("pending_approval")) as ledger:
        assert await ledger.needs_approval(**ARGS) is True
        with pytest.raises(ApprovalPending) as pending:
            async with ledger.begin(**ARGS):
                pytest.fail("the block of an operation waiting for approval ran")
        assert pending.value.console_url == f"{CONSOLE}/operations/{OP_ID}"
    async with async_ledger_for(ScriptedLedger("denied")) as ledger:
        with pytest.raises(Denied):
            async with ledger.begin(**ARGS):
                pytest.fail("the block of a denied operation ran")


@pytest.mark.parametrize(
    ("state", "raised"),
    [
        ("submitted", OutcomeUnknown),
        ("unknown", OutcomeUnknown),
        ("needs_review", OutcomeUnknown),
        ("rejected", OperationFailed),
    ],
)
def test_states_that_must_not_be_sent_raise_before_the_block(state: str, raised: type[Exception]) -> None:
    script = ScriptedLedger(state)
    with ledger_for(script) as ledger, pytest.raises(raised) as caught, ledger.begin(**ARGS):
        pytest.fail("the block ran")
    assert caught.value.retryable is False  # type: ignore[attr-defined]
    assert script.calls == ["POST /api/v1/operations"]


def test_a_send_in_progress_elsewhere_is_unknown_not_sent_again() -> None:
    script = ScriptedLedger("planned", begin_refusal=("attempt_open", "Attempt 1 is open."), after_refusal="submitted")
    with ledger_for(script) as ledger, pytest.raises(OutcomeUnknown) as unknown, ledger.begin(**ARGS):
        pytest.fail("the block ran")
    assert "do not send it again" in str(unknown.value)


def test_done_meanwhile_returns_the_result_without_sending() -> None:
    script = ScriptedLedger("planned", begin_refusal=("already_succeeded", "Already done earlier; nothing was sent now."), after_refusal="succeeded")
    with ledger_for(script) as ledger, ledger.begin(**ARGS) as op:
        assert op.result is not None
        _ = op.key
        pytest.fail("the block went on past op.key")
    assert (op.result.state, op.result.sent_now, op.result.external_id) == ("succeeded", False, "re_earlier")
    assert script.outcomes == []


@pytest.mark.parametrize(
    ("provider_object", "outcome", "external_id"),
    [
        ({"id": "re_1", "status": "succeeded"}, "succeeded", "re_1"),
        ({"id": "re_2", "status": "pending"}, "accepted", "re_2"),
        ({"id": "re_3", "status": "something_new"}, "accepted", "re_3"),
    ],
)
def test_the_provider_object_is_recorded_by_its_status(
    provider_object: dict[str, str], outcome: str, external_id: str
) -> None:
    script = ScriptedLedger("planned")
    with ledger_for(script) as ledger:

        @ledger.operation(kind="refund", provider="stripe", op_id=OP_ID, subject="order:1043", params=ARGS["params"])
        def refund(*, op: Any) -> dict[str, str]:
            return provider_object

        settled = refund()
    assert (script.outcomes[0]["outcome"], script.outcomes[0]["external_id"]) == (outcome, external_id)
    assert (settled.state, settled.external_id) == (OUTCOME_STATES[outcome], external_id)
    assert settled.value is provider_object and settled.sent_now


def test_a_failed_provider_object_ends_the_operation_failed() -> None:
    script = ScriptedLedger("planned")
    with ledger_for(script) as ledger, pytest.raises(OperationFailed) as failed, ledger.begin(**ARGS) as op:
        op.record({"id": "re_4", "status": "failed", "failure_reason": "expired_or_canceled_card"})
    assert failed.value.state == "rejected"
    assert script.outcomes[0]["outcome"] == "failed_at_provider"
    assert script.outcomes[0]["error"] == "expired_or_canceled_card"


@pytest.mark.parametrize(
    ("raised", "outcome", "error_type"),
    [
        (ProviderError(500), "server_error", OutcomeUnknown),
        (ProviderError(402), "rejected", OperationFailed),
        (ProviderError(400), "invalid", OperationFailed),
        (ProviderError(404), "invalid", OperationFailed),
        (ProviderError(422), "invalid", OperationFailed),
        (ProviderError(401), "forbidden", OperationFailed),
        (ProviderError(403), "forbidden", OperationFailed),
        (ProviderError(429, {"Retry-After": "7"}), "unavailable", NotSent),
        (TimeoutError("read timed out"), "timeout", OutcomeUnknown),
        (ConnectionResetError("reset by peer"), "timeout", OutcomeUnknown),
        (KeyError("status"), "timeout", OutcomeUnknown),
    ],
)
def test_an_error_after_the_send_is_reported_by_what_it_says(
    raised: Exception, outcome: str, error_type: type[Exception]
) -> None:
    script = ScriptedLedger("planned")
    with ledger_for(script) as ledger, pytest.raises(error_type) as caught, ledger.begin(**ARGS) as op:
        op.mark_sent()
        raise raised
    assert caught.value.__cause__ is raised
    assert script.outcomes[0]["outcome"] == outcome
    if outcome == "unavailable":
        assert script.outcomes[0]["retry_after_s"] == 7


@pytest.mark.parametrize(
    ("use", "outcome", "error_type"),
    [
        (lambda op: None, "not_sent", NotSent),
        (lambda op: op.op_id, "not_sent", NotSent),
        (lambda op: op.key, "timeout", OutcomeUnknown),
        (lambda op: op.metadata, "timeout", OutcomeUnknown),
        (lambda op: op.attempt, "timeout", OutcomeUnknown),
        (lambda op: op.mark_sent(), "timeout", OutcomeUnknown),
    ],
    ids=["nothing used", "the op id only", "the key", "the metadata", "the attempt", "mark_sent"],
)
def test_the_send_begins_at_the_first_use_of_the_key_the_metadata_or_the_attempt_or_at_mark_sent(
    use: Any, outcome: str, error_type: type[Exception]
) -> None:
    script = ScriptedLedger("planned")
    with ledger_for(script) as ledger, pytest.raises(error_type), ledger.begin(**ARGS) as op:
        use(op)
        raise TimeoutError("read timed out")
    assert script.outcomes[0]["outcome"] == outcome


def test_before_the_send_begins_even_an_http_status_is_not_the_providers() -> None:
    script = ScriptedLedger("planned")
    with ledger_for(script) as ledger, pytest.raises(NotSent), ledger.begin(**ARGS):
        raise ProviderError(500)
    assert script.outcomes[0]["outcome"] == "not_sent"


def test_an_outcome_the_ledger_could_not_record_is_unknown() -> None:
    script = ScriptedLedger("planned")
    script.outcome_status = 500
    with ledger_for(script) as ledger, pytest.raises(OutcomeUnknown) as unknown, ledger.begin(**ARGS) as op:
        op.succeeded("re_5")
    assert "could not be recorded" in str(unknown.value) and unknown.value.retryable is False


def test_refused_token_and_unreachable_ledger_are_api_errors() -> None:
    refused = Ledger(
        "https://ledger.example.com",
        "opl_bad",
        transport=httpx.MockTransport(lambda request: error(401, "unauthorized", "Send a valid API token.")),
    )
    with refused, pytest.raises(ApiError) as caught:
        refused.get(OP_ID)
    assert (caught.value.status, caught.value.code, caught.value.retryable) == (401, "unauthorized", False)

    def unreachable(request: httpx.Request) -> httpx.Response:
        raise httpx.ConnectError("connection refused", request=request)

    unreachable_ledger = Ledger("https://ledger.example.com", "opl_test", transport=httpx.MockTransport(unreachable))
    with unreachable_ledger, pytest.raises(ApiError) as caught:
        unreachable_ledger.needs_approval(**ARGS)
    assert (caught.value.status, caught.value.code, caught.value.retryable) == (None, "unreachable", True)
