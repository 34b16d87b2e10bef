//! Stripe's idempotency semantics and the fault injection around every creating request: the
//! first result of a key is stored and replayed (a 500 included), the same key with other
//! parameters is an `idempotency_error`, a key whose first request is still running answers a
//! second one with 409 `idempotency_key_in_use`, keys are forgotten after the retention, and
//! faults set for the key act before or after the request is done.

use axum::{
    http::{HeaderMap, HeaderValue, StatusCode},
    response::Response,
};
use chrono::{DateTime, Utc};
use serde_json::{json, Value};

use super::faults::request_names;
use super::{json_response, stripe_error, FaultKind, Sandbox};

/// How long a dropped response keeps the caller waiting when the fault sets no `ms`.
const DEFAULT_DROP_MS: u64 = 120_000;

/// The stored first result of an idempotency key.
#[derive(Debug, Clone)]
pub(super) struct IdempotentResult {
    request: String,
    status: StatusCode,
    body: Value,
    stored_at: DateTime<Utc>,
}

fn server_error_body() -> Value {
    json!({"error": {"type": "api_error", "message": "An unknown error occurred while processing the request."}})
}

/// A key whose first request is running: reserved on arrival, released when the request is done
/// (or dropped, when its caller goes away).
struct KeyInUse {
    sandbox: Sandbox,
    key: String,
}

impl KeyInUse {
    /// Reserves `key`, or `None` when another request holds it.
    fn reserve(sandbox: &Sandbox, key: &str) -> Option<KeyInUse> {
        sandbox
            .lock()
            .keys_in_use
            .insert(key.to_owned())
            .then(|| KeyInUse { sandbox: sandbox.clone(), key: key.to_owned() })
    }
}

impl Drop for KeyInUse {
    fn drop(&mut self) {
        self.sandbox.lock().keys_in_use.remove(&self.key);
    }
}

/// Runs `action` for a creating request to `path` under the request's `Idempotency-Key`, as
/// Stripe would, with the faults set for that key.
pub(super) async fn idempotent(
    sandbox: &Sandbox,
    path: &str,
    headers: &HeaderMap,
    fields: Vec<(String, String)>,
    action: impl Fn(&Sandbox, &[(String, String)], Option<&str>, DateTime<Utc>) -> (StatusCode, Value),
) -> Response {
    let key = headers.get("idempotency-key").and_then(|v| v.to_str().ok()).map(str::to_owned);
    let mut sorted = fields.clone();
    sorted.sort();
    let request = format!("{path}?{}", serde_urlencoded::to_string(&sorted).unwrap_or_default());
    let now = Utc::now();

    if let Some(key) = &key {
        let stored = sandbox.lock().idempotency.get(key).cloned();
        if let Some(stored) = stored.filter(|s| now - s.stored_at < sandbox.config.key_retention) {
            if stored.request != request {
                return stripe_error(
                    StatusCode::BAD_REQUEST,
                    "idempotency_error",
                    None,
                    "Keys for idempotent requests can only be used with the same parameters they were first used with.",
                );
            }
            let mut response = json_response(stored.status, stored.body);
            response.headers_mut().insert("idempotent-replayed", HeaderValue::from_static("true"));
            return response;
        }
    }

    let _reserved = match &key {
        Some(key) => match KeyInUse::reserve(sandbox, key) {
            Some(reserved) => Some(reserved),
            None => return stripe_error(
                StatusCode::CONFLICT,
                "idempotency_error",
                Some("idempotency_key_in_use"),
                "There is currently another in-progress request using this idempotency key. Try again later.",
            ),
        },
        None => None,
    };
    let names = request_names(key.as_deref(), &fields);
    let fault = sandbox.take_fault(
        &names,
        &[
            FaultKind::Delay,
            FaultKind::DropResponse,
            FaultKind::Error500Before,
            FaultKind::Error500After,
            FaultKind::RateLimit,
            FaultKind::BusinessReject,
        ],
    );
    let (status, body) = match fault.as_ref().map(|f| (f.fault, f.ms)) {
        Some((FaultKind::RateLimit, _)) => {
            let mut response = stripe_error(
                StatusCode::TOO_MANY_REQUESTS,
                "rate_limit_error",
                Some("rate_limit"),
                "Too many requests hit the API too quickly.",
            );
            response.headers_mut().insert("retry-after", HeaderValue::from_static("1"));
            return response;
        }
        Some((FaultKind::Error500Before, _)) => (StatusCode::INTERNAL_SERVER_ERROR, server_error_body()),
        Some((FaultKind::BusinessReject, _)) => (
            StatusCode::PAYMENT_REQUIRED,
            json!({"error": {"type": "invalid_request_error", "code": "refund_declined",
                   "message": "The refund was declined by the payment method."}}),
        ),
        Some((FaultKind::Delay, ms)) => {
            tokio::time::sleep(std::time::Duration::from_millis(ms)).await;
            action(sandbox, &fields, key.as_deref(), Utc::now())
        }
        Some((FaultKind::Error500After, _)) => {
            action(sandbox, &fields, key.as_deref(), now);
            (StatusCode::INTERNAL_SERVER_ERROR, server_error_body())
        }
        _ => action(sandbox, &fields, key.as_deref(), now),
    };
    if let Some(key) = key {
        let result = IdempotentResult { request, status, body: body.clone(), stored_at: now };
        sandbox.lock().idempotency.insert(key, result);
    }
    if let Some((FaultKind::DropResponse, ms)) = fault.map(|f| (f.fault, f.ms)) {
        tokio::time::sleep(std::time::Duration::from_millis(if ms == 0 { DEFAULT_DROP_MS } else { ms }))
            .await;
    }
    json_response(status, body)
}
