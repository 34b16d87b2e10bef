"""An OpenAI Agents SDK agent refunds one line item through opledger, with a manager's approval.

    python openai_agents_refund.py ORDER LINE AMOUNT_MINOR CURRENCY PAYMENT_INTENT

The refund tool's op id comes from the business intent (`refund-{order}-{line}`), never from the
run. Its `needs_approval` hook asks the ledger's policy: `ledger.needs_approval(...)` records the
intent and says whether it waits for a person. If it does, the run stops with an interruption and
the script prints one JSON line with the console link where a manager decides:

    {"waiting_for_approval": "http://…/operations/refund-1043-li_2", "op_id": "refund-1043-li_2"}

It then waits for the manager's decision in the ledger, approves or rejects the interrupted call
(`state.approve(item)` / `state.reject(item, rejection_message=…)`) and resumes the run. The tool
runs through `@ledger.operation`: a refund approved in the console has been sent by the server
already, so the tool returns its result without sending; one still `approved` is sent here with
the Stripe SDK (env `OPLEDGER_STRIPE_URL`, `OPLEDGER_STRIPE_KEY`). Last line:

    {"result": "<the agent's final answer>", "state": "succeeded", "op_id": "refund-1043-li_2"}

Env: `OPLEDGER_URL`, `OPLEDGER_TOKEN` (scopes read and write), optional `OPLEDGER_CONSOLE_URL`
(defaults to `OPLEDGER_URL`) and `OPLEDGER_APPROVAL_TIMEOUT_S` (default 900). The model is
scripted (`agents.testing.ScriptedModel`): it calls the tool once, then answers with what the tool
said, so the example runs without an OpenAI key; put a real model name in `Agent(model=…)` instead.
"""

from __future__ import annotations

import asyncio
import json
import os
import sys
import time

import stripe
from agents import Agent, RunContextWrapper, Runner, function_tool, set_tracing_disabled
from agents.testing import ModelCall, ModelStep, ScriptedModel, assistant_message, function_call

from opledger import AsyncLedger, OpledgerError, OutcomeUnknown

LEDGER_URL = os.environ["OPLEDGER_URL"].rstrip("/")
CONSOLE_URL = os.environ.get("OPLEDGER_CONSOLE_URL", LEDGER_URL).rstrip("/")
APPROVAL_TIMEOUT_S = float(os.environ.get("OPLEDGER_APPROVAL_TIMEOUT_S", "900"))

ledger = AsyncLedger(LEDGER_URL, os.environ["OPLEDGER_TOKEN"], console_url=CONSOLE_URL)


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
async def send_refund(order: str, line: str, amount_minor: int, currency: str, payment_intent: str, *, op):
    """Sends the refund to Stripe under the ledger's key; runs only when the ledger says to send."""
    stripe_url, stripe_key = os.environ.get("OPLEDGER_STRIPE_URL"), os.environ.get("OPLEDGER_STRIPE_KEY")
    if not (stripe_url and stripe_key):
        raise RuntimeError("No Stripe account configured (OPLEDGER_STRIPE_URL, OPLEDGER_STRIPE_KEY): not sent.")
    client = stripe.StripeClient(stripe_key, base_addresses={"api": stripe_url}, http_client=stripe.HTTPXClient())
    op.mark_sent()  # from here on a failure means "result unknown", never "not sent"
    return await client.v1.refunds.create_async(
        params={"payment_intent": payment_intent, "amount": amount_minor, "metadata": op.metadata},
        options={"idempotency_key": op.key},
    )


async def ask_the_ledger(ctx: RunContextWrapper, params: dict, call_id: str) -> bool:
    """The tool's approval hook: records the intent and asks the tenant's policy."""
    try:
        return await ledger.needs_approval(**refund_intent(**params))
    except OpledgerError:
        return False  # the tool then meets the same refusal and tells the model; it sends nothing


