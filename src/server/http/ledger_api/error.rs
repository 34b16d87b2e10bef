//! The ledger API's errors: a status, a stable code and a sentence, with details where they help
//! (the field diff of an idempotency conflict). Internal causes go to the log, never into the answer.

use axum::{
    http::StatusCode,
    response::{IntoResponse, Response},
    Json,
};
use serde::Serialize;
use utoipa::ToSchema;

use super::views::OperationView;
use super::BODY_LIMIT_BYTES;
use crate::domain::{
    api_token::Scope, archive::ArchiveDistrust, ids::OpId, language::Language, machine::Rejection,
    params::FieldDiff,
};
use crate::server::http::limits::{too_many_api_calls, OverLimit};
use crate::server::ledger::tools::ToolError;
use crate::server::ledger::LedgerError;
use crate::server::store::StoreError;
use crate::server::telemetry::cause_chain;
use crate::t;

/// An API error: a status, a stable code, a sentence, and sometimes details.
#[derive(Debug)]
pub enum ApiError {
    Unauthorized,
    /// A valid token without the scope the route needs: 403 naming the scope.
    MissingScope(Scope),
    /// A route that takes a token but has no row in the scope table: refused, and logged as the
    /// bug it is.
    NoScopeRule,
    NotFound,
    NoSuchRoute,
    Invalid(String),
    /// Refused input that names the field at fault (`{"field": "latency_ms"}` in the answer).
    InvalidField {
        field: String,
        message: String,
    },
    TooLarge,
    IdempotencyConflict {
        op_id: OpId,
        diff: Vec<FieldDiff>,
        stored: Box<OperationView>,
    },
    Refused(Rejection),
    Contended,
    /// The tenant has no account at the provider the operation needs, and the server has none.
    NotConnected(String),
    /// A provider the call needs could not be asked; nothing was done.
    Unavailable(String),
    /// What the answer needs is in the archive, and its file at `object` is not as it was signed:
    /// 502 `archive_untrusted`, in the caller's language (English unless [`ApiError::told_in`]
    /// says otherwise); nothing of the file is in the answer.
    ArchiveUntrusted {
        why: ArchiveDistrust,
        object: String,
        language: Language,
    },
    /// Over the calls a token or an address may make; answered 429 with `Retry-After`.
    RateLimited(OverLimit),
    Internal(StoreError),
}

impl From<StoreError> for ApiError {
    fn from(error: StoreError) -> Self {
        ApiError::Internal(error)
    }
}

impl ApiError {
    /// The error with its sentence in `language`, when the caller asked for one (the errors whose
    /// sentence is in the reader's language: `archive_untrusted`).
    pub fn told_in(self, language: Option<Language>) -> ApiError {
        match (self, language) {
            (ApiError::ArchiveUntrusted { why, object, .. }, Some(language)) => {
                ApiError::ArchiveUntrusted { why, object, language }
            }
            (error, _) => error,
        }
    }

    /// Refused input, with the problem in words (a parse error's own sentence).
    pub fn invalid(problem: impl std::fmt::Display) -> ApiError {
        ApiError::Invalid(problem.to_string())
    }

    /// Refused input in `field`, with the problem in words: `{field}: {problem}`.
    pub fn invalid_field(field: &str, problem: impl std::fmt::Display) -> ApiError {
        ApiError::InvalidField { field: field.to_owned(), message: format!("{field}: {problem}") }
    }
}

impl From<LedgerError> for ApiError {
    fn from(error: LedgerError) -> Self {
        match error {
            LedgerError::NotFound => ApiError::NotFound,
            LedgerError::Rejected(rejection) => ApiError::Refused(rejection),
            LedgerError::Invalid(message) => ApiError::Invalid(message),
            LedgerError::InvalidField { field, problem } => ApiError::invalid_field(field, problem),
            LedgerError::Contended => ApiError::Contended,
            LedgerError::Unavailable(message) => ApiError::Unavailable(message),
            LedgerError::Untrusted { why, object } => {
                ApiError::ArchiveUntrusted { why, object, language: Language::En }
            }
            LedgerError::Store(store) => ApiError::Internal(store),
        }
    }
}

impl From<ToolError> for ApiError {
    fn from(error: ToolError) -> Self {
        match error {
            ToolError::NotConnected(message) => ApiError::NotConnected(message),
            ToolError::Unavailable(message) => ApiError::Unavailable(message),
            ToolError::Ledger(error) => error.into(),
        }
    }
}

