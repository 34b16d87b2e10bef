//! A stand-in for a Microsoft Teams workflow webhook (Power Automate's trigger "When a Teams
//! webhook request is received"), from Microsoft's references: "Create incoming webhooks with
//! Workflows for Microsoft Teams" and the Teams connector's (learn.microsoft.com/connectors/teams):
//! the trigger takes `{"type": "message", "attachments": [{"contentType":
//! "application/vnd.microsoft.card.adaptive", "content": {"type": "AdaptiveCard", …}}]}` and
//! answers 202 Accepted; a message over about 28 KB fails with "Request Entity too large" (413);
//! Power Automate's errors are JSON `{"error": {"code", "message"}}`. The codes are the stand-in's
//! own spelling of those answers.
//!
//! A workflow whose id is `removed` answers 404. Faults (see [`super::chat`]) match the workflow's
//! id.

use axum::{
    body::Bytes,
    extract::{Path, State},
    http::{HeaderMap, StatusCode},
    response::Response,
    routing::{get, post},
    Router,
};
use chrono::{DateTime, Duration, Utc};
use serde::Serialize;
use serde_json::{json, Value};
use std::sync::Arc;

use super::account::{bearer_is, respond, Account, Provider, Refusal};
use super::chat::{with_faults, Refusals};
use super::control;
use super::faults::FaultKind;
use super::keyed::Answer;

/// What a Teams message may weigh: 28 KB.
pub const MAX_MESSAGE_BYTES: usize = 28 * 1024;

/// One message a workflow took.
#[derive(Debug, Clone, Serialize)]
pub struct TeamsPost {
    pub workflow: String,
    /// The Adaptive Card of its first attachment.
    pub card: Value,
    pub received_at: DateTime<Utc>,
}

/// The Teams stand-in: the messages its workflows took.
#[derive(Clone)]
pub struct TeamsSandbox {
    key: Arc<String>,
    account: Account<Vec<TeamsPost>>,
}

fn error(status: StatusCode, code: &str, message: &str) -> Response {
    respond((status, json!({"error": {"code": code, "message": message}})))
}

impl TeamsSandbox {
    pub fn new(key: &str) -> Self {
        Self { key: Arc::new(key.to_owned()), account: Account::new([], Duration::zero()) }
    }

    /// Every message taken, oldest first.
    pub fn posts(&self) -> Vec<TeamsPost> {
        self.account.lock().own.clone()
    }

    pub fn router(&self) -> Router {
        let guarded = Router::new().route("/_sandbox/teams", get(list));
        control::guarded(self, guarded).route("/teams/workflows/{id}", post(receive)).with_state(self.clone())
    }
}

impl Provider for TeamsSandbox {
    type Own = Vec<TeamsPost>;
    const CONTROL: &'static str = "/_sandbox/teams";
    const KEY_HEADER: &'static str = "x-no-idempotency-key";
    const OUTCOMES: &'static [FaultKind] = &[];
    const REPLAYS_5XX: bool = false;

    fn account(&self) -> &Account<Vec<TeamsPost>> {
        &self.account
    }

    fn authorized(&self, headers: &HeaderMap) -> bool {
        bearer_is(headers, &self.key)
    }

    fn refused(refusal: Refusal) -> Answer {
        let (status, code) = match refusal {
            Refusal::Unauthorized => (StatusCode::UNAUTHORIZED, "Unauthorized"),
            Refusal::RateLimited => (StatusCode::TOO_MANY_REQUESTS, "TooManyRequests"),
            Refusal::KeyInUse | Refusal::ServerError => {
                (StatusCode::INTERNAL_SERVER_ERROR, "InternalServerError")
            }
        };
        (status, json!({"error": {"code": code, "message": code}}))
    }

    fn key_reused() -> Option<Answer> {
        None
    }
}

/// Why `message` is not what the trigger takes, when it is not.
fn message_problem(message: &Value) -> Option<&'static str> {
    if message["type"] != "message" {
        return Some("the body's type must be \"message\"");
    }
    let attachments = message["attachments"].as_array().map(Vec::as_slice).unwrap_or_default();
    if attachments.is_empty() {
        return Some("the message has no attachments");
    }
    for attachment in attachments {
        if attachment["contentType"] != "application/vnd.microsoft.card.adaptive" {
            return Some("an attachment is not an Adaptive Card");
        }
        let card = &attachment["content"];
        if card["type"] != "AdaptiveCard" || !card["version"].is_string() || !card["body"].is_array() {
            return Some("an attachment's content is not an Adaptive Card with a version and a body");
        }
    }
    None
}

/// `POST /teams/workflows/{id}`: a workflow's webhook trigger.
async fn receive(State(sandbox): State<TeamsSandbox>, Path(workflow): Path<String>, body: Bytes) -> Response {
    if workflow == "removed" {
        return error(StatusCode::NOT_FOUND, "WorkflowNotFound", "The workflow could not be found.");
    }
    if body.len() > MAX_MESSAGE_BYTES {
        return error(StatusCode::PAYLOAD_TOO_LARGE, "RequestEntityTooLarge", "Request Entity too large");
    }
    let Ok(message) = serde_json::from_slice::<Value>(&body) else {
        return error(
            StatusCode::BAD_REQUEST,
            "InvalidRequestContent",
            "The request content is not valid JSON.",
        );
    };
    if let Some(problem) = message_problem(&message) {
        return error(StatusCode::BAD_REQUEST, "TriggerInputSchemaMismatch", problem);
    }
    let refusals = Refusals {
        rate_limited: || error(StatusCode::TOO_MANY_REQUESTS, "TooManyRequests", "Rate limit is exceeded."),
        server_error: || {
            error(StatusCode::INTERNAL_SERVER_ERROR, "InternalServerError", "An internal error occurred.")
        },
    };
    let account = sandbox.account.clone();
    let card = message["attachments"][0]["content"].clone();
    let name = workflow.clone();
    with_faults(&sandbox.account, &[name.as_str()], refusals, move || {
        account.lock().own.push(TeamsPost { workflow, card, received_at: Utc::now() });
        respond((StatusCode::ACCEPTED, Value::Null))
    })
    .await
}

/// `GET /_sandbox/teams`: every message taken.
async fn list(State(sandbox): State<TeamsSandbox>) -> Response {
    respond((StatusCode::OK, json!({"data": sandbox.posts()})))
}
