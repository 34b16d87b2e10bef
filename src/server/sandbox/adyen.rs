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
//! `delay`, `error_500_before`, `error_500_after`, `rate_limit`), and `pending` sets the outcome: `then` `succeeded`,
//! `failed` (with `failure_reason`) or `canceled` (a `REFUND` that succeeds, then `REFUND_FAILED`),
//! after `ms`. A notification not answered `[accepted]` is sent again, as Adyen does, after 1, 2,
//! 4, 8, 15, 30, 30 and 30 seconds. `GET /orders/{id}` is the shop's orders endpoint (the key as a
//! bearer token); `POST /_sandbox/orders` adds an order to it. The control API (see
//! [`super::control`]) takes the `X-API-Key` too.

use axum::{
    extract::{Path, State},
    http::{HeaderMap, StatusCode},
    response::Response,
    routing::{get, post},
    Json, Router,
};
use chrono::{DateTime, Duration, Utc};
use serde::Deserialize;
use serde_json::{json, Value};
use std::collections::BTreeMap;
use std::sync::Arc;

use super::account::{respond, shop_order, Account, CreatedObject, Provider, Refusal};
use super::control;
use super::faults::{Fault, FaultKind};
use super::keyed::Answer;
use super::pipeline;
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

/// What only an Adyen account keeps.
#[derive(Debug, Default)]
pub(super) struct AdyenObjects {
    refunds: Vec<Refund>,
    destination: Option<String>,
    notifications: Vec<Value>,
}

/// A running Adyen sandbox account.
#[derive(Clone)]
pub struct AdyenSandbox {
    config: Arc<AdyenConfig>,
    account: Account<AdyenObjects>,
}

/// Adyen's error body: `{status, errorCode, message, errorType, pspReference}`, the reference
/// naming the refused request.
fn error_body(status: StatusCode, code: &str, message: &str, error_type: &str) -> Value {
    let reference = format!("{:016}", uuid::Uuid::new_v4().as_u128() % 10_u128.pow(16));
    json!({"status": status.as_u16(), "errorCode": code, "message": message, "errorType": error_type, "pspReference": reference})
}

fn adyen_error(status: StatusCode, code: &str, message: &str, error_type: &str) -> Answer {
    (status, error_body(status, code, message, error_type))
}

impl AdyenSandbox {
    /// An account holding `orders` (each order's `payment_intent` is its payment's pspReference).
    pub fn new(config: AdyenConfig, orders: Vec<Order>) -> Self {
        Self { account: Account::new(orders, config.key_retention), config: Arc::new(config) }
    }

    /// Posts the account's notifications to `url` from now on.
    pub fn notify(&self, url: &str) {
        self.account.lock().own.destination = Some(url.to_owned());
    }

    /// Sets a fault, as `POST /_sandbox/faults` does.
    pub fn inject(&self, fault: Fault) {
        self.account.inject(fault);
    }

    /// Every refund the account really made.
    pub fn created_objects(&self) -> Vec<CreatedObject> {
        self.account.created_objects()
    }