@function_tool(needs_approval=ask_the_ledger)
async def refund_line_item(order: str, line: str, amount_minor: int, currency: str, payment_intent: str) -> str:
    """Refunds one line item of an order. Safe to call again: the ledger never refunds a line twice.

    Args:
        order: The order id.
        line: The line item id.
        amount_minor: The amount in the currency's minor unit.
        currency: Three upper-case letters, e.g. TWD.
        payment_intent: The Stripe payment intent that paid the order.
    """
    op_id = refund_intent(order, line, amount_minor, currency, payment_intent)["op_id"]
    try:
        try:
            settled = await send_refund(order, line, amount_minor, currency, payment_intent)
        except OutcomeUnknown:
            # Someone sent it already (a refund approved in the console is sent by the server at
            # once) or its answer was lost: never send again, wait for the ledger's result.
            settled = await ledger.settled(op_id, timeout_s=60)
    except OpledgerError as error:
        # The ledger's words (denied, failed, not sent, or unknown: do not retry), and what went wrong here.
        cause = error.__cause__
        return f"{error} ({cause})" if cause is not None and not isinstance(cause, OpledgerError) else str(error)
    how = "sent now" if settled.sent_now else "found settled in the ledger, not sent again"
    return f"{op_id} {settled.state} as {settled.external_id} ({how}): {settled.message}"


def answer_with_the_tool_output(call: ModelCall) -> list:
    """The scripted model's last turn: it repeats what the tool answered (or the rejection)."""
    outputs = [i for i in call.input if isinstance(i, dict) and i.get("type") == "function_call_output"]
    return [assistant_message(str(outputs[-1]["output"]) if outputs else "No refund was made.")]


async def wait_for_decision(op_id: str) -> dict:
    """Waits in the ledger until a person decided the operation (or the timeout passes)."""
    deadline = time.monotonic() + APPROVAL_TIMEOUT_S
    view = await ledger.get(op_id)
    while view["state"] == "pending_approval" and time.monotonic() < deadline:
        view = await ledger.wait(op_id, timeout_s=min(60.0, max(1.0, deadline - time.monotonic())))
    if view["state"] == "approved":
        # A refund approved in the console is sent by the server at once: give it a moment, so the
        # tool finds it sent instead of sending it itself.
        view = await ledger.wait(op_id, timeout_s=10)
    return view


async def main(order: str, line: str, amount_minor: int, currency: str, payment_intent: str) -> int:
    set_tracing_disabled(True)
    arguments = {"order": order, "line": line, "amount_minor": amount_minor, "currency": currency,
                 "payment_intent": payment_intent}
    model = ScriptedModel([
        [function_call("refund_line_item", arguments, call_id="call_refund_1")],
        ModelStep.respond(answer_with_the_tool_output),
    ])
    agent = Agent(
        name="Refund agent",
        instructions="Refund the line item the customer asks for with refund_line_item, then say what happened.",
        tools=[refund_line_item],
        model=model,
    )
    op_id = refund_intent(**arguments)["op_id"]
    result = await Runner.run(agent, f"Please refund line {line} of order {order}.")
    while result.interruptions:
        state = result.to_state()
        for item in result.interruptions:
            item_op = refund_intent(**json.loads(item.arguments))["op_id"]
            print(json.dumps({"waiting_for_approval": f"{CONSOLE_URL}/operations/{item_op}", "op_id": item_op}),
                  flush=True)
            decided = await wait_for_decision(item_op)
            if decided["state"] == "pending_approval":
                print(json.dumps({"result": "no decision in time", "state": "pending_approval", "op_id": item_op}))
                return 3
            if decided["state"] in ("denied", "cancelled"):
                state.reject(item, rejection_message=f"{item_op} was {decided['state']}: {decided['message']}")
            else:
                state.approve(item)
        result = await Runner.run(agent, state)
    final = await ledger.get(op_id)
    print(json.dumps({"result": result.final_output, "state": final["state"], "op_id": op_id}), flush=True)
    return 0 if final["state"] in ("succeeded", "accepted", "denied") else 1


if __name__ == "__main__":
    if len(sys.argv) != 6:
        sys.exit(__doc__)
    order_, line_, amount_, currency_, payment_intent_ = sys.argv[1:]
    sys.exit(asyncio.run(main(order_, line_, int(amount_), currency_, payment_intent_)))
