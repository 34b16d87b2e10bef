//! Microsoft Teams through a workflow webhook (Power Automate's trigger "When a Teams webhook
//! request is received", which replaces the retired Office 365 connectors): the notice as a
//! message with one Adaptive Card attachment posted to the workflow's URL, which is its secret.
//!
//! From Microsoft's references: "Create incoming webhooks with Workflows for Microsoft Teams" and
//! the Teams connector's reference (learn.microsoft.com/connectors/teams: the trigger takes
//! `{"type": "message", "attachments": [{"contentType": "application/vnd.microsoft.card.adaptive",
//! "content": …}]}`, and a message may weigh about 28 KB, beyond which posting fails with "Request
//! Entity too large"), and "Create Incoming Webhooks" (more than four requests a second are
//! throttled with 429). The trigger answers 202 Accepted once it has taken the request (200 when
//! the flow answers itself); Power Automate's errors are JSON `{"error": {"code", "message"}}`.

use super::{host_of, SendOutcome, Senders};
use crate::domain::language::Language;
use crate::domain::notice::{self, Notice};

pub(super) async fn send(
    senders: &Senders,
    webhook_url: &str,
    notice: &Notice,
    language: Language,
) -> SendOutcome {
    let body = notice::teams(notice, language);
    match senders.post_json(webhook_url, &[], &body, "Teams").await {
        Ok(answer) => outcome(answer.status, &answer.body, answer.retry_after(), &host_of(webhook_url)),
        Err(outcome) => outcome,
    }
}

/// The error code in a Power Automate error body, when it has one.
fn error_code(body: &str) -> Option<String> {
    let value: serde_json::Value = serde_json::from_str(body).ok()?;
    let code = value.pointer("/error/code")?.as_str()?;
    Some(super::code_in(code))
}

/// What the workflow's answer `status` with `body` means.
fn outcome(status: u16, body: &str, retry_after: Option<std::time::Duration>, host: &str) -> SendOutcome {
    let code = error_code(body).map(|code| format!(" {code}")).unwrap_or_default();
    match status {
        200..=299 => SendOutcome::Delivered { reference: None },
        429 => SendOutcome::TryAgain {
            after: retry_after,
            error: format!("the Teams workflow at {host} is throttled (429{code}); nothing was posted"),
        },
        413 => SendOutcome::Refused {
            error: format!("the Teams workflow answered 413{code}: the message is larger than Teams takes"),
        },
        401 | 403 => SendOutcome::Refused {
            error: format!("the Teams workflow answered {status}{code}: its URL is no longer valid; make the workflow's URL anew"),
        },
        404 => SendOutcome::Refused {
            error: format!("the Teams workflow answered 404{code}: the workflow was removed or turned off"),
        },
        400..=499 => SendOutcome::Refused {
            error: format!("the Teams workflow answered {status}{code}: it did not take the message"),
        },
        500..=599 => SendOutcome::TryAgain {
            after: retry_after,
            error: format!("the Teams workflow at {host} answered {status}{code}: it failed and did not take the message"),
        },
        _ => SendOutcome::Refused {
            error: format!("the Teams workflow answered {status}{code}, which is not an answer it gives; redirects are not followed"),
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_workflows_answers_are_read() {
        assert_eq!(outcome(202, "", None, "h"), SendOutcome::Delivered { reference: None });
        assert_eq!(outcome(200, "", None, "h"), SendOutcome::Delivered { reference: None });
        let missing = outcome(404, r#"{"error":{"code":"WorkflowNotFound","message":"x"}}"#, None, "h");
        assert!(matches!(&missing, SendOutcome::Refused { error } if error.contains("404 WorkflowNotFound")));
        assert!(matches!(outcome(413, "", None, "h"), SendOutcome::Refused { .. }));
        assert!(matches!(outcome(429, "", None, "h"), SendOutcome::TryAgain { .. }));
        assert!(matches!(outcome(502, "", None, "h"), SendOutcome::TryAgain { .. }));
    }
}
