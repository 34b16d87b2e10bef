//! The reconciler: settles operations whose result is unknown, submitted operations whose
//! sender went silent (it may have crashed between `submitted` and the send), and accepted ones
//! whose outcome the provider has not settled. After a settle window (an empty lookup right after
//! a send proves nothing), it looks an unknown operation up downstream by its op id: found is
//! recorded in the status the provider gives the object (succeeded, accepted, or failed there);
//! not found while the provider still remembers the key means a re-send with the same key and the
//! stored parameters, once they agree with the provider's facts and the approval policy (otherwise
//! a person reviews it); a key past its retention, or a 5xx from a downstream that replays it under
//! the same key (Stripe's cached 500) or is not known to run a re-send again, means a person must
//! review it, while a downstream known to run it again (`After5xx::Retry`) is re-sent.
//! What the downstream honours decides which of these it can do (`Settles`): one that cannot be
//! asked is re-sent with the same key within its window; one that takes no key is only looked up,
//! and an empty lookup goes to people; one that can do neither goes to people at once.
//! An accepted operation is read again by its id on a backoff (every half of its age, at least the
//! settle window, at most an hour) until the provider settles it; one still pending past its
//! provider's limit, or waiting for someone to act (Stripe's `requires_action`), goes to people
//! with the reason. A pass settles several operations at once, a bounded number per tenant's
//! provider account.
//!
//! Operations are leased, so several reconcilers never work on the same one at once; a holder
//! renews its leases while it works (its heartbeat), so the claims of a stopped one are taken over
//! once a short lease runs out. Each pass also sends approvals that expired before their operation
//! was sent back to the approval queue, dispatches what the server should have sent and has not
//! (approved operations, and planned ones it sends itself, left by a crash or a spent retry
//! budget), leased the same way, and finishes bulk runs whose instance stopped midway.

use chrono::Duration;
use futures::stream::{self, StreamExt};
use std::collections::HashMap;
use std::sync::Arc;
use std::time::Duration as StdDuration;
use tokio::sync::Semaphore;
use tokio_util::sync::CancellationToken;

use super::executor::{ask_provider, at_most_once_words, Executor, SendCheck};
use super::workflows::run_bulk_query;
use super::LedgerError;
use crate::domain::{
    connection::{ProviderKind, Settles},
    failure::FailureClass,
    ids::{Actor, OpId, TenantId},
    machine::{check, Command, CommandKind, ProviderStatus, State},
    operation::{AttemptReport, OperationRecord},
};
use crate::server::clock::now;
use crate::server::providers::{Connector, Lookup};
use crate::server::store::records::LeasedRows;

/// How many operations of a pass are settled at once in all.
const SETTLES_AT_ONCE: usize = 32;

/// How many of them wait on one tenant's account at one provider at once (lookups and re-sends),
/// so that a slow provider neither is flooded nor holds up the others.
const SETTLES_AT_ONCE_PER_PROVIDER: usize = 8;

/// Each tenant's provider account's settling slots, shared by the passes of one reconciler.
type ProviderSlots = Arc<std::sync::Mutex<HashMap<(TenantId, String), Arc<Semaphore>>>>;

/// How long a claim stays out of other reconcilers' reach unless its holder renews it.
const LEASE: Duration = Duration::seconds(15);

/// The longest wait between two checks of an accepted operation.
const LONGEST_CHECK_INTERVAL: Duration = Duration::hours(1);

/// What a pass holds: the rows it leased, which its heartbeat renews.
type Held = std::sync::Mutex<Vec<(LeasedRows, TenantId, String)>>;

/// What one pass did to each operation it took.
#[derive(Debug, Clone, Default)]
pub struct PassReport {
    pub settled: Vec<(OpId, State)>,
    /// Approved operations whose approval expired unsent: back to `pending_approval`.
    pub approvals_expired: Vec<OpId>,
    /// Operations the server should have sent and had not (approved ones, and planned ones it
    /// sends itself, left by a crash or a spent retry budget), sent now, with where they ended.
    pub dispatched: Vec<(OpId, State)>,
    /// Bulk runs whose instance stopped midway, finished now.
    pub bulk_runs_resumed: Vec<String>,
}

