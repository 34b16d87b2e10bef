"""A Pydantic AI agent refunds one line item through opledger, with a manager's approval.

    python pydantic_ai_refund.py ORDER LINE AMOUNT_MINOR CURRENCY PAYMENT_INTENT

The refund tool's op id comes from the business intent (`refund-{order}-{line}`), never from the
run. Before it sends, the tool asks the ledger's policy: `ledger.needs_approval(...)` records the
intent and says whether it waits for a person; if so the tool raises `ApprovalRequired` and the run
ends with `DeferredToolRequests`. The script prints one JSON line with the console link where a
manager decides:

    {"waiting_for_approval": "http://…/operations/refund-1043-li_2", "op_id": "refund-1043-li_2"}

It then waits for the manager's decision in the ledger and resumes the run with the original
messages and `DeferredToolResults(approvals={call_id: True})`, or `ToolDenied(<the ledger's
words>)` when the manager denied it. The approved tool runs through `@ledger.operation`: a refund
approved in the console has been sent by the server already, so the tool returns its result
without sending; one still `approved` is sent here with the Stripe SDK (env `OPLEDGER_STRIPE_URL`,
`OPLEDGER_STRIPE_KEY`). Last line:

    {"result": "<the agent's final answer>", "state": "succeeded", "op_id": "refund-1043-li_2"}

Env: `OPLEDGER_URL`, `OPLEDGER_TOKEN` (scopes read and write), optional `OPLEDGER_CONSOLE_URL`
(defaults to `OPLEDGER_URL`) and `OPLEDGER_APPROVAL_TIMEOUT_S` (default 900). The model is a
`FunctionModel` that calls the tool once, then answers with what the tool said, so the example runs
without a model provider; put a real model name in `Agent(…)` instead.
"""

from __future__ import annotations

import json
import os
import sys
import time

import stripe
from pydantic_ai import (
    Agent,
    ApprovalRequired,
    DeferredToolRequests,
    DeferredToolResults,
    RunContext,
    ToolDenied,
)
from pydantic_ai.messages import ModelMessage, ModelRequest, ModelResponse, TextPart, ToolCallPart, ToolReturnPart
from pydantic_ai.models.function import AgentInfo, FunctionModel

from opledger import Ledger, OpledgerError, OutcomeUnknown

LEDGER_URL = os.environ["OPLEDGER_URL"].rstrip("/")
CONSOLE_URL = os.environ.get("OPLEDGER_CONSOLE_URL", LEDGER_URL).rstrip("/")
APPROVAL_TIMEOUT_S = float(os.environ.get("OPLEDGER_APPROVAL_TIMEOUT_S", "900"))

ledger = Ledger(LEDGER_URL, os.environ["OPLEDGER_TOKEN"], console_url=CONSOLE_URL)


def refund_intent(order: str, line: str, amount_minor: int, currency: str, payment_intent: str) -> dict:
    """The business intent of refunding one line item: the same order and line give the same op id."""
    return {
        "kind": "refund",
        "op_id": f"refund-{order}-{line}",
        "subject": f"order:{order}",
        "provider": "stripe",
        "params": {
            "payment_intent": payment_intent,
            "amount": {"minor": amount_minor, "currency": currency},
            "order": order,
            "line_item": line,
            "reason": "requested_by_customer",
        },
    }


@ledger.operation(
    kind="refund",
    provider="stripe",
    op_id=lambda order, line, amount_minor, currency, payment_intent: f"refund-{order}-{line}",
    subject=lambda order, line, amount_minor, currency, payment_intent: f"order:{order}",
    params=lambda order, line, amount_minor, currency, payment_intent: refund_intent(
        order, line, amount_minor, currency, payment_intent
    )["params"],
    send_deadline_s=30,
)
def send_refund(order: str, line: str, amount_minor: int, currency: str, payment_intent: str, *, op):
    """Sends the refund to Stripe under the ledger's key; runs only when the ledger says to send."""
    stripe_url, stripe_key = os.environ.get("OPLEDGER_STRIPE_URL"), os.environ.get("OPLEDGER_STRIPE_KEY")
    if not (stripe_url and stripe_key):
        raise RuntimeError("No Stripe account configured (OPLEDGER_STRIPE_URL, OPLEDGER_STRIPE_KEY): not sent.")
    client = stripe.StripeClient(stripe_key, base_addresses={"api": stripe_url})
    op.mark_sent()  # from here on a failure means "result unknown", never "not sent"
    return client.v1.refunds.create(
        params={"payment_intent": payment_intent, "amount": amount_minor, "metadata": op.metadata},
        options={"idempotency_key": op.key},
    )


