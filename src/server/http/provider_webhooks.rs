//! `POST /webhooks/providers/{tenant}/{connection}`: where a provider posts its events about a
//! tenant's own connection (the URL the admin page shows, to paste into the provider's dashboard).
//! Nothing is read before the event is verified with what is set for that connection: Stripe's
//! `Stripe-Signature` under the endpoint's signing secret (within 5 minutes), each of Adyen's
//! notification items by its HMAC under the webhook's HMAC key, PayPal's event by asking PayPal
//! (`verify-webhook-signature`, with the webhook's id), ECPay's payment notification by its
//! CheckMacValue under the connection's own HashKey and HashIV. A bad or missing signature, an old
//! timestamp or a connection without a secret is refused with 400 or 404 and changes nothing. A
//! verified event is handed to the ledger, which stores it once and settles the operation it
//! concerns by the provider's word; the answer is 200 (Adyen's `[accepted]`), or 503 when the
//! provider could not be asked (it sends again).

use axum::{
    body::Bytes,
    extract::{Path, State},
    http::{HeaderMap, StatusCode},
    response::{IntoResponse, Response},
    Json,
};
use serde_json::json;

use super::state::AppState;
use crate::domain::{
    connection::ProviderKind,
    ecpay,
    ids::{Actor, TenantId},
};
use crate::server::clock::now;
use crate::server::ledger::provider_events::EventError;
use crate::server::providers::{adyen_events, stripe_events};
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
    let signing = match state.ledger.webhook_signing(&tenant, &connection).await {
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
    let payload = String::from_utf8_lossy(&body).into_owned();
    let secret = &signing.secret;
    match signing.kind {
        ProviderKind::Stripe => {}
        ProviderKind::Adyen => {
            let merchant_account = signing.account.as_deref();
            return adyen(&state, &tenant, &connection, secret, merchant_account, &body, payload).await;
        }
        ProviderKind::PayPal => {
            return paypal(&state, &tenant, &connection, secret, &headers, &body, payload).await
        }
        ProviderKind::Ecpay => return ecpay_payment(&state, &tenant, &connection, secret, &body).await,
        ProviderKind::LinePay
        | ProviderKind::Services
        | ProviderKind::Orders
        | ProviderKind::Http
        | ProviderKind::Email
        | ProviderKind::Smtp => return no_webhook(),
    }
    let signature = headers.get("stripe-signature").and_then(|value| value.to_str().ok());
    if let Err(problem) = stripe_events::verify(&body, signature, secret, now()) {
        tracing::warn!(%tenant, connection, %problem, "a provider event was refused");
        return refused(StatusCode::BAD_REQUEST, format!("The event was not accepted: {problem}."));
    }
    let event = match stripe_events::parse(&body) {
        Ok(event) => event,
        Err(problem) => {
            return refused(StatusCode::BAD_REQUEST, format!("The event was not accepted: {problem}."))
        }
    };
    match state.executor.receive_stripe_event(&tenant, &connection, event, payload).await {
        Ok(processed) => {
            (StatusCode::OK, Json(json!({"received": true, "outcome": processed.outcome}))).into_response()
        }
        Err(error) => not_now(&tenant, &connection, error),
    }
}

/// The answer to an event that could not be processed now: 503, so that the provider sends it
/// again.
fn not_now(tenant: &TenantId, connection: &str, error: EventError) -> Response {
    match error {
        EventError::ProviderUnavailable { object, reason } => {
            tracing::warn!(%tenant, connection, object, reason, "a provider event waits for the provider");
            refused(
                StatusCode::SERVICE_UNAVAILABLE,
                "The provider could not be asked about the event now; send it again later.",
            )
        }
        EventError::InFlight { op_id } => {
            tracing::info!(%tenant, connection, %op_id, "a provider event waits for the send in flight");
            refused(
                StatusCode::SERVICE_UNAVAILABLE,
                "The operation has a send in flight; send the event again later.",
            )
        }
        EventError::Ledger(error) => {
            tracing::error!(error = %cause_chain(&error), "a provider event could not be processed");
            refused(
                StatusCode::SERVICE_UNAVAILABLE,
                "The event could not be processed now; send it again later.",
            )
        }
    }
}