#[derive(Clone)]
pub struct Reconciler {
    executor: Executor,
    settle_after: Duration,
    batch: u32,
    actor: Actor,
    lease: Duration,
    provider_slots: ProviderSlots,
    /// How long an accepted operation may stay pending, per kind of provider, where the
    /// operator set it; [`ProviderKind::pending_limit`] otherwise.
    pending_limits: Arc<HashMap<ProviderKind, Duration>>,
    /// How long an empty lookup at a gateway without a key is taken for its lag, per kind of
    /// provider, where the operator set it; the kind's `Capabilities::lookup_lag` otherwise.
    lookup_lags: Arc<HashMap<ProviderKind, Duration>>,
}

impl Reconciler {
    pub fn new(executor: Executor, settle_after: Duration) -> Self {
        Self {
            executor,
            settle_after,
            batch: 50,
            actor: Actor::system("reconciler"),
            lease: LEASE,
            provider_slots: ProviderSlots::default(),
            pending_limits: Arc::default(),
            lookup_lags: Arc::default(),
        }
    }

    /// The reconciler, handing accepted operations of a `kind` of provider to people once they
    /// have been pending for `limit`.
    pub fn with_pending_limit(mut self, kind: ProviderKind, limit: Duration) -> Self {
        Arc::make_mut(&mut self.pending_limits).insert(kind, limit);
        self
    }

    /// The reconciler, taking an empty lookup at a gateway of `kind` for its lag for `lag` after
    /// the send.
    pub fn with_lookup_lag(mut self, kind: ProviderKind, lag: Duration) -> Self {
        Arc::make_mut(&mut self.lookup_lags).insert(kind, lag);
        self
    }

    fn pending_limit(&self, kind: ProviderKind) -> Duration {
        self.pending_limits.get(&kind).copied().unwrap_or_else(|| kind.pending_limit())
    }

    /// The reconciler, leasing what it claims for `lease` at a time.
    pub fn with_lease(self, lease: Duration) -> Self {
        Self { lease, ..self }
    }

    /// One pass: claims the operations due and settles each as far as the provider allows,
    /// renewing its leases a few times per lease while it works.
    pub async fn reconcile_once(&self) -> Result<PassReport, LedgerError> {
        let held = Held::default();
        let pass = self.pass(&held);
        tokio::pin!(pass);
        let beat =
            (self.lease / 3).to_std().unwrap_or(StdDuration::from_secs(1)).max(StdDuration::from_millis(10));
        let mut heartbeat = tokio::time::interval_at(tokio::time::Instant::now() + beat, beat);
        loop {
            tokio::select! {
                report = &mut pass => return report,
                _ = heartbeat.tick() => self.renew(&held).await,
            }
        }
    }

    /// Extends the leases of everything `held`; a failure is logged, and the next beat tries again.
    async fn renew(&self, held: &Held) {
        let rows = held.lock().map(|held| held.clone()).unwrap_or_default();
        let at = now();
        for kind in [LeasedRows::Operations, LeasedRows::BulkRuns] {
            let keys: Vec<(TenantId, String)> = rows
                .iter()
                .filter(|(rows, ..)| *rows == kind)
                .map(|(_, t, k)| (t.clone(), k.clone()))
                .collect();
            if keys.is_empty() {
                continue;
            }
            if let Err(error) =
                self.executor.ledger().store.renew_leases(kind, &keys, at, at + self.lease).await
            {
                tracing::warn!(error = %error, "could not renew the reconciler's leases; next beat");
            }
        }
    }

    /// The settling slots of `tenant`'s account at `provider`.
    fn provider_slots(&self, tenant: &TenantId, provider: &str) -> Arc<Semaphore> {
        let mut slots = self.provider_slots.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        slots
            .entry((tenant.clone(), provider.to_owned()))
            .or_insert_with(|| Arc::new(Semaphore::new(SETTLES_AT_ONCE_PER_PROVIDER)))
            .clone()
    }

