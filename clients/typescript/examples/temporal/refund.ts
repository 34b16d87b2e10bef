/**
 * What the Temporal refund example's workflow, activities and starter share: the request to refund
 * one line item, the refund tool's answer, the workflow's outcome, the tool activity's timeouts,
 * and the ids derived from the business intent. Plain data and pure functions only, since the
 * workflow bundle imports this file too.
 */

/** One line item to refund: what the customer asked for, and what the workflow starts with. */
export interface RefundRequest {
  order: string;
  line: string;
  amountMinor: number;
  currency: string;
  paymentIntent: string;
}

/**
 * What the refund tool answers the model: `succeeded` or `accepted` (done, now or before),
 * `unknown` (it may have happened: do not send again), `not_sent`, `pending_approval`, `denied`,
 * `failed`, `conflict`, `invalid` or `error`, with the ledger's words for it.
 */
export interface ToolAnswer {
  status: string;
  opId: string;
  refundId: string | null;
  message: string;
  /** Whether this call sent the refund; false when the ledger already had it or nothing was sent. */
  sentNow: boolean;
}

/** The refund as the ledger holds it at the end of the workflow, with every answer the tool gave. */
export interface RefundOutcome {
  opId: string;
  /** The ledger's state, or `not_recorded` when no call of the tool reached the ledger. */
  state: string;
  refundId: string | null;
  message: string;
  answers: ToolAnswer[];
}

/** The refund tool activity's timeouts, in seconds. */
export interface ToolTimeouts {
  /** How long one attempt may run before Temporal retries it. */
  startToCloseTimeoutS: number;
  /** How long Temporal waits for a heartbeat before it takes the worker for dead and retries. */
  heartbeatTimeoutS: number;
}

/** The tool activity's timeouts when the starter sets none: 60 s to close, a heartbeat every 10 s. */
export const DEFAULT_TOOL_TIMEOUTS: ToolTimeouts = { startToCloseTimeoutS: 60, heartbeatTimeoutS: 10 };

/** The op id of refunding a line item: the same order and line always give the same one. */
export function refundOpId(request: Pick<RefundRequest, "order" | "line">): string {
  return `refund-${request.order}-${request.line}`;
}

/** The workflow id of refunding a line item: asking for the same refund while it runs joins that run. */
export function refundWorkflowId(request: Pick<RefundRequest, "order" | "line">): string {
  return `refund-line-item-${request.order}-${request.line}`;
}
