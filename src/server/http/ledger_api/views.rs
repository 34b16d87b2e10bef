//! What the ledger API shows of an operation: the JSON shapes of its answers, built from the
//! domain's read model (never from store rows).

use chrono::{DateTime, Utc};
use serde::Serialize;
use serde_json::Value;
use utoipa::ToSchema;

use crate::domain::{
    audit::TrailEvent,
    machine::{Snapshot, State},
    money::Money,
    operation::{AttemptRecord, CommittedOperation, OperationHistory, OperationRecord},
    policy::Approval,
    wording::failure_reason_words,
};
use crate::server::clock::now;

/// The downstream idempotency key's validity, and what a re-send under it gets after the provider
/// answered a 5xx (`same_key`, `retry` or `unknown`).
#[derive(Debug, Serialize, ToSchema)]
pub struct KeyView {
    pub first_sent_at: Option<DateTime<Utc>>,
    pub retention_s: i64,
    pub expires_at: Option<DateTime<Utc>>,
    pub after_5xx: &'static str,
}

/// What the API shows of an operation: its state with what it means for the caller, its
/// parameters and fingerprint, attempts, external ids and, when read alone, its audit trail.
#[derive(Debug, Serialize, ToSchema)]
pub struct OperationView {
    pub op_id: String,
    pub kind: String,
    pub subject: String,
    pub provider: String,
    #[schema(value_type = crate::domain::machine::State)]
    pub state: String,
    pub message: String,
    #[schema(value_type = HashMap<String, serde_json::Value>)]
    pub params: Value,
    pub fingerprint: String,
    pub amount: Option<Money>,
    pub idempotency_key: String,
    pub requested_by: String,
    pub compensates: Option<String>,
    /// The failed operation this one makes again, on purpose.
    pub retry_of: Option<String>,
    /// When the provider accepted it and it failed there: the provider's reason
    /// (`expired_or_canceled_card`), and the same in words.
    pub failure_reason: Option<String>,
    pub failure: Option<String>,
    pub cancel_requested: bool,
    pub approval: Option<Approval>,
    pub key: KeyView,
    pub version: i64,
    pub created_at: DateTime<Utc>,
    pub updated_at: DateTime<Utc>,
    pub attempts: Vec<AttemptRecord>,
    /// `provider/type/id`, for example `stripe/refund/re_7f3a`.
    pub external_refs: Vec<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(value_type = Option<Vec<HashMap<String, serde_json::Value>>>)]
    pub audit: Option<Vec<TrailEvent>>,
}

/// What the caller is told of the operation: as its state says, and for a send in flight, until
/// when its open attempt is taken to be in flight.
fn caller_message(snapshot: &Snapshot, attempts: &[AttemptRecord]) -> String {
    let in_flight_until = snapshot
        .open_attempt
        .filter(|_| snapshot.state == State::Submitted)
        .and_then(|open| attempts.iter().find(|attempt| attempt.number == open.0))
        .and_then(|attempt| attempt.deadline_at);
    match in_flight_until {
        Some(deadline) => State::in_flight_message(deadline, now()),
        None => snapshot.caller_message().to_owned(),
    }
}

impl OperationView {
    pub fn of(history: OperationHistory, with_audit: bool) -> Self {
        let OperationHistory { operation, attempts, external_refs, audit } = history;
        Self::of_parts(CommittedOperation { operation, attempts, external_refs }, with_audit.then_some(audit))
    }

    /// The view of what a change committed (no audit trail).
    pub fn committed(committed: CommittedOperation) -> Self {
        Self::of_parts(committed, None)
    }

    fn of_parts(committed: CommittedOperation, audit: Option<Vec<TrailEvent>>) -> Self {
        let CommittedOperation { operation, attempts, external_refs } = committed;
        let OperationRecord {
            op_id,
            kind,
            subject,
            provider,
            params,
            idempotency_key,
            compensates,
            retry_of,
            snapshot,
            version,
            created_at,
            updated_at,
            ..
        } = operation;
        let amount = params.money("amount");
        OperationView {
            op_id: op_id.to_string(),
            kind,
            subject,
            provider,
            state: snapshot.state.as_str().to_owned(),
            message: caller_message(&snapshot, &attempts),
            params: params.as_value().clone(),
            fingerprint: snapshot.fingerprint.to_string(),
            amount,
            idempotency_key,
            requested_by: snapshot.requested_by.clone(),
            compensates: compensates.map(|c| c.to_string()),
            retry_of: retry_of.map(|r| r.to_string()),
            failure: snapshot
                .failure_reason
                .as_deref()
                .map(|reason| failure_reason_words(reason, crate::domain::language::Language::En)),
            failure_reason: snapshot.failure_reason.clone(),
            cancel_requested: snapshot.cancel_requested,
            approval: snapshot.approval.clone(),
            key: KeyView {
                first_sent_at: snapshot.key_first_sent_at,
                retention_s: snapshot.key_retention.num_seconds(),
                expires_at: snapshot.key_expires_at(),
                after_5xx: snapshot.after_5xx.as_str(),
            },
            version,
            created_at,
            updated_at,
            attempts,
            external_refs: external_refs
                .into_iter()
                .map(|r| format!("{}/{}/{}", r.provider, r.ref_type, r.external_id))
                .collect(),
            audit,
        }
    }
}
