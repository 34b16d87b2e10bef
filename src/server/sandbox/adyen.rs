//! The Adyen sandbox: the part of Adyen's Checkout API (v71) a refund needs, as Adyen's API
//! reference and its Python library describe it, with a shop of its own and Adyen's webhooks.
//! `POST /{version}/payments/{pspReference}/refunds` takes `X-API-Key`, an `Idempotency-Key` of at
//! most 64 characters (the first answer replayed for 31 days; the same key with another body is
//! refused; a second request while the first runs is a 409) and
//! `{"amount": {"currency", "value"}, "merchantAccount", "reference"}`, and always answers `201`
//! with `"status": "received"`: the outcome comes later, as a `REFUND` notification signed with
//! the webhook's HMAC key and posted to the destination set (`success` "false" with a reason, or a
//! `REFUND_FAILED` after a successful `REFUND`, on demand). Errors are
//! `{status, errorCode, message, errorType, pspReference}`. Faults as the Stripe sandbox's (`drop_response`,
//! `delay`, `error_500_after`, `rate_limit`), and `pending` sets the outcome: `then` `succeeded`,
//! `failed` (with `failure_reason`) or `canceled` (a `REFUND` that succeeds, then `REFUND_FAILED`),
//! after `ms`. A notification not answered `[accepted]` is sent again, as Adyen does, after 1, 2,
//! 4, 8, 15, 30, 30 and 30 seconds. `GET /orders/{id}` is the shop's orders endpoint (the key as a
//! bearer token); `POST /_sandbox/orders` adds an order to it.

use axum::{
    extract::{Path, State},
    http::{HeaderMap, StatusCode},
    response::{IntoResponse, Response},
    routing::{get, post},
    Json, Router,
};
use chrono::{Duration, Utc};
use serde::Deserialize;
use serde_json::{json, Value};
use std::collections::BTreeMap;
use std::sync::{Arc, Mutex, MutexGuard};

use super::faults::{check, take, Fault, FaultKind};
use super::keyed::{Claim, KeyedAnswers};
use super::CreatedObject;
use crate::server::providers::adyen_events::sign;
use crate::server::providers::orders::Order;

/// How long the sandbox waits before sending a notification again that was not answered
/// `[accepted]`: Adyen's own retries, at minutes and hours, shortened to seconds.
const RETRY_AFTER_S: [u64; 8] = [1, 2, 4, 8, 15, 30, 30, 30];

/// How an Adyen sandbox account is set up.
#[derive(Debug, Clone)]
pub struct AdyenConfig {
    /// What callers send as `X-API-Key` (and as a bearer token to the orders endpoint).
    pub api_key: String,
    pub merchant_account: String,
    /// The webhook's HMAC key, hexadecimal, that notifications are signed with.
    pub hmac_key: String,
    /// How long an idempotency key is remembered: Adyen keeps them at least 31 days.
    pub key_retention: Duration,
}

#[derive(Debug, Clone)]
struct Refund {
    psp_reference: String,
    payment: String,
    amount: i64,
    currency: String,
    reference: String,
}

#[derive(Debug, Default)]
struct AdyenState {
    orders: BTreeMap<String, Order>,
    refunds: Vec<Refund>,
    keyed: KeyedAnswers,
    faults: Vec<Fault>,
    destination: Option<String>,
    notifications: Vec<Value>,
    created: Vec<CreatedObject>,
    next_id: u64,
}

/// A running Adyen sandbox account.
#[derive(Clone)]
pub struct AdyenSandbox {
    config: Arc<AdyenConfig>,
    state: Arc<Mutex<AdyenState>>,
}

/// Adyen's error body: `{status, errorCode, message, errorType, pspReference}`, the reference
/// naming the refused request.
fn error_body(status: StatusCode, code: &str, message: &str, error_type: &str) -> Value {
    let reference = format!("{:016}", uuid::Uuid::new_v4().as_u128() % 10_u128.pow(16));
    json!({"status": status.as_u16(), "errorCode": code, "message": message, "errorType": error_type, "pspReference": reference})
}

