//! The mail sandbox: an email API in Resend's shape and an SMTP sink, delivering into one mailbox.
//!
//! The API, as Resend's reference and its Python library describe it: `POST /emails` with a bearer
//! key and `{from, to, subject, text|html, headers}`, answered `{"id"}`; under an
//! `Idempotency-Key` (at most 256 characters) the first answer is replayed for 24 hours, the same
//! key with another body is a `409 invalid_idempotent_request`, and a second request while the first
//! runs a `409 concurrent_idempotent_requests`; `GET /emails/{id}` reads a message back. Errors are
//! `{statusCode, name, message}`.
//!
//! The SMTP sink speaks enough of RFC 5321 for a client to hand a message over (EHLO, AUTH PLAIN,
//! MAIL, RCPT, DATA, RSET, NOOP, QUIT), takes every message, and never delivers it further.
//!
//! Faults match the message's `X-Opledger-Op` header or the idempotency key: `drop_response` keeps
//! the message and then gives no answer (the API's caller times out; the sink closes the connection
//! right after the final `.`, RFC 1047's duplicate-or-lost case); the API also takes `delay`,
//! `error_500_before`, `error_500_after` and `rate_limit`. `GET /_sandbox/mail` lists the mailbox;
//! it and the rest of the control API (see [`super::control`]) take the API key, as the API does.

use axum::{
    extract::{Path, State},
    http::{HeaderMap, StatusCode},
    response::Response,
    routing::{get, post},
    Json, Router,
};
use base64::Engine as _;
use chrono::{DateTime, Duration, Utc};
use serde::Serialize;
use serde_json::{json, Value};
use std::collections::BTreeMap;
use std::sync::Arc;
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
use tokio::net::{TcpListener, TcpStream};

use super::account::{bearer_is, respond, Account, CreatedObject, Provider, Refusal};
use super::control;
use super::faults::{Fault, FaultKind};
use super::keyed::Answer;
use super::pipeline;

/// How a mail sandbox is set up.
#[derive(Debug, Clone)]
pub struct MailConfig {
    /// The API key callers send as a bearer token (`re_…`).
    pub api_key: String,
    /// How long an idempotency key is remembered: Resend keeps them 24 hours.
    pub key_retention: Duration,
}

/// One message the mailbox received.
#[derive(Debug, Clone, Serialize)]
pub struct Mail {
    pub id: String,
    /// How it came: `api` or `smtp`.
    pub via: &'static str,
    /// The operation's key, from its `X-Opledger-Op` header (or the API's idempotency key).
    pub op: Option<String>,
    pub from: String,
    pub to: Vec<String>,
    pub subject: String,
    pub text: String,
    pub received_at: DateTime<Utc>,
}

/// A running mail sandbox: its account's own part is the mailbox.
#[derive(Clone)]
pub struct MailSandbox {
    config: Arc<MailConfig>,
    account: Account<Vec<Mail>>,
}

fn resend_error(status: StatusCode, name: &str, message: &str) -> Answer {
    (status, json!({"statusCode": status.as_u16(), "name": name, "message": message}))
}

impl MailSandbox {
    pub fn new(config: MailConfig) -> Self {
        Self { account: Account::new([], config.key_retention), config: Arc::new(config) }
    }

    /// Sets a fault, as `POST /_sandbox/faults` does.
    pub fn inject(&self, fault: Fault) {
        self.account.inject(fault);
    }

    /// Every message received, by the API or by SMTP.
    pub fn mailbox(&self) -> Vec<Mail> {
        self.account.lock().own.clone()
    }

    /// The email API and the control API under `/_sandbox`, all behind the API key.
    pub fn router(&self) -> Router {
        let guarded = Router::new()
            .route("/emails", post(send_email))
            .route("/emails/{id}", get(read_email))
            .route("/_sandbox/mail", get(list_mail));
        control::guarded(self, guarded).with_state(self.clone())
    }

    /// Accepts SMTP connections on `listener` until the task is dropped, each served on its own.
    pub async fn serve_smtp(self, listener: TcpListener) {
        loop {
            let Ok((stream, _)) = listener.accept().await else { continue };
            let sandbox = self.clone();
            tokio::spawn(async move {
                if let Err(error) = sandbox.smtp_session(stream).await {
                    tracing::debug!(%error, "an SMTP session of the sandbox ended early");
                }
            });
        }
    }

    /// Puts `mail` in the mailbox, and in the ledger of what was really created (under `key`, when
    /// it came with one).
    fn deliver(&self, mail: Mail, key: Option<&str>) {
        let mut books = self.account.lock();
        books.created.push(CreatedObject {
            object_type: "email".into(),
            id: mail.id.clone(),
            amount: None,
            currency: None,
            idempotency_key: key.map(str::to_owned),
            metadata: mail.op.iter().map(|op| ("op".to_owned(), op.clone())).collect::<BTreeMap<_, _>>(),
            created_at: mail.received_at,
        });
        books.own.push(mail);
    }

