//! The executor: performs an operation by the protocol. Begin an attempt (the operation is durably
//! `submitted` before anything leaves), send it through the provider's connector with the op id as
//! the idempotency key and the stored parameters, record the classified outcome. This is the one
//! layer that retries: a bounded number of sends with exponential backoff and jitter, only after
//! failures that prove nothing happened, honouring Retry-After, always with the same key, within a
//! deadline. An unknown result at a downstream that takes no key and cannot be asked goes to people
//! at once: it is sent at most once.

use std::sync::Arc;
use std::time::{Duration, Instant};

use super::directory::{Directory, Reachable};
use super::{Ledger, LedgerError};
use crate::domain::{
    connection::{Capabilities, Settles},
    email::check_message,
    failure::FailureClass,
    gateway::Baseline,
    ids::{Actor, AttemptNumber, OpId, TenantId},
    machine::{AttemptOutcome, Command, State},
    money::Money,
    operation::{AttemptReport, CommittedOperation, OperationRecord, RetryBudget},
    policy::rule_requiring_approval,
};
use crate::server::clock::now;
use crate::server::providers::orders::OrderSource;
use crate::server::providers::{Checked, Connector, Sent};

/// How long the executor waits for a tenant's shop when it reads an order to check a refund.
const SHOP_WAIT: Duration = Duration::from_secs(5);

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
    /// Which connector sends each tenant's operations, and where its orders are read.
    directory: Directory,
    retry: RetryPolicy,
    actor: Actor,
}

impl Executor {
    pub fn new(ledger: Ledger, retry: RetryPolicy) -> Self {
        Self { directory: Directory::new(ledger.clone()), ledger, retry, actor: Actor::system("executor") }
    }

    /// Sends operations of `provider` through `connector`.
    pub fn with_connector(self, provider: &str, connector: Arc<dyn Connector>) -> Self {
        Self { directory: self.directory.with_connector(provider, connector), ..self }
    }

    /// Reads the orders of tenants without an order source of their own from `orders`.
    pub fn with_orders(self, orders: Arc<dyn OrderSource>) -> Self {
        Self { directory: self.directory.with_orders(orders), ..self }
    }

    /// Lets the server's own connections serve `tenants` (and no other tenant).
    pub fn serving(self, tenants: impl IntoIterator<Item = TenantId>) -> Self {
        Self { directory: self.directory.serving(tenants), ..self }
    }

    /// Waits `timeout` for providers reached through tenants' own connections.
    pub fn with_provider_timeout(self, timeout: Duration) -> Self {
        Self { directory: self.directory.with_provider_timeout(timeout), ..self }
    }

    pub fn ledger(&self) -> &Ledger {
        &self.ledger
    }

    /// Which connector sends each tenant's operations, and where its orders are read.
    pub fn directory(&self) -> &Directory {
        &self.directory
    }

    /// The report that starts a single re-send: in flight at most until the provider timeout.
    pub fn resend_report(&self) -> AttemptReport {
        let timeout =
            chrono::Duration::from_std(self.directory.provider_timeout()).unwrap_or(chrono::Duration::MAX);
        AttemptReport {
            budget: Some(RetryBudget { max_sends: 1, deadline: now() + timeout }),
            ..AttemptReport::default()
        }
    }

    /// Sends a planned or approved operation until it succeeds, fails for good, becomes unknown,
    /// or the retry budget or deadline runs out (then it stays ready for a later run). Its
    /// connector is resolved once, at the first send.
    pub async fn run(&self, tenant: &TenantId, op_id: &OpId) -> Result<CommittedOperation, LedgerError> {
        self.sends(tenant, op_id, None).await
    }

    /// [`Executor::run`] through `connector`, which the caller resolved for `provider` just before:
    /// used when the operation is recorded at `provider`, otherwise the directory is asked.
    pub async fn run_through(
        &self,
        tenant: &TenantId,
        op_id: &OpId,
        provider: &str,
        connector: Reachable,
    ) -> Result<CommittedOperation, LedgerError> {
        self.sends(tenant, op_id, Some((provider.to_owned(), connector))).await
    }

