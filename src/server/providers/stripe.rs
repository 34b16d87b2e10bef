//! The Stripe refunds connector: checks a refund against its payment before it is sent
//! (`GET /v1/payment_intents/{id}`: the currency, and what is left to refund), sends it
//! (`POST /v1/refunds`, form-encoded, `Idempotency-Key`, the amount with its currency, the other
//! parameters and the op id and tenant as metadata), finds it again by its op id and tenant
//! (`GET /v1/refunds?payment_intent=`, every page of it), and follows it by its id
//! (`GET /v1/refunds/{id}`). Every answer is read by the refund's own `status`: `succeeded` is
//! done; `pending` and `requires_action` are accepted, not done; `failed` and `canceled` failed at
//! Stripe with its `failure_reason`, and the money did not move. The base URL and secret key come
//! from the tenant's connection or the server's configuration, so it points at the sandbox or at
//! Stripe itself.

use async_trait::async_trait;
use serde_json::Value;
use std::time::Duration;

use super::http::{failed, Endpoint};
use super::{metadata_fields, Checked, Connector, Lookup, ProviderObject, Sent};
use crate::domain::connection::ProviderKind;
use crate::domain::failure::FailureClass;
use crate::domain::machine::{AttemptOutcome, ProviderStatus};
use crate::domain::money::Money;
use crate::domain::operation::{AttemptReport, OperationRecord};
use crate::server::egress::EgressPolicy;

pub struct StripeConnector {
    endpoint: Endpoint,
}

impl StripeConnector {
    /// A connector to `base_url` (`https://api.stripe.com` or the sandbox's address) that gives up
    /// waiting for an answer after `timeout` and reaches only what `egress` allows.
    pub fn new(base_url: &str, secret_key: &str, timeout: Duration, egress: &EgressPolicy) -> Self {
        Self { endpoint: Endpoint::new(ProviderKind::Stripe, base_url, secret_key, timeout, egress) }
    }
}

/// The fields of a refund request that Stripe reads as such; every other recorded parameter goes
/// into the refund's metadata.
const REFUND_FIELDS: [&str; 3] = ["payment_intent", "amount", "reason"];

/// Stripe's ids are letters, digits and `_`; anything else would change the path it is put in.
fn is_stripe_id(value: &str) -> bool {
    !value.is_empty() && value.len() <= 255 && value.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
}

/// The refund request the ledger recorded, every field of it as a form field: the payment, the
/// amount with its currency, the reason, the other parameters as metadata, and the op id and
/// tenant; or why it cannot be sent as recorded.
fn refund_form(operation: &OperationRecord) -> Result<(String, Money, Vec<(String, String)>), String> {
    if operation.action.as_deref() != Some("refund") {
        return Err(format!(
            "the Stripe connection performs refunds, and {} was not recorded as one ({:?})",
            operation.op_id, operation.kind
        ));
    }
    let params = operation.params.as_value();
    let payment_intent = params
        .get("payment_intent")
        .and_then(Value::as_str)
        .filter(|id| is_stripe_id(id))
        .ok_or("params.payment_intent is missing or is not a Stripe id")?;
    let amount = operation
        .params
        .money("amount")
        .filter(|amount| amount.minor > 0)
        .ok_or("params.amount is missing or is not a positive amount with its currency")?;
    let mut form = vec![
        ("payment_intent".to_owned(), payment_intent.to_owned()),
        ("amount".to_owned(), amount.minor.to_string()),
        ("currency".to_owned(), amount.currency.as_str().to_lowercase()),
    ];
    if let Some(reason) = params.get("reason") {
        let reason = reason.as_str().ok_or("params.reason must be text")?;
        form.push(("reason".to_owned(), reason.to_owned()));
    }
    let extra =
        params.as_object().into_iter().flatten().filter(|(name, _)| !REFUND_FIELDS.contains(&name.as_str()));
    for (name, value) in extra {
        let text = match value {
            Value::String(text) => text.clone(),
            Value::Number(number) => number.to_string(),
            Value::Bool(flag) => flag.to_string(),
            _ => {
                return Err(format!(
                    "params.{name} has no place in a Stripe refund (metadata holds text and numbers)"
                ))
            }
        };
        form.push((format!("metadata[{name}]"), text));
    }
    form.extend(metadata_fields(operation));
    Ok((payment_intent.to_owned(), amount, form))
}

/// What a Stripe refund's `status` says of it. `failed` and `canceled` carry Stripe's
/// `failure_reason` (`expired_or_canceled_card`, `lost_or_stolen_card`, `declined`, …), or the
/// status itself when Stripe gives none. A status this connector does not know is never taken for
/// done: it is pending, and needs a person.
pub fn refund_status(refund: &Value) -> ProviderStatus {
    let status = refund.get("status").and_then(Value::as_str).unwrap_or_default();
    match status {
        "succeeded" => ProviderStatus::Succeeded,
        "pending" => ProviderStatus::Pending { needs_action: false },
        "requires_action" => ProviderStatus::Pending { needs_action: true },
        "failed" | "canceled" => {
            let reason = refund.get("failure_reason").and_then(Value::as_str).filter(|r| !r.is_empty());
            ProviderStatus::Failed { reason: reason.unwrap_or(status).to_owned() }
        }
        _ => ProviderStatus::Pending { needs_action: true },
    }
}

