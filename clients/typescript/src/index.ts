/**
 * `@opledger/client`: the TypeScript client of opledger's ledger API.
 *
 * ```ts
 * import { Ledger } from "@opledger/client";
 * const ledger = new Ledger({ baseUrl: "http://127.0.0.1:3000", token: "opl_…" });
 * const settled = await ledger.run(
 *   { kind: "refund", opId: "refund-1043-li_2", subject: "order:1043", provider: "stripe",
 *     params: { payment_intent: "pi_1043", amount: { minor: 38000, currency: "TWD" } } },
 *   async (op) => await sendRefund({ key: op.key, metadata: op.metadata }),
 * );
 * ```
 *
 * This module re-exports the client (`./client.ts`), its errors (`./errors.ts`) and the API's
 * generated types (`./schema.d.ts`).
 */

export { DEFAULT_SEND_DEADLINE_S, Ledger, Operation, isConnectionError } from "./client.js";
export type { Intent, JsonValue, LedgerOptions, OutcomeName, RunIntent, Settled, State } from "./client.js";
export {
  ApiError,
  ApprovalPending,
  Denied,
  IdempotencyConflict,
  InvalidRequest,
  NotSent,
  OperationFailed,
  OpledgerError,
  OutcomeUnknown,
} from "./errors.js";
export type { FieldDiff, OperationView } from "./errors.js";
export type { components, paths } from "./schema.js";
