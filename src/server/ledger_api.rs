//! The ledger API (`/api/v1`): JSON over HTTP for agents and tool wrappers. Every call carries
//! `Authorization: Bearer <token>` and sees only the token's tenant: another tenant's operation
//! is a 404, with no hint that it exists. Errors are `{"error": {"code", "message", ...}}` with
//! stable codes; internal causes go to the log, never into the answer.

use axum::{
    body::Bytes,
    extract::{
        rejection::JsonRejection, DefaultBodyLimit, FromRequest, FromRequestParts, Path, Request, State,
    },
    http::{header::AUTHORIZATION, request::Parts, StatusCode},
    response::{IntoResponse, Response},
    routing::{get, post},
    Json, Router,
};
use chrono::{DateTime, Duration, Utc};
use serde::{de::DeserializeOwned, Deserialize, Serialize};
use serde_json::{json, Map, Value};
use utoipa::{OpenApi, ToSchema};

use super::ledger::{LedgerError, RegisterRequest, Registration, DEFAULT_KEY_RETENTION};
use super::state::AppState;
use super::store::records::{AttemptRecord, AttemptReport, OperationHistory, OperationRecord};
use super::store::StoreError;
use super::tokens;
use crate::domain::{
    audit::AuditRecord,
    failure::FailureClass,
    ids::{Actor, AttemptNumber, OpId, TenantId},
    machine::{cancel_message, AttemptOutcome, Command, Rejection},
    money::Money,
    params::{CanonicalParams, FieldDiff},
    policy::Approval,
    rollup::{roll_up, OperationSummary, OrderRollup},
};

/// Request bodies larger than this are refused with 413.
pub const BODY_LIMIT_BYTES: usize = 64 * 1024;

pub fn routes() -> Router<AppState> {
    Router::new()
        .route("/operations", post(register))
        .route("/operations/{op_id}", get(read_operation))
        .route("/operations/{op_id}/attempts", post(begin_attempt))
        .route("/operations/{op_id}/attempts/{attempt}/outcome", post(record_outcome))
        .route("/operations/{op_id}/cancel", post(cancel))
        .route("/subjects/{subject}/operations", get(subject_operations))
        .route("/openapi.json", get(openapi))
        .nest("/tools", super::tools::routes())
        .fallback(|| async { ApiError::NoSuchRoute })
        .layer(DefaultBodyLimit::max(BODY_LIMIT_BYTES))
}

/// An API error: a status, a stable code, a sentence, and sometimes details.
#[derive(Debug)]
pub enum ApiError {
    Unauthorized,
    NotFound,
    NoSuchRoute,
    Invalid(String),
    TooLarge,
    IdempotencyConflict { op_id: OpId, diff: Vec<FieldDiff>, stored: Box<OperationView> },
    Refused(Rejection),
    Contended,
    Internal(StoreError),
}

impl From<StoreError> for ApiError {
    fn from(error: StoreError) -> Self {
        ApiError::Internal(error)
    }
}

