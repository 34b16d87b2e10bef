//! The one service through which every change to the ledger passes: register an operation (or
//! find it, or refuse a conflicting request), and execute a command on one (load, ask
//! `domain::machine::decide`, commit events, projection and audit in one transaction, retrying the
//! whole step when a concurrent change won). The ledger API, the console, the executor, the
//! reconciler and the tests all call it.

use chrono::{DateTime, Duration, Utc};
use serde_json::json;
use std::sync::Arc;

use super::store::records::{
    AttemptReport, NewConflict, NewOperation, OperationChange, OperationRecord, Registered,
};
use super::store::{Store, StoreError};
use crate::domain::{
    audit::AuditEntry,
    ids::{Actor, OpId, TenantId},
    machine::{decide, Command, Rejection, Snapshot},
    params::{CanonicalParams, FieldDiff},
    policy::{requires_approval, ApprovalRule},
};

/// How often a command is re-decided after losing a race before the caller is told to retry.
const MAX_RACES: usize = 16;

/// Stripe remembers an idempotency key for at least 24 hours.
pub const DEFAULT_KEY_RETENTION: Duration = Duration::hours(24);

/// Now, in the microsecond precision that both engines store.
pub fn now() -> DateTime<Utc> {
    let now = Utc::now();
    DateTime::from_timestamp_micros(now.timestamp_micros()).unwrap_or(now)
}

/// A request to record an operation.
#[derive(Debug, Clone)]
pub struct RegisterRequest {
    pub op_id: OpId,
    pub kind: String,
    pub subject: String,
    pub provider: String,
    pub params: CanonicalParams,
    /// The person or agent on whose behalf the operation is requested (four-eyes compares it).
    pub requested_by: String,
    pub compensates: Option<OpId>,
    pub key_retention: Duration,
}

/// What registering did.
#[derive(Debug, Clone)]
pub enum Registration {
    Created(OperationRecord),
    /// The same intent again: the stored operation, unchanged.
    Existing(OperationRecord),
    /// The same op id with other parameters: refused and kept for review; nothing changed.
    Conflict {
        stored: OperationRecord,
        diff: Vec<FieldDiff>,
    },
}

#[derive(Debug, thiserror::Error)]
pub enum LedgerError {
    #[error("no such operation")]
    NotFound,
    #[error("{0}")]
    Rejected(Rejection),
    #[error("{0}")]
    Invalid(String),
    #[error("the operation is changing too often to decide; try again")]
    Contended,
    #[error(transparent)]
    Store(#[from] StoreError),
}

/// The ledger service.
#[derive(Clone)]
pub struct Ledger {
    store: Arc<dyn Store>,
}

fn reason_of(command: &Command) -> Option<String> {
    match command {
        Command::Approve { reason, .. }
        | Command::Deny { reason }
        | Command::MarkUnknown { reason }
        | Command::Escalate { reason }
        | Command::MarkNotHappened { reason, .. }
        | Command::Cancel { reason } => Some(reason.trim().to_owned()).filter(|r| !r.is_empty()),
        Command::ConfirmFound { .. }
        | Command::MarkSucceeded { .. }
        | Command::ExpireApproval
        | Command::BeginAttempt
        | Command::ResendSameKey
        | Command::RecordOutcome { .. } => None,
    }
}

impl Ledger {
    pub fn new(store: Arc<dyn Store>) -> Self {
        Self { store }
    }

    pub fn store(&self) -> &Arc<dyn Store> {
        &self.store
    }

