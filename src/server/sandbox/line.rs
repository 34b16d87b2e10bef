//! A stand-in for LINE's push message, from LINE's references (developers.line.biz): "Messaging
//! API reference", "Send push message" (`POST /v2/bot/message/push` with `Authorization: Bearer
//! {channel access token}` and `{"to", "messages"}`: 1 to 5 messages, a text message's `text` 1
//! to 5,000 characters; answered 200 `{"sentMessages": [{"id", "quoteToken"}]}` with an
//! `x-line-request-id` header), "Common specifications" (errors as `{"message", "details":
//! [{"message", "property"}]}`; 401 `Authentication failed. Confirm that the access token in the
//! authorization header is valid.`) and "Retry failed API requests" (`X-Line-Retry-Key`, a
//! hexadecimal UUID: the first request under a key that was accepted is the only one executed; a
//! retry is answered 409 `The retry key is already accepted` with `x-line-accepted-request-id`
//! naming the accepted request, and sends nothing; a key that got a 5xx before being accepted may
//! be used again).
//!
//! The channel access token it takes is the one it was made with (the mounted sandbox's secret
//! key); any other, and every token starting with `revoked`, gets the 401. Retry keys are kept 24
//! hours. Faults (see [`super::chat`]) match the retry key or the `to`.

use axum::{
    body::Bytes,
    extract::State,
    http::{HeaderMap, HeaderValue, StatusCode},
    response::Response,
    routing::{get, post},
    Router,
};
use chrono::{DateTime, Duration, Utc};
use serde::Serialize;
use serde_json::{json, Value};
use std::collections::BTreeMap;
use std::sync::Arc;

use super::account::{bearer_is, bearer_token, respond, Account, Provider, Refusal};
use super::chat::{with_faults, Refusals};
use super::control;
use super::faults::FaultKind;
use super::keyed::Answer;

/// How long a retry key is remembered.
const RETRY_KEY_RETENTION_HOURS: i64 = 24;

/// One push LINE sent.
#[derive(Debug, Clone, Serialize)]
pub struct LinePush {
    pub request_id: String,
    pub to: String,
    pub retry_key: Option<String>,
    pub messages: Value,
    pub sent_messages: Value,
    pub received_at: DateTime<Utc>,
}

/// What the stand-in keeps: the pushes sent, and the retry keys accepted with their push.
#[derive(Debug, Default)]
pub struct LineBooks {
    pushes: Vec<LinePush>,
    accepted: BTreeMap<String, (String, Value, DateTime<Utc>)>,
}

/// The LINE stand-in.
#[derive(Clone)]
pub struct LineSandbox {
    key: Arc<String>,
    account: Account<LineBooks>,
}

fn line_error(status: StatusCode, message: &str) -> Response {
    respond((status, json!({"message": message})))
}

fn invalid(property: &str, problem: &str) -> Response {
    respond((
        StatusCode::BAD_REQUEST,
        json!({"message": "The request body has 1 error(s)", "details": [{"message": problem, "property": property}]}),
    ))
}

impl LineSandbox {
    pub fn new(key: &str) -> Self {
        Self { key: Arc::new(key.to_owned()), account: Account::new([], Duration::zero()) }
    }

    /// Every push sent, oldest first.
    pub fn pushes(&self) -> Vec<LinePush> {
        self.account.lock().own.pushes.clone()
    }

    pub fn router(&self) -> Router {
        let guarded = Router::new().route("/_sandbox/line", get(list));
        control::guarded(self, guarded)
            .route("/line/v2/bot/message/push", post(push))
            .with_state(self.clone())
    }

    /// Whether `token` is a channel access token LINE would take here.
    fn token_valid(&self, token: Option<&str>) -> bool {
        token.is_some_and(|token| !token.starts_with("revoked") && token == self.key.as_str())
    }
}

impl Provider for LineSandbox {
    type Own = LineBooks;
    const CONTROL: &'static str = "/_sandbox/line";
    const KEY_HEADER: &'static str = "x-line-retry-key";
    const OUTCOMES: &'static [FaultKind] = &[];
    const REPLAYS_5XX: bool = false;

    fn account(&self) -> &Account<LineBooks> {
        &self.account
    }

    fn authorized(&self, headers: &HeaderMap) -> bool {
        bearer_is(headers, &self.key)
    }

    fn refused(refusal: Refusal) -> Answer {
        match refusal {
            Refusal::Unauthorized => (
                StatusCode::UNAUTHORIZED,
                json!({"message": "Authentication failed. Confirm that the access token in the authorization header is valid."}),
            ),
            Refusal::RateLimited => (
                StatusCode::TOO_MANY_REQUESTS,
                json!({"message": "The API rate limit has been exceeded. Try again later."}),
            ),
            Refusal::KeyInUse | Refusal::ServerError => {
                (StatusCode::INTERNAL_SERVER_ERROR, json!({"message": "An error occurred in the server."}))
            }
        }
    }