    /// Adds what was leased to what the pass holds.
    fn hold<K: ToString>(held: &Held, rows: LeasedRows, leased: &[(TenantId, K)]) {
        if let Ok(mut held) = held.lock() {
            held.extend(leased.iter().map(|(tenant, key)| (rows, tenant.clone(), key.to_string())));
        }
    }

    async fn pass(&self, held: &Held) -> Result<PassReport, LedgerError> {
        let at = now();
        let store = &self.executor.ledger().store;
        let mut report = PassReport::default();
        for (tenant, op_id) in store.approvals_expired(at, self.batch).await? {
            match self.execute(&tenant, &op_id, Command::ExpireApproval).await {
                Ok(_) => report.approvals_expired.push(op_id),
                Err(error) => {
                    tracing::info!(%op_id, error = %error, "the approval was used or changed first; next pass");
                }
            }
        }
        let due_for_dispatch =
            store.lease_due_for_dispatch(at - self.settle_after, at, at + self.lease, self.batch).await?;
        Self::hold(held, LeasedRows::Operations, &due_for_dispatch);
        for (tenant, op_id) in due_for_dispatch {
            match self.executor.run(&tenant, &op_id).await {
                Ok(sent) => report.dispatched.push((op_id, sent.operation.snapshot.state)),
                Err(LedgerError::Rejected(rejection)) => {
                    tracing::info!(%op_id, reason = %rejection, "a concurrent change sent or stopped it first");
                }
                Err(error) => return Err(error),
            }
        }
        // Each claim counts from when it is made: sending what was due may have taken a while.
        let leased_at = now();
        let stalled = store
            .lease_stalled_bulk_runs(
                leased_at - self.settle_after,
                leased_at,
                leased_at + self.lease,
                self.batch,
            )
            .await?;
        Self::hold(held, LeasedRows::BulkRuns, &stalled);
        for (tenant, run_id) in stalled {
            tracing::info!(%tenant, run = %run_id, "resuming a bulk run that stopped midway");
            run_bulk_query(self.executor.clone(), tenant, run_id.clone(), self.actor.clone()).await?;
            report.bulk_runs_resumed.push(run_id);
        }
        let leased_at = now();
        let due = store
            .lease_due_for_reconcile(
                leased_at - self.settle_after,
                leased_at,
                leased_at + self.lease,
                self.batch,
            )
            .await?;
        Self::hold(held, LeasedRows::Operations, &due);
        let settled: Vec<_> = stream::iter(due)
            .map(|(tenant, op_id)| async move {
                let settled = self.settle(&tenant, &op_id).await;
                (op_id, settled)
            })
            .buffer_unordered(SETTLES_AT_ONCE)
            .collect()
            .await;
        for (op_id, settled) in settled {
            match settled {
                Ok(operation) => report.settled.push((op_id, operation.snapshot.state)),
                Err(LedgerError::Rejected(rejection)) => {
                    tracing::info!(%op_id, reason = %rejection, "a concurrent change settled it first");
                }
                Err(error) => return Err(error),
            }
        }
        Ok(report)
    }

    async fn execute(
        &self,
        tenant: &TenantId,
        op_id: &OpId,
        command: Command,
    ) -> Result<OperationRecord, LedgerError> {
        let ledger = self.executor.ledger();
        let committed = ledger.execute(tenant, op_id, command, &self.actor, AttemptReport::default()).await?;
        Ok(committed.operation)
    }

