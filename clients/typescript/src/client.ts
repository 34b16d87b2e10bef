/**
 * `Ledger`: records a side-effecting operation with opledger before it is sent, sends it at most
 * once, and reports what happened.
 *
 * `ledger.run(intent, body)` registers the intent under its op id (derived from the business
 * intent, never from a run or workflow id), begins an attempt (the operation is durably
 * `submitted` before anything is sent), runs `body(op)`, which sends with `op.key` as the
 * provider's idempotency key and `op.metadata` in the provider's object, and reports the outcome.
 * It resolves to a `Settled` when the operation succeeded or the provider accepted it, and throws
 * one of the errors of `./errors.ts` otherwise. An intent the ledger already knows is never sent
 * again: its stored result is returned, or the error that says how it stands.
 *
 * All calls go through `openapi-fetch`, typed by `schema.d.ts` (generated from the ledger's
 * OpenAPI document by `npm run generate`).
 */

import createClient, { type Client } from "openapi-fetch";
import type { components, paths } from "./schema.js";
import {
  ApiError,
  ApprovalPending,
  Denied,
  IdempotencyConflict,
  InvalidRequest,
  NotSent,
  OperationFailed,
  OpledgerError,
  OutcomeUnknown,
  type FieldDiff,
  type OperationView,
} from "./errors.js";

type AttemptStarted = components["schemas"]["AttemptStarted"];
type RegisterBody = components["schemas"]["RegisterBody"];
/** Where an operation stands: one of the ledger's 11 states. */
export type State = components["schemas"]["State"];
type OutcomeBody = components["schemas"]["OutcomeBody"];
/** What an attempt's outcome may be reported as. */
export type OutcomeName = OutcomeBody["outcome"];

/** A JSON value as the ledger takes it in `params`: integers only, no floats. */
export type JsonValue = null | boolean | number | string | JsonValue[] | { [key: string]: JsonValue };

/** The options of a `Ledger`. */
export interface LedgerOptions {
  /** The ledger's address, e.g. `http://127.0.0.1:3000`. */
  baseUrl: string;
  /** An API token (`opl_…`) with the `read` and `write` scopes. */
  token: string;
  /** Where people open the console; `baseUrl` when left out. Used in `ApprovalPending.consoleUrl`. */
  consoleUrl?: string;
  /** The `fetch` to call the ledger with (`globalThis.fetch` when left out). */
  fetch?: (input: Request) => Promise<Response>;
  /** How long one call to the ledger may take, in milliseconds (30000 when left out); long polls get their wait on top. */
  requestTimeoutMs?: number;
}

/** The business intent of one side-effecting operation. */
export interface Intent {
  /** What the operation does, e.g. `refund` (1 to 64 of `a-z0-9_`). */
  kind: string;
  /** Derived from the business intent, e.g. `refund-1043-li_2`: the provider's idempotency key is made from it. */
  opId: string;
  /** The business object it concerns, e.g. `order:1043`. */
  subject: string;
  /** Who performs it, e.g. `stripe`. */
  provider: string;
  /** Its parameters: integers only; money as `{minor, currency}` (a refund needs `amount`). */
  params: Record<string, JsonValue>;
  /** The person on whose behalf the agent asks. */
  onBehalfOf?: string;
}

/** An intent to run now, with how long its send may take. */
export interface RunIntent extends Intent {
  /** How long the send may take, 1 to 600 s (60 when left out): until then nobody else looks it up or sends it. */
  sendDeadlineS?: number;
}

/** How an operation stands once it is done, or accepted by the provider and not yet confirmed. */
export interface Settled {
  opId: string;
  /** `succeeded`, or `accepted` (the provider has it and has not confirmed the result yet). */
  state: "succeeded" | "accepted";
  /** The provider's id of what it created (the first external reference), if known. */
  externalId: string | null;
  /** Every external reference, `provider/type/id`, e.g. `stripe/refund/re_7f3a`. */
  externalRefs: string[];
  /** The ledger's words for how it stands. */
  message: string;
  /** What the body returned; `undefined` when the operation was settled earlier. */
  value: unknown;
  /** Whether this call sent it. */
  sentNow: boolean;
  operation: OperationView;
}

