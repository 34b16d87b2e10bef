"""Refund one line item in a DBOS workflow, recorded in opledger so that it is never sent twice.

DBOS runs each step at least once: a step cut short by a crash runs again when the workflow is
recovered. The refund step is therefore wrapped by the opledger client under an op id derived from
the business intent (`refund-{order}-{line}`, never the workflow id), so the retried step finds
the refund already recorded: done, it returns it; possibly sent (the crash came after the send),
it raises `OutcomeUnknown`, and the workflow waits for the ledger, which looks the refund up at
Stripe, instead of sending again.

    pip install ./clients/python dbos==3.4.0 stripe==16.1.0
    export OPLEDGER_URL=http://127.0.0.1:3000 OPLEDGER_TOKEN=opl_… STRIPE_API_KEY=sk_test_…
    export DBOS_SYSTEM_DATABASE_URL=postgresql://postgres@127.0.0.1:5432/refunds
    python dbos_refund.py 1043 li_2 38000 TWD pi_1043

Run it again after a crash (or `kill -9`) and DBOS recovers the workflow; either run prints one
JSON line with the result. STRIPE_API_BASE points the Stripe SDK elsewhere (a sandbox).
"""

from __future__ import annotations

import json
import os
import sys
from typing import Any

import stripe
from dbos import DBOS, DBOSConfig, SetWorkflowID

from opledger import Ledger, OpledgerError, OutcomeUnknown, Settled

# The send must be over (answered or given up) before its deadline: until then nobody looks the
# refund up or sends it again, after it the ledger may.
SEND_DEADLINE_S = 30
stripe.api_key = os.environ["STRIPE_API_KEY"]
stripe.api_base = os.environ.get("STRIPE_API_BASE", stripe.api_base)
stripe.max_network_retries = 0
stripe.default_http_client = stripe.RequestsClient(timeout=SEND_DEADLINE_S - 10)

ledger = Ledger(os.environ["OPLEDGER_URL"], os.environ["OPLEDGER_TOKEN"])
DBOS(config=DBOSConfig(name="opledger-refunds", system_database_url=os.environ["DBOS_SYSTEM_DATABASE_URL"]))


def refund_op_id(order_id: str, line_item_id: str, *_: Any) -> str:
    return f"refund-{order_id}-{line_item_id}"


@ledger.operation(
    kind="refund",
    provider="stripe",
    op_id=refund_op_id,
    subject=lambda order_id, *_: f"order:{order_id}",
    params=lambda order_id, line_item_id, amount_minor, currency, payment_intent: {
        "payment_intent": payment_intent,
        "amount": {"minor": amount_minor, "currency": currency},
    },
    send_deadline_s=SEND_DEADLINE_S,
)
def refund(
    order_id: str, line_item_id: str, amount_minor: int, currency: str, payment_intent: str, *, op: Any
) -> stripe.Refund:
    op.mark_sent()
    return stripe.Refund.create(
        payment_intent=payment_intent, amount=amount_minor, idempotency_key=op.key, metadata=op.metadata
    )


def summary(settled: Settled) -> dict[str, Any]:
    return {
        "op_id": settled.op_id,
        "state": settled.state,
        "refund_id": settled.external_id,
        "sent_now": settled.sent_now,
        "message": settled.message,
    }


@DBOS.step()
def send_refund(
    order_id: str, line_item_id: str, amount_minor: int, currency: str, payment_intent: str
) -> dict[str, Any]:
    return summary(refund(order_id, line_item_id, amount_minor, currency, payment_intent))


@DBOS.step()
def wait_for_ledger(op_id: str) -> dict[str, Any]:
    # Still unknown after ten minutes: the ledger hands it to a person; the workflow fails, saying so.
    return summary(ledger.settled(op_id, timeout_s=600))


@DBOS.workflow()
def refund_line_item(
    order_id: str, line_item_id: str, amount_minor: int, currency: str, payment_intent: str
) -> dict[str, Any]:
    try:
        return send_refund(order_id, line_item_id, amount_minor, currency, payment_intent)
    except OutcomeUnknown:
        return wait_for_ledger(refund_op_id(order_id, line_item_id))


def main(order_id: str, line_item_id: str, amount: str, currency: str, payment_intent: str) -> int:
    DBOS.launch()  # also recovers this refund's workflow if a crash cut it short
    workflow_id = f"refund-line-item-{order_id}-{line_item_id}"
    try:
        with SetWorkflowID(workflow_id):  # a second start with this id waits for the first run
            handle = DBOS.start_workflow(
                refund_line_item, order_id, line_item_id, int(amount), currency, payment_intent
            )
        result = {"workflow_id": workflow_id, **handle.get_result()}
        code = 0
    except OpledgerError as error:
        result = {"workflow_id": workflow_id, "error": type(error).__name__, "message": str(error)}
        code = 1
    finally:
        DBOS.destroy()
    print(json.dumps(result), flush=True)
    return code


if __name__ == "__main__":
    if len(sys.argv) != 6:
        sys.exit(f"usage: {sys.argv[0]} ORDER LINE_ITEM AMOUNT_MINOR CURRENCY PAYMENT_INTENT")
    sys.exit(main(*sys.argv[1:]))
