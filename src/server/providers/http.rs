//! The HTTP exchange every connector shares: a `POST` (form-encoded or JSON) under an idempotency
//! key header, classified into an outcome, and a `GET` for lookups and orders; each one a
//! `provider_call` span. How a provider is authenticated (a bearer secret, an API key header, an
//! OAuth token) and how its error answers name their code are the connector's to say.

use serde_json::Value;
use std::time::{Duration, Instant};
use tracing::{field::Empty, Instrument};

use super::Sent;
use crate::domain::connection::ProviderKind;
use crate::domain::operation::AttemptReport;
use crate::domain::{failure::classify_http_answer, failure::FailureClass, machine::AttemptOutcome};
use crate::server::egress::EgressPolicy;

/// One request that changes something: its method, path, the idempotency key it goes under
/// (`(header, value)`) when the provider honours one, and its body.
pub(super) struct Request<'a> {
    pub method: reqwest::Method,
    pub path: &'a str,
    pub key: Option<(&'a str, &'a str)>,
    pub body: Option<Body<'a>>,
}

/// How a request proves who sends it.
#[derive(Debug, Clone, Copy)]
pub(super) enum Credentials<'a> {
    /// `Authorization: Bearer <secret>` (Stripe, the services, a shop's orders; PayPal's token).
    Bearer(&'a str),
    /// A header of its own carrying the secret (Adyen's `X-API-Key`).
    Header(&'static str, &'a str),
}

