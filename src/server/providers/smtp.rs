//! The connector for plain SMTP (`smtp://host:587` with STARTTLS, `smtps://host:465`): each
//! `send_email` operation is one message on a connection of its own, from the connection's sender
//! to `params.to`, with the operation's key in an `X-Opledger-Op` header and a Message-ID derived
//! from it. SMTP honours no key and cannot be asked what it delivered, so it runs at most once,
//! and what an answer proves is read by where the conversation stopped: nothing sent before the
//! message's data (no connection, a refused greeting, TLS or login) was sent; a 4xx or 5xx reply
//! to the data means the server did not take it; a connection that breaks or goes silent after the
//! final `.` leaves it unknown (RFC 1047's duplicate-or-lost case), and people settle it.

use async_trait::async_trait;
use lettre::message::{header::ContentType, Mailbox, Message};
use lettre::transport::smtp::authentication::{Credentials, Mechanism};
use lettre::transport::smtp::client::{AsyncSmtpConnection, TlsParameters};
use lettre::transport::smtp::extension::ClientId;
use sha2::{Digest, Sha256};
use std::time::{Duration, Instant};

use super::http::failed;
use super::{Checked, Connector, Lookup, Sent};
use crate::domain::connection::ProviderKind;
use crate::domain::failure::FailureClass;
use crate::domain::machine::AttemptOutcome;
use crate::domain::operation::{AttemptReport, OperationRecord};
use crate::server::egress::EgressPolicy;

/// A mail server and the sender its messages go out as.
pub struct SmtpConnector {
    host: String,
    port: u16,
    /// `smtps://`: TLS from the first byte; otherwise STARTTLS, which only an address the
    /// operator allowed may go without.
    implicit_tls: bool,
    sender: String,
    password: String,
    timeout: Duration,
    egress: EgressPolicy,
}

/// A message ready to hand over, or why it cannot be written.
struct Letter {
    envelope: lettre::address::Envelope,
    bytes: Vec<u8>,
    message_id: String,
}

impl SmtpConnector {
    /// A connector for the server at `base_url` (`smtp://host[:587]` or `smtps://host[:465]`),
    /// sending as `sender` (`Shop <support@shop.example>`), logging in as the sender's address with
    /// `password` when the server asks for a login.
    pub fn new(
        base_url: &str,
        password: &str,
        sender: &str,
        timeout: Duration,
        egress: &EgressPolicy,
    ) -> Result<Self, String> {
        let (host, port, implicit_tls) = parse_smtp_url(base_url)?;
        Ok(Self {
            host,
            port,
            implicit_tls,
            sender: sender.to_owned(),
            password: password.to_owned(),
            timeout,
            egress: egress.clone(),
        })
    }

    fn letter(&self, operation: &OperationRecord) -> Result<Letter, String> {
        let param = |name: &str| {
            operation
                .params
                .as_value()
                .get(name)
                .and_then(serde_json::Value::as_str)
                .ok_or_else(|| format!("params.{name} is missing"))
        };
        let from: Mailbox =
            self.sender.parse().map_err(|error| format!("the sender {:?}: {error}", self.sender))?;
        let to: Mailbox = param("to")?.parse().map_err(|error| format!("params.to: {error}"))?;
        let digest = hex::encode(Sha256::digest(operation.idempotency_key.as_bytes()));
        let domain = from.email.domain().to_owned();
        let message_id = format!("<{}@{domain}>", &digest[..40]);
        let message = Message::builder()
            .from(from)
            .to(to)
            .subject(param("subject")?)
            .message_id(Some(message_id.clone()))
            .raw_header(lettre::message::header::HeaderValue::new(
                lettre::message::header::HeaderName::new_from_ascii_str("X-Opledger-Op"),
                operation.idempotency_key.clone(),
            ))
            .header(ContentType::TEXT_PLAIN)
            .body(param("text")?.to_owned())
            .map_err(|error| format!("the message cannot be written: {error}"))?;
        Ok(Letter { envelope: message.envelope().clone(), bytes: message.formatted(), message_id })
    }

