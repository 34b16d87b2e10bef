//! The provider's own webhooks, the third way (beside a lookup and a re-send under the same key)
//! to settle what a send left open: an event a provider posted to a tenant's connection, once its
//! signature was verified, is stored before anything else and processed once per event id. The
//! event itself is never trusted for the result: events arrive late, twice and out of order, so the
//! object it names is read again from the provider, matched to an operation by the op id and tenant
//! its metadata carries (never another tenant's, whatever the event says), and the operation is
//! settled by that object's status through the ledger service, as a lookup would. An event about
//! nothing opledger knows is kept and answered as received.

use serde_json::json;

use super::executor::Executor;
use super::LedgerError;
use crate::domain::{
    ids::{Actor, OpId, TenantId},
    machine::{Command, ProviderStatus, State},
    operation::AttemptReport,
};
use crate::server::clock::now;
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
        let store = &self.ledger().store;
        let received = NewProviderEvent {
            tenant: tenant.clone(),
            connection: connection.to_owned(),
            event_id: event.id.clone(),
            event_type: event.event_type.clone(),
            object_id: event.object_id.clone(),
            payload,
            received_at: now(),
        };
        if let EventReceipt::Processed { outcome } =
            store.receive_provider_event(received).await.map_err(LedgerError::from)?
        {
            return Ok(EventOutcome { outcome: format!("already processed: {outcome}"), op_id: None });
        }
        let processed = self.process_stripe_event(tenant, connection, &event).await?;
        store
            .finish_provider_event(
                tenant,
                connection,
                &event.id,
                &processed.outcome,
                processed.op_id.as_ref(),
            )
            .await
            .map_err(LedgerError::from)?;
        if processed.op_id.is_none() {
            let evidence = json!({
                "connection": connection,
                "event": event.id,
                "type": event.event_type,
                "object": event.object_id,
                "outcome": processed.outcome,
            });
            self.ledger()
                .record_action(tenant, &webhook_actor(connection), "receive_provider_event", evidence)
                .await
                .map_err(LedgerError::from)?;
        }
        Ok(processed)
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
        let connector = match self.connector(tenant, connection).await? {
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
        let settled = |outcome: String| Ok(EventOutcome { outcome, op_id: Some(op_id.clone()) });
        let state = operation.snapshot.state;
        let status = refund.status;
        match state {
            State::Accepted | State::Unknown | State::NeedsReview => {}
            State::Submitted => {
                return settled(format!(
                    "{op_id} has a send in flight; its answer, or the reconciler after it, records refund {object} ({})",
                    status.as_str()
                ))
            }
            settled_already => {
                return settled(format!(
                    "{op_id} is already {}; Stripe says refund {object} is {}",
                    settled_already.label(),
                    status.as_str()
                ))
            }
        }
        if state == State::Accepted && matches!(status, ProviderStatus::Pending { needs_action: false }) {
            return settled(format!("{op_id} stays accepted: refund {object} is still pending at Stripe"));
        }
        let needs_action = matches!(status, ProviderStatus::Pending { needs_action: true });
        let evidence = format!(
            "Stripe event {} ({}); GET /v1/refunds/{object} says {}",
            event.id,
            event.event_type,
            status.as_str()
        );
        let actor = webhook_actor(connection);
        let command = Command::ConfirmFound { external_id: refund.external_id, evidence, status };
        let ledger = self.ledger();
        let mut after = match ledger.execute(tenant, &op_id, command, &actor, AttemptReport::default()).await
        {
            Ok(committed) => committed.operation.snapshot.state,
            Err(LedgerError::Rejected(refusal)) => {
                return settled(format!("nothing changed for {op_id}: {}", refusal.message))
            }
            Err(error) => return Err(error.into()),
        };
        if needs_action && after == State::Accepted {
            let reason = format!("Stripe says refund {object} waits for someone to act (requires_action)");
            let escalated = ledger.execute(
                tenant,
                &op_id,
                Command::Escalate { reason },
                &actor,
                AttemptReport::default(),
            );
            after = escalated.await?.operation.snapshot.state;
        }
        settled(format!("{op_id} is now {} (refund {object})", after.label()))
    }
}

/// Who settles an operation from a connection's webhook, in the audit trail.
fn webhook_actor(connection: &str) -> Actor {
    Actor::system(&format!("{connection}-webhook"))
}