/**
 * One attempt to send, handed to the body of `run`. The body is taken to have sent from its first
 * use of `key`, `metadata` or `attempt`, or from `markSent()`: an error thrown before that is "not
 * sent" (`NotSent`, safe to retry); after it, what the provider's own answer says, else "unknown"
 * (`OutcomeUnknown`, never sent again). A body that sends without the key or the metadata calls
 * `markSent()` first.
 */
export class Operation {
  readonly opId: string;
  /** When the ledger takes the send to be over (ISO 8601). */
  readonly sendDeadline: string;
  /** The ledger's instructions for this attempt. */
  readonly message: string;

  readonly #attempt: number;
  readonly #key: string;
  readonly #metadata: { op_id: string; tenant: string };
  /** @internal */ sent = false;
  /** @internal */ report: Omit<OutcomeBody, "latency_ms"> | undefined;

  /** @internal */
  constructor(started: AttemptStarted) {
    this.opId = started.operation.op_id;
    this.#attempt = started.attempt;
    this.#key = started.idempotency_key;
    const cut = this.#key.indexOf(":");
    this.#metadata = { op_id: this.opId, tenant: cut >= 0 ? this.#key.slice(0, cut) : "" };
    this.sendDeadline = started.send_deadline;
    this.message = started.message;
  }

  /** The attempt's number (1 for the first); reading it counts as the send's start. */
  get attempt(): number {
    this.sent = true;
    return this.#attempt;
  }

  /** The provider's idempotency key, `tenant:op_id`; reading it counts as the send's start. */
  get key(): string {
    this.sent = true;
    return this.#key;
  }

  /** What to write into the provider's object, `{op_id, tenant}`; reading it counts as the send's start. */
  get metadata(): { op_id: string; tenant: string } {
    this.sent = true;
    return { ...this.#metadata };
  }

  /** @internal The attempt's number, for the client's own calls (not a use by the body). */
  get number(): number {
    return this.#attempt;
  }

  /** Says that the send starts now, for a body that sends without the key or the metadata. */
  markSent(): void {
    this.sent = true;
  }

  /**
   * Records the provider's answer by its `status` and `id` (property or key):
   * `succeeded|completed|done|sent|ok` → succeeded; `pending|processing|requires_action|received|
   * accepted|in_progress` → accepted; `failed|canceled|cancelled|refused|declined` → failed at the
   * provider (reason from `failure_reason` or `reason`); anything else → accepted (never claimed done).
   */
  record(answer: unknown): void {
    const field = (name: string): unknown =>
      answer !== null && (typeof answer === "object" || typeof answer === "function")
        ? (answer as Record<string, unknown>)[name]
        : undefined;
    const id = field("id");
    const externalId = typeof id === "string" || typeof id === "number" ? String(id) : undefined;
    const status = String(field("status") ?? "").toLowerCase();
    if (SUCCEEDED.has(status)) {
      this.succeeded(externalId);
    } else if (FAILED.has(status)) {
      const reason = field("failure_reason") ?? field("reason");
      this.failed(reason == null ? status : String(reason), externalId);
    } else {
      this.accepted(externalId);
    }
  }

  /** The provider says it is done. */
  succeeded(externalId?: string): void {
    this.set({ outcome: "succeeded", external_id: externalId });
  }

  /** The provider has it and says it is still in progress. */
  accepted(externalId?: string): void {
    this.set({ outcome: "accepted", external_id: externalId });
  }

  /** The provider created it and says it failed there, for `reason`. */
  failed(reason: string, externalId?: string): void {
    this.set({ outcome: "failed_at_provider", error: reason, external_id: externalId });
  }

  private set(report: Omit<OutcomeBody, "latency_ms">): void {
    if (this.report !== undefined) {
      throw new Error(`the outcome of ${this.opId} attempt ${this.number} is already recorded (${this.report.outcome})`);
    }
    this.sent = true;
    this.report = Object.fromEntries(Object.entries(report).filter(([, v]) => v !== undefined)) as typeof report;
  }
}

const SUCCEEDED = new Set(["succeeded", "completed", "done", "sent", "ok"]);
const FAILED = new Set(["failed", "canceled", "cancelled", "refused", "declined"]);

/**
 * How long a send may take when the intent says nothing, in seconds: the server's own default, so
 * that a client and a raw call of the API hold an operation alike (docs/durable-execution.md says
 * how it relates to a workflow activity's timeout and heartbeat).
 */
export const DEFAULT_SEND_DEADLINE_S = 60;

const OP_ID = /^[A-Za-z0-9._:-]{1,128}$/;
const NAME = /^[a-z0-9_]{1,64}$/;
const CURRENCY = /^[A-Z]{3}$/;
// eslint-disable-next-line no-control-regex
const CONTROL = /\p{Cc}/u;

/** The ledger's client. */
export class Ledger {
  readonly baseUrl: string;
  readonly consoleUrl: string;
  private readonly api: Client<paths>;
  private readonly requestTimeoutMs: number;

