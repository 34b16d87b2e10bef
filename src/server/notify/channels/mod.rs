//! The channels a notice is sent through: e-mail over SMTP ([`email`]), a Slack incoming webhook
//! ([`slack`]), a Microsoft Teams workflow webhook ([`teams`]) and a LINE push message ([`line`]).
//! [`Senders::send`] renders the notice for the destination's channel (see
//! [`crate::domain::notice`]), sends it once, and reads the answer into a [`SendOutcome`]: taken,
//! worth trying again later, never going to work as it stands, or unknown because the request may
//! have arrived.
//!
//! Every URL goes through the egress policy at each connection and no redirect is followed (the
//! clients come from [`EgressPolicy::client`]). Errors are sentences for an admin: they name a
//! webhook's host and never its URL (Slack's and Teams' webhook URLs are secrets), a token never.

pub mod email;
pub mod line;
pub mod slack;
pub mod teams;

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use crate::domain::language::Language;
use crate::domain::notice::Notice;
use crate::server::egress::EgressPolicy;

/// How long connecting may take.
pub const CONNECT_TIMEOUT: Duration = Duration::from_secs(5);
/// How long a whole request may take, from connecting to the end of the answer.
pub const REQUEST_TIMEOUT: Duration = Duration::from_secs(10);

/// Where one delivery goes, with its secrets already opened.
#[derive(Clone)]
pub enum Destination {
    Email {
        smtp: SmtpSettings,
        to: String,
    },
    Slack {
        webhook_url: String,
    },
    Teams {
        webhook_url: String,
    },
    Line {
        /// `https://api.line.me` normally.
        api_base: String,
        channel_token: String,
        /// A user, group or room id.
        to: String,
    },
}

/// Shows where a destination goes without its secrets: a webhook by its host, LINE without its
/// token, a mail server without its password.
impl std::fmt::Debug for Destination {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Destination::Email { smtp, to } => {
                f.debug_struct("Email").field("smtp", smtp).field("to", to).finish()
            }
            Destination::Slack { webhook_url } => {
                f.debug_struct("Slack").field("host", &host_of(webhook_url)).finish()
            }
            Destination::Teams { webhook_url } => {
                f.debug_struct("Teams").field("host", &host_of(webhook_url)).finish()
            }
            Destination::Line { api_base, to, .. } => {
                f.debug_struct("Line").field("api_base", api_base).field("to", to).finish_non_exhaustive()
            }
        }
    }
}

/// A mail server and the sender notices go out as.
#[derive(Clone)]
pub struct SmtpSettings {
    pub host: String,
    pub port: u16,
    pub security: SmtpSecurity,
    pub username: Option<String>,
    pub password: Option<String>,
    /// The sender, `Opledger <ops@shop.example>`.
    pub from: String,
}

impl std::fmt::Debug for SmtpSettings {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SmtpSettings")
            .field("host", &self.host)
            .field("port", &self.port)
            .field("security", &self.security)
            .field("username", &self.username)
            .field("from", &self.from)
            .finish_non_exhaustive()
    }
}

/// How the connection to a mail server is encrypted.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SmtpSecurity {
    /// None: only to an address the operator allowed (`--allow-egress`), as plain http is.
    None,
    /// STARTTLS after the greeting (port 587); a server that offers none is reached unencrypted
    /// only at an address the operator allowed.
    StartTls,
    /// TLS from the first byte (port 465).
    Tls,
}

/// What became of one send.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SendOutcome {
    /// The channel took it; `reference` is its id when it gives one (LINE's sent message id, the
    /// SMTP server's queue answer).
    Delivered { reference: Option<String> },
    /// Nothing was delivered and trying again later may work (a 429 with its `Retry-After`, a 5xx
    /// that means not delivered, a connection refused).
    TryAgain { after: Option<Duration>, error: String },
    /// It will never work as it stands (an invalid token, an unknown webhook, an invalid payload,
    /// the egress policy's refusal): not to be retried; `error` is shown to admins.
    Refused { error: String },
    /// The request may have reached the channel (a timeout after it was sent, a connection dropped
    /// before the answer).
    Unknown { error: String },
}

