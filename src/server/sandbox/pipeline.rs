//! The keyed-create pipeline: creating requests under an idempotency key, the one way every
//! sandbox handles them. The first answer to a key is remembered and replayed for the same request
//! while the key is remembered; what a remembered key sent with another request gets is each
//! provider's own (Stripe and Adyen refuse it, Resend answers 409, PayPal takes it as new), and so
//! is a second request while the first is still being handled. Around the work, the faults set for the key or the op id act: a
//! delay, a 429, a 500 before or after the work, an answer that never comes. The work runs to its
//! end in a task of its own, whether or not the caller still waits, as a provider finishes what it
//! started when a client goes away.

use axum::{
    http::{HeaderMap, HeaderValue, StatusCode},
    response::Response,
};
use chrono::{DateTime, Utc};
use serde_json::Value;

use super::account::{respond, Provider, Refusal};
use super::faults::FaultKind;
use super::keyed::{Answer, Claim};

/// How long a dropped response keeps the caller waiting when the fault sets no `ms`.
const DEFAULT_DROP_MS: u64 = 120_000;

/// The faults that act around the work rather than on what it makes; every sandbox acts on them.
pub(super) const AROUND_THE_WORK: [FaultKind; 5] = [
    FaultKind::Delay,
    FaultKind::DropResponse,
    FaultKind::Error500Before,
    FaultKind::Error500After,
    FaultKind::RateLimit,
];

/// Handles a creating request under the key in `P`'s key header: `request` is what a re-send must
/// repeat to be answered again, `op` what else names its operation for faults, and `work` does it
/// (given the key and the time) once the key is claimed and the faults before it have acted.
pub(super) async fn create<P: Provider>(
    sandbox: P,
    headers: &HeaderMap,
    request: Value,
    op: Option<String>,
    work: impl FnOnce(&P, Option<&str>, DateTime<Utc>) -> Answer + Send + 'static,
) -> Response {
    let key = headers.get(P::KEY_HEADER).and_then(|v| v.to_str().ok()).map(str::to_owned);
    if let Some(refused) = key.as_deref().and_then(P::key_refused) {
        return respond(refused);
    }
    let handled = tokio::spawn(handle(sandbox, key, request, op, work));
    handled.await.unwrap_or_else(|_| respond(P::refused(Refusal::ServerError)))
}

async fn handle<P: Provider>(
    sandbox: P,
    key: Option<String>,
    request: Value,
    op: Option<String>,
    work: impl FnOnce(&P, Option<&str>, DateTime<Utc>) -> Answer,
) -> Response {
    let now = Utc::now();
    let account = sandbox.account();
    if let Some(key) = &key {
        let claim = {
            let mut books = account.lock();
            match books.keyed.claim(key, &request, now, account.key_retention) {
                Claim::OtherRequest => match P::key_reused() {
                    Some(refusal) => return respond(refusal),
                    None => books.keyed.claim_anew(key),
                },
                claim => claim,
            }
        };
        match claim {
            Claim::Replay(status, body) => return replayed::<P>(status, body),
            Claim::InUse => return respond(P::refused(Refusal::KeyInUse)),
            Claim::OtherRequest | Claim::Claimed => {}
        }
    }
    let names: Vec<&str> = key.iter().chain(op.iter()).map(String::as_str).collect();
    let fault = account.take_fault(&names, &AROUND_THE_WORK);
    let server_error = P::refused(Refusal::ServerError);
    let kept_5xx = |made: Option<Answer>| if P::REPLAYS_5XX { Some(server_error.clone()) } else { made };
    let (answer, kept) = match fault.as_ref().map(|f| (f.fault, f.ms)) {
        Some((FaultKind::RateLimit, _)) => {
            if let Some(key) = &key {
                account.lock().keyed.finish(key, request, None, now);
            }
            return rate_limited::<P>();
        }
        Some((FaultKind::Error500Before, _)) => (server_error.clone(), kept_5xx(None)),
        Some((FaultKind::Error500After, _)) => {
            let made = work(&sandbox, key.as_deref(), now);
            (server_error.clone(), kept_5xx(Some(made)))
        }
        Some((FaultKind::Delay, ms)) => {
            tokio::time::sleep(std::time::Duration::from_millis(ms)).await;
            let made = work(&sandbox, key.as_deref(), Utc::now());
            (made.clone(), Some(made))
        }
        _ => {
            let made = work(&sandbox, key.as_deref(), now);
            (made.clone(), Some(made))
        }
    };
    if let Some(key) = &key {
        account.lock().keyed.finish(key, request, kept, now);
    }
    if let Some((FaultKind::DropResponse, ms)) = fault.map(|f| (f.fault, f.ms)) {
        tokio::time::sleep(std::time::Duration::from_millis(if ms == 0 { DEFAULT_DROP_MS } else { ms }))
            .await;
    }
    respond(answer)
}

/// A remembered answer, marked as replayed where the provider marks it.
fn replayed<P: Provider>(status: StatusCode, body: Value) -> Response {
    let mut response = respond((status, body));
    if let Some(header) = P::REPLAY_HEADER {
        response.headers_mut().insert(header, HeaderValue::from_static("true"));
    }
    response
}

/// The answer to a `rate_limit` fault, with the provider's `Retry-After` where it sends one.
fn rate_limited<P: Provider>() -> Response {
    let mut response = respond(P::refused(Refusal::RateLimited));
    if let Some(seconds) = P::RETRY_AFTER {
        response.headers_mut().insert("retry-after", HeaderValue::from_static(seconds));
    }
    response
}