impl From<LedgerError> for ApiError {
    fn from(error: LedgerError) -> Self {
        match error {
            LedgerError::NotFound => ApiError::NotFound,
            LedgerError::Rejected(rejection) => ApiError::Refused(rejection),
            LedgerError::Invalid(message) => ApiError::Invalid(message),
            LedgerError::Contended => ApiError::Contended,
            LedgerError::Store(store) => ApiError::Internal(store),
        }
    }
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        let (status, code, message, extra) = match self {
            ApiError::Unauthorized => (
                StatusCode::UNAUTHORIZED,
                "unauthorized".to_owned(),
                "Send a valid API token as `Authorization: Bearer <token>`.".to_owned(),
                Value::Null,
            ),
            ApiError::NotFound => {
                (StatusCode::NOT_FOUND, "not_found".into(), "No such operation.".into(), Value::Null)
            }
            ApiError::NoSuchRoute => (
                StatusCode::NOT_FOUND,
                "no_such_route".into(),
                "No such API route; see /api/v1/openapi.json.".into(),
                Value::Null,
            ),
            ApiError::Invalid(message) => (StatusCode::UNPROCESSABLE_ENTITY, "invalid_request".into(), message, Value::Null),
            ApiError::TooLarge => (
                StatusCode::PAYLOAD_TOO_LARGE,
                "body_too_large".into(),
                format!("Request bodies are limited to {BODY_LIMIT_BYTES} bytes."),
                Value::Null,
            ),
            ApiError::IdempotencyConflict { op_id, diff, stored } => (
                StatusCode::CONFLICT,
                "idempotency_conflict".into(),
                format!(
                    "{op_id} is already recorded with other parameters; nothing was changed and nothing will be sent. \
                     A new intent needs a new op id."
                ),
                json!({"diff": diff, "stored": stored}),
            ),
            ApiError::Refused(rejection) => (
                StatusCode::CONFLICT,
                serde_json::to_value(rejection.code).ok().and_then(|v| v.as_str().map(str::to_owned)).unwrap_or_default(),
                rejection.message,
                Value::Null,
            ),
            ApiError::Contended => (
                StatusCode::SERVICE_UNAVAILABLE,
                "contended".into(),
                "The operation is changing too often right now; try again.".into(),
                Value::Null,
            ),
            ApiError::Internal(error) => {
                tracing::error!(error = %super::telemetry::cause_chain(&error), "ledger API call failed");
                let status = match error {
                    StoreError::Unavailable(_) => StatusCode::SERVICE_UNAVAILABLE,
                    _ => StatusCode::INTERNAL_SERVER_ERROR,
                };
                (status, "internal".into(), "The ledger could not complete the call; it has been logged.".into(), Value::Null)
            }
        };
        let details = match extra {
            Value::Object(fields) => fields,
            _ => Map::new(),
        };
        (status, Json(ErrorEnvelope { error: ErrorDetail { code, message, details } })).into_response()
    }
}

/// Every error answer: `{"error": {"code", "message", ...details}}`.
#[derive(Debug, Serialize, ToSchema)]
pub struct ErrorEnvelope {
    pub error: ErrorDetail,
}

#[derive(Debug, Serialize, ToSchema)]
pub struct ErrorDetail {
    /// A stable code: `unauthorized`, `not_found`, `invalid_request`, `body_too_large`,
    /// `idempotency_conflict` (with `diff` and `stored`), a state machine refusal such as
    /// `reconcile_first` or `attempt_open`, `contended`, `internal`.
    pub code: String,
    /// A sentence for people.
    pub message: String,
    #[serde(flatten)]
    #[schema(value_type = Object)]
    pub details: Map<String, Value>,
}

/// The caller behind the bearer token: its tenant and its identity as an actor.
pub struct Caller {
    pub tenant: TenantId,
    pub actor: Actor,
}

impl FromRequestParts<AppState> for Caller {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, state: &AppState) -> Result<Self, Self::Rejection> {
        let token = parts
            .headers
            .get(AUTHORIZATION)
            .and_then(|value| value.to_str().ok())
            .and_then(|value| value.strip_prefix("Bearer "))
            .ok_or(ApiError::Unauthorized)?;
        let record = tokens::authenticate(state.ledger.store().as_ref(), token.trim())
            .await?
            .ok_or(ApiError::Unauthorized)?;
        Ok(Caller { tenant: record.tenant, actor: Actor::agent(&record.name) })
    }
}

/// A JSON body whose problems are answered as API errors (422 naming the field, 413 when too large).
pub struct ApiJson<T>(pub T);

impl<T: DeserializeOwned, S: Send + Sync> FromRequest<S> for ApiJson<T> {
    type Rejection = ApiError;

    async fn from_request(request: Request, state: &S) -> Result<Self, Self::Rejection> {
        match Json::<T>::from_request(request, state).await {
            Ok(Json(value)) => Ok(ApiJson(value)),
            Err(rejection) if rejection.status() == StatusCode::PAYLOAD_TOO_LARGE => Err(ApiError::TooLarge),
            Err(JsonRejection::MissingJsonContentType(_)) => {
                Err(ApiError::Invalid("Send the body as JSON with `Content-Type: application/json`.".into()))
            }
            Err(rejection) => Err(ApiError::Invalid(rejection.body_text())),
        }
    }
}