/// Whether a channel recognises a retried send as the same message, so that a send interrupted
/// between sending and recording may be retried without a second message: LINE does, by the
/// `X-Line-Retry-Key` derived from the delivery; a mail server, Slack and Teams do not.
pub fn retries_are_recognised(destination: &Destination) -> bool {
    match destination {
        Destination::Line { .. } => true,
        Destination::Email { .. } | Destination::Slack { .. } | Destination::Teams { .. } => false,
    }
}

/// The senders of every channel: HTTP clients checked by the egress policy, one per URL, and
/// SMTP connections opened through the same policy.
#[derive(Clone)]
pub struct Senders {
    egress: EgressPolicy,
    clients: Arc<Mutex<HashMap<String, reqwest::Client>>>,
}

impl Senders {
    pub fn new(egress: EgressPolicy) -> Self {
        Self { egress, clients: Arc::default() }
    }

    /// Sends `notice` in `language` to `destination`; `delivery_id` is the outbox row's stable id,
    /// the same on every retry of one delivery (it makes the e-mail's `Message-ID` and LINE's retry
    /// key).
    #[tracing::instrument(skip_all, fields(delivery_id = %delivery_id))]
    pub async fn send(
        &self,
        destination: &Destination,
        notice: &Notice,
        language: Language,
        delivery_id: &str,
    ) -> SendOutcome {
        let outcome = match destination {
            Destination::Email { smtp, to } => {
                email::send(&self.egress, smtp, to, notice, language, delivery_id).await
            }
            Destination::Slack { webhook_url } => slack::send(self, webhook_url, notice, language).await,
            Destination::Teams { webhook_url } => teams::send(self, webhook_url, notice, language).await,
            Destination::Line { api_base, channel_token, to } => {
                line::send(self, api_base, channel_token, to, notice, language, delivery_id).await
            }
        };
        match &outcome {
            SendOutcome::Delivered { .. } => tracing::debug!("the notice was delivered"),
            SendOutcome::TryAgain { error, .. } => tracing::info!(%error, "the notice was not delivered"),
            SendOutcome::Refused { error } => tracing::warn!(%error, "the notice was refused"),
            SendOutcome::Unknown { error } => tracing::warn!(%error, "the notice may have been delivered"),
        }
        outcome
    }

    /// The client for requests to `url`, or why the egress policy refuses it.
    fn client_for(&self, url: &str) -> Result<reqwest::Client, String> {
        let mut clients = self.clients.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        if let Some(client) = clients.get(url) {
            return Ok(client.clone());
        }
        let client = self
            .egress
            .client(url, REQUEST_TIMEOUT, CONNECT_TIMEOUT)
            .map_err(|why| format!("refused by the egress policy: {why}"))?;
        clients.insert(url.to_owned(), client.clone());
        Ok(client)
    }

    /// Posts `body` as JSON to `url` with `headers`; an answer, or what became of a request that
    /// got none (`service` names the channel in the error, `host` the address).
    async fn post_json(
        &self,
        url: &str,
        headers: &[(&str, &str)],
        body: &serde_json::Value,
        service: &str,
    ) -> Result<Answer, SendOutcome> {
        let host = host_of(url);
        let client = self.client_for(url).map_err(|error| SendOutcome::Refused {
            error: format!("{service} at {host} cannot be reached: {error}"),
        })?;
        let mut request = client.post(url).json(body);
        for (name, value) in headers {
            request = request.header(*name, *value);
        }
        let response = request.send().await.map_err(|error| unanswered(&error, service, &host))?;
        let status = response.status().as_u16();
        let headers = response.headers().clone();
        match response.text().await {
            Ok(body) => Ok(Answer { status, headers, body }),
            Err(error) => Err(SendOutcome::Unknown {
                error: format!(
                    "{service} at {host} answered {status} but its answer broke off ({}): it may have taken the message",
                    words_of(&error)
                ),
            }),
        }
    }
}

/// An HTTP answer, read whole.
struct Answer {
    status: u16,
    headers: reqwest::header::HeaderMap,
    body: String,
}

