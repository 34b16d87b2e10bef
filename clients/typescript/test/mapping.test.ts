/**
 * How `Ledger` maps the ledger's answers to results and errors, with an injected `fetch` that
 * plays the ledger: a refund waiting for approval (`ApprovalPending` with the console's page), a
 * denied one (`Denied`), one found in flight at begin (`OutcomeUnknown`), and what `run` reports
 * for each way a body can end (the provider's status, a lost connection, an HTTP error).
 */

import assert from "node:assert/strict";
import { test } from "node:test";
import {
  ApiError,
  ApprovalPending,
  Denied,
  Ledger,
  NotSent,
  Operation,
  OperationFailed,
  OutcomeUnknown,
  type OperationView,
  type RunIntent,
} from "@opledger/client";

const intent: RunIntent = {
  kind: "refund",
  opId: "refund-1043-li_2",
  subject: "order:1043",
  provider: "stripe",
  params: { payment_intent: "pi_1043", amount: { minor: 38_000, currency: "TWD" } },
};

const MESSAGES: Record<string, string> = {
  planned: "Recorded; not sent yet.",
  pending_approval: "Waiting for a manager's approval; do not send it.",
  denied: "A manager denied this operation; it will not be sent.",
  submitted: "A send is in progress; do not send it again.",
  succeeded: "Already done earlier; nothing was sent now.",
  accepted: "The provider accepted it and has not confirmed the result yet; do not send it again.",
  rejected: "The provider refused it, or it was confirmed not to have happened; nothing was done.",
  unknown: "Result unknown; do not send again; it is being checked.",
};

function view(state: string, extra: Partial<OperationView> = {}): OperationView {
  return {
    op_id: intent.opId,
    kind: "refund",
    subject: "order:1043",
    provider: "stripe",
    state,
    message: MESSAGES[state] ?? state,
    params: intent.params,
    fingerprint: "sha256:00",
    amount: { minor: 38_000, currency: "TWD" },
    idempotency_key: `shop:${intent.opId}`,
    requested_by: "agent",
    cancel_requested: false,
    key: { retention_s: 86_400, after_5xx: "same_key" },
    version: 1,
    created_at: "2025-01-01T00:00:00Z",
    updated_at: "2025-01-01T00:00:00Z",
    attempts: [],
    external_refs: [],
    ...extra,
  } as OperationView;
}

type Route = (request: Request, body: any) => { status: number; body: unknown };

/** A ledger that answers each call with the route for `METHOD path`, and records the calls. */
function fakeLedger(routes: Record<string, Route>, consoleUrl?: string) {
  const calls: Array<{ method: string; path: string; body: any; auth: string | null }> = [];
  const ledger = new Ledger({
    baseUrl: "http://ledger.test",
    token: "opl_test",
    ...(consoleUrl ? { consoleUrl } : {}),
    fetch: async (request: Request) => {
      const url = new URL(request.url);
      const text = await request.text();
      const body = text ? JSON.parse(text) : undefined;
      const path = decodeURIComponent(url.pathname);
      calls.push({ method: request.method, path, body, auth: request.headers.get("authorization") });
      const route = routes[`${request.method} ${path}`];
      if (!route) return Response.json({ error: { code: "no_such_route", message: path } }, { status: 404 });
      const answer = route(request, body);
      return Response.json(answer.body, { status: answer.status });
    },
  });
  return { ledger, calls };
}

const REGISTER = "POST /api/v1/operations";
const BEGIN = `POST /api/v1/operations/${intent.opId}/attempts`;
const OUTCOME = `POST /api/v1/operations/${intent.opId}/attempts/1/outcome`;
const READ = `GET /api/v1/operations/${intent.opId}`;

function started(): { status: number; body: unknown } {
  return {
    status: 201,
    body: {
      attempt: 1,
      send_deadline: "2025-01-01T00:01:00Z",
      idempotency_key: `shop:${intent.opId}`,
      message: "Recorded as submitted.",
      operation: view("submitted"),
    },
  };
}

/** A ledger that lets `run` send, and settles the outcome the way the server's state machine does. */
function sendingLedger() {
  const states: Record<string, string> = {
    succeeded: "succeeded",
    accepted: "accepted",
    failed_at_provider: "rejected",
    rejected: "rejected",
    invalid: "rejected",
    forbidden: "rejected",
    not_sent: "planned",
    unavailable: "planned",
    timeout: "unknown",
    server_error: "unknown",
  };
  return fakeLedger({
    [REGISTER]: () => ({ status: 201, body: view("planned") }),
    [BEGIN]: started,
    [OUTCOME]: (_request, body) => {
      const state = states[body.outcome]!;
      const refs = body.external_id && state !== "rejected" ? [`stripe/refund/${body.external_id}`] : [];
      return { status: 200, body: { message: MESSAGES[state], operation: view(state, { external_refs: refs }) } };
    },
  });
}

