/**
 * The Temporal refund example's worker and starter. After `npm run build`:
 *
 *   export OPLEDGER_URL=http://127.0.0.1:3000 OPLEDGER_TOKEN=opl_… STRIPE_SECRET_KEY=sk_test_…
 *   export TEMPORAL_ADDRESS=localhost:7233
 *   node dist/examples/temporal/main.js worker                              # runs the workflow and its activities
 *   node dist/examples/temporal/main.js refund 1043 li_2 38000 TWD pi_1043  # asks for a refund, prints its outcome
 *
 * The outcome is one JSON line: `{"opId": "refund-1043-li_2", "state": "succeeded", "refundId":
 * "re_…", "message": "…", "answers": [what the tool answered, call by call]}`.
 *
 * Also STRIPE_URL (https://api.stripe.com when unset), TEMPORAL_TASK_QUEUE (opledger-refunds),
 * REFUND_SEND_DEADLINE_S (30, read by the worker), REFUND_TOOL_TIMEOUT_S and
 * REFUND_TOOL_HEARTBEAT_S (60 and 10, read by the starter: they are the workflow's arguments). In
 * your own project, import from "@opledger/client", as here.
 */

import { pathToFileURL, fileURLToPath } from "node:url";
import { Client, Connection } from "@temporalio/client";
import { NativeConnection, Worker } from "@temporalio/worker";
import { Ledger } from "@opledger/client";
import { createRefundActivities } from "./activities.js";
import { DEFAULT_TOOL_TIMEOUTS, refundWorkflowId, type RefundOutcome, type RefundRequest, type ToolTimeouts } from "./refund.js";
import { refundLineItemWorkflow } from "./workflows.js";

/** The workflow file the worker bundles (the compiled `workflows.ts` beside this one). */
export const WORKFLOWS_PATH = fileURLToPath(new URL("./workflows.js", import.meta.url));

const TASK_QUEUE = process.env.TEMPORAL_TASK_QUEUE ?? "opledger-refunds";

/** Runs the refund workflow for `request`, or joins the one running for it, and returns its outcome. */
export async function refund(
  client: Client,
  request: RefundRequest,
  options: { taskQueue?: string; timeouts?: ToolTimeouts } = {},
): Promise<RefundOutcome> {
  return client.workflow.execute(refundLineItemWorkflow, {
    workflowId: refundWorkflowId(request),
    taskQueue: options.taskQueue ?? TASK_QUEUE,
    args: [request, options.timeouts ?? DEFAULT_TOOL_TIMEOUTS],
    workflowIdConflictPolicy: "USE_EXISTING",
  });
}

function required(name: string): string {
  const value = process.env[name];
  if (!value) throw new Error(`set ${name} (see the head of examples/temporal/main.ts)`);
  return value;
}

function seconds(name: string, fallback: number): number {
  const value = Number(process.env[name] ?? fallback);
  if (!Number.isFinite(value) || value <= 0) throw new Error(`${name} must be a number of seconds, got ${process.env[name]}`);
  return value;
}

async function runWorker(address: string): Promise<void> {
  const worker = await Worker.create({
    connection: await NativeConnection.connect({ address }),
    taskQueue: TASK_QUEUE,
    workflowsPath: WORKFLOWS_PATH,
    activities: createRefundActivities({
      ledger: new Ledger({ baseUrl: required("OPLEDGER_URL"), token: required("OPLEDGER_TOKEN") }),
      stripeUrl: process.env.STRIPE_URL ?? "https://api.stripe.com",
      stripeKey: required("STRIPE_SECRET_KEY"),
      sendDeadlineS: seconds("REFUND_SEND_DEADLINE_S", 30),
    }),
  });
  await worker.run();
}

async function main(args: string[]): Promise<number> {
  const address = process.env.TEMPORAL_ADDRESS ?? "localhost:7233";
  if (args.length === 1 && args[0] === "worker") {
    await runWorker(address);
    return 0;
  }
  if (args.length !== 6 || args[0] !== "refund") {
    console.error("usage: node dist/examples/temporal/main.js worker | refund ORDER LINE_ITEM AMOUNT_MINOR CURRENCY PAYMENT_INTENT");
    return 2;
  }
  const [, order, line, amount, currency, paymentIntent] = args as [string, string, string, string, string, string];
  const client = new Client({ connection: await Connection.connect({ address }) });
  const outcome = await refund(client, { order, line, amountMinor: Number(amount), currency, paymentIntent }, {
    timeouts: {
      startToCloseTimeoutS: seconds("REFUND_TOOL_TIMEOUT_S", DEFAULT_TOOL_TIMEOUTS.startToCloseTimeoutS),
      heartbeatTimeoutS: seconds("REFUND_TOOL_HEARTBEAT_S", DEFAULT_TOOL_TIMEOUTS.heartbeatTimeoutS),
    },
  });
  console.log(JSON.stringify(outcome));
  await client.connection.close();
  return outcome.state === "succeeded" || outcome.state === "accepted" ? 0 : 1;
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  process.exitCode = await main(process.argv.slice(2));
}
