"""Refunds through the client with the official Stripe SDK, against a live server and its sandbox.

Each test counts what the sandbox really created (its ledger of objects): whatever the client is
told, a refund exists at most once.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from typing import Any

import pytest
import stripe

from conftest import CURRENCY, Intent, Sandbox
from opledger import (
    ApiError,
    IdempotencyConflict,
    InvalidRequest,
    Ledger,
    NotSent,
    OutcomeUnknown,
    Settled,
)

pytestmark = pytest.mark.usefixtures("stripe_sdk")


def send_refund(intent: Intent, op: Any) -> stripe.Refund:
    return stripe.Refund.create(
        payment_intent=intent.payment_intent,
        amount=intent.amount,
        idempotency_key=op.key,
        metadata=op.metadata,
    )


def refund_function(ledger: Ledger, sends: list[str], before_send: Callable[[], None] = lambda: None) -> Any:
    """A decorated refund of an order's line item, keeping a note of each send it makes."""

    @ledger.operation(
        kind="refund",
        provider="stripe",
        op_id=lambda intent: intent.op_id,
        subject=lambda intent: f"order:{intent.order}",
        params=lambda intent: intent.begin_args()["params"],
        send_deadline_s=5,
    )
    def refund(intent: Intent, *, op: Any) -> stripe.Refund:
        before_send()
        op.mark_sent()
        sends.append(op.key)
        return send_refund(intent, op)

    return refund


def test_decorator_refunds_once_and_returns_the_result_again(ledger: Ledger, sandbox: Sandbox, intent: Intent) -> None:
    sends: list[str] = []
    refund = refund_function(ledger, sends)

    first = refund(intent)
    assert isinstance(first, Settled)
    assert (first.state, first.sent_now) == ("succeeded", True)
    assert first.external_id is not None and first.external_id.startswith("re_")
    assert first.external_id == first.value.id
    assert first.external_refs == [f"stripe/refund/{first.external_id}"]
    assert first.operation["state"] == "succeeded"
    assert first.message == f"Refunded now as {first.external_id}; do not send it again.", "the sender is told it did it"

    again = refund(intent)
    assert (again.state, again.sent_now, again.value) == ("succeeded", False, None)
    assert again.external_id == first.external_id
    assert again.message == "Already done earlier; nothing was sent now.", "a repeat is told it was done before"
    assert sends == [f"{ledger.get(intent.op_id)['idempotency_key']}"]
    [created] = sandbox.refunds(intent.op_id)
    assert created["id"] == first.external_id and created["amount"] == intent.amount
    assert len(ledger.get(intent.op_id)["attempts"]) == 1


def test_context_manager_refunds_once_and_skips_the_block_when_done(
    ledger: Ledger, sandbox: Sandbox, intent: Intent
) -> None:
    with ledger.begin(**intent.begin_args(), send_deadline_s=5) as op:
        assert op.op_id == intent.op_id and op.attempt == 1
        assert op.key.endswith(f":{intent.op_id}")
        assert op.metadata == {"op_id": intent.op_id, "tenant": sandbox.server.tenant}
        op.mark_sent()
        created = send_refund(intent, op)
        op.record(created)
    assert op.result is not None
    assert (op.result.state, op.result.sent_now, op.result.external_id) == ("succeeded", True, created.id)
    assert op.result.value is created

    reached: list[str] = []
    with ledger.begin(**intent.begin_args(), send_deadline_s=5) as again:
        reached.append("block")
        send_refund(intent, again)
        reached.append("sent")
    assert reached == ["block"]
    assert again.result is not None
    assert (again.result.state, again.result.sent_now, again.result.external_id) == ("succeeded", False, created.id)
    assert len(sandbox.refunds(intent.op_id)) == 1