/// The outcome of a send Stripe answered with a refund: by the refund's status.
fn sent_refund(refund: &Value) -> AttemptOutcome {
    let external_id = refund.get("id").and_then(Value::as_str).map(str::to_owned);
    match refund_status(refund) {
        ProviderStatus::Succeeded => AttemptOutcome::Succeeded { external_id },
        ProviderStatus::Pending { .. } => AttemptOutcome::Accepted { external_id },
        ProviderStatus::Failed { reason } => AttemptOutcome::FailedAtProvider { external_id, reason },
    }
}

/// Whether a refund holds money back from its payment: every refund but a failed or cancelled one.
fn holds_money(refund: &Value) -> bool {
    !matches!(refund.get("status").and_then(Value::as_str), Some("failed" | "canceled"))
}

/// The most pages of refunds read for one payment: 100 pages of 100.
const MAX_REFUND_PAGES: usize = 100;

impl StripeConnector {
    /// Every refund of `payment_intent`, newest first, page after page (`has_more`,
    /// `starting_after`), so that one made long ago is found however many came after it.
    async fn refunds_of(&self, payment_intent: &str) -> Result<Vec<Value>, String> {
        let mut refunds: Vec<Value> = Vec::new();
        for _ in 0..MAX_REFUND_PAGES {
            let after = refunds.last().and_then(|r| r.get("id")).and_then(Value::as_str).map(str::to_owned);
            let mut query = vec![("payment_intent", payment_intent), ("limit", "100")];
            if let Some(after) = after.as_deref() {
                query.push(("starting_after", after));
            }
            let page = self.endpoint.get_json("/v1/refunds", &query).await?;
            let data = page.get("data").and_then(Value::as_array).cloned().unwrap_or_default();
            let more = page.get("has_more").and_then(Value::as_bool).unwrap_or(false) && !data.is_empty();
            refunds.extend(data);
            if !more {
                return Ok(refunds);
            }
        }
        Err(format!("payment {payment_intent} has more than {} refunds", MAX_REFUND_PAGES * 100))
    }
}

/// The refunds of `payment_intent` that `operation` did not make and that hold money back
/// (pending ones included, failed and cancelled ones not), summed in minor units.
fn refunded_by_others(refunds: &[Value], operation: &OperationRecord) -> i64 {
    refunds
        .iter()
        .filter(|refund| !refund.get("metadata").is_some_and(|m| operation.created(m)))
        .filter(|refund| holds_money(refund))
        .filter_map(|refund| refund.get("amount").and_then(Value::as_i64))
        .sum()
}

#[async_trait]
impl Connector for StripeConnector {
    fn kind(&self) -> ProviderKind {
        ProviderKind::Stripe
    }

    /// Reads the payment (`GET /v1/payment_intents/{id}`) and its refunds: the refund must be in
    /// the payment's currency and at most what is left of it.
    async fn check(&self, operation: &OperationRecord) -> Checked {
        let (payment_intent, amount, _) = match refund_form(operation) {
            Ok(request) => request,
            Err(reason) => return Checked::Invalid { reason },
        };
        let payment =
            match self.endpoint.get_json_or_missing(&format!("/v1/payment_intents/{payment_intent}")).await {
                Ok(Some(payment)) => payment,
                Ok(None) => {
                    return Checked::Invalid { reason: format!("Stripe has no payment {payment_intent}") }
                }
                Err(reason) => return Checked::Unavailable { reason },
            };
        let paid_currency =
            payment.get("currency").and_then(Value::as_str).unwrap_or_default().to_uppercase();
        if paid_currency != amount.currency.as_str() {
            return Checked::Invalid {
                reason: format!(
                    "the refund is recorded in {} but payment {payment_intent} was made in {}",
                    amount.currency,
                    if paid_currency.is_empty() { "an unknown currency" } else { &paid_currency }
                ),
            };
        }
        let received = payment
            .get("amount_received")
            .or_else(|| payment.get("amount"))
            .and_then(Value::as_i64)
            .unwrap_or_default();
        let refunds = match self.refunds_of(&payment_intent).await {
            Ok(refunds) => refunds,
            Err(reason) => return Checked::Unavailable { reason },
        };
        let left = received - refunded_by_others(&refunds, operation);
        if amount.minor > left {
            return Checked::Invalid {
                reason: format!(
                    "the refund of {amount} is more than the {} left to refund of payment {payment_intent}",
                    Money::new(left.max(0), amount.currency)
                ),
            };
        }
        Checked::Valid { amount: Some(amount) }
    }

    async fn send(&self, operation: &OperationRecord) -> Sent {
        match refund_form(operation) {
            Ok((_, _, form)) => {
                self.endpoint.post_form("/v1/refunds", &operation.idempotency_key, &form, sent_refund).await
            }
            Err(reason) => failed(
                FailureClass::InvalidParams,
                AttemptReport { error: Some(reason), ..Default::default() },
            ),
        }
    }