impl ApiError {
    /// The answer's status, stable code, sentence and details; a rate limit's answer, which also
    /// says when to come back, is made by [`too_many_api_calls`].
    pub fn described(self) -> (StatusCode, String, String, ErrorDetails) {
        match self {
            ApiError::RateLimited(over) => (
                StatusCode::TOO_MANY_REQUESTS,
                "rate_limited".to_owned(),
                format!("Too many calls with this token; try again in {} s.", over.retry_after_seconds()),
                ErrorDetails::default(),
            ),
            ApiError::Unauthorized => (
                StatusCode::UNAUTHORIZED,
                "unauthorized".to_owned(),
                "Send a valid API token as `Authorization: Bearer <token>`.".to_owned(),
                ErrorDetails::default(),
            ),
            ApiError::MissingScope(scope) => (
                StatusCode::FORBIDDEN,
                "insufficient_scope".to_owned(),
                format!(
                    "This token lacks the `{}` scope that this call needs; an admin can create a token with it.",
                    scope.as_str()
                ),
                ErrorDetails { scope: Some(scope.as_str().to_owned()), ..ErrorDetails::default() },
            ),
            ApiError::NoScopeRule => {
                tracing::error!("a route that takes an API token has no scope rule; the call was refused");
                (
                    StatusCode::INTERNAL_SERVER_ERROR,
                    "internal".into(),
                    "The ledger could not complete the call; it has been logged.".into(),
                    ErrorDetails::default(),
                )
            }
            ApiError::NotFound => {
                (StatusCode::NOT_FOUND, "not_found".into(), "No such operation.".into(), ErrorDetails::default())
            }
            ApiError::NoSuchRoute => (
                StatusCode::NOT_FOUND,
                "no_such_route".into(),
                "No such API route; see /api/v1/openapi.json.".into(),
                ErrorDetails::default(),
            ),
            ApiError::Invalid(message) => (StatusCode::UNPROCESSABLE_ENTITY, "invalid_request".into(), message, ErrorDetails::default()),
            ApiError::InvalidField { field, message } => {
                (StatusCode::UNPROCESSABLE_ENTITY, "invalid_request".into(), message, ErrorDetails { field: Some(field), ..ErrorDetails::default() })
            }
            ApiError::TooLarge => (
                StatusCode::PAYLOAD_TOO_LARGE,
                "body_too_large".into(),
                format!("Request bodies are limited to {BODY_LIMIT_BYTES} bytes."),
                ErrorDetails::default(),
            ),
            ApiError::IdempotencyConflict { op_id, diff, stored } => (
                StatusCode::CONFLICT,
                "idempotency_conflict".into(),
                format!(
                    "{op_id} is already recorded with other parameters; nothing was changed and nothing will be sent. \
                     A new intent needs a new op id."
                ),
                ErrorDetails { diff: Some(diff), stored: Some(stored), ..ErrorDetails::default() },
            ),
            ApiError::Refused(rejection) => (
                StatusCode::CONFLICT,
                serde_json::to_value(rejection.code).ok().and_then(|v| v.as_str().map(str::to_owned)).unwrap_or_default(),
                rejection.message,
                ErrorDetails::default(),
            ),
            ApiError::Contended => (
                StatusCode::SERVICE_UNAVAILABLE,
                "contended".into(),
                "The operation is changing too often right now; try again.".into(),
                ErrorDetails::default(),
            ),
            ApiError::NotConnected(message) => {
                (StatusCode::SERVICE_UNAVAILABLE, "provider_not_connected".into(), message, ErrorDetails::default())
            }
            ApiError::Unavailable(message) => {
                (StatusCode::SERVICE_UNAVAILABLE, "provider_unavailable".into(), message, ErrorDetails::default())
            }
            ApiError::ArchiveUntrusted { why, object, language } => {
                let words = why.words(language);
                let message = t!(language, "archive-untrusted-api", why = words, object = object.as_str());
                (StatusCode::BAD_GATEWAY, "archive_untrusted".into(), message, ErrorDetails::default())
            }
            ApiError::Internal(error) => {
                tracing::error!(error = %cause_chain(&error), "ledger API call failed");
                let status = match error {
                    StoreError::Unavailable(_) => StatusCode::SERVICE_UNAVAILABLE,
                    _ => StatusCode::INTERNAL_SERVER_ERROR,
                };
                (status, "internal".into(), "The ledger could not complete the call; it has been logged.".into(), ErrorDetails::default())
            }
        }
    }
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        if let ApiError::RateLimited(over) = self {
            return too_many_api_calls(over);
        }
        let (status, code, message, details) = self.described();
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
    /// A stable code: `unauthorized` (no valid token: unknown, revoked, expired, or an old secret
    /// past its rotation's grace), `insufficient_scope` (with `scope`, the one the token lacks),
    /// `not_found`, `invalid_request` (with `field` when one field
    /// is at fault), `body_too_large`,
    /// `idempotency_conflict` (with `diff` and `stored`), a state machine refusal such as
    /// `reconcile_first` or `attempt_open`, `contended`, `provider_not_connected`, `provider_unavailable`,
    /// `archive_untrusted` (the operation's archived history is not as it was signed: nothing of it
    /// is answered), `internal`.
    pub code: String,
    /// A sentence for people.
    pub message: String,
    #[serde(flatten)]
    pub details: ErrorDetails,
}

/// What some errors add to their code and sentence; each is present only with the codes it names.
#[derive(Debug, Default, Serialize, ToSchema)]
pub struct ErrorDetails {
    /// With `invalid_request`, when one field is at fault: `op_id`, `params.amount`, `wait`…
    #[serde(skip_serializing_if = "Option::is_none")]
    pub field: Option<String>,
    /// With `insufficient_scope`: the scope the token lacks (`tools`, `read` or `write`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub scope: Option<String>,
    /// With `idempotency_conflict`: each parameter that differs, as stored and as requested.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub diff: Option<Vec<FieldDiff>>,
    /// With `idempotency_conflict`: the operation as it is recorded.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub stored: Option<Box<OperationView>>,
}
