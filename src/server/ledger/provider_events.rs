//! The provider's own webhooks, the third way (beside a lookup and a re-send under the same key)
//! to settle what a send left open: an event a provider posted to a tenant's connection, once its
//! signature was verified, is stored before anything else and processed once per event id. The
//! event itself is never trusted for the result: events arrive late, twice and out of order, so the
//! object it names is read again from the provider, matched to an operation by the op id and tenant
//! its metadata carries (never another tenant's, whatever the event says), and the operation is
//! settled by that object's status through the ledger service, as a lookup would. A provider's
//! later word that an object it reported succeeded failed after all (Adyen's `REFUND_FAILED`, a
//! Stripe or PayPal refund read `failed` after it succeeded) wins over its earlier success: the
//! operation goes to people (`needs_review`), with its audit entry and webhook event, in one
//! transaction. An event about nothing opledger knows is kept and answered as received.

use serde_json::json;

use super::executor::Executor;
use super::LedgerError;
use crate::domain::{
    ids::{Actor, OpId, TenantId},
    machine::{Command, ProviderStatus, State},
    operation::{AttemptReport, OperationRecord},
};
use crate::server::clock::now;
use crate::server::providers::adyen_events::AdyenItem;
use crate::server::providers::stripe_events::StripeEvent;
use crate::server::store::records::{EventReceipt, NewProviderEvent};

/// What processing an event came to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EventOutcome {
    /// In words, as stored with the event and answered to the provider.
    pub outcome: String,
    /// The operation it was about, when it matched one of the tenant's.
    pub op_id: Option<OpId>,
}

/// Why an event could not be processed now: the provider is asked again when it retries.
#[derive(Debug, thiserror::Error)]
pub enum EventError {
    #[error("the provider could not be asked about {object}: {reason}")]
    ProviderUnavailable { object: String, reason: String },
    /// The operation the event settles has a send in flight whose answer the provider's event
    /// cannot replace (Adyen: the answer only says the refund was received): the provider is
    /// asked to send the event again, when the send's answer is recorded.
    #[error("{op_id} has a send in flight")]
    InFlight { op_id: OpId },
    #[error(transparent)]
    Ledger(#[from] LedgerError),
}

impl Executor {
    /// Receives a Stripe event, verified, that `tenant`'s connection `connection` was sent:
    /// stores it once, and settles the operation whose refund it names by the refund's status as
    /// Stripe gives it now. A replayed event changes nothing.
    #[tracing::instrument(skip_all, fields(tenant = %tenant, connection, event = %event.id))]
    pub async fn receive_stripe_event(
        &self,
        tenant: &TenantId,
        connection: &str,
        event: StripeEvent,
        payload: String,
    ) -> Result<EventOutcome, EventError> {
        let received = NewProviderEvent {
            tenant: tenant.clone(),
            connection: connection.to_owned(),
            event_id: event.id.clone(),
            event_type: event.event_type.clone(),
            object_id: event.object_id.clone(),
            payload,
            received_at: now(),
        };
        self.receive_once(tenant, connection, received, self.process_stripe_event(tenant, connection, &event))
            .await
    }

