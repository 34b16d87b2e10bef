/**
 * The errors of `@opledger/client`. Every one is an `OpledgerError` whose `retryable` says whether
 * calling `run` again with the same intent may send it: only `NotSent` (and an unreachable ledger)
 * is retryable. Each message is the ledger's own sentence where it gave one, written to be passed
 * on to a model or a person as it is ("Result unknown; do not send again; it is being checked.").
 */

import type { components } from "./schema.js";

/** An operation as the ledger shows it (`GET /api/v1/operations/{op_id}`). */
export type OperationView = components["schemas"]["OperationView"];

/** One field that differs between the stored intent and the one asked for again. */
export interface FieldDiff {
  field: string;
  stored?: unknown;
  requested?: unknown;
}

/** The base of every error this client throws. */
export class OpledgerError extends Error {
  /** Whether calling `run` again with the same intent may send it. */
  readonly retryable: boolean = false;
  /** The op id the error is about, where there is one. */
  readonly opId: string | undefined;
  /** The operation as the ledger last showed it, where the client has it. */
  readonly operation: OperationView | undefined;

  constructor(message: string, opts: { opId?: string; operation?: OperationView; cause?: unknown } = {}) {
    super(message, opts.cause === undefined ? undefined : { cause: opts.cause });
    this.name = new.target.name;
    this.opId = opts.opId;
    this.operation = opts.operation;
  }
}

/** The input can never be valid: refused before any HTTP call, or by the ledger (422). Nothing was recorded. */
export class InvalidRequest extends OpledgerError {
  /** The field at fault in the API's words (`op_id`, `params.amount`, `send_deadline_s`), when one is. */
  readonly field: string | undefined;

  constructor(field: string | undefined, message: string, opts: { opId?: string; cause?: unknown } = {}) {
    super(message, opts);
    this.field = field;
  }
}

/** The op id is already recorded with other parameters; nothing was changed or sent. A new intent needs a new op id. */
export class IdempotencyConflict extends OpledgerError {
  /** Field by field, what is stored and what was asked for. */
  readonly diff: FieldDiff[];
  /** The stored operation. */
  readonly stored: OperationView | undefined;

  constructor(opId: string, message: string, diff: FieldDiff[], stored: OperationView | undefined) {
    super(message, { opId, operation: stored });
    this.diff = diff;
    this.stored = stored;
  }
}

/** The operation waits for a manager's approval in the console; it was not sent. */
export class ApprovalPending extends OpledgerError {
  /** The page where a manager decides. */
  readonly consoleUrl: string;

  constructor(opId: string, consoleUrl: string, operation: OperationView | undefined, message?: string) {
    super(message ?? `Waiting for a manager's approval at ${consoleUrl}; do not send it.`, { opId, operation });
    this.consoleUrl = consoleUrl;
  }
}

/** A manager denied the operation; it will not be sent. */
export class Denied extends OpledgerError {}

/**
 * Nobody can tell yet whether the operation happened (a timeout after the send, a send in progress
 * elsewhere, an answer being checked). Never send it again: the ledger looks it up at the provider;
 * `ledger.settled(opId)` waits for that.
 */
export class OutcomeUnknown extends OpledgerError {}

/** Nothing was sent; calling `run` again with the same intent sends it (under the same key). */
export class NotSent extends OpledgerError {
  override readonly retryable: boolean = true;
}

/** The operation ended without effect: refused by the provider, failed there, or cancelled. */
export class OperationFailed extends OpledgerError {
  /** `rejected` or `cancelled`. */
  readonly state: string;

  constructor(opId: string, state: string, message: string, operation: OperationView | undefined, cause?: unknown) {
    super(message, { opId, operation, cause });
    this.state = state;
  }
}

/** Any other answer of the ledger API (401, 403, 404, 5xx…), or the ledger could not be reached (`status` 0). */
export class ApiError extends OpledgerError {
  readonly status: number;
  /** The ledger's stable code (`unauthorized`, `insufficient_scope`, `not_found`…), `unreachable` when it could not be reached. */
  readonly code: string;
  /** The error's other fields (`scope`, `field`…). */
  readonly details: Record<string, unknown>;
  override readonly retryable: boolean;

  constructor(status: number, code: string, message: string, details: Record<string, unknown> = {}, opts: { opId?: string; cause?: unknown } = {}) {
    super(message, opts);
    this.status = status;
    this.code = code;
    this.details = details;
    this.retryable = status === 0 || status === 429 || status === 503;
  }
}
