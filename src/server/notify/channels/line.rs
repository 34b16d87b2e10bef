//! LINE through the Messaging API's push message: `POST {api_base}/v2/bot/message/push` with the
//! channel access token as a bearer token, `{"to", "messages"}` as JSON, and an
//! `X-Line-Retry-Key` made from the delivery's id, so that every retry of one delivery carries
//! the same key and LINE sends the message once however often it is asked.
//!
//! From LINE's references (developers.line.biz): "Messaging API reference", section "Send push
//! message" (answered 200 with `{"sentMessages": [{"id", "quoteToken"}]}`; at most 5 messages) and
//! "Common specifications" (errors are `{"message", "details"}`: 400 a request LINE cannot take,
//! 401 an invalid channel access token, 403 not allowed, 429 a rate or message limit, 500 an
//! internal error); "Retry failed API requests" (the retry key is a hexadecimal UUID of the
//! caller's making; once a request under it was accepted, a retry is refused with 409 and the
//! header `x-line-accepted-request-id` naming the accepted request, and nothing is sent again; a
//! 5xx or a timeout may have been delivered, which is what the key settles); "Handle HTTP status
//! code 429 errors" (a 429 sent nothing).

use sha2::{Digest, Sha256};

use super::{SendOutcome, Senders};
use crate::domain::language::Language;
use crate::domain::notice::{self, Notice};

/// The retry key of a delivery: a UUID made from its id, the same on every retry.
pub fn retry_key(delivery_id: &str) -> String {
    let digest = Sha256::digest(format!("opledger-line-retry:{delivery_id}").as_bytes());
    let mut bytes = [0u8; 16];
    bytes.copy_from_slice(&digest[..16]);
    uuid::Builder::from_random_bytes(bytes).into_uuid().hyphenated().to_string()
}

pub(super) async fn send(
    senders: &Senders,
    api_base: &str,
    channel_token: &str,
    to: &str,
    notice: &Notice,
    language: Language,
    delivery_id: &str,
) -> SendOutcome {
    let url = format!("{}/v2/bot/message/push", api_base.trim_end_matches('/'));
    let body = serde_json::json!({"to": to, "messages": notice::line(notice, language)});
    let key = retry_key(delivery_id);
    let authorization = format!("Bearer {channel_token}");
    let headers = [("authorization", authorization.as_str()), ("x-line-retry-key", key.as_str())];
    match senders.post_json(&url, &headers, &body, "LINE").await {
        Ok(answer) => {
            let accepted = answer.header("x-line-accepted-request-id");
            outcome(answer.status, &answer.body, accepted, answer.retry_after())
        }
        Err(outcome) => outcome,
    }
}

/// LINE's `message` (and the first of its `details`) in an error body, kept short.
fn message_in(body: &str) -> String {
    let value: serde_json::Value = serde_json::from_str(body).unwrap_or_default();
    let message = value["message"].as_str().unwrap_or("no message").chars().take(300).collect::<String>();
    match value.pointer("/details/0") {
        Some(detail) => {
            let property = detail["property"].as_str().unwrap_or_default();
            let said = detail["message"].as_str().unwrap_or_default();
            format!("{message} ({property}: {said})").chars().take(500).collect()
        }
        None => message,
    }
}

/// What LINE's answer `status` with `body` (and the accepted request's id on a 409) means.
fn outcome(
    status: u16,
    body: &str,
    accepted_request: Option<String>,
    retry_after: Option<std::time::Duration>,
) -> SendOutcome {
    match status {
        200..=299 => {
            let value: serde_json::Value = serde_json::from_str(body).unwrap_or_default();
            let id =
                value.pointer("/sentMessages/0/id").and_then(serde_json::Value::as_str).map(str::to_owned);
            SendOutcome::Delivered { reference: id }
        }
        409 if accepted_request.is_some() => SendOutcome::Delivered { reference: accepted_request },
        409 => SendOutcome::Refused {
            error: format!("LINE answered 409 ({}) without naming the accepted request", message_in(body)),
        },
        401 => SendOutcome::Refused {
            error: format!(
                "LINE refused the channel access token ({}); issue a new one and save it",
                message_in(body)
            ),
        },
        403 => SendOutcome::Refused {
            error: format!("LINE does not allow this channel to push messages ({})", message_in(body)),
        },
        429 => SendOutcome::TryAgain {
            after: retry_after,
            error: format!("LINE answered 429 ({}): nothing was sent", message_in(body)),
        },
        400..=499 => SendOutcome::Refused { error: format!("LINE answered {status}: {}", message_in(body)) },
        500..=599 => SendOutcome::TryAgain {
            after: retry_after,
            error: format!(
                "LINE answered {status} ({}); a retry under the same retry key sends it at most once",
                message_in(body)
            ),
        },
        _ => SendOutcome::Refused {
            error: format!("LINE answered {status}, which it does not; redirects are not followed"),
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_deliverys_retry_key_is_one_uuid() {
        let key = retry_key("ntf_1");
        assert_eq!(key, retry_key("ntf_1"));
        assert_ne!(key, retry_key("ntf_2"));
        assert!(uuid::Uuid::parse_str(&key).is_ok() && key.len() == 36, "{key}");
    }

    #[test]
    fn lines_answers_are_read_as_its_reference_says() {
        let sent = r#"{"sentMessages":[{"id":"461230966842064897","quoteToken":"q"}]}"#;
        assert_eq!(
            outcome(200, sent, None, None),
            SendOutcome::Delivered { reference: Some("461230966842064897".into()) }
        );
        let again =
            outcome(409, r#"{"message":"The retry key is already accepted"}"#, Some("req-1".into()), None);
        assert_eq!(again, SendOutcome::Delivered { reference: Some("req-1".into()) });
        let token = outcome(
            401,
            r#"{"message":"Authentication failed. Confirm that the access token in the authorization header is valid."}"#,
            None,
            None,
        );
        assert!(
            matches!(&token, SendOutcome::Refused { error } if error.starts_with("LINE refused the channel access token"))
        );
        let bad = outcome(
            400,
            r#"{"message":"The request body has 1 error(s)","details":[{"message":"Length must be between 0 and 5000","property":"messages[0].text"}]}"#,
            None,
            None,
        );
        assert!(
            matches!(&bad, SendOutcome::Refused { error } if error.contains("messages[0].text")),
            "{bad:?}"
        );
        assert!(matches!(outcome(429, "{}", None, None), SendOutcome::TryAgain { .. }));
        assert!(matches!(outcome(500, "{}", None, None), SendOutcome::TryAgain { .. }));
    }
}