    /// Records an operation before anything is sent, or answers with the one already recorded
    /// under its op id, or refuses a request that reuses the op id with other parameters.
    #[tracing::instrument(skip_all, fields(tenant = %tenant, op_id = %request.op_id))]
    pub async fn register(
        &self,
        tenant: &TenantId,
        actor: &Actor,
        request: RegisterRequest,
    ) -> Result<Registration, LedgerError> {
        let at = now();
        if let Some(parent) = &request.compensates {
            if self.store.load_operation(tenant, parent).await?.is_none() {
                return Err(LedgerError::Invalid(format!("compensates: there is no operation {parent}")));
            }
        }
        let fingerprint = request.params.fingerprint();
        let rules: Vec<ApprovalRule> =
            self.store.approval_rules(tenant).await?.into_iter().map(|record| record.rule).collect();
        let needs_approval =
            requires_approval(&rules, &request.kind, &request.provider, request.params.money("amount"));
        let snapshot =
            Snapshot::new(&request.requested_by, fingerprint.clone(), needs_approval, request.key_retention);
        let audit = AuditEntry {
            at,
            tenant: tenant.to_string(),
            actor: actor.name.clone(),
            role: actor.role_label().to_owned(),
            action: "register".into(),
            op_id: Some(request.op_id.to_string()),
            from_state: None,
            to_state: Some(snapshot.state.as_str().to_owned()),
            reason: None,
            evidence: json!({
                "kind": request.kind,
                "subject": request.subject,
                "provider": request.provider,
                "fingerprint": fingerprint.as_str(),
                "requested_by": request.requested_by,
                "compensates": request.compensates,
            }),
        };
        let new = NewOperation {
            tenant: tenant.clone(),
            op_id: request.op_id.clone(),
            kind: request.kind,
            subject: request.subject,
            provider: request.provider,
            params: request.params.clone(),
            compensates: request.compensates,
            snapshot,
            at,
        };
        match self.store.register_operation(new, audit).await? {
            Registered::Created(operation) => Ok(Registration::Created(operation)),
            Registered::Existing(stored) if stored.snapshot.fingerprint == fingerprint => {
                Ok(Registration::Existing(stored))
            }
            Registered::Existing(stored) => {
                let diff = stored.params.diff(&request.params);
                let conflict = NewConflict {
                    tenant: tenant.clone(),
                    op_id: request.op_id.clone(),
                    requested: request.params,
                    stored_fingerprint: stored.snapshot.fingerprint.clone(),
                    diff: diff.clone(),
                    requested_by: request.requested_by,
                    at,
                };
                let audit = AuditEntry {
                    at,
                    tenant: tenant.to_string(),
                    actor: actor.name.clone(),
                    role: actor.role_label().to_owned(),
                    action: "refuse_conflict".into(),
                    op_id: Some(request.op_id.to_string()),
                    from_state: Some(stored.snapshot.state.as_str().to_owned()),
                    to_state: Some(stored.snapshot.state.as_str().to_owned()),
                    reason: Some("the same op id was requested with other parameters".into()),
                    evidence: json!({
                        "stored_fingerprint": stored.snapshot.fingerprint.as_str(),
                        "requested_fingerprint": fingerprint.as_str(),
                        "diff": diff,
                    }),
                };
                self.store.record_conflict(conflict, audit).await?;
                Ok(Registration::Conflict { stored, diff })
            }
        }
    }

    /// Decides `command` by `actor` on one operation and commits the result with its audit entry.
    #[tracing::instrument(skip_all, fields(tenant = %tenant, op_id = %op_id, command = command.kind().as_str()))]
    pub async fn execute(
        &self,
        tenant: &TenantId,
        op_id: &OpId,
        command: Command,
        actor: &Actor,
        report: AttemptReport,
    ) -> Result<OperationRecord, LedgerError> {
        for _ in 0..MAX_RACES {
            let operation = self.store.load_operation(tenant, op_id).await?.ok_or(LedgerError::NotFound)?;
            let at = now();
            let events =
                decide(&operation.snapshot, command.clone(), actor, at).map_err(LedgerError::Rejected)?;
            let after =
                events.iter().fold(operation.snapshot.clone(), |snapshot, event| snapshot.apply(event));
            let audit = AuditEntry {
                at,
                tenant: tenant.to_string(),
                actor: actor.name.clone(),
                role: actor.role_label().to_owned(),
                action: command.kind().as_str().to_owned(),
                op_id: Some(op_id.to_string()),
                from_state: Some(operation.snapshot.state.as_str().to_owned()),
                to_state: Some(after.state.as_str().to_owned()),
                reason: reason_of(&command),
                evidence: json!({
                    "events": events,
                    "http_status": report.http_status,
                    "latency_ms": report.latency_ms,
                    "external_id": report.external_id,
                    "error": report.error,
                    "budget": report.budget,
                }),
            };
            let change = OperationChange {
                tenant: tenant.clone(),
                op_id: op_id.clone(),
                expected_version: operation.version,
                events,
                after,
                actor: actor.clone(),
                report: report.clone(),
                audit: vec![audit],
                at,
            };
            match self.store.apply_change(change).await {
                Ok(updated) => return Ok(updated),
                Err(StoreError::Conflict(_)) => continue,
                Err(error) => return Err(error.into()),
            }
        }
        Err(LedgerError::Contended)
    }
}
