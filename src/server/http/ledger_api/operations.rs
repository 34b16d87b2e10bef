//! The ledger API's operation calls: register an operation before anything is sent, begin an
//! attempt (durably `submitted` before the send), report its outcome, read an operation (at once,
//! or once its state changes), cancel, and read one order's operations with their roll-up. Each
//! answers with what the ledger committed.

use axum::{
    body::Bytes,
    extract::{rejection::QueryRejection, Path, Query, State},
    http::StatusCode,
    response::{IntoResponse, Response},
    Json,
};
use chrono::Duration;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use utoipa::ToSchema;

use super::error::{ApiError, ErrorEnvelope};
use super::extract::{ApiJson, Caller};
use super::views::OperationView;
use crate::domain::{
    failure::FailureClass,
    ids::{AttemptNumber, OpId, TenantId},
    machine::{cancel_message, AttemptOutcome, Command, State as OpState},
    operation::{AttemptReport, OperationHistory, RetryBudget},
    params::CanonicalParams,
    rollup::{roll_up, OperationSummary, OrderRollup},
};
use crate::server::clock::now;
use crate::server::http::state::AppState;
use crate::server::ledger::LedgerError;
use crate::server::ledger::{RegisterRequest, Registration};
use crate::server::store::StoreError;

/// A request to record an operation before anything is sent.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct RegisterBody {
    /// Derived from the business intent, e.g. `refund-1043-li_2`; the idempotency key downstream.
    #[schema(min_length = 1, max_length = 128, pattern = r"^[A-Za-z0-9._:-]+$")]
    op_id: String,
    /// What the operation does, e.g. `refund`, `create_aftersale`.
    #[schema(min_length = 1, max_length = 64, pattern = r"^[a-z0-9_]+$")]
    kind: String,
    /// The business object it concerns, e.g. `order:1043`: letters (any script), digits, spaces
    /// and `-_.:/#@+`, 1 to 200 of them once spaces at either end are trimmed; never `<`, `>`,
    /// `&`, quotes, a backslash or a control character.
    #[schema(min_length = 1, pattern = r#"^[^<>&"'\\\u0000-\u001f\u007f-\u009f]+$"#)]
    subject: String,
    /// Who performs it, e.g. `stripe`.
    #[schema(min_length = 1, max_length = 64, pattern = r"^[a-z0-9_]+$")]
    provider: String,
    /// Canonical parameters: integers only; money as `{"minor": 38000, "currency": "TWD"}`.
    #[schema(value_type = HashMap<String, serde_json::Value>)]
    params: Value,
    /// The person on whose behalf the agent asks, recorded in the register event. The requester
    /// four-eyes compares with the approver is always the token's own name, never this. 1 to 200
    /// characters, no control characters, not only spaces.
    #[serde(default, alias = "requested_by")]
    #[schema(min_length = 1, max_length = 200, pattern = r"^[^\u0000-\u001f\u007f-\u009f]+$")]
    on_behalf_of: Option<String>,
    /// The op id of the operation this one compensates (a refund for a refused pickup, say).
    #[serde(default)]
    #[schema(min_length = 1, max_length = 128, pattern = r"^[A-Za-z0-9._:-]+$")]
    compensates: Option<String>,
    /// How long the provider remembers an idempotency key; default 86400 (Stripe's 24 hours). At
    /// most the window its connection declares (none for a downstream that honours no key), and
    /// at most 45 days (3888000) for a provider opledger does not know.
    #[serde(default)]
    #[schema(minimum = 1, maximum = 3888000, format = "uint32")]
    key_retention_s: Option<u32>,
}

fn check_name(field: &str, value: &str) -> Result<String, ApiError> {
    let valid = !value.is_empty()
        && value.len() <= 64
        && value.chars().all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_');
    if valid {
        Ok(value.to_owned())
    } else {
        Err(ApiError::invalid_field(
            field,
            format!(
                "must be 1 to 64 lowercase letters, digits or '_' (for example \"refund\"), got {value:?}"
            ),
        ))
    }
}

