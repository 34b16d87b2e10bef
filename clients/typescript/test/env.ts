/**
 * What the tests need from the server they run against, read from the environment the harness
 * sets (OPLEDGER_URL, OPLEDGER_TOKEN, OPLEDGER_TENANT, OPLEDGER_STRIPE_URL, OPLEDGER_STRIPE_KEY),
 * and the Stripe sandbox's control calls: add an order of the test's own, inject a fault, and list
 * the refunds it really made. A missing variable fails the test file at once, naming it.
 */

import { randomBytes } from "node:crypto";

const NAMES = ["OPLEDGER_URL", "OPLEDGER_TOKEN", "OPLEDGER_TENANT", "OPLEDGER_STRIPE_URL", "OPLEDGER_STRIPE_KEY"] as const;

function read(): Record<(typeof NAMES)[number], string> {
  const missing = NAMES.filter((name) => !process.env[name]);
  if (missing.length > 0) {
    throw new Error(
      `the tests need a running opledger server and its Stripe sandbox: set ${missing.join(", ")} ` +
        "(see README.md, 'Development'); nothing was skipped, the suite fails without them",
    );
  }
  return Object.fromEntries(NAMES.map((name) => [name, process.env[name]!])) as Record<(typeof NAMES)[number], string>;
}

const env = read();
export const URL_ = env.OPLEDGER_URL.replace(/\/+$/, "");
export const TOKEN = env.OPLEDGER_TOKEN;
export const TENANT = env.OPLEDGER_TENANT;
export const STRIPE_URL = env.OPLEDGER_STRIPE_URL.replace(/\/+$/, "");
export const STRIPE_KEY = env.OPLEDGER_STRIPE_KEY;

/** A name no other run against the same server has used. */
export function unique(prefix: string): string {
  return `${prefix}${Date.now().toString(36)}${randomBytes(3).toString("hex")}`;
}

async function sandbox(method: string, path: string, body?: unknown): Promise<any> {
  const response = await fetch(`${STRIPE_URL}${path}`, {
    method,
    headers: { Authorization: `Bearer ${STRIPE_KEY}`, ...(body === undefined ? {} : { "Content-Type": "application/json" }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await response.text();
  if (!response.ok) throw new Error(`sandbox ${method} ${path} answered ${response.status}: ${text}`);
  return text ? JSON.parse(text) : undefined;
}

/** Adds an order of its own to the sandbox's shop, paid by a payment intent of its own; answers that payment intent. */
export async function newOrder(orderId: string, currency = "TWD", lineMinor = 100_000): Promise<string> {
  const paymentIntent = `pi_${orderId.replace(/[^A-Za-z0-9]/g, "")}`;
  await sandbox("POST", "/v1/_sandbox/orders", {
    id: orderId,
    currency,
    payment_intent: paymentIntent,
    line_items: [
      { id: "li_1", name: "Headphones", amount_minor: lineMinor },
      { id: "li_2", name: "Case", amount_minor: lineMinor },
    ],
  });
  return paymentIntent;
}

/** Sets a fault at the sandbox for requests whose op id or key matches `match`. */
export async function fault(match: string, kind: string, extra: Record<string, unknown> = {}): Promise<void> {
  await sandbox("POST", "/v1/_sandbox/faults", { match, fault: kind, times: 1, ...extra });
}

/** Every refund the sandbox really made for `opId` (its metadata's op id). */
export async function refundsFor(opId: string): Promise<Array<Record<string, any>>> {
  const ledger = await sandbox("GET", "/v1/_sandbox/ledger");
  return (ledger.data as Array<Record<string, any>>).filter((o) => o.type === "refund" && o.metadata?.op_id === opId);
}

/** Sends a refund to the sandbox as Stripe's API takes it: form-encoded, under the op's key and metadata. */
export async function stripeRefund(
  op: { key: string; metadata: { op_id: string; tenant: string } },
  paymentIntent: string,
  amount: number,
  signal?: AbortSignal,
): Promise<Record<string, any>> {
  const form = new URLSearchParams({
    payment_intent: paymentIntent,
    amount: String(amount),
    "metadata[op_id]": op.metadata.op_id,
    "metadata[tenant]": op.metadata.tenant,
  });
  const response = await fetch(`${STRIPE_URL}/v1/refunds`, {
    method: "POST",
    headers: { Authorization: `Bearer ${STRIPE_KEY}`, "Idempotency-Key": op.key, "Content-Type": "application/x-www-form-urlencoded" },
    body: form,
    signal,
  });
  const body = (await response.json()) as Record<string, any>;
  if (!response.ok) {
    throw Object.assign(new Error(body?.error?.message ?? `Stripe answered ${response.status}`), { status: response.status });
  }
  return body;
}