impl Answer {
    /// The `Retry-After` it gives, in seconds (the date form is not read: a wait of the caller's
    /// choosing follows).
    fn retry_after(&self) -> Option<Duration> {
        self.headers
            .get(reqwest::header::RETRY_AFTER)
            .and_then(|value| value.to_str().ok())
            .and_then(|value| value.trim().parse::<u64>().ok())
            .map(Duration::from_secs)
    }

    /// The header `name`, when it is text.
    fn header(&self, name: &str) -> Option<String> {
        self.headers.get(name).and_then(|value| value.to_str().ok()).map(str::to_owned)
    }
}

/// The host of `url`, which is what errors name (a webhook's URL is its secret).
pub fn host_of(url: &str) -> String {
    reqwest::Url::parse(url.trim())
        .ok()
        .and_then(|url| url.host_str().map(str::to_owned))
        .unwrap_or_else(|| "an address that is not a URL".to_owned())
}

/// A request error in words, without the URL it was for.
fn words_of(error: &reqwest::Error) -> String {
    let mut text = String::new();
    let mut source = std::error::Error::source(error);
    while let Some(cause) = source {
        if !text.is_empty() {
            text.push_str(": ");
        }
        text.push_str(&cause.to_string());
        source = cause.source();
    }
    if text.is_empty() {
        text = if error.is_timeout() { "timed out".to_owned() } else { "the request failed".to_owned() };
    }
    text
}

/// What a request that got no answer means: nothing sent when it never connected (or the egress
/// policy refused the address, which will not change by itself), unknown once it may have been
/// sent.
fn unanswered(error: &reqwest::Error, service: &str, host: &str) -> SendOutcome {
    let words = words_of(error);
    if words.contains("refused by the egress policy") {
        return SendOutcome::Refused { error: format!("{service} at {host} cannot be reached: {words}") };
    }
    if error.is_connect() {
        return SendOutcome::TryAgain {
            after: None,
            error: format!("could not connect to {service} at {host} ({words}); nothing was sent"),
        };
    }
    if error.is_builder() {
        return SendOutcome::Refused {
            error: format!("the request to {service} at {host} cannot be made: {words}"),
        };
    }
    let why = if error.is_timeout() {
        format!("{service} at {host} did not answer within {} s", REQUEST_TIMEOUT.as_secs())
    } else {
        format!("the connection to {service} at {host} broke before its answer ({words})")
    };
    SendOutcome::Unknown { error: format!("{why}: it may have taken the message") }
}

/// An error code a channel answered, kept to the letters such codes are made of, so that an
/// admin's sentence never quotes arbitrary text.
fn code_in(body: &str) -> String {
    let code: String = body
        .trim()
        .chars()
        .take(64)
        .filter(|c| c.is_ascii_alphanumeric() || *c == '_' || *c == '.')
        .collect();
    if code.is_empty() {
        "with no code".to_owned()
    } else {
        code
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_destination_never_shows_its_secrets() {
        let slack =
            Destination::Slack { webhook_url: "https://hooks.slack.com/services/T0/B0/secretpart".into() };
        let shown = format!("{slack:?}");
        assert!(shown.contains("hooks.slack.com") && !shown.contains("secretpart"), "{shown}");
        let line = Destination::Line {
            api_base: "https://api.line.me".into(),
            channel_token: "token-secret".into(),
            to: "U123".into(),
        };
        assert!(!format!("{line:?}").contains("token-secret"));
        let smtp = SmtpSettings {
            host: "mail.example.com".into(),
            port: 587,
            security: SmtpSecurity::StartTls,
            username: Some("ops".into()),
            password: Some("hunter2".into()),
            from: "ops@example.com".into(),
        };
        assert!(!format!("{:?}", Destination::Email { smtp, to: "a@b.example".into() }).contains("hunter2"));
        assert!(retries_are_recognised(&line) && !retries_are_recognised(&slack));
        assert_eq!(code_in("no_service\n"), "no_service");
        assert_eq!(code_in("<html>oops</html>"), "htmloopshtml");
    }
}