/// `value` as 1 to 200 characters without a control character and not only spaces, trimmed; its
/// length is counted before trimming, so that the OpenAPI document's bounds are the server's.
fn check_text(field: &str, value: &str) -> Result<String, ApiError> {
    let trimmed = value.trim();
    if trimmed.is_empty() || value.chars().count() > 200 || value.chars().any(char::is_control) {
        return Err(ApiError::invalid_field(field, "must be 1 to 200 printable characters"));
    }
    Ok(trimmed.to_owned())
}

impl RegisterBody {
    /// The request of `requester`, the token's name.
    fn into_request(self, requester: &str) -> Result<RegisterRequest, ApiError> {
        let op_id = OpId::parse(&self.op_id).map_err(|e| ApiError::invalid_field("op_id", e.problem))?;
        let params = CanonicalParams::from_value(self.params).map_err(|e| {
            let field = if e.field.is_empty() { "params".to_owned() } else { format!("params.{}", e.field) };
            ApiError::InvalidField { message: format!("{field}: {}", e.problem), field }
        })?;
        let compensates = self
            .compensates
            .map(|c| OpId::parse(&c).map_err(|e| ApiError::invalid_field("compensates", e.problem)))
            .transpose()?;
        let key_retention = self.key_retention_s.map(|seconds| Duration::seconds(i64::from(seconds)));
        Ok(RegisterRequest {
            op_id,
            kind: check_name("kind", &self.kind)?,
            subject: self.subject,
            provider: check_name("provider", &self.provider)?,
            params,
            requested_by: requester.to_owned(),
            on_behalf_of: self.on_behalf_of.map(|name| check_text("on_behalf_of", &name)).transpose()?,
            server_sends: false,
            compensates,
            key_retention,
        })
    }
}

/// The op id in a path; what is no op id names no operation (404).
pub fn op_id_of(raw: &str) -> Result<OpId, ApiError> {
    OpId::parse(raw).map_err(|_| ApiError::NotFound)
}

pub async fn history(
    state: &AppState,
    tenant: &TenantId,
    op_id: &OpId,
) -> Result<OperationHistory, ApiError> {
    if let Some(hot) = state.ledger.reads().operation_history(tenant, op_id).await? {
        return Ok(hot);
    }
    let archived = state.ledger.archived_history(tenant, op_id).await.map_err(LedgerError::from)?;
    let archived = archived.ok_or(ApiError::NotFound)?;
    archived.operation.history().map_err(|error| ApiError::Internal(StoreError::Corrupt(error.to_string())))
}

/// Record an operation before anything is sent.
#[utoipa::path(post, path = "/api/v1/operations", request_body = RegisterBody, tag = "operations", responses(
    (status = 201, description = "A new operation, `planned` or `pending_approval`", body = OperationView),
    (status = 200, description = "The same op id with the same parameters: the stored operation as it stands", body = OperationView),
    (status = 409, description = "`idempotency_conflict`: the op id is recorded with other parameters; `diff` and `stored` say how", body = ErrorEnvelope),
    (status = 422, description = "Malformed input, naming the field", body = ErrorEnvelope),
))]
pub async fn register(
    State(state): State<AppState>,
    caller: Caller,
    ApiJson(body): ApiJson<RegisterBody>,
) -> Result<Response, ApiError> {
    let request = body.into_request(&caller.actor.name)?;
    let op_id = request.op_id.clone();
    let registered = state.ledger.register(&caller.tenant, &caller.actor, request).await;
    match registered.map_err(|error| ApiError::from(error).told_in(caller.language))? {
        Registration::Created(created) => {
            Ok((StatusCode::CREATED, Json(OperationView::of(created, false))).into_response())
        }
        Registration::Existing(existing) => {
            Ok((StatusCode::OK, Json(OperationView::of(existing, false))).into_response())
        }
        Registration::Conflict { diff, stored } => {
            let stored = Box::new(OperationView::of(stored, false));
            Err(ApiError::IdempotencyConflict { op_id, diff, stored })
        }
    }
}