fn adyen_error(status: StatusCode, code: &str, message: &str, error_type: &str) -> Response {
    (status, Json(error_body(status, code, message, error_type))).into_response()
}

impl AdyenSandbox {
    /// An account holding `orders` (each order's `payment_intent` is its payment's pspReference).
    pub fn new(config: AdyenConfig, orders: Vec<Order>) -> Self {
        let sandbox = Self { config: Arc::new(config), state: Arc::default() };
        sandbox.lock().orders = orders.into_iter().map(|order| (order.id.clone(), order)).collect();
        sandbox
    }

    fn lock(&self) -> MutexGuard<'_, AdyenState> {
        self.state.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// Posts the account's notifications to `url` from now on.
    pub fn notify(&self, url: &str) {
        self.lock().destination = Some(url.to_owned());
    }

    /// Sets a fault, as `POST /_sandbox/faults` does.
    pub fn inject(&self, fault: Fault) {
        self.lock().faults.push(fault);
    }

    /// Every refund the account really made.
    pub fn created_objects(&self) -> Vec<CreatedObject> {
        self.lock().created.clone()
    }

    /// The HTTP surface: the Checkout API's refunds and the shop's orders, and the control API
    /// under `/_sandbox`.
    pub fn router(&self) -> Router {
        Router::new()
            .route("/{version}/payments/{payment}/refunds", post(refund))
            .route("/orders/{id}", get(order))
            .route("/_sandbox/faults", post(add_fault).delete(clear_faults))
            .route("/_sandbox/orders", post(add_order))
            .route("/_sandbox/notification_destination", post(set_destination))
            .route("/_sandbox/notifications", get(notifications))
            .route("/_sandbox/ledger", get(ledger))
            .with_state(self.clone())
    }

    fn payment_of(&self, psp: &str) -> Option<(i64, String)> {
        let state = self.lock();
        let order = state.orders.values().find(|order| order.payment_intent == psp)?;
        Some((order.paid_minor(), order.currency.clone()))
    }

    /// Posts the outcome of `refund` after `wait`: a `REFUND` notification, successful unless
    /// `failure` says why not; `fails_later` adds a `REFUND_FAILED` after a successful one.
    fn notify_outcome(
        &self,
        refund: Refund,
        wait: std::time::Duration,
        failure: Option<String>,
        fails_later: bool,
    ) {
        let sandbox = self.clone();
        tokio::spawn(async move {
            tokio::time::sleep(wait).await;
            sandbox.post(&refund, "REFUND", failure.is_none(), failure.as_deref().unwrap_or_default()).await;
            if fails_later {
                tokio::time::sleep(std::time::Duration::from_millis(200)).await;
                sandbox.post(&refund, "REFUND_FAILED", true, "The refund was returned by the issuer").await;
            }
        });
    }

    /// Makes the notification (kept, for `GET /_sandbox/notifications`) and posts it to the
    /// destination, when one is set, until it is answered `[accepted]`.
    async fn post(&self, refund: &Refund, event_code: &str, success: bool, reason: &str) {
        let mut item = json!({
            "amount": {"currency": refund.currency, "value": refund.amount},
            "eventCode": event_code,
            "eventDate": Utc::now().to_rfc3339_opts(chrono::SecondsFormat::Secs, true),
            "merchantAccountCode": self.config.merchant_account,
            "merchantReference": refund.reference,
            "originalReference": refund.payment,
            "pspReference": refund.psp_reference,
            "reason": reason,
            "success": success.to_string(),
        });
        let Ok(signature) = sign(&item, &self.config.hmac_key) else { return };
        item["additionalData"] = json!({"hmacSignature": signature});
        let notification = json!({"live": "false", "notificationItems": [{"NotificationRequestItem": item}]});
        let destination = {
            let mut state = self.lock();
            state.notifications.push(notification.clone());
            state.destination.clone()
        };
        let Some(url) = destination else { return };
        let Ok(client) = reqwest::Client::builder().timeout(std::time::Duration::from_secs(10)).build()
        else {
            return;
        };
        let mut waits = RETRY_AFTER_S.into_iter();
        loop {
            let answer = client.post(&url).json(&notification).send().await;
            let accepted = match answer {
                Ok(answer) if answer.status().is_success() => {
                    answer.text().await.is_ok_and(|body| body.trim() == "[accepted]")
                }
                Ok(answer) => {
                    tracing::info!(%url, status = %answer.status(), "the Adyen sandbox's notification was not accepted; it is sent again");
                    false
                }
                Err(error) => {
                    tracing::warn!(%url, %error, "the Adyen sandbox could not post its notification");
                    false
                }
            };
            if accepted {
                return;
            }
            let Some(wait_s) = waits.next() else {
                tracing::warn!(%url, "the Adyen sandbox gave up sending its notification");
                return;
            };
            tokio::time::sleep(std::time::Duration::from_secs(wait_s)).await;
        }
    }
}