    async fn process_stripe_event(
        &self,
        tenant: &TenantId,
        connection: &str,
        event: &StripeEvent,
    ) -> Result<EventOutcome, EventError> {
        let unmatched = |outcome: String| Ok(EventOutcome { outcome, op_id: None });
        if !event.is_about_a_refund() {
            return unmatched(format!("not followed: {} is not about a refund", event.event_type));
        }
        let Some(object) = event.object_id.as_deref() else {
            return unmatched("the event names no refund".to_owned());
        };
        let connector = match self.directory().connector(tenant, connection).await? {
            Ok(connector) => connector,
            Err(reason) => return unmatched(format!("not processed: {reason}")),
        };
        let refund = match connector.object(object).await {
            Ok(Some(refund)) => refund,
            Ok(None) => return unmatched(format!("Stripe has no refund {object}")),
            Err(reason) => return Err(EventError::ProviderUnavailable { object: object.to_owned(), reason }),
        };
        let metadata = &refund.metadata;
        let named = |field: &str| metadata.get(field).and_then(serde_json::Value::as_str);
        let Some(op_id) = named("op_id").and_then(|op_id| OpId::parse(op_id).ok()) else {
            return unmatched(format!("refund {object} was not made by opledger (no op_id in its metadata)"));
        };
        if named("tenant").is_some_and(|owner| owner != tenant.as_str()) {
            return unmatched(format!("refund {object} belongs to another tenant"));
        }
        let reads = self.ledger().reads();
        let Some(operation) = reads.load_operation(tenant, &op_id).await.map_err(LedgerError::from)? else {
            return unmatched(format!("refund {object} names {op_id}, which this tenant does not have"));
        };
        if operation.provider != connection || !operation.created(metadata) {
            return unmatched(format!("refund {object} was not made by {op_id} of this connection"));
        }
        let evidence = format!(
            "Stripe event {} ({}); GET /v1/refunds/{object} says {}",
            event.id,
            event.event_type,
            refund.status.as_str()
        );
        self.settle_by_event(tenant, connection, &operation, &refund.external_id, refund.status, evidence)
            .await
    }

    /// Settles `operation` by what its provider says of the object `object` (`status`), as a
    /// lookup would: recorded when the operation is accepted, unknown or waiting for review; one
    /// still pending and already accepted changes nothing; one waiting for someone to act goes to
    /// people; a succeeded one the provider now says failed goes to people too, since the
    /// provider's later refusal wins over its earlier success; a send in flight or another settled
    /// operation is left as it is, with what the provider said kept with the event.
    async fn settle_by_event(
        &self,
        tenant: &TenantId,
        connection: &str,
        operation: &OperationRecord,
        object: &str,
        status: ProviderStatus,
        evidence: String,
    ) -> Result<EventOutcome, EventError> {
        let op_id = &operation.op_id;
        let settled = |outcome: String| Ok(EventOutcome { outcome, op_id: Some(op_id.clone()) });
        let state = operation.snapshot.state;
        let failed_after_success =
            state == State::Succeeded && matches!(status, ProviderStatus::Failed { .. });
        match state {
            State::Accepted | State::Unknown | State::NeedsReview => {}
            State::Succeeded if failed_after_success => {}
            State::Submitted => {
                return settled(format!(
                "{op_id} has a send in flight; its answer, or the reconciler after it, records {object} ({})",
                status.as_str()
            ))
            }
            settled_already => {
                return settled(format!(
                    "{op_id} is already {}; the provider says {object} is {}",
                    settled_already.label(),
                    status.as_str()
                ));
            }
        }
        if state == State::Accepted && matches!(status, ProviderStatus::Pending { needs_action: false }) {
            return settled(format!("{op_id} stays accepted: {object} is still pending at the provider"));
        }
        let needs_action = matches!(status, ProviderStatus::Pending { needs_action: true });
        let actor = webhook_actor(connection);
        let command = Command::ConfirmFound { external_id: object.to_owned(), evidence, status };
        let ledger = self.ledger();
        let mut after = match ledger.execute(tenant, op_id, command, &actor, AttemptReport::default()).await {
            Ok(committed) => committed.operation.snapshot.state,
            Err(LedgerError::Rejected(refusal)) => {
                return settled(format!("nothing changed for {op_id}: {}", refusal.message))
            }
            Err(error) => return Err(error.into()),
        };
        if needs_action && after == State::Accepted {
            let reason = format!("the provider says {object} waits for someone to act");
            let escalated =
                ledger.execute(tenant, op_id, Command::Escalate { reason }, &actor, AttemptReport::default());
            after = escalated.await?.operation.snapshot.state;
        }
        if failed_after_success {
            tracing::warn!(%tenant, %op_id, object, "the provider says an operation that succeeded failed afterwards");
            return settled(format!(
                "{op_id} had succeeded and the provider now says {object} failed: it is now {}, for a person to settle",
                after.label()
            ));
        }
        settled(format!("{op_id} is now {} ({object})", after.label()))
    }