/// An operation with its attempts, external ids and audit trail. With `wait`, the answer comes as
/// soon as the operation's state changes (from `state`, the one the caller last saw, when given),
/// or after `wait` seconds with the state unchanged: an agent whose refund waits for a manager
/// hears the decision within about a second, in one call.
#[utoipa::path(get, path = "/api/v1/operations/{op_id}", tag = "operations", params(
    ("op_id" = String, Path, min_length = 1, max_length = 128, pattern = r"^[A-Za-z0-9._:-]+$", description = "The operation's id, e.g. `refund-1043-li_2`; anything else names no operation"),
    ("wait" = Option<u32>, Query, minimum = 0, maximum = 60, description = "Seconds to wait for the state to change, 0 to 60; 0 or absent answers at once. The answer comes as soon as the state differs, else after the wait with the state unchanged (or at once when the server stops)."),
    ("state" = Option<crate::domain::machine::State>, Query, description = "The state the caller last saw, e.g. `pending_approval`: with `wait`, the answer comes at once when the state already differs from it. Absent, the wait is from the state at the start of the call."),
), responses(
    (status = 200, body = OperationView),
    (status = 404, description = "No such operation in the token's tenant", body = ErrorEnvelope),
    (status = 422, description = "`wait` or `state` out of bounds, naming the field", body = ErrorEnvelope),
))]
pub async fn read_operation(
    State(state): State<AppState>,
    caller: Caller,
    Path(op_id): Path<String>,
    query: Result<Query<ReadQuery>, QueryRejection>,
) -> Result<Json<OperationView>, ApiError> {
    let Query(query) = query.map_err(|rejection| ApiError::Invalid(rejection.body_text()))?;
    let wait = Wait::parse(query.wait.as_deref(), query.state.as_deref())?;
    let view = operation_view(&state, &caller.tenant, &op_id, wait).await;
    Ok(Json(view.map_err(|error| error.told_in(caller.language))?))
}

/// The longest a read waits for an operation's state to change, in seconds.
pub const MAX_WAIT_S: u32 = 60;

/// A read's query: how long to wait for a change, and from which state. Both are read as text
/// and checked here, so that a bad value is answered in the API's words, naming its field; any
/// other parameter is refused, as the OpenAPI document says.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ReadQuery {
    wait: Option<String>,
    state: Option<String>,
}

/// How long a read waits for the operation's state to change, and from which state (the one it
/// has at the start of the call when the caller names none).
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct Wait {
    pub seconds: u32,
    pub from: Option<OpState>,
}

impl Wait {
    /// The wait of a query's `wait` (whole seconds, 0 to [`MAX_WAIT_S`]) and `state` (a state's
    /// name), each refused naming its field.
    pub fn parse(seconds: Option<&str>, state: Option<&str>) -> Result<Wait, ApiError> {
        let seconds = match seconds {
            None => 0,
            Some(text) => text.parse::<u32>().map_err(|_| out_of_bounds("wait", text))?,
        };
        Wait::new(seconds, state, "wait")
    }

    /// The wait of `seconds` (0 to [`MAX_WAIT_S`], else refused naming `seconds_field`) from the
    /// state named `state` (else refused naming `state`).
    pub fn new(seconds: u32, state: Option<&str>, seconds_field: &str) -> Result<Wait, ApiError> {
        if seconds > MAX_WAIT_S {
            return Err(out_of_bounds(seconds_field, &seconds.to_string()));
        }
        let from = state
            .map(|name| {
                OpState::parse(name).ok_or_else(|| {
                    let names: Vec<&str> = OpState::ALL.iter().map(|state| state.as_str()).collect();
                    let problem = format!("must be one of {}, got {name:?}", names.join(", "));
                    ApiError::invalid_field("state", problem)
                })
            })
            .transpose()?;
        Ok(Wait { seconds, from })
    }
}

