//! The sandbox shop's orders: the demo's orders as seed data (1043, headphones and their case paid
//! in TWD; A1042, CNY, refunded in two parts in the source articles; and more), orders added at run
//! time with `POST /v1/_sandbox/orders` (see [`super::super::control`]), and the endpoints a tenant's order source reads them
//! through: Stripe's payment intent search, Checkout sessions and their line items, and a shop's
//! own `GET /v1/orders/{id}`.

use axum::{
    extract::{Path, Query, State},
    http::StatusCode,
    response::Response,
    Json,
};
use serde_json::{json, Value};
use std::collections::HashMap;

use super::{json_response, stripe_error, Sandbox};
use crate::server::providers::orders::{LineItem, Order};

/// The demo's orders: id, currency, payment intent, and (id, name, amount in minor units) per line.
type SeedOrder = (&'static str, &'static str, &'static str, &'static [(&'static str, &'static str, i64)]);

const DEMO_ORDERS: &[SeedOrder] = &[
    (
        "1043",
        "TWD",
        "pi_1043",
        &[("li_1", "Bluetooth headphones", 120_000), ("li_2", "Headphone case", 38_000)],
    ),
    (
        "A1042",
        "CNY",
        "pi_A1042",
        &[
            ("li_1", "Desk lamp", 10_000),
            ("li_2", "Lamp shade", 5_000),
            ("li_3", "Bulbs, pack of four", 15_000),
        ],
    ),
    ("1051", "TWD", "pi_1051", &[("li_1", "Mechanical keyboard", 189_000), ("li_2", "Wrist rest", 60_000)]),
    ("2002", "USD", "pi_2002", &[("li_1", "Travel adapter", 8_900)]),
    (
        "1077",
        "TWD",
        "pi_1077",
        &[
            ("li_1", "Studio monitors", 320_000),
            ("li_2", "Monitor stands", 45_000),
            ("li_3", "Speaker cables", 12_000),
            ("li_4", "Acoustic foam", 30_000),
        ],
    ),
    ("1088", "TWD", "pi_1088", &[("li_1", "Portable speaker", 150_000)]),
    ("1092", "USD", "pi_1092", &[("li_1", "USB-C hub", 4_500)]),
    (
        "1060",
        "TWD",
        "pi_1060",
        &[
            ("li_1", "Noise-cancelling headphones", 250_000),
            ("li_2", "Charging dock", 150_000),
            ("li_3", "Audio cable", 9_000),
        ],
    ),
    (
        "1101",
        "TWD",
        "pi_1101",
        &[
            ("li_1", "Earbud tips", 45_000),
            ("li_2", "Phone stand", 68_000),
            ("li_3", "Screen protector", 38_000),
        ],
    ),
];

/// The demo's orders, as the sandbox shop holds them.
pub fn demo_orders() -> Vec<Order> {
    DEMO_ORDERS
        .iter()
        .map(|(id, currency, payment_intent, items)| Order {
            id: (*id).to_owned(),
            currency: (*currency).to_owned(),
            payment_intent: (*payment_intent).to_owned(),
            line_items: items
                .iter()
                .map(|(id, name, amount_minor)| LineItem {
                    id: (*id).to_owned(),
                    name: (*name).to_owned(),
                    amount_minor: *amount_minor,
                })
                .collect(),
            customer_email: Some(format!("customer-{id}@example.com")),
            gateway: None,
        })
        .collect()
}

/// The demo order `id`.
pub fn demo_order(id: &str) -> Option<Order> {
    demo_orders().into_iter().find(|order| order.id == id)
}

impl Sandbox {
    fn order_where(&self, matches: impl Fn(&Order) -> bool) -> Option<Order> {
        self.account.lock().orders.values().find(|order| matches(order)).cloned()
    }
}

fn checkout_session_id(order: &Order) -> String {
    format!("cs_test_{}", order.id)
}

fn list(url: &str, data: Vec<Value>) -> Value {
    json!({"object": "list", "url": url, "has_more": false, "data": data})
}