  constructor(options: LedgerOptions) {
    if (!options || typeof options.baseUrl !== "string" || options.baseUrl === "") {
      throw new TypeError("new Ledger({baseUrl, token}): baseUrl is required");
    }
    if (typeof options.token !== "string" || options.token === "") {
      throw new TypeError("new Ledger({baseUrl, token}): token is required");
    }
    this.baseUrl = options.baseUrl.replace(/\/+$/, "");
    this.consoleUrl = (options.consoleUrl ?? this.baseUrl).replace(/\/+$/, "");
    this.requestTimeoutMs = options.requestTimeoutMs ?? 30_000;
    const userFetch = options.fetch;
    this.api = createClient<paths>({
      baseUrl: this.baseUrl,
      headers: { Authorization: `Bearer ${options.token}` },
      ...(userFetch ? { fetch: (request: Request) => userFetch(request) } : {}),
    });
  }

  /**
   * Registers the intent (or finds it), begins an attempt, runs `body(op)` to send it, and reports
   * the outcome: by `op.record(answer)` / `op.succeeded(id)` / `op.accepted(id)` / `op.failed(reason)`
   * inside the body, else by recording what the body returns. Resolves to a `Settled` when it
   * succeeded or was accepted, now or before; throws `ApprovalPending`, `Denied`,
   * `OperationFailed`, `OutcomeUnknown` (never send it again), `NotSent` (safe to retry),
   * `IdempotencyConflict`, `InvalidRequest` or `ApiError` otherwise.
   */
  async run<T>(intent: RunIntent, body: (op: Operation) => Promise<T> | T): Promise<Settled> {
    const deadline = intent.sendDeadlineS ?? DEFAULT_SEND_DEADLINE_S;
    checkIntent(intent);
    if (!Number.isInteger(deadline) || deadline < 1 || deadline > 600) {
      throw new InvalidRequest("send_deadline_s", "send_deadline_s must be a whole number of seconds from 1 to 600", { opId: intent.opId });
    }
    if (typeof body !== "function") {
      throw new TypeError("ledger.run(intent, body): body must be a function (op) => …");
    }

    const registered = await this.register(intent);
    const early = this.standing(registered);
    if (early) return early;

    const started = await this.begin(intent.opId, deadline);
    if (!("attempt" in started)) {
      // Someone else holds or settled it: the operation as it stands now, never sent by us.
      const now = this.standing(started.operation);
      if (now) return now;
      throw new NotSent(`${started.message} ${started.operation.message}`.trim(), { opId: intent.opId, operation: started.operation });
    }

    const op = new Operation(started);
    const startedAt = Date.now();
    let value: T | undefined;
    let thrown: { error: unknown } | undefined;
    try {
      value = await body(op);
    } catch (error) {
      thrown = { error };
    }
    const latency = Math.min(Date.now() - startedAt, 86_400_000);

    let report: OutcomeBody;
    if (op.report !== undefined) {
      report = { ...op.report, latency_ms: latency };
    } else if (thrown === undefined) {
      op.record(value);
      report = { ...op.report!, latency_ms: latency };
    } else if (!op.sent) {
      report = { outcome: "not_sent", error: describe(thrown.error), latency_ms: latency };
    } else {
      report = { ...failureOf(thrown.error), latency_ms: latency };
    }

    const answer = await this.report(op, report, thrown?.error);
    if (thrown !== undefined && op.report !== undefined) {
      // The body recorded what the provider did, then failed on its own: the record stands.
      throw thrown.error;
    }
    const state = answer.operation.state;
    if (state === "succeeded" || state === "accepted") {
      return settledOf(answer.operation, answer.message, value, true);
    }
    throw this.errorOf(answer.operation, answer.message, thrown?.error);
  }