/// A request to record an operation before anything is sent.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
struct RegisterBody {
    /// Derived from the business intent, e.g. `refund-1043-li_2`; the idempotency key downstream.
    op_id: String,
    /// What the operation does, e.g. `refund`, `create_aftersale`.
    kind: String,
    /// The business object it concerns, e.g. `order:1043`.
    subject: String,
    /// Who performs it, e.g. `stripe`.
    provider: String,
    /// Canonical parameters: integers only; money as `{"minor": 38000, "currency": "TWD"}`.
    #[schema(value_type = Object)]
    params: Value,
    /// The person or agent on whose behalf it is requested.
    requested_by: String,
    #[serde(default)]
    compensates: Option<String>,
    /// How long the provider remembers an idempotency key; default 86400 (Stripe's 24 hours).
    #[serde(default)]
    key_retention_s: Option<u32>,
}

fn check_name(field: &str, value: &str) -> Result<String, ApiError> {
    let valid = !value.is_empty()
        && value.len() <= 64
        && value.chars().all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_');
    if valid {
        Ok(value.to_owned())
    } else {
        Err(ApiError::Invalid(format!(
            "{field} must be 1 to 64 lowercase letters, digits or '_' (for example \"refund\"), got {value:?}"
        )))
    }
}

fn check_text(field: &str, value: &str) -> Result<String, ApiError> {
    let trimmed = value.trim();
    if trimmed.is_empty() || trimmed.chars().count() > 200 || trimmed.chars().any(char::is_control) {
        return Err(ApiError::Invalid(format!("{field} must be 1 to 200 printable characters")));
    }
    Ok(trimmed.to_owned())
}

impl RegisterBody {
    fn into_request(self) -> Result<RegisterRequest, ApiError> {
        let op_id = OpId::parse(&self.op_id).map_err(|e| ApiError::Invalid(e.to_string()))?;
        let params =
            CanonicalParams::from_value(self.params).map_err(|e| ApiError::Invalid(e.to_string()))?;
        let compensates = self
            .compensates
            .map(|c| OpId::parse(&c).map_err(|e| ApiError::Invalid(format!("compensates: {e}"))))
            .transpose()?;
        let key_retention = match self.key_retention_s {
            None => DEFAULT_KEY_RETENTION,
            Some(seconds) if seconds >= 1 => Duration::seconds(i64::from(seconds)),
            Some(_) => return Err(ApiError::Invalid("key_retention_s must be at least 1".into())),
        };
        Ok(RegisterRequest {
            op_id,
            kind: check_name("kind", &self.kind)?,
            subject: check_text("subject", &self.subject)?,
            provider: check_name("provider", &self.provider)?,
            params,
            requested_by: check_text("requested_by", &self.requested_by)?,
            compensates,
            key_retention,
        })
    }
}

/// The downstream idempotency key's validity.
#[derive(Debug, Serialize, ToSchema)]
pub struct KeyView {
    pub first_sent_at: Option<DateTime<Utc>>,
    pub retention_s: i64,
    pub expires_at: Option<DateTime<Utc>>,
}

/// What the API shows of an operation: its state with what it means for the caller, its
/// parameters and fingerprint, attempts, external ids and, when read alone, its audit trail.
#[derive(Debug, Serialize, ToSchema)]
pub struct OperationView {
    pub op_id: String,
    pub kind: String,
    pub subject: String,
    pub provider: String,
    pub state: String,
    pub message: String,
    #[schema(value_type = Object)]
    pub params: Value,
    pub fingerprint: String,
    #[schema(value_type = Option<Object>)]
    pub amount: Option<Money>,
    pub idempotency_key: String,
    pub requested_by: String,
    pub compensates: Option<String>,
    pub cancel_requested: bool,
    #[schema(value_type = Option<Object>)]
    pub approval: Option<Approval>,
    pub key: KeyView,
    pub version: i64,
    pub created_at: DateTime<Utc>,
    pub updated_at: DateTime<Utc>,
    pub attempts: Vec<AttemptRecord>,
    /// `provider/type/id`, for example `stripe/refund/re_7f3a`.
    pub external_refs: Vec<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(value_type = Option<Vec<Object>>)]
    pub audit: Option<Vec<AuditRecord>>,
}