fn out_of_bounds(field: &str, value: &str) -> ApiError {
    ApiError::invalid_field(field, format!("must be whole seconds from 0 to {MAX_WAIT_S}, got {value:?}"))
}

/// The operation `op_id` names in `tenant`, with its attempts, external ids and audit trail: at
/// once without a wait; with one, once its state differs from `wait.from` (else from its state at
/// the start of the call), or as it stands after `wait.seconds` or when the server begins to stop.
/// The wait follows the tenant's one poller ([`crate::server::http::changes`]), so it hears the
/// changes of every instance whatever their times, reads the operation again only when the tenant's
/// operations changed, and holds no database connection meanwhile. Another tenant's operation is no such
/// operation, at once.
pub async fn operation_view(
    state: &AppState,
    tenant: &TenantId,
    op_id: &str,
    wait: Wait,
) -> Result<OperationView, ApiError> {
    let op_id = op_id_of(op_id)?;
    if wait.seconds == 0 {
        return Ok(OperationView::of(history(state, tenant, &op_id).await?, true));
    }
    let until = tokio::time::Instant::now() + std::time::Duration::from_secs(u64::from(wait.seconds));
    // Followed before the first read, so that a change committed after that read is told to this
    // follower.
    let mut changes = state.live.follow(&state.ledger, tenant).await;
    let mut current = history(state, tenant, &op_id).await?;
    let from = wait.from.unwrap_or(current.operation.snapshot.state);
    while current.operation.snapshot.state == from {
        tokio::select! {
            moved = changes.changed() => {
                if moved.is_err() {
                    break;
                }
            }
            () = tokio::time::sleep_until(until) => break,
            () = state.stopping.cancelled() => break,
        }
        current = history(state, tenant, &op_id).await?;
    }
    Ok(OperationView::of(current, true))
}

/// How long an agent's send is taken to be in flight when it declares nothing.
pub const DEFAULT_AGENT_SEND_DEADLINE_S: u32 = 60;

/// The longest send an agent may declare.
pub const MAX_SEND_DEADLINE_S: u32 = 600;

/// What an agent may declare when it begins an attempt.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct BeginBody {
    /// How long its send may take, in seconds (1 to 600; 60 when left out): until then the
    /// operation is not looked up or re-sent by anyone else.
    #[schema(minimum = 1, maximum = 600)]
    send_deadline_s: Option<u32>,
}

