//! What the chat stand-ins (Slack's incoming webhooks, a Teams workflow webhook, LINE's push
//! message) share (the three are mounted together, beside the Stripe sandbox at `/sandbox`, as
//! [`super::ChatSandboxes`]): their control routes behind the mounted sandbox's secret key (`GET /_sandbox/slack`,
//! `/_sandbox/teams`, `/_sandbox/line` list what each received; `POST …/faults` and `DELETE
//! …/faults` under each, as [`super::control`] serves them), and the faults around a post:
//! `rate_limit` answers 429 with `Retry-After: 2` and posts nothing, `error_500_before` answers
//! the channel's 500 and posts nothing, `error_500_after` posts and then answers 500, `delay`
//! waits `ms` first, and `drop_response` posts and then gives no answer (for `ms`, two minutes
//! when none is set).

use axum::{http::HeaderValue, response::Response};
use std::time::Duration;

use super::account::Account;
use super::faults::FaultKind;
use super::pipeline::AROUND_THE_WORK;

/// How long a dropped answer keeps the caller waiting when the fault sets no `ms`.
const DEFAULT_DROP_MS: u64 = 120_000;

/// The `Retry-After` every chat stand-in sends with a 429, in seconds.
pub const RETRY_AFTER_SECONDS: &str = "2";

/// How a stand-in answers the faults that stop a post.
pub(super) struct Refusals {
    pub rate_limited: fn() -> Response,
    pub server_error: fn() -> Response,
}

/// Runs `work` (which records the post and makes the channel's answer) with the fault set for one
/// of `names` acting around it.
pub(super) async fn with_faults<Own>(
    account: &Account<Own>,
    names: &[&str],
    refusals: Refusals,
    work: impl FnOnce() -> Response,
) -> Response {
    let fault = account.take_fault(names, &AROUND_THE_WORK);
    match fault.as_ref().map(|fault| (fault.fault, fault.ms)) {
        Some((FaultKind::RateLimit, _)) => {
            let mut response = (refusals.rate_limited)();
            response.headers_mut().insert("retry-after", HeaderValue::from_static(RETRY_AFTER_SECONDS));
            response
        }
        Some((FaultKind::Error500Before, _)) => (refusals.server_error)(),
        Some((FaultKind::Error500After, _)) => {
            let _ = work();
            (refusals.server_error)()
        }
        Some((FaultKind::Delay, ms)) => {
            tokio::time::sleep(Duration::from_millis(ms)).await;
            work()
        }
        Some((FaultKind::DropResponse, ms)) => {
            let answer = work();
            tokio::time::sleep(Duration::from_millis(if ms == 0 { DEFAULT_DROP_MS } else { ms })).await;
            answer
        }
        _ => work(),
    }
}