impl OperationView {
    fn of(history: OperationHistory, with_audit: bool) -> Self {
        let OperationHistory { operation, attempts, external_refs, audit } = history;
        let OperationRecord {
            op_id,
            kind,
            subject,
            provider,
            params,
            idempotency_key,
            compensates,
            snapshot,
            version,
            created_at,
            updated_at,
            ..
        } = operation;
        let amount = params.money("amount");
        OperationView {
            op_id: op_id.to_string(),
            kind,
            subject,
            provider,
            state: snapshot.state.as_str().to_owned(),
            message: snapshot.state.caller_message().to_owned(),
            params: params.as_value().clone(),
            fingerprint: snapshot.fingerprint.to_string(),
            amount,
            idempotency_key,
            requested_by: snapshot.requested_by.clone(),
            compensates: compensates.map(|c| c.to_string()),
            cancel_requested: snapshot.cancel_requested,
            approval: snapshot.approval.clone(),
            key: KeyView {
                first_sent_at: snapshot.key_first_sent_at,
                retention_s: snapshot.key_retention.num_seconds(),
                expires_at: snapshot.key_expires_at(),
            },
            version,
            created_at,
            updated_at,
            attempts,
            external_refs: external_refs
                .into_iter()
                .map(|r| format!("{}/{}/{}", r.provider, r.ref_type, r.external_id))
                .collect(),
            audit: with_audit.then_some(audit),
        }
    }
}

fn op_id_of(raw: &str) -> Result<OpId, ApiError> {
    OpId::parse(raw).map_err(|_| ApiError::NotFound)
}

async fn history(state: &AppState, tenant: &TenantId, op_id: &OpId) -> Result<OperationHistory, ApiError> {
    state.ledger.store().operation_history(tenant, op_id).await?.ok_or(ApiError::NotFound)
}

/// Record an operation before anything is sent.
#[utoipa::path(post, path = "/api/v1/operations", request_body = RegisterBody, tag = "operations", responses(
    (status = 201, description = "A new operation, `planned` or `pending_approval`", body = OperationView),
    (status = 200, description = "The same op id with the same parameters: the stored operation as it stands", body = OperationView),
    (status = 409, description = "`idempotency_conflict`: the op id is recorded with other parameters; `diff` and `stored` say how", body = ErrorEnvelope),
    (status = 422, description = "Malformed input, naming the field", body = ErrorEnvelope),
))]
async fn register(
    State(state): State<AppState>,
    caller: Caller,
    ApiJson(body): ApiJson<RegisterBody>,
) -> Result<Response, ApiError> {
    let request = body.into_request()?;
    let op_id = request.op_id.clone();
    match state.ledger.register(&caller.tenant, &caller.actor, request).await? {
        Registration::Created(_) => {
            let view = OperationView::of(history(&state, &caller.tenant, &op_id).await?, false);
            Ok((StatusCode::CREATED, Json(view)).into_response())
        }
        Registration::Existing(_) => {
            let view = OperationView::of(history(&state, &caller.tenant, &op_id).await?, false);
            Ok((StatusCode::OK, Json(view)).into_response())
        }
        Registration::Conflict { diff, .. } => {
            let stored = OperationView::of(history(&state, &caller.tenant, &op_id).await?, false);
            Err(ApiError::IdempotencyConflict { op_id, diff, stored: Box::new(stored) })
        }
    }
}

