//! The operation as the ledger knows it: its record (identity, parameters and the state machine's
//! snapshot), its attempts, the external ids it created at providers, and what a sender observed
//! about one attempt. The store returns these; the console, the ledger API and the connectors read
//! them.

use chrono::{DateTime, Utc};

use super::{
    audit::TrailEvent,
    ids::{OpId, TenantId},
    machine::{Snapshot, State},
    params::CanonicalParams,
};

/// An operation as stored: its identity, parameters and the state machine's snapshot.
#[derive(Debug, Clone, PartialEq)]
pub struct OperationRecord {
    pub tenant: TenantId,
    pub op_id: OpId,
    pub kind: String,
    pub subject: String,
    pub provider: String,
    pub params: CanonicalParams,
    /// The key sent downstream: `<tenant>:<op id>` ([`OpId::downstream_key`]); operations recorded
    /// before keys were scoped by tenant keep the bare op id they were sent with.
    pub idempotency_key: String,
    pub compensates: Option<OpId>,
    /// The operation that failed at the provider and that this one makes again, on purpose.
    pub retry_of: Option<OpId>,
    /// What the server does when it sends it, bound when it was recorded from what its provider's
    /// connector performs (`refund`); `None` for a kind no connector performs, which the server
    /// never sends.
    pub action: Option<String>,
    /// The server sends it (a tool call, a console action, a compensation), not the agent that
    /// registered it.
    pub server_sends: bool,
    pub snapshot: Snapshot,
    /// When the provider first accepted it with its outcome pending, if it ever did.
    pub accepted_at: Option<DateTime<Utc>>,
    /// Incremented by every change; a change built on an older version is refused.
    pub version: i64,
    pub created_at: DateTime<Utc>,
    pub updated_at: DateTime<Utc>,
}

impl OperationRecord {
    /// What the operation writes into the metadata of what it creates downstream, so that a
    /// lookup finds it again: its op id and its tenant. An operation sent before keys were scoped
    /// by tenant wrote its op id alone, and a re-send must repeat exactly what it first sent.
    pub fn downstream_metadata(&self) -> Vec<(&'static str, String)> {
        let mut metadata = vec![("op_id", self.op_id.to_string())];
        if self.idempotency_key != self.op_id.as_str() {
            metadata.push(("tenant", self.tenant.to_string()));
        }
        metadata
    }

    /// The operation as a change at `at` that leaves it as `after` records it: one version on,
    /// and accepted from `at` when this is the first time it is accepted.
    pub fn changed_to(&self, after: Snapshot, at: DateTime<Utc>) -> OperationRecord {
        let accepted_at = match after.state {
            State::Accepted => self.accepted_at.or(Some(at)),
            _ => self.accepted_at,
        };
        OperationRecord {
            snapshot: after,
            accepted_at,
            version: self.version + 1,
            updated_at: at,
            ..self.clone()
        }
    }

    /// Why the server will not make this operation again on purpose, in words; `None` when it
    /// will. Only an operation that failed or was refused at the provider (`rejected`: while it is
    /// accepted or unknown its effect may still happen) and that the server itself sends (bound to
    /// an action a connector performs, and not an agent's own: an agent that sends its intent
    /// itself makes it again itself, and a second sender could meet it there) is made again. The
    /// operation page offers "Make it again" by this, and the ledger refuses by it.
    pub fn make_again_refusal(&self) -> Option<String> {
        let op_id = &self.op_id;
        let state = self.snapshot.state;
        match state {
            State::Rejected => {}
            State::Succeeded => return Some(format!("{op_id} succeeded; there is nothing to make again.")),
            state if state.is_uncertain() => {
                return Some(format!(
                "{op_id} is {}: its result is not settled and it may still happen, so it is not made again.",
                state.label()
            ))
            }
            state => {
                return Some(format!(
                "{op_id} is {}; only an operation that failed or was refused at the provider is made again.",
                state.label()
            ))
            }
        }
        if !self.server_sends {
            return Some(format!(
                "{op_id} is sent by the agent that recorded it ({}), not by opledger: that agent makes it again under an op id of its own, so that one sender alone acts on the intent.",
                self.snapshot.requested_by
            ));
        }
        if self.action.is_none() {
            return Some(format!(
                "opledger never sends a \u{201c}{}\u{201d} operation itself, so it does not make {op_id} again.",
                self.kind
            ));
        }
        None
    }

    /// Whether an object downstream whose metadata is `metadata` was created by this operation.
    pub fn created(&self, metadata: &serde_json::Value) -> bool {
        self.downstream_metadata()
            .iter()
            .all(|(name, value)| metadata.get(name).and_then(serde_json::Value::as_str) == Some(value))
    }
}

/// What the sender observed about an attempt, beyond its outcome class.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct AttemptReport {
    /// When an attempt starts: how many sends its run may make, and by when they may be in flight.
    pub budget: Option<RetryBudget>,
    pub http_status: Option<u16>,
    pub latency_ms: Option<u64>,
    pub error: Option<String>,
    pub external_id: Option<String>,
    pub retry_after_s: Option<u32>,
}

impl AttemptReport {
    /// The longest a send is taken to have lasted: a day (a send is in flight for at most 600 s).
    pub const LATENCY_MS_MAX: u64 = 86_400_000;
    /// The longest wait a provider's Retry-After is taken to ask for: a day.
    pub const RETRY_AFTER_S_MAX: u32 = 86_400;

