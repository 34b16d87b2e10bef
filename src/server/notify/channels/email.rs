//! E-mail over SMTP: the notice as one `multipart/alternative` message (plain text and HTML) from
//! the settings' sender to one recipient, on a connection of its own opened through the egress
//! policy as the SMTP connector opens its own ([`open_connection`]).
//!
//! Its `Message-ID` is made from the delivery's id, so that every retry of one delivery carries the
//! same one (a mail server does not recognise it, but a reader's client shows one message). The
//! recipient and every header are checked once filled in: a line break or a malformed address is
//! refused before anything is sent. The answer is read by where the conversation stopped (RFC
//! 5321, and RFC 1047 for the lost answer to the final `.`): no connection, or one refused before
//! the message, sent nothing; a 4xx reply is a refusal for now and a 5xx one for good; a
//! connection that breaks or goes silent once the message is on its way leaves it unknown.

use lettre::message::{Mailbox, Message, MultiPart};
use lettre::transport::smtp::authentication::Credentials;
use sha2::{Digest, Sha256};

use super::{SendOutcome, SmtpSecurity, SmtpSettings, REQUEST_TIMEOUT};
use crate::domain::language::Language;
use crate::domain::notice::{self, Notice};
use crate::server::egress::EgressPolicy;
use crate::server::providers::smtp::{open_connection, MailServer, MailTls};

/// The `Message-ID` of a delivery's message, the same on every retry of it.
pub fn message_id(delivery_id: &str) -> String {
    let digest = hex::encode(Sha256::digest(format!("opledger-notice:{delivery_id}").as_bytes()));
    format!("<{}@opledger>", &digest[..40])
}

/// A message ready to hand over.
struct Letter {
    envelope: lettre::address::Envelope,
    bytes: Vec<u8>,
}

/// Whether `value` would break out of its header (a line break or another control character).
fn breaks_a_header(value: &str) -> bool {
    value.chars().any(char::is_control)
}

/// The message, or why it cannot be written (which no retry changes).
fn letter(
    settings: &SmtpSettings,
    to: &str,
    notice: &Notice,
    language: Language,
    delivery_id: &str,
) -> Result<Letter, String> {
    if breaks_a_header(to) {
        return Err("the recipient's address has a line break or a control character in it".into());
    }
    if breaks_a_header(&settings.from) {
        return Err("the sender's address has a line break or a control character in it".into());
    }
    let to: Mailbox =
        to.trim().parse().map_err(|error| format!("the recipient's address is not an address: {error}"))?;
    let from: Mailbox = settings
        .from
        .trim()
        .parse()
        .map_err(|error| format!("the sender's address is not an address: {error}"))?;
    let rendered = notice::email(notice, language);
    if breaks_a_header(&rendered.subject) {
        return Err("the subject has a line break in it".into());
    }
    let message = Message::builder()
        .from(from)
        .to(to)
        .subject(rendered.subject)
        .message_id(Some(message_id(delivery_id)))
        .multipart(MultiPart::alternative_plain_html(rendered.text, rendered.html))
        .map_err(|error| format!("the message cannot be written: {error}"))?;
    Ok(Letter { envelope: message.envelope().clone(), bytes: message.formatted() })
}

