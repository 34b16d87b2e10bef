//! The HTTP exchange every connector shares: a form-encoded `POST` under an `Idempotency-Key`,
//! classified into an outcome, and a `GET` for lookups and orders; each one a `provider_call` span.

use serde_json::Value;
use std::time::{Duration, Instant};
use tracing::{field::Empty, Instrument};

use super::Sent;
use crate::domain::connection::ProviderKind;
use crate::domain::operation::AttemptReport;
use crate::domain::{failure::classify_http_answer, failure::FailureClass, machine::AttemptOutcome};
use crate::server::egress::EgressPolicy;

/// A provider's API: which kind it is, its base URL, the secret key sent as a bearer token, and a
/// client that gives up on an answer after the timeout (and on connecting after at most 5 s),
/// reaching only what the egress policy allows and following no redirect; or, when the policy
/// refuses the base URL, why, and every request fails without leaving.
pub(super) struct Endpoint {
    provider: ProviderKind,
    base_url: String,
    secret_key: String,
    client: Result<reqwest::Client, String>,
}

impl Endpoint {
    pub(super) fn new(
        provider: ProviderKind,
        base_url: &str,
        secret_key: &str,
        timeout: Duration,
        egress: &EgressPolicy,
    ) -> Self {
        let base_url = base_url.trim_end_matches('/').to_owned();
        let client = egress
            .client(&base_url, timeout, timeout.min(Duration::from_secs(5)))
            .map_err(|why| format!("{base_url} is refused by the egress policy: {why}"));
        Self { provider, base_url, secret_key: secret_key.to_owned(), client }
    }

    /// Sends `form` to `path` once, under `idempotency_key` (see [`post_form`]); `read` turns the
    /// object a 2xx answer holds into the outcome, by its status.
    pub(super) async fn post_form(
        &self,
        path: &str,
        idempotency_key: &str,
        form: &[(String, String)],
        read: fn(&Value) -> AttemptOutcome,
    ) -> Sent {
        let url = format!("{}{path}", self.base_url);
        let client = match &self.client {
            Ok(client) => client,
            Err(refused) => {
                let report =
                    AttemptReport { error: Some(format!("not sent: {refused}")), ..Default::default() };
                return failed(FailureClass::Forbidden, report);
            }
        };
        let call = self.call_span("POST", &url, Some(idempotency_key));
        let sent = post_form(client, &url, &self.secret_key, idempotency_key, form, read)
            .instrument(call.clone())
            .await;
        call.record("http.response.status_code", sent.report.http_status);
        call.record("outcome", sent.outcome.as_str());
        sent
    }

    /// `GET path?query` as JSON (see [`get_json`]).
    pub(super) async fn get_json(&self, path: &str, query: &[(&str, &str)]) -> Result<Value, String> {
        self.fetch_json(path, query).await?.ok_or_else(|| "the lookup answered 404 Not Found".into())
    }

    /// `GET path` as JSON, or `None` when the provider answers 404.
    pub(super) async fn get_json_or_missing(&self, path: &str) -> Result<Option<Value>, String> {
        self.fetch_json(path, &[]).await
    }

    /// `GET path?query` as JSON in a `provider_call` span, or `None` when the provider answers 404
    /// (see [`get_json`]).
    async fn fetch_json(&self, path: &str, query: &[(&str, &str)]) -> Result<Option<Value>, String> {
        let url = format!("{}{path}", self.base_url);
        let client = self.client.as_ref().map_err(Clone::clone)?;
        let call = self.call_span("GET", &url, None);
        let answer = get_json(client, &url, &self.secret_key, query).instrument(call.clone()).await;
        call.record(
            "outcome",
            match &answer {
                Ok(Some(_)) => "answered",
                Ok(None) => "not_found",
                Err(_) => "failed",
            },
        );
        answer
    }

