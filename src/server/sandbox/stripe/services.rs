//! After-sale tickets and pickups, as the sandbox serves them: open a ticket for an order's line
//! item, cancel it, schedule a pickup for an open ticket; every creating request goes through the
//! same keyed pipeline and faults as refunds, and objects can be found again by the op id in
//! their metadata.

use axum::{
    extract::{Path, Query, State},
    http::{HeaderMap, StatusCode},
    response::Response,
    Form,
};
use chrono::{DateTime, Duration, NaiveDate, Utc};
use serde_json::{json, Value};
use std::collections::{BTreeMap, HashMap};

use super::{create, json_response, request_names, stripe_error, Answer, CreatedObject, Sandbox};

#[derive(Debug, Clone)]
pub(super) struct Ticket {
    id: String,
    order: String,
    line_item: String,
    cancelled_by: Option<String>,
    metadata: BTreeMap<String, String>,
    created_at: DateTime<Utc>,
    listed_from: DateTime<Utc>,
}

#[derive(Debug, Clone)]
pub(super) struct Pickup {
    id: String,
    ticket: String,
    date: NaiveDate,
    metadata: BTreeMap<String, String>,
    created_at: DateTime<Utc>,
    listed_from: DateTime<Utc>,
}

impl Ticket {
    fn to_json(&self) -> Value {
        json!({
            "id": self.id,
            "object": "aftersale_ticket",
            "order": self.order,
            "line_item": self.line_item,
            "status": if self.cancelled_by.is_some() { "cancelled" } else { "open" },
            "cancelled_by": self.cancelled_by,
            "metadata": self.metadata,
            "created": self.created_at.timestamp(),
        })
    }
}

impl Pickup {
    fn to_json(&self) -> Value {
        json!({
            "id": self.id,
            "object": "pickup",
            "ticket": self.ticket,
            "date": self.date.to_string(),
            "metadata": self.metadata,
            "created": self.created_at.timestamp(),
        })
    }
}

fn field(fields: &[(String, String)], name: &str) -> Option<String> {
    fields.iter().find(|(k, _)| k == name).map(|(_, v)| v.clone())
}

fn metadata(fields: &[(String, String)]) -> BTreeMap<String, String> {
    fields
        .iter()
        .filter_map(|(k, v)| Some((k.strip_prefix("metadata[")?.strip_suffix(']')?.to_owned(), v.clone())))
        .collect()
}

fn invalid(code: &str, param: &str, message: String) -> Answer {
    (
        StatusCode::BAD_REQUEST,
        json!({"error": {"type": "invalid_request_error", "code": code, "param": param, "message": message}}),
    )
}

fn lag(sandbox: &Sandbox, names: &[&str], now: DateTime<Utc>) -> DateTime<Utc> {
    let ms = sandbox.account.lookup_lag_ms(names);
    now + Duration::milliseconds(i64::try_from(ms).unwrap_or(i64::MAX / 2))
}

fn record(
    sandbox: &Sandbox,
    object_type: &str,
    id: &str,
    key: Option<&str>,
    metadata: BTreeMap<String, String>,
    now: DateTime<Utc>,
) {
    sandbox.account.lock().created.push(CreatedObject {
        object_type: object_type.into(),
        id: id.to_owned(),
        amount: None,
        currency: None,
        idempotency_key: key.map(str::to_owned),
        metadata,
        created_at: now,
    });
}

fn open_ticket(
    sandbox: &Sandbox,
    fields: &[(String, String)],
    key: Option<&str>,
    now: DateTime<Utc>,
) -> Answer {
    let order_id = field(fields, "order").unwrap_or_default();
    let Some(order) = sandbox.order(&order_id) else {
        return invalid("resource_missing", "order", format!("No such order: '{order_id}'"));
    };
    let line_item = field(fields, "line_item").unwrap_or_default();
    if order.line_item(&line_item).is_none() {
        return invalid(
            "resource_missing",
            "line_item",
            format!("Order {order_id} has no line item '{line_item}'"),
        );
    }
    let listed_from = lag(sandbox, &request_names(key, fields), now);
    let ticket = {
        let mut state = sandbox.account.lock();
        let id = state.new_id("as");
        let ticket = Ticket {
            id,
            order: order_id,
            line_item,
            cancelled_by: None,
            metadata: metadata(fields),
            created_at: now,
            listed_from,
        };
        state.own.tickets.push(ticket.clone());
        ticket
    };
    record(sandbox, "aftersale_ticket", &ticket.id, key, ticket.metadata.clone(), now);
    (StatusCode::OK, ticket.to_json())
}

fn cancel_ticket(
    sandbox: &Sandbox,
    id: &str,
    fields: &[(String, String)],
    key: Option<&str>,
    now: DateTime<Utc>,
) -> Answer {
    let cancelled_by = metadata(fields).get("op_id").cloned().unwrap_or_else(|| "unnamed".into());
    let body = {
        let mut state = sandbox.account.lock();
        let Some(ticket) = state.own.tickets.iter_mut().find(|t| t.id == id) else {
            return (
                StatusCode::NOT_FOUND,
                json!({"error": {"type": "invalid_request_error", "code": "resource_missing", "message": format!("No such ticket: '{id}'")}}),
            );
        };
        if ticket.cancelled_by.is_some() {
            return invalid(
                "ticket_already_cancelled",
                "ticket",
                format!("Ticket {id} is already cancelled."),
            );
        }
        ticket.cancelled_by = Some(cancelled_by);
        ticket.to_json()
    };
    record(sandbox, "aftersale_cancellation", id, key, metadata(fields), now);
    (StatusCode::OK, body)
}