def test_same_intent_in_two_threads_at_once_sends_once(ledger: Ledger, sandbox: Sandbox, intent: Intent) -> None:
    sends: list[str] = []
    start = threading.Barrier(2)
    refund = refund_function(ledger, sends, before_send=lambda: time.sleep(0.5))
    results: list[Settled | BaseException] = []

    def run() -> None:
        start.wait()
        try:
            results.append(refund(intent))
        except BaseException as exc:
            results.append(exc)

    threads = [threading.Thread(target=run) for _ in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(30)

    assert len(sends) == 1
    sent = [r for r in results if isinstance(r, Settled) and r.sent_now]
    others = [r for r in results if not (isinstance(r, Settled) and r.sent_now)]
    assert len(sent) == 1 and len(others) == 1, results
    [other] = others
    if isinstance(other, Settled):
        assert other.external_id == sent[0].external_id
    else:
        assert isinstance(other, OutcomeUnknown) and not other.retryable, other
    assert len(sandbox.refunds(intent.op_id)) == 1
    assert ledger.settled(intent.op_id, timeout_s=30).external_id == sent[0].external_id


def test_timeout_after_the_send_is_unknown_then_settled_by_the_ledger(
    ledger: Ledger, sandbox: Sandbox, intent: Intent, short_stripe_timeout: None
) -> None:
    sandbox.fault(intent.op_id, "drop_response", ms=6000)
    sends: list[str] = []
    refund = refund_function(ledger, sends)

    with pytest.raises(OutcomeUnknown) as unknown:
        refund(intent)
    assert "Result unknown; do not send again" in str(unknown.value)
    assert unknown.value.retryable is False
    assert isinstance(unknown.value.__cause__, stripe.APIConnectionError)
    view = ledger.get(intent.op_id)
    assert view["state"] == "unknown"
    assert view["attempts"][0]["outcome"] == "timeout"

    settled = ledger.settled(intent.op_id, timeout_s=60)
    [created] = sandbox.refunds(intent.op_id)
    assert (settled.state, settled.external_id, settled.sent_now) == ("succeeded", created["id"], False)
    assert len(sends) == 1
    assert len(ledger.get(intent.op_id)["attempts"]) == 1


def test_error_before_mark_sent_is_not_sent_and_the_op_can_be_sent_again(
    ledger: Ledger, sandbox: Sandbox, intent: Intent
) -> None:
    def broken() -> None:
        raise ValueError("the order could not be read")

    with pytest.raises(NotSent) as not_sent:
        refund_function(ledger, [], before_send=broken)(intent)
    assert not_sent.value.retryable is True
    assert isinstance(not_sent.value.__cause__, ValueError)
    view = ledger.get(intent.op_id)
    assert view["state"] == "planned"
    assert view["attempts"][0]["outcome"] == "not_sent"
    assert sandbox.refunds(intent.op_id) == []

    sends: list[str] = []
    settled = refund_function(ledger, sends)(intent)
    assert (settled.state, settled.sent_now) == ("succeeded", True)
    assert len(sends) == 1 and len(sandbox.refunds(intent.op_id)) == 1
    assert [a["outcome"] for a in ledger.get(intent.op_id)["attempts"]] == ["not_sent", "succeeded"]


@pytest.mark.parametrize(
    ("change", "field"),
    [
        ({"op_id": "refund 1043 li_2"}, "op_id"),
        ({"params": {"payment_intent": "pi_1043"}}, "params.amount"),
        (
            {"params": {"payment_intent": "pi_1043", "amount": {"minor": 380.5, "currency": CURRENCY}}},
            "params.amount.minor",
        ),
        (
            {"params": {"payment_intent": "pi_1043", "amount": {"minor": 38000, "currency": CURRENCY}, "rate": 0.5}},
            "params.rate",
        ),
        ({"kind": "Refund"}, "kind"),
        ({"subject": ""}, "subject"),
    ],
)
def test_bad_input_is_refused_before_anything_is_sent(
    ledger: Ledger, sandbox: Sandbox, intent: Intent, change: dict[str, Any], field: str
) -> None:
    args = {**intent.begin_args(), **change}
    reached: list[str] = []
    with pytest.raises(InvalidRequest) as invalid, ledger.begin(**args):
        reached.append("block")
    assert invalid.value.field == field and invalid.value.retryable is False
    assert reached == []
    for op_id in {args["op_id"], intent.op_id}:
        with pytest.raises(ApiError) as missing:
            ledger.get(op_id)
        assert (missing.value.status, missing.value.code) == (404, "not_found")
    assert sandbox.refunds(intent.op_id) == []


def test_send_deadline_out_of_bounds_is_refused(ledger: Ledger, intent: Intent) -> None:
    with pytest.raises(InvalidRequest) as invalid, ledger.begin(**intent.begin_args(), send_deadline_s=601):
        pass
    assert invalid.value.field == "send_deadline_s"
    with pytest.raises(ApiError):
        ledger.get(intent.op_id)


def test_same_op_id_with_another_amount_is_a_conflict(ledger: Ledger, sandbox: Sandbox, intent: Intent) -> None:
    assert ledger.needs_approval(**intent.begin_args()) is False
    other = Intent(intent.order, intent.payment_intent, amount=intent.amount - 1000)
    reached: list[str] = []
    with pytest.raises(IdempotencyConflict) as conflict, ledger.begin(**other.begin_args()):
        reached.append("block")
    assert reached == []
    error = conflict.value
    assert error.op_id == intent.op_id and error.retryable is False
    [amount] = error.diff
    assert amount["field"].removeprefix("params.") == "amount"
    assert (amount["stored"]["minor"], amount["requested"]["minor"]) == (intent.amount, other.amount)
    assert error.stored["op_id"] == intent.op_id
    assert error.stored["params"]["amount"] == {"minor": intent.amount, "currency": CURRENCY}
    assert ledger.get(intent.op_id)["state"] == "planned"
    assert sandbox.refunds(intent.op_id) == []


def test_wait_returns_once_the_state_moves(ledger: Ledger, intent: Intent) -> None:
    ledger.needs_approval(**intent.begin_args())
    assert ledger.wait(intent.op_id, timeout_s=1)["state"] == "planned"
    with pytest.raises(OutcomeUnknown):
        ledger.settled(intent.op_id, timeout_s=1)
