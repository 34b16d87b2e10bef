//! The control API every sandbox serves under its `_sandbox` path, behind one check of the
//! account's key: `POST …/_sandbox/faults` sets a fault (answered `201` with
//! `{"match", "fault", "times", "ms"}`, or `400` with `{"error": {"message"}}` for a fault the
//! sandbox does not act on), `DELETE …/_sandbox/faults` clears them, `GET …/_sandbox/ledger` lists
//! every object really created, and `POST …/_sandbox/orders` adds an order to a sandbox's shop. A
//! call without the key is refused as the provider refuses one.

use axum::{
    extract::{Request, State},
    http::StatusCode,
    middleware::{self, Next},
    response::Response,
    routing::{get, post},
    Json, Router,
};
use serde_json::json;

use super::account::{respond, Provider, Refusal};
use super::faults::{check, Fault};
use super::pipeline::AROUND_THE_WORK;
use crate::server::providers::orders::Order;

/// `routes` (the provider's own routes that need its key) with the control API beside them, all
/// behind the key check.
pub(super) fn guarded<P: Provider>(sandbox: &P, routes: Router<P>) -> Router<P> {
    routes
        .route(&format!("{}/faults", P::CONTROL), post(add_fault::<P>).delete(clear_faults::<P>))
        .route(&format!("{}/ledger", P::CONTROL), get(ledger::<P>))
        .layer(middleware::from_fn_with_state(sandbox.clone(), require_key::<P>))
}

async fn require_key<P: Provider>(State(sandbox): State<P>, request: Request, next: Next) -> Response {
    if !sandbox.authorized(request.headers()) {
        return respond(P::refused(Refusal::Unauthorized));
    }
    next.run(request).await
}

async fn add_fault<P: Provider>(State(sandbox): State<P>, Json(fault): Json<Fault>) -> Response {
    if let Err(problem) = check(&fault, &[&AROUND_THE_WORK[..], P::OUTCOMES].concat()) {
        return respond((StatusCode::BAD_REQUEST, json!({"error": {"message": problem}})));
    }
    let summary = json!({"match": fault.pattern, "fault": fault.fault, "times": fault.times, "ms": fault.ms});
    sandbox.account().inject(fault);
    respond((StatusCode::CREATED, summary))
}

async fn clear_faults<P: Provider>(State(sandbox): State<P>) -> StatusCode {
    sandbox.account().lock().faults.clear();
    StatusCode::NO_CONTENT
}

async fn ledger<P: Provider>(State(sandbox): State<P>) -> Response {
    respond((StatusCode::OK, json!({"object": "list", "data": sandbox.account().created_objects()})))
}

/// `POST …/_sandbox/orders` with an order as JSON: adds it to the shop (its `payment_intent`, or
/// `payment`, is the payment's reference at the provider).
pub(super) async fn add_order<P: Provider>(State(sandbox): State<P>, Json(order): Json<Order>) -> Response {
    if order.line_items.is_empty() || order.currency.len() != 3 {
        let problem = "An order needs a three-letter currency and at least one line item.";
        return respond((StatusCode::BAD_REQUEST, json!({"error": {"message": problem}})));
    }
    let body = json!(order);
    sandbox.account().lock().orders.insert(order.id.clone(), order);
    respond((StatusCode::CREATED, body))
}
