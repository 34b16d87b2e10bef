//! The one service through which every audited change passes, and the only holder of the store's
//! writes: register an operation (or find it, or refuse a conflicting request), execute a command
//! on one (start from the record this process last committed of it, or load it; ask
//! `domain::machine::decide`; commit events, projection and audit in one transaction, retrying
//! the whole step from the store when a concurrent change won), and the changes that are
//! not about one operation (approval rules, users, tokens, bulk runs, console requests, exports'
//! audit events). It builds every audit entry. Everything else reads through [`Ledger::reads`].
//!
//! Beside the service: who holds which item of the support desk, the directory that says which connector serves a tenant at a provider, the
//! executor that sends operations, the reconciler that settles unknown results, the workflows
//! people start from the console, the tools agents call, and the webhook endpoints with the worker
//! that delivers their events. Every committed change is counted in the application's metrics.

pub mod accounts;
pub mod archived;
pub mod changes;
pub mod connections;
pub mod desk;
pub mod directory;
pub mod executor;
pub mod gateway_payments;
pub mod notifier;
pub mod notify;
pub mod people;
pub mod provider_events;
mod recent;
pub mod reconciler;
pub mod requests;
pub mod retention;
pub mod secrets;
pub mod sso;
pub mod templates;
pub mod tokens;
pub mod tools;
pub mod two_factor;
pub mod webhooks;
pub mod workflows;
mod written;

use chrono::Duration;
use serde_json::{json, Value};
use std::sync::Arc;

use super::archive::checked::CheckedFiles;
use changes::ChangeFeed;
use super::clock::now;
use super::egress::EgressPolicy;
use super::metrics::Metrics;
use super::providers::built_in_api;
use super::store::records::{
    ApiTokenRecord, ApprovalRuleRecord, AttemptsAndRefs, NewBulkRun, NewConflict, NewOperation,
    OperationChange, Registered, RequestAnswer,
};
use super::store::{Reads, Store, StoreError};
use crate::domain::{
    audit::{AuditEntry, AuditRecord},
    connection::{
        check_claimed_key_retention, fitted_key, server_kind_of, After5xx, Capabilities, ProviderKind,
    },
    http_api::HttpApi,
    ids::{check_subject, Actor, OpId, TenantId},
    machine::{decide, Command, Rejection, Snapshot, State},
    operation::{AttemptReport, CommittedOperation, OperationHistory},
    params::{CanonicalParams, FieldDiff},
    policy::{requires_approval, ApprovalRule},
};
use recent::Recent;
use secrets::SecretBox;
use written::Written;

/// What an operation's provider is, as far as recording it needs: the action its connection
/// performs for the operation's kind (if any), what the downstream honours for it, and how long
/// it remembers keys where the operator said so.
struct Downstream {
    /// The kind of the provider's connection, where there is one.
    provider_kind: Option<ProviderKind>,
    action: Option<String>,
    capabilities: Option<Capabilities>,
    key_retention: Option<Duration>,
}

fn action_is_refund(downstream: &Downstream) -> bool {
    downstream.action.as_deref() == Some("refund")
}

/// Refuses, before anything is recorded, a refund that could never be sent or looked up as asked:
/// any refund without its amount as money (`{"minor": 38000, "currency": "TWD"}`, which approval
/// rules and the roll-up read); ECPay's without the payment's TradeNo and gwsr, above what was paid
/// or in part for an installment order; LINE Pay's without its transaction id as text or in
/// fractions of a dollar. The corrected request, under the same op id, is then recorded as if this
/// one never came.
fn check_refund(kind: Option<ProviderKind>, params: &CanonicalParams) -> Result<(), LedgerError> {
    if params.money("amount").is_none() {
        return Err(LedgerError::InvalidField {
            field: "params.amount",
            problem: "a refund names its amount as {\"minor\": whole minor units, \"currency\": \"TWD\"}"
                .into(),
        });
    }
    let params = params.as_value();
    let checked = match kind {
        Some(ProviderKind::Ecpay) => crate::domain::ecpay::refund_params(params).map(|_| ()),
        Some(ProviderKind::LinePay) => crate::domain::linepay::refund_params(params).map(|_| ()),
        _ => Ok(()),
    };
    checked.map_err(|(field, problem)| LedgerError::InvalidField { field: params_field(field), problem })
}