    /// One SMTP session: the commands a client needs to hand messages over; a message whose
    /// operation has a `drop_response` fault is kept and the connection closed unanswered.
    async fn smtp_session(&self, stream: TcpStream) -> std::io::Result<()> {
        let (reader, mut writer) = stream.into_split();
        let mut lines = BufReader::new(reader);
        writer.write_all(b"220 sandbox.opledger ESMTP ready\r\n").await?;
        let (mut from, mut to) = (String::new(), Vec::<String>::new());
        loop {
            let mut line = String::new();
            if lines.read_line(&mut line).await? == 0 {
                return Ok(());
            }
            let command = line.trim_end().to_owned();
            let verb = command.split_whitespace().next().unwrap_or_default().to_ascii_uppercase();
            let reply: &[u8] = match verb.as_str() {
                "EHLO" => b"250-sandbox.opledger\r\n250-8BITMIME\r\n250-AUTH PLAIN\r\n250 SMTPUTF8\r\n",
                "HELO" => b"250 sandbox.opledger\r\n",
                "AUTH" => b"235 2.7.0 Authentication successful\r\n",
                "MAIL" => {
                    from = angle_address(&command);
                    to.clear();
                    b"250 2.1.0 OK\r\n"
                }
                "RCPT" => {
                    to.push(angle_address(&command));
                    b"250 2.1.5 OK\r\n"
                }
                "DATA" => {
                    writer.write_all(b"354 End data with <CR><LF>.<CR><LF>\r\n").await?;
                    let data = read_data(&mut lines).await?;
                    let mail = parse_message(&data, &from, &to);
                    let names: Vec<&str> = mail.op.iter().map(String::as_str).collect();
                    let dropped = self.account.take_fault(&names, &[FaultKind::DropResponse]).is_some();
                    let id = mail.id.clone();
                    self.deliver(mail, None);
                    if dropped {
                        return Ok(());
                    }
                    writer.write_all(format!("250 2.0.0 OK queued as {id}\r\n").as_bytes()).await?;
                    continue;
                }
                "RSET" => {
                    from.clear();
                    to.clear();
                    b"250 2.0.0 OK\r\n"
                }
                "NOOP" => b"250 2.0.0 OK\r\n",
                "QUIT" => {
                    writer.write_all(b"221 2.0.0 Bye\r\n").await?;
                    return Ok(());
                }
                _ => b"502 5.5.2 Command not recognised\r\n",
            };
            writer.write_all(reply).await?;
        }
    }
}

/// The address between `<` and `>` of a `MAIL FROM:` or `RCPT TO:` command.
fn angle_address(command: &str) -> String {
    command
        .split_once('<')
        .and_then(|(_, rest)| rest.split_once('>'))
        .map(|(address, _)| address.to_owned())
        .unwrap_or_default()
}

/// The message's lines up to the lone `.`, with the leading dot of stuffed lines removed.
async fn read_data(lines: &mut BufReader<tokio::net::tcp::OwnedReadHalf>) -> std::io::Result<String> {
    let mut data = String::new();
    loop {
        let mut line = String::new();
        if lines.read_line(&mut line).await? == 0 {
            return Err(std::io::Error::new(std::io::ErrorKind::UnexpectedEof, "the message ended early"));
        }
        let content = line.trim_end_matches(['\r', '\n']);
        if content == "." {
            return Ok(data);
        }
        data.push_str(content.strip_prefix('.').unwrap_or(content));
        data.push('\n');
    }
}

/// A received message's headers and body, as far as the mailbox shows them.
fn parse_message(data: &str, from: &str, to: &[String]) -> Mail {
    let (head, body) = data.split_once("\n\n").unwrap_or((data, ""));
    let header = |name: &str| {
        head.lines()
            .find_map(|line| line.split_once(':').filter(|(field, _)| field.eq_ignore_ascii_case(name)))
            .map(|(_, value)| value.trim().to_owned())
    };
    let text = if header("Content-Transfer-Encoding")
        .is_some_and(|encoding| encoding.eq_ignore_ascii_case("base64"))
    {
        let joined: String = body.split_whitespace().collect();
        base64::engine::general_purpose::STANDARD
            .decode(joined)
            .ok()
            .and_then(|bytes| String::from_utf8(bytes).ok())
            .unwrap_or_default()
    } else {
        body.to_owned()
    };
    Mail {
        id: format!("smtp_{}", uuid::Uuid::new_v4().simple()),
        via: "smtp",
        op: header("X-Opledger-Op"),
        from: from.to_owned(),
        to: to.to_vec(),
        subject: header("Subject").unwrap_or_default(),
        text,
        received_at: Utc::now(),
    }
}

impl Provider for MailSandbox {
    type Own = Vec<Mail>;
    const CONTROL: &'static str = "/_sandbox";
    const KEY_HEADER: &'static str = "idempotency-key";
    const OUTCOMES: &'static [FaultKind] = &[];
    const REPLAYS_5XX: bool = true;

    fn account(&self) -> &Account<Vec<Mail>> {
        &self.account
    }

    fn authorized(&self, headers: &HeaderMap) -> bool {
        bearer_is(headers, &self.config.api_key)
    }

