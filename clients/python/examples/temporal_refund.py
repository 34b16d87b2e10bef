"""A Pydantic AI agent refunds one line item in a Temporal workflow, recorded in opledger so that
neither Temporal's retries nor the model's own repeats ever refund it twice.

    pip install ./clients/python -r clients/python/examples/requirements.txt
    export OPLEDGER_URL=http://127.0.0.1:3000 OPLEDGER_TOKEN=opl_… STRIPE_API_KEY=sk_test_…
    export TEMPORAL_ADDRESS=localhost:7233
    python temporal_refund.py worker                                # runs the workflow and its activities
    python temporal_refund.py refund 1043 li_2 38000 TWD pi_1043    # asks for a refund, prints its outcome

The agent is made durable by Pydantic AI's `TemporalDurability` capability: every model request and
every call of the refund tool is a Temporal activity, which Temporal runs again when it fails, times
out or its worker dies. An activity can have sent the refund before that happened, and the model
can call the tool again of its own accord (a new activity, so Temporal's advised key of Run ID plus
Activity ID is new too). So the tool records the refund in the ledger under an op id derived from
the business intent (`refund-{order}-{line}`), never from the run or the activity, sends it with
the official Stripe SDK under the key the ledger hands out, and answers the model with the ledger's
words: `succeeded: …` (sent now, or found done and not sent again), `unknown: …` (it may have
happened: do not send again), `pending_approval: …` (over the tenant's approval threshold: a
manager decides in the review console), `denied: …`, `conflict: …` (the line's refund is recorded
with other parameters: each differing field as stored and as requested; nothing sent), `invalid: …`
(the ledger could never take the request, e.g. a send deadline outside 1 to 600 s; nothing
recorded), or `failed: …`. An attempt that finds the refund in flight (Temporal retried it while
the first was still sending) answers `unknown` at once: the tool never waits, since a wait would
count against the tool activity's `start_to_close_timeout`.

After the agent run, the workflow waits for the ledger's outcome in an activity of its own that
heartbeats while it waits with `ledger.wait` (the API's `?wait=`): while the ledger looks the
refund up, and while it waits for a manager, whose approval has the server send the refund itself
(the agent never sends it again: asked again, the tool finds it done). It returns the outcome with
the agent's answer as one JSON line; `denial_reason` is the manager's reason when they denied it:

    {"op_id": "refund-1043-li_2", "state": "succeeded", "refund_id": "re_…", "message": "…",
     "denial_reason": null, "answer": "…"}

The outcome is always the line's refund as the ledger holds it: a request that conflicts with the
recorded one ends with that refund's state and an answer saying what differs, and a request the
ledger never recorded ends `not_recorded`.

The workflow id comes from the business intent too (`refund-line-item-{order}-{line}`): asking for
the same refund while it runs joins the running workflow.

Timing, in seconds (the environment can set each; the test suite makes them short):
  REFUND_TOOL_TIMEOUT_S   60  the tool activity's start_to_close_timeout (Pydantic AI's default)
  REFUND_TOOL_HEARTBEAT_S 10  the tool activity's heartbeat_timeout: without one Temporal notices a
                              dead worker only once the whole start_to_close_timeout has passed
  REFUND_SEND_DEADLINE_S  30  how long the ledger holds a send as in flight before it looks the
                              refund up at Stripe; the Stripe SDK gives up after two thirds of it

Also TEMPORAL_TASK_QUEUE (default opledger-refunds) and STRIPE_API_BASE (a Stripe sandbox). The
model is a `FunctionModel` that needs no provider and behaves as a careless model does: it calls
the tool, calls it again while the answer is `failed` or `unknown` (at most three calls), then
repeats the last answer. Put a real model name in `Agent(…)` instead.
"""

from __future__ import annotations

import asyncio
import functools
import json
import os
import sys
from datetime import timedelta
from typing import Any

from pydantic import BaseModel
from pydantic_ai import Agent
from pydantic_ai.durable_exec.temporal import PydanticAIPlugin, PydanticAIWorkflow, TemporalDurability
from pydantic_ai.messages import ModelMessage, ModelRequest, ModelResponse, TextPart, ToolCallPart, ToolReturnPart
from pydantic_ai.models.function import AgentInfo, FunctionModel
from temporalio import activity, workflow
from temporalio.client import Client
from temporalio.common import WorkflowIDConflictPolicy
from temporalio.worker import Worker
from temporalio.workflow import ActivityConfig

with workflow.unsafe.imports_passed_through():
    import stripe

    from opledger import (
        ApiError,
        ApprovalPending,
        AsyncLedger,
        Denied,
        IdempotencyConflict,
        InvalidRequest,
        Ledger,
        OpledgerError,
        OutcomeUnknown,
        Settled,
    )