/// The name a refund parameter is reported under.
fn params_field(name: &str) -> &'static str {
    match name {
        "payment" => "params.payment",
        "trade_no" => "params.trade_no",
        "gwsr" => "params.gwsr",
        "amount" => "params.amount",
        "paid" => "params.paid",
        "transaction" => "params.transaction",
        _ => "params",
    }
}

/// What a refused conflicting request asked for.
struct Refused {
    op_id: OpId,
    params: CanonicalParams,
    requested_by: String,
}

/// How often a command is re-decided after losing a race before the caller is told to retry.
const MAX_RACES: usize = 16;

/// The longest an audit entry waits for its place in the chain while the server runs: the sealer
/// seals every entry committed since its last pass this often.
pub const SEALING_DELAY: std::time::Duration = std::time::Duration::from_secs(1);

/// A request to record an operation.
#[derive(Debug, Clone)]
pub struct RegisterRequest {
    pub op_id: OpId,
    pub kind: String,
    pub subject: String,
    pub provider: String,
    pub params: CanonicalParams,
    /// Who requests the operation: the signed-in person, or the API token's name for an agent
    /// (four-eyes compares it with the approver).
    pub requested_by: String,
    /// The person an agent says it acts for; recorded, never trusted.
    pub on_behalf_of: Option<String>,
    /// The server sends it (a tool call, a console action, a compensation), not the caller.
    pub server_sends: bool,
    pub compensates: Option<OpId>,
    /// How long the provider remembers the operation's key, when the caller knows better than
    /// the provider's published window (an agent that sends through an account of its own);
    /// `None` for the window of the provider the operation is recorded at.
    pub key_retention: Option<Duration>,
}