    /// Checks what a caller reports of a send against the bounds the domain gives it: an HTTP
    /// status of 100 to 599, a latency of at most [`Self::LATENCY_MS_MAX`] and a Retry-After of
    /// at most [`Self::RETRY_AFTER_S_MAX`]; otherwise the field at fault and what it must be.
    pub fn check_bounds(&self) -> Result<(), (&'static str, String)> {
        if self.http_status.is_some_and(|status| !(100..=599).contains(&status)) {
            return Err(("http_status", "must be an HTTP status code, 100 to 599".into()));
        }
        if self.latency_ms.is_some_and(|latency| latency > Self::LATENCY_MS_MAX) {
            return Err(("latency_ms", format!("must be 0 to {} (a day)", Self::LATENCY_MS_MAX)));
        }
        if self.retry_after_s.is_some_and(|wait| wait > Self::RETRY_AFTER_S_MAX) {
            return Err(("retry_after_s", format!("must be 0 to {} (a day)", Self::RETRY_AFTER_S_MAX)));
        }
        Ok(())
    }
}

/// The retry layer's budget for one run of an operation.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
pub struct RetryBudget {
    pub max_sends: u32,
    pub deadline: DateTime<Utc>,
}

/// One send of an operation (also the ledger API's schema of an attempt).
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
pub struct AttemptRecord {
    pub number: u32,
    pub idempotency_key: String,
    pub sent_by: String,
    pub started_at: DateTime<Utc>,
    pub finished_at: Option<DateTime<Utc>>,
    /// `succeeded`, a failure class name, `no_report`, or `None` while open.
    pub outcome: Option<String>,
    pub http_status: Option<u16>,
    pub latency_ms: Option<u64>,
    pub error: Option<String>,
    pub retry_after_s: Option<u32>,
    /// The executor's budget for the run that made this attempt: at most this many sends.
    pub send_budget: Option<u32>,
    /// Until when the attempt's send may still be in flight: the executor's deadline for its run,
    /// the deadline an agent declared (or the server's default for agents), or a re-send's own
    /// timeout. Nothing presumes the sender gone before it.
    pub deadline_at: Option<DateTime<Utc>>,
}

/// An id of something an operation created at a provider.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct ExternalRef {
    pub provider: String,
    pub ref_type: String,
    pub external_id: String,
    pub recorded_at: DateTime<Utc>,
}

/// An operation with its attempts and the external ids it created, as a change committed them:
/// what the ledger answers a change with (the audit trail is read with the [`OperationHistory`]).
#[derive(Debug, Clone, PartialEq)]
pub struct CommittedOperation {
    pub operation: OperationRecord,
    pub attempts: Vec<AttemptRecord>,
    pub external_refs: Vec<ExternalRef>,
}

/// An operation with everything recorded about it.
#[derive(Debug, Clone)]
pub struct OperationHistory {
    pub operation: OperationRecord,
    pub attempts: Vec<AttemptRecord>,
    pub external_refs: Vec<ExternalRef>,
    pub audit: Vec<TrailEvent>,
}

impl OperationHistory {
    /// The operation with its attempts and external ids, without the audit trail.
    pub fn committed(&self) -> CommittedOperation {
        CommittedOperation {
            operation: self.operation.clone(),
            attempts: self.attempts.clone(),
            external_refs: self.external_refs.clone(),
        }
    }
}

/// The upper bounds, in seconds, of the buckets an operation's time from first becoming unknown to
/// settling falls into (the last bucket, past 2 hours, is open).
pub const SETTLE_BOUNDS_S: [i64; 4] = [60, 300, 1800, 7200];

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn refund(key: &str) -> OperationRecord {
        let params = CanonicalParams::from_value(json!({"payment_intent": "pi_1043"})).unwrap();
        let at = DateTime::from_timestamp(1_800_000_000, 0).unwrap();
        OperationRecord {
            tenant: TenantId::parse("acme").unwrap(),
            op_id: OpId::parse("refund-1043-li_2").unwrap(),
            kind: "refund".into(),
            subject: "order:1043".into(),
            provider: "stripe".into(),
            idempotency_key: key.into(),
            compensates: None,
            retry_of: None,
            action: Some("refund".into()),
            server_sends: false,
            accepted_at: None,
            snapshot: Snapshot::new("agent-7", params.fingerprint(), false, chrono::Duration::hours(24)),
            params,
            version: 1,
            created_at: at,
            updated_at: at,
        }
    }

    #[test]
    fn an_operation_finds_only_what_its_own_tenant_created() {
        let operation = refund("acme:refund-1043-li_2");
        assert_eq!(
            operation.downstream_metadata(),
            [("op_id", "refund-1043-li_2".to_owned()), ("tenant", "acme".to_owned())]
        );
        assert!(operation.created(&json!({"op_id": "refund-1043-li_2", "tenant": "acme"})));
        assert!(!operation.created(&json!({"op_id": "refund-1043-li_2", "tenant": "globex"})));
        assert!(!operation.created(&json!({"op_id": "refund-1043-li_2"})), "no tenant is not this tenant");
        assert!(!operation.created(&json!({"op_id": "refund-1043-li_1", "tenant": "acme"})));
    }

    #[test]
    fn an_operation_sent_before_keys_were_scoped_keeps_what_it_first_sent() {
        let legacy = refund("refund-1043-li_2");
        assert_eq!(legacy.downstream_metadata(), [("op_id", "refund-1043-li_2".to_owned())]);
        assert!(legacy.created(&json!({"op_id": "refund-1043-li_2"})));
    }
}