    /// The span of one exchange with the provider: which provider, the method and the URL's path
    /// (never its query, nor the secret key), the idempotency key a send goes under; the answer's
    /// status and what it came to are recorded when it comes.
    fn call_span(&self, method: &str, url: &str, idempotency_key: Option<&str>) -> tracing::Span {
        let path = reqwest::Url::parse(url).map(|url| url.path().to_owned()).unwrap_or_default();
        tracing::info_span!(
            "provider_call",
            otel.kind = "client",
            provider = self.provider.as_str(),
            http.request.method = method,
            url.path = path,
            idempotency_key,
            http.response.status_code = Empty,
            outcome = Empty,
        )
    }
}

pub(super) fn failed(failure: FailureClass, report: AttemptReport) -> Sent {
    Sent { outcome: AttemptOutcome::Failed { failure }, report }
}

/// Sends `form` to `url` once, under `idempotency_key`, and classifies what came back: a refused
/// connection was not sent; no answer in time is a timeout; an error answer by its status and
/// error code; a 2xx by the status of the object it holds, which `read` says (accepted is not done).
async fn post_form(
    client: &reqwest::Client,
    url: &str,
    secret_key: &str,
    idempotency_key: &str,
    form: &[(String, String)],
    read: fn(&Value) -> AttemptOutcome,
) -> Sent {
    let started = Instant::now();
    let answer = client
        .post(url)
        .bearer_auth(secret_key)
        .header("Idempotency-Key", idempotency_key)
        .form(form)
        .send()
        .await;
    let latency_ms = Some(u64::try_from(started.elapsed().as_millis()).unwrap_or(u64::MAX));
    let response = match answer {
        Ok(response) => response,
        Err(error) => {
            let report = AttemptReport { latency_ms, error: Some(error.to_string()), ..Default::default() };
            let class = if error.is_connect() { FailureClass::NotSent } else { FailureClass::Timeout };
            return failed(class, report);
        }
    };
    let status = response.status().as_u16();
    let retry_after_s = response
        .headers()
        .get(reqwest::header::RETRY_AFTER)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.parse::<u32>().ok());
    let body: Value = match response.json().await {
        Ok(body) => body,
        Err(error) => {
            let report = AttemptReport {
                http_status: Some(status),
                latency_ms,
                error: Some(format!("the answer could not be read: {error}")),
                ..Default::default()
            };
            return failed(FailureClass::Timeout, report);
        }
    };
    let error_code = body.pointer("/error/code").and_then(Value::as_str);
    let mut report =
        AttemptReport { http_status: Some(status), latency_ms, retry_after_s, ..Default::default() };
    match classify_http_answer(status, error_code, retry_after_s) {
        None => {
            let outcome = read(&body);
            report.external_id = outcome.external_id().map(str::to_owned);
            if let AttemptOutcome::FailedAtProvider { reason, .. } = &outcome {
                report.error = Some(reason.clone());
            }
            Sent { outcome, report }
        }
        Some(class) => {
            report.error = body.pointer("/error/message").and_then(Value::as_str).map(str::to_owned);
            failed(class, report)
        }
    }
}

/// `GET url?query` as JSON (`None` for a 404), or why it could not be had; the answer's status is
/// recorded on the current span (the call's).
async fn get_json(
    client: &reqwest::Client,
    url: &str,
    secret_key: &str,
    query: &[(&str, &str)],
) -> Result<Option<Value>, String> {
    let response = client
        .get(url)
        .bearer_auth(secret_key)
        .query(query)
        .send()
        .await
        .map_err(|error| format!("the lookup failed: {error}"))?;
    tracing::Span::current().record("http.response.status_code", response.status().as_u16());
    if response.status() == reqwest::StatusCode::NOT_FOUND {
        return Ok(None);
    }
    if !response.status().is_success() {
        return Err(format!("the lookup answered {}", response.status()));
    }
    response.json::<Value>().await.map(Some).map_err(|_| "the lookup's answer could not be read".to_owned())
}
