/**
 * `Ledger.run` and friends against a real opledger server and its Stripe sandbox: a refund sent
 * once and only once (again, concurrently, after a timeout), an error before the send, input
 * refused before any call or by the ledger, a conflicting intent, and a refund the provider holds
 * pending that fails there. Refunds are counted at the sandbox, the
 * ground truth of what was really created.
 */

import assert from "node:assert/strict";
import { test } from "node:test";
import {
  ApiError,
  IdempotencyConflict,
  InvalidRequest,
  Ledger,
  NotSent,
  OperationFailed,
  OutcomeUnknown,
  type RunIntent,
} from "@opledger/client";
import { TENANT, TOKEN, URL_, fault, newOrder, refundsFor, stripeRefund, unique } from "./env.js";

const ledger = new Ledger({ baseUrl: URL_, token: TOKEN });

async function refundIntent(amount = 38_000): Promise<{ intent: RunIntent; pi: string }> {
  const order = unique("ts");
  const pi = await newOrder(order);
  const intent: RunIntent = {
    kind: "refund",
    opId: `refund-${order}-li_2`,
    subject: `order:${order}`,
    provider: "stripe",
    params: { payment_intent: pi, amount: { minor: amount, currency: "TWD" } },
    sendDeadlineS: 10,
  };
  return { intent, pi };
}

test("a refund through run succeeds; the same intent again returns that result and sends nothing", async () => {
  const { intent, pi } = await refundIntent();
  let calls = 0;
  const first = await ledger.run(intent, async (op) => {
    calls += 1;
    assert.equal(op.opId, intent.opId);
    assert.equal(op.attempt, 1);
    assert.equal(op.key, `${TENANT}:${intent.opId}`);
    assert.deepEqual(op.metadata, { op_id: intent.opId, tenant: TENANT });
    op.markSent();
    return stripeRefund(op, pi, 38_000);
  });
  assert.equal(first.state, "succeeded");
  assert.equal(first.sentNow, true);
  assert.match(first.externalId ?? "", /^re_/);
  assert.deepEqual(first.externalRefs, [`stripe/refund/${first.externalId}`]);
  assert.equal((first.value as { id: string }).id, first.externalId);
  assert.equal(first.operation.state, "succeeded");
  assert.equal(first.message, `Refunded now as ${first.externalId}; do not send it again.`, "the sender is told it did it");

  const again = await ledger.run(intent, async () => {
    calls += 1;
    throw new Error("must not be called for an intent already done");
  });
  assert.equal(calls, 1);
  assert.equal(again.state, "succeeded");
  assert.equal(again.sentNow, false);
  assert.equal(again.externalId, first.externalId);
  assert.equal(again.value, undefined);
  assert.equal(again.message, "Already done earlier; nothing was sent now.", "a repeat is told it was done before");

  const refunds = await refundsFor(intent.opId);
  assert.equal(refunds.length, 1, "the sandbox made exactly one refund");
  assert.equal(refunds[0]!.id, first.externalId);
  assert.equal(refunds[0]!.idempotency_key, `${TENANT}:${intent.opId}`);
  assert.equal(refunds[0]!.metadata.tenant, TENANT);
});

test("two concurrent runs of one intent make one refund", async () => {
  const { intent, pi } = await refundIntent(12_000);
  let sends = 0;
  const body = async (op: Parameters<Parameters<Ledger["run"]>[1]>[0]) => {
    sends += 1;
    op.markSent();
    await new Promise((resolve) => setTimeout(resolve, 300));
    return stripeRefund(op, pi, 12_000);
  };
  const results = await Promise.allSettled([ledger.run(intent, body), ledger.run(intent, body)]);
  const settled = results.flatMap((r) => (r.status === "fulfilled" ? [r.value] : []));
  const failures = results.flatMap((r) => (r.status === "rejected" ? [r.reason] : []));
  assert.equal(sends, 1, "only one of the two runs sent");
  assert.equal(settled.filter((s) => s.sentNow).length, 1);
  for (const s of settled) assert.equal(s.state, "succeeded");
  for (const error of failures) {
    // The other run found the send in progress: it must not send, nor retry.
    assert.ok(error instanceof OutcomeUnknown, `expected OutcomeUnknown, got ${error}`);
    assert.equal(error.retryable, false);
  }
  assert.equal((await refundsFor(intent.opId)).length, 1);
  const after = await ledger.settled(intent.opId, { timeoutS: 30 });
  assert.equal(after.state, "succeeded");
});

