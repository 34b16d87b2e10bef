//! The Stripe refunds connector: `POST /v1/refunds` (form-encoded, `Idempotency-Key`,
//! `metadata[op_id]` and `metadata[tenant]`) and `GET /v1/refunds?payment_intent=` to find a
//! refund by its op id and tenant. The base
//! URL and secret key come from configuration, so it points at the sandbox or at Stripe itself.

use async_trait::async_trait;
use serde_json::Value;
use std::time::Duration;

use super::http::{failed, Endpoint};
use super::{metadata_fields, Connector, Lookup, Sent};
use crate::domain::failure::FailureClass;
use crate::domain::operation::{AttemptReport, OperationRecord};

pub struct StripeConnector {
    endpoint: Endpoint,
}

impl StripeConnector {
    /// A connector to `base_url` (`https://api.stripe.com` or the sandbox's address) that gives up
    /// waiting for an answer after `timeout`.
    pub fn new(base_url: &str, secret_key: &str, timeout: Duration) -> Self {
        Self { endpoint: Endpoint::new(base_url, secret_key, timeout) }
    }
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
        ];
        form.extend(metadata_fields(operation));
        if let Some(reason) = params.get("reason").and_then(Value::as_str) {
            form.push(("reason".to_owned(), reason.to_owned()));
        }
        self.endpoint.post_form("/v1/refunds", &operation.idempotency_key, &form).await
    }

    async fn look_up(&self, operation: &OperationRecord) -> Lookup {
        let Some(payment_intent) = operation.params.as_value().get("payment_intent").and_then(Value::as_str)
        else {
            return Lookup::Unavailable { reason: "params.payment_intent is missing".into() };
        };
        let query = [("payment_intent", payment_intent), ("limit", "100")];
        let body = match self.endpoint.get_json("/v1/refunds", &query).await {
            Ok(body) => body,
            Err(reason) => return Lookup::Unavailable { reason },
        };
        let refunds = body.get("data").and_then(Value::as_array).cloned().unwrap_or_default();
        let op_id = operation.op_id.as_str();
        let tenant = &operation.tenant;
        match refunds.iter().find(|r| r.get("metadata").is_some_and(|m| operation.created(m))) {
            Some(refund) => Lookup::Found {
                external_id: refund.get("id").and_then(Value::as_str).unwrap_or_default().to_owned(),
                evidence: format!(
                    "GET /v1/refunds?payment_intent={payment_intent} lists {} with metadata.op_id={op_id} of tenant {tenant}",
                    refund.get("id").and_then(Value::as_str).unwrap_or("a refund")
                ),
            },
            None => Lookup::NotFound {
                evidence: format!(
                    "GET /v1/refunds?payment_intent={payment_intent} lists {} refunds, none with metadata.op_id={op_id} of tenant {tenant}",
                    refunds.len()
                ),
            },
        }
    }
}