    fn refused(refusal: Refusal) -> Answer {
        match refusal {
            Refusal::Unauthorized => {
                resend_error(StatusCode::FORBIDDEN, "invalid_api_key", "API key is invalid")
            }
            Refusal::KeyInUse => resend_error(
                StatusCode::CONFLICT,
                "concurrent_idempotent_requests",
                "Same idempotency key used while original request is still in progress. Try the request again later.",
            ),
            Refusal::RateLimited => resend_error(
                StatusCode::TOO_MANY_REQUESTS,
                "rate_limit_exceeded",
                "Too many requests. Please limit the number of requests per second.",
            ),
            Refusal::ServerError => resend_error(
                StatusCode::INTERNAL_SERVER_ERROR,
                "internal_server_error",
                "An unexpected error occurred.",
            ),
        }
    }

    fn key_reused() -> Option<Answer> {
        Some(resend_error(
            StatusCode::CONFLICT,
            "invalid_idempotent_request",
            "Same idempotency key used with a different request payload. Change your idempotency key or payload.",
        ))
    }

    fn key_refused(key: &str) -> Option<Answer> {
        (key.is_empty() || key.chars().count() > 256).then(|| {
            resend_error(
                StatusCode::BAD_REQUEST,
                "invalid_idempotency_key",
                "The key must be between 1-256 chars.",
            )
        })
    }
}

/// `POST /emails`: the message's operation (its `X-Opledger-Op` header, else the key) is what
/// faults match and what the mailbox shows.
async fn send_email(
    State(sandbox): State<MailSandbox>,
    headers: HeaderMap,
    Json(request): Json<Value>,
) -> Response {
    let op = request.pointer("/headers/X-Opledger-Op").and_then(Value::as_str).map(str::to_owned);
    pipeline::create(sandbox, &headers, request.clone(), op.clone(), move |sandbox, key, now| {
        accept(sandbox, &request, op.or_else(|| key.map(str::to_owned)), key, now)
    })
    .await
}

/// Checks a send's fields as Resend does and puts the message in the mailbox.
fn accept(
    sandbox: &MailSandbox,
    request: &Value,
    op: Option<String>,
    key: Option<&str>,
    now: DateTime<Utc>,
) -> Answer {
    let text = |name: &str| request.get(name).and_then(Value::as_str).map(str::to_owned);
    let to: Vec<String> = match request.get("to") {
        Some(Value::String(one)) => vec![one.clone()],
        Some(Value::Array(many)) => many.iter().filter_map(Value::as_str).map(str::to_owned).collect(),
        _ => Vec::new(),
    };
    let (Some(from), Some(subject)) = (text("from"), text("subject")) else {
        return resend_error(
            StatusCode::UNPROCESSABLE_ENTITY,
            "validation_error",
            "Missing `from` or `subject` field.",
        );
    };
    if to.is_empty() || to.len() > 50 || to.iter().any(|address| !address.contains('@')) {
        return resend_error(StatusCode::UNPROCESSABLE_ENTITY, "validation_error", "Invalid `to` field.");
    }
    let Some(body) = text("text").or_else(|| text("html")) else {
        return resend_error(
            StatusCode::UNPROCESSABLE_ENTITY,
            "validation_error",
            "Missing `html` or `text` field.",
        );
    };
    let id = uuid::Uuid::new_v4().to_string();
    let mail = Mail { id: id.clone(), via: "api", op, from, to, subject, text: body, received_at: now };
    sandbox.deliver(mail, key);
    (StatusCode::OK, json!({"id": id}))
}

async fn read_email(State(sandbox): State<MailSandbox>, Path(id): Path<String>) -> Response {
    let found = sandbox.account.lock().own.iter().find(|mail| mail.id == id && mail.via == "api").cloned();
    match found {
        Some(mail) => respond((
            StatusCode::OK,
            json!({
                "object": "email",
                "id": mail.id,
                "to": mail.to,
                "from": mail.from,
                "created_at": mail.received_at.to_rfc3339(),
                "subject": mail.subject,
                "text": mail.text,
                "html": null,
                "bcc": null,
                "cc": null,
                "reply_to": null,
                "last_event": "delivered",
            }),
        )),
        None => respond(resend_error(StatusCode::NOT_FOUND, "not_found", "Email not found")),
    }
}

/// `GET /_sandbox/mail`: the mailbox.
async fn list_mail(State(sandbox): State<MailSandbox>) -> Json<Value> {
    Json(json!({"data": sandbox.mailbox()}))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_received_message_shows_its_operation_subject_and_text() {
        let data = "From: Shop <support@shop.example>\nSubject: Your refund\nX-Opledger-Op: acme:email-1043\nContent-Transfer-Encoding: base64\n\nSGVsbG8=\n";
        let mail = parse_message(data, "support@shop.example", &["c@example.com".into()]);
        assert_eq!(mail.op.as_deref(), Some("acme:email-1043"));
        assert_eq!(mail.subject, "Your refund");
        assert_eq!(mail.text, "Hello");
        assert_eq!(angle_address("MAIL FROM:<support@shop.example> BODY=8BITMIME"), "support@shop.example");
    }
}
