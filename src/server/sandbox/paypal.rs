//! The PayPal sandbox: the part of PayPal's REST API a refund needs, as PayPal's Payments v2
//! reference and its server SDK describe it, with a shop of its own and PayPal's webhooks.
//! `POST /v1/oauth2/token` (client credentials, HTTP basic) gives a bearer token;
//! `POST /v2/payments/captures/{id}/refund` takes `PayPal-Request-Id` (the latest status of the
//! first request answered again for 45 days, so a re-send after a 5xx gets the refund it made; a
//! second request while the first runs is `409 PREVIOUS_REQUEST_IN_PROGRESS`) and
//! `{"amount": {"value", "currency_code"}, "invoice_id", "custom_id"}` (TWD, JPY and HUF in whole
//! units), answers `201` with the refund in `status` `COMPLETED` or, on demand, `PENDING` that
//! settles later to `COMPLETED`, `FAILED` or `CANCELLED`, and refuses with `422` and
//! `details[0].issue` (`REFUND_AMOUNT_EXCEEDED`, `DUPLICATE_INVOICE_ID`, …). `GET
//! /v2/payments/refunds/{id}`, `GET /v2/payments/captures/{id}` (naming its order) and `GET
//! /v2/checkout/orders/{id}` (its captures and refunds) read them back. Completed refunds are
//! announced as `PAYMENT.CAPTURE.REFUNDED` events to the destination set, and
//! `POST /v1/notifications/verify-webhook-signature` confirms exactly the events it sent, for the
//! webhook id they were sent for. Faults as the Stripe sandbox's (`drop_response`, `delay`,
//! `error_500_before`, `error_500_after`, `rate_limit`, and `pending`). `GET /orders/{id}` is the
//! shop's orders endpoint (the client secret as a bearer token); `POST /_sandbox/orders` adds an
//! order. The API and the control API (see [`super::control`]) take a bearer token: the client
//! secret or a token the account gave.

use axum::{
    extract::{Path, State},
    http::{HeaderMap, StatusCode},
    response::Response,
    routing::{get, post},
    Form, Json, Router,
};
use base64::{engine::general_purpose::STANDARD as BASE64, Engine};
use chrono::{DateTime, Duration, Utc};
use serde::Deserialize;
use serde_json::{json, Value};
use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;

use super::account::{bearer_token, respond, shop_order, Account, CreatedObject, Provider, Refusal};
use super::control;
use super::faults::{Fault, FaultKind};
use super::keyed::Answer;
use super::pipeline;
use crate::domain::money::{Currency, Money};
use crate::server::providers::orders::Order;
use crate::server::providers::paypal_value;

/// How a PayPal sandbox account is set up.
#[derive(Debug, Clone)]
pub struct PayPalConfig {
    pub client_id: String,
    pub client_secret: String,
    /// How long a `PayPal-Request-Id` is remembered: PayPal keeps them 45 days.
    pub key_retention: Duration,
}

#[derive(Debug, Clone)]
struct Refund {
    id: String,
    capture: String,
    amount: Money,
    invoice_id: Option<String>,
    custom_id: Option<String>,
    created_status: &'static str,
    settles: Option<(DateTime<Utc>, &'static str)>,
}

impl Refund {
    fn status_at(&self, now: DateTime<Utc>) -> &'static str {
        match self.settles {
            Some((at, status)) if at <= now => status,
            _ => self.created_status,
        }
    }

    fn to_json(&self, now: DateTime<Utc>) -> Value {
        json!({
            "id": self.id,
            "status": self.status_at(now),
            "amount": {"value": paypal_value(self.amount).unwrap_or_default(), "currency_code": self.amount.currency.as_str()},
            "invoice_id": self.invoice_id,
            "custom_id": self.custom_id,
            "links": [{"href": format!("/v2/payments/refunds/{}", self.id), "rel": "self", "method": "GET"}],
        })
    }
}

/// What only a PayPal account keeps.
#[derive(Debug, Default)]
pub(super) struct PayPalObjects {
    tokens: BTreeSet<String>,
    refunds: Vec<Refund>,
    destination: Option<(String, String)>,
    /// Events sent, by transmission id: their webhook id and signature, for verification.
    transmissions: BTreeMap<String, (String, String)>,
}

