//! A stand-in for Slack's incoming webhooks, from Slack's references: "Sending messages using
//! incoming webhooks" (`POST` JSON with `text` and/or Block Kit `blocks` to
//! `https://hooks.slack.com/services/T…/B…/…`, answered `200 ok`), the changelog "Improving error
//! conditions for Incoming Webhooks" (errors as a status and a short code as a plain-text body: 400
//! `invalid_payload`, 403 `action_prohibited`, 404 `channel_not_found`, 410 `channel_is_archived`,
//! 500 `rollup_error`), "Handling errors" for webhooks (404 `no_service` once a webhook is removed,
//! 400 `invalid_blocks` for blocks that break Block Kit's rules, `no_text` when there is nothing to
//! post) and the Block Kit reference's limits (at most 50 blocks; a header's `plain_text` at most
//! 150 characters, a section's text 3,000, a button's text 75 and its URL 3,000; at most 25
//! elements in an actions block, 10 in a context block).
//!
//! A webhook whose last path segment is `removed` answers 404 `no_service`; `archived`, 410
//! `channel_is_archived`. Faults (see [`super::chat`]) match the webhook's path `T…/B…/…`.

use axum::{
    body::Bytes,
    extract::{Path, State},
    http::{HeaderMap, StatusCode},
    response::{IntoResponse, Response},
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

/// One post a webhook took.
#[derive(Debug, Clone, Serialize)]
pub struct SlackPost {
    /// The webhook's path, `T…/B…/…`.
    pub webhook: String,
    pub text: Option<String>,
    pub blocks: Value,
    pub received_at: DateTime<Utc>,
}

/// The Slack stand-in: the posts its webhooks took.
#[derive(Clone)]
pub struct SlackSandbox {
    key: Arc<String>,
    account: Account<Vec<SlackPost>>,
}

fn plain(status: StatusCode, code: &'static str) -> Response {
    (status, [("content-type", "text/plain; charset=utf-8")], code).into_response()
}

impl SlackSandbox {
    pub fn new(key: &str) -> Self {
        Self { key: Arc::new(key.to_owned()), account: Account::new([], Duration::zero()) }
    }

    /// Every post taken, oldest first.
    pub fn posts(&self) -> Vec<SlackPost> {
        self.account.lock().own.clone()
    }

    pub fn router(&self) -> Router {
        let guarded = Router::new().route("/_sandbox/slack", get(list));
        control::guarded(self, guarded)
            .route("/slack/services/{team}/{bot}/{secret}", post(receive))
            .with_state(self.clone())
    }
}

impl Provider for SlackSandbox {
    type Own = Vec<SlackPost>;
    const CONTROL: &'static str = "/_sandbox/slack";
    const KEY_HEADER: &'static str = "x-no-idempotency-key";
    const OUTCOMES: &'static [FaultKind] = &[];
    const REPLAYS_5XX: bool = false;

    fn account(&self) -> &Account<Vec<SlackPost>> {
        &self.account
    }

    fn authorized(&self, headers: &HeaderMap) -> bool {
        bearer_is(headers, &self.key)
    }

    fn refused(refusal: Refusal) -> Answer {
        match refusal {
            Refusal::Unauthorized => (StatusCode::FORBIDDEN, json!({"error": "invalid_token"})),
            Refusal::RateLimited => (StatusCode::TOO_MANY_REQUESTS, json!({"error": "rate_limited"})),
            Refusal::KeyInUse | Refusal::ServerError => {
                (StatusCode::INTERNAL_SERVER_ERROR, json!({"error": "rollup_error"}))
            }
        }
    }

    fn key_reused() -> Option<Answer> {
        None
    }
}

/// Why `blocks` break Block Kit's rules, when they do.
fn blocks_problem(blocks: &Value) -> Option<String> {
    let blocks = blocks.as_array().map(Vec::as_slice).unwrap_or_default();
    if blocks.len() > 50 {
        return Some(format!("{} blocks, more than 50", blocks.len()));
    }
    let length = |value: &Value| value.as_str().map(|text| text.chars().count());
    for (n, block) in blocks.iter().enumerate() {
        let too_long = |what: &str, value: &Value, max: usize| match length(value) {
            Some(count) if count <= max && count > 0 => None,
            Some(count) => Some(format!("blocks[{n}] {what} has {count} characters; 1 to {max} are allowed")),
            None => Some(format!("blocks[{n}] {what} is missing")),
        };
        let problem = match block["type"].as_str() {
            Some("header") if block["text"]["type"] != "plain_text" => {
                Some(format!("blocks[{n}] a header's text must be plain_text"))
            }
            Some("header") => too_long("header text", &block["text"]["text"], 150),
            Some("section") => too_long("section text", &block["text"]["text"], 3000),
            Some("context") => {
                let elements = block["elements"].as_array().map(Vec::as_slice).unwrap_or_default();
                if elements.is_empty() || elements.len() > 10 {
                    Some(format!("blocks[{n}] a context block has 1 to 10 elements"))
                } else {
                    elements.iter().find_map(|element| too_long("context text", &element["text"], 3000))
                }
            }
            Some("actions") => {
                let elements = block["elements"].as_array().map(Vec::as_slice).unwrap_or_default();
                if elements.is_empty() || elements.len() > 25 {
                    Some(format!("blocks[{n}] an actions block has 1 to 25 elements"))
                } else {
                    elements.iter().find_map(|element| {
                        too_long("button text", &element["text"]["text"], 75).or_else(|| {
                            match &element["url"] {
                                Value::Null => None,
                                url => too_long("button url", url, 3000),
                            }
                        })
                    })
                }
            }
            Some("divider") => None,
            Some(other) => Some(format!("blocks[{n}] the stand-in does not know blocks of type {other}")),
            None => Some(format!("blocks[{n}] has no type")),
        };
        if problem.is_some() {
            return problem;
        }
    }
    None
}

/// `POST /slack/services/{team}/{bot}/{secret}`: an incoming webhook.
async fn receive(
    State(sandbox): State<SlackSandbox>,
    Path((team, bot, secret)): Path<(String, String, String)>,
    body: Bytes,
) -> Response {
    match secret.as_str() {
        "removed" => return plain(StatusCode::NOT_FOUND, "no_service"),
        "archived" => return plain(StatusCode::GONE, "channel_is_archived"),
        _ => {}
    }
    let webhook = format!("{team}/{bot}/{secret}");
    let Ok(payload) = serde_json::from_slice::<Value>(&body) else {
        return plain(StatusCode::BAD_REQUEST, "invalid_payload");
    };
    let text = payload["text"].as_str().map(str::to_owned);
    let blocks = payload.get("blocks").cloned().unwrap_or(Value::Null);
    if !blocks.is_null() && !blocks.is_array() {
        return plain(StatusCode::BAD_REQUEST, "invalid_blocks_format");
    }
    if text.as_deref().is_none_or(str::is_empty) && blocks.as_array().is_none_or(Vec::is_empty) {
        return plain(StatusCode::BAD_REQUEST, "no_text");
    }
    if let Some(problem) = blocks_problem(&blocks) {
        tracing::debug!(%problem, "the Slack stand-in refused the blocks");
        return plain(StatusCode::BAD_REQUEST, "invalid_blocks");
    }
    let refusals = Refusals {
        rate_limited: || plain(StatusCode::TOO_MANY_REQUESTS, "rate_limited"),
        server_error: || plain(StatusCode::INTERNAL_SERVER_ERROR, "rollup_error"),
    };
    let account = sandbox.account.clone();
    let name = webhook.clone();
    with_faults(&sandbox.account, &[name.as_str()], refusals, move || {
        account.lock().own.push(SlackPost { webhook, text, blocks, received_at: Utc::now() });
        plain(StatusCode::OK, "ok")
    })
    .await
}

/// `GET /_sandbox/slack`: every post taken.
async fn list(State(sandbox): State<SlackSandbox>) -> Response {
    respond((StatusCode::OK, json!({"data": sandbox.posts()})))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn blocks_that_break_block_kits_limits_are_found() {
        let header = |text: String| json!([{"type": "header", "text": {"type": "plain_text", "text": text}}]);
        assert!(blocks_problem(&header("x".repeat(150))).is_none());
        assert!(blocks_problem(&header("x".repeat(151))).is_some());
        let many: Vec<Value> = (0..51).map(|_| json!({"type": "divider"})).collect();
        assert!(blocks_problem(&Value::Array(many)).is_some());
        let section = json!([{"type": "section", "text": {"type": "mrkdwn", "text": "y".repeat(3001)}}]);
        assert!(blocks_problem(&section).is_some());
    }
}
