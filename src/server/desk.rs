//! The reconcile desk's actions as a person takes them. So far: *query the provider now*, which
//! looks an uncertain operation up by its op id and, when the provider has it, confirms it through
//! the ledger service with the lookup as evidence. A lookup that finds nothing changes nothing:
//! right after a send, indexes lag, so absence proves nothing.

use super::connectors::Lookup;
use super::executor::Executor;
use super::ledger::{now, LedgerError};
use super::store::records::AttemptReport;
use crate::domain::{
    ids::{Actor, OpId, TenantId},
    machine::{check, Command, CommandKind},
};

/// What a query of the provider found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum QueryOutcome {
    /// The provider has it; the operation is now `succeeded` with this external id.
    Confirmed { external_id: String },
    /// The provider answered and has nothing under this op id.
    NotFound { evidence: String },
    /// The provider could not be asked or did not answer clearly.
    Unavailable { reason: String },
}

/// Looks `op_id` up at its provider for `actor`, and confirms it when found. Refused (as the state
/// machine says) when the actor may not confirm it, so an auditor learns nothing it could act on
/// and a second click on a settled operation does nothing.
pub async fn query_provider(
    executor: &Executor,
    tenant: &TenantId,
    op_id: &OpId,
    actor: &Actor,
) -> Result<QueryOutcome, LedgerError> {
    let ledger = executor.ledger();
    let operation = ledger.store().load_operation(tenant, op_id).await?.ok_or(LedgerError::NotFound)?;
    check(&operation.snapshot, CommandKind::ConfirmFound, actor, now()).map_err(LedgerError::Rejected)?;
    let Some(connector) = executor.connector(&operation.provider) else {
        return Ok(QueryOutcome::Unavailable {
            reason: format!("no connector is configured for provider {}", operation.provider),
        });
    };
    match connector.look_up(&operation).await {
        Lookup::Found { external_id, evidence } => {
            let evidence = format!("{evidence} (queried by {} at {})", actor.name, now().to_rfc3339());
            let command = Command::ConfirmFound { external_id: external_id.clone(), evidence };
            ledger.execute(tenant, op_id, command, actor, AttemptReport::default()).await?;
            Ok(QueryOutcome::Confirmed { external_id })
        }
        Lookup::NotFound { evidence } => Ok(QueryOutcome::NotFound { evidence }),
        Lookup::Unavailable { reason } => Ok(QueryOutcome::Unavailable { reason }),
    }
}