/// A running PayPal sandbox account.
#[derive(Clone)]
pub struct PayPalSandbox {
    config: Arc<PayPalConfig>,
    account: Account<PayPalObjects>,
}

fn paypal_error(status: StatusCode, name: &str, issue: &str, message: &str) -> Answer {
    let body = json!({
        "name": name, "message": message, "debug_id": "sandbox",
        "details": [{"issue": issue, "description": message}],
    });
    (status, body)
}

/// PayPal's answer for a resource it does not have.
fn not_found() -> Response {
    respond(paypal_error(
        StatusCode::NOT_FOUND,
        "RESOURCE_NOT_FOUND",
        "INVALID_RESOURCE_ID",
        "Specified resource ID does not exist.",
    ))
}

/// A capture's id in the sandbox is its order's `payment_intent`; its PayPal order is `O-` and the
/// shop's order id.
fn paypal_order_id(order: &Order) -> String {
    format!("O{}", order.id.chars().filter(char::is_ascii_alphanumeric).collect::<String>())
}

impl PayPalSandbox {
    /// An account holding `orders` (each order's `payment_intent` is its capture's id).
    pub fn new(config: PayPalConfig, orders: Vec<Order>) -> Self {
        Self { account: Account::new(orders, config.key_retention), config: Arc::new(config) }
    }

    /// Sets a fault, as `POST /_sandbox/faults` does.
    pub fn inject(&self, fault: Fault) {
        self.account.inject(fault);
    }

    /// Posts the account's events to `url`, for the webhook `webhook_id`, from now on.
    pub fn send_events_to(&self, url: &str, webhook_id: &str) {
        self.account.lock().own.destination = Some((url.to_owned(), webhook_id.to_owned()));
    }

    /// Every refund the account really made.
    pub fn created_objects(&self) -> Vec<CreatedObject> {
        self.account.created_objects()
    }

    /// The HTTP surface: the REST API's token, refunds, captures, orders and webhook verification,
    /// the shop's orders, and the control API under `/_sandbox`.
    pub fn router(&self) -> Router {
        let guarded = Router::new()
            .route("/v2/payments/captures/{id}/refund", post(refund))
            .route("/v2/payments/captures/{id}", get(capture))
            .route("/v2/payments/refunds/{id}", get(read_refund))
            .route("/v2/checkout/orders/{id}", get(paypal_order))
            .route("/v1/notifications/verify-webhook-signature", post(verify))
            .route("/_sandbox/orders", post(control::add_order::<PayPalSandbox>))
            .route("/_sandbox/webhook_destination", post(set_destination));
        control::guarded(self, guarded)
            .route("/v1/oauth2/token", post(token))
            .route("/orders/{id}", get(order))
            .with_state(self.clone())
    }

    fn order_of_capture(&self, capture: &str) -> Option<Order> {
        self.account.lock().order_paid_by(capture).cloned()
    }

    /// Posts a `PAYMENT.CAPTURE.REFUNDED` event about `refund` (as it stands at `at`), when a
    /// destination is set.
    fn announce(&self, refund: &Refund, at: DateTime<Utc>) {
        let Some((url, webhook_id)) = self.account.lock().own.destination.clone() else { return };
        let transmission = uuid::Uuid::new_v4().to_string();
        let signature = BASE64.encode(uuid::Uuid::new_v4().as_bytes());
        self.account.lock().own.transmissions.insert(transmission.clone(), (webhook_id, signature.clone()));
        let event = json!({
            "id": format!("WH-{}", uuid::Uuid::new_v4().simple()),
            "event_version": "1.0",
            "create_time": at.to_rfc3339_opts(chrono::SecondsFormat::Secs, true),
            "resource_type": "refund",
            "event_type": "PAYMENT.CAPTURE.REFUNDED",
            "summary": format!("A {} refund", refund.amount),
            "resource": refund.to_json(at),
        });
        tokio::spawn(async move {
            let client = reqwest::Client::builder().timeout(std::time::Duration::from_secs(10)).build();
            let Ok(client) = client else { return };
            let sent = client
                .post(&url)
                .header("paypal-transmission-id", &transmission)
                .header("paypal-transmission-time", Utc::now().to_rfc3339())
                .header("paypal-transmission-sig", &signature)
                .header("paypal-cert-url", "https://api.sandbox.paypal.com/v1/notifications/certs/sandbox")
                .header("paypal-auth-algo", "SHA256withRSA")
                .json(&event)
                .send()
                .await;
            if let Err(error) = sent {
                tracing::warn!(%url, %error, "the PayPal sandbox could not post its event");
            }
        });
    }
}