    fn key_reused() -> Option<Answer> {
        None
    }
}

/// Why `request` is not a push LINE takes, as LINE answers it.
fn request_problem(request: &Value) -> Option<Response> {
    if request["to"].as_str().is_none_or(str::is_empty) {
        return Some(invalid("to", "must be specified"));
    }
    let messages = request["messages"].as_array().map(Vec::as_slice).unwrap_or_default();
    if messages.is_empty() || messages.len() > 5 {
        return Some(invalid("messages", "Size must be between 1 and 5"));
    }
    for (n, message) in messages.iter().enumerate() {
        match message["type"].as_str() {
            Some("text") => {
                let length = message["text"].as_str().map(|text| text.encode_utf16().count());
                if !length.is_some_and(|length| (1..=5000).contains(&length)) {
                    return Some(invalid(
                        &format!("messages[{n}].text"),
                        "Length must be between 1 and 5000",
                    ));
                }
            }
            Some("flex") => {}
            _ => return Some(invalid(&format!("messages[{n}].type"), "Type not supported by the stand-in")),
        }
    }
    None
}

/// `POST /line/v2/bot/message/push`.
async fn push(State(sandbox): State<LineSandbox>, headers: HeaderMap, body: Bytes) -> Response {
    if !sandbox.token_valid(bearer_token(&headers)) {
        return respond(LineSandbox::refused(Refusal::Unauthorized));
    }
    let retry_key = headers.get("x-line-retry-key").and_then(|value| value.to_str().ok()).map(str::to_owned);
    if retry_key.as_deref().is_some_and(|key| {
        uuid::Uuid::try_parse(key)
            .map_or(true, |uuid| uuid.hyphenated().to_string() != key.to_ascii_lowercase())
    }) {
        return line_error(StatusCode::BAD_REQUEST, "The value for the 'X-Line-Retry-Key' header is invalid");
    }
    let Ok(request) = serde_json::from_slice::<Value>(&body) else {
        return line_error(StatusCode::BAD_REQUEST, "The request body could not be parsed as JSON");
    };
    if let Some(problem) = request_problem(&request) {
        return problem;
    }
    let now = Utc::now();
    if let Some(key) = &retry_key {
        let mut books = sandbox.account.lock();
        books.own.accepted.retain(|_, (_, _, at)| now - *at < Duration::hours(RETRY_KEY_RETENTION_HOURS));
        if let Some((request_id, sent, _)) = books.own.accepted.get(key) {
            let mut response = respond((
                StatusCode::CONFLICT,
                json!({"message": "The retry key is already accepted", "sentMessages": sent}),
            ));
            if let Ok(value) = HeaderValue::from_str(request_id) {
                response.headers_mut().insert("x-line-accepted-request-id", value);
            }
            return response;
        }
    }
    let to = request["to"].as_str().unwrap_or_default().to_owned();
    let names: Vec<String> = retry_key.iter().cloned().chain([to.clone()]).collect();
    let names: Vec<&str> = names.iter().map(String::as_str).collect();
    let refusals = Refusals {
        rate_limited: || respond(LineSandbox::refused(Refusal::RateLimited)),
        server_error: || respond(LineSandbox::refused(Refusal::ServerError)),
    };
    let account = sandbox.account.clone();
    let key = retry_key.clone();
    with_faults(&sandbox.account, &names, refusals, move || {
        let request_id = uuid::Uuid::new_v4().to_string();
        let mut books = account.lock();
        let sent: Vec<Value> = request["messages"]
            .as_array()
            .map(Vec::as_slice)
            .unwrap_or_default()
            .iter()
            .map(|_| {
                let n = books.next_number();
                json!({"id": format!("{}", 461_230_966_842_064_897u64 + n), "quoteToken": format!("q{n:08}")})
            })
            .collect();
        let sent = Value::Array(sent);
        if let Some(key) = &key {
            books.own.accepted.insert(key.clone(), (request_id.clone(), sent.clone(), now));
        }
        books.own.pushes.push(LinePush {
            request_id: request_id.clone(),
            to,
            retry_key: key,
            messages: request["messages"].clone(),
            sent_messages: sent.clone(),
            received_at: now,
        });
        let mut response = respond((StatusCode::OK, json!({"sentMessages": sent})));
        if let Ok(value) = HeaderValue::from_str(&request_id) {
            response.headers_mut().insert("x-line-request-id", value);
        }
        response
    })
    .await
}

/// `GET /_sandbox/line`: every push sent.
async fn list(State(sandbox): State<LineSandbox>) -> Response {
    respond((StatusCode::OK, json!({"data": sandbox.pushes()})))
}