/// Record the operation as `submitted` before the caller sends it; answers the key to send with
/// and until when the send is taken to be in flight.
#[utoipa::path(post, path = "/api/v1/operations/{op_id}/attempts", tag = "operations", params(("op_id" = String, Path, min_length = 1, max_length = 128, pattern = r"^[A-Za-z0-9._:-]+$", description = "The operation's id, e.g. `refund-1043-li_2`; anything else names no operation")), request_body(content = Option<BeginBody>, description = "Optional: how long the send may take"), responses(
    (status = 201, body = AttemptStarted),
    (status = 409, description = "The state forbids a send: `awaiting_approval`, `already_succeeded`, `reconcile_first`, `attempt_open`…", body = ErrorEnvelope),
    (status = 404, description = "No such operation in the token's tenant", body = ErrorEnvelope),
    (status = 422, description = "A body that is not `{\"send_deadline_s\": 1 to 600}` or empty", body = ErrorEnvelope),
))]
pub async fn begin_attempt(
    State(state): State<AppState>,
    caller: Caller,
    Path(op_id): Path<String>,
    body: Bytes,
) -> Result<Response, ApiError> {
    let op_id = op_id_of(&op_id)?;
    let declared = match body.iter().all(u8::is_ascii_whitespace) {
        true => None,
        false => serde_json::from_slice::<Option<BeginBody>>(&body)
            .map_err(|e| {
                ApiError::Invalid(format!("the body must be {{\"send_deadline_s\": seconds}} or empty: {e}"))
            })?
            .and_then(|b| b.send_deadline_s),
    };
    let seconds = match declared {
        None => DEFAULT_AGENT_SEND_DEADLINE_S,
        Some(seconds) if (1..=MAX_SEND_DEADLINE_S).contains(&seconds) => seconds,
        Some(_) => {
            return Err(ApiError::invalid_field(
                "send_deadline_s",
                format!("must be 1 to {MAX_SEND_DEADLINE_S} seconds"),
            ))
        }
    };
    let budget = RetryBudget { max_sends: 1, deadline: now() + Duration::seconds(i64::from(seconds)) };
    let report = AttemptReport { budget: Some(budget), ..AttemptReport::default() };
    let updated =
        state.ledger.execute(&caller.tenant, &op_id, Command::BeginAttempt, &caller.actor, report).await?;
    let attempt = updated.operation.snapshot.open_attempt.map_or(0, |a| a.0);
    let key = updated.operation.idempotency_key.clone();
    let metadata: Vec<String> = updated
        .operation
        .downstream_metadata()
        .iter()
        .map(|(name, value)| format!("{name}={value}"))
        .collect();
    let view = OperationView::committed(updated);
    let body = AttemptStarted {
        attempt,
        message: format!(
            "Recorded as submitted. Send now with Idempotency-Key {key} and metadata {}, then report the outcome of attempt {attempt}. \
             Until {} the send is taken to be in flight; after that, if no outcome came, it is looked up.",
            metadata.join(", "),
            budget.deadline.to_rfc3339_opts(chrono::SecondsFormat::Secs, true)
        ),
        idempotency_key: key,
        send_deadline: budget.deadline,
        operation: view,
    };
    Ok((StatusCode::CREATED, Json(body)).into_response())
}

/// How an attempt ended, as the sender reports it.
#[derive(Debug, Clone, Copy, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum OutcomeName {
    Succeeded,
    /// The provider has it and says it is still in progress (a Stripe refund `pending`).
    Accepted,
    /// The provider created it and says it failed there; `error` carries its reason.
    FailedAtProvider,
    Rejected,
    Invalid,
    Forbidden,
    NotSent,
    Unavailable,
    Timeout,
    ServerError,
}

/// The outcome of one attempt, read from the provider's object where it answered with one:
/// `succeeded` when its status says done, `accepted` while it says pending, `failed_at_provider`
/// (with the provider's reason in `error`) when it says failed. `timeout` and `server_error` make
/// the operation unknown.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct OutcomeBody {
    outcome: OutcomeName,
    #[serde(default)]
    #[schema(minimum = 100, maximum = 599)]
    http_status: Option<u16>,
    #[serde(default)]
    external_id: Option<String>,
    #[serde(default)]
    error: Option<String>,
    #[serde(default)]
    #[schema(maximum = 86400)]
    retry_after_s: Option<u32>,
    #[serde(default)]
    #[schema(maximum = 86400000)]
    latency_ms: Option<u64>,
}

impl OutcomeBody {
    fn outcome(&self) -> AttemptOutcome {
        let failure = match self.outcome {
            OutcomeName::Succeeded => {
                return AttemptOutcome::Succeeded { external_id: self.external_id.clone() };
            }
            OutcomeName::Accepted => {
                return AttemptOutcome::Accepted { external_id: self.external_id.clone() }
            }
            OutcomeName::FailedAtProvider => {
                return AttemptOutcome::FailedAtProvider {
                    external_id: self.external_id.clone(),
                    reason: self.error.clone().unwrap_or_default(),
                }
            }
            OutcomeName::Rejected => FailureClass::BusinessRejection,
            OutcomeName::Invalid => FailureClass::InvalidParams,
            OutcomeName::Forbidden => FailureClass::Forbidden,
            OutcomeName::NotSent => FailureClass::NotSent,
            OutcomeName::Unavailable => {
                FailureClass::TransientUnavailable { retry_after_s: self.retry_after_s }
            }
            OutcomeName::Timeout => FailureClass::Timeout,
            OutcomeName::ServerError => FailureClass::ServerError,
        };
        AttemptOutcome::Failed { failure }
    }
}