    #[tracing::instrument(name = "run", skip_all, fields(tenant = %tenant, op_id = %op_id))]
    async fn sends(
        &self,
        tenant: &TenantId,
        op_id: &OpId,
        mut resolved: Option<(String, Reachable)>,
    ) -> Result<CommittedOperation, LedgerError> {
        let started = Instant::now();
        let deadline = chrono::Duration::from_std(self.retry.deadline).unwrap_or(chrono::Duration::MAX);
        let budget = RetryBudget { max_sends: self.retry.max_sends, deadline: now() + deadline };
        let mut sends = 0;
        loop {
            let report = AttemptReport { budget: Some(budget), ..AttemptReport::default() };
            let operation =
                self.ledger.execute(tenant, op_id, Command::BeginAttempt, &self.actor, report).await?;
            let operation = &operation.operation;
            sends += 1;
            let connector = match resolved.take() {
                Some((provider, connector)) if provider == operation.provider => connector,
                _ => self.directory.connector(tenant, &operation.provider).await?,
            };
            let after = self.send_through(tenant, operation, &connector).await?;
            resolved = Some((operation.provider.clone(), connector));
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

    /// Whether the server may send `operation` through `connector` now: it was bound, when it was
    /// recorded, to an action this connector performs (an operation whose kind no connector
    /// performs is never sent by the server, whatever it is called); a message is one that can be
    /// sent (one recipient, no line break in a header: `check_message`); its parameters agree with the
    /// provider's facts (read through the tenant's own connection); and the tenant's approval
    /// policy, applied to that action and to the amount as the provider holds it, asks for no
    /// approval it lacks.
    #[tracing::instrument(skip_all, fields(tenant = %tenant, op_id = %operation.op_id))]
    pub async fn may_send(
        &self,
        tenant: &TenantId,
        operation: &OperationRecord,
        connector: &dyn Connector,
    ) -> Result<SendCheck, LedgerError> {
        let performs = connector.action_for(&operation.kind);
        let action = match (operation.action.as_deref(), performs.as_deref()) {
            (Some(bound), Some(performed)) if bound == performed => bound,
            (None, _) => {
                return Ok(SendCheck::Refused(format!(
                    "opledger never sends a \u{201c}{}\u{201d} operation itself: no connector performs it, so a person decides what became of it",
                    operation.kind
                )))
            }
            (Some(bound), _) => {
                return Ok(SendCheck::Refused(format!(
                    "it was recorded as a {bound}, and the {} connection performs {}",
                    operation.provider,
                    connector.performs().join(", ")
                )))
            }
        };
        if action == "send_email" {
            if let Err(problem) = check_message(operation.params.as_value()) {
                return Ok(SendCheck::Refused(format!("the message cannot be sent as recorded: {problem}")));
            }
        }
        let amount = match connector.check(operation).await {
            Checked::Valid { amount } => amount,
            Checked::Invalid { reason } => return Ok(SendCheck::Refused(reason)),
            Checked::Unavailable { reason } => {
                return Ok(SendCheck::Unavailable(format!(
                    "the provider cannot be asked now: {reason}"
                )))
            }
        };
        if let (Some(amount), false) = (amount, connector.capabilities(&operation.kind).payment_read) {
            if let Some(refusal) = self.left_by_the_ledger(tenant, operation, amount).await? {
                return Ok(refusal);
            }
        }
        let rules: Vec<_> =
            self.ledger.store.approval_rules(tenant).await?.into_iter().map(|record| record.rule).collect();
        let unapproved = operation.snapshot.approval.is_none();
        match rule_requiring_approval(&rules, action, &operation.provider, amount) {
            Some(rule) if unapproved => Ok(SendCheck::Refused(format!(
                "the approval policy asks a manager to approve it ({}), and it has no approval",
                rule.sentence()
            ))),
            _ => Ok(SendCheck::Allowed),
        }
    }

    /// For a provider whose payment cannot be read (Adyen): whether `amount` is at most what is
    /// left of the payment as the shop's order and this ledger know it: what the order was paid,
    /// less every refund of it this ledger holds that moved or may have moved money (succeeded,
    /// accepted, in flight or unknown). `None` when it is; a refusal or why it could not be told
    /// otherwise.
    async fn left_by_the_ledger(
        &self,
        tenant: &TenantId,
        operation: &OperationRecord,
        amount: Money,
    ) -> Result<Option<SendCheck>, LedgerError> {
        let order = match self.directory.order_of_subject(tenant, &operation.subject, SHOP_WAIT).await {
            Ok(order) => order,
            Err(reason) => {
                return Ok(Some(SendCheck::Unavailable(format!(
                    "the shop's order could not be read: {reason}"
                ))))
            }
        };
        let payment = operation.params.as_value().get("payment").and_then(serde_json::Value::as_str);
        if payment != Some(order.payment_intent.as_str()) || order.currency != amount.currency.as_str() {
            return Ok(Some(SendCheck::Refused(format!(
                "the refund names another payment or currency than order {} was paid with ({} in {})",
                order.id, order.payment_intent, order.currency
            ))));
        }
        let subject = std::slice::from_ref(&operation.subject);
        let others = self.ledger.reads().subjects_operations(tenant, subject).await?;
        let refunded: i64 = others
            .iter()
            .filter(|other| other.op_id != operation.op_id && other.provider == operation.provider)
            .filter(|other| {
                other.kind == "refund" && (other.state == State::Succeeded || other.state.is_uncertain())
            })
            .filter_map(|other| other.amount.filter(|money| money.currency == amount.currency))
            .map(|money| money.minor)
            .sum();
        let left = order.paid_minor() - refunded;
        if amount.minor > left {
            return Ok(Some(SendCheck::Refused(format!(
                "the refund of {amount} is more than the {} left of order {}, as the shop's order and this ledger's refunds of it say ({} cannot be asked)",
                Money::new(left.max(0), amount.currency),
                order.id,
                operation.provider
            ))));
        }
        Ok(None)
    }

    /// Sends the operation's open attempt and records its outcome. Nothing is sent without a
    /// connector for its provider, while the provider's facts cannot be read (both recorded as
    /// not sent, so the attempt may be made again), or when [`Executor::may_send`] refuses it
    /// (recorded as invalid: it is rejected, and nothing left).
    pub async fn send_open_attempt(
        &self,
        tenant: &TenantId,
        operation: &OperationRecord,
    ) -> Result<CommittedOperation, LedgerError> {
        let connector = self.directory.connector(tenant, &operation.provider).await?;
        self.send_through(tenant, operation, &connector).await
    }

    /// [`Executor::send_open_attempt`] through `connector`, resolved for the operation's provider.
    #[tracing::instrument(name = "send_open_attempt", skip_all, fields(tenant = %tenant, op_id = %operation.op_id))]
    async fn send_through(
        &self,
        tenant: &TenantId,
        operation: &OperationRecord,
        connector: &Reachable,
    ) -> Result<CommittedOperation, LedgerError> {
        let attempt = open_attempt(operation)?;
        let not_sent = |failure, reason: String| Sent {
            outcome: AttemptOutcome::Failed { failure },
            report: AttemptReport { error: Some(format!("not sent: {reason}")), ..AttemptReport::default() },
        };
        let sent = match connector {
            Ok(connector) => match self.may_send(tenant, operation, connector.as_ref()).await? {
                SendCheck::Allowed => self.send_once(tenant, operation, attempt, connector.as_ref()).await?,
                SendCheck::Unavailable(reason) => not_sent(FailureClass::NotSent, reason),
                SendCheck::Refused(reason) => not_sent(FailureClass::InvalidParams, reason),
            },
            Err(reason) => not_sent(FailureClass::NotSent, reason.clone()),
        };
        let capabilities =
            connector.as_ref().map_or(Capabilities::NOTHING, |c| c.capabilities(&operation.kind));
        self.record_outcome(tenant, operation, attempt, sent, capabilities).await
    }

    /// Sends the operation's open attempt through `connector`, which [`Executor::may_send`]
    /// allowed just before the attempt opened (a re-send is checked before it is recorded, so
    /// that a refusal changes nothing), and records its outcome.
    #[tracing::instrument(skip_all, fields(tenant = %tenant, op_id = %operation.op_id))]
    pub async fn send_allowed_attempt(
        &self,
        tenant: &TenantId,
        operation: &OperationRecord,
        connector: &dyn Connector,
    ) -> Result<CommittedOperation, LedgerError> {
        let attempt = open_attempt(operation)?;
        let sent = self.send_once(tenant, operation, attempt, connector).await?;
        let capabilities = connector.capabilities(&operation.kind);
        self.record_outcome(tenant, operation, attempt, sent, capabilities).await
    }

    /// Sends the open `attempt` through `connector`. A gateway without a key whose lookup is a list
    /// of the payment's refunds has that list read first and kept before anything leaves
    /// ([`Baseline`]): a lookup after a lost answer then tells this refund from an older one of
    /// the same amount. A list that cannot be read or kept means nothing is sent.
    async fn send_once(
        &self,
        tenant: &TenantId,
        operation: &OperationRecord,
        attempt: AttemptNumber,
        connector: &dyn Connector,
    ) -> Result<Sent, LedgerError> {
        match connector.before_send(operation).await {
            Ok(None) => Ok(connector.send(operation).await),
            Ok(Some(refunds)) => {
                let baseline = Baseline { attempt, taken_at: now(), refunds };
                self.ledger.store.keep_baseline(tenant, &operation.op_id, &baseline).await?;
                Ok(connector.send(operation).await)
            }
            Err(reason) => Ok(Sent {
                outcome: AttemptOutcome::Failed { failure: FailureClass::NotSent },
                report: AttemptReport {
                    error: Some(format!(
                        "not sent: the payment's refunds could not be listed first: {reason}"
                    )),
                    ..AttemptReport::default()
                },
            }),
        }
    }

    /// Records what a send came to. Where the downstream honours no key and cannot be asked
    /// (`capabilities`), an unknown result goes to people at once, with what was seen: nothing can
    /// settle it, and it is never sent again.
    async fn record_outcome(
        &self,
        tenant: &TenantId,
        operation: &OperationRecord,
        attempt: AttemptNumber,
        sent: Sent,
        capabilities: Capabilities,
    ) -> Result<CommittedOperation, LedgerError> {
        let seen = seen_words(&sent.report);
        let command = Command::RecordOutcome { attempt, outcome: sent.outcome };
        let recorded =
            self.ledger.execute(tenant, &operation.op_id, command, &self.actor, sent.report).await?;
        if recorded.operation.snapshot.state != State::Unknown
            || capabilities.settles() != Settles::AtMostOnce
        {
            return Ok(recorded);
        }
        let reason = format!("{} What was seen: {seen}.", at_most_once_words(&operation.provider));
        let command = Command::Escalate { reason };
        self.ledger.execute(tenant, &operation.op_id, command, &self.actor, AttemptReport::default()).await
    }
}

/// What the provider holds for `operation` now: its object read again by `external_id` when the
/// provider gave one (an accepted operation), otherwise a lookup by its op id, or, at a gateway
/// without a key, against the list of refunds kept before its send.
pub async fn ask_provider(
    ledger: &Ledger,
    connector: &dyn Connector,
    operation: &OperationRecord,
    external_id: Option<&str>,
) -> Result<crate::server::providers::Lookup, LedgerError> {
    if let Some(external_id) = external_id {
        return Ok(connector.follow(operation, external_id).await);
    }
    let capabilities = connector.capabilities(&operation.kind);
    if capabilities.honours_keys() {
        return Ok(connector.look_up(operation).await);
    }
    let baseline = ledger.store.baseline(&operation.tenant, &operation.op_id).await?;
    Ok(connector.look_up_against(operation, baseline.as_ref()).await)
}

/// Why an unknown result at a downstream that honours no key and cannot be asked goes to people.
pub fn at_most_once_words(provider: &str) -> String {
    format!(
        "{provider} takes no idempotency key and cannot be asked what it did, so nobody can tell whether this happened, and it is never sent again by itself: a person must check with {provider} directly, then record what they found (done, with its reference; or not done, with evidence)."
    )
}

/// What a send's report shows, in words: the answer's HTTP status if any, the error, the wait.
fn seen_words(report: &AttemptReport) -> String {
    let mut seen = Vec::new();
    if let Some(status) = report.http_status {
        seen.push(format!("HTTP {status}"));
    }
    seen.push(report.error.clone().unwrap_or_else(|| "no answer".to_owned()));
    if let Some(latency) = report.latency_ms {
        seen.push(format!("after {latency} ms"));
    }
    seen.join(", ")
}

/// The attempt an operation has open, to be sent.
fn open_attempt(operation: &OperationRecord) -> Result<AttemptNumber, LedgerError> {
    operation
        .snapshot
        .open_attempt
        .ok_or_else(|| LedgerError::Invalid(format!("{} has no open attempt", operation.op_id)))
}

/// Whether the server may send an operation now.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SendCheck {
    Allowed,
    /// Its parameters contradict the provider's facts, or it lacks an approval the policy asks for.
    Refused(String),
    /// The provider's facts could not be read; nothing is known either way.
    Unavailable(String),
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