fn authorized(sandbox: &AdyenSandbox, headers: &HeaderMap) -> bool {
    headers.get("x-api-key").and_then(|v| v.to_str().ok()) == Some(sandbox.config.api_key.as_str())
}

async fn refund(
    State(sandbox): State<AdyenSandbox>,
    Path((_version, payment)): Path<(String, String)>,
    headers: HeaderMap,
    Json(request): Json<Value>,
) -> Response {
    if !authorized(&sandbox, &headers) {
        return adyen_error(
            StatusCode::UNAUTHORIZED,
            "000",
            "HTTP Status Response - Unauthorized",
            "security",
        );
    }
    let key = headers.get("idempotency-key").and_then(|v| v.to_str().ok()).map(str::to_owned);
    if key.as_ref().is_some_and(|key| key.chars().count() > 64) {
        return adyen_error(
            StatusCode::BAD_REQUEST,
            "702",
            "Idempotency-Key must be at most 64 characters",
            "validation",
        );
    }
    let handled = tokio::spawn(handle_refund(sandbox, payment, key, request));
    handled.await.unwrap_or_else(|_| {
        adyen_error(StatusCode::INTERNAL_SERVER_ERROR, "905", "Internal error", "internal")
    })
}

/// Handles a refund request to the end, whether or not the caller still waits for the answer (a
/// provider finishes what it started when a client goes away).
async fn handle_refund(
    sandbox: AdyenSandbox,
    payment: String,
    key: Option<String>,
    request: Value,
) -> Response {
    let now = Utc::now();
    let stored_request = json!({"payment": payment, "body": request});
    if let Some(key) = &key {
        let claim = sandbox.lock().keyed.claim(key, &stored_request, now, sandbox.config.key_retention);
        match claim {
            Claim::Replay(status, body) => return (status, Json(body)).into_response(),
            Claim::OtherRequest => {
                return adyen_error(
                    StatusCode::UNPROCESSABLE_ENTITY,
                    "704",
                    "request already processed or in progress with a different body for this Idempotency-Key",
                    "validation",
                )
            }
            Claim::InUse => {
                return adyen_error(
                    StatusCode::CONFLICT,
                    "704",
                    "request already processed or in progress",
                    "validation",
                )
            }
            Claim::Claimed => {}
        }
    }
    let names: Vec<&str> =
        key.iter().map(String::as_str).chain(request.get("reference").and_then(Value::as_str)).collect();
    let (fault, outcome) = {
        let mut state = sandbox.lock();
        let kinds =
            [FaultKind::Delay, FaultKind::DropResponse, FaultKind::Error500After, FaultKind::RateLimit];
        (take(&mut state.faults, &names, &kinds), take(&mut state.faults, &names, &[FaultKind::Pending]))
    };
    let answer = match fault.as_ref().map(|f| (f.fault, f.ms)) {
        Some((FaultKind::RateLimit, _)) => (
            StatusCode::TOO_MANY_REQUESTS,
            error_body(StatusCode::TOO_MANY_REQUESTS, "008", "Too many requests", "validation"),
        ),
        Some((FaultKind::Delay, ms)) => {
            tokio::time::sleep(std::time::Duration::from_millis(ms)).await;
            make_refund(&sandbox, &payment, &request, key.as_deref(), outcome)
        }
        _ => make_refund(&sandbox, &payment, &request, key.as_deref(), outcome),
    };
    let answer = match fault.as_ref().map(|f| f.fault) {
        Some(FaultKind::Error500After) => (
            StatusCode::INTERNAL_SERVER_ERROR,
            error_body(StatusCode::INTERNAL_SERVER_ERROR, "905", "Internal error", "internal"),
        ),
        _ => answer,
    };
    if let Some(key) = &key {
        let remember = answer.0 != StatusCode::TOO_MANY_REQUESTS;
        sandbox.lock().keyed.finish(key, stored_request, answer.clone(), now, remember);
    }
    if let Some((FaultKind::DropResponse, ms)) = fault.map(|f| (f.fault, f.ms)) {
        tokio::time::sleep(std::time::Duration::from_millis(if ms == 0 { 120_000 } else { ms })).await;
    }
    (answer.0, Json(answer.1)).into_response()
}

