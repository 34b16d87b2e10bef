"""The async client's main paths against a live server, sending with the Stripe SDK's async calls."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
import stripe

from conftest import Intent, Sandbox
from opledger import AsyncLedger, NotSent, OutcomeUnknown, Settled

pytestmark = pytest.mark.usefixtures("stripe_sdk")


def refund_function(ledger: AsyncLedger, sends: list[str], fail_before_send: bool = False) -> Any:
    @ledger.operation(
        kind="refund",
        provider="stripe",
        op_id=lambda intent: intent.op_id,
        subject=lambda intent: f"order:{intent.order}",
        params=lambda intent: intent.begin_args()["params"],
        send_deadline_s=5,
    )
    async def refund(intent: Intent, *, op: Any) -> stripe.Refund:
        await asyncio.sleep(0.5)
        if fail_before_send:
            raise LookupError("no such line item")
        op.mark_sent()
        sends.append(op.key)
        return await stripe.Refund.create_async(
            payment_intent=intent.payment_intent,
            amount=intent.amount,
            idempotency_key=op.key,
            metadata=op.metadata,
        )

    return refund


async def test_async_decorator_refunds_once(aledger: AsyncLedger, sandbox: Sandbox, intent: Intent) -> None:
    sends: list[str] = []
    refund = refund_function(aledger, sends)
    first = await refund(intent)
    assert (first.state, first.sent_now) == ("succeeded", True)
    assert first.external_id == first.value.id
    again = await refund(intent)
    assert (again.state, again.sent_now, again.external_id) == ("succeeded", False, first.external_id)
    assert len(sends) == 1 and len(sandbox.refunds(intent.op_id)) == 1


async def test_async_context_manager_refunds_once(aledger: AsyncLedger, sandbox: Sandbox, intent: Intent) -> None:
    async with aledger.begin(**intent.begin_args(), send_deadline_s=5) as op:
        op.mark_sent()
        created = await stripe.Refund.create_async(
            payment_intent=intent.payment_intent, amount=intent.amount, idempotency_key=op.key, metadata=op.metadata
        )
        op.record(created)
    assert op.result is not None and (op.result.state, op.result.external_id) == ("succeeded", created.id)

    reached: list[str] = []
    async with aledger.begin(**intent.begin_args()) as again:
        reached.append(again.key)
    assert reached == []
    assert again.result is not None and (again.result.sent_now, again.result.external_id) == (False, created.id)
    assert len(sandbox.refunds(intent.op_id)) == 1


async def test_async_same_intent_at_once_sends_once(aledger: AsyncLedger, sandbox: Sandbox, intent: Intent) -> None:
    sends: list[str] = []
    refund = refund_function(aledger, sends)
    results = await asyncio.gather(refund(intent), refund(intent), return_exceptions=True)

    assert len(sends) == 1
    sent = [r for r in results if isinstance(r, Settled) and r.sent_now]
    [other] = [r for r in results if not (isinstance(r, Settled) and r.sent_now)]
    assert len(sent) == 1, results
    if isinstance(other, Settled):
        assert other.external_id == sent[0].external_id
    else:
        assert isinstance(other, OutcomeUnknown), other
    assert len(sandbox.refunds(intent.op_id)) == 1
    assert (await aledger.settled(intent.op_id, timeout_s=30)).external_id == sent[0].external_id


async def test_async_error_before_send_is_not_sent(aledger: AsyncLedger, sandbox: Sandbox, intent: Intent) -> None:
    with pytest.raises(NotSent) as not_sent:
        await refund_function(aledger, [], fail_before_send=True)(intent)
    assert not_sent.value.retryable and isinstance(not_sent.value.__cause__, LookupError)
    assert (await aledger.get(intent.op_id))["state"] == "planned"

    sends: list[str] = []
    settled = await refund_function(aledger, sends)(intent)
    assert settled.sent_now and len(sends) == 1 and len(sandbox.refunds(intent.op_id)) == 1


async def test_async_timeout_after_send_is_unknown_then_settled(
    aledger: AsyncLedger, sandbox: Sandbox, intent: Intent, short_stripe_timeout: None
) -> None:
    sandbox.fault(intent.op_id, "drop_response", ms=6000)
    sends: list[str] = []
    refund = refund_function(aledger, sends)
    with pytest.raises(OutcomeUnknown) as unknown:
        await refund(intent)
    assert "do not send again" in str(unknown.value)
    assert (await aledger.wait(intent.op_id, timeout_s=0))["state"] == "unknown"
    settled = await aledger.settled(intent.op_id, timeout_s=60)
    [created] = sandbox.refunds(intent.op_id)
    assert (settled.state, settled.external_id) == ("succeeded", created["id"])
    assert len(sends) == 1
