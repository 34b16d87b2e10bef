//! The sandbox's webhook receiver: `POST /v1/_sandbox/webhooks` records what it was sent (the
//! Standard Webhooks headers and the body, byte for byte) for tests and the demo, and answers 200,
//! or 500 while failures are asked for (`POST /v1/_sandbox/webhooks/failures` with `{"times": n}`).
//! `GET /v1/_sandbox/webhooks` lists what it received (the latest thousand, each body's first
//! 64 KiB). Posting needs no key (the ledger signs instead); reading and asking for failures need
//! the sandbox's key.

use axum::{
    body::Bytes,
    extract::State,
    http::{HeaderMap, StatusCode},
    response::{IntoResponse, Response},
    Json,
};
use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use serde_json::{json, Value};

use super::Sandbox;

/// How many received webhooks the sandbox keeps (the oldest are forgotten first).
const KEPT: usize = 1_000;

/// How much of a received body it keeps.
const KEPT_BODY_BYTES: usize = 64 * 1024;

/// One webhook as the receiver got it.
#[derive(Debug, Clone, Serialize, PartialEq, Eq)]
pub struct ReceivedWebhook {
    pub webhook_id: String,
    pub webhook_timestamp: String,
    pub webhook_signature: String,
    /// The body exactly as sent.
    pub body: String,
    /// What the receiver answered.
    pub answered: u16,
    pub received_at: DateTime<Utc>,
}

#[derive(Debug, Default)]
pub(super) struct Receiver {
    received: std::collections::VecDeque<ReceivedWebhook>,
    /// How many of the next webhooks are answered 500.
    failures_asked: u32,
}

impl Sandbox {
    /// What the receiver got, oldest first, the failed answers included.
    pub fn received_webhooks(&self) -> Vec<ReceivedWebhook> {
        self.account.lock().own.webhooks.received.iter().cloned().collect()
    }

    /// Answers the next `times` webhooks with 500.
    pub fn fail_webhooks(&self, times: u32) {
        self.account.lock().own.webhooks.failures_asked = times;
    }
}

fn header(headers: &HeaderMap, name: &str) -> String {
    headers.get(name).and_then(|value| value.to_str().ok()).unwrap_or_default().to_owned()
}

pub(super) async fn receive(State(sandbox): State<Sandbox>, headers: HeaderMap, body: Bytes) -> Response {
    let mut state = sandbox.account.lock();
    let receiver = &mut state.own.webhooks;
    let status = if receiver.failures_asked > 0 {
        receiver.failures_asked -= 1;
        StatusCode::INTERNAL_SERVER_ERROR
    } else {
        StatusCode::OK
    };
    if receiver.received.len() == KEPT {
        receiver.received.pop_front();
    }
    receiver.received.push_back(ReceivedWebhook {
        webhook_id: header(&headers, "webhook-id"),
        webhook_timestamp: header(&headers, "webhook-timestamp"),
        webhook_signature: header(&headers, "webhook-signature"),
        body: String::from_utf8_lossy(&body[..body.len().min(KEPT_BODY_BYTES)]).into_owned(),
        answered: status.as_u16(),
        received_at: Utc::now(),
    });
    (status, Json(json!({"received": status.is_success()}))).into_response()
}

pub(super) async fn list(State(sandbox): State<Sandbox>) -> Json<Value> {
    Json(json!({"object": "list", "data": sandbox.received_webhooks()}))
}

#[derive(Debug, Deserialize)]
pub(super) struct FailuresAsked {
    times: u32,
}

pub(super) async fn ask_failures(
    State(sandbox): State<Sandbox>,
    Json(asked): Json<FailuresAsked>,
) -> Json<Value> {
    sandbox.fail_webhooks(asked.times);
    Json(json!({"failures_asked": asked.times}))
}
