"""The refund workflow of examples/temporal_refund.py without opledger, for the tests to compare.

The same scripted model and the same Stripe SDK, but the tool sends straight to Stripe under the
key Temporal's documentation advises for an activity's side effect: the workflow's Run ID and the
activity's ID. That key is the same when Temporal retries the activity, and new when the model
calls the tool again, so a model that calls again after a failure makes a second refund: what
test_temporal.py shows the ledger prevents.
"""

from __future__ import annotations

from datetime import timedelta

from pydantic_ai import Agent
from pydantic_ai.durable_exec.temporal import PydanticAIWorkflow, TemporalDurability
from pydantic_ai.models.function import FunctionModel
from temporalio import activity, workflow
from temporalio.workflow import ActivityConfig

with workflow.unsafe.imports_passed_through():
    import stripe
    import temporal_refund as example

agent_without_ledger = Agent(
    FunctionModel(example.script),
    name="refund_agent_without_ledger",
    instructions="Refund the line item the customer asks for with refund_line_item, then say what happened.",
    capabilities=[TemporalDurability()],
)


@agent_without_ledger.tool_plain(
    metadata={
        "temporal": ActivityConfig(
            start_to_close_timeout=timedelta(seconds=example.TOOL_TIMEOUT_S),
            heartbeat_timeout=timedelta(seconds=example.TOOL_HEARTBEAT_S),
        )
    }
)
def refund_line_item(order: str, line: str, amount_minor: int, currency: str, payment_intent: str) -> str:
    """Refunds one line item of an order.

    Args:
        order: The order id.
        line: The line item id.
        amount_minor: The amount in the currency's minor unit.
        currency: Three upper-case letters, e.g. TWD.
        payment_intent: The Stripe payment intent that paid the order.
    """
    info = activity.info()
    try:
        created = example.stripe_client().v1.refunds.create(
            params={"payment_intent": payment_intent, "amount": amount_minor,
                    "metadata": {"op_id": example.refund_op_id(order, line)}},
            options={"idempotency_key": f"{info.workflow_run_id}-{info.activity_id}"},
        )
    except stripe.StripeError as error:
        return f"failed: {error}"
    return f"succeeded: refunded as {created.id}"


@workflow.defn
class RefundWithoutLedgerWorkflow(PydanticAIWorkflow):
    """Runs the agent without the ledger and returns its answer."""

    __pydantic_ai_agents__ = (agent_without_ledger,)

    @workflow.run
    async def run(self, request: example.RefundRequest) -> str:
        result = await agent_without_ledger.run(request.model_dump_json())
        return result.output
