//! Stripe's refunds, as the sandbox serves them: payment intents with an amount, refunds that may
//! not exceed it, and idempotency keys whose first result is stored and replayed.

use axum::{
    extract::{Path, Query, State},
    http::{HeaderMap, StatusCode},
    response::Response,
    Form,
};
use chrono::{DateTime, Duration, Utc};
use serde::Deserialize;
use serde_json::{json, Value};
use std::collections::BTreeMap;

use super::faults::request_names;
use super::idempotency::idempotent;
use super::{json_response, stripe_error, CreatedObject, Sandbox};

#[derive(Debug, Clone)]
pub(super) struct PaymentIntent {
    pub amount: i64,
    pub currency: String,
}

#[derive(Debug, Clone)]
pub(super) struct Refund {
    id: String,
    payment_intent: String,
    amount: i64,
    currency: String,
    reason: Option<String>,
    metadata: BTreeMap<String, String>,
    created_at: DateTime<Utc>,
    /// Lookups list the refund only from this time on (the `lookup_lag` fault).
    listed_from: DateTime<Utc>,
}

impl Refund {
    fn to_json(&self) -> Value {
        json!({
            "id": self.id,
            "object": "refund",
            "amount": self.amount,
            "currency": self.currency.to_lowercase(),
            "payment_intent": self.payment_intent,
            "metadata": self.metadata,
            "reason": self.reason,
            "status": "succeeded",
            "created": self.created_at.timestamp(),
        })
    }
}

/// Checks a refund request against the payment intent, and creates the refund.
fn create(
    sandbox: &Sandbox,
    fields: &[(String, String)],
    key: Option<&str>,
    now: DateTime<Utc>,
) -> (StatusCode, Value) {
    let field = |name: &str| fields.iter().find(|(k, _)| k == name).map(|(_, v)| v.clone());
    let Some(payment_intent) = field("payment_intent") else {
        return (
            StatusCode::BAD_REQUEST,
            json!({"error": {"type": "invalid_request_error", "code": "parameter_missing", "param": "payment_intent",
                   "message": "Missing required param: payment_intent."}}),
        );
    };
    let amount = match field("amount").map(|a| a.parse::<i64>()) {
        Some(Ok(amount)) if amount > 0 => amount,
        _ => {
            return (
                StatusCode::BAD_REQUEST,
                json!({"error": {"type": "invalid_request_error", "code": "parameter_invalid_integer", "param": "amount",
                       "message": "amount must be a positive integer in the currency's minor unit."}}),
            )
        }
    };
    let currency = field("currency").map(|c| c.to_uppercase());
    let metadata: BTreeMap<String, String> = fields
        .iter()
        .filter_map(|(k, v)| Some((k.strip_prefix("metadata[")?.strip_suffix(']')?.to_owned(), v.clone())))
        .collect();
    let lag = sandbox.lookup_lag_ms(&request_names(key, fields));
    let mut state = sandbox.lock();
    let Some(intent) = state.payment_intents.get(&payment_intent).cloned() else {
        return (
            StatusCode::BAD_REQUEST,
            json!({"error": {"type": "invalid_request_error", "code": "resource_missing", "param": "payment_intent",
                   "message": format!("No such payment_intent: '{payment_intent}'")}}),
        );
    };
    if currency.as_ref().is_some_and(|currency| *currency != intent.currency) {
        return (
            StatusCode::BAD_REQUEST,
            json!({"error": {"type": "invalid_request_error", "code": "currency_mismatch", "param": "currency",
                   "message": format!("The refund's currency must be the payment's ({}).", intent.currency.to_lowercase())}}),
        );
    }
    let refunded: i64 =
        state.refunds.iter().filter(|r| r.payment_intent == payment_intent).map(|r| r.amount).sum();
    if refunded + amount > intent.amount {
        return (
            StatusCode::BAD_REQUEST,
            json!({"error": {"type": "invalid_request_error", "code": "amount_too_large", "param": "amount",
                   "message": format!("Refund amount ({amount}) is greater than what remains to refund ({}).", intent.amount - refunded)}}),
        );
    }
    let refund = Refund {
        id: state.new_id("re"),
        payment_intent,
        amount,
        currency: intent.currency.clone(),
        reason: field("reason"),
        metadata: metadata.clone(),
        created_at: now,
        listed_from: now + Duration::milliseconds(i64::try_from(lag).unwrap_or(i64::MAX / 2)),
    };
    let body = refund.to_json();
    state.created.push(CreatedObject {
        object_type: "refund".into(),
        id: refund.id.clone(),
        amount: Some(amount),
        currency: Some(intent.currency),
        idempotency_key: key.map(str::to_owned),
        metadata,
        created_at: now,
    });
    state.refunds.push(refund);
    (StatusCode::OK, body)
}

