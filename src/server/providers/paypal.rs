//! The PayPal refunds connector, on PayPal's Payments v2 API: an access token from the client
//! credentials (`POST /v1/oauth2/token`, kept until shortly before it expires), a refund of a
//! capture is `POST /v2/payments/captures/{capture_id}/refund` under `PayPal-Request-Id` (kept 45
//! days) with `{"amount": {"value", "currency_code"}, "invoice_id", "custom_id"}`, both ids the
//! operation's key, so that PayPal itself refuses a second refund of the same intent even after
//! the request id is forgotten (`DUPLICATE_INVOICE_ID`). Amounts are decimal strings in PayPal's
//! own digits (TWD, JPY and HUF in whole units). Every answer is read by the refund's `status`:
//! `COMPLETED` is done, `PENDING` accepted, `FAILED` and `CANCELLED` failed at PayPal. A refund is
//! followed by its id (`GET /v2/payments/refunds/{id}`) and found again without it in the capture's
//! order (`purchase_units[].payments.refunds[]`, by `custom_id`).

use async_trait::async_trait;
use serde_json::{json, Value};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use super::http::{failed, Body, Credentials, Endpoint, Reading};
use super::{refund_parts, Checked, Connector, Lookup, ProviderObject, Sent};
use crate::domain::connection::ProviderKind;
use crate::domain::failure::FailureClass;
use crate::domain::machine::{AttemptOutcome, ProviderStatus};
use crate::domain::money::{Currency, Money};
use crate::domain::operation::{AttemptReport, OperationRecord};
use crate::server::egress::EgressPolicy;

/// How long before its expiry a token is no longer used.
const TOKEN_MARGIN: Duration = Duration::from_secs(60);

pub struct PayPalConnector {
    endpoint: Endpoint,
    client_id: String,
    /// The access token and until when it may be used.
    token: Mutex<Option<(String, Instant)>>,
}

impl PayPalConnector {
    /// A connector to `base_url` (`https://api-m.sandbox.paypal.com`, or the sandbox's address) for
    /// the REST app `client_id` with `client_secret`.
    pub fn new(
        base_url: &str,
        client_secret: &str,
        client_id: &str,
        timeout: Duration,
        egress: &EgressPolicy,
    ) -> Self {
        let endpoint = Endpoint::new(ProviderKind::PayPal, base_url, client_secret, timeout, egress);
        Self { endpoint, client_id: client_id.to_owned(), token: Mutex::new(None) }
    }

    /// A valid access token: the one kept, or a new one from the client credentials.
    async fn token(&self) -> Result<String, String> {
        let kept = self.token.lock().unwrap_or_else(std::sync::PoisonError::into_inner).clone();
        if let Some((token, _)) = kept.filter(|(_, until)| Instant::now() < *until) {
            return Ok(token);
        }
        let client = self.endpoint.client()?;
        let url = self.endpoint.url("/v1/oauth2/token");
        let answer = client
            .post(&url)
            .basic_auth(&self.client_id, Some(self.endpoint.secret()))
            .form(&[("grant_type", "client_credentials")])
            .send()
            .await
            .map_err(|error| format!("PayPal's token could not be had: {error}"))?;
        if !answer.status().is_success() {
            return Err(format!("PayPal refused the client credentials ({})", answer.status()));
        }
        let body: Value =
            answer.json().await.map_err(|_| "PayPal's token answer could not be read".to_owned())?;
        let token =
            body.get("access_token").and_then(Value::as_str).ok_or("PayPal's token answer holds no token")?;
        let lifetime = Duration::from_secs(body.get("expires_in").and_then(Value::as_u64).unwrap_or(0));
        let until = Instant::now() + lifetime.saturating_sub(TOKEN_MARGIN);
        *self.token.lock().unwrap_or_else(std::sync::PoisonError::into_inner) =
            Some((token.to_owned(), until));
        Ok(token.to_owned())
    }

    async fn get(&self, path: &str) -> Result<Option<Value>, String> {
        let token = self.token().await?;
        self.endpoint.fetch_json(path, &[], Credentials::Bearer(&token)).await
    }

    /// Every refund of the capture's order, as PayPal lists them in the order.
    async fn refunds_of(&self, capture: &Value) -> Result<Vec<Value>, String> {
        let order_id = capture
            .pointer("/supplementary_data/related_ids/order_id")
            .and_then(Value::as_str)
            .filter(|id| is_paypal_id(id))
            .ok_or("PayPal's capture names no order")?;
        let order =
            self.get(&format!("/v2/checkout/orders/{order_id}")).await?.ok_or("PayPal has no such order")?;
        let units = order.get("purchase_units").and_then(Value::as_array).cloned().unwrap_or_default();
        Ok(units
            .iter()
            .flat_map(|unit| {
                unit.pointer("/payments/refunds").and_then(Value::as_array).cloned().unwrap_or_default()
            })
            .collect())
    }
}

