//! The ledger API's extractors: the caller behind the bearer token (its tenant and its identity
//! as an actor, within the token's rate limit and scopes, and the language it reads) and JSON bodies whose problems are answered as API errors.

use axum::{
    extract::{rejection::JsonRejection, FromRequest, FromRequestParts, MatchedPath, Request},
    http::{header::AUTHORIZATION, request::Parts, Method, StatusCode},
    Json,
};
use serde::de::DeserializeOwned;

use super::error::ApiError;
use super::locale::accepted_language;
use super::scopes::{need_of, Need};
use crate::domain::ids::{Actor, TenantId};
use crate::domain::language::Language;
use crate::server::http::limits::ClientAddress;
use crate::server::http::state::AppState;

/// The caller behind the bearer token: its tenant and its identity as an actor.
#[derive(Debug, Clone)]
pub struct Caller {
    pub tenant: TenantId,
    pub actor: Actor,
    /// The language the call's `Accept-Language` asks its errors' sentences in, when it names one
    /// offered.
    pub language: Option<Language>,
}

impl FromRequestParts<AppState> for Caller {
    type Rejection = ApiError;

    /// The token's caller, when the token is valid (401 otherwise), within its rate limit (429),
    /// and has the scope the matched route needs by [`scopes::ROUTE_SCOPES`] (403 naming it). The
    /// call counts as the token's use, from the client's address.
    async fn from_request_parts(parts: &mut Parts, state: &AppState) -> Result<Self, Self::Rejection> {
        let method = if parts.method == Method::HEAD { Method::GET } else { parts.method.clone() };
        let need = parts
            .extensions
            .get::<MatchedPath>()
            .and_then(|matched| need_of(&method, matched.as_str()))
            .ok_or(ApiError::NoScopeRule)?;
        let token = parts
            .headers
            .get(AUTHORIZATION)
            .and_then(|value| value.to_str().ok())
            .and_then(|value| value.strip_prefix("Bearer "))
            .ok_or(ApiError::Unauthorized)?;
        let record = state.ledger.authenticate(token.trim()).await?.ok_or(ApiError::Unauthorized)?;
        let Ok(ClientAddress(address)) = ClientAddress::from_request_parts(parts, state).await;
        state.ledger.note_token_use(&record, address);
        state.limits.api_call_by_token(&record.id).map_err(ApiError::RateLimited)?;
        if let Need::Scope(scope) = need {
            if !record.scopes.contains(scope) {
                return Err(ApiError::MissingScope(scope));
            }
        }
        let language = accepted_language(&parts.headers);
        Ok(Caller { tenant: record.tenant, actor: Actor::agent(&record.name), language })
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