fn schedule(sandbox: &Sandbox, fields: &[(String, String)], key: Option<&str>, now: DateTime<Utc>) -> Answer {
    let ticket_id = field(fields, "ticket").unwrap_or_default();
    let Some(date) = field(fields, "date").and_then(|d| NaiveDate::parse_from_str(&d, "%Y-%m-%d").ok())
    else {
        return invalid("parameter_invalid", "date", "date must be YYYY-MM-DD".into());
    };
    let listed_from = lag(sandbox, &request_names(key, fields), now);
    let pickup = {
        let mut state = sandbox.account.lock();
        match state.own.tickets.iter().find(|t| t.id == ticket_id) {
            None => return invalid("resource_missing", "ticket", format!("No such ticket: '{ticket_id}'")),
            Some(ticket) if ticket.cancelled_by.is_some() => {
                return invalid("ticket_not_open", "ticket", format!("Ticket {ticket_id} is cancelled."))
            }
            Some(_) => {}
        }
        let id = state.new_id("pk");
        let pickup =
            Pickup { id, ticket: ticket_id, date, metadata: metadata(fields), created_at: now, listed_from };
        state.own.pickups.push(pickup.clone());
        pickup
    };
    record(sandbox, "pickup", &pickup.id, key, pickup.metadata.clone(), now);
    (StatusCode::OK, pickup.to_json())
}

/// `POST /v1/aftersale_tickets`.
pub(super) async fn create_ticket(
    State(sandbox): State<Sandbox>,
    headers: HeaderMap,
    Form(fields): Form<Vec<(String, String)>>,
) -> Response {
    create(sandbox, "/v1/aftersale_tickets", &headers, fields, open_ticket).await
}

/// `POST /v1/aftersale_tickets/{id}/cancel`.
pub(super) async fn cancel(
    State(sandbox): State<Sandbox>,
    Path(id): Path<String>,
    headers: HeaderMap,
    Form(fields): Form<Vec<(String, String)>>,
) -> Response {
    let path = format!("/v1/aftersale_tickets/{id}/cancel");
    create(sandbox, &path, &headers, fields, move |sandbox, fields, key, now| {
        cancel_ticket(sandbox, &id, fields, key, now)
    })
    .await
}

/// `POST /v1/pickups`.
pub(super) async fn create_pickup(
    State(sandbox): State<Sandbox>,
    headers: HeaderMap,
    Form(fields): Form<Vec<(String, String)>>,
) -> Response {
    create(sandbox, "/v1/pickups", &headers, fields, schedule).await
}

fn matches_metadata(metadata: &BTreeMap<String, String>, query: &HashMap<String, String>) -> bool {
    query
        .iter()
        .filter_map(|(k, v)| Some((k.strip_prefix("metadata[")?.strip_suffix(']')?, v)))
        .all(|(k, v)| metadata.get(k) == Some(v))
}

/// `GET /v1/aftersale_tickets?order=…&metadata[op_id]=…`.
pub(super) async fn list_tickets(
    State(sandbox): State<Sandbox>,
    Query(query): Query<HashMap<String, String>>,
) -> Response {
    let now = Utc::now();
    let state = sandbox.account.lock();
    let data: Vec<Value> = state
        .own
        .tickets
        .iter()
        .rev()
        .filter(|t| t.listed_from <= now && matches_metadata(&t.metadata, &query))
        .filter(|t| query.get("order").is_none_or(|o| &t.order == o))
        .map(Ticket::to_json)
        .collect();
    json_response(
        StatusCode::OK,
        json!({"object": "list", "url": "/v1/aftersale_tickets", "has_more": false, "data": data}),
    )
}

/// `GET /v1/aftersale_tickets/{id}`.
pub(super) async fn retrieve_ticket(State(sandbox): State<Sandbox>, Path(id): Path<String>) -> Response {
    let state = sandbox.account.lock();
    match state.own.tickets.iter().find(|t| t.id == id) {
        Some(ticket) => json_response(StatusCode::OK, ticket.to_json()),
        None => stripe_error(
            StatusCode::NOT_FOUND,
            "invalid_request_error",
            Some("resource_missing"),
            &format!("No such ticket: '{id}'"),
        ),
    }
}

/// `GET /v1/pickups?metadata[op_id]=…`.
pub(super) async fn list_pickups(
    State(sandbox): State<Sandbox>,
    Query(query): Query<HashMap<String, String>>,
) -> Response {
    let now = Utc::now();
    let state = sandbox.account.lock();
    let data: Vec<Value> = state
        .own
        .pickups
        .iter()
        .rev()
        .filter(|p| p.listed_from <= now && matches_metadata(&p.metadata, &query))
        .map(Pickup::to_json)
        .collect();
    json_response(
        StatusCode::OK,
        json!({"object": "list", "url": "/v1/pickups", "has_more": false, "data": data}),
    )
}
