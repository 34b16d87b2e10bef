//! `POST /webhooks/providers/{tenant}/{connection}`: where a provider posts its events about a
//! tenant's own connection (the URL the admin page shows, to paste into the provider's dashboard).
//! Nothing is read before the signature is verified under the signing secret set for that
//! connection: a bad or missing signature, an old timestamp or a connection without a secret is
//! refused with 400 or 404 and changes nothing. A verified event is handed to the ledger, which
//! stores it once and settles the operation it concerns by the provider's current word; the answer
//! is 200 with what it came to, or 503 when the provider could not be asked (it sends again).

use axum::{
    body::Bytes,
    extract::{Path, State},
    http::{HeaderMap, StatusCode},
    response::{IntoResponse, Response},
    Json,
};
use serde_json::json;

use super::state::AppState;
use crate::domain::{connection::ProviderKind, ids::TenantId};
use crate::server::clock::now;
use crate::server::ledger::provider_events::EventError;
use crate::server::providers::stripe_events;
use crate::server::telemetry::cause_chain;

fn refused(status: StatusCode, message: impl Into<String>) -> Response {
    (status, Json(json!({"error": {"message": message.into()}}))).into_response()
}

/// Receives one event for `tenant`'s connection `connection`.
pub async fn receive(
    State(state): State<AppState>,
    Path((tenant, connection)): Path<(String, String)>,
    headers: HeaderMap,
    body: Bytes,
) -> Response {
    let no_webhook = || refused(StatusCode::NOT_FOUND, "No provider webhook is set up at this address.");
    let Ok(tenant) = TenantId::parse(&tenant) else { return no_webhook() };
    let (kind, secret) = match state.ledger.webhook_signing(&tenant, &connection).await {
        Ok(Some(signing)) => signing,
        Ok(None) => return no_webhook(),
        Err(error) => {
            tracing::error!(error = %cause_chain(&error), "the webhook's signing secret could not be read");
            return refused(
                StatusCode::SERVICE_UNAVAILABLE,
                "The event could not be received now; send it again later.",
            );
        }
    };
    if kind != ProviderKind::Stripe {
        return no_webhook();
    }
    let signature = headers.get("stripe-signature").and_then(|value| value.to_str().ok());
    if let Err(problem) = stripe_events::verify(&body, signature, &secret, now()) {
        tracing::warn!(%tenant, connection, %problem, "a provider event was refused");
        return refused(StatusCode::BAD_REQUEST, format!("The event was not accepted: {problem}."));
    }
    let event = match stripe_events::parse(&body) {
        Ok(event) => event,
        Err(problem) => {
            return refused(StatusCode::BAD_REQUEST, format!("The event was not accepted: {problem}."))
        }
    };
    let payload = String::from_utf8_lossy(&body).into_owned();
    match state.executor.receive_stripe_event(&tenant, &connection, event, payload).await {
        Ok(processed) => {
            (StatusCode::OK, Json(json!({"received": true, "outcome": processed.outcome}))).into_response()
        }
        Err(EventError::ProviderUnavailable { object, reason }) => {
            tracing::warn!(%tenant, connection, object, reason, "a provider event waits for the provider");
            refused(
                StatusCode::SERVICE_UNAVAILABLE,
                "The provider could not be asked about the event now; send it again later.",
            )
        }
        Err(EventError::Ledger(error)) => {
            tracing::error!(error = %cause_chain(&error), "a provider event could not be processed");
            refused(
                StatusCode::SERVICE_UNAVAILABLE,
                "The event could not be processed now; send it again later.",
            )
        }
    }
}