    #[tracing::instrument(skip_all, fields(tenant = %tenant, op_id = %op_id))]
    async fn settle(&self, tenant: &TenantId, op_id: &OpId) -> Result<OperationRecord, LedgerError> {
        let store = self.executor.ledger().reads();
        let mut operation = store.load_operation(tenant, op_id).await?.ok_or(LedgerError::NotFound)?;
        if operation.snapshot.state == State::Submitted {
            let reason =
                "no outcome was reported within the settle window; the sender may have stopped mid-send"
                    .into();
            operation = self.execute(tenant, op_id, Command::MarkUnknown { reason }).await?;
        }
        if !matches!(operation.snapshot.state, State::Unknown | State::Accepted) {
            return Ok(operation);
        }
        if operation.action.is_none() {
            let reason = format!(
                "no connector performs \u{201c}{}\u{201d} at {}: opledger never sends it nor looks it up; a person decides what became of it",
                operation.kind, operation.provider
            );
            return self.execute(tenant, op_id, Command::Escalate { reason }).await;
        }
        let slots = self.provider_slots(tenant, &operation.provider);
        let Ok(_slot) = slots.acquire().await else { return Ok(operation) };
        let connector = match self.executor.directory().connector(tenant, &operation.provider).await? {
            Ok(connector) => connector,
            Err(missing) => {
                let reason = format!("{missing}, so it cannot be looked up");
                return self.execute(tenant, op_id, Command::Escalate { reason }).await;
            }
        };
        if operation.snapshot.state == State::Accepted {
            return self.follow_accepted(tenant, operation, connector.as_ref()).await;
        }
        let settled = self.settle_unknown(tenant, operation, connector.as_ref()).await?;
        if settled.snapshot.state == State::Accepted {
            return self.schedule_next_check(tenant, &settled, Duration::zero(), now()).await;
        }
        Ok(settled)
    }

    /// Settles an unknown operation by what its downstream honours: a lookup by its op id where
    /// it can be asked (found is recorded; not found means a re-send with the same key while the
    /// key is remembered, and people where it takes no key); a re-send with the same key within
    /// its window where it cannot be asked; and people at once where it can do neither.
    async fn settle_unknown(
        &self,
        tenant: &TenantId,
        operation: OperationRecord,
        connector: &dyn Connector,
    ) -> Result<OperationRecord, LedgerError> {
        let op_id = &operation.op_id.clone();
        let capabilities = connector.capabilities(&operation.kind);
        match capabilities.settles() {
            Settles::AtMostOnce => {
                let reason = at_most_once_words(&operation.provider);
                return self.execute(tenant, op_id, Command::Escalate { reason }).await;
            }
            Settles::KeyOnly => {
                let evidence = format!(
                    "{} cannot be asked about it; a re-send with the same key within its window is answered with the first result",
                    operation.provider
                );
                return self.resend_or_escalate(tenant, operation, connector, &evidence).await;
            }
            Settles::KeyAndLookup | Settles::LookupOnly => {}
        }
        match ask_provider(self.executor.ledger(), connector, &operation, None).await? {
            Lookup::Found { external_id, status, evidence } => {
                self.record_found(tenant, op_id, external_id, status, evidence).await
            }
            Lookup::NotFound { evidence } if self.lookup_may_lag(&operation, connector).await? => {
                tracing::info!(%evidence, "not listed yet, within the gateway's lookup lag; next pass");
                Ok(operation)
            }
            Lookup::NotFound { evidence } => {
                self.resend_or_escalate(tenant, operation, connector, &evidence).await
            }
            Lookup::Ambiguous { evidence } => {
                let reason = format!("{evidence}. Which of them is this operation's only a person can tell");
                self.execute(tenant, op_id, Command::Escalate { reason }).await
            }
            Lookup::Unavailable { reason } => {
                let snapshot = &operation.snapshot;
                let replayed_5xx =
                    snapshot.last_failure == Some(FailureClass::ServerError) && snapshot.after_5xx.replays();
                let hopeless =
                    replayed_5xx || (capabilities.honours_keys() && !snapshot.key_still_valid(now()));
                if hopeless {
                    let reason =
                        format!("the provider cannot say what happened ({reason}) and a re-send is not safe");
                    self.execute(tenant, op_id, Command::Escalate { reason }).await
                } else {
                    tracing::warn!(%reason, "lookup failed; trying again on the next pass");
                    Ok(operation)
                }
            }
        }
    }