test("a refund waiting for a manager is ApprovalPending with the console's page, and nothing is sent", async () => {
  const { ledger, calls } = fakeLedger(
    { [REGISTER]: () => ({ status: 201, body: view("pending_approval") }) },
    "https://console.example/",
  );
  await assert.rejects(
    ledger.run(intent, () => assert.fail("must not send")),
    (e: unknown) => {
      assert.ok(e instanceof ApprovalPending, `expected ApprovalPending, got ${e}`);
      assert.equal(e.consoleUrl, `https://console.example/operations/${intent.opId}`);
      assert.equal(e.opId, intent.opId);
      assert.equal(e.retryable, false);
      assert.equal(e.operation?.state, "pending_approval");
      return true;
    },
  );
  assert.deepEqual(calls.map((c) => `${c.method} ${c.path}`), [REGISTER]);
  assert.equal(calls[0]!.auth, "Bearer opl_test");
  assert.deepEqual(calls[0]!.body, {
    op_id: intent.opId,
    kind: "refund",
    subject: "order:1043",
    provider: "stripe",
    params: intent.params,
  });
  assert.equal(await ledger.needsApproval(intent), true);
});

test("a denied refund is Denied, with the ledger's words", async () => {
  const { ledger, calls } = fakeLedger({ [REGISTER]: () => ({ status: 200, body: view("denied") }) });
  await assert.rejects(ledger.run(intent, () => assert.fail("must not send")), (e: unknown) => {
    assert.ok(e instanceof Denied, `expected Denied, got ${e}`);
    assert.equal(e.message, MESSAGES.denied);
    assert.equal(e.retryable, false);
    return true;
  });
  assert.equal(calls.length, 1);
});

test("settled waits through approval and answers the refund the server sent itself", async () => {
  const seen: string[] = [];
  const { ledger } = fakeLedger({
    [READ]: (request) => {
      const query = new URL(request.url).searchParams;
      seen.push(query.toString());
      if (!query.has("wait")) return { status: 200, body: view("pending_approval") };
      const next = query.get("state") === "pending_approval" ? "submitted" : "succeeded";
      return { status: 200, body: view(next, next === "succeeded" ? { external_refs: ["stripe/refund/re_1"] } : {}) };
    },
  });
  const settled = await ledger.settled(intent.opId, { timeoutS: 30 });
  assert.equal(settled.state, "succeeded");
  assert.equal(settled.externalId, "re_1");
  assert.equal(settled.sentNow, false);
  assert.deepEqual(seen, ["", "wait=30&state=pending_approval", "wait=30&state=submitted"]);
});

test("a send found in progress at begin is OutcomeUnknown, never sent again", async () => {
  const { ledger, calls } = fakeLedger({
    [REGISTER]: () => ({ status: 200, body: view("planned") }),
    [BEGIN]: () => ({ status: 409, body: { error: { code: "attempt_open", message: "Someone else is sending it." } } }),
    [READ]: () => ({ status: 200, body: view("submitted") }),
  });
  await assert.rejects(ledger.run(intent, () => assert.fail("must not send")), (e: unknown) => {
    assert.ok(e instanceof OutcomeUnknown, `expected OutcomeUnknown, got ${e}`);
    assert.equal(e.message, MESSAGES.submitted);
    return true;
  });
  assert.deepEqual(calls.map((c) => `${c.method} ${c.path}`), [REGISTER, BEGIN, READ]);
  assert.deepEqual(calls[1]!.body, { send_deadline_s: 60 });
});

test("the provider's status is recorded: succeeded, pending as accepted, failed with its reason", async () => {
  const cases: Array<[unknown, string, Record<string, unknown>]> = [
    [{ id: "re_1", status: "succeeded" }, "succeeded", { external_id: "re_1" }],
    [{ id: "re_2", status: "pending" }, "accepted", { external_id: "re_2" }],
    [{ id: "re_3", status: "weird_new_status" }, "accepted", { external_id: "re_3" }],
    [{ id: "re_4", status: "failed", failure_reason: "expired_or_canceled_card" }, "failed_at_provider", { external_id: "re_4", error: "expired_or_canceled_card" }],
    [undefined, "accepted", {}],
  ];
  for (const [answer, outcome, fields] of cases) {
    const { ledger, calls } = sendingLedger();
    const result = ledger.run(intent, () => answer);
    if (outcome === "failed_at_provider") {
      await assert.rejects(result, (e: unknown) => e instanceof OperationFailed && e.state === "rejected");
    } else {
      const settled = await result;
      assert.equal(settled.state, outcome);
      assert.equal(settled.sentNow, true);
      assert.equal(settled.value, answer);
    }
    const reported = calls.find((c) => c.path.endsWith("/outcome"))!.body;
    assert.equal(reported.outcome, outcome);
    for (const [name, value] of Object.entries(fields)) assert.equal(reported[name], value);
    assert.equal(typeof reported.latency_ms, "number");
  }
});

