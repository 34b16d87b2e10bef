//! Slack through an incoming webhook: the notice as JSON (`text` and Block Kit `blocks`) posted to
//! the webhook's URL, which is the webhook's secret.
//!
//! From Slack's references: "Sending messages using incoming webhooks" (docs.slack.dev/messaging/
//! sending-messages-using-incoming-webhooks) and the changelog "Improving error conditions for
//! Incoming Webhooks" (api.slack.com/changelog/2016-05-17-changes-to-errors-for-incoming-webhooks):
//! a post that is taken is answered `200` with the body `ok`; errors are a status and a short code
//! as the body: 400 `invalid_payload` (also `invalid_blocks`, `invalid_blocks_format`,
//! `too_many_attachments`, `no_text`, `user_not_found`), 403 `invalid_token` or
//! `action_prohibited`, 404 `no_service` (the webhook was removed) or `channel_not_found`, 410
//! `channel_is_archived`, and 500 `rollup_error`. Its rate limits ("Rate limits": about one
//! message a second, short bursts allowed) answer 429 with `Retry-After` in seconds.

use super::{code_in, host_of, SendOutcome, Senders};
use crate::domain::language::Language;
use crate::domain::notice::{self, Notice};

pub(super) async fn send(
    senders: &Senders,
    webhook_url: &str,
    notice: &Notice,
    language: Language,
) -> SendOutcome {
    let body = notice::slack(notice, language);
    match senders.post_json(webhook_url, &[], &body, "Slack").await {
        Ok(answer) => outcome(answer.status, &answer.body, answer.retry_after(), &host_of(webhook_url)),
        Err(outcome) => outcome,
    }
}

/// What Slack's answer `status` with `body` means.
fn outcome(status: u16, body: &str, retry_after: Option<std::time::Duration>, host: &str) -> SendOutcome {
    let code = code_in(body);
    let refused =
        |why: &str| SendOutcome::Refused { error: format!("Slack answered {status} {code}: {why}") };
    match status {
        200..=299 => SendOutcome::Delivered { reference: None },
        429 => SendOutcome::TryAgain {
            after: retry_after,
            error: format!("Slack at {host} limits how fast this webhook posts (429); nothing was posted"),
        },
        400 => refused("Slack could not take the message as written"),
        403 if code == "invalid_token" => {
            refused("the webhook's token is no longer valid; make a new webhook")
        }
        403 => refused("the workspace does not let this webhook post there"),
        404 if code == "channel_not_found" => refused("the webhook's channel no longer exists"),
        404 => refused("the webhook was removed; make a new one and save its URL"),
        410 => refused("the webhook's channel is archived"),
        500..=599 => SendOutcome::TryAgain {
            after: retry_after,
            error: format!("Slack answered {status} {code}: it failed and did not post the message"),
        },
        300..=399 => {
            refused("Slack sent it elsewhere, and redirects are not followed; check the webhook's URL")
        }
        _ => refused("Slack did not take the message"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    #[test]
    fn slacks_answers_are_read_as_its_reference_says() {
        assert_eq!(outcome(200, "ok", None, "h"), SendOutcome::Delivered { reference: None });
        let removed = outcome(404, "no_service", None, "hooks.slack.com");
        assert_eq!(
            removed,
            SendOutcome::Refused {
                error:
                    "Slack answered 404 no_service: the webhook was removed; make a new one and save its URL"
                        .into()
            }
        );
        assert!(matches!(outcome(410, "channel_is_archived", None, "h"), SendOutcome::Refused { .. }));
        assert!(matches!(outcome(400, "invalid_blocks", None, "h"), SendOutcome::Refused { .. }));
        assert!(matches!(outcome(403, "invalid_token", None, "h"), SendOutcome::Refused { .. }));
        assert!(matches!(
            outcome(429, "rate_limited", Some(Duration::from_secs(2)), "h"),
            SendOutcome::TryAgain { after: Some(after), .. } if after == Duration::from_secs(2)
        ));
        assert!(matches!(outcome(500, "rollup_error", None, "h"), SendOutcome::TryAgain { .. }));
    }
}