    /// The HTTP surface: the Checkout API's refunds and the shop's orders, and the control API
    /// under `/_sandbox`.
    pub fn router(&self) -> Router {
        let guarded = Router::new()
            .route("/{version}/payments/{payment}/refunds", post(refund))
            .route("/_sandbox/orders", post(control::add_order::<AdyenSandbox>))
            .route("/_sandbox/notification_destination", post(set_destination))
            .route("/_sandbox/notifications", get(notifications));
        control::guarded(self, guarded).route("/orders/{id}", get(order)).with_state(self.clone())
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
            let mut books = self.account.lock();
            books.own.notifications.push(notification.clone());
            books.own.destination.clone()
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

impl Provider for AdyenSandbox {
    type Own = AdyenObjects;
    const CONTROL: &'static str = "/_sandbox";
    const KEY_HEADER: &'static str = "idempotency-key";
    const OUTCOMES: &'static [FaultKind] = &[FaultKind::Pending];
    const REPLAYS_5XX: bool = true;

    fn account(&self) -> &Account<AdyenObjects> {
        &self.account
    }

    fn authorized(&self, headers: &HeaderMap) -> bool {
        headers.get("x-api-key").and_then(|v| v.to_str().ok()) == Some(self.config.api_key.as_str())
    }

    fn refused(refusal: Refusal) -> Answer {
        match refusal {
            Refusal::Unauthorized => adyen_error(
                StatusCode::UNAUTHORIZED,
                "000",
                "HTTP Status Response - Unauthorized",
                "security",
            ),
            Refusal::KeyInUse => adyen_error(
                StatusCode::CONFLICT,
                "704",
                "request already processed or in progress",
                "validation",
            ),
            Refusal::RateLimited => {
                adyen_error(StatusCode::TOO_MANY_REQUESTS, "008", "Too many requests", "validation")
            }
            Refusal::ServerError => {
                adyen_error(StatusCode::INTERNAL_SERVER_ERROR, "905", "Internal error", "internal")
            }
        }
    }

    fn key_reused() -> Option<Answer> {
        Some(adyen_error(
            StatusCode::UNPROCESSABLE_ENTITY,
            "704",
            "request already processed or in progress with a different body for this Idempotency-Key",
            "validation",
        ))
    }

    fn key_refused(key: &str) -> Option<Answer> {
        (key.chars().count() > 64).then(|| {
            adyen_error(
                StatusCode::BAD_REQUEST,
                "702",
                "Idempotency-Key must be at most 64 characters",
                "validation",
            )
        })
    }
}

/// `POST /{version}/payments/{pspReference}/refunds`.
async fn refund(
    State(sandbox): State<AdyenSandbox>,
    Path((_version, payment)): Path<(String, String)>,
    headers: HeaderMap,
    Json(request): Json<Value>,
) -> Response {
    let fingerprint = json!({"payment": payment, "body": request});
    let reference = request.get("reference").and_then(Value::as_str).map(str::to_owned);
    pipeline::create(sandbox, &headers, fingerprint, reference.clone(), move |sandbox, key, now| {
        let names: Vec<&str> = key.into_iter().chain(reference.as_deref()).collect();
        let outcome = sandbox.account.take_fault(&names, &[FaultKind::Pending]);
        make_refund(sandbox, &payment, &request, key, outcome, now)
    })
    .await
}

/// Checks the request against the account and the payment, makes the refund and schedules its
/// outcome's notification.
fn make_refund(
    sandbox: &AdyenSandbox,
    payment: &str,
    request: &Value,
    key: Option<&str>,
    outcome: Option<Fault>,
    now: DateTime<Utc>,
) -> Answer {
    let invalid = |code: &str, message: &str| {
        adyen_error(StatusCode::UNPROCESSABLE_ENTITY, code, message, "validation")
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
    let mut books = sandbox.account.lock();
    let Some((paid, paid_currency)) =
        books.order_paid_by(payment).map(|order| (order.paid_minor(), order.currency.clone()))
    else {
        return invalid("167", "Original pspReference required for this operation");
    };
    if paid_currency != currency {
        return invalid("137", "Invalid amount specified: the currency is not the payment's");
    }
    let psp_reference = format!("88{:014}", 1_000_000 + books.next_number() * 7919);
    let refunded: i64 = books.own.refunds.iter().filter(|r| r.payment == payment).map(|r| r.amount).sum();
    let refund = Refund {
        psp_reference: psp_reference.clone(),
        payment: payment.to_owned(),
        amount: value,
        currency: currency.to_owned(),
        reference: reference.clone(),
    };
    let too_much = refunded + value > paid;
    books.created.push(CreatedObject {
        object_type: "refund".into(),
        id: psp_reference.clone(),
        amount: Some(value),
        currency: Some(currency.to_owned()),
        idempotency_key: key.map(str::to_owned),
        metadata: BTreeMap::from([("reference".to_owned(), reference.clone())]),
        created_at: now,
    });
    if !too_much {
        books.own.refunds.push(refund.clone());
    }
    drop(books);
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

/// `GET /orders/{id}`: the shop's orders endpoint, the API key as a bearer token.
async fn order(State(sandbox): State<AdyenSandbox>, Path(id): Path<String>, headers: HeaderMap) -> Response {
    shop_order(&sandbox.account, &sandbox.config.api_key, &id, &headers)
}

#[derive(Debug, Deserialize)]
struct Destination {
    url: String,
}

async fn set_destination(
    State(sandbox): State<AdyenSandbox>,
    Json(destination): Json<Destination>,
) -> Response {
    sandbox.notify(&destination.url);
    respond((StatusCode::OK, json!({"url": destination.url})))
}

async fn notifications(State(sandbox): State<AdyenSandbox>) -> Response {
    respond((StatusCode::OK, json!({"data": sandbox.account.lock().own.notifications})))
}