    /// Whether an empty lookup of `operation` may still be the gateway's lag: a downstream without a
    /// key lists a refund some time after it was sent (`Capabilities::lookup_lag`, or the
    /// operator's), counted from the list kept before the send. Without a kept list nothing was
    /// sent, so there is no lag to wait for.
    async fn lookup_may_lag(
        &self,
        operation: &OperationRecord,
        connector: &dyn Connector,
    ) -> Result<bool, LedgerError> {
        let capabilities = connector.capabilities(&operation.kind);
        let lag = self.lookup_lags.get(&connector.kind()).copied().unwrap_or(capabilities.lookup_lag);
        if capabilities.honours_keys() || lag <= Duration::zero() {
            return Ok(false);
        }
        let store = &self.executor.ledger().store;
        let Some(baseline) = store.baseline(&operation.tenant, &operation.op_id).await? else {
            return Ok(false);
        };
        Ok(now() - baseline.taken_at < lag)
    }

    /// Re-sends an unknown operation with the same key and its stored parameters while the provider
    /// still remembers the key and they agree with the provider's facts and the approval policy;
    /// otherwise hands it to people with `evidence` and the reason.
    async fn resend_or_escalate(
        &self,
        tenant: &TenantId,
        operation: OperationRecord,
        connector: &dyn Connector,
        evidence: &str,
    ) -> Result<OperationRecord, LedgerError> {
        let op_id = &operation.op_id;
        if let Err(refusal) = check(&operation.snapshot, CommandKind::ResendSameKey, &self.actor, now()) {
            let reason = format!("{evidence}. {}", refusal.message);
            return self.execute(tenant, op_id, Command::Escalate { reason }).await;
        }
        match self.executor.may_send(tenant, &operation, connector).await? {
            SendCheck::Allowed => {
                let ledger = self.executor.ledger();
                let report = self.executor.resend_report();
                let resent =
                    ledger.execute(tenant, op_id, Command::ResendSameKey, &self.actor, report).await?;
                let sent = self.executor.send_allowed_attempt(tenant, &resent.operation, connector).await?;
                Ok(sent.operation)
            }
            SendCheck::Refused(refusal) => {
                let reason = format!("{evidence}. opledger will not send it again: {refusal}");
                self.execute(tenant, op_id, Command::Escalate { reason }).await
            }
            SendCheck::Unavailable(reason) => {
                tracing::warn!(%reason, "not re-sent before the provider's facts are read; next pass");
                Ok(operation)
            }
        }
    }

    /// Records what the provider holds for the operation, in the status it gives it; an object
    /// waiting for someone to act goes to people at once.
    async fn record_found(
        &self,
        tenant: &TenantId,
        op_id: &OpId,
        external_id: String,
        status: ProviderStatus,
        evidence: String,
    ) -> Result<OperationRecord, LedgerError> {
        let needs_action = matches!(status, ProviderStatus::Pending { needs_action: true });
        let pending = matches!(status, ProviderStatus::Pending { .. });
        let store = self.executor.ledger().reads();
        let current = store.load_operation(tenant, op_id).await?.ok_or(LedgerError::NotFound)?;
        let found = if pending && current.snapshot.state == State::Accepted {
            current
        } else {
            let command = Command::ConfirmFound { external_id: external_id.clone(), evidence, status };
            self.execute(tenant, op_id, command).await?
        };
        if !needs_action {
            return Ok(found);
        }
        let reason = format!(
            "the provider holds {external_id} and says it waits for someone to act (requires_action); it will not settle by itself"
        );
        self.execute(tenant, op_id, Command::Escalate { reason }).await
    }