TASK_QUEUE = os.environ.get("TEMPORAL_TASK_QUEUE", "opledger-refunds")
TOOL_TIMEOUT_S = float(os.environ.get("REFUND_TOOL_TIMEOUT_S", "60"))
TOOL_HEARTBEAT_S = float(os.environ.get("REFUND_TOOL_HEARTBEAT_S", "10"))
SEND_DEADLINE_S = int(os.environ.get("REFUND_SEND_DEADLINE_S", "30"))
STRIPE_TIMEOUT_S = SEND_DEADLINE_S * 2 / 3
# The states in which the refund may still be sent or settle: waiting for a manager's decision,
# approved and being sent by the server, or under way. The workflow waits for the ledger to leave them.
UNDECIDED = ("pending_approval", "approved", "submitted", "unknown")
MAX_TOOL_CALLS = 3


class RefundRequest(BaseModel):
    """One line item to refund: what the customer asked for, and what the workflow starts with."""

    order: str
    line: str
    amount_minor: int
    currency: str
    payment_intent: str

    @property
    def op_id(self) -> str:
        return refund_op_id(self.order, self.line)


class RefundOutcome(BaseModel):
    """The refund as the ledger holds it at the end of the workflow, with the agent's last answer;
    `denial_reason` is the manager's reason when they denied it."""

    op_id: str
    state: str
    refund_id: str | None
    message: str
    denial_reason: str | None = None
    answer: str = ""


def refund_op_id(order: str, line: str) -> str:
    """The op id of refunding a line item: the same order and line always give the same one."""
    return f"refund-{order}-{line}"


@functools.cache
def ledger() -> Ledger:
    return Ledger(os.environ["OPLEDGER_URL"], os.environ["OPLEDGER_TOKEN"])


@functools.cache
def stripe_client() -> stripe.StripeClient:
    return stripe.StripeClient(
        os.environ["STRIPE_API_KEY"],
        base_addresses={"api": os.environ.get("STRIPE_API_BASE", stripe.DEFAULT_API_BASE)},
        http_client=stripe.RequestsClient(timeout=STRIPE_TIMEOUT_S),
        max_network_retries=0,
    )


def send_refund(request: RefundRequest) -> Settled:
    """Records the refund in the ledger, then sends it to Stripe under the ledger's key, unless the
    ledger says it is done (returned without sending) or may have been sent (`OutcomeUnknown`)."""
    with ledger().begin(
        kind="refund",
        op_id=request.op_id,
        subject=f"order:{request.order}",
        provider="stripe",
        params={
            "payment_intent": request.payment_intent,
            "amount": {"minor": request.amount_minor, "currency": request.currency},
            "order": request.order,
            "line_item": request.line,
        },
        send_deadline_s=SEND_DEADLINE_S,
    ) as op:
        op.mark_sent()  # from here on a failure means "result unknown", never "not sent"
        op.record(
            stripe_client().v1.refunds.create(
                params={"payment_intent": request.payment_intent, "amount": request.amount_minor,
                        "metadata": op.metadata},
                options={"idempotency_key": op.key},
            )
        )
    assert op.result is not None
    return op.result


def differences(diff: list[dict[str, Any]]) -> str:
    """The fields of an idempotency conflict in words: each as stored and as requested."""
    fields = "; ".join(f"{d['field']}: stored {json.dumps(d.get('stored'), sort_keys=True)}, "
                       f"requested {json.dumps(d.get('requested'), sort_keys=True)}" for d in diff)
    return f"Differing: {fields}."