/// Report how an attempt ended.
#[utoipa::path(post, path = "/api/v1/operations/{op_id}/attempts/{attempt}/outcome", request_body = OutcomeBody, tag = "operations",
    params(("op_id" = String, Path, min_length = 1, max_length = 128, pattern = r"^[A-Za-z0-9._:-]+$", description = "The operation's id, e.g. `refund-1043-li_2`; anything else names no operation"), ("attempt" = u32, Path, minimum = 1, description = "The attempt's number, as the answer that began it gave it")), responses(
    (status = 200, body = OperationAnswer),
    (status = 409, description = "The attempt is closed or the state forbids it", body = ErrorEnvelope),
    (status = 404, description = "No such operation in the token's tenant", body = ErrorEnvelope),
    (status = 422, description = "Malformed input (`attempt` not a number, `http_status`, `latency_ms` or `retry_after_s` out of bounds, an unknown field), naming the field", body = ErrorEnvelope),
))]
pub async fn record_outcome(
    State(state): State<AppState>,
    caller: Caller,
    Path((op_id, attempt)): Path<(String, String)>,
    ApiJson(body): ApiJson<OutcomeBody>,
) -> Result<Json<OperationAnswer>, ApiError> {
    let op_id = op_id_of(&op_id)?;
    let attempt = attempt.parse::<u32>().map(AttemptNumber).map_err(|_| {
        ApiError::invalid_field("attempt", format!("must be a positive number, got {attempt:?}"))
    })?;
    let report = AttemptReport {
        http_status: body.http_status,
        latency_ms: body.latency_ms,
        error: body.error.clone(),
        external_id: body.external_id.clone(),
        retry_after_s: body.retry_after_s,
        budget: None,
    };
    report.check_bounds().map_err(|(field, problem)| ApiError::invalid_field(field, problem))?;
    let command = Command::RecordOutcome { attempt, outcome: body.outcome() };
    let updated = state.ledger.execute(&caller.tenant, &op_id, command, &caller.actor, report).await?;
    let external_id = body
        .external_id
        .as_deref()
        .or_else(|| updated.external_refs.last().map(|found| found.external_id.as_str()));
    let message = updated.operation.snapshot.reported_message(&updated.operation.kind, external_id);
    Ok(Json(OperationAnswer { message, operation: OperationView::committed(updated) }))
}

/// An optional reason for a cancel.
#[derive(Debug, Default, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct CancelBody {
    #[serde(default)]
    reason: String,
}

/// Stop further sends. On an operation in flight the stop is recorded, and the answer says that
/// its result is still being confirmed.
#[utoipa::path(post, path = "/api/v1/operations/{op_id}/cancel", request_body(content = Option<CancelBody>), tag = "operations",
    params(("op_id" = String, Path, min_length = 1, max_length = 128, pattern = r"^[A-Za-z0-9._:-]+$", description = "The operation's id, e.g. `refund-1043-li_2`; anything else names no operation")), responses(
    (status = 200, body = OperationAnswer),
    (status = 409, description = "The operation is settled or the state forbids a cancel", body = ErrorEnvelope),
    (status = 404, description = "No such operation in the token's tenant", body = ErrorEnvelope),
    (status = 422, description = "A body that is not `{\"reason\": text}` or empty", body = ErrorEnvelope),
))]
pub async fn cancel(
    State(state): State<AppState>,
    caller: Caller,
    Path(op_id): Path<String>,
    body: Bytes,
) -> Result<Json<OperationAnswer>, ApiError> {
    let op_id = op_id_of(&op_id)?;
    let body: CancelBody = if body.iter().all(u8::is_ascii_whitespace) {
        CancelBody::default()
    } else {
        serde_json::from_slice::<Option<CancelBody>>(&body)
            .map_err(|e| ApiError::Invalid(format!("cancel body: {e}")))?
            .unwrap_or_default()
    };
    Ok(Json(cancel_operation(&state, &caller, &op_id, body.reason).await?))
}