    /// Opens a connection to an address the egress policy allows, with TLS (implicit, or by
    /// STARTTLS unless the operator allowed a plain one) and a login as the sender's address when
    /// the server offers one. Nothing of the message has left when this fails.
    async fn open(&self) -> Result<AsyncSmtpConnection, String> {
        let address =
            self.sender.parse::<Mailbox>().map(|mailbox| mailbox.email.to_string()).unwrap_or_default();
        let server = MailServer {
            host: &self.host,
            port: self.port,
            tls: if self.implicit_tls { MailTls::Implicit } else { MailTls::StartTls },
            login: Some(Credentials::new(address, self.password.clone())),
            timeout: self.timeout,
        };
        open_connection(&server, &self.egress).await.map_err(|not_opened| not_opened.reason)
    }
}

/// A mail server to open a connection to.
pub struct MailServer<'a> {
    pub host: &'a str,
    pub port: u16,
    pub tls: MailTls,
    /// Used when the server offers a login (PLAIN or LOGIN).
    pub login: Option<Credentials>,
    pub timeout: Duration,
}

/// How a connection to a mail server is encrypted.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MailTls {
    /// TLS from the first byte.
    Implicit,
    /// STARTTLS when the server offers it; otherwise plain, only to an address the operator
    /// allowed.
    StartTls,
    /// Plain, only to an address the operator allowed.
    None,
}

/// Why a connection was not opened, and whether trying again can help.
#[derive(Debug)]
pub struct NotOpened {
    pub reason: String,
    /// Trying again cannot help as things stand: the egress policy refuses the address, the login
    /// was refused, or the server offers no encryption where it is needed.
    pub lasting: bool,
}

/// Opens a connection to `server` at an address `egress` allows, encrypted as `server.tls` asks,
/// logged in when the server offers a login and `server.login` is set. Nothing of a message has
/// left when this fails.
pub async fn open_connection(
    server: &MailServer<'_>,
    egress: &EgressPolicy,
) -> Result<AsyncSmtpConnection, NotOpened> {
    let lasting = |reason: String| NotOpened { reason, lasting: true };
    let passing = |reason: String| NotOpened { reason, lasting: false };
    let (host, port) = (server.host, server.port);
    let refused = |why: String| {
        if why.contains("could not be resolved") {
            passing(why)
        } else {
            lasting(format!("refused by the egress policy: {why}"))
        }
    };
    let (addresses, plain_allowed) = match egress.allowed_addresses(host, port, false).await {
        Ok(addresses) => (addresses, true),
        Err(why) if server.tls == MailTls::None => return Err(refused(why)),
        Err(_) => (egress.allowed_addresses(host, port, true).await.map_err(refused)?, false),
    };
    let hello = ClientId::Domain("opledger".to_owned());
    let tls = || TlsParameters::new(host.to_owned()).map_err(|error| lasting(format!("no TLS: {error}")));
    let implicit = if server.tls == MailTls::Implicit { Some(tls()?) } else { None };
    let mut connection =
        AsyncSmtpConnection::connect_tokio1(addresses[0], Some(server.timeout), &hello, implicit, None)
            .await
            .map_err(|error| passing(format!("could not connect to {host}:{port}: {error}")))?;
    if server.tls == MailTls::StartTls {
        if connection.can_starttls() {
            connection
                .starttls(tls()?, &hello)
                .await
                .map_err(|error| passing(format!("STARTTLS failed: {error}")))?;
        } else if !plain_allowed {
            connection.abort().await;
            return Err(lasting(format!("{host} offers no STARTTLS, and mail to it would go unencrypted")));
        }
    }
    let mechanisms = [Mechanism::Plain, Mechanism::Login];
    let offered =
        mechanisms.iter().any(|mechanism| connection.server_info().supports_auth_mechanism(*mechanism));
    if let (true, Some(credentials)) = (offered, &server.login) {
        connection.auth(&mechanisms, credentials).await.map_err(|error| NotOpened {
            reason: format!("the login was refused: {error}"),
            lasting: error.is_permanent(),
        })?;
    }
    Ok(connection)
}

