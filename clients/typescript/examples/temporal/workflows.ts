/**
 * The Temporal refund example's workflow, bundled by the worker: a scripted model that calls the
 * refund tool (an activity), calls it again while the tool answers anything but done, at most
 * three calls in all, as a careless model does, then waits for the ledger's outcome in an activity
 * of its own. Each call of the tool is a new activity with a new activity id; Temporal's retries
 * of one call keep its id. Only the op id from the business intent is the same in both.
 */

import { proxyActivities } from "@temporalio/workflow";
import type { RefundActivities } from "./activities.js";
import { DEFAULT_TOOL_TIMEOUTS, refundOpId, type RefundOutcome, type RefundRequest, type ToolAnswer, type ToolTimeouts } from "./refund.js";

const MAX_TOOL_CALLS = 3;
const DONE = new Set(["succeeded", "accepted"]);

/** Refunds one line item through the tool, and returns the refund as the ledger holds it then. */
export async function refundLineItemWorkflow(request: RefundRequest, timeouts: ToolTimeouts = DEFAULT_TOOL_TIMEOUTS): Promise<RefundOutcome> {
  const { refundLineItem } = proxyActivities<RefundActivities>({
    startToCloseTimeout: timeouts.startToCloseTimeoutS * 1000,
    heartbeatTimeout: timeouts.heartbeatTimeoutS * 1000,
  });
  // The wait ends once the ledger settles the refund or hands it to a person (needs_review).
  const { refundOutcome } = proxyActivities<RefundActivities>({
    startToCloseTimeout: 15 * 60 * 1000,
    heartbeatTimeout: 30 * 1000,
  });

  const answers: ToolAnswer[] = [];
  do {
    answers.push(await refundLineItem(request));
  } while (!DONE.has(answers.at(-1)!.status) && answers.length < MAX_TOOL_CALLS);
  const outcome = await refundOutcome(refundOpId(request));
  return { ...outcome, answers };
}