def script(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
    """The model: first a call of the refund tool with the customer's line item, then an answer that
    repeats what the tool said (or the manager's denial)."""
    returns = [part for message in messages if isinstance(message, ModelRequest)
               for part in message.parts if isinstance(part, ToolReturnPart)]
    if returns:
        return ModelResponse(parts=[TextPart(str(returns[-1].content))])
    request = json.loads(str(messages[0].parts[-1].content))
    return ModelResponse(parts=[ToolCallPart("refund_line_item", request, tool_call_id="call_refund_1")])


agent = Agent(
    FunctionModel(script),
    output_type=[str, DeferredToolRequests],
    instructions="Refund the line item the customer asks for with refund_line_item, then say what happened.",
)


@agent.tool
def refund_line_item(ctx: RunContext[None], order: str, line: str, amount_minor: int, currency: str,
                     payment_intent: str) -> str:
    """Refunds one line item of an order. Safe to call again: the ledger never refunds a line twice.

    Args:
        order: The order id.
        line: The line item id.
        amount_minor: The amount in the currency's minor unit.
        currency: Three upper-case letters, e.g. TWD.
        payment_intent: The Stripe payment intent that paid the order.
    """
    intent = refund_intent(order, line, amount_minor, currency, payment_intent)
    op_id = intent["op_id"]
    try:
        if not ctx.tool_call_approved and ledger.needs_approval(**intent):
            raise ApprovalRequired(metadata={"op_id": op_id})
        try:
            settled = send_refund(order, line, amount_minor, currency, payment_intent)
        except OutcomeUnknown:
            # Someone sent it already (a refund approved in the console is sent by the server at
            # once) or its answer was lost: never send again, wait for the ledger's result.
            settled = ledger.settled(op_id, timeout_s=60)
    except OpledgerError as error:
        # The ledger's words (denied, failed, not sent, or unknown: do not retry), and what went wrong here.
        cause = error.__cause__
        return f"{error} ({cause})" if cause is not None and not isinstance(cause, OpledgerError) else str(error)
    how = "sent now" if settled.sent_now else "found settled in the ledger, not sent again"
    return f"{op_id} {settled.state} as {settled.external_id} ({how}): {settled.message}"


def wait_for_decision(op_id: str) -> dict:
    """Waits in the ledger until a person decided the operation (or the timeout passes)."""
    deadline = time.monotonic() + APPROVAL_TIMEOUT_S
    view = ledger.get(op_id)
    while view["state"] == "pending_approval" and time.monotonic() < deadline:
        view = ledger.wait(op_id, timeout_s=min(60.0, max(1.0, deadline - time.monotonic())))
    if view["state"] == "approved":
        # A refund approved in the console is sent by the server at once: give it a moment, so the
        # tool finds it sent instead of sending it itself.
        view = ledger.wait(op_id, timeout_s=10)
    return view


def main(order: str, line: str, amount_minor: int, currency: str, payment_intent: str) -> int:
    request = {"order": order, "line": line, "amount_minor": amount_minor, "currency": currency,
               "payment_intent": payment_intent}
    op_id = refund_intent(**request)["op_id"]
    result = agent.run_sync(json.dumps(request))
    while isinstance(result.output, DeferredToolRequests):
        approvals: dict[str, bool | ToolDenied] = {}
        for call in result.output.approvals:
            call_op = result.output.metadata[call.tool_call_id]["op_id"]
            print(json.dumps({"waiting_for_approval": f"{CONSOLE_URL}/operations/{call_op}", "op_id": call_op}),
                  flush=True)
            decided = wait_for_decision(call_op)
            if decided["state"] == "pending_approval":
                print(json.dumps({"result": "no decision in time", "state": "pending_approval", "op_id": call_op}))
                return 3
            if decided["state"] in ("denied", "cancelled"):
                approvals[call.tool_call_id] = ToolDenied(f"{call_op} was {decided['state']}: {decided['message']}")
            else:
                approvals[call.tool_call_id] = True
        result = agent.run_sync(
            message_history=result.all_messages(),
            deferred_tool_results=DeferredToolResults(approvals=approvals),
        )
    final = ledger.get(op_id)
    print(json.dumps({"result": result.output, "state": final["state"], "op_id": op_id}), flush=True)
    return 0 if final["state"] in ("succeeded", "accepted", "denied") else 1


if __name__ == "__main__":
    if len(sys.argv) != 6:
        sys.exit(__doc__)
    order_, line_, amount_, currency_, payment_intent_ = sys.argv[1:]
    sys.exit(main(order_, line_, int(amount_), currency_, payment_intent_))
