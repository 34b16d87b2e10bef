//! The sandbox's own Stripe webhooks: once a destination is set (`POST /v1/_sandbox/event_destination`
//! with `{"url", "secret"}`, or [`Sandbox::send_events_to`]), every refund it creates is announced
//! with `refund.created`, and every later change of its status with `refund.updated` (and
//! `refund.failed` when it failed), each a Stripe event object signed with the destination's secret
//! in a `Stripe-Signature` header, as Stripe signs them. An event is sent once, and not again when
//! the destination does not answer 2xx (tests send again by hand when they need it).

use axum::{extract::State, http::StatusCode, response::IntoResponse, Json};
use chrono::{DateTime, Utc};
use serde::Deserialize;
use serde_json::{json, Value};

use super::Sandbox;
use crate::server::providers::stripe_events::signature_header;

/// Where the sandbox posts its events, and the secret it signs them with.
#[derive(Debug, Clone, Deserialize, PartialEq, Eq)]
pub struct EventDestination {
    pub url: String,
    pub secret: String,
}

/// One event the sandbox sent, as tests read them back.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct SentEvent {
    pub id: String,
    #[serde(rename = "type")]
    pub event_type: String,
    pub refund: String,
    /// What the destination answered, or `None` when it could not be reached.
    pub answered: Option<u16>,
}

impl Sandbox {
    /// Posts the sandbox's refund events to `url`, signed with `secret`.
    pub fn send_events_to(&self, url: &str, secret: &str) {
        self.account.lock().own.event_destination =
            Some(EventDestination { url: url.to_owned(), secret: secret.to_owned() });
    }

    /// The events sent so far, oldest first.
    pub fn sent_events(&self) -> Vec<SentEvent> {
        self.account.lock().own.sent_events.clone()
    }

    /// Announces `refund` (as it stands now, in its JSON) with an event of `event_type`, when a
    /// destination is set; in the background, so that the request that caused it is not held up.
    pub(super) fn announce(&self, event_type: &str, refund: Value, previous: Option<Value>) {
        let Some(destination) = self.account.lock().own.event_destination.clone() else { return };
        let id = self.account.lock().new_id("evt");
        let created = Utc::now();
        let mut data = json!({"object": refund});
        if let Some(previous) = previous {
            data["previous_attributes"] = previous;
        }
        let event = json!({
            "id": id,
            "object": "event",
            "api_version": "2024-06-20",
            "created": created.timestamp(),
            "livemode": false,
            "pending_webhooks": 1,
            "request": {"id": null, "idempotency_key": null},
            "type": event_type,
            "data": data,
        });
        let sandbox = self.clone();
        let event_type = event_type.to_owned();
        tokio::spawn(async move {
            let answered = post(&destination, &event, created).await;
            let refund =
                event.pointer("/data/object/id").and_then(Value::as_str).unwrap_or_default().to_owned();
            sandbox.account.lock().own.sent_events.push(SentEvent { id, event_type, refund, answered });
        });
    }
}

async fn post(destination: &EventDestination, event: &Value, signed_at: DateTime<Utc>) -> Option<u16> {
    let payload = event.to_string();
    let signature = signature_header(payload.as_bytes(), &destination.secret, signed_at);
    let client = reqwest::Client::builder().timeout(std::time::Duration::from_secs(10)).build().ok()?;
    let answer = client
        .post(&destination.url)
        .header("content-type", "application/json")
        .header("stripe-signature", signature)
        .body(payload)
        .send()
        .await;
    match answer {
        Ok(response) => Some(response.status().as_u16()),
        Err(error) => {
            tracing::warn!(url = %destination.url, %error, "the sandbox could not post its event");
            None
        }
    }
}

/// `POST /v1/_sandbox/event_destination`: where the sandbox's events go from now on.
pub(super) async fn set_destination(
    State(sandbox): State<Sandbox>,
    Json(destination): Json<EventDestination>,
) -> impl IntoResponse {
    let valid =
        reqwest::Url::parse(&destination.url).is_ok_and(|url| matches!(url.scheme(), "http" | "https"));
    if !valid || destination.secret.is_empty() {
        return (
            StatusCode::BAD_REQUEST,
            Json(json!({"error": {"message": "url must be an http(s) URL and secret must not be empty"}})),
        );
    }
    sandbox.send_events_to(&destination.url, &destination.secret);
    (StatusCode::OK, Json(json!({"url": destination.url})))
}

/// `GET /v1/_sandbox/events`: the events sent so far.
pub(super) async fn list(State(sandbox): State<Sandbox>) -> Json<Value> {
    Json(json!({"object": "list", "data": sandbox.sent_events()}))
}
