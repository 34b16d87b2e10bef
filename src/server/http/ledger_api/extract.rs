//! The ledger API's extractors: the caller behind the bearer token (its tenant and its identity
//! as an actor, within the token's rate limit) and JSON bodies whose problems are answered as API errors.

use axum::{
    extract::{rejection::JsonRejection, FromRequest, FromRequestParts, Request},
    http::{header::AUTHORIZATION, request::Parts, StatusCode},
    Json,
};
use serde::de::DeserializeOwned;

use super::error::ApiError;
use crate::domain::ids::{Actor, TenantId};
use crate::server::http::state::AppState;

/// The caller behind the bearer token: its tenant and its identity as an actor.
#[derive(Debug, Clone)]
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
        let record = state.ledger.authenticate(token.trim()).await?.ok_or(ApiError::Unauthorized)?;
        state.limits.api_call_by_token(&record.id).map_err(ApiError::RateLimited)?;
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