/// An operation with its attempts, external ids and audit trail.
#[utoipa::path(get, path = "/api/v1/operations/{op_id}", tag = "operations", params(("op_id" = String, Path)), responses(
    (status = 200, body = OperationView),
    (status = 404, description = "No such operation in the token's tenant", body = ErrorEnvelope),
))]
async fn read_operation(
    State(state): State<AppState>,
    caller: Caller,
    Path(op_id): Path<String>,
) -> Result<Json<OperationView>, ApiError> {
    let op_id = op_id_of(&op_id)?;
    Ok(Json(OperationView::of(history(&state, &caller.tenant, &op_id).await?, true)))
}

/// Record the operation as `submitted` before the caller sends it; answers the key to send with.
#[utoipa::path(post, path = "/api/v1/operations/{op_id}/attempts", tag = "operations", params(("op_id" = String, Path)), responses(
    (status = 201, body = AttemptStarted),
    (status = 409, description = "The state forbids a send: `awaiting_approval`, `already_succeeded`, `reconcile_first`, `attempt_open`…", body = ErrorEnvelope),
    (status = 404, body = ErrorEnvelope),
))]
async fn begin_attempt(
    State(state): State<AppState>,
    caller: Caller,
    Path(op_id): Path<String>,
) -> Result<Response, ApiError> {
    let op_id = op_id_of(&op_id)?;
    let updated = state
        .ledger
        .execute(&caller.tenant, &op_id, Command::BeginAttempt, &caller.actor, AttemptReport::default())
        .await?;
    let attempt = updated.snapshot.open_attempt.map_or(0, |a| a.0);
    let key = updated.idempotency_key.clone();
    let view = OperationView::of(history(&state, &caller.tenant, &op_id).await?, false);
    let body = AttemptStarted {
        attempt,
        message: format!(
            "Recorded as submitted. Send now with Idempotency-Key {key} and metadata op_id={key}, then report the outcome of attempt {attempt}."
        ),
        idempotency_key: key,
        operation: view,
    };
    Ok((StatusCode::CREATED, Json(body)).into_response())
}

/// How an attempt ended, as the sender reports it.
#[derive(Debug, Clone, Copy, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
enum OutcomeName {
    Succeeded,
    Rejected,
    Invalid,
    Forbidden,
    NotSent,
    Unavailable,
    Timeout,
    ServerError,
}

/// The outcome of one attempt. `timeout` and `server_error` make the operation unknown.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
struct OutcomeBody {
    outcome: OutcomeName,
    #[serde(default)]
    http_status: Option<u16>,
    #[serde(default)]
    external_id: Option<String>,
    #[serde(default)]
    error: Option<String>,
    #[serde(default)]
    retry_after_s: Option<u32>,
    #[serde(default)]
    latency_ms: Option<u64>,
}

impl OutcomeBody {
    fn outcome(&self) -> AttemptOutcome {
        let failure = match self.outcome {
            OutcomeName::Succeeded => {
                return AttemptOutcome::Succeeded { external_id: self.external_id.clone() };
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
    params(("op_id" = String, Path), ("attempt" = u32, Path)), responses(
    (status = 200, body = OperationAnswer),
    (status = 409, description = "The attempt is closed or the state forbids it", body = ErrorEnvelope),
    (status = 404, body = ErrorEnvelope),
))]
async fn record_outcome(
    State(state): State<AppState>,
    caller: Caller,
    Path((op_id, attempt)): Path<(String, String)>,
    ApiJson(body): ApiJson<OutcomeBody>,
) -> Result<Json<OperationAnswer>, ApiError> {
    let op_id = op_id_of(&op_id)?;
    let attempt = attempt
        .parse::<u32>()
        .map(AttemptNumber)
        .map_err(|_| ApiError::Invalid(format!("attempt must be a positive number, got {attempt:?}")))?;
    let report = AttemptReport {
        http_status: body.http_status,
        latency_ms: body.latency_ms,
        error: body.error.clone(),
        external_id: body.external_id.clone(),
        retry_after_s: body.retry_after_s,
        budget: None,
    };
    let command = Command::RecordOutcome { attempt, outcome: body.outcome() };
    let updated = state.ledger.execute(&caller.tenant, &op_id, command, &caller.actor, report).await?;
    let view = OperationView::of(history(&state, &caller.tenant, &op_id).await?, false);
    Ok(Json(OperationAnswer { message: updated.snapshot.state.caller_message().to_owned(), operation: view }))
}

/// An optional reason for a cancel.
#[derive(Debug, Default, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
struct CancelBody {
    #[serde(default)]
    reason: String,
}

/// Stop further sends. On an operation in flight the stop is recorded, and the answer says that
/// its result is still being confirmed.
#[utoipa::path(post, path = "/api/v1/operations/{op_id}/cancel", request_body(content = Option<CancelBody>), tag = "operations",
    params(("op_id" = String, Path)), responses(
    (status = 200, body = OperationAnswer),
    (status = 409, body = ErrorEnvelope),
    (status = 404, body = ErrorEnvelope),
))]
async fn cancel(
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
    let command = Command::Cancel { reason: body.reason };
    let updated = state
        .ledger
        .execute(&caller.tenant, &op_id, command, &caller.actor, AttemptReport::default())
        .await?;
    let view = OperationView::of(history(&state, &caller.tenant, &op_id).await?, false);
    Ok(Json(OperationAnswer {
        message: cancel_message(op_id.as_str(), updated.snapshot.state),
        operation: view,
    }))
}

