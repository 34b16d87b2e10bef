//! The one role check of the console, used by its pages, server functions and exports: who is
//! signed in, whether their role opens a section, whether a change carries the session's CSRF
//! token, and the HTTP status that goes with each refusal. Also the console's read handle and the
//! mapping of ledger and store failures to [`AppError`]: a database's text never reaches the
//! browser.

use axum::http::StatusCode;
use leptos::prelude::*;
use std::sync::Arc;
use tower_sessions::Session;

use super::AppError;
use crate::domain::{ids::Actor, machine::RejectionCode, policy::Section};
pub use crate::server::http::auth::SignedIn;
use crate::server::http::auth::{csrf_matches, must_enrol, signed_in};
use crate::server::http::state::AppState;
use crate::server::ledger::LedgerError;
use crate::server::store::{Reads, StoreError};
use crate::server::telemetry::cause_chain;
use crate::t;

/// The read handle of the ledger behind the current request.
pub fn reads() -> Arc<dyn Reads> {
    expect_context::<AppState>().ledger.reads()
}

/// A store failure, logged with its cause chain, as the browser sees it.
pub fn unavailable(error: StoreError) -> AppError {
    tracing::error!(error = %cause_chain(&error), "a console request could not reach the database");
    AppError::Unavailable
}

/// The signed-in user as the ledger's actor.
pub fn actor(user: &SignedIn) -> Actor {
    Actor::human(&user.name, user.role)
}

pub fn refused(error: LedgerError, op_id: &str, user: &SignedIn) -> AppError {
    match error {
        LedgerError::NotFound => {
            AppError::NotFound(format!("no operation {op_id} in tenant {}", user.tenant))
        }
        LedgerError::Rejected(rejection) if rejection.code == RejectionCode::NotPermitted => {
            tracing::warn!(user = %user.name, role = user.role.as_str(), %op_id, "refused: {rejection}");
            AppError::Forbidden
        }
        LedgerError::Rejected(rejection) => AppError::Invalid(rejection.message),
        LedgerError::Invalid(message) => AppError::Invalid(message),
        invalid @ LedgerError::InvalidField { .. } => AppError::Invalid(invalid.to_string()),
        LedgerError::Contended => AppError::Invalid("The operation is changing right now; try again.".into()),
        LedgerError::Unavailable(message) => {
            tracing::warn!(%op_id, "unavailable: {message}");
            AppError::Unavailable
        }
        LedgerError::Untrusted { why, object } => untrusted(op_id, why, &object),
        LedgerError::Store(error) => unavailable(error),
    }
}

/// The refusal of the page or action that needs the archived history of `op_id`, whose file at
/// `object` was found not as it was signed for `why`.
pub fn untrusted(op_id: &str, why: crate::domain::archive::ArchiveDistrust, object: &str) -> AppError {
    let language = super::language::current_language();
    let why = why.words(language);
    AppError::ArchiveUntrusted(t!(
        language,
        "archive-untrusted-operation",
        op_id = op_id,
        why = why,
        object = object
    ))
}

/// The session of the request a server function or page is answering.
pub async fn request_session() -> Result<Session, AppError> {
    leptos_axum::extract().await.map_err(|_| AppError::Unavailable)
}

/// The HTTP status that matches `error`: 401 signed out, 403 refused, 404 nothing there, 422 bad
/// input, 503 when the database is away, 502 when an archive file is not as it was signed.
pub fn status_of(error: &AppError) -> StatusCode {
    match error {
        AppError::SignedOut => StatusCode::UNAUTHORIZED,
        AppError::Forbidden | AppError::FormExpired | AppError::TwoFactorFirst => StatusCode::FORBIDDEN,
        AppError::NotFound(_) => StatusCode::NOT_FOUND,
        AppError::Invalid(_) | AppError::InvalidField { .. } => StatusCode::UNPROCESSABLE_ENTITY,
        AppError::Unavailable | AppError::Transport(_) => StatusCode::SERVICE_UNAVAILABLE,
        AppError::ArchiveUntrusted(_) => StatusCode::BAD_GATEWAY,
    }
}

/// Sets the HTTP status that matches `error` on the current response (a server function's or a
/// page's).
pub fn set_error_status(error: &AppError) {
    if let Some(response) = leptos::prelude::use_context::<leptos_axum::ResponseOptions>() {
        response.set_status(status_of(error));
    }
}

/// `error`, with its status set on the response.
fn refuse(error: AppError) -> AppError {
    set_error_status(&error);
    error
}

/// The session's user when they may open `section`; otherwise `SignedOut` or `Forbidden`.
pub async fn allowed(session: &Session, section: Section) -> Result<SignedIn, AppError> {
    let user = signed_in(session).await.ok_or(AppError::SignedOut)?;
    if must_enrol(session).await {
        return Err(AppError::TwoFactorFirst);
    }
    if !section.allows(user.role) {
        tracing::warn!(user = %user.name, role = user.role.as_str(), ?section, "refused a section");
        return Err(AppError::Forbidden);
    }
    Ok(user)
}

/// The signed-in user of the current request when they may open `section`; otherwise
/// `SignedOut` (401) or `Forbidden` (403), with that status set on the response.
pub async fn require(section: Section) -> Result<SignedIn, AppError> {
    allowed(&request_session().await?, section).await.map_err(refuse)
}

/// The signed-in user of the current request, whatever their role and even before they set up the
/// two-factor sign-in their tenant requires: for their own account's server functions alone.
/// With `csrf` (a change), the form's token must be the session's.
pub async fn require_own_account(csrf: Option<&str>) -> Result<SignedIn, AppError> {
    let session = request_session().await?;
    let user = signed_in(&session).await.ok_or(AppError::SignedOut).map_err(refuse)?;
    if let Some(csrf) = csrf {
        if !csrf_matches(&session, csrf).await {
            return Err(refuse(AppError::FormExpired));
        }
    }
    Ok(user)
}

/// Like [`require`], for a server function that changes something: the form's CSRF token must be
/// the session's.
pub async fn require_for_change(section: Section, csrf: &str) -> Result<SignedIn, AppError> {
    let user = require(section).await?;
    if !csrf_matches(&request_session().await?, csrf).await {
        return Err(refuse(AppError::FormExpired));
    }
    Ok(user)
}