fn payment_intent_json(order: &Order) -> Value {
    json!({
        "id": order.payment_intent,
        "object": "payment_intent",
        "amount": order.paid_minor(),
        "amount_received": order.paid_minor(),
        "currency": order.currency.to_lowercase(),
        "status": "succeeded",
        "metadata": {"order_id": order.id},
    })
}

/// The order id in a search query of the one form the sandbox understands:
/// `metadata['order_id']:'1043'`.
fn searched_order_id(query: &str) -> Option<&str> {
    query.trim().strip_prefix("metadata['order_id']:'")?.strip_suffix('\'')
}

/// `GET /v1/payment_intents/search?query=metadata['order_id']:'…'`.
pub(super) async fn search_payment_intents(
    State(sandbox): State<Sandbox>,
    Query(query): Query<HashMap<String, String>>,
) -> Response {
    let Some(order_id) = query.get("query").and_then(|q| searched_order_id(q)) else {
        return stripe_error(
            StatusCode::BAD_REQUEST,
            "invalid_request_error",
            Some("parameter_invalid"),
            "The sandbox searches payment intents by metadata['order_id']:'…' only.",
        );
    };
    let data: Vec<Value> =
        sandbox.order_where(|o| o.id == order_id).iter().map(payment_intent_json).collect();
    json_response(
        StatusCode::OK,
        json!({"object": "search_result", "url": "/v1/payment_intents/search", "has_more": false, "next_page": null, "data": data}),
    )
}

/// `GET /v1/checkout/sessions?payment_intent=…`.
pub(super) async fn list_checkout_sessions(
    State(sandbox): State<Sandbox>,
    Query(query): Query<HashMap<String, String>>,
) -> Json<Value> {
    let wanted = query.get("payment_intent");
    let data = sandbox
        .order_where(|o| wanted.is_none_or(|pi| *pi == o.payment_intent))
        .map(|order| {
            json!({
                "id": checkout_session_id(&order),
                "object": "checkout.session",
                "payment_intent": order.payment_intent,
                "amount_total": order.paid_minor(),
                "currency": order.currency.to_lowercase(),
                "payment_status": "paid",
                "status": "complete",
                "mode": "payment",
                "metadata": {"order_id": order.id},
                "customer_details": {"email": order.customer_email},
            })
        })
        .into_iter()
        .collect();
    Json(list("/v1/checkout/sessions", data))
}

/// `GET /v1/checkout/sessions/{id}/line_items`.
pub(super) async fn list_line_items(State(sandbox): State<Sandbox>, Path(id): Path<String>) -> Response {
    let Some(order) = sandbox.order_where(|o| checkout_session_id(o) == id) else {
        return stripe_error(
            StatusCode::NOT_FOUND,
            "invalid_request_error",
            Some("resource_missing"),
            &format!("No such checkout session: '{id}'"),
        );
    };
    let currency = order.currency.to_lowercase();
    let data = order
        .line_items
        .iter()
        .map(|item| {
            json!({
                "id": item.id,
                "object": "item",
                "description": item.name,
                "amount_subtotal": item.amount_minor,
                "amount_total": item.amount_minor,
                "amount_discount": 0,
                "amount_tax": 0,
                "currency": currency,
                "quantity": 1,
            })
        })
        .collect();
    json_response(StatusCode::OK, list(&format!("/v1/checkout/sessions/{id}/line_items"), data))
}

/// `GET /v1/orders/{id}`: the shop's own orders endpoint.
pub(super) async fn retrieve_order(State(sandbox): State<Sandbox>, Path(id): Path<String>) -> Response {
    match sandbox.order_where(|o| o.id == id) {
        Some(order) => json_response(StatusCode::OK, json!(order)),
        None => stripe_error(
            StatusCode::NOT_FOUND,
            "invalid_request_error",
            Some("resource_missing"),
            "No such order.",
        ),
    }
}
