//! The Stripe sandbox: the subset of Stripe's refunds API that opledger's connector speaks, plus
//! an after-sale ticket and a pickup service in the same style. The refunds part
//! (form-encoded `POST /v1/refunds` under an `Idempotency-Key`, `GET /v1/refunds?payment_intent=`,
//! `GET /v1/refunds/{id}`, see [`refunds`]) has Stripe's idempotency semantics: the first result
//! of a key is replayed (a 500 included) with `Idempotent-Replayed: true`; the same key with other
//! parameters is an `idempotency_error`; a second request while the first still runs is a 409
//! `idempotency_key_in_use`; keys are forgotten after a retention. Beside it: fault injection per
//! key or op id (`metadata[op_id]`) pattern, a shop whose orders are read through Stripe's payment
//! intent search and Checkout line items or its own orders endpoint (see [`orders`]), a truth
//! ledger of every object really created, Stripe events about its refunds (see [`events`]), and a
//! webhook receiver for the ledger's own webhooks (see [`receiver`]). Everything but posting to
//! the receiver needs the secret key.

mod events;
pub mod orders;
mod receiver;
mod refunds;
mod services;

use axum::{
    http::{HeaderMap, StatusCode},
    response::Response,
    routing::{get, post},
    Router,
};
use chrono::{DateTime, Duration, Utc};
use serde_json::json;
use std::sync::Arc;

pub use events::SentEvent;
pub use receiver::ReceivedWebhook;

use super::account::{bearer_is, respond, Account, Books, CreatedObject, Provider, Refusal};
use super::control;
use super::faults::{Fault, FaultKind};
use super::keyed::Answer;
use super::pipeline;
use crate::server::providers::orders::Order;
use refunds::Refund;

/// How the sandbox is set up.
#[derive(Debug, Clone)]
pub struct SandboxConfig {
    /// The secret key callers must send as `Authorization: Bearer <key>`.
    pub secret_key: String,
    /// How long an idempotency key is remembered (Stripe: at least 24 hours).
    pub key_retention: Duration,
}

impl Default for SandboxConfig {
    fn default() -> Self {
        Self { secret_key: "sk_test_sandbox".into(), key_retention: Duration::hours(24) }
    }
}

/// A new secret key for a sandbox account (`sk_test_` and 32 hexadecimal digits), so that an account
/// mounted on the console's own origin answers no well-known key.
pub fn new_secret_key() -> String {
    format!("sk_test_{}", uuid::Uuid::new_v4().simple())
}

/// What only a Stripe account keeps.
#[derive(Debug, Default)]
pub(super) struct StripeObjects {
    refunds: Vec<Refund>,
    tickets: Vec<services::Ticket>,
    pickups: Vec<services::Pickup>,
    webhooks: receiver::Receiver,
    /// Where the sandbox posts its own Stripe events, once set.
    event_destination: Option<events::EventDestination>,
    sent_events: Vec<events::SentEvent>,
}

impl Books<StripeObjects> {
    /// A new id with Stripe's `prefix` (`re`, `evt`, …).
    fn new_id(&mut self, prefix: &str) -> String {
        let n = self.next_number();
        format!("{prefix}_{:06x}{:04}", n * 7919, n % 10_000)
    }
}

/// A running Stripe sandbox account.
#[derive(Clone)]
pub struct Sandbox {
    config: Arc<SandboxConfig>,
    account: Account<StripeObjects>,
}

impl Sandbox {
    /// A sandbox account with no orders yet (add them with [`Sandbox::add_order`] or
    /// `POST /v1/_sandbox/orders`).
    pub fn empty(config: SandboxConfig) -> Self {
        Self { account: Account::new([], config.key_retention), config: Arc::new(config) }
    }

    /// A sandbox whose shop holds the demo's orders (1043 paid TWD 1,580.00 by `pi_1043`, A1042
    /// paid CNY 300.00 by `pi_A1042`, and more), each with its payment and Checkout session.
    pub fn seeded(config: SandboxConfig) -> Self {
        Self { account: Account::new(orders::demo_orders(), config.key_retention), config: Arc::new(config) }
    }

    /// The shop's order `id`.
    pub fn order(&self, id: &str) -> Option<Order> {
        self.account.lock().orders.get(id).cloned()
    }

    /// Adds `order` to the shop: its payment intent is paid in full and it has a Checkout session.
    pub fn add_order(&self, order: Order) {
        self.account.lock().orders.insert(order.id.clone(), order);
    }

    /// Sets a fault, as `POST /v1/_sandbox/faults` does.
    pub fn inject(&self, fault: Fault) {
        self.account.inject(fault);
    }

    /// Every object really created, oldest first.
    pub fn created_objects(&self) -> Vec<CreatedObject> {
        self.account.created_objects()
    }