    /// Stores `event_id` of `connection` once, and processes it with `process` unless it was
    /// processed before; an event about no operation is kept in the audit trail too.
    async fn receive_once(
        &self,
        tenant: &TenantId,
        connection: &str,
        received: NewProviderEvent,
        process: impl std::future::Future<Output = Result<EventOutcome, EventError>>,
    ) -> Result<EventOutcome, EventError> {
        let store = &self.ledger().store;
        let (event_id, event_type, object) =
            (received.event_id.clone(), received.event_type.clone(), received.object_id.clone());
        if let EventReceipt::Processed { outcome } =
            store.receive_provider_event(received).await.map_err(LedgerError::from)?
        {
            return Ok(EventOutcome { outcome: format!("already processed: {outcome}"), op_id: None });
        }
        let processed = process.await?;
        store
            .finish_provider_event(
                tenant,
                connection,
                &event_id,
                &processed.outcome,
                processed.op_id.as_ref(),
            )
            .await
            .map_err(LedgerError::from)?;
        if processed.op_id.is_none() {
            let evidence = json!({"connection": connection, "event": event_id, "type": event_type, "object": object, "outcome": processed.outcome});
            self.ledger()
                .record_action(tenant, &webhook_actor(connection), "receive_provider_event", evidence)
                .await
                .map_err(LedgerError::from)?;
        }
        Ok(processed)
    }

    /// Receives one item of an Adyen notification to `tenant`'s connection `connection`, verified:
    /// Adyen cannot be asked about a refund, so the signed item itself is its word, and it is
    /// never dropped: while the operation's send is in flight it waits for Adyen to send it again. A `REFUND`
    /// settles the operation whose key is its merchantReference (succeeded, or failed with
    /// Adyen's reason); a `REFUND_FAILED` fails one still unsettled, and hands one that succeeded
    /// to people. Once per item.
    ///
    /// An item whose `merchantAccountCode` is not the connection's `merchant_account` is refused:
    /// it changes nothing, and its outcome, stored with it and in the audit trail, says why. It is
    /// still answered `[accepted]`: its HMAC verified, so Adyen sent it (a company-level webhook
    /// carries every merchant account's notifications), and Adyen sends an item it was not
    /// answered `[accepted]` for again for days, to the same refusal.
    #[tracing::instrument(skip_all, fields(tenant = %tenant, connection, event = %item.event_id()))]
    pub async fn receive_adyen_item(
        &self,
        tenant: &TenantId,
        connection: &str,
        merchant_account: Option<&str>,
        item: AdyenItem,
        payload: String,
    ) -> Result<EventOutcome, EventError> {
        let received = NewProviderEvent {
            tenant: tenant.clone(),
            connection: connection.to_owned(),
            event_id: item.event_id(),
            event_type: item.event_code.clone(),
            object_id: Some(item.psp_reference.clone()),
            payload,
            received_at: now(),
        };
        let process = async {
            let unmatched = |outcome: String| Ok(EventOutcome { outcome, op_id: None });
            if merchant_account != Some(item.merchant_account.as_str()) {
                tracing::warn!(%tenant, connection, merchant_account = item.merchant_account, "an Adyen item for another merchant account was refused");
                return unmatched(format!(
                    "refused: the item is about merchant account {:?}, not this connection's ({})",
                    item.merchant_account,
                    merchant_account.unwrap_or("none")
                ));
            }
            let status = match (item.event_code.as_str(), item.success) {
                ("REFUND", true) => ProviderStatus::Succeeded,
                ("REFUND", false) | ("REFUND_FAILED", _) => ProviderStatus::Failed {
                    reason: if item.reason.trim().is_empty() {
                        item.event_code.to_lowercase()
                    } else {
                        item.reason.clone()
                    },
                },
                (other, _) => {
                    return unmatched(format!("not followed: {other} is not about a refund's outcome"))
                }
            };
            let reads = self.ledger().reads();
            let operation =
                reads.operation_by_key(tenant, &item.merchant_reference).await.map_err(LedgerError::from)?;
            let Some(operation) = operation.filter(|operation| operation.provider == connection) else {
                return unmatched(format!(
                    "refund {} names no operation of this connection",
                    item.psp_reference
                ));
            };
            if operation.snapshot.state == State::Submitted {
                return Err(EventError::InFlight { op_id: operation.op_id });
            }
            let evidence = format!(
                "Adyen {} notification for {} (payment {}), success {}{}",
                item.event_code,
                item.psp_reference,
                item.original_reference,
                item.success,
                if item.reason.is_empty() { String::new() } else { format!(", reason {}", item.reason) }
            );
            self.settle_by_event(tenant, connection, &operation, &item.psp_reference, status, evidence).await
        };
        self.receive_once(tenant, connection, received, process).await
    }