/// ECPay's payment notification (the form it posts to the order's `ReturnURL`): its
/// CheckMacValue must be the form's under the connection's HashKey and HashIV, or it is refused
/// with 400 and nothing is saved; a succeeded card payment's ids (`TradeNo`, `gwsr`) are saved for
/// its refunds. ECPay reads `1|OK` as received, and sends again otherwise.
async fn ecpay_payment(
    state: &AppState,
    tenant: &TenantId,
    connection: &str,
    secret: &str,
    body: &[u8],
) -> Response {
    let Ok(credentials) = ecpay::Credentials::parse(secret) else {
        return refused(StatusCode::SERVICE_UNAVAILABLE, "The connection's ECPay secret does not read.");
    };
    let Ok(form) = serde_urlencoded::from_bytes::<Vec<(String, String)>>(body) else {
        return refused(
            StatusCode::BAD_REQUEST,
            "The notification was not accepted: the body is not a form.",
        );
    };
    let payment = match ecpay::payment_notice(&form, &credentials.hash_key, &credentials.hash_iv) {
        Ok(payment) => payment,
        Err(problem) => {
            tracing::warn!(%tenant, connection, %problem, "an ECPay notification was refused");
            return refused(
                StatusCode::BAD_REQUEST,
                format!("The notification was not accepted: {problem}."),
            );
        }
    };
    let actor = Actor::system("ecpay");
    match state.ledger.save_gateway_payment(tenant, &actor, connection, payment, "notification").await {
        Ok(()) => (StatusCode::OK, "1|OK").into_response(),
        Err(error) => {
            tracing::error!(error = %cause_chain(&error), "an ECPay payment could not be saved");
            refused(
                StatusCode::SERVICE_UNAVAILABLE,
                "The notification could not be saved now; send it again later.",
            )
        }
    }
}

/// An Adyen notification: every item verified by its HMAC under `hmac_key` before any is
/// processed, then each processed once for the connection's `merchant_account` (an item about
/// another merchant account is refused and changes nothing); `[accepted]` in answer.
async fn adyen(
    state: &AppState,
    tenant: &TenantId,
    connection: &str,
    hmac_key: &str,
    merchant_account: Option<&str>,
    body: &[u8],
    payload: String,
) -> Response {
    let items = match adyen_events::parse(body) {
        Ok(items) => items,
        Err(problem) => {
            return refused(StatusCode::BAD_REQUEST, format!("The notification was not accepted: {problem}."))
        }
    };
    if let Some(forged) = items.iter().find(|item| !item.verifies(hmac_key)) {
        tracing::warn!(%tenant, connection, item = %forged.event_id(), "an Adyen notification item did not verify");
        return refused(
            StatusCode::BAD_REQUEST,
            "The notification was not accepted: an item's HMAC signature does not match.",
        );
    }
    for item in items {
        let received =
            state.executor.receive_adyen_item(tenant, connection, merchant_account, item, payload.clone());
        if let Err(error) = received.await {
            return not_now(tenant, connection, error);
        }
    }
    (StatusCode::OK, adyen_events::ACCEPTED).into_response()
}

/// A PayPal event: PayPal is asked whether it sent it (for the webhook `webhook_id`), then it is
/// processed once.
async fn paypal(
    state: &AppState,
    tenant: &TenantId,
    connection: &str,
    webhook_id: &str,
    headers: &HeaderMap,
    body: &[u8],
    payload: String,
) -> Response {
    let Ok(event) = serde_json::from_slice::<serde_json::Value>(body) else {
        return refused(StatusCode::BAD_REQUEST, "The event was not accepted: the body is not JSON.");
    };
    let connector = match state.executor.directory().connector(tenant, connection).await {
        Ok(Ok(connector)) => connector,
        _ => {
            return refused(
                StatusCode::SERVICE_UNAVAILABLE,
                "The event could not be processed now; send it again later.",
            )
        }
    };
    let transmitted: Vec<(String, String)> = headers
        .iter()
        .filter(|(name, _)| name.as_str().starts_with("paypal-"))
        .filter_map(|(name, value)| Some((name.as_str().to_owned(), value.to_str().ok()?.to_owned())))
        .collect();
    match connector.verify_webhook(&transmitted, &event, webhook_id).await {
        Ok(true) => {}
        Ok(false) => {
            tracing::warn!(%tenant, connection, "a PayPal event was not confirmed by PayPal");
            return refused(
                StatusCode::BAD_REQUEST,
                "The event was not accepted: PayPal does not confirm it sent it.",
            );
        }
        Err(reason) => {
            tracing::warn!(%tenant, connection, reason, "PayPal could not be asked about an event");
            return refused(
                StatusCode::SERVICE_UNAVAILABLE,
                "PayPal could not be asked about the event now; send it again later.",
            );
        }
    }
    match state.executor.receive_paypal_event(tenant, connection, event, payload).await {
        Ok(processed) => {
            (StatusCode::OK, Json(json!({"received": true, "outcome": processed.outcome}))).into_response()
        }
        Err(error) => not_now(tenant, connection, error),
    }
}