/// What a `POST` carries.
#[derive(Debug, Clone, Copy)]
pub(super) enum Body<'a> {
    Form(&'a [(String, String)]),
    Json(&'a Value),
    /// JSON already written, sent byte for byte: what a signature over the body covers.
    JsonText(&'a str),
}

/// How one provider's answers are read: the outcome of an object a 2xx answer holds, by its
/// status, and the code an error answer gives (Stripe's `error.code`, Adyen's `errorCode`,
/// PayPal's `details[0].issue`).
#[derive(Clone, Copy)]
pub(super) struct Reading {
    pub outcome: fn(&Value) -> AttemptOutcome,
    pub error_code: fn(&Value) -> Option<String>,
    pub error_message: fn(&Value) -> Option<String>,
}

/// How the answers to one request are read: what an answer proves about the request (`None` for
/// done), the outcome of the object a done answer holds, and an error answer's words.
pub(super) trait Answers: Sync {
    fn classify(&self, status: u16, body: &Value, retry_after_s: Option<u32>) -> Option<FailureClass>;
    fn outcome(&self, body: &Value) -> AttemptOutcome;
    fn error_words(&self, body: &Value) -> Option<String>;
}

impl Answers for Reading {
    fn classify(&self, status: u16, body: &Value, retry_after_s: Option<u32>) -> Option<FailureClass> {
        classify_http_answer(status, (self.error_code)(body).as_deref(), retry_after_s)
    }

    fn outcome(&self, body: &Value) -> AttemptOutcome {
        (self.outcome)(body)
    }

    fn error_words(&self, body: &Value) -> Option<String> {
        (self.error_message)(body).or_else(|| (self.error_code)(body))
    }
}

/// A provider's API: which kind it is, its base URL, the secret, and a client that gives up on
/// an answer after the timeout (and on connecting after at most 5 s), reaching only what the
/// egress policy allows and following no redirect; or, when the policy refuses the base URL, why,
/// and every request fails without leaving.
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

    /// The secret this endpoint was built with.
    pub(super) fn secret(&self) -> &str {
        &self.secret_key
    }

    /// The secret as a bearer token.
    pub(super) fn bearer(&self) -> Credentials<'_> {
        Credentials::Bearer(&self.secret_key)
    }

    /// The client, or why the egress policy refuses this endpoint.
    pub(super) fn client(&self) -> Result<&reqwest::Client, String> {
        self.client.as_ref().map_err(Clone::clone)
    }

    /// The full URL of `path`.
    pub(super) fn url(&self, path: &str) -> String {
        format!("{}{path}", self.base_url)
    }

    /// Sends `form` to `path` once, under `Idempotency-Key: <idempotency_key>`, with the secret as a
    /// bearer token; `read` turns the object a 2xx answer holds into the outcome, by its status.
    pub(super) async fn post_form(
        &self,
        path: &str,
        idempotency_key: &str,
        form: &[(String, String)],
        read: fn(&Value) -> AttemptOutcome,
    ) -> Sent {
        let reading =
            Reading { outcome: read, error_code: stripe_error_code, error_message: stripe_error_message };
        self.post(path, ("Idempotency-Key", idempotency_key), Body::Form(form), self.bearer(), &[], reading)
            .await
    }

    /// Sends `body` to `path` once, under `key` (`(header, value)`), proving who sends it with
    /// `credentials` and adding `headers`, and classifies what came back (see [`send_once`]).
    pub(super) async fn post(
        &self,
        path: &str,
        key: (&str, &str),
        body: Body<'_>,
        credentials: Credentials<'_>,
        headers: &[(&str, &str)],
        reading: Reading,
    ) -> Sent {
        let request = Request { method: reqwest::Method::POST, path, key: Some(key), body: Some(body) };
        self.send(request, credentials, headers, &reading).await
    }

    /// Sends `request` once, under its key if it has one, proving who sends it with `credentials`
    /// and adding `headers`, and classifies what came back by `answers` (see [`send_once`]).
    pub(super) async fn send(
        &self,
        request: Request<'_>,
        credentials: Credentials<'_>,
        headers: &[(&str, &str)],
        answers: &dyn Answers,
    ) -> Sent {
        let Request { method, path, key, body } = request;
        let url = self.url(path);
        let client = match &self.client {
            Ok(client) => client,
            Err(refused) => {
                let report =
                    AttemptReport { error: Some(format!("not sent: {refused}")), ..Default::default() };
                return failed(FailureClass::Forbidden, report);
            }
        };
        let call = self.call_span(method.as_str(), &url, key.map(|(_, value)| value));
        let mut request = authenticated(client.request(method, &url), credentials);
        if let Some((header, value)) = key {
            request = request.header(header, value);
        }
        for (name, value) in headers {
            request = request.header(*name, *value);
        }
        request = match body {
            Some(Body::Form(form)) => request.form(form),
            Some(Body::Json(json)) => request.json(json),
            Some(Body::JsonText(text)) => {
                request.header(reqwest::header::CONTENT_TYPE, "application/json").body(text.to_owned())
            }
            None => request,
        };
        let sent = send_once(request, answers).instrument(call.clone()).await;
        call.record("http.response.status_code", sent.report.http_status);
        call.record("outcome", sent.outcome.as_str());
        sent
    }

    /// `GET path?query` as JSON (see [`get_json`]).
    pub(super) async fn get_json(&self, path: &str, query: &[(&str, &str)]) -> Result<Value, String> {
        self.fetch_json(path, query, self.bearer())
            .await?
            .ok_or_else(|| "the lookup answered 404 Not Found".into())
    }

    /// `GET path` as JSON, or `None` when the provider answers 404.
    pub(super) async fn get_json_or_missing(&self, path: &str) -> Result<Option<Value>, String> {
        self.fetch_json(path, &[], self.bearer()).await
    }

    /// `GET path?query` as JSON with `credentials` in a `provider_call` span, or `None` when the
    /// provider answers 404 (see [`get_json`]).
    pub(super) async fn fetch_json(
        &self,
        path: &str,
        query: &[(&str, &str)],
        credentials: Credentials<'_>,
    ) -> Result<Option<Value>, String> {
        let url = self.url(path);
        let client = self.client()?;
        let call = self.call_span("GET", &url, None);
        let request = authenticated(client.get(&url), credentials).query(query);
        let answer = get_json(request).instrument(call.clone()).await;
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
    pub(super) fn call_span(&self, method: &str, url: &str, idempotency_key: Option<&str>) -> tracing::Span {
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

fn authenticated(request: reqwest::RequestBuilder, credentials: Credentials<'_>) -> reqwest::RequestBuilder {
    match credentials {
        Credentials::Bearer(token) => request.bearer_auth(token),
        Credentials::Header(name, secret) => request.header(name, secret),
    }
}

fn stripe_error_code(body: &Value) -> Option<String> {
    body.pointer("/error/code").and_then(Value::as_str).map(str::to_owned)
}

fn stripe_error_message(body: &Value) -> Option<String> {
    body.pointer("/error/message").and_then(Value::as_str).map(str::to_owned)
}

pub(super) fn failed(failure: FailureClass, report: AttemptReport) -> Sent {
    Sent { outcome: AttemptOutcome::Failed { failure }, report }
}

/// Sends `request` once and classifies what came back: a refused connection was not sent; no
/// answer in time is a timeout; an answer by what `answers` says it proves; a done one by the
/// status of the object it holds (accepted is not done).
async fn send_once(request: reqwest::RequestBuilder, answers: &dyn Answers) -> Sent {
    let started = Instant::now();
    let answer = request.send().await;
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
    let parsed = match response.text().await {
        Ok(text) if text.trim().is_empty() => Ok(Value::Null),
        Ok(text) => serde_json::from_str(&text).map_err(|error| error.to_string()),
        Err(error) => Err(error.to_string()),
    };
    let body: Value = match parsed {
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
    let mut report =
        AttemptReport { http_status: Some(status), latency_ms, retry_after_s, ..Default::default() };
    match answers.classify(status, &body, retry_after_s) {
        None => {
            let outcome = answers.outcome(&body);
            report.external_id = outcome.external_id().map(str::to_owned);
            if let AttemptOutcome::FailedAtProvider { reason, .. } = &outcome {
                report.error = Some(reason.clone());
            }
            Sent { outcome, report }
        }
        Some(class) => {
            report.error = answers.error_words(&body);
            failed(class, report)
        }
    }
}

/// Sends `request` and reads its answer as JSON (`None` for a 404), or why it could not be had;
/// the answer's status is recorded on the current span (the call's).
async fn get_json(request: reqwest::RequestBuilder) -> Result<Option<Value>, String> {
    let response = request.send().await.map_err(|error| format!("the lookup failed: {error}"))?;
    tracing::Span::current().record("http.response.status_code", response.status().as_u16());
    if response.status() == reqwest::StatusCode::NOT_FOUND {
        return Ok(None);
    }
    if !response.status().is_success() {
        return Err(format!("the lookup answered {}", response.status()));
    }
    response.json::<Value>().await.map(Some).map_err(|_| "the lookup's answer could not be read".to_owned())
}
