//! The Stripe refunds connector: `POST /v1/refunds` (form-encoded, `Idempotency-Key`,
//! `metadata[op_id]`) and `GET /v1/refunds?payment_intent=` to find a refund by its op id. The base
//! URL and secret key come from configuration, so it points at the sandbox or at Stripe itself.

use async_trait::async_trait;
use reqwest::StatusCode;
use serde_json::Value;
use std::time::{Duration, Instant};

use super::{Connector, Lookup, Sent};
use crate::domain::{failure::classify_http_answer, failure::FailureClass, machine::AttemptOutcome};
use crate::server::store::records::{AttemptReport, OperationRecord};

pub struct StripeConnector {
    base_url: String,
    secret_key: String,
    client: reqwest::Client,
}

impl StripeConnector {
    /// A connector to `base_url` (`https://api.stripe.com` or the sandbox's address) that gives up
    /// waiting for an answer after `timeout`.
    pub fn new(base_url: &str, secret_key: &str, timeout: Duration) -> Self {
        let client = reqwest::Client::builder()
            .timeout(timeout)
            .connect_timeout(timeout.min(Duration::from_secs(5)))
            .build()
            .expect("a TLS-less HTTP client always builds");
        Self {
            base_url: base_url.trim_end_matches('/').to_owned(),
            secret_key: secret_key.to_owned(),
            client,
        }
    }
}

fn failed(failure: FailureClass, report: AttemptReport) -> Sent {
    Sent { outcome: AttemptOutcome::Failed { failure }, report }
}

#[async_trait]
impl Connector for StripeConnector {
    async fn send(&self, operation: &OperationRecord) -> Sent {
        let params = operation.params.as_value();
        let Some(payment_intent) = params.get("payment_intent").and_then(Value::as_str) else {
            let report = AttemptReport {
                error: Some("params.payment_intent is missing".into()),
                ..Default::default()
            };
            return failed(FailureClass::InvalidParams, report);
        };
        let Some(amount) = operation.params.money("amount") else {
            let report =
                AttemptReport { error: Some("params.amount is missing".into()), ..Default::default() };
            return failed(FailureClass::InvalidParams, report);
        };
        let mut form = vec![
            ("payment_intent".to_owned(), payment_intent.to_owned()),
            ("amount".to_owned(), amount.minor.to_string()),
            ("metadata[op_id]".to_owned(), operation.op_id.to_string()),
        ];
        if let Some(reason) = params.get("reason").and_then(Value::as_str) {
            form.push(("reason".to_owned(), reason.to_owned()));
        }
        let started = Instant::now();
        let answer = self
            .client
            .post(format!("{}/v1/refunds", self.base_url))
            .bearer_auth(&self.secret_key)
            .header("Idempotency-Key", &operation.idempotency_key)
            .form(&form)
            .send()
            .await;
        let latency_ms = Some(u64::try_from(started.elapsed().as_millis()).unwrap_or(u64::MAX));
        let response = match answer {
            Ok(response) => response,
            Err(error) => {
                let report =
                    AttemptReport { latency_ms, error: Some(error.to_string()), ..Default::default() };
                let class = if error.is_connect() { FailureClass::NotSent } else { FailureClass::Timeout };
                return failed(class, report);
            }
        };
        let status = response.status();
        let retry_after_s = response
            .headers()
            .get(reqwest::header::RETRY_AFTER)
            .and_then(|v| v.to_str().ok())
            .and_then(|v| v.parse::<u32>().ok());
        let body: Value = match response.json().await {
            Ok(body) => body,
            Err(error) => {
                let report = AttemptReport {
                    http_status: Some(status.as_u16()),
                    latency_ms,
                    error: Some(format!("the answer could not be read: {error}")),
                    ..Default::default()
                };
                return failed(FailureClass::Timeout, report);
            }
        };
        let error_code = body.pointer("/error/code").and_then(Value::as_str);
        let mut report = AttemptReport {
            http_status: Some(status.as_u16()),
            latency_ms,
            retry_after_s,
            ..Default::default()
        };
        match classify_http_answer(status.as_u16(), error_code, retry_after_s) {
            None => {
                let external_id = body.get("id").and_then(Value::as_str).map(str::to_owned);
                report.external_id = external_id.clone();
                Sent { outcome: AttemptOutcome::Succeeded { external_id }, report }
            }
            Some(class) => {
                report.error = body.pointer("/error/message").and_then(Value::as_str).map(str::to_owned);
                failed(class, report)
            }
        }
    }

    async fn look_up(&self, operation: &OperationRecord) -> Lookup {
        let Some(payment_intent) = operation.params.as_value().get("payment_intent").and_then(Value::as_str)
        else {
            return Lookup::Unavailable { reason: "params.payment_intent is missing".into() };
        };
        let answer = self
            .client
            .get(format!("{}/v1/refunds", self.base_url))
            .bearer_auth(&self.secret_key)
            .query(&[("payment_intent", payment_intent), ("limit", "100")])
            .send()
            .await;
        let response = match answer {
            Ok(response) if response.status() == StatusCode::OK => response,
            Ok(response) => {
                return Lookup::Unavailable { reason: format!("the lookup answered {}", response.status()) }
            }
            Err(error) => return Lookup::Unavailable { reason: format!("the lookup failed: {error}") },
        };
        let Ok(body) = response.json::<Value>().await else {
            return Lookup::Unavailable { reason: "the lookup's answer could not be read".into() };
        };
        let refunds = body.get("data").and_then(Value::as_array).cloned().unwrap_or_default();
        let op_id = operation.op_id.as_str();
        match refunds.iter().find(|r| r.pointer("/metadata/op_id").and_then(Value::as_str) == Some(op_id)) {
            Some(refund) => Lookup::Found {
                external_id: refund.get("id").and_then(Value::as_str).unwrap_or_default().to_owned(),
                evidence: format!(
                    "GET /v1/refunds?payment_intent={payment_intent} lists {} with metadata.op_id={op_id}",
                    refund.get("id").and_then(Value::as_str).unwrap_or("a refund")
                ),
            },
            None => Lookup::NotFound {
                evidence: format!(
                    "GET /v1/refunds?payment_intent={payment_intent} lists {} refunds, none with metadata.op_id={op_id}",
                    refunds.len()
                ),
            },
        }
    }
}