/// Checks the request against the account and the payment, makes the refund and schedules its
/// outcome's notification.
fn make_refund(
    sandbox: &AdyenSandbox,
    payment: &str,
    request: &Value,
    key: Option<&str>,
    outcome: Option<Fault>,
) -> (StatusCode, Value) {
    let invalid = |code: &str, message: &str| {
        (
            StatusCode::UNPROCESSABLE_ENTITY,
            error_body(StatusCode::UNPROCESSABLE_ENTITY, code, message, "validation"),
        )
    };
    if request.get("merchantAccount").and_then(Value::as_str)
        != Some(sandbox.config.merchant_account.as_str())
    {
        return invalid("901", "Invalid Merchant Account");
    }
    let (Some(value), Some(currency)) = (
        request.pointer("/amount/value").and_then(Value::as_i64).filter(|value| *value > 0),
        request.pointer("/amount/currency").and_then(Value::as_str),
    ) else {
        return invalid("137", "Invalid amount specified");
    };
    let reference = request.get("reference").and_then(Value::as_str).unwrap_or_default().to_owned();
    let Some((paid, paid_currency)) = sandbox.payment_of(payment) else {
        return invalid("167", "Original pspReference required for this operation");
    };
    if paid_currency != currency {
        return invalid("137", "Invalid amount specified: the currency is not the payment's");
    }
    let mut state = sandbox.lock();
    state.next_id += 1;
    let psp_reference = format!("88{:014}", 1_000_000 + state.next_id * 7919);
    let refunded: i64 = state.refunds.iter().filter(|r| r.payment == payment).map(|r| r.amount).sum();
    let refund = Refund {
        psp_reference: psp_reference.clone(),
        payment: payment.to_owned(),
        amount: value,
        currency: currency.to_owned(),
        reference: reference.clone(),
    };
    let too_much = refunded + value > paid;
    state.created.push(CreatedObject {
        object_type: "refund".into(),
        id: psp_reference.clone(),
        amount: Some(value),
        currency: Some(currency.to_owned()),
        idempotency_key: key.map(str::to_owned),
        metadata: BTreeMap::from([("reference".to_owned(), reference.clone())]),
        created_at: Utc::now(),
    });
    if !too_much {
        state.refunds.push(refund.clone());
    }
    drop(state);
    let (wait, failure, fails_later) = match &outcome {
        Some(fault) => (
            std::time::Duration::from_millis(fault.ms),
            (fault.then.as_deref() == Some("failed"))
                .then(|| fault.failure_reason.clone().unwrap_or_else(|| "Refused".into())),
            fault.then.as_deref() == Some("canceled"),
        ),
        None => (std::time::Duration::from_millis(500), None, false),
    };
    let failure = if too_much { Some("Insufficient balance on payment".to_owned()) } else { failure };
    sandbox.notify_outcome(refund, wait, failure, fails_later);
    (
        StatusCode::CREATED,
        json!({
            "merchantAccount": sandbox.config.merchant_account,
            "paymentPspReference": payment,
            "pspReference": psp_reference,
            "reference": reference,
            "status": "received",
            "amount": {"currency": currency, "value": value},
        }),
    )
}