test("a timeout after the send is OutcomeUnknown, and settled sees the refund the reconciler finds", async () => {
  const { intent, pi } = await refundIntent(5_000);
  await fault(intent.opId, "drop_response", { ms: 15_000 });
  const started = Date.now();
  const error = await ledger
    .run({ ...intent, sendDeadlineS: 5 }, async (op) => {
      op.markSent();
      return stripeRefund(op, pi, 5_000, AbortSignal.timeout(2_000));
    })
    .then(
      (settled) => assert.fail(`expected OutcomeUnknown, got ${JSON.stringify(settled)}`),
      (e: unknown) => e,
    );
  assert.ok(error instanceof OutcomeUnknown, `expected OutcomeUnknown, got ${error}`);
  assert.equal(error.retryable, false);
  assert.match(error.message, /do not send again/i);
  assert.ok(Date.now() - started < 8_000, "run gave up at the client's timeout");
  assert.equal(error.operation?.state, "unknown");
  const attempt = error.operation?.attempts.at(-1);
  assert.equal(attempt?.outcome, "timeout");

  // The refund was made; the ledger finds it by its metadata and says so.
  const settled = await ledger.settled(intent.opId, { timeoutS: 60 });
  assert.equal(settled.state, "succeeded");
  assert.equal(settled.sentNow, false);
  const refunds = await refundsFor(intent.opId);
  assert.equal(refunds.length, 1);
  assert.equal(settled.externalId, refunds[0]!.id);

  // Running it again returns that result and sends nothing.
  const again = await ledger.run(intent, () => assert.fail("must not send again"));
  assert.equal(again.state, "succeeded");
  assert.equal((await refundsFor(intent.opId)).length, 1);
});

test("an error before markSent is NotSent, and the same intent can be sent after", async () => {
  const { intent, pi } = await refundIntent(7_000);
  const error = await ledger
    .run(intent, async (op) => {
      throw new Error(`could not read the order for ${op.opId}`);
      op.markSent(); // eslint-disable-line no-unreachable
    })
    .then(
      () => assert.fail("expected NotSent"),
      (e: unknown) => e,
    );
  assert.ok(error instanceof NotSent, `expected NotSent, got ${error}`);
  assert.equal(error.retryable, true);
  assert.ok(error.cause instanceof Error && /could not read the order/.test(error.cause.message));
  assert.equal(error.operation?.state, "planned");
  assert.equal(error.operation?.attempts[0]?.outcome, "not_sent");
  assert.equal((await refundsFor(intent.opId)).length, 0);

  const settled = await ledger.run(intent, async (op) => {
    assert.equal(op.attempt, 2);
    op.markSent();
    const refund = await stripeRefund(op, pi, 7_000);
    op.record(refund);
    return refund;
  });
  assert.equal(settled.state, "succeeded");
  assert.equal(settled.sentNow, true);
  assert.equal((await refundsFor(intent.opId)).length, 1);
});