/// Every operation of one order (subject) with the roll-up: which completed, which did not, which
/// are uncertain, the order's status and its net effect.
#[utoipa::path(get, path = "/api/v1/subjects/{subject}/operations", tag = "orders", params(("subject" = String, Path)), responses(
    (status = 200, body = SubjectView),
))]
async fn subject_operations(
    State(state): State<AppState>,
    caller: Caller,
    Path(subject): Path<String>,
) -> Result<Json<SubjectView>, ApiError> {
    let histories = state.ledger.store().subject_operations(&caller.tenant, &subject).await?;
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
    let rollup: OrderRollup = roll_up(&summaries).map_err(|e| ApiError::Invalid(e.to_string()))?;
    let operations: Vec<OperationView> = histories.into_iter().map(|h| OperationView::of(h, false)).collect();
    Ok(Json(SubjectView { subject, status_label: rollup.status.label().to_owned(), rollup, operations }))
}

/// The answer to a new attempt.
#[derive(Debug, Serialize, ToSchema)]
pub struct AttemptStarted {
    pub attempt: u32,
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
    #[schema(value_type = Object)]
    pub rollup: OrderRollup,
    pub operations: Vec<OperationView>,
}

#[derive(OpenApi)]
#[openapi(
    info(title = "opledger ledger API", version = "1", description = "Record side-effecting operations before they are sent, report every attempt, and never do a thing twice."),
    paths(register, read_operation, begin_attempt, record_outcome, cancel, subject_operations, super::tools::refund_item, super::tools::create_aftersale, super::tools::schedule_pickup),
    components(schemas(ErrorEnvelope, ErrorDetail, RegisterBody, OutcomeBody, OutcomeName, CancelBody, OperationView, AttemptRecord, KeyView, AttemptStarted, OperationAnswer, SubjectView,
         super::tools::ToolAnswer, super::tools::ToolStatus,
        super::tools::LineItemRequest, super::tools::PickupRequest)),
    modifiers(&BearerToken),
    security(("bearer" = [])),
)]
struct LedgerApiDoc;

struct BearerToken;

impl utoipa::Modify for BearerToken {
    fn modify(&self, openapi: &mut utoipa::openapi::OpenApi) {
        use utoipa::openapi::security::{Http, HttpAuthScheme, SecurityScheme};
        let components = openapi.components.get_or_insert_with(Default::default);
        components.add_security_scheme("bearer", SecurityScheme::Http(Http::new(HttpAuthScheme::Bearer)));
    }
}

/// The OpenAPI 3 document of this API, generated from the handlers and types above.
async fn openapi() -> Json<utoipa::openapi::OpenApi> {
    Json(LedgerApiDoc::openapi())
}