  /**
   * Registers the intent (idempotently: the same intent again is the same operation) and says
   * whether it waits for a person (`pending_approval`). Throws `InvalidRequest`,
   * `IdempotencyConflict` or `ApiError` as `run` does.
   */
  async needsApproval(intent: Intent): Promise<boolean> {
    checkIntent(intent);
    const view = await this.register(intent);
    return view.state === "pending_approval";
  }

  /** The operation as it stands now. Throws `ApiError` (404 `not_found` when there is none). */
  async get(opId: string): Promise<OperationView> {
    return this.read(opId, 0);
  }

  /**
   * Waits until the operation leaves the state it has now, or `timeoutS` (60) passes, and answers
   * it as it stands then. A settled operation (succeeded, rejected, denied, cancelled) is answered at once.
   */
  async wait(opId: string, options: { timeoutS?: number } = {}): Promise<OperationView> {
    const until = Date.now() + (options.timeoutS ?? 60) * 1000;
    let view = await this.read(opId, 0);
    const from = view.state;
    if (SETTLED_STATES.has(from)) return view;
    while (view.state === from) {
      const left = Math.ceil((until - Date.now()) / 1000);
      if (left <= 0) break;
      view = await this.read(opId, Math.min(left, 60), from);
    }
    return view;
  }

  /**
   * Waits until the operation succeeded or was accepted (resolves to a `Settled` with `sentNow`
   * false) or ended without effect (throws `Denied` or `OperationFailed`). Still open after
   * `timeoutS` (120): throws `OutcomeUnknown` (sent, result not known yet), `ApprovalPending`
   * (waiting for a manager) or `NotSent` (recorded, not sent).
   */
  async settled(opId: string, options: { timeoutS?: number } = {}): Promise<Settled> {
    const until = Date.now() + (options.timeoutS ?? 120) * 1000;
    let view = await this.read(opId, 0);
    for (;;) {
      if (view.state === "succeeded" || view.state === "accepted") {
        return settledOf(view, view.message, undefined, false);
      }
      if (FINAL_FAILURES.has(view.state)) throw this.errorOf(view, view.message);
      const left = Math.ceil((until - Date.now()) / 1000);
      if (left <= 0) throw this.errorOf(view, view.message);
      view = await this.read(opId, Math.min(left, 60), view.state);
    }
  }

  /** The error that says how an operation stands when it is not settled with effect. */
  private errorOf(view: OperationView, message: string, cause?: unknown): OpledgerError {
    const opts = { opId: view.op_id, operation: view, cause };
    switch (view.state) {
      case "pending_approval":
        return new ApprovalPending(view.op_id, this.approvalUrl(view.op_id), view);
      case "denied":
        return new Denied(message, opts);
      case "rejected":
      case "cancelled": {
        const why = view.failure ?? view.failure_reason;
        return new OperationFailed(view.op_id, view.state, why ? `${message} ${why}` : message, view, cause);
      }
      case "planned":
      case "approved":
        return new NotSent(message, opts);
      default:
        // submitted, unknown, needs_review (and any state this client does not know): never send again.
        return new OutcomeUnknown(message, opts);
    }
  }

  /** A `Settled` for an operation that needs no send, or the error that says why it may not be sent; `undefined` when it may be sent now. */
  private standing(view: OperationView): Settled | undefined {
    if (view.state === "planned" || view.state === "approved") return undefined;
    if (view.state === "succeeded" || view.state === "accepted") {
      return settledOf(view, view.message, undefined, false);
    }
    throw this.errorOf(view, view.message);
  }

  private approvalUrl(opId: string): string {
    return `${this.consoleUrl}/operations/${encodeURIComponent(opId)}`;
  }

  private async register(intent: Intent): Promise<OperationView> {
    const body: RegisterBody = {
      op_id: intent.opId,
      kind: intent.kind,
      subject: intent.subject,
      provider: intent.provider,
      // The document says only "object" (openapi-typescript: Record<string, never>); any JSON object is meant.
      params: intent.params as unknown as RegisterBody["params"],
      ...(intent.onBehalfOf !== undefined ? { on_behalf_of: intent.onBehalfOf } : {}),
    };
    const { data, error, response } = await this.call(intent.opId, this.requestTimeoutMs, (signal) =>
      this.api.POST("/api/v1/operations", { body, signal }),
    );
    if (data !== undefined) return data;
    const detail = errorDetail(error);
    if (response.status === 409 && detail.code === "idempotency_conflict") {
      const diff = Array.isArray(detail.extra.diff) ? (detail.extra.diff as FieldDiff[]) : [];
      throw new IdempotencyConflict(intent.opId, detail.message, diff, detail.extra.stored as OperationView | undefined);
    }
    if (response.status === 422) throw invalidOf(detail, intent.opId);
    throw apiError(response.status, detail, intent.opId);
  }

