//! A sandbox account, and what a provider is to the parts every sandbox shares. An [`Account`] keeps
//! what all of them keep the same way (the faults set, the answers remembered by key, the objects
//! really created, the shop's orders and a counter for new ids) beside what only its provider
//! keeps; a [`Provider`] says how its sandbox checks a key and spells a refusal, so that the keyed
//! pipeline ([`super::pipeline`]) and the control API ([`super::control`]) serve every provider.

use axum::{
    http::{header::AUTHORIZATION, HeaderMap, StatusCode},
    response::{IntoResponse, Response},
    Json,
};
use chrono::{DateTime, Duration, Utc};
use serde::Serialize;
use serde_json::json;
use std::collections::BTreeMap;
use std::sync::{Arc, Mutex, MutexGuard};

use super::faults::{lookup_lag_ms, take, Fault, FaultKind};
use super::keyed::{Answer, KeyedAnswers};
use crate::server::providers::orders::Order;

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

/// What an account holds: the parts every sandbox keeps, and `own`, what only its provider keeps.
#[derive(Debug, Default)]
pub(super) struct Books<Own> {
    pub faults: Vec<Fault>,
    pub keyed: KeyedAnswers,
    pub created: Vec<CreatedObject>,
    /// The shop's orders, by id.
    pub orders: BTreeMap<String, Order>,
    next_id: u64,
    pub own: Own,
}

impl<Own> Books<Own> {
    /// A number no earlier call returned, for the provider to shape into an id.
    pub fn next_number(&mut self) -> u64 {
        self.next_id += 1;
        self.next_id
    }

    /// The order paid by the payment `payment` (a payment intent, a pspReference, a capture).
    pub fn order_paid_by(&self, payment: &str) -> Option<&Order> {
        self.orders.values().find(|order| order.payment_intent == payment)
    }
}

/// A sandbox account's state, shared by its handlers.
#[derive(Debug)]
pub(super) struct Account<Own> {
    books: Arc<Mutex<Books<Own>>>,
    /// How long an idempotency key is remembered.
    pub key_retention: Duration,
}

impl<Own> Clone for Account<Own> {
    fn clone(&self) -> Self {
        Self { books: Arc::clone(&self.books), key_retention: self.key_retention }
    }
}

impl<Own: Default> Account<Own> {
    /// An account holding `orders`, remembering idempotency keys for `key_retention`.
    pub fn new(orders: impl IntoIterator<Item = Order>, key_retention: Duration) -> Self {
        let books = Books {
            orders: orders.into_iter().map(|order| (order.id.clone(), order)).collect(),
            ..Books::default()
        };
        Self { books: Arc::new(Mutex::new(books)), key_retention }
    }
}

impl<Own> Account<Own> {
    pub fn lock(&self) -> MutexGuard<'_, Books<Own>> {
        self.books.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// Sets a fault, as `POST …/_sandbox/faults` does.
    pub fn inject(&self, fault: Fault) {
        self.lock().faults.push(fault);
    }

    /// Every object really created, oldest first.
    pub fn created_objects(&self) -> Vec<CreatedObject> {
        self.lock().created.clone()
    }

    /// Takes one use of the first fault of `kinds` whose pattern matches one of `names`.
    pub fn take_fault(&self, names: &[&str], kinds: &[FaultKind]) -> Option<Fault> {
        take(&mut self.lock().faults, names, kinds)
    }

    /// The lag set for one of `names`, without using the fault up (a lag applies to every lookup).
    pub fn lookup_lag_ms(&self, names: &[&str]) -> u64 {
        lookup_lag_ms(&self.lock().faults, names)
    }
}

/// A refusal every provider spells in its own words.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Refusal {
    /// The request does not carry the account's key.
    Unauthorized,
    /// The key's first request is still being handled.
    KeyInUse,
    /// Too many requests (the `rate_limit` fault).
    RateLimited,
    /// The provider failed (the `error_500_*` faults, or a request that could not be finished).
    ServerError,
}

/// What a sandbox provider is to the parts all of them share.
pub(super) trait Provider: Clone + Send + Sync + 'static {
    /// What only this provider keeps in its account.
    type Own: Send + 'static;
    /// Where its control API lives (`/_sandbox`, or `/v1/_sandbox` beside Stripe's `/v1`).
    const CONTROL: &'static str;
    /// The header a creating request's idempotency key comes in.
    const KEY_HEADER: &'static str;
    /// The faults it acts on beside those every sandbox acts on around the work
    /// ([`super::pipeline::AROUND_THE_WORK`]); the control API refuses others.
    const OUTCOMES: &'static [FaultKind];
    /// Whether a 5xx it answered under a key is what the key answers from then on (Stripe replays
    /// it), rather than what the request came to (PayPal).
    const REPLAYS_5XX: bool;
    /// The header that marks an answer replayed for its key, where the provider sends one.
    const REPLAY_HEADER: Option<&'static str> = None;
    /// The `Retry-After` it sends with a 429, where it sends one.
    const RETRY_AFTER: Option<&'static str> = None;

    fn account(&self) -> &Account<Self::Own>;
    /// Whether `headers` carry the account's key.
    fn authorized(&self, headers: &HeaderMap) -> bool;
    /// How it answers `refusal`.
    fn refused(refusal: Refusal) -> Answer;
    /// What a remembered key sent with another request gets, or `None` when the provider takes
    /// the request as new (PayPal).
    fn key_reused() -> Option<Answer>;
    /// Why `key` is refused before anything is done, when the provider limits keys.
    fn key_refused(_key: &str) -> Option<Answer> {
        None
    }
}

/// An answer as a response.
pub(super) fn respond((status, body): Answer) -> Response {
    (status, Json(body)).into_response()
}

/// The bearer token `headers` carry.
pub(super) fn bearer_token(headers: &HeaderMap) -> Option<&str> {
    headers.get(AUTHORIZATION).and_then(|value| value.to_str().ok())?.strip_prefix("Bearer ")
}

/// Whether `headers` carry `key` as a bearer token.
pub(super) fn bearer_is(headers: &HeaderMap, key: &str) -> bool {
    bearer_token(headers) == Some(key)
}

/// `GET /orders/{id}`: the shop's own orders endpoint beside an Adyen or PayPal account, read with
/// the account's `shop_key` as a bearer token.
pub(super) fn shop_order<Own>(
    account: &Account<Own>,
    shop_key: &str,
    id: &str,
    headers: &HeaderMap,
) -> Response {
    if !bearer_is(headers, shop_key) {
        return respond((StatusCode::UNAUTHORIZED, json!({"error": "unauthorized"})));
    }
    match account.lock().orders.get(id) {
        Some(order) => respond((
            StatusCode::OK,
            json!({
                "id": order.id, "currency": order.currency, "payment": order.payment_intent,
                "line_items": order.line_items, "customer_email": order.customer_email,
            }),
        )),
        None => respond((StatusCode::NOT_FOUND, json!({"error": "no such order"}))),
    }
}