test("bad input is refused before any call, and nothing is recorded", async () => {
  let calls = 0;
  const counting = new Ledger({
    baseUrl: URL_,
    token: TOKEN,
    fetch: (request) => {
      calls += 1;
      return fetch(request);
    },
  });
  const { intent } = await refundIntent();
  const body = () => assert.fail("must not be called");

  const spaced = { ...intent, opId: `refund ${unique("x")} li 2` };
  await assert.rejects(counting.run(spaced, body), (e: unknown) => {
    assert.ok(e instanceof InvalidRequest, `expected InvalidRequest, got ${e}`);
    assert.equal(e.field, "op_id");
    assert.equal(e.retryable, false);
    return true;
  });

  const { amount: _amount, ...withoutAmount } = intent.params;
  const noAmount = { ...intent, params: withoutAmount };
  await assert.rejects(counting.run(noAmount, body), (e: unknown) => {
    assert.ok(e instanceof InvalidRequest, `expected InvalidRequest, got ${e}`);
    assert.equal(e.field, "params.amount");
    return true;
  });

  const float = { ...intent, params: { ...intent.params, amount: { minor: 380.5, currency: "TWD" } } };
  await assert.rejects(counting.run(float, body), (e: unknown) => e instanceof InvalidRequest && e.field === "params.amount.minor");
  await assert.rejects(counting.run({ ...intent, sendDeadlineS: 601 }, body), (e: unknown) => e instanceof InvalidRequest && e.field === "send_deadline_s");
  await assert.rejects(counting.run({ ...intent, kind: "Refund" }, body), (e: unknown) => e instanceof InvalidRequest && e.field === "kind");
  assert.equal(calls, 0, "no HTTP call was made");

  // Refused by the ledger itself (422): the same error, naming the field, and nothing recorded.
  const angled = { ...intent, opId: `${intent.opId}-angled`, subject: "order:<1043>" };
  await assert.rejects(ledger.run(angled, body), (e: unknown) => {
    assert.ok(e instanceof InvalidRequest, `expected InvalidRequest, got ${e}`);
    assert.equal(e.field, "subject");
    assert.match(e.message, /subject/);
    return true;
  });

  for (const opId of [spaced.opId, noAmount.opId, angled.opId]) {
    await assert.rejects(counting.get(opId), (e: unknown) => {
      assert.ok(e instanceof ApiError, `expected ApiError, got ${e}`);
      assert.equal(e.status, 404);
      assert.equal(e.code, "not_found");
      return true;
    });
  }
});

test("the same op id with another amount is an IdempotencyConflict with the diff", async () => {
  const { intent, pi } = await refundIntent(10_000);
  assert.equal(await ledger.needsApproval(intent), false);
  const other = { ...intent, params: { payment_intent: pi, amount: { minor: 20_000, currency: "TWD" } } };
  await assert.rejects(
    ledger.run(other, () => assert.fail("must not be called")),
    (e: unknown) => {
      assert.ok(e instanceof IdempotencyConflict, `expected IdempotencyConflict, got ${e}`);
      assert.equal(e.opId, intent.opId);
      assert.equal(e.retryable, false);
      assert.deepEqual(e.diff, [
        { field: "amount", stored: { minor: 10_000, currency: "TWD" }, requested: { minor: 20_000, currency: "TWD" } },
      ]);
      assert.equal(e.stored?.op_id, intent.opId);
      assert.deepEqual(e.stored?.params, intent.params);
      return true;
    },
  );
  const stored = await ledger.get(intent.opId);
  assert.equal(stored.state, "planned");
  assert.deepEqual(stored.params, intent.params);
});

test("a refund the provider holds pending is accepted; when it fails there, settled says why", async () => {
  const { intent, pi } = await refundIntent(3_000);
  await fault(intent.opId, "pending", { ms: 2_000, then: "failed", failure_reason: "expired_or_canceled_card" });
  const accepted = await ledger.run(intent, async (op) => {
    op.markSent();
    return stripeRefund(op, pi, 3_000);
  });
  assert.equal(accepted.state, "accepted");
  assert.equal(accepted.sentNow, true);
  assert.equal((accepted.value as { status: string }).status, "pending");
  assert.match(accepted.message, /do not send it again/);

  const moved = await ledger.wait(intent.opId, { timeoutS: 45 });
  assert.equal(moved.state, "rejected");
  assert.equal(moved.failure_reason, "expired_or_canceled_card");
  await assert.rejects(ledger.settled(intent.opId, { timeoutS: 5 }), (e: unknown) => {
    assert.ok(e instanceof OperationFailed, `expected OperationFailed, got ${e}`);
    assert.equal(e.state, "rejected");
    assert.equal(e.retryable, false);
    return true;
  });
  assert.equal((await refundsFor(intent.opId)).length, 1);
});
