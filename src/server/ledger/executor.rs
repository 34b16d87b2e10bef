//! The executor: performs an operation by the protocol. Begin an attempt (the operation is durably
//! `submitted` before anything leaves), send it through the provider's connector with the op id as
//! the idempotency key and the stored parameters, record the classified outcome. This is the one
//! layer that retries: a bounded number of sends with exponential backoff and jitter, only after
//! failures that prove nothing happened, honouring Retry-After, always with the same key, within a
//! deadline.

use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::{Duration, Instant};

use super::{Ledger, LedgerError};
use crate::domain::{
    failure::FailureClass,
    ids::{Actor, OpId, TenantId},
    machine::{AttemptOutcome, Command, State},
    operation::{AttemptReport, OperationHistory, OperationRecord, RetryBudget},
};
use crate::server::clock::now;
use crate::server::providers::catalogue::{DemoCatalogue, OrderCatalogue};
use crate::server::providers::{Connector, Sent};

/// How many sends one run may make and how long it may take.
#[derive(Debug, Clone)]
pub struct RetryPolicy {
    pub max_sends: u32,
    pub base_delay: Duration,
    pub max_delay: Duration,
    pub deadline: Duration,
}

impl Default for RetryPolicy {
    fn default() -> Self {
        Self {
            max_sends: 3,
            base_delay: Duration::from_millis(200),
            max_delay: Duration::from_secs(5),
            deadline: Duration::from_secs(30),
        }
    }
}

impl RetryPolicy {
    /// The wait before send `sends + 1`: exponential with full jitter, at least the provider's
    /// Retry-After.
    fn delay(&self, sends: u32, retry_after_s: Option<u32>) -> Duration {
        let exponential =
            self.base_delay.saturating_mul(2u32.saturating_pow(sends.saturating_sub(1))).min(self.max_delay);
        let jittered = exponential.mul_f64(0.5 + fastrand::f64() / 2.0);
        jittered.max(Duration::from_secs(u64::from(retry_after_s.unwrap_or(0))))
    }
}

#[derive(Clone)]
pub struct Executor {
    ledger: Ledger,
    connectors: Arc<BTreeMap<String, Arc<dyn Connector>>>,
    orders: Arc<dyn OrderCatalogue>,
    retry: RetryPolicy,
    actor: Actor,
}

impl Executor {
    pub fn new(ledger: Ledger, retry: RetryPolicy) -> Self {
        Self {
            ledger,
            connectors: Arc::new(BTreeMap::new()),
            orders: Arc::new(DemoCatalogue),
            retry,
            actor: Actor::system("executor"),
        }
    }

    /// Sends operations of `provider` through `connector`.
    pub fn with_connector(mut self, provider: &str, connector: Arc<dyn Connector>) -> Self {
        Arc::make_mut(&mut self.connectors).insert(provider.to_owned(), connector);
        self
    }

    pub fn ledger(&self) -> &Ledger {
        &self.ledger
    }

    pub fn connector(&self, provider: &str) -> Option<Arc<dyn Connector>> {
        self.connectors.get(provider).cloned()
    }

    /// The orders that the tools and compensations refund (the demo's catalogue).
    pub fn orders(&self) -> &dyn OrderCatalogue {
        self.orders.as_ref()
    }

    /// Sends a planned or approved operation until it succeeds, fails for good, becomes unknown,
    /// or the retry budget or deadline runs out (then it stays ready for a later run).
    #[tracing::instrument(skip_all, fields(tenant = %tenant, op_id = %op_id))]
    pub async fn run(&self, tenant: &TenantId, op_id: &OpId) -> Result<OperationHistory, LedgerError> {
        let started = Instant::now();
        let deadline = chrono::Duration::from_std(self.retry.deadline).unwrap_or(chrono::Duration::MAX);
        let budget = RetryBudget { max_sends: self.retry.max_sends, deadline: now() + deadline };
        let mut sends = 0;
        loop {
            let report = AttemptReport { budget: Some(budget), ..AttemptReport::default() };
            let operation =
                self.ledger.execute(tenant, op_id, Command::BeginAttempt, &self.actor, report).await?;
            sends += 1;
            let after = self.send_open_attempt(tenant, &operation.operation).await?;
            if !matches!(after.operation.snapshot.state, State::Planned | State::Approved) {
                return Ok(after);
            }
            let retry_after = match after.operation.snapshot.last_failure {
                Some(FailureClass::TransientUnavailable { retry_after_s }) => retry_after_s,
                _ => None,
            };
            let delay = self.retry.delay(sends, retry_after);
            if sends >= self.retry.max_sends || started.elapsed() + delay > self.retry.deadline {
                tracing::warn!(sends, "retry budget spent; the operation stays ready to send");
                return Ok(after);
            }
            tokio::time::sleep(delay).await;
        }
    }

    /// Sends the operation's open attempt and records its outcome. Without a connector for its
    /// provider nothing is sent, and the attempt is recorded as not sent.
    pub async fn send_open_attempt(
        &self,
        tenant: &TenantId,
        operation: &OperationRecord,
    ) -> Result<OperationHistory, LedgerError> {
        let attempt = operation
            .snapshot
            .open_attempt
            .ok_or_else(|| LedgerError::Invalid(format!("{} has no open attempt", operation.op_id)))?;
        let sent = match self.connector(&operation.provider) {
            Some(connector) => connector.send(operation).await,
            None => Sent {
                outcome: AttemptOutcome::Failed { failure: FailureClass::NotSent },
                report: AttemptReport {
                    error: Some(format!("no connector is configured for provider {}", operation.provider)),
                    ..AttemptReport::default()
                },
            },
        };
        let command = Command::RecordOutcome { attempt, outcome: sent.outcome };
        self.ledger.execute(tenant, &operation.op_id, command, &self.actor, sent.report).await
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn delays_grow_with_jitter_and_honour_retry_after() {
        let policy = RetryPolicy::default();
        for sends in 1..6 {
            let delay = policy.delay(sends, None);
            let full = policy.base_delay.saturating_mul(2u32.pow(sends - 1)).min(policy.max_delay);
            assert!(
                delay >= full / 2 && delay <= full,
                "{sends}: {delay:?} outside [{:?}, {full:?}]",
                full / 2
            );
        }
        assert!(policy.delay(1, Some(3)) >= Duration::from_secs(3));
    }
}