/// What registering did.
#[derive(Debug, Clone)]
/// Each carries the operation's history as the registering transaction saw it.
pub enum Registration {
    Created(OperationHistory),
    /// The same intent again: the stored operation, unchanged.
    Existing(OperationHistory),
    /// The same op id with other parameters: refused and kept for review; nothing changed.
    Conflict {
        stored: OperationHistory,
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
    /// Input refused for what one field holds.
    #[error("{field}: {problem}")]
    InvalidField { field: &'static str, problem: String },
    #[error("the operation is changing too often to decide; try again")]
    Contended,
    /// What the answer needs is in the archive, which cannot be read now; nothing changed.
    #[error("{0}")]
    Unavailable(String),
    /// What the answer needs is in the archive, and its file at `object` is not as it was signed:
    /// nothing of it is used; nothing changed.
    #[error("the archive file {object} is not as it was signed: {}", why.as_str())]
    Untrusted { why: crate::domain::archive::ArchiveDistrust, object: String },
    #[error(transparent)]
    Store(#[from] StoreError),
}

/// The ledger service.
#[derive(Clone)]
pub struct Ledger {
    store: Arc<dyn Store>,
    /// Seals and opens provider and webhook secrets; `None` when the server has no
    /// `OPLEDGER_SECRET_KEY`.
    secrets: Option<SecretBox>,
    /// The application's metrics, which the executor, the reconciler and the HTTP layer record too.
    metrics: Metrics,
    /// Which addresses the URLs tenants set may reach: checked when one is saved, and by every
    /// client built for one.
    egress: EgressPolicy,
    /// Tokens, approval rules and connections as read within the last second.
    recent: RecentReads,
    /// The operations this process wrote last, as committed: where the next change of one starts.
    written: Written,
    /// The archive files read back and found as they were signed.
    checked: CheckedFiles,
    /// Which tenants' operations changed, for the pages and reads that follow them.
    changes: ChangeFeed,
}

/// What every call reads and almost nothing changes, kept for at most [`recent::FRESH_FOR`].
#[derive(Clone, Default)]
struct RecentReads {
    /// Tokens by their hash (`None`: no such token, or revoked).
    tokens: Recent<String, Option<ApiTokenRecord>>,
    /// When this instance last wrote each token's last use.
    token_uses: tokens::TokenUses,
    /// Each tenant's approval rules.
    approval_rules: Recent<TenantId, Arc<Vec<ApprovalRule>>>,
    /// What each tenant's provider name stands for.
    connections: Recent<(TenantId, String), Arc<ConnectionShape>>,
}

/// What an operation is recorded against at one provider name of a tenant: the kind of its
/// connection, the API it speaks (a described HTTP API parsed once), and the key retention its
/// operator set.
struct ConnectionShape {
    provider_kind: Option<ProviderKind>,
    api: Option<HttpApi>,
    key_retention: Option<Duration>,
}

/// One step in an operation's audit trail: what was done, when, from which state to which, and why.
struct OperationStep {
    at: chrono::DateTime<chrono::Utc>,
    action: &'static str,
    from: Option<State>,
    to: State,
    reason: Option<String>,
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
        Self {
            store,
            secrets: None,
            metrics: Metrics::new(),
            egress: EgressPolicy::default(),
            recent: RecentReads::default(),
            written: Written::default(),
            checked: CheckedFiles::default(),
            changes: ChangeFeed::default(),
        }
    }

    /// The ledger, letting tenants' URLs reach what `egress` allows.
    pub fn with_egress(self, egress: EgressPolicy) -> Self {
        Self { egress, ..self }
    }

    /// Which addresses the URLs tenants set may reach.
    pub fn egress(&self) -> &EgressPolicy {
        &self.egress
    }

    /// The application's metrics.
    pub fn metrics(&self) -> &Metrics {
        &self.metrics
    }

    /// The ledger, sealing and opening provider secrets with `secrets`.
    pub fn with_secrets(self, secrets: SecretBox) -> Self {
        Self { secrets: Some(secrets), ..self }
    }

    /// The read handle: everything the store answers, and nothing that changes it.
    pub fn reads(&self) -> Arc<dyn Reads> {
        self.store.clone()
    }

    /// An audit entry for an action of `actor` that changes no operation.
    fn action_entry(tenant: &TenantId, actor: &Actor, action: &str, evidence: Value) -> AuditEntry {
        AuditEntry::action(now(), tenant.as_str(), &actor.name, actor.role_label(), action, evidence)
    }

    /// The audit entry of `step`, taken by `actor` on `op_id`.
    fn operation_entry(
        tenant: &TenantId,
        actor: &Actor,
        op_id: &OpId,
        step: OperationStep,
        evidence: Value,
    ) -> AuditEntry {
        AuditEntry {
            at: step.at,
            tenant: tenant.to_string(),
            actor: actor.name.clone(),
            role: actor.role_label().to_owned(),
            action: step.action.to_owned(),
            op_id: Some(op_id.to_string()),
            from_state: step.from.map(|state| state.as_str().to_owned()),
            to_state: Some(step.to.as_str().to_owned()),
            reason: step.reason,
            evidence,
        }
    }

    /// Seals the audit entries waiting for their place in the chain, of `tenant` or of every
    /// tenant; answers how many. The sealer calls it every [`SEALING_DELAY`], and readers that
    /// must see every committed entry in the chain (the audit page) call it first.
    pub async fn seal_audit(&self, tenant: Option<&TenantId>) -> Result<u64, StoreError> {
        self.store.seal_audit(tenant).await
    }

    /// Seals every [`SEALING_DELAY`] until `stop`, then once more, so that a server stopped
    /// gracefully leaves no entry waiting.
    pub async fn seal_until(self, stop: tokio_util::sync::CancellationToken) {
        loop {
            let stopping = tokio::select! {
                () = stop.cancelled() => true,
                () = tokio::time::sleep(SEALING_DELAY) => false,
            };
            if let Err(error) = self.seal_audit(None).await {
                tracing::warn!(%error, "could not seal the audit entries; they wait for the next pass");
            }
            if stopping {
                return;
            }
        }
    }

    /// The tenant's whole audit chain in order, with every entry committed before the call sealed
    /// into it.
    pub async fn audit_chain(&self, tenant: &TenantId) -> Result<Vec<AuditRecord>, StoreError> {
        self.store.seal_audit(Some(tenant)).await?;
        self.store.audit_chain(tenant).await
    }

    /// Records an action that changes nothing else (an export) in the tenant's audit chain, after
    /// every entry committed before it, and returns it in its place.
    pub async fn record_action(
        &self,
        tenant: &TenantId,
        actor: &Actor,
        action: &str,
        evidence: Value,
    ) -> Result<AuditRecord, StoreError> {
        self.store.record_audit(tenant, Self::action_entry(tenant, actor, action, evidence)).await
    }

    /// Adds a rule to the tenant's approval policy, with its audit event (the rule's id and the
    /// rule in words).
    pub async fn add_approval_rule(
        &self,
        tenant: &TenantId,
        actor: &Actor,
        record: ApprovalRuleRecord,
    ) -> Result<(), StoreError> {
        let evidence = json!({"id": record.id, "rule": record.rule.sentence()});
        let audit = Self::action_entry(tenant, actor, "add_approval_rule", evidence);
        self.store.add_approval_rule(tenant, record, audit).await?;
        self.recent.approval_rules.forget_where(|kept, _| kept == tenant);
        Ok(())
    }

    /// Removes a rule from the tenant's approval policy; `NotFound` when there is none with `id`.
    pub async fn remove_approval_rule(
        &self,
        tenant: &TenantId,
        actor: &Actor,
        id: &str,
    ) -> Result<(), StoreError> {
        let audit = Self::action_entry(tenant, actor, "remove_approval_rule", json!({"id": id}));
        let removed = self.store.remove_approval_rule(tenant, id, audit).await;
        self.recent.approval_rules.forget_where(|kept, _| kept == tenant);
        removed
    }

    /// The tenant's approval rules, as read within the last [`recent::FRESH_FOR`] at most.
    pub(crate) async fn approval_rules(
        &self,
        tenant: &TenantId,
    ) -> Result<Arc<Vec<ApprovalRule>>, StoreError> {
        let read = async {
            let records = self.store.approval_rules(tenant).await?;
            Ok(Arc::new(records.into_iter().map(|record| record.rule).collect()))
        };
        self.recent.approval_rules.get_or_read(tenant.clone(), read).await
    }

    /// Records a bulk query and its items, with its audit event; `false` (nothing changed) when a
    /// run with this id exists already.
    pub async fn start_bulk_run(&self, run: NewBulkRun, actor: &Actor) -> Result<bool, StoreError> {
        let evidence = json!({"run": run.id, "filter": run.filter, "operations": run.op_ids.len()});
        let audit = Self::action_entry(&run.tenant, actor, "start_bulk_query", evidence);
        self.store.create_bulk_run(run, audit).await
    }

    /// Records an operation before anything is sent, or answers with the one already recorded
    /// under its op id, or refuses a request that reuses the op id with other parameters.
    pub async fn register(
        &self,
        tenant: &TenantId,
        actor: &Actor,
        request: RegisterRequest,
    ) -> Result<Registration, LedgerError> {
        self.register_answering(tenant, actor, request, None).await
    }

    /// [`Ledger::register`] for a console request: a new operation's transaction also records
    /// `answer` to the request, so a resend after a crash gets it back.
    pub async fn register_answering(
        &self,
        tenant: &TenantId,
        actor: &Actor,
        request: RegisterRequest,
        answer: Option<RequestAnswer>,
    ) -> Result<Registration, LedgerError> {
        self.record(tenant, actor, request, None, answer).await
    }

    /// Why an operation's registration is recorded, as its audit entry says: the reason of a retry.
    fn registration_reason(retry: &Option<(OpId, Option<String>)>) -> Option<String> {
        retry
            .as_ref()
            .and_then(|(_, reason)| reason.as_deref())
            .map(str::trim)
            .filter(|r| !r.is_empty())
            .map(str::to_owned)
    }

    /// Records a new operation that makes `failed` again on purpose, after it failed at the
    /// provider or was refused there: the same kind, order, provider and parameters, under the op
    /// id [`OpId::retry`] derives from the failed one (and so a downstream key of its own), linked
    /// to it, sent by the server, and checked against the approval policy like any other. Refused,
    /// changing nothing, where [`make_again_refusal`](crate::domain::operation::OperationRecord::make_again_refusal) says why: unless `failed` is
    /// rejected (while it is accepted or unknown, its money may still move) and sent by the server
    /// (an agent's own operation is its own to make again). Asking twice answers with the retry
    /// already recorded. `reason`, when given, is
    /// the retry's reason in the audit trail.
    #[tracing::instrument(name = "register_retry", skip_all, fields(tenant = %tenant, failed = %failed))]
    pub async fn register_retry(
        &self,
        tenant: &TenantId,
        actor: &Actor,
        failed: &OpId,
        reason: Option<String>,
        answer: Option<RequestAnswer>,
    ) -> Result<Registration, LedgerError> {
        let original = self.store.load_operation(tenant, failed).await?.ok_or(LedgerError::NotFound)?;
        if let Some(refusal) = original.make_again_refusal() {
            return Err(LedgerError::Invalid(refusal));
        }
        let op_id = original.op_id.retry().map_err(|e| LedgerError::Invalid(e.to_string()))?;
        let request = RegisterRequest {
            op_id,
            kind: original.kind,
            subject: original.subject,
            provider: original.provider,
            params: original.params,
            requested_by: actor.name.clone(),
            on_behalf_of: None,
            server_sends: true,
            compensates: original.compensates,
            key_retention: None,
        };
        self.record(tenant, actor, request, Some((failed.clone(), reason)), answer).await
    }

    #[tracing::instrument(name = "register", skip_all, fields(tenant = %tenant, op_id = %request.op_id))]
    async fn record(
        &self,
        tenant: &TenantId,
        actor: &Actor,
        request: RegisterRequest,
        retry: Option<(OpId, Option<String>)>,
        answer: Option<RequestAnswer>,
    ) -> Result<Registration, LedgerError> {
        let at = now();
        let reason = Self::registration_reason(&retry);
        let retry_of = retry.map(|(failed, _)| failed);
        let subject = check_subject(&request.subject)
            .map_err(|e| LedgerError::InvalidField { field: e.field, problem: e.problem })?;
        if let Some(parent) = &request.compensates {
            if self.store.load_operation(tenant, parent).await?.is_none() {
                return Err(LedgerError::Invalid(format!("compensates: there is no operation {parent}")));
            }
        }
        let fingerprint = request.params.fingerprint();
        let downstream = self.downstream(tenant, &request.provider, &request.kind).await?;
        if action_is_refund(&downstream) {
            check_refund(downstream.provider_kind, &request.params)?;
        }
        let action = downstream.action;
        let capabilities = downstream.capabilities;
        let honours_keys = capabilities.is_none_or(|capabilities| capabilities.honours_keys());
        let key_retention = request
            .key_retention
            .or(downstream.key_retention)
            .filter(|_| honours_keys)
            .or(capabilities.map(|capabilities| capabilities.key_retention))
            .unwrap_or(ProviderKind::Stripe.capabilities().key_retention);
        if let Some(claimed) = request.key_retention {
            let declared = capabilities.map(|capabilities| match capabilities.honours_keys() {
                true => downstream.key_retention.unwrap_or(capabilities.key_retention),
                false => Duration::zero(),
            });
            check_claimed_key_retention(claimed, declared)
                .map_err(|problem| LedgerError::InvalidField { field: "key_retention_s", problem })?;
        }
        let key_max_len = capabilities.map_or(usize::MAX, |capabilities| capabilities.key_max_len);
        let rules = self.approval_rules(tenant).await?;
        let needs_approval = requires_approval(
            &rules,
            action.as_deref().unwrap_or(&request.kind),
            &request.provider,
            request.params.money("amount"),
        );
        let snapshot = Snapshot {
            after_5xx: capabilities.map_or(After5xx::Unknown, |capabilities| capabilities.after_5xx),
            ..Snapshot::new(&request.requested_by, fingerprint.clone(), needs_approval, key_retention)
        };
        let registered = OperationStep { at, action: "register", from: None, to: snapshot.state, reason };
        let audit = Self::operation_entry(
            tenant,
            actor,
            &request.op_id,
            registered,
            json!({
                    "kind": request.kind,
                    "subject": subject,
                    "provider": request.provider,
                    "fingerprint": fingerprint.as_str(),
                    "requested_by": request.requested_by,
                    "on_behalf_of": request.on_behalf_of,
                    "compensates": request.compensates,
                    "retry_of": retry_of,
                    "action": action,
            }),
        );
        let new = NewOperation {
            tenant: tenant.clone(),
            op_id: request.op_id.clone(),
            idempotency_key: fitted_key(&request.op_id.downstream_key(tenant), key_max_len),
            kind: request.kind,
            subject,
            provider: request.provider,
            params: request.params.clone(),
            compensates: request.compensates,
            retry_of,
            action,
            server_sends: request.server_sends,
            snapshot,
            at,
            answers: answer,
        };
        match self.store.register_operation(new, audit).await? {
            Registered::Created(created) => {
                self.changes.changed(tenant);
                self.written.keep(created.committed());
                Ok(Registration::Created(created))
            }
            Registered::Existing(stored) if stored.operation.snapshot.fingerprint == fingerprint => {
                self.written.keep(stored.committed());
                Ok(Registration::Existing(stored))
            }
            Registered::Existing(stored) => {
                let refused = Refused {
                    op_id: request.op_id,
                    params: request.params,
                    requested_by: request.requested_by,
                };
                self.refuse_conflict(tenant, actor, refused, stored, at).await
            }
            Registered::Archived(key) => {
                let archived = self.read_archived(key).await?;
                let stored = archived.operation.history().map_err(|e| StoreError::Corrupt(e.to_string()))?;
                if stored.operation.snapshot.fingerprint == fingerprint {
                    return Ok(Registration::Existing(stored));
                }
                let refused = Refused {
                    op_id: request.op_id,
                    params: request.params,
                    requested_by: request.requested_by,
                };
                self.refuse_conflict(tenant, actor, refused, stored, at).await
            }
        }
    }

    /// Refuses `request`, which reuses the op id of `stored` with other parameters: the refusal is
    /// kept for review with its audit entry, and nothing else changes.
    async fn refuse_conflict(
        &self,
        tenant: &TenantId,
        actor: &Actor,
        request: Refused,
        stored: OperationHistory,
        at: chrono::DateTime<chrono::Utc>,
    ) -> Result<Registration, LedgerError> {
        let fingerprint = request.params.fingerprint();
        let diff = stored.operation.params.diff(&request.params);
        let conflict = NewConflict {
            tenant: tenant.clone(),
            op_id: request.op_id.clone(),
            requested: request.params,
            stored_fingerprint: stored.operation.snapshot.fingerprint.clone(),
            diff: diff.clone(),
            requested_by: request.requested_by,
            at,
        };
        let state = stored.operation.snapshot.state;
        let reason = Some("the same op id was requested with other parameters".to_owned());
        let refused = OperationStep { at, action: "refuse_conflict", from: Some(state), to: state, reason };
        let audit = Self::operation_entry(
            tenant,
            actor,
            &request.op_id,
            refused,
            json!({
                "stored_fingerprint": stored.operation.snapshot.fingerprint.as_str(),
                "requested_fingerprint": fingerprint.as_str(),
                "diff": diff,
            }),
        );
        self.store.record_conflict(conflict, audit).await?;
        Ok(Registration::Conflict { stored, diff })
    }

    /// What an operation at `provider` of `tenant` is recorded against: the kind of the provider's
    /// connection (the tenant's own of that name, else the server's), from which it is bound to
    /// the action the connector performs for its kind (never to the kind's label: the approval
    /// policy is applied to that action), gets its key within the provider's length, and the time
    /// the provider remembers that key (the connection's own, where the operator set one; none at
    /// all for a downstream that honours no key, which is therefore never sent it twice) and what a
    /// re-send under it gets after a 5xx. A described HTTP API performs and honours what its
    /// description declares for the kind.
    async fn downstream(
        &self,
        tenant: &TenantId,
        provider: &str,
        kind: &str,
    ) -> Result<Downstream, LedgerError> {
        let read = async {
            let (provider_kind, description, key_retention) =
                match self.store.provider_connection(tenant, provider).await? {
                    Some(connection) => {
                        (Some(connection.kind), connection.description, connection.key_retention)
                    }
                    None => (server_kind_of(provider), None, None),
                };
            let api = match (provider_kind, description) {
                (Some(ProviderKind::Http), Some(text)) => HttpApi::parse(&text).ok(),
                (Some(kind), _) => built_in_api(kind).cloned(),
                _ => None,
            };
            Ok::<_, StoreError>(Arc::new(ConnectionShape { provider_kind, api, key_retention }))
        };
        let shape = self.recent.connections.get_or_read((tenant.clone(), provider.to_owned()), read).await?;
        let key_retention = shape.key_retention;
        Ok(match (shape.provider_kind, shape.api.as_ref()) {
            (_, Some(api)) => Downstream {
                provider_kind: shape.provider_kind,
                action: api.operation(kind).map(|_| kind.to_owned()),
                capabilities: Some(api.capabilities(kind)),
                key_retention,
            },
            (Some(provider_kind), None) => Downstream {
                provider_kind: Some(provider_kind),
                action: provider_kind.action_for(kind).map(str::to_owned),
                capabilities: Some(provider_kind.capabilities()),
                key_retention,
            },
            (None, None) => {
                Downstream { provider_kind: None, action: None, capabilities: None, key_retention: None }
            }
        })
    }

    /// Decides `command` by `actor` on one operation and commits the result with its audit entry;
    /// returns the operation with its attempts and external ids as committed.
    pub async fn execute(
        &self,
        tenant: &TenantId,
        op_id: &OpId,
        command: Command,
        actor: &Actor,
        report: AttemptReport,
    ) -> Result<CommittedOperation, LedgerError> {
        self.execute_answering(tenant, op_id, command, actor, report, None).await
    }

    /// [`Ledger::execute`] for a console request: the change's transaction also records `answer`
    /// to the request, so a resend after a crash gets it back.
    #[tracing::instrument(name = "execute", skip_all, fields(tenant = %tenant, op_id = %op_id, command = command.kind().as_str()))]
    pub async fn execute_answering(
        &self,
        tenant: &TenantId,
        op_id: &OpId,
        command: Command,
        actor: &Actor,
        report: AttemptReport,
        answer: Option<RequestAnswer>,
    ) -> Result<CommittedOperation, LedgerError> {
        let mut kept = self.written.take(tenant, op_id);
        let mut races = 0;
        while races < MAX_RACES {
            let from_kept = kept.is_some();
            let (operation, before_attempts_and_refs) = match kept.take() {
                Some(CommittedOperation { operation, attempts, external_refs }) => {
                    (operation, Some(AttemptsAndRefs { attempts, external_refs }))
                }
                None => (self.store.load_operation(tenant, op_id).await?.ok_or(LedgerError::NotFound)?, None),
            };
            let at = now();
            let events = match decide(&operation.snapshot, command.clone(), actor, at) {
                Ok(events) => events,
                // Refused on this process's copy: the stored operation decides.
                Err(_) if from_kept => continue,
                Err(rejection) => return Err(LedgerError::Rejected(rejection)),
            };
            let after =
                events.iter().fold(operation.snapshot.clone(), |snapshot, event| snapshot.apply(event));
            let step = OperationStep {
                at,
                action: command.kind().as_str(),
                from: Some(operation.snapshot.state),
                to: after.state,
                reason: reason_of(&command),
            };
            let audit = Self::operation_entry(
                tenant,
                actor,
                op_id,
                step,
                json!({
                    "events": events,
                    "http_status": report.http_status,
                    "latency_ms": report.latency_ms,
                    "external_id": report.external_id,
                    "error": report.error,
                    "budget": report.budget,
                }),
            );
            let from = operation.snapshot.state;
            let change = OperationChange {
                before: operation,
                events,
                after,
                actor: actor.clone(),
                report: report.clone(),
                audit: vec![audit],
                at,
                answers: answer.clone(),
                before_attempts_and_refs,
            };
            match self.store.apply_change(change).await {
                Ok(updated) => {
                    let to = updated.operation.snapshot.state;
                    self.metrics.transition(
                        tenant.as_str(),
                        command.kind().as_str(),
                        from.as_str(),
                        to.as_str(),
                    );
                    if let Command::RecordOutcome { outcome, .. } = &command {
                        let took = report.latency_ms.map(std::time::Duration::from_millis);
                        self.metrics.attempt(
                            tenant.as_str(),
                            &updated.operation.provider,
                            outcome.as_str(),
                            took,
                        );
                    }
                    self.changes.changed(tenant);
                    self.written.keep(updated.clone());
                    return Ok(updated);
                }
                Err(StoreError::Conflict(_)) => {
                    if !from_kept {
                        races += 1;
                    }
                }
                Err(error) => return Err(error.into()),
            }
        }
        Err(LedgerError::Contended)
    }
}