    async fn look_up(&self, operation: &OperationRecord) -> Lookup {
        let Some(payment_intent) = operation
            .params
            .as_value()
            .get("payment_intent")
            .and_then(Value::as_str)
            .filter(|id| is_stripe_id(id))
        else {
            return Lookup::Unavailable {
                reason: "params.payment_intent is missing or is not a Stripe id".into(),
            };
        };
        let refunds = match self.refunds_of(payment_intent).await {
            Ok(refunds) => refunds,
            Err(reason) => return Lookup::Unavailable { reason },
        };
        let op_id = operation.op_id.as_str();
        let tenant = &operation.tenant;
        match refunds.iter().find(|r| r.get("metadata").is_some_and(|m| operation.created(m))) {
            Some(refund) => {
                let status = refund_status(refund);
                Lookup::Found {
                    external_id: refund.get("id").and_then(Value::as_str).unwrap_or_default().to_owned(),
                    evidence: format!(
                        "Stripe lists refund {} of {payment_intent} as {op_id} of tenant {tenant}, {} \
                         (GET /v1/refunds?payment_intent={payment_intent}, metadata.op_id)",
                        refund.get("id").and_then(Value::as_str).unwrap_or("a refund"),
                        status_words(&status),
                    ),
                    status,
                }
            }
            None => Lookup::NotFound {
                evidence: format!(
                    "Stripe lists {} for {payment_intent}, none of them {op_id} of tenant {tenant} \
                     (GET /v1/refunds?payment_intent={payment_intent}, metadata.op_id)",
                    match refunds.len() {
                        0 => "no refund".to_owned(),
                        1 => "1 refund".to_owned(),
                        n => format!("{n} refunds"),
                    }
                ),
            },
        }
    }

    /// `GET /v1/refunds/{id}`: the refund as it stands now, when it is this operation's.
    async fn follow(&self, operation: &OperationRecord, external_id: &str) -> Lookup {
        let (op_id, tenant) = (operation.op_id.as_str(), &operation.tenant);
        match self.object(external_id).await {
            Ok(Some(refund)) if operation.created(&refund.metadata) => Lookup::Found {
                evidence: format!(
                    "Stripe has refund {external_id} of {op_id} of tenant {tenant}, {} (GET /v1/refunds/{external_id})",
                    status_words(&refund.status)
                ),
                external_id: refund.external_id,
                status: refund.status,
            },
            Ok(Some(_)) => Lookup::Unavailable {
                reason: format!("Stripe's refund {external_id} was not made by {op_id} of tenant {tenant}"),
            },
            Ok(None) => Lookup::NotFound {
                evidence: format!("Stripe has no refund {external_id} (GET /v1/refunds/{external_id})"),
            },
            Err(reason) => Lookup::Unavailable { reason },
        }
    }

    /// `GET /v1/refunds/{id}`, read by its status.
    async fn object(&self, external_id: &str) -> Result<Option<ProviderObject>, String> {
        if !is_stripe_id(external_id) {
            return Err(format!("{external_id:?} is not a Stripe id"));
        }
        let refund = self.endpoint.get_json_or_missing(&format!("/v1/refunds/{external_id}")).await?;
        Ok(refund.map(|refund| ProviderObject {
            external_id: refund.get("id").and_then(Value::as_str).unwrap_or(external_id).to_owned(),
            metadata: refund.get("metadata").cloned().unwrap_or(Value::Null),
            status: refund_status(&refund),
        }))
    }
}

/// A refund's status in words, for evidence: "succeeded", "pending", "failed
/// (expired_or_canceled_card)".
fn status_words(status: &ProviderStatus) -> String {
    match status {
        ProviderStatus::Failed { reason } => format!("failed ({reason})"),
        other => other.as_str().to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_refund_is_read_by_its_status_never_by_the_answer_that_carried_it() {
        let refund = |status: &str| json!({"id": "re_1", "status": status});
        assert_eq!(refund_status(&refund("succeeded")), ProviderStatus::Succeeded);
        assert_eq!(refund_status(&refund("pending")), ProviderStatus::Pending { needs_action: false });
        assert_eq!(refund_status(&refund("requires_action")), ProviderStatus::Pending { needs_action: true });
        let failed = json!({"id": "re_1", "status": "failed", "failure_reason": "expired_or_canceled_card"});
        assert_eq!(
            refund_status(&failed),
            ProviderStatus::Failed { reason: "expired_or_canceled_card".into() }
        );
        assert_eq!(refund_status(&refund("canceled")), ProviderStatus::Failed { reason: "canceled".into() });
        assert_eq!(
            refund_status(&refund("something_new")),
            ProviderStatus::Pending { needs_action: true },
            "a status nobody knows is never done"
        );
        assert_eq!(
            sent_refund(&refund("pending")),
            AttemptOutcome::Accepted { external_id: Some("re_1".into()) }
        );
        assert!(
            holds_money(&refund("pending"))
                && !holds_money(&refund("failed"))
                && !holds_money(&refund("canceled"))
        );
    }
}