/// `POST /v1/refunds`.
pub(super) async fn create_refund(
    State(sandbox): State<Sandbox>,
    headers: HeaderMap,
    Form(fields): Form<Vec<(String, String)>>,
) -> Response {
    idempotent(&sandbox, "/v1/refunds", &headers, fields, create).await
}

#[derive(Debug, Deserialize)]
pub(super) struct ListQuery {
    payment_intent: Option<String>,
    limit: Option<usize>,
    /// The id of the last refund of the previous page.
    starting_after: Option<String>,
}

/// `GET /v1/refunds?payment_intent=…`: newest first, `limit` at a time (at most 100), the next
/// page `starting_after` the last id with `has_more` saying whether there is one; consistent
/// except under `lookup_lag`.
pub(super) async fn list_refunds(State(sandbox): State<Sandbox>, Query(query): Query<ListQuery>) -> Response {
    let limit = query.limit.unwrap_or(10).clamp(1, 100);
    let now = Utc::now();
    let state = sandbox.lock();
    let listed: Vec<&Refund> = state
        .refunds
        .iter()
        .rev()
        .filter(|r| query.payment_intent.as_ref().is_none_or(|pi| &r.payment_intent == pi))
        .filter(|r| r.listed_from <= now)
        .collect();
    let start = match &query.starting_after {
        Some(id) => match listed.iter().position(|r| &r.id == id) {
            Some(position) => position + 1,
            None => {
                return stripe_error(
                    StatusCode::BAD_REQUEST,
                    "invalid_request_error",
                    Some("resource_missing"),
                    &format!("No such refund: '{id}'"),
                )
            }
        },
        None => 0,
    };
    let page: Vec<Value> = listed.iter().skip(start).take(limit).map(|r| r.to_json()).collect();
    let has_more = listed.len() > start + page.len();
    json_response(
        StatusCode::OK,
        json!({"object": "list", "url": "/v1/refunds", "has_more": has_more, "data": page}),
    )
}

/// `GET /v1/payment_intents/{id}`: the payment, as much of it as a refund is checked against.
pub(super) async fn retrieve_payment_intent(
    State(sandbox): State<Sandbox>,
    Path(id): Path<String>,
) -> Response {
    let state = sandbox.lock();
    match state.payment_intents.get(&id) {
        Some(intent) => json_response(
            StatusCode::OK,
            json!({"id": id, "object": "payment_intent", "amount": intent.amount, "amount_received": intent.amount,
                   "currency": intent.currency.to_lowercase(), "status": "succeeded"}),
        ),
        None => stripe_error(
            StatusCode::NOT_FOUND,
            "invalid_request_error",
            Some("resource_missing"),
            &format!("No such payment_intent: '{id}'"),
        ),
    }
}

/// `GET /v1/refunds/{id}`.
pub(super) async fn retrieve_refund(State(sandbox): State<Sandbox>, Path(id): Path<String>) -> Response {
    let state = sandbox.lock();
    match state.refunds.iter().find(|r| r.id == id) {
        Some(refund) => json_response(StatusCode::OK, refund.to_json()),
        None => stripe_error(
            StatusCode::NOT_FOUND,
            "invalid_request_error",
            Some("resource_missing"),
            &format!("No such refund: '{id}'"),
        ),
    }
}