    /// Receives a PayPal event posted to `tenant`'s connection `connection`, which PayPal has just
    /// confirmed it sent: a `PAYMENT.CAPTURE.REFUNDED` (and the other refund events) settles the
    /// operation whose key is the refund's `custom_id`, by the refund as PayPal holds it now.
    #[tracing::instrument(skip_all, fields(tenant = %tenant, connection))]
    pub async fn receive_paypal_event(
        &self,
        tenant: &TenantId,
        connection: &str,
        event: serde_json::Value,
        payload: String,
    ) -> Result<EventOutcome, EventError> {
        let text =
            |pointer: &str| event.pointer(pointer).and_then(serde_json::Value::as_str).map(str::to_owned);
        let event_type = text("/event_type").unwrap_or_default();
        let received = NewProviderEvent {
            tenant: tenant.clone(),
            connection: connection.to_owned(),
            event_id: text("/id").unwrap_or_default(),
            event_type: event_type.clone(),
            object_id: text("/resource/id"),
            payload,
            received_at: now(),
        };
        let process = async {
            let unmatched = |outcome: String| Ok(EventOutcome { outcome, op_id: None });
            if !matches!(
                event_type.as_str(),
                "PAYMENT.CAPTURE.REFUNDED" | "PAYMENT.REFUND.PENDING" | "PAYMENT.REFUND.FAILED"
            ) {
                return unmatched(format!("not followed: {event_type} is not about a refund"));
            }
            let Some(refund_id) = text("/resource/id") else {
                return unmatched("the event names no refund".into());
            };
            let connector = match self.directory().connector(tenant, connection).await? {
                Ok(connector) => connector,
                Err(reason) => return unmatched(format!("not processed: {reason}")),
            };
            let refund = match connector.object(&refund_id).await {
                Ok(Some(refund)) => refund,
                Ok(None) => return unmatched(format!("PayPal has no refund {refund_id}")),
                Err(reason) => return Err(EventError::ProviderUnavailable { object: refund_id, reason }),
            };
            let key = refund
                .metadata
                .get("custom_id")
                .and_then(serde_json::Value::as_str)
                .unwrap_or_default()
                .to_owned();
            let reads = self.ledger().reads();
            let operation = reads.operation_by_key(tenant, &key).await.map_err(LedgerError::from)?;
            let Some(operation) = operation.filter(|operation| operation.provider == connection) else {
                return unmatched(format!("refund {refund_id} names no operation of this connection"));
            };
            let evidence = format!(
                "PayPal event {} ({event_type}); GET /v2/payments/refunds/{refund_id} says {}",
                text("/id").unwrap_or_default(),
                refund.status.as_str()
            );
            self.settle_by_event(tenant, connection, &operation, &refund.external_id, refund.status, evidence)
                .await
        };
        self.receive_once(tenant, connection, received, process).await
    }
}

/// Who settles an operation from a connection's webhook, in the audit trail.
fn webhook_actor(connection: &str) -> Actor {
    Actor::system(&format!("{connection}-webhook"))
}