/// PayPal's ids are letters and digits.
fn is_paypal_id(value: &str) -> bool {
    !value.is_empty() && value.len() <= 64 && value.chars().all(|c| c.is_ascii_alphanumeric())
}

/// How many decimals PayPal writes `currency` with: none for TWD, JPY and HUF, the ISO 4217
/// digits otherwise.
fn paypal_digits(currency: Currency) -> u32 {
    match currency.as_str() {
        "HUF" | "JPY" | "TWD" => 0,
        _ => currency.minor_unit_digits(),
    }
}

/// `amount` as PayPal's decimal string, or why PayPal cannot take it (TWD 380.50: PayPal takes
/// TWD in whole units only).
pub fn paypal_value(amount: Money) -> Result<String, String> {
    let (iso, digits) = (amount.currency.minor_unit_digits(), paypal_digits(amount.currency));
    let drop = 10_i64.pow(iso - digits.min(iso));
    if amount.minor % drop != 0 {
        return Err(format!("PayPal takes {} in whole units, and {amount} is not one", amount.currency));
    }
    let units = amount.minor / drop;
    if digits == 0 {
        return Ok(units.to_string());
    }
    let scale = 10_i64.pow(digits);
    Ok(format!("{}.{:0width$}", units / scale, units % scale, width = digits as usize))
}

/// A PayPal amount (`{"value", "currency_code"}`) in minor units.
fn money_of(amount: &Value) -> Option<Money> {
    let currency = Currency::parse(amount.get("currency_code")?.as_str()?).ok()?;
    Money::parse_major(amount.get("value")?.as_str()?, currency).ok()
}

/// What a PayPal refund's `status` says of it: `COMPLETED` done, `PENDING` accepted, `FAILED` and
/// `CANCELLED` failed there (with `status_details.reason` where PayPal gives one); a status this
/// connector does not know is never done.
pub fn refund_status(refund: &Value) -> ProviderStatus {
    let status = refund.get("status").and_then(Value::as_str).unwrap_or_default();
    match status {
        "COMPLETED" => ProviderStatus::Succeeded,
        "PENDING" => ProviderStatus::Pending { needs_action: false },
        "FAILED" | "CANCELLED" => {
            let reason = refund.pointer("/status_details/reason").and_then(Value::as_str);
            ProviderStatus::Failed { reason: reason.unwrap_or(status).to_lowercase() }
        }
        _ => ProviderStatus::Pending { needs_action: true },
    }
}

fn sent_refund(refund: &Value) -> AttemptOutcome {
    let external_id = refund.get("id").and_then(Value::as_str).map(str::to_owned);
    match refund_status(refund) {
        ProviderStatus::Succeeded => AttemptOutcome::Succeeded { external_id },
        ProviderStatus::Pending { .. } => AttemptOutcome::Accepted { external_id },
        ProviderStatus::Failed { reason } => AttemptOutcome::FailedAtProvider { external_id, reason },
    }
}

fn error_code(answer: &Value) -> Option<String> {
    answer
        .pointer("/details/0/issue")
        .or_else(|| answer.get("name"))
        .and_then(Value::as_str)
        .map(str::to_owned)
}

fn error_message(answer: &Value) -> Option<String> {
    answer.get("message").and_then(Value::as_str).map(str::to_owned)
}

/// Whether `refund` is the one `operation` made: its `custom_id` is the operation's key.
fn made_by(refund: &Value, operation: &OperationRecord) -> bool {
    refund.get("custom_id").and_then(Value::as_str) == Some(operation.idempotency_key.as_str())
}

/// Whether a refund holds money back from its capture: all but failed and cancelled ones.
fn holds_money(refund: &Value) -> bool {
    !matches!(refund.get("status").and_then(Value::as_str), Some("FAILED" | "CANCELLED"))
}

/// The capture and the refund request the ledger recorded, or why it cannot be sent as recorded.
fn refund_request(operation: &OperationRecord) -> Result<(String, Money, Value), String> {
    let (capture, amount) =
        refund_parts(operation, "PayPal", "capture", is_paypal_id, "a PayPal capture id")?;
    let body = json!({
        "amount": {"value": paypal_value(amount)?, "currency_code": amount.currency.as_str()},
        "invoice_id": operation.idempotency_key,
        "custom_id": operation.idempotency_key,
    });
    Ok((capture, amount, body))
}