#[derive(Debug, Deserialize)]
struct TokenRequest {
    grant_type: String,
}

async fn token(
    State(sandbox): State<PayPalSandbox>,
    headers: HeaderMap,
    Form(request): Form<TokenRequest>,
) -> Response {
    let expected = format!(
        "Basic {}",
        BASE64.encode(format!("{}:{}", sandbox.config.client_id, sandbox.config.client_secret))
    );
    if headers.get("authorization").and_then(|v| v.to_str().ok()) != Some(expected.as_str()) {
        return respond((
            StatusCode::UNAUTHORIZED,
            json!({"error": "invalid_client", "error_description": "Client Authentication failed"}),
        ));
    }
    if request.grant_type != "client_credentials" {
        return respond((StatusCode::BAD_REQUEST, json!({"error": "unsupported_grant_type"})));
    }
    let token = format!("A21AA{}", uuid::Uuid::new_v4().simple());
    sandbox.account.lock().own.tokens.insert(token.clone());
    respond((
        StatusCode::OK,
        json!({
            "scope": "https://uri.paypal.com/services/payments/refund",
            "access_token": token, "token_type": "Bearer", "app_id": "APP-SANDBOX", "expires_in": 32400, "nonce": "sandbox",
        }),
    ))
}

impl Provider for PayPalSandbox {
    type Own = PayPalObjects;
    const CONTROL: &'static str = "/_sandbox";
    const KEY_HEADER: &'static str = "paypal-request-id";
    const OUTCOMES: &'static [FaultKind] = &[FaultKind::Pending];
    /// PayPal answers a request id it has seen with the latest status of that request, not with
    /// a 5xx the first request got: what is kept is what the request came to.
    const REPLAYS_5XX: bool = false;

    fn account(&self) -> &Account<PayPalObjects> {
        &self.account
    }

    /// The client secret, or a token the account gave, as a bearer token.
    fn authorized(&self, headers: &HeaderMap) -> bool {
        bearer_token(headers).is_some_and(|token| {
            token == self.config.client_secret || self.account.lock().own.tokens.contains(token)
        })
    }

    fn refused(refusal: Refusal) -> Answer {
        match refusal {
            Refusal::Unauthorized => paypal_error(
                StatusCode::UNAUTHORIZED,
                "AUTHENTICATION_FAILURE",
                "INVALID_TOKEN",
                "Authentication failed due to invalid authentication credentials or a missing Authorization header.",
            ),
            Refusal::KeyInUse => paypal_error(
                StatusCode::CONFLICT,
                "RESOURCE_CONFLICT",
                "PREVIOUS_REQUEST_IN_PROGRESS",
                "A previous request with this PayPal-Request-Id is still in progress.",
            ),
            Refusal::RateLimited => (
                StatusCode::TOO_MANY_REQUESTS,
                json!({"name": "RATE_LIMIT_REACHED", "message": "Too many requests.", "debug_id": "sandbox"}),
            ),
            Refusal::ServerError => (
                StatusCode::INTERNAL_SERVER_ERROR,
                json!({"name": "INTERNAL_SERVER_ERROR", "message": "An internal server error occurred.", "debug_id": "sandbox"}),
            ),
        }
    }

    /// PayPal takes a request id it has seen with another request as a new request.
    fn key_reused() -> Option<Answer> {
        None
    }
}