    /// The HTTP surface: the Stripe subset under `/v1`, and the control API under `/v1/_sandbox`;
    /// all of it needs the secret key but the webhook receiver's `POST`.
    pub fn router(&self) -> Router {
        let guarded = Router::new()
            .route("/v1/refunds", post(refunds::create_refund).get(refunds::list_refunds))
            .route("/v1/refunds/{id}", get(refunds::retrieve_refund))
            .route("/v1/aftersale_tickets", post(services::create_ticket).get(services::list_tickets))
            .route("/v1/aftersale_tickets/{id}", get(services::retrieve_ticket))
            .route("/v1/aftersale_tickets/{id}/cancel", post(services::cancel))
            .route("/v1/pickups", post(services::create_pickup).get(services::list_pickups))
            .route("/v1/payment_intents/search", get(orders::search_payment_intents))
            .route("/v1/payment_intents/{id}", get(refunds::retrieve_payment_intent))
            .route("/v1/checkout/sessions", get(orders::list_checkout_sessions))
            .route("/v1/checkout/sessions/{id}/line_items", get(orders::list_line_items))
            .route("/v1/orders/{id}", get(orders::retrieve_order))
            .route("/v1/_sandbox/orders", post(control::add_order::<Sandbox>))
            .route("/v1/_sandbox/webhooks", get(receiver::list))
            .route("/v1/_sandbox/webhooks/failures", post(receiver::ask_failures))
            .route("/v1/_sandbox/event_destination", post(events::set_destination))
            .route("/v1/_sandbox/events", get(events::list));
        control::guarded(self, guarded)
            .route("/v1/_sandbox/webhooks", post(receiver::receive))
            .with_state(self.clone())
    }
}

impl Provider for Sandbox {
    type Own = StripeObjects;
    const CONTROL: &'static str = "/v1/_sandbox";
    const KEY_HEADER: &'static str = "idempotency-key";
    const OUTCOMES: &'static [FaultKind] =
        &[FaultKind::BusinessReject, FaultKind::LookupLag, FaultKind::Pending, FaultKind::RequiresAction];
    const REPLAYS_5XX: bool = true;
    const REPLAY_HEADER: Option<&'static str> = Some("idempotent-replayed");
    const RETRY_AFTER: Option<&'static str> = Some("1");

    fn account(&self) -> &Account<StripeObjects> {
        &self.account
    }

    fn authorized(&self, headers: &HeaderMap) -> bool {
        bearer_is(headers, &self.config.secret_key)
    }

    fn refused(refusal: Refusal) -> Answer {
        match refusal {
            Refusal::Unauthorized => error_answer(
                StatusCode::UNAUTHORIZED,
                "invalid_request_error",
                Some("api_key_invalid"),
                "Invalid API Key provided.",
            ),
            Refusal::KeyInUse => error_answer(
                StatusCode::CONFLICT,
                "idempotency_error",
                Some("idempotency_key_in_use"),
                "There is currently another in-progress request using this idempotency key. Try again later.",
            ),
            Refusal::RateLimited => error_answer(
                StatusCode::TOO_MANY_REQUESTS,
                "rate_limit_error",
                Some("rate_limit"),
                "Too many requests hit the API too quickly.",
            ),
            Refusal::ServerError => (
                StatusCode::INTERNAL_SERVER_ERROR,
                json!({"error": {"type": "api_error", "message": "An unknown error occurred while processing the request."}}),
            ),
        }
    }

    fn key_reused() -> Option<Answer> {
        Some(error_answer(
            StatusCode::BAD_REQUEST,
            "idempotency_error",
            None,
            "Keys for idempotent requests can only be used with the same parameters they were first used with.",
        ))
    }
}

/// Runs a creating request to `path` with the form `fields` as Stripe would: under its
/// `Idempotency-Key`, with the faults set for the key or the op id in its metadata, a
/// `business_reject` fault declining it; `work` makes what it creates.
async fn create(
    sandbox: Sandbox,
    path: &str,
    headers: &HeaderMap,
    fields: Vec<(String, String)>,
    work: impl FnOnce(&Sandbox, &[(String, String)], Option<&str>, DateTime<Utc>) -> Answer + Send + 'static,
) -> Response {
    let mut sorted = fields.clone();
    sorted.sort();
    let request = json!(format!("{path}?{}", serde_urlencoded::to_string(&sorted).unwrap_or_default()));
    let op_id = op_id(&fields).map(str::to_owned);
    pipeline::create(sandbox, headers, request, op_id, move |sandbox, key, now| {
        let names = request_names(key, &fields);
        if sandbox.account.take_fault(&names, &[FaultKind::BusinessReject]).is_some() {
            return error_answer(
                StatusCode::PAYMENT_REQUIRED,
                "invalid_request_error",
                Some("refund_declined"),
                "The refund was declined by the payment method.",
            );
        }
        work(sandbox, &fields, key, now)
    })
    .await
}

/// The op id a request carries in its metadata.
fn op_id(fields: &[(String, String)]) -> Option<&str> {
    fields.iter().find(|(name, _)| name == "metadata[op_id]").map(|(_, value)| value.as_str())
}

/// The names a fault's pattern is matched against: the request's idempotency key and the op id
/// in its metadata.
fn request_names<'a>(key: Option<&'a str>, fields: &'a [(String, String)]) -> Vec<&'a str> {
    key.into_iter().chain(op_id(fields)).collect()
}

/// A Stripe-shaped error.
fn error_answer(status: StatusCode, error_type: &str, code: Option<&str>, message: &str) -> Answer {
    (status, json!({"error": {"type": error_type, "code": code, "message": message}}))
}

/// A JSON answer with `status`.
fn json_response(status: StatusCode, body: serde_json::Value) -> Response {
    respond((status, body))
}

/// A Stripe-shaped error answer.
fn stripe_error(status: StatusCode, error_type: &str, code: Option<&str>, message: &str) -> Response {
    respond(error_answer(status, error_type, code, message))
}
