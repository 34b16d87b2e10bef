/**
 * The activities of the Temporal refund example: the refund tool, which records the refund in the
 * ledger and sends it to Stripe under the ledger's key, and the wait for the ledger's outcome.
 *
 * The tool's op id comes from the business intent (`refund-{order}-{line}`), never from the run or
 * the activity: Temporal's retry of the tool activity (same activity id) and the model's new call
 * of the tool (a new activity id) are the same operation to the ledger, which sends it once. The
 * tool never waits for a refund in flight, since a wait would count against its activity's
 * startToCloseTimeout: it answers `unknown` at once, and the workflow waits in `refundOutcome`.
 *
 * The send is not cut off when Temporal gives the attempt up: it runs on to Stripe's answer (or
 * to its own timeout, two thirds of the ledger's send deadline) and reports it to the ledger, so
 * the next attempt finds the refund done instead of in doubt.
 */

import { Context } from "@temporalio/activity";
import {
  ApiError,
  ApprovalPending,
  Denied,
  IdempotencyConflict,
  InvalidRequest,
  NotSent,
  OperationFailed,
  OpledgerError,
  OutcomeUnknown,
  type Ledger,
  type Settled,
} from "@opledger/client";
import { refundOpId, type RefundOutcome, type RefundRequest, type ToolAnswer } from "./refund.js";

/** What the activities send with and how long a send may take. */
export interface RefundActivitiesOptions {
  ledger: Ledger;
  /** Stripe's API, `https://api.stripe.com`, or a sandbox of it. */
  stripeUrl: string;
  stripeKey: string;
  /** How long the ledger holds a send as in flight before it looks the refund up at Stripe (30 s when left out). */
  sendDeadlineS?: number;
}

/** The states in which the refund may be under way: `refundOutcome` waits for the ledger to leave them. */
const IN_FLIGHT = new Set(["submitted", "unknown"]);

/** The refund tool and the outcome wait, sending through `options`; register both with the worker. */
export function createRefundActivities(options: RefundActivitiesOptions) {
  const { ledger, stripeKey } = options;
  const stripeUrl = options.stripeUrl.replace(/\/+$/, "");
  const sendDeadlineS = options.sendDeadlineS ?? 30;
  const stripeTimeoutMs = Math.floor((sendDeadlineS * 1000 * 2) / 3);

  async function sendRefund(request: RefundRequest): Promise<Settled> {
    return ledger.run(
      {
        kind: "refund",
        opId: refundOpId(request),
        subject: `order:${request.order}`,
        provider: "stripe",
        params: {
          payment_intent: request.paymentIntent,
          amount: { minor: request.amountMinor, currency: request.currency },
          order: request.order,
          line_item: request.line,
        },
        sendDeadlineS,
      },
      async (op) => {
        op.markSent(); // from here on an error means "maybe refunded": the ledger looks it up, never re-sends
        const response = await fetch(`${stripeUrl}/v1/refunds`, {
          method: "POST",
          headers: {
            Authorization: `Bearer ${stripeKey}`,
            "Idempotency-Key": op.key,
            "Content-Type": "application/x-www-form-urlencoded",
          },
          body: new URLSearchParams({
            payment_intent: request.paymentIntent,
            amount: String(request.amountMinor),
            "metadata[op_id]": op.metadata.op_id,
            "metadata[tenant]": op.metadata.tenant,
          }),
          signal: AbortSignal.timeout(stripeTimeoutMs),
        });
        const refund = (await response.json()) as { error?: { message?: string } };
        if (!response.ok) {
          const message = refund.error?.message ?? `Stripe answered ${response.status}`;
          throw Object.assign(new Error(message), { status: response.status, headers: response.headers });
        }
        return refund; // recorded by its status: succeeded, pending (accepted), failed
      },
    );
  }

  return {
    /** The refund tool: refunds one line item once, and answers what to tell the model. */
    async refundLineItem(request: RefundRequest): Promise<ToolAnswer> {
      const opId = refundOpId(request);
      const stopHeartbeats = heartbeatWhileRunning(Context.current());
      try {
        const settled = await sendRefund(request);
        return { status: settled.state, opId, refundId: settled.externalId, message: settled.message, sentNow: settled.sentNow };
      } catch (error) {
        if (!(error instanceof OpledgerError)) throw error;
        return { status: statusOf(error), opId, refundId: null, message: error.message, sentNow: false };
      } finally {
        stopHeartbeats();
      }
    },

    /**
     * The refund as the ledger holds it once it is no longer in flight, heartbeating while the
     * ledger looks it up; `not_recorded` when no call of the tool ever reached the ledger. It only
     * reads, so Temporal may run it again as often as it must.
     */
    async refundOutcome(opId: string): Promise<Omit<RefundOutcome, "answers">> {
      const context = Context.current();
      let view;
      try {
        view = await ledger.get(opId);
      } catch (error) {
        if (error instanceof ApiError && error.status === 404) {
          return { opId, state: "not_recorded", refundId: null, message: error.message };
        }
        throw error;
      }
      while (IN_FLIGHT.has(view.state)) {
        context.heartbeat(view.state);
        view = await ledger.wait(opId, { timeoutS: 5 });
      }
      const first = view.external_refs?.[0];
      const refundId = first === undefined ? null : first.split("/").slice(2).join("/");
      return { opId, state: view.state, refundId, message: view.message };
    },
  };
}

/** The activities a worker of the refund workflow registers. */
export type RefundActivities = ReturnType<typeof createRefundActivities>;

/**
 * Heartbeats at half the activity's heartbeatTimeout until the returned function is called, so
 * that Temporal retries the activity soon after its worker dies rather than at its
 * startToCloseTimeout. An activity without a heartbeatTimeout must not heartbeat: nothing is sent.
 */
function heartbeatWhileRunning(context: Context): () => void {
  const timeoutMs = context.info.heartbeatTimeoutMs;
  if (!timeoutMs) return () => undefined;
  const timer = setInterval(() => context.heartbeat(), Math.max(timeoutMs / 2, 100));
  return () => clearInterval(timer);
}

/** The tool's status for an error of the ledger's. */
function statusOf(error: OpledgerError): string {
  if (error instanceof OutcomeUnknown) return "unknown";
  if (error instanceof NotSent) return "not_sent";
  if (error instanceof ApprovalPending) return "pending_approval";
  if (error instanceof Denied) return "denied";
  if (error instanceof OperationFailed) return "failed";
  if (error instanceof IdempotencyConflict) return "conflict";
  if (error instanceof InvalidRequest) return "invalid";
  return "error";
}