/// `POST /v2/payments/captures/{id}/refund`.
async fn refund(
    State(sandbox): State<PayPalSandbox>,
    Path(capture): Path<String>,
    headers: HeaderMap,
    Json(request): Json<Value>,
) -> Response {
    let fingerprint = json!({"capture": capture, "body": request});
    let custom_id = request.get("custom_id").and_then(Value::as_str).map(str::to_owned);
    pipeline::create(sandbox, &headers, fingerprint, custom_id.clone(), move |sandbox, key, now| {
        let names: Vec<&str> = key.into_iter().chain(custom_id.as_deref()).collect();
        let outcome = sandbox.account.take_fault(&names, &[FaultKind::Pending]);
        make_refund(sandbox, &capture, &request, key, outcome, now)
    })
    .await
}

/// Checks the request against the capture and the refunds made, and makes the refund.
fn make_refund(
    sandbox: &PayPalSandbox,
    capture: &str,
    request: &Value,
    key: Option<&str>,
    outcome: Option<Fault>,
    now: DateTime<Utc>,
) -> Answer {
    let unprocessable = |issue: &str, message: &str| {
        (
            StatusCode::UNPROCESSABLE_ENTITY,
            json!({"name": "UNPROCESSABLE_ENTITY", "message": "The requested action could not be performed, semantically incorrect, or failed business validation.", "debug_id": "sandbox", "details": [{"issue": issue, "description": message}]}),
        )
    };
    let Some(order) = sandbox.order_of_capture(capture) else {
        return (
            StatusCode::NOT_FOUND,
            json!({"name": "RESOURCE_NOT_FOUND", "message": "The specified resource does not exist.", "debug_id": "sandbox", "details": [{"issue": "INVALID_RESOURCE_ID"}]}),
        );
    };
    let amount = request.get("amount").and_then(|amount| {
        let currency = Currency::parse(amount.get("currency_code")?.as_str()?).ok()?;
        let value = amount.get("value")?.as_str()?;
        let money = Money::parse_major(value, currency).ok()?;
        (paypal_value(money).ok()? == value).then_some(money)
    });
    let Some(amount) = amount.filter(|money| money.minor > 0) else {
        return unprocessable(
            "DECIMAL_PRECISION",
            "The value of the amount is not in the currency's PayPal format.",
        );
    };
    if amount.currency.as_str() != order.currency {
        return unprocessable(
            "REFUND_CURRENCY_MISMATCH",
            "Refund must be in the same currency as the capture.",
        );
    }
    let invoice_id = request.get("invoice_id").and_then(Value::as_str).map(str::to_owned);
    let custom_id = request.get("custom_id").and_then(Value::as_str).map(str::to_owned);
    let mut books = sandbox.account.lock();
    if let Some(invoice) = &invoice_id {
        if books.own.refunds.iter().any(|refund| refund.invoice_id.as_ref() == Some(invoice)) {
            return unprocessable(
                "DUPLICATE_INVOICE_ID",
                "Requested invoice number has been previously used.",
            );
        }
    }
    let refunded: i64 = books
        .own
        .refunds
        .iter()
        .filter(|refund| {
            refund.capture == capture && !matches!(refund.status_at(now), "FAILED" | "CANCELLED")
        })
        .map(|refund| refund.amount.minor)
        .sum();
    if refunded + amount.minor > order.paid_minor() {
        return unprocessable("REFUND_AMOUNT_EXCEEDED", "The refund amount must be less than or equal to the capture amount that has not yet been refunded.");
    }
    let id = format!("{:017X}", 0x1A2B_3C4D_5E6F_u64 + books.next_number() * 7919);
    let (created_status, settles) = match &outcome {
        Some(fault) => {
            let settled = match fault.then.as_deref() {
                Some("succeeded") => Some("COMPLETED"),
                Some("failed") => Some("FAILED"),
                Some("canceled") => Some("CANCELLED"),
                _ => None,
            };
            (
                "PENDING",
                settled.map(|status| {
                    (now + Duration::milliseconds(i64::try_from(fault.ms).unwrap_or(0)), status)
                }),
            )
        }
        None => ("COMPLETED", None),
    };
    let refund = Refund {
        id: id.clone(),
        capture: capture.to_owned(),
        amount,
        invoice_id,
        custom_id: custom_id.clone(),
        created_status,
        settles,
    };
    books.created.push(CreatedObject {
        object_type: "refund".into(),
        id,
        amount: Some(amount.minor),
        currency: Some(amount.currency.as_str().to_owned()),
        idempotency_key: key.map(str::to_owned),
        metadata: custom_id.into_iter().map(|custom| ("custom_id".to_owned(), custom)).collect(),
        created_at: now,
    });
    books.own.refunds.push(refund.clone());
    drop(books);
    if created_status == "COMPLETED" {
        sandbox.announce(&refund, now);
    } else if let Some((at, "COMPLETED")) = refund.settles {
        let (sandbox, refund) = (sandbox.clone(), refund.clone());
        tokio::spawn(async move {
            tokio::time::sleep((at - Utc::now()).to_std().unwrap_or_default()).await;
            sandbox.announce(&refund, Utc::now());
        });
    }
    (StatusCode::CREATED, refund.to_json(now))
}

