//! The sandbox provider: the subset of Stripe's refunds API that opledger's connector speaks, plus
//! an after-sale ticket and a pickup service in the same style. The refunds part:
//! (form-encoded `POST /v1/refunds` under an `Idempotency-Key`, `GET /v1/refunds?payment_intent=`,
//! `GET /v1/refunds/{id}`), with Stripe's idempotency semantics (the first result of a key is
//! replayed, a 500 included; the same key with other parameters is an `idempotency_error`; keys
//! are forgotten after a retention), fault injection per key or op id pattern, a shop whose orders
//! are read through Stripe's payment intent search and Checkout line items or its own orders
//! endpoint (see [`orders`]), a truth ledger of every object really created, and a webhook receiver
//! (see [`webhooks`]). It makes the demo
//! and the tests real with no account anywhere; two sandboxes are two accounts.

pub mod adyen;
mod events;
mod faults;
mod idempotency;
mod keyed;
pub mod mail;
pub mod orders;
mod payments;
pub mod paypal;
mod services;
mod webhooks;

use axum::{
    extract::{Request, State},
    http::{header::AUTHORIZATION, StatusCode},
    middleware::{self, Next},
    response::{IntoResponse, Response},
    routing::{get, post},
    Json, Router,
};
use chrono::{DateTime, Duration, Utc};
use serde::Serialize;
use serde_json::{json, Value};
use std::collections::BTreeMap;
use std::sync::{Arc, Mutex, MutexGuard};

pub use events::SentEvent;
pub use faults::{Fault, FaultKind};
pub use webhooks::ReceivedWebhook;

use crate::server::providers::orders::Order;
use idempotency::IdempotentResult;
use payments::{PaymentIntent, Refund};

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

/// One object the sandbox really created: what tests and people count effects with.
#[derive(Debug, Clone, Serialize, PartialEq, Eq)]
pub struct CreatedObject {
    #[serde(rename = "type")]
    pub object_type: String,
    pub id: String,
    pub amount: Option<i64>,
    pub currency: Option<String>,
    pub idempotency_key: Option<String>,
    pub metadata: BTreeMap<String, String>,
    pub created_at: DateTime<Utc>,
}

#[derive(Debug, Default)]
struct SandboxState {
    payment_intents: BTreeMap<String, PaymentIntent>,
    /// The shop's orders, by id.
    orders: BTreeMap<String, Order>,
    refunds: Vec<Refund>,
    tickets: Vec<services::Ticket>,
    pickups: Vec<services::Pickup>,
    idempotency: BTreeMap<String, IdempotentResult>,
    /// Keys whose first request is still running.
    keys_in_use: std::collections::BTreeSet<String>,
    faults: Vec<Fault>,
    created: Vec<CreatedObject>,
    webhooks: webhooks::Receiver,
    /// Where the sandbox posts its own Stripe events, once set.
    event_destination: Option<events::EventDestination>,
    sent_events: Vec<events::SentEvent>,
    next_id: u64,
}

impl SandboxState {
    fn new_id(&mut self, prefix: &str) -> String {
        self.next_id += 1;
        format!("{prefix}_{:06x}{:04}", self.next_id * 7919, self.next_id % 10_000)
    }
}

/// A running sandbox's state, shared by its handlers.
#[derive(Clone)]
pub struct Sandbox {
    config: Arc<SandboxConfig>,
    state: Arc<Mutex<SandboxState>>,
}

impl Sandbox {
    /// A sandbox account with no orders yet (add them with [`Sandbox::add_order`] or
    /// `POST /v1/_sandbox/orders`).
    pub fn empty(config: SandboxConfig) -> Self {
        Self { config: Arc::new(config), state: Arc::default() }
    }

    /// A sandbox whose shop holds the demo's orders (1043 paid TWD 1,580.00 by `pi_1043`, A1042
    /// paid CNY 300.00 by `pi_A1042`, and more), each with its payment and Checkout session.
    pub fn seeded(config: SandboxConfig) -> Self {
        let sandbox = Sandbox::empty(config);
        for order in orders::demo_orders() {
            sandbox.add_order(order);
        }
        sandbox
    }

    /// The shop's order `id`.
    pub fn order(&self, id: &str) -> Option<Order> {
        self.lock().orders.get(id).cloned()
    }

    fn lock(&self) -> MutexGuard<'_, SandboxState> {
        self.state.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// Sets a fault, as `POST /v1/_sandbox/faults` does.
    pub fn inject(&self, fault: Fault) {
        self.lock().faults.push(fault);
    }

    /// Every object really created, oldest first.
    pub fn created_objects(&self) -> Vec<CreatedObject> {
        self.lock().created.clone()
    }

    /// The HTTP surface: the Stripe subset under `/v1`, and the control API under `/v1/_sandbox`;
    /// all of it needs the secret key but the webhook receiver's `POST`.
    pub fn router(&self) -> Router {
        Router::new()
            .route("/v1/refunds", post(payments::create_refund).get(payments::list_refunds))
            .route("/v1/refunds/{id}", get(payments::retrieve_refund))
            .route("/v1/aftersale_tickets", post(services::create_ticket).get(services::list_tickets))
            .route("/v1/aftersale_tickets/{id}", get(services::retrieve_ticket))
            .route("/v1/aftersale_tickets/{id}/cancel", post(services::cancel))
            .route("/v1/pickups", post(services::create_pickup).get(services::list_pickups))
            .route("/v1/payment_intents/search", get(orders::search_payment_intents))
            .route("/v1/payment_intents/{id}", get(payments::retrieve_payment_intent))
            .route("/v1/checkout/sessions", get(orders::list_checkout_sessions))
            .route("/v1/checkout/sessions/{id}/line_items", get(orders::list_line_items))
            .route("/v1/orders/{id}", get(orders::retrieve_order))
            .route("/v1/_sandbox/orders", post(orders::add_order))
            .route("/v1/_sandbox/faults", post(faults::add_fault).delete(faults::clear_faults))
            .route("/v1/_sandbox/ledger", get(ledger))
            .route("/v1/_sandbox/webhooks", get(webhooks::list))
            .route("/v1/_sandbox/webhooks/failures", post(webhooks::ask_failures))
            .route("/v1/_sandbox/event_destination", post(events::set_destination))
            .route("/v1/_sandbox/events", get(events::list))
            .layer(middleware::from_fn_with_state(self.clone(), require_secret_key))
            .route("/v1/_sandbox/webhooks", post(webhooks::receive))
            .with_state(self.clone())
    }
}

/// A JSON answer with `status`.
pub(crate) fn json_response(status: StatusCode, body: Value) -> Response {
    (status, Json(body)).into_response()
}

/// A Stripe-shaped error answer.
pub(crate) fn stripe_error(
    status: StatusCode,
    error_type: &str,
    code: Option<&str>,
    message: &str,
) -> Response {
    (status, Json(json!({"error": {"type": error_type, "code": code, "message": message}}))).into_response()
}

async fn require_secret_key(State(sandbox): State<Sandbox>, request: Request, next: Next) -> Response {
    let expected = format!("Bearer {}", sandbox.config.secret_key);
    let authorized =
        request.headers().get(AUTHORIZATION).and_then(|v| v.to_str().ok()) == Some(expected.as_str());
    if !authorized {
        return stripe_error(
            StatusCode::UNAUTHORIZED,
            "invalid_request_error",
            Some("api_key_invalid"),
            "Invalid API Key provided.",
        );
    }
    next.run(request).await
}

async fn ledger(State(sandbox): State<Sandbox>) -> Json<Value> {
    Json(json!({"object": "list", "data": sandbox.created_objects()}))
}