  /** Begins an attempt: the `AttemptStarted`, or, when the state forbids a send (409), the refusal with the operation as it stands. */
  private async begin(
    opId: string,
    sendDeadlineS: number,
  ): Promise<AttemptStarted | { message: string; operation: OperationView }> {
    const { data, error, response } = await this.call(opId, this.requestTimeoutMs, (signal) =>
      this.api.POST("/api/v1/operations/{op_id}/attempts", {
        params: { path: { op_id: opId } },
        body: { send_deadline_s: sendDeadlineS },
        signal,
      }),
    );
    if (data !== undefined) return data;
    const detail = errorDetail(error);
    if (response.status === 409) {
      return { message: detail.message, operation: await this.read(opId, 0) };
    }
    if (response.status === 422) throw invalidOf(detail, opId);
    throw apiError(response.status, detail, opId);
  }

  /** Reports an attempt's outcome; when the ledger cannot be told, the result is unknown. */
  private async report(
    op: Operation,
    outcome: OutcomeBody,
    bodyError: unknown,
  ): Promise<{ message: string; operation: OperationView }> {
    let answer;
    try {
      answer = await this.call(op.opId, this.requestTimeoutMs, (signal) =>
        this.api.POST("/api/v1/operations/{op_id}/attempts/{attempt}/outcome", {
          params: { path: { op_id: op.opId, attempt: op.number } },
          body: outcome,
          signal,
        }),
      );
    } catch (error) {
      if (outcome.outcome === "not_sent") {
        throw new NotSent(`Nothing was sent, but the ledger could not be told (${describe(error)}); it takes the send as over after ${op.sendDeadline}.`, {
          opId: op.opId,
          cause: bodyError ?? error,
        });
      }
      throw new OutcomeUnknown(
        `The outcome (${outcome.outcome}) could not be reported to the ledger (${describe(error)}); do not send again; it will be looked up after ${op.sendDeadline}.`,
        { opId: op.opId, cause: bodyError ?? error },
      );
    }
    const { data, error, response } = answer;
    if (data !== undefined) return data;
    const detail = errorDetail(error);
    if (response.status === 409) {
      // The attempt is closed already (its deadline passed and it was looked up): as it stands now.
      const view = await this.read(op.opId, 0);
      return { message: view.message, operation: view };
    }
    throw apiError(response.status, detail, op.opId);
  }

  private async read(opId: string, waitS: number, state?: State): Promise<OperationView> {
    const query: { wait?: number; state?: State } = {};
    if (waitS > 0) query.wait = waitS;
    if (state !== undefined && waitS > 0) query.state = state;
    const { data, error, response } = await this.call(opId, this.requestTimeoutMs + waitS * 1000, (signal) =>
      this.api.GET("/api/v1/operations/{op_id}", { params: { path: { op_id: opId }, query }, signal }),
    );
    if (data !== undefined) return data;
    throw apiError(response.status, errorDetail(error), opId);
  }