async fn read_refund(State(sandbox): State<PayPalSandbox>, Path(id): Path<String>) -> Response {
    let found = sandbox.account.lock().own.refunds.iter().find(|refund| refund.id == id).cloned();
    match found {
        Some(refund) => respond((StatusCode::OK, refund.to_json(Utc::now()))),
        None => not_found(),
    }
}

async fn capture(State(sandbox): State<PayPalSandbox>, Path(id): Path<String>) -> Response {
    let Some(order) = sandbox.order_of_capture(&id) else { return not_found() };
    let paid = Currency::parse(&order.currency).map(|currency| Money::new(order.paid_minor(), currency));
    let value = paid.ok().and_then(|money| paypal_value(money).ok()).unwrap_or_default();
    respond((
        StatusCode::OK,
        json!({
            "id": id, "status": "COMPLETED",
            "amount": {"value": value, "currency_code": order.currency},
            "supplementary_data": {"related_ids": {"order_id": paypal_order_id(&order)}},
        }),
    ))
}

async fn paypal_order(State(sandbox): State<PayPalSandbox>, Path(id): Path<String>) -> Response {
    let now = Utc::now();
    let books = sandbox.account.lock();
    let Some(order) = books.orders.values().find(|order| paypal_order_id(order) == id) else {
        return not_found();
    };
    let refunds: Vec<Value> = books
        .own
        .refunds
        .iter()
        .filter(|refund| refund.capture == order.payment_intent)
        .map(|refund| refund.to_json(now))
        .collect();
    respond((
        StatusCode::OK,
        json!({
            "id": id, "status": "COMPLETED",
            "purchase_units": [{"reference_id": order.id, "payments": {"captures": [{"id": order.payment_intent, "status": "COMPLETED"}], "refunds": refunds}}],
        }),
    ))
}

#[derive(Debug, Deserialize)]
struct Verification {
    transmission_id: String,
    transmission_sig: String,
    webhook_id: String,
}

async fn verify(State(sandbox): State<PayPalSandbox>, Json(request): Json<Verification>) -> Response {
    let sent = sandbox.account.lock().own.transmissions.get(&request.transmission_id).cloned();
    let verified = sent.is_some_and(|(webhook, signature)| {
        webhook == request.webhook_id && signature == request.transmission_sig
    });
    respond((StatusCode::OK, json!({"verification_status": if verified { "SUCCESS" } else { "FAILURE" }})))
}

/// `GET /orders/{id}`: the shop's orders endpoint, the client secret as a bearer token.
async fn order(State(sandbox): State<PayPalSandbox>, Path(id): Path<String>, headers: HeaderMap) -> Response {
    shop_order(&sandbox.account, &sandbox.config.client_secret, &id, &headers)
}

#[derive(Debug, Deserialize)]
struct Destination {
    url: String,
    webhook_id: String,
}

async fn set_destination(
    State(sandbox): State<PayPalSandbox>,
    Json(destination): Json<Destination>,
) -> Response {
    sandbox.send_events_to(&destination.url, &destination.webhook_id);
    respond((StatusCode::OK, json!({"url": destination.url})))
}