/// Stops further sends of `op_id` in `caller`'s name, for `reason`, and says what it means.
pub async fn cancel_operation(
    state: &AppState,
    caller: &Caller,
    op_id: &OpId,
    reason: String,
) -> Result<OperationAnswer, ApiError> {
    let command = Command::Cancel { reason };
    let updated =
        state.ledger.execute(&caller.tenant, op_id, command, &caller.actor, AttemptReport::default()).await?;
    let message = cancel_message(op_id.as_str(), updated.operation.snapshot.state);
    Ok(OperationAnswer { message, operation: OperationView::committed(updated) })
}

/// Every operation of one order (subject) with the roll-up: which completed, which did not, which
/// are uncertain, the order's status and its net effect.
#[utoipa::path(get, path = "/api/v1/subjects/{subject}/operations", tag = "orders", params(("subject" = String, Path, description = "The business object, e.g. `order:1043`")), responses(
    (status = 200, description = "The order's operations, none when it has none", body = SubjectView),
    (status = 422, description = "The operations cannot be rolled up (amounts in more than one currency)", body = ErrorEnvelope),
))]
pub async fn subject_operations(
    State(state): State<AppState>,
    caller: Caller,
    Path(subject): Path<String>,
) -> Result<Json<SubjectView>, ApiError> {
    Ok(Json(subject_view(&state, &caller.tenant, subject).await?))
}

/// Every operation of `subject` in `tenant`, with the roll-up.
pub async fn subject_view(
    state: &AppState,
    tenant: &TenantId,
    subject: String,
) -> Result<SubjectView, ApiError> {
    let histories = state.ledger.reads().subject_operations(tenant, &subject).await?;
    let summaries: Vec<OperationSummary> = histories
        .iter()
        .map(|h| OperationSummary {
            op_id: h.operation.op_id.clone(),
            kind: h.operation.kind.clone(),
            state: h.operation.snapshot.state,
            amount: h.operation.params.money("amount"),
            compensates: h.operation.compensates.clone(),
        })
        .collect();
    let rollup: OrderRollup = roll_up(&summaries).map_err(ApiError::invalid)?;
    let operations: Vec<OperationView> = histories.into_iter().map(|h| OperationView::of(h, false)).collect();
    Ok(SubjectView { subject, status_label: rollup.status.label().to_owned(), rollup, operations })
}

/// The answer to a new attempt.
#[derive(Debug, Serialize, ToSchema)]
pub struct AttemptStarted {
    pub attempt: u32,
    /// Until when the send is taken to be in flight: nothing settles the operation before this.
    pub send_deadline: chrono::DateTime<chrono::Utc>,
    /// Send with this `Idempotency-Key` and write it into the downstream object's metadata.
    pub idempotency_key: String,
    pub message: String,
    pub operation: OperationView,
}

/// An operation after a change, with what it means for the caller.
#[derive(Debug, Serialize, ToSchema)]
pub struct OperationAnswer {
    pub message: String,
    pub operation: OperationView,
}

/// One order's operations and roll-up.
#[derive(Debug, Serialize, ToSchema)]
pub struct SubjectView {
    pub subject: String,
    pub status_label: String,
    #[serde(flatten)]
    #[schema(value_type = HashMap<String, serde_json::Value>)]
    pub rollup: OrderRollup,
    pub operations: Vec<OperationView>,
}