async fn order(State(sandbox): State<AdyenSandbox>, Path(id): Path<String>, headers: HeaderMap) -> Response {
    let expected = format!("Bearer {}", sandbox.config.api_key);
    if headers.get("authorization").and_then(|v| v.to_str().ok()) != Some(expected.as_str()) {
        return (StatusCode::UNAUTHORIZED, Json(json!({"error": "unauthorized"}))).into_response();
    }
    match sandbox.lock().orders.get(&id) {
        Some(order) => Json(json!({
            "id": order.id, "currency": order.currency, "payment": order.payment_intent, "line_items": order.line_items,
            "customer_email": order.customer_email,
        }))
        .into_response(),
        None => (StatusCode::NOT_FOUND, Json(json!({"error": "no such order"}))).into_response(),
    }
}

#[derive(Debug, Deserialize)]
struct Destination {
    url: String,
}

async fn set_destination(
    State(sandbox): State<AdyenSandbox>,
    headers: HeaderMap,
    Json(destination): Json<Destination>,
) -> Response {
    if !authorized(&sandbox, &headers) {
        return adyen_error(
            StatusCode::UNAUTHORIZED,
            "000",
            "HTTP Status Response - Unauthorized",
            "security",
        );
    }
    sandbox.notify(&destination.url);
    Json(json!({"url": destination.url})).into_response()
}

async fn add_fault(
    State(sandbox): State<AdyenSandbox>,
    headers: HeaderMap,
    Json(fault): Json<Fault>,
) -> Response {
    if !authorized(&sandbox, &headers) {
        return adyen_error(
            StatusCode::UNAUTHORIZED,
            "000",
            "HTTP Status Response - Unauthorized",
            "security",
        );
    }
    if let Err(problem) = check(&fault) {
        return (StatusCode::BAD_REQUEST, Json(json!({"message": problem}))).into_response();
    }
    let summary = json!({"match": fault.pattern, "fault": fault.fault, "times": fault.times});
    sandbox.inject(fault);
    (StatusCode::CREATED, Json(summary)).into_response()
}

async fn clear_faults(State(sandbox): State<AdyenSandbox>, headers: HeaderMap) -> StatusCode {
    if !authorized(&sandbox, &headers) {
        return StatusCode::UNAUTHORIZED;
    }
    sandbox.lock().faults.clear();
    StatusCode::NO_CONTENT
}

async fn notifications(State(sandbox): State<AdyenSandbox>, headers: HeaderMap) -> Response {
    if !authorized(&sandbox, &headers) {
        return StatusCode::UNAUTHORIZED.into_response();
    }
    Json(json!({"data": sandbox.lock().notifications})).into_response()
}

async fn ledger(State(sandbox): State<AdyenSandbox>, headers: HeaderMap) -> Response {
    if !authorized(&sandbox, &headers) {
        return StatusCode::UNAUTHORIZED.into_response();
    }
    Json(json!({"data": sandbox.created_objects()})).into_response()
}

/// `POST /_sandbox/orders`: adds a paid order to the shop (its `payment_intent`, or `payment`, is
/// the payment's reference here).
async fn add_order(
    State(sandbox): State<AdyenSandbox>,
    headers: HeaderMap,
    Json(order): Json<Order>,
) -> Response {
    if !authorized(&sandbox, &headers) {
        return StatusCode::UNAUTHORIZED.into_response();
    }
    let id = order.id.clone();
    sandbox.lock().orders.insert(id.clone(), order);
    (StatusCode::CREATED, Json(json!({"id": id}))).into_response()
}