test("errors after the send: a lost connection or a 5xx is unknown, a 402 rejected, a 429 not sent", async () => {
  const connection = Object.assign(new TypeError("fetch failed"), { cause: Object.assign(new Error("socket hang up"), { code: "ECONNRESET" }) });
  const timeout = new DOMException("The operation was aborted due to timeout", "TimeoutError");
  const cases: Array<[unknown, string, new (...args: any[]) => Error]> = [
    [connection, "timeout", OutcomeUnknown],
    [timeout, "timeout", OutcomeUnknown],
    [new Error("anything else"), "timeout", OutcomeUnknown],
    [Object.assign(new Error("Stripe 500"), { statusCode: 500 }), "server_error", OutcomeUnknown],
    [Object.assign(new Error("card declined"), { status: 402 }), "rejected", OperationFailed],
    [Object.assign(new Error("bad"), { response: { status: 400 } }), "invalid", OperationFailed],
    [Object.assign(new Error("no such payment"), { status: 404 }), "invalid", OperationFailed],
    [Object.assign(new Error("unprocessable"), { status: 422 }), "invalid", OperationFailed],
    [Object.assign(new Error("bad key"), { status: 401 }), "forbidden", OperationFailed],
    [Object.assign(new Error("no access"), { status: 403 }), "forbidden", OperationFailed],
    [Object.assign(new Error("slow down"), { status: 429, headers: { "retry-after": "7" } }), "unavailable", NotSent],
  ];
  for (const [error, outcome, kind] of cases) {
    const { ledger, calls } = sendingLedger();
    await assert.rejects(
      ledger.run(intent, async (op) => {
        op.markSent();
        throw error;
      }),
      (e: unknown) => {
        assert.ok(e instanceof kind, `${outcome}: expected ${kind.name}, got ${e}`);
        assert.equal((e as Error).cause, error);
        return true;
      },
    );
    const reported = calls.find((c) => c.path.endsWith("/outcome"))!.body;
    assert.equal(reported.outcome, outcome);
    if (outcome === "unavailable") assert.equal(reported.retry_after_s, 7);
  }
});

test("the send begins at the body's first use of the key, the metadata or the attempt, or at markSent", async () => {
  const lost = new Error("lost somewhere");
  const cases: Array<[string, (op: Operation) => void, string, new (...args: any[]) => Error]> = [
    ["nothing used", () => {}, "not_sent", NotSent],
    // A body that only mentions markSent in a comment has not sent: no source text is read.
    ["markSent in a comment only", (op) => { void op.opId; /* op.markSent() comes later */ }, "not_sent", NotSent],
    ["the key read", (op) => { void op.key; }, "timeout", OutcomeUnknown],
    ["the metadata read", (op) => { void op.metadata; }, "timeout", OutcomeUnknown],
    ["the attempt read", (op) => { void op.attempt; }, "timeout", OutcomeUnknown],
    ["markSent called", (op) => op.markSent(), "timeout", OutcomeUnknown],
  ];
  for (const [name, before, outcome, kind] of cases) {
    const { ledger, calls } = sendingLedger();
    await assert.rejects(
      ledger.run(intent, async (op) => {
        before(op);
        throw lost;
      }),
      (e: unknown) => {
        assert.ok(e instanceof kind, `${name}: expected ${kind.name}, got ${e}`);
        return true;
      },
    );
    assert.equal(calls.find((c) => c.path.endsWith("/outcome"))!.body.outcome, outcome, name);
  }
  // Before the first use, even an answer with an HTTP status is not the provider's: not sent.
  const { ledger, calls } = sendingLedger();
  await assert.rejects(ledger.run(intent, async () => { throw Object.assign(new Error("Stripe 500"), { statusCode: 500 }); }), NotSent);
  assert.equal(calls.find((c) => c.path.endsWith("/outcome"))!.body.outcome, "not_sent");
});

test("other ledger answers are ApiError with status, code and details", async () => {
  const { ledger } = fakeLedger({
    [REGISTER]: () => ({ status: 403, body: { error: { code: "insufficient_scope", message: "This token lacks the `write` scope.", scope: "write" } } }),
  });
  await assert.rejects(ledger.run(intent, () => assert.fail("must not send")), (e: unknown) => {
    assert.ok(e instanceof ApiError, `expected ApiError, got ${e}`);
    assert.equal(e.status, 403);
    assert.equal(e.code, "insufficient_scope");
    assert.deepEqual(e.details, { scope: "write" });
    return true;
  });
  const down = new Ledger({ baseUrl: "http://ledger.test", token: "t", fetch: () => Promise.reject(new TypeError("fetch failed")) });
  await assert.rejects(down.get("x"), (e: unknown) => e instanceof ApiError && e.status === 0 && e.code === "unreachable" && e.retryable);
});