  /** Calls the ledger with a timeout; a call that got no answer is an `ApiError` with status 0. */
  private async call<R>(opId: string, timeoutMs: number, send: (signal: AbortSignal) => Promise<R>): Promise<R> {
    try {
      return await send(AbortSignal.timeout(timeoutMs));
    } catch (error) {
      throw new ApiError(0, "unreachable", `The ledger at ${this.baseUrl} could not be reached: ${describe(error)}`, {}, { opId, cause: error });
    }
  }
}

const SETTLED_STATES = new Set<State>(["succeeded", "rejected", "denied", "cancelled"]);
const FINAL_FAILURES = new Set<State>(["denied", "rejected", "cancelled"]);

function settledOf(view: OperationView, message: string, value: unknown, sentNow: boolean): Settled {
  const refs = view.external_refs ?? [];
  const first = refs[0];
  return {
    opId: view.op_id,
    state: view.state as "succeeded" | "accepted",
    externalId: first === undefined ? null : first.split("/").slice(2).join("/") || first,
    externalRefs: refs,
    message,
    value,
    sentNow,
    operation: view,
  };
}

interface Detail {
  code: string;
  message: string;
  extra: Record<string, unknown>;
}

/** The `{"error": {code, message, …}}` of an error answer, whatever shape it came in. */
function errorDetail(body: unknown): Detail {
  const inner = body && typeof body === "object" ? (body as { error?: unknown }).error : undefined;
  if (inner && typeof inner === "object") {
    const { code, message, ...extra } = inner as Record<string, unknown>;
    return { code: String(code ?? ""), message: String(message ?? ""), extra };
  }
  return { code: "", message: typeof body === "string" ? body : "", extra: {} };
}

function apiError(status: number, detail: Detail, opId: string): ApiError {
  const message = detail.message || `The ledger answered ${status}.`;
  return new ApiError(status, detail.code || `http_${status}`, message, detail.extra, { opId });
}

/**
 * A 422 as `InvalidRequest`: its field from `error.field`, else from the message's first words,
 * which name it in most of the ledger's refusals (`op_id contains ' '…`, `params.amount.minor: …`).
 */
function invalidOf(detail: Detail, opId: string): InvalidRequest {
  let field = typeof detail.extra.field === "string" ? detail.extra.field : undefined;
  if (field === undefined) {
    const named = /^([a-z][a-z0-9_]*(?:\.[a-z0-9_]+|\[\d+\])*)(?::| contains | must )/.exec(detail.message);
    field = named?.[1];
  }
  return new InvalidRequest(field, detail.message || "The ledger refused the request as invalid.", { opId });
}

/** Checks an intent as the ledger would, before any HTTP call. */
function checkIntent(intent: Intent): void {
  const opId = intent?.opId;
  const bad = (field: string, message: string): never => {
    throw new InvalidRequest(field, message, typeof opId === "string" ? { opId } : {});
  };
  if (typeof opId !== "string" || !OP_ID.test(opId)) {
    bad("op_id", `op_id must be 1 to 128 letters, digits, '-', '_', '.' and ':', got ${JSON.stringify(opId)}`);
  }
  for (const field of ["kind", "provider"] as const) {
    const value = intent[field];
    if (typeof value !== "string" || !NAME.test(value)) {
      bad(field, `${field} must be 1 to 64 lowercase letters, digits or '_' (for example "refund"), got ${JSON.stringify(value)}`);
    }
  }
  if (!printable(intent.subject)) bad("subject", "subject must be 1 to 200 printable characters");
  if (intent.onBehalfOf !== undefined && !printable(intent.onBehalfOf)) {
    bad("on_behalf_of", "on_behalf_of must be 1 to 200 printable characters");
  }
  const params = intent.params;
  if (!isPlainObject(params)) bad("params", "params must be an object of JSON values");
  checkJson(params, "params", bad);
  if (intent.kind === "refund") {
    const amount = (params as Record<string, unknown>).amount;
    if (!isPlainObject(amount)) {
      bad("params.amount", 'a refund needs params.amount = {"minor": <integer>, "currency": "<ISO 4217 code>"}');
    }
    const { minor, currency } = amount as Record<string, unknown>;
    if (typeof minor !== "number" || !Number.isSafeInteger(minor)) {
      bad("params.amount.minor", "params.amount.minor must be an integer (the amount in minor units)");
    }
    if (typeof currency !== "string" || !CURRENCY.test(currency)) {
      bad("params.amount.currency", `params.amount.currency must be 3 upper-case letters (ISO 4217), got ${JSON.stringify(currency)}`);
    }
  }
}

function printable(value: unknown): boolean {
  if (typeof value !== "string") return false;
  const length = [...value.trim()].length;
  return length >= 1 && length <= 200 && !CONTROL.test(value);
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (value === null || typeof value !== "object" || Array.isArray(value)) return false;
  const proto = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}

function checkJson(value: unknown, path: string, bad: (field: string, message: string) => never): void {
  if (value === null || typeof value === "string" || typeof value === "boolean") return;
  if (typeof value === "number") {
    if (!Number.isSafeInteger(value)) {
      bad(path, `${path} must be an integer (no floats: money as {"minor", "currency"}), got ${value}`);
    }
    return;
  }
  if (Array.isArray(value)) {
    value.forEach((item, index) => checkJson(item, `${path}[${index}]`, bad));
    return;
  }
  if (isPlainObject(value)) {
    for (const [key, item] of Object.entries(value)) checkJson(item, `${path}.${key}`, bad);
    return;
  }
  bad(path, `${path} must be a JSON value (null, boolean, integer, string, array or object), got ${typeof value}`);
}

/** The outcome to report for an error the body threw after its send began: the provider's own answer (its HTTP status), else unknown. */
function failureOf(error: unknown): Omit<OutcomeBody, "latency_ms"> {
  const text = describe(error);
  const status = httpStatusOf(error);
  if (status !== undefined && !isConnectionError(error)) {
    if (status >= 500) return { outcome: "server_error", http_status: status, error: text };
    if (status === 400 || status === 404 || status === 422) return { outcome: "invalid", http_status: status, error: text };
    if (status === 402) return { outcome: "rejected", http_status: status, error: text };
    if (status === 401 || status === 403) return { outcome: "forbidden", http_status: status, error: text };
    if (status === 429) {
      const retry = retryAfterOf(error);
      return { outcome: "unavailable", http_status: status, error: text, ...(retry !== undefined ? { retry_after_s: retry } : {}) };
    }
    // Any other status says nothing certain about whether it happened.
    return { outcome: "timeout", http_status: status, error: text };
  }
  // A timeout, a dropped connection, or anything else after the send: never guess "failed".
  return { outcome: "timeout", error: text };
}

const CONNECTION_CODES = new Set([
  "ECONNRESET",
  "ECONNREFUSED",
  "ECONNABORTED",
  "EPIPE",
  "ETIMEDOUT",
  "ESOCKETTIMEDOUT",
  "EAI_AGAIN",
  "ENOTFOUND",
  "ENETUNREACH",
  "EHOSTUNREACH",
  "UND_ERR_SOCKET",
  "UND_ERR_CONNECT_TIMEOUT",
  "UND_ERR_HEADERS_TIMEOUT",
  "UND_ERR_BODY_TIMEOUT",
  "UND_ERR_ABORTED",
]);

/** Whether `error` (or its cause) is a timeout, an abort or a lost connection. */
export function isConnectionError(error: unknown): boolean {
  for (let e = error, depth = 0; e && typeof e === "object" && depth < 5; e = (e as { cause?: unknown }).cause, depth++) {
    const { name, code, message } = e as { name?: unknown; code?: unknown; message?: unknown };
    if (name === "AbortError" || name === "TimeoutError" || name === "ConnectTimeoutError") return true;
    if (typeof name === "string" && /Connection|Timeout/.test(name)) return true;
    if (typeof code === "string" && CONNECTION_CODES.has(code)) return true;
    if (name === "TypeError" && message === "fetch failed") return true;
  }
  return false;
}

function httpStatusOf(error: unknown): number | undefined {
  if (!error || typeof error !== "object") return undefined;
  const e = error as Record<string, any>;
  const candidates = [e.status, e.statusCode, e.httpStatus, e.http_status, e.response?.status, e.response?.statusCode, e.raw?.statusCode];
  for (const value of candidates) {
    const n = typeof value === "string" ? Number(value) : value;
    if (typeof n === "number" && Number.isInteger(n) && n >= 100 && n <= 599) return n;
  }
  return undefined;
}

function retryAfterOf(error: unknown): number | undefined {
  const e = error as Record<string, any>;
  let value: unknown = e.retryAfter ?? e.retry_after ?? e.retryAfterS;
  const headers = e.headers ?? e.response?.headers;
  if (value === undefined && headers) {
    value = typeof headers.get === "function" ? headers.get("retry-after") : headers["retry-after"];
  }
  const n = Number(value);
  return Number.isFinite(n) && n >= 0 ? Math.min(Math.ceil(n), 86_400) : undefined;
}

function describe(error: unknown): string {
  if (error instanceof Error) {
    const cause = error.cause instanceof Error ? ` (${error.cause.message})` : "";
    return `${error.name}: ${error.message}${cause}`.slice(0, 1000);
  }
  return String(error).slice(0, 1000);
}
