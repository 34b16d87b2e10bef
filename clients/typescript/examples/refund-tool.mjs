// A refund tool for an agent, recorded with opledger before it is sent to Stripe, so that a retry,
// a second agent or a crash never refunds twice. Copy it and replace the Stripe call with yours.
//
//   OPLEDGER_URL=http://127.0.0.1:3000 OPLEDGER_TOKEN=opl_… STRIPE_SECRET_KEY=sk_… \
//     node examples/refund-tool.mjs 1043 li_2 38000 TWD pi_1043
//
// prints one JSON line: what to tell the model ({"status": "succeeded", "refund_id": "re_…", …}).
// STRIPE_URL defaults to https://api.stripe.com. In your own project, import from "@opledger/client".

import { pathToFileURL } from "node:url";
import { Ledger, ApprovalPending, IdempotencyConflict, InvalidRequest, OpledgerError } from "../dist/index.js";

const ledger = new Ledger({ baseUrl: process.env.OPLEDGER_URL, token: process.env.OPLEDGER_TOKEN });
const STRIPE_URL = process.env.STRIPE_URL ?? "https://api.stripe.com";

/** Refunds `amountMinor` of one line item of an order, once; answers what to tell the model. */
export async function refundLineItem({ orderId, lineItemId, amountMinor, currency, paymentIntent }) {
  const opId = `refund-${orderId}-${lineItemId}`; // the business intent, never a run id
  try {
    const settled = await ledger.run(
      {
        kind: "refund",
        opId,
        subject: `order:${orderId}`,
        provider: "stripe",
        params: { payment_intent: paymentIntent, amount: { minor: amountMinor, currency } },
        sendDeadlineS: 30,
      },
      async (op) => {
        op.markSent(); // from here on, an error means "maybe refunded": the ledger checks, never re-sends
        const response = await fetch(`${STRIPE_URL}/v1/refunds`, {
          method: "POST",
          headers: {
            Authorization: `Bearer ${process.env.STRIPE_SECRET_KEY}`,
            "Idempotency-Key": op.key,
            "Content-Type": "application/x-www-form-urlencoded",
          },
          body: new URLSearchParams({
            payment_intent: paymentIntent,
            amount: String(amountMinor),
            "metadata[op_id]": op.metadata.op_id,
            "metadata[tenant]": op.metadata.tenant,
          }),
          signal: AbortSignal.timeout(20_000),
        });
        const refund = await response.json();
        if (!response.ok) {
          throw Object.assign(new Error(refund.error?.message ?? `Stripe answered ${response.status}`), { status: response.status });
        }
        return refund; // recorded by its status: succeeded, pending (accepted), failed
      },
    );
    return { status: settled.state, op_id: opId, refund_id: settled.externalId, message: settled.message };
  } catch (error) {
    if (!(error instanceof OpledgerError)) throw error;
    const answer = { status: statusOf(error), op_id: opId, message: error.message, retryable: error.retryable };
    if (error instanceof ApprovalPending) answer.approval_url = error.consoleUrl;
    if (error instanceof IdempotencyConflict) answer.diff = error.diff;
    if (error instanceof InvalidRequest) answer.field = error.field;
    return answer;
  }
}

function statusOf(error) {
  const names = { NotSent: "not_sent", OutcomeUnknown: "unknown", ApprovalPending: "pending_approval", Denied: "denied",
    OperationFailed: "failed", IdempotencyConflict: "conflict", InvalidRequest: "invalid" };
  return names[error.name] ?? "error";
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const [orderId, lineItemId, amount, currency, paymentIntent] = process.argv.slice(2);
  if (!paymentIntent) {
    console.error("usage: node examples/refund-tool.mjs ORDER LINE_ITEM AMOUNT_MINOR CURRENCY PAYMENT_INTENT");
    process.exit(2);
  }
  const answer = await refundLineItem({ orderId, lineItemId, amountMinor: Number(amount), currency, paymentIntent });
  console.log(JSON.stringify(answer));
}