    /// Reads an accepted operation's object again: records its result once the provider settled
    /// it, hands it to people when it needs action or has been pending past its provider's limit,
    /// and otherwise sets when it is asked about next.
    async fn follow_accepted(
        &self,
        tenant: &TenantId,
        operation: OperationRecord,
        connector: &dyn Connector,
    ) -> Result<OperationRecord, LedgerError> {
        let op_id = &operation.op_id;
        let history = self.executor.ledger().reads().operation_history(tenant, op_id).await?;
        let external_id = history.and_then(|h| h.external_refs.last().map(|r| r.external_id.clone()));
        let at = now();
        let accepted_at = operation.accepted_at.unwrap_or(operation.updated_at);
        let pending_for = at - accepted_at;
        let limit = self.pending_limit(connector.kind());
        if !connector.capabilities(&operation.kind).lookup {
            if pending_for < limit {
                return self.schedule_next_check(tenant, &operation, pending_for, at).await;
            }
            let reason = format!(
                "{} accepted it {} ago and cannot be asked about it; no outcome came by its webhook within the {} limit",
                connector.kind().as_str(),
                words_for(pending_for),
                words_for(limit)
            );
            return self.execute(tenant, op_id, Command::Escalate { reason }).await;
        }
        match ask_provider(self.executor.ledger(), connector, &operation, external_id.as_deref()).await? {
            Lookup::Found {
                external_id, status: ProviderStatus::Pending { needs_action: false }, ..
            } if pending_for >= limit => {
                let reason = format!(
                    "the provider accepted it as {external_id} {} ago and still has it pending, past the {} limit for {}",
                    words_for(pending_for),
                    words_for(limit),
                    connector.kind().as_str()
                );
                self.execute(tenant, op_id, Command::Escalate { reason }).await
            }
            Lookup::Found { status: ProviderStatus::Pending { needs_action: false }, .. } => {
                self.schedule_next_check(tenant, &operation, pending_for, at).await
            }
            Lookup::Found { external_id, status, evidence } => {
                self.record_found(tenant, op_id, external_id, status, evidence).await
            }
            Lookup::NotFound { evidence } | Lookup::Ambiguous { evidence } => {
                let reason = format!("the provider accepted it, and now has no such object: {evidence}");
                self.execute(tenant, op_id, Command::Escalate { reason }).await
            }
            Lookup::Unavailable { reason } => {
                tracing::warn!(%reason, "the provider could not be asked about an accepted operation; later");
                self.schedule_next_check(tenant, &operation, pending_for, at).await
            }
        }
    }

    /// Leaves an accepted operation for its next check: after half of how long it has been
    /// pending, at least the settle window, at most [`LONGEST_CHECK_INTERVAL`].
    async fn schedule_next_check(
        &self,
        tenant: &TenantId,
        operation: &OperationRecord,
        pending_for: Duration,
        at: chrono::DateTime<chrono::Utc>,
    ) -> Result<OperationRecord, LedgerError> {
        let wait = (pending_for / 2).max(self.settle_after).min(LONGEST_CHECK_INTERVAL);
        self.executor.ledger().store.schedule_check(tenant, &operation.op_id, at + wait).await?;
        Ok(operation.clone())
    }

    /// Runs passes every `interval` until `stop` is cancelled.
    pub async fn run_until(self, interval: StdDuration, stop: CancellationToken) {
        loop {
            let started = std::time::Instant::now();
            match self.reconcile_once().await {
                Ok(report) => {
                    let taken =
                        report.settled.len() + report.approvals_expired.len() + report.dispatched.len();
                    self.executor.ledger().metrics().reconciler_pass(started.elapsed(), taken);
                }
                Err(error) => tracing::error!(error = %error, "reconcile pass failed"),
            }
            tokio::select! {
                () = stop.cancelled() => return,
                () = tokio::time::sleep(interval) => {}
            }
        }
    }
}

/// A span of time as people say it: `45 s`, `12 min`, `5 h`, `3 d`.
fn words_for(span: Duration) -> String {
    let seconds = span.num_seconds().max(0);
    match seconds {
        0..=119 => format!("{seconds} s"),
        120..=7_199 => format!("{} min", seconds / 60),
        7_200..=172_799 => format!("{} h", seconds / 3_600),
        _ => format!("{} d", seconds / 86_400),
    }
}
