/**
 * The example tool (examples/refund-tool.mjs) run as a user runs it, in a child process against the
 * real server and sandbox: it prints one JSON line saying the refund succeeded, the sandbox holds
 * that one refund, and a second run prints the same result without a second refund.
 */

import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { dirname, join } from "node:path";
import { test } from "node:test";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { STRIPE_KEY, STRIPE_URL, TENANT, TOKEN, URL_, newOrder, refundsFor, unique } from "./env.js";

const root = join(dirname(fileURLToPath(import.meta.url)), "..", "..");
const example = join(root, "examples", "refund-tool.mjs");

async function runExample(args: string[]): Promise<Record<string, any>> {
  const { stdout } = await promisify(execFile)(process.execPath, [example, ...args], {
    cwd: root,
    timeout: 60_000,
    env: { ...process.env, OPLEDGER_URL: URL_, OPLEDGER_TOKEN: TOKEN, STRIPE_URL, STRIPE_SECRET_KEY: STRIPE_KEY },
  });
  const lines = stdout.trim().split("\n");
  assert.equal(lines.length, 1, `one JSON line, got: ${stdout}`);
  return JSON.parse(lines[0]!);
}

test("the example refund tool prints a succeeded refund, once", async () => {
  const order = unique("ex");
  const pi = await newOrder(order);
  const args = [order, "li_1", "25000", "TWD", pi];
  const opId = `refund-${order}-li_1`;

  const first = await runExample(args);
  assert.equal(first.status, "succeeded", JSON.stringify(first));
  assert.equal(first.op_id, opId);
  assert.match(first.refund_id, /^re_/);
  const refunds = await refundsFor(opId);
  assert.equal(refunds.length, 1);
  assert.equal(refunds[0]!.id, first.refund_id);
  assert.equal(refunds[0]!.amount, 25_000);
  assert.equal(refunds[0]!.idempotency_key, `${TENANT}:${opId}`);

  const again = await runExample(args);
  assert.deepEqual(again, { ...first, message: again.message });
  assert.equal((await refundsFor(opId)).length, 1);

  const conflicting = await runExample([order, "li_1", "26000", "TWD", pi]);
  assert.equal(conflicting.status, "conflict");
  assert.equal(conflicting.retryable, false);
});
