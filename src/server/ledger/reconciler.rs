//! The reconciler: settles operations whose result is unknown, and submitted operations whose
//! sender went silent (it may have crashed between `submitted` and the send). After a settle window
//! (an empty lookup right after a send proves nothing), it looks the operation up downstream by its
//! op id: found means succeeded; not found while the provider still remembers the key means a
//! re-send with the same key and the stored parameters, once they agree with the provider's facts
//! and the approval policy (otherwise a person reviews it); a key past its retention or a cached
//! 500 means a person must review it. A pass settles several operations at once, a bounded number
//! per tenant's provider account.
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

use super::executor::{Executor, SendCheck};
use super::workflows::run_bulk_query;
use super::LedgerError;
use crate::domain::{
    failure::FailureClass,
    ids::{Actor, OpId, TenantId},
    machine::{check, Command, CommandKind, State},
    operation::{AttemptReport, OperationRecord},
};
use crate::server::clock::now;
use crate::server::providers::Lookup;
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
        }
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
        if operation.snapshot.state != State::Unknown {
            return Ok(operation);
        }
        let slots = self.provider_slots(tenant, &operation.provider);
        let Ok(_slot) = slots.acquire().await else { return Ok(operation) };
        let connector = match self.executor.connector(tenant, &operation.provider).await? {
            Ok(connector) => connector,
            Err(missing) => {
                let reason = format!("{missing}, so it cannot be looked up");
                return self.execute(tenant, op_id, Command::Escalate { reason }).await;
            }
        };
        match connector.look_up(&operation).await {
            Lookup::Found { external_id, evidence } => {
                self.execute(tenant, op_id, Command::ConfirmFound { external_id, evidence }).await
            }
            Lookup::NotFound { evidence } => {
                if let Err(refusal) =
                    check(&operation.snapshot, CommandKind::ResendSameKey, &self.actor, now())
                {
                    let reason = format!("{evidence}. {}", refusal.message);
                    return self.execute(tenant, op_id, Command::Escalate { reason }).await;
                }
                match self.executor.may_send(tenant, &operation, connector.as_ref()).await? {
                    SendCheck::Allowed => {
                        let ledger = self.executor.ledger();
                        let report = self.executor.resend_report();
                        let resent = ledger
                            .execute(tenant, op_id, Command::ResendSameKey, &self.actor, report)
                            .await?;
                        let sent = self
                            .executor
                            .send_allowed_attempt(tenant, &resent.operation, connector.as_ref())
                            .await?;
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
            Lookup::Unavailable { reason } => {
                let hopeless = operation.snapshot.last_failure == Some(FailureClass::ServerError)
                    || !operation.snapshot.key_still_valid(now());
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
