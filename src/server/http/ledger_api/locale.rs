//! The language a tool tells the customer things in: the call's `locale`, else (over HTTP) its
//! `Accept-Language` when that names a language offered, else the language the tenant's admin set,
//! else English. What the model is told around that sentence stays in English.

use axum::http::{header::ACCEPT_LANGUAGE, HeaderMap};

use super::error::ApiError;
use crate::domain::{ids::TenantId, language::Language};
use crate::server::http::state::AppState;

/// The customer's language for a tool call of `tenant` that named `locale` (or none) and came
/// with `headers`. A `locale` that names no language offered is refused, with the ones that are.
pub async fn customer_language(
    state: &AppState,
    tenant: &TenantId,
    locale: Option<&str>,
    headers: &HeaderMap,
) -> Result<Language, ApiError> {
    if let Some(tag) = locale.map(str::trim).filter(|tag| !tag.is_empty()) {
        return Language::parse(tag).ok_or_else(|| {
            ApiError::Invalid(format!(
                "locale: {tag:?} is not a language customers are told things in ({}); leave it out to use the shop's own",
                Language::ALL.map(Language::tag).join(", ")
            ))
        });
    }
    let asked = headers.get(ACCEPT_LANGUAGE).and_then(|value| value.to_str().ok());
    if let Some(language) = asked.and_then(Language::from_accept_language) {
        return Ok(language);
    }
    Ok(state.ledger.reads().tenant_language(tenant).await?.unwrap_or_default())
}