def script(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
    """The model: calls refund_line_item with the customer's request, calls it again while the
    answer is `failed` or `unknown` (at most MAX_TOOL_CALLS calls), then repeats the last answer."""
    answers = [str(part.content) for message in messages if isinstance(message, ModelRequest)
               for part in message.parts if isinstance(part, ToolReturnPart)]
    if answers and (not answers[-1].startswith(("failed", "unknown")) or len(answers) >= MAX_TOOL_CALLS):
        return ModelResponse(parts=[TextPart(answers[-1])])
    request = json.loads(str(messages[0].parts[-1].content))
    return ModelResponse(parts=[ToolCallPart("refund_line_item", request, tool_call_id=f"call_{len(answers) + 1}")])


agent = Agent(
    FunctionModel(script),
    name="refund_agent",
    instructions="Refund the line item the customer asks for with refund_line_item, then say what happened.",
    capabilities=[TemporalDurability()],
)


# A plain function, which Pydantic AI runs in a thread of the tool activity: a send cut off by the
# activity's start_to_close_timeout still runs on to Stripe's answer and reports it to the ledger.
@agent.tool_plain(
    metadata={
        "temporal": ActivityConfig(
            start_to_close_timeout=timedelta(seconds=TOOL_TIMEOUT_S),
            heartbeat_timeout=timedelta(seconds=TOOL_HEARTBEAT_S),
        )
    }
)
def refund_line_item(order: str, line: str, amount_minor: int, currency: str, payment_intent: str) -> str:
    """Refunds one line item of an order. Safe to call again: the ledger never refunds a line twice.

    Args:
        order: The order id.
        line: The line item id.
        amount_minor: The amount in the currency's minor unit.
        currency: Three upper-case letters, e.g. TWD.
        payment_intent: The Stripe payment intent that paid the order.
    """
    request = RefundRequest(order=order, line=line, amount_minor=amount_minor, currency=currency,
                            payment_intent=payment_intent)
    try:
        settled = send_refund(request)
    except OutcomeUnknown as error:
        return f"unknown: {error}"
    except ApprovalPending as error:
        return f"pending_approval: {error}"
    except Denied as error:
        return f"denied: {error}"
    except IdempotencyConflict as error:
        return f"conflict: {error} {differences(error.diff)}"
    except InvalidRequest as error:
        return f"invalid: {str(error).rstrip('.')}; nothing was recorded or sent."
    except OpledgerError as error:
        cause = error.__cause__
        detail = f" ({cause})" if cause is not None and not isinstance(cause, OpledgerError) else ""
        return f"failed: {error}{detail}"
    how = "sent now" if settled.sent_now else "found done in the ledger, not sent again"
    return f"{settled.state}: {settled.op_id} as {settled.external_id} ({how}). {settled.message}"


def denial_reason(view: dict[str, Any]) -> str | None:
    """The manager's reason for denying the operation, from its audit trail."""
    denials = [event["reason"] for event in view.get("audit") or [] if event["action"] == "deny"]
    return denials[-1] if denials else None


@activity.defn
async def refund_outcome(op_id: str) -> RefundOutcome:
    """The refund as the ledger holds it once it is decided and no longer in flight, heartbeating
    while a manager decides and while the ledger looks it up; `not_recorded` when no call of the
    tool ever reached the ledger."""
    async with AsyncLedger(os.environ["OPLEDGER_URL"], os.environ["OPLEDGER_TOKEN"]) as client:
        try:
            view = await client.get(op_id)
        except ApiError as error:
            if error.status != 404:
                raise
            return RefundOutcome(op_id=op_id, state="not_recorded", refund_id=None, message=str(error))
        while view["state"] in UNDECIDED:
            activity.heartbeat(view["state"])
            view = await client.wait(op_id, timeout_s=5)
    refs = view["external_refs"]
    return RefundOutcome(op_id=op_id, state=view["state"], refund_id=refs[0].split("/")[-1] if refs else None,
                         message=view["message"], denial_reason=denial_reason(view))


@workflow.defn
class RefundWorkflow(PydanticAIWorkflow):
    """Runs the agent on the customer's request, then waits for the ledger's outcome of the refund."""

    __pydantic_ai_agents__ = (agent,)

    @workflow.run
    async def run(self, request: RefundRequest) -> RefundOutcome:
        result = await agent.run(request.model_dump_json())
        # The wait ends once a manager has decided and the ledger has settled the refund or handed it
        # to a person (needs_review); it only reads the ledger, so Temporal may run it again after a
        # timeout (a decision that takes longer than one attempt) as often as it must.
        outcome = await workflow.execute_activity(
            refund_outcome,
            request.op_id,
            start_to_close_timeout=timedelta(minutes=15),
            heartbeat_timeout=timedelta(seconds=30),
        )
        return outcome.model_copy(update={"answer": result.output})


async def connect() -> Client:
    """A Temporal client with the Pydantic AI plugin, which converts the agent's payloads."""
    return await Client.connect(os.environ.get("TEMPORAL_ADDRESS", "localhost:7233"), plugins=[PydanticAIPlugin()])


def worker(client: Client, task_queue: str = TASK_QUEUE, max_cached_workflows: int = 1000) -> Worker:
    """A worker for the refund workflow; the plugin registers the agent's activities with it."""
    return Worker(client, task_queue=task_queue, workflows=[RefundWorkflow], activities=[refund_outcome],
                  max_cached_workflows=max_cached_workflows)


async def refund(client: Client, request: RefundRequest, task_queue: str = TASK_QUEUE) -> RefundOutcome:
    """Runs the refund workflow for `request` (or joins the one running for it) and returns its outcome."""
    return await client.execute_workflow(
        RefundWorkflow.run,
        request,
        id=f"refund-line-item-{request.order}-{request.line}",
        task_queue=task_queue,
        id_conflict_policy=WorkflowIDConflictPolicy.USE_EXISTING,
    )


async def main(command: str, *args: str) -> int:
    client = await connect()
    if command == "worker":
        await worker(client).run()
        return 0
    order, line, amount_minor, currency, payment_intent = args
    request = RefundRequest(order=order, line=line, amount_minor=int(amount_minor), currency=currency,
                            payment_intent=payment_intent)
    outcome = await refund(client, request)
    print(outcome.model_dump_json(), flush=True)
    return 0 if outcome.state in ("succeeded", "accepted") else 1


if __name__ == "__main__":
    arguments = sys.argv[1:]
    if arguments != ["worker"] and not (arguments[:1] == ["refund"] and len(arguments) == 6):
        sys.exit(__doc__)
    sys.exit(asyncio.run(main(*sys.argv[1:])))
