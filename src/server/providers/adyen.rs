//! The Adyen refunds connector, on Adyen's Checkout API (v71): a refund of a payment is
//! `POST /payments/{paymentPspReference}/refunds` with the `X-API-Key` header, an
//! `Idempotency-Key` of at most 64 characters (remembered at least 31 days), and the body
//! `{"amount": {"currency", "value"}, "merchantAccount", "reference"}`, the reference being the
//! operation's key. Adyen answers every refund `201` with `"status": "received"` and the refund's
//! own `pspReference`: the refund is accepted, never done; its outcome comes later in a `REFUND`
//! webhook (see `adyen_events`). The Checkout API has no read of a payment or a refund, so nothing
//! can be looked up: an unknown result is settled by a re-send with the same key within its
//! window (Adyen answers with the first result) or by the webhook, and what is left to refund is
//! computed from the shop's order and the ledger's own refunds.

use async_trait::async_trait;
use serde_json::{json, Value};
use std::time::Duration;

use super::http::{failed, Body, Credentials, Endpoint, Reading};
use super::{refund_parts, Checked, Connector, Lookup, Sent};
use crate::domain::connection::ProviderKind;
use crate::domain::failure::FailureClass;
use crate::domain::machine::AttemptOutcome;
use crate::domain::money::Money;
use crate::domain::operation::{AttemptReport, OperationRecord};
use crate::server::egress::EgressPolicy;

pub struct AdyenConnector {
    endpoint: Endpoint,
    merchant_account: String,
}

impl AdyenConnector {
    /// A connector to `base_url` (`https://checkout-test.adyen.com/v71`, or the sandbox's address)
    /// for `merchant_account`, sending `api_key` as `X-API-Key`.
    pub fn new(
        base_url: &str,
        api_key: &str,
        merchant_account: &str,
        timeout: Duration,
        egress: &EgressPolicy,
    ) -> Self {
        let endpoint = Endpoint::new(ProviderKind::Adyen, base_url, api_key, timeout, egress);
        Self { endpoint, merchant_account: merchant_account.to_owned() }
    }
}

/// Adyen's references are letters and digits; anything else would change the path it is put in.
fn is_psp_reference(value: &str) -> bool {
    !value.is_empty() && value.len() <= 64 && value.chars().all(|c| c.is_ascii_alphanumeric())
}

/// The refund the ledger recorded as Adyen's request: the payment's pspReference, the amount, and
/// the body; or why it cannot be sent as recorded.
fn refund_request(
    operation: &OperationRecord,
    merchant_account: &str,
) -> Result<(String, Money, Value), String> {
    let (payment, amount) =
        refund_parts(operation, "Adyen", "payment", is_psp_reference, "an Adyen pspReference")?;
    let body = json!({
        "amount": {"currency": amount.currency.as_str(), "value": amount.minor},
        "merchantAccount": merchant_account,
        "reference": operation.idempotency_key,
    });
    Ok((payment, amount, body))
}

/// Adyen's answer to a refund request is always `received`: accepted, the outcome to come.
fn received(answer: &Value) -> AttemptOutcome {
    AttemptOutcome::Accepted {
        external_id: answer.get("pspReference").and_then(Value::as_str).map(str::to_owned),
    }
}

fn error_code(answer: &Value) -> Option<String> {
    answer.get("errorCode").map(|code| code.as_str().map_or_else(|| code.to_string(), str::to_owned))
}

fn error_message(answer: &Value) -> Option<String> {
    answer.get("message").and_then(Value::as_str).map(str::to_owned)
}

#[async_trait]
impl Connector for AdyenConnector {
    fn kind(&self) -> ProviderKind {
        ProviderKind::Adyen
    }

    /// The request as recorded, checked for its place in Adyen's API; the payment cannot be read,
    /// so the money it moves is the recorded amount (the executor holds it to the shop's order).
    async fn check(&self, operation: &OperationRecord) -> Checked {
        match refund_request(operation, &self.merchant_account) {
            Ok((_, amount, _)) => Checked::Valid { amount: Some(amount) },
            Err(reason) => Checked::Invalid { reason },
        }
    }

    async fn send(&self, operation: &OperationRecord) -> Sent {
        let (payment, _, body) = match refund_request(operation, &self.merchant_account) {
            Ok(request) => request,
            Err(reason) => {
                return failed(
                    FailureClass::InvalidParams,
                    AttemptReport { error: Some(reason), ..Default::default() },
                )
            }
        };
        let reading = Reading { outcome: received, error_code, error_message };
        let credentials = Credentials::Header("X-API-Key", self.endpoint.secret());
        let key = ("Idempotency-Key", operation.idempotency_key.as_str());
        self.endpoint
            .post(&format!("/payments/{payment}/refunds"), key, Body::Json(&body), credentials, &[], reading)
            .await
    }

    async fn look_up(&self, _operation: &OperationRecord) -> Lookup {
        Lookup::Unavailable {
            reason: "Adyen's Checkout API cannot be asked about a refund: its webhook, or a re-send with the same key, settles it".into(),
        }
    }
}
