//! Stripe's refunds, as the sandbox serves them: payment intents with an amount, refunds that may
//! not exceed what is left of it (refunds that failed or were cancelled hold nothing back), and
//! idempotency keys whose first result is stored and replayed. A refund is `succeeded` at once,
//! unless a `pending` fault matches it: then it is created `pending` and settles after the fault's
//! `ms` to its `then` status (`succeeded`, `failed` with a `failure_reason`, or `canceled`; it
//! stays pending without one), or a `requires_action` fault, which it keeps. Its status is read
//! at the time it is asked for, and each change is announced as Stripe would (see [`events`]).
//!
//! [`events`]: super::events

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

use super::super::faults::{settled_status, FaultKind};
use super::{create, json_response, request_names, stripe_error, Answer, CreatedObject, Sandbox};

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
    /// Its status when it was created: `succeeded`, `pending` or `requires_action`.
    created_status: &'static str,
    /// When a pending refund settles, and to what.
    settles: Option<Settlement>,
}

/// A pending refund's settling: at `at`, to `status` (`succeeded`, `failed` or `canceled`).
#[derive(Debug, Clone)]
struct Settlement {
    at: DateTime<Utc>,
    status: &'static str,
    failure_reason: Option<String>,
}

impl Refund {
    /// Its status at `now`, and the reason it failed, if it did.
    fn status_at(&self, now: DateTime<Utc>) -> (&'static str, Option<&str>) {
        match &self.settles {
            Some(settled) if settled.at <= now => (settled.status, settled.failure_reason.as_deref()),
            _ => (self.created_status, None),
        }
    }

    /// Whether it holds money back from its payment at `now`: every refund but a failed or
    /// cancelled one, as Stripe counts what is left to refund.
    fn holds_money(&self, now: DateTime<Utc>) -> bool {
        !matches!(self.status_at(now).0, "failed" | "canceled")
    }

    fn to_json(&self, now: DateTime<Utc>) -> Value {
        let (status, failure_reason) = self.status_at(now);
        let mut refund = json!({
            "id": self.id,
            "object": "refund",
            "amount": self.amount,
            "currency": self.currency.to_lowercase(),
            "payment_intent": self.payment_intent,
            "metadata": self.metadata,
            "reason": self.reason,
            "status": status,
            "created": self.created_at.timestamp(),
        });
        if let Some(reason) = failure_reason {
            refund["failure_reason"] = json!(reason);
        }
        refund
    }
}

/// Checks a refund request against the payment intent, and creates the refund.
fn make_refund(
    sandbox: &Sandbox,
    fields: &[(String, String)],
    key: Option<&str>,
    now: DateTime<Utc>,
) -> Answer {
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
    let names = request_names(key, fields);
    let lag = sandbox.account.lookup_lag_ms(&names);
    let outcome = sandbox.account.take_fault(&names, &[FaultKind::Pending, FaultKind::RequiresAction]);
    let mut state = sandbox.account.lock();
    let Some((paid, paid_currency)) =
        state.order_paid_by(&payment_intent).map(|order| (order.paid_minor(), order.currency.clone()))
    else {
        return (
            StatusCode::BAD_REQUEST,
            json!({"error": {"type": "invalid_request_error", "code": "resource_missing", "param": "payment_intent",
                   "message": format!("No such payment_intent: '{payment_intent}'")}}),
        );
    };
    if currency.as_ref().is_some_and(|currency| *currency != paid_currency) {
        return (
            StatusCode::BAD_REQUEST,
            json!({"error": {"type": "invalid_request_error", "code": "currency_mismatch", "param": "currency",
                   "message": format!("The refund's currency must be the payment's ({}).", paid_currency.to_lowercase())}}),
        );
    }
    let refunded: i64 = state
        .own
        .refunds
        .iter()
        .filter(|r| r.payment_intent == payment_intent && r.holds_money(now))
        .map(|r| r.amount)
        .sum();
    if refunded + amount > paid {
        return (
            StatusCode::BAD_REQUEST,
            json!({"error": {"type": "invalid_request_error", "code": "amount_too_large", "param": "amount",
                   "message": format!("Refund amount ({amount}) is greater than what remains to refund ({}).", paid - refunded)}}),
        );
    }
    let (created_status, settles) = match &outcome {
        Some(fault) if fault.fault == FaultKind::RequiresAction => ("requires_action", None),
        Some(fault) => {
            let settles = settled_status(fault.then.as_deref()).ok().flatten().map(|status| Settlement {
                at: now + Duration::milliseconds(i64::try_from(fault.ms).unwrap_or(i64::MAX / 2)),
                status,
                failure_reason: (status == "failed")
                    .then(|| fault.failure_reason.clone().unwrap_or_else(|| "unknown".to_owned())),
            });
            ("pending", settles)
        }
        None => ("succeeded", None),
    };
    let refund = Refund {
        id: state.new_id("re"),
        payment_intent,
        amount,
        currency: paid_currency.clone(),
        reason: field("reason"),
        metadata: metadata.clone(),
        created_at: now,
        listed_from: now + Duration::milliseconds(i64::try_from(lag).unwrap_or(i64::MAX / 2)),
        created_status,
        settles,
    };
    let body = refund.to_json(now);
    state.created.push(CreatedObject {
        object_type: "refund".into(),
        id: refund.id.clone(),
        amount: Some(amount),
        currency: Some(paid_currency),
        idempotency_key: key.map(str::to_owned),
        metadata,
        created_at: now,
    });
    let settles = refund.settles.clone().map(|settled| (settled, refund.clone()));
    state.own.refunds.push(refund);
    drop(state);
    sandbox.announce("refund.created", body.clone(), None);
    if let Some((settled, refund)) = settles {
        let sandbox = sandbox.clone();
        tokio::spawn(async move {
            let wait = (settled.at - Utc::now()).to_std().unwrap_or_default();
            tokio::time::sleep(wait).await;
            let now = Utc::now();
            let previous = Some(json!({"status": refund.created_status}));
            sandbox.announce("refund.updated", refund.to_json(now), previous.clone());
            if settled.status == "failed" {
                sandbox.announce("refund.failed", refund.to_json(now), previous);
            }
        });
    }
    (StatusCode::OK, body)
}

/// `POST /v1/refunds`.
pub(super) async fn create_refund(
    State(sandbox): State<Sandbox>,
    headers: HeaderMap,
    Form(fields): Form<Vec<(String, String)>>,
) -> Response {
    create(sandbox, "/v1/refunds", &headers, fields, make_refund).await
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
    let state = sandbox.account.lock();
    let listed: Vec<&Refund> = state
        .own
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
    let page: Vec<Value> = listed.iter().skip(start).take(limit).map(|r| r.to_json(now)).collect();
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
    let state = sandbox.account.lock();
    match state.order_paid_by(&id) {
        Some(order) => json_response(
            StatusCode::OK,
            json!({"id": id, "object": "payment_intent", "amount": order.paid_minor(), "amount_received": order.paid_minor(),
                   "currency": order.currency.to_lowercase(), "status": "succeeded"}),
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
    let state = sandbox.account.lock();
    match state.own.refunds.iter().find(|r| r.id == id) {
        Some(refund) => json_response(StatusCode::OK, refund.to_json(Utc::now())),
        None => stripe_error(
            StatusCode::NOT_FOUND,
            "invalid_request_error",
            Some("resource_missing"),
            &format!("No such refund: '{id}'"),
        ),
    }
}
