//! The operation as the ledger knows it: its record (identity, parameters and the state machine's
//! snapshot), its attempts, the external ids it created at providers, and what a sender observed
//! about one attempt. The store returns these; the console, the ledger API and the connectors read
//! them.

use chrono::{DateTime, Utc};

use super::{
    audit::AuditRecord,
    ids::{OpId, TenantId},
    machine::Snapshot,
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
    /// The key sent downstream: the op id itself.
    pub idempotency_key: String,
    pub compensates: Option<OpId>,
    pub snapshot: Snapshot,
    /// Incremented by every change; a change built on an older version is refused.
    pub version: i64,
    pub created_at: DateTime<Utc>,
    pub updated_at: DateTime<Utc>,
}

/// What the sender observed about an attempt, beyond its outcome class.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct AttemptReport {
    /// When the executor starts the attempt: how many sends its run may make, and by when.
    pub budget: Option<RetryBudget>,
    pub http_status: Option<u16>,
    pub latency_ms: Option<u64>,
    pub error: Option<String>,
    pub external_id: Option<String>,
    pub retry_after_s: Option<u32>,
}

/// The retry layer's budget for one run of an operation.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
pub struct RetryBudget {
    pub max_sends: u32,
    pub deadline: DateTime<Utc>,
}

/// One send of an operation (also the ledger API's schema of an attempt).
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
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
    /// The executor's deadline for that run.
    pub deadline_at: Option<DateTime<Utc>>,
}

/// An id of something an operation created at a provider.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ExternalRef {
    pub provider: String,
    pub ref_type: String,
    pub external_id: String,
    pub recorded_at: DateTime<Utc>,
}

/// An operation with everything recorded about it.
#[derive(Debug, Clone)]
pub struct OperationHistory {
    pub operation: OperationRecord,
    pub attempts: Vec<AttemptRecord>,
    pub external_refs: Vec<ExternalRef>,
    pub audit: Vec<AuditRecord>,
}