#[async_trait]
impl Connector for PayPalConnector {
    fn kind(&self) -> ProviderKind {
        ProviderKind::PayPal
    }

    /// Reads the capture (`GET /v2/payments/captures/{id}`) and its order's refunds: the refund
    /// must be in the capture's currency and at most what is left of it.
    async fn check(&self, operation: &OperationRecord) -> Checked {
        let (capture_id, amount, _) = match refund_request(operation) {
            Ok(request) => request,
            Err(reason) => return Checked::Invalid { reason },
        };
        let capture = match self.get(&format!("/v2/payments/captures/{capture_id}")).await {
            Ok(Some(capture)) => capture,
            Ok(None) => return Checked::Invalid { reason: format!("PayPal has no capture {capture_id}") },
            Err(reason) => return Checked::Unavailable { reason },
        };
        let Some(captured) = capture.get("amount").and_then(money_of) else {
            return Checked::Unavailable { reason: format!("PayPal's capture {capture_id} holds no amount") };
        };
        if captured.currency != amount.currency {
            return Checked::Invalid {
                reason: format!(
                    "the refund is recorded in {} but capture {capture_id} was made in {}",
                    amount.currency, captured.currency
                ),
            };
        }
        let refunds = match self.refunds_of(&capture).await {
            Ok(refunds) => refunds,
            Err(reason) => return Checked::Unavailable { reason },
        };
        let by_others: i64 = refunds
            .iter()
            .filter(|refund| !made_by(refund, operation) && holds_money(refund))
            .filter_map(|refund| refund.get("amount").and_then(money_of))
            .map(|money| money.minor)
            .sum();
        let left = captured.minor - by_others;
        if amount.minor > left {
            return Checked::Invalid {
                reason: format!(
                    "the refund of {amount} is more than the {} left to refund of capture {capture_id}",
                    Money::new(left.max(0), amount.currency)
                ),
            };
        }
        Checked::Valid { amount: Some(amount) }
    }

    async fn send(&self, operation: &OperationRecord) -> Sent {
        let (capture, _, body) = match refund_request(operation) {
            Ok(request) => request,
            Err(reason) => {
                return failed(
                    FailureClass::InvalidParams,
                    AttemptReport { error: Some(reason), ..Default::default() },
                )
            }
        };
        let token = match self.token().await {
            Ok(token) => token,
            Err(reason) => {
                let report =
                    AttemptReport { error: Some(format!("not sent: {reason}")), ..Default::default() };
                return failed(FailureClass::NotSent, report);
            }
        };
        let reading = Reading { outcome: sent_refund, error_code, error_message };
        let key = ("PayPal-Request-Id", operation.idempotency_key.as_str());
        let path = format!("/v2/payments/captures/{capture}/refund");
        let headers = [("Prefer", "return=representation")];
        self.endpoint
            .post(&path, key, Body::Json(&body), Credentials::Bearer(&token), &headers, reading)
            .await
    }

    /// Finds the refund in the capture's order by its `custom_id`.
    async fn look_up(&self, operation: &OperationRecord) -> Lookup {
        let capture_id = match refund_request(operation) {
            Ok((capture, _, _)) => capture,
            Err(reason) => return Lookup::Unavailable { reason },
        };
        let capture = match self.get(&format!("/v2/payments/captures/{capture_id}")).await {
            Ok(Some(capture)) => capture,
            Ok(None) => return Lookup::Unavailable { reason: format!("PayPal has no capture {capture_id}") },
            Err(reason) => return Lookup::Unavailable { reason },
        };
        let refunds = match self.refunds_of(&capture).await {
            Ok(refunds) => refunds,
            Err(reason) => return Lookup::Unavailable { reason },
        };
        let key = &operation.idempotency_key;
        match refunds.iter().find(|refund| made_by(refund, operation)) {
            Some(refund) => {
                let id = refund.get("id").and_then(Value::as_str).unwrap_or_default().to_owned();
                let status = refund_status(refund);
                Lookup::Found {
                    evidence: format!(
                        "PayPal lists refund {id} of capture {capture_id} with custom_id {key}, {} (the capture's order, purchase_units[].payments.refunds)",
                        status.as_str()
                    ),
                    external_id: id,
                    status,
                }
            }
            None => Lookup::NotFound {
                evidence: format!(
                    "PayPal lists {} refund(s) in capture {capture_id}'s order, none with custom_id {key}",
                    refunds.len()
                ),
            },
        }
    }