/// The host, port and implicit TLS of `smtp://host[:port]` or `smtps://host[:port]`.
pub fn parse_smtp_url(base_url: &str) -> Result<(String, u16, bool), String> {
    let url = url::Url::parse(base_url.trim()).map_err(|_| format!("{base_url:?} is not a URL"))?;
    let implicit_tls = match url.scheme() {
        "smtps" => true,
        "smtp" => false,
        _ => return Err("a mail server's address is smtp://host:587 (STARTTLS) or smtps://host:465".into()),
    };
    let host = url.host_str().filter(|host| !host.is_empty()).ok_or("the address has no host")?;
    let port = url.port().unwrap_or(if implicit_tls { 465 } else { 587 });
    Ok((host.trim_matches(['[', ']']).to_owned(), port, implicit_tls))
}

#[async_trait]
impl Connector for SmtpConnector {
    fn kind(&self) -> ProviderKind {
        ProviderKind::Smtp
    }

    async fn check(&self, operation: &OperationRecord) -> Checked {
        match self.letter(operation) {
            Ok(_) => Checked::Valid { amount: None },
            Err(reason) => Checked::Invalid { reason },
        }
    }

    async fn send(&self, operation: &OperationRecord) -> Sent {
        let letter = match self.letter(operation) {
            Ok(letter) => letter,
            Err(reason) => {
                return failed(
                    FailureClass::InvalidParams,
                    AttemptReport { error: Some(reason), ..Default::default() },
                )
            }
        };
        let started = Instant::now();
        let elapsed = || Some(u64::try_from(started.elapsed().as_millis()).unwrap_or(u64::MAX));
        let mut connection = match self.open().await {
            Ok(connection) => connection,
            Err(reason) => {
                let report = AttemptReport {
                    latency_ms: elapsed(),
                    error: Some(format!("not sent: {reason}")),
                    ..Default::default()
                };
                return failed(FailureClass::NotSent, report);
            }
        };
        let handed =
            tokio::time::timeout(self.timeout, connection.send(&letter.envelope, &letter.bytes)).await;
        let latency_ms = elapsed();
        let sent = match handed {
            Ok(Ok(response)) => {
                let words = response.message().collect::<Vec<_>>().join(" ");
                let report = AttemptReport {
                    latency_ms,
                    external_id: Some(letter.message_id.clone()),
                    error: None,
                    ..Default::default()
                };
                tracing::info!(reply = %words, "the mail server took the message");
                Sent { outcome: AttemptOutcome::Succeeded { external_id: Some(letter.message_id) }, report }
            }
            Ok(Err(error)) if error.is_permanent() => {
                let report = AttemptReport {
                    latency_ms,
                    error: Some(format!("the mail server refused it: {error}")),
                    ..Default::default()
                };
                failed(FailureClass::BusinessRejection, report)
            }
            Ok(Err(error)) if error.is_transient() => {
                let report = AttemptReport {
                    latency_ms,
                    error: Some(format!("the mail server did not take it now: {error}")),
                    ..Default::default()
                };
                failed(FailureClass::TransientUnavailable { retry_after_s: None }, report)
            }
            Ok(Err(error)) => {
                let report = AttemptReport {
                    latency_ms,
                    error: Some(format!("the connection broke while the message was handed over ({error}): the server may have taken it")),
                    ..Default::default()
                };
                failed(FailureClass::Timeout, report)
            }
            Err(_) => {
                let report = AttemptReport {
                    latency_ms,
                    error: Some(format!(
                        "the mail server did not answer the message within {} ms: it may have taken it",
                        self.timeout.as_millis()
                    )),
                    ..Default::default()
                };
                failed(FailureClass::Timeout, report)
            }
        };
        if sent.outcome.as_str() != FailureClass::Timeout.as_str() {
            let _ = tokio::time::timeout(Duration::from_secs(1), connection.quit()).await;
        }
        sent
    }

    async fn look_up(&self, _operation: &OperationRecord) -> Lookup {
        Lookup::Unavailable { reason: "a mail server cannot be asked what it delivered".into() }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mail_server_addresses_are_read_with_their_tls() {
        assert_eq!(
            parse_smtp_url("smtp://mail.example.com").unwrap(),
            ("mail.example.com".into(), 587, false)
        );
        assert_eq!(
            parse_smtp_url("smtps://mail.example.com").unwrap(),
            ("mail.example.com".into(), 465, true)
        );
        assert_eq!(parse_smtp_url("smtp://127.0.0.1:2525").unwrap(), ("127.0.0.1".into(), 2525, false));
        assert!(parse_smtp_url("https://mail.example.com").is_err());
    }
}