pub(super) async fn send(
    egress: &EgressPolicy,
    settings: &SmtpSettings,
    to: &str,
    notice: &Notice,
    language: Language,
    delivery_id: &str,
) -> SendOutcome {
    let letter = match letter(settings, to, notice, language, delivery_id) {
        Ok(letter) => letter,
        Err(error) => return SendOutcome::Refused { error },
    };
    let login = match (&settings.username, &settings.password) {
        (Some(username), password) => {
            Some(Credentials::new(username.clone(), password.clone().unwrap_or_default()))
        }
        (None, _) => None,
    };
    let server = MailServer {
        host: &settings.host,
        port: settings.port,
        tls: match settings.security {
            SmtpSecurity::None => MailTls::None,
            SmtpSecurity::StartTls => MailTls::StartTls,
            SmtpSecurity::Tls => MailTls::Implicit,
        },
        login,
        timeout: REQUEST_TIMEOUT,
    };
    let host = &settings.host;
    let mut connection = match open_connection(&server, egress).await {
        Ok(connection) => connection,
        Err(not_opened) if not_opened.lasting => {
            return SendOutcome::Refused { error: format!("the mail server {host}: {}", not_opened.reason) }
        }
        Err(not_opened) => {
            return SendOutcome::TryAgain {
                after: None,
                error: format!("nothing was sent to the mail server {host}: {}", not_opened.reason),
            }
        }
    };
    let handed =
        tokio::time::timeout(REQUEST_TIMEOUT, connection.send(&letter.envelope, &letter.bytes)).await;
    let outcome = match handed {
        Ok(Ok(response)) => {
            let words = response.message().collect::<Vec<_>>().join(" ");
            let reference = format!("{} {words}", response.code()).trim().to_owned();
            SendOutcome::Delivered { reference: Some(reference) }
        }
        Ok(Err(error)) if error.is_permanent() => {
            SendOutcome::Refused { error: format!("the mail server {host} refused the message: {error}") }
        }
        Ok(Err(error)) if error.is_transient() => SendOutcome::TryAgain {
            after: None,
            error: format!("the mail server {host} did not take the message now: {error}"),
        },
        Ok(Err(error)) => SendOutcome::Unknown {
            error: format!(
                "the connection to the mail server {host} broke while the message was handed over ({error}): it may have taken it"
            ),
        },
        Err(_) => SendOutcome::Unknown {
            error: format!(
                "the mail server {host} did not answer within {} s: it may have taken the message",
                REQUEST_TIMEOUT.as_secs()
            ),
        },
    };
    if !matches!(outcome, SendOutcome::Unknown { .. }) {
        let _ = tokio::time::timeout(std::time::Duration::from_secs(1), connection.quit()).await;
    }
    outcome
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::notice::{NoticeItem, NoticeSubject};
    use crate::domain::notification::{NotifyEvent, Stage};

    fn settings() -> SmtpSettings {
        SmtpSettings {
            host: "127.0.0.1".into(),
            port: 2525,
            security: SmtpSecurity::None,
            username: None,
            password: None,
            from: "Opledger <ops@shop.example>".into(),
        }
    }

    fn notice() -> Notice {
        Notice::One(NoticeItem {
            event: NotifyEvent::NeedsReview,
            stage: Stage::First,
            subject: NoticeSubject::Operation {
                op_id: "refund-1043".into(),
                kind: "refund".into(),
                amount: None,
                item: None,
            },
            asked_by: None,
            waiting_minutes: 0,
            link: "https://ops.example.com/operations/refund-1043".into(),
        })
    }

    #[test]
    fn a_message_has_its_deliverys_message_id_and_both_bodies() {
        let letter = letter(&settings(), "manager@shop.example", &notice(), Language::ZhTw, "ntf_1").unwrap();
        let text = String::from_utf8_lossy(&letter.bytes);
        assert!(text.contains(&format!("Message-ID: {}", message_id("ntf_1"))), "{text}");
        assert!(text.contains("multipart/alternative") && text.contains("text/html"), "{text}");
        assert_eq!(message_id("ntf_1"), message_id("ntf_1"));
        assert_ne!(message_id("ntf_1"), message_id("ntf_2"));
    }

    #[test]
    fn a_broken_or_injected_address_is_refused_before_sending() {
        for to in ["manager@shop.example\r\nBcc: eve@evil.example", "not an address", "a@b\nc", ""] {
            assert!(letter(&settings(), to, &notice(), Language::En, "ntf_1").is_err(), "{to:?}");
        }
        let injected =
            SmtpSettings { from: "ops@shop.example\r\nBcc: eve@evil.example".into(), ..settings() };
        assert!(letter(&injected, "manager@shop.example", &notice(), Language::En, "ntf_1").is_err());
    }
}