    /// `GET /v2/payments/refunds/{id}`: the refund as it stands now, when it is this operation's.
    async fn follow(&self, operation: &OperationRecord, external_id: &str) -> Lookup {
        match self.object(external_id).await {
            Ok(Some(refund))
                if refund.metadata.get("custom_id").and_then(Value::as_str)
                    == Some(operation.idempotency_key.as_str()) =>
            {
                Lookup::Found {
                    evidence: format!(
                        "PayPal has refund {external_id} of {}, {} (GET /v2/payments/refunds/{external_id})",
                        operation.op_id,
                        refund.status.as_str()
                    ),
                    external_id: refund.external_id,
                    status: refund.status,
                }
            }
            Ok(Some(_)) => Lookup::Unavailable {
                reason: format!("PayPal's refund {external_id} was not made by {}", operation.op_id),
            },
            Ok(None) => Lookup::NotFound { evidence: format!("PayPal has no refund {external_id}") },
            Err(reason) => Lookup::Unavailable { reason },
        }
    }

    /// `POST /v1/notifications/verify-webhook-signature` with the transmission's headers, the
    /// webhook's id and the event: PayPal answers whether it sent it.
    async fn verify_webhook(
        &self,
        headers: &[(String, String)],
        event: &Value,
        webhook_id: &str,
    ) -> Result<bool, String> {
        let header = |name: &str| {
            headers
                .iter()
                .find(|(key, _)| key.eq_ignore_ascii_case(name))
                .map(|(_, value)| value.clone())
                .unwrap_or_default()
        };
        let request = json!({
            "auth_algo": header("paypal-auth-algo"),
            "cert_url": header("paypal-cert-url"),
            "transmission_id": header("paypal-transmission-id"),
            "transmission_sig": header("paypal-transmission-sig"),
            "transmission_time": header("paypal-transmission-time"),
            "webhook_id": webhook_id,
            "webhook_event": event,
        });
        let token = self.token().await?;
        let client = self.endpoint.client()?;
        let url = self.endpoint.url("/v1/notifications/verify-webhook-signature");
        let answer = client
            .post(&url)
            .bearer_auth(&token)
            .json(&request)
            .send()
            .await
            .map_err(|error| format!("PayPal could not be asked about the event: {error}"))?;
        if !answer.status().is_success() {
            return Err(format!("PayPal answered {} when asked about the event", answer.status()));
        }
        let verdict: Value =
            answer.json().await.map_err(|_| "PayPal's verdict could not be read".to_owned())?;
        Ok(verdict.get("verification_status").and_then(Value::as_str) == Some("SUCCESS"))
    }

    async fn object(&self, external_id: &str) -> Result<Option<ProviderObject>, String> {
        if !is_paypal_id(external_id) {
            return Err(format!("{external_id:?} is not a PayPal id"));
        }
        let refund = self.get(&format!("/v2/payments/refunds/{external_id}")).await?;
        Ok(refund.map(|refund| ProviderObject {
            external_id: refund.get("id").and_then(Value::as_str).unwrap_or(external_id).to_owned(),
            metadata: json!({"custom_id": refund.get("custom_id"), "invoice_id": refund.get("invoice_id")}),
            status: refund_status(&refund),
        }))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn money(minor: i64, code: &str) -> Money {
        Money::new(minor, Currency::parse(code).unwrap())
    }

    #[test]
    fn amounts_are_written_in_paypals_own_digits() {
        assert_eq!(paypal_value(money(38_000, "TWD")).unwrap(), "380");
        assert!(paypal_value(money(38_050, "TWD")).is_err(), "PayPal takes TWD in whole units");
        assert_eq!(paypal_value(money(1_990, "EUR")).unwrap(), "19.90");
        assert_eq!(paypal_value(money(5, "USD")).unwrap(), "0.05");
        assert_eq!(paypal_value(money(1_500, "JPY")).unwrap(), "1500");
        assert_eq!(money_of(&json!({"value": "380", "currency_code": "TWD"})), Some(money(38_000, "TWD")));
    }

    #[test]
    fn a_refund_is_read_by_its_status() {
        assert_eq!(refund_status(&json!({"status": "COMPLETED"})), ProviderStatus::Succeeded);
        assert_eq!(
            refund_status(&json!({"status": "PENDING"})),
            ProviderStatus::Pending { needs_action: false }
        );
        assert_eq!(
            refund_status(&json!({"status": "FAILED", "status_details": {"reason": "ECHECK"}})),
            ProviderStatus::Failed { reason: "echeck".into() }
        );
        assert_eq!(
            refund_status(&json!({"status": "CANCELLED"})),
            ProviderStatus::Failed { reason: "cancelled".into() }
        );
        assert_eq!(refund_status(&json!({"status": "NEW"})), ProviderStatus::Pending { needs_action: true });
    }
}
