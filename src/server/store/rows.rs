//! The rows both backends read and write, and the SQL text they share. Queries use `$1`-style
//! parameters, which SQLite and PostgreSQL both accept, and times are stored as UTC microseconds
//! since the epoch in `bigint` columns, so rows decode the same way on both engines. Filtered
//! queries (the operations list, the audit trail) are built here one condition at a time.

use chrono::{DateTime, Utc};

use super::records::{
    ApiTokenRecord, ApprovalRuleRecord, AttemptsAndRefs, AuditQuery, BulkItemRecord, ConflictRecord,
    DeliveryStatus, EmailTemplateRecord, NewOperation, OperationChange, OperationListItem, OperationQuery,
    ProviderConnectionRecord, RequestAnswer, UserRecord, WebhookDeliveryRecord, WebhookEndpointRecord,
};
use super::StoreError;
use crate::domain::{
    audit::{AuditEntry, AuditRecord, TrailEvent},
    connection::{After5xx, ProviderKind},
    failure::FailureClass,
    ids::{AttemptNumber, OpId, TenantId},
    language::Language,
    machine::{Event, Snapshot, State},
    money::{Currency, Money},
    operation::{AttemptRecord, AttemptReport, ExternalRef, OperationRecord},
    params::{CanonicalParams, Fingerprint},
    policy::{Approval, ApprovalRule, Role},
    rollup::OrderTally,
};

pub(super) fn micros(at: DateTime<Utc>) -> i64 {
    at.timestamp_micros()
}

/// The hour under which `hourly_outcomes` counts the operations of every hour together: the
/// overview's counts per state. No real hour starts before 1970.
pub(super) const EVERY_HOUR: i64 = -1;

/// The start of the hour `us` falls in, in microseconds: the key of the overview's hourly rows.
pub(super) fn hour_of(us: i64) -> i64 {
    us.div_euclid(3_600_000_000) * 3_600_000_000
}

pub(super) fn time(us: i64) -> Result<DateTime<Utc>, StoreError> {
    DateTime::from_timestamp_micros(us).ok_or_else(|| StoreError::Corrupt(format!("time {us} out of range")))
}

pub(super) fn corrupt(what: &str) -> impl FnOnce(String) -> StoreError + '_ {
    move |problem| StoreError::Corrupt(format!("{what}: {problem}"))
}

pub(super) const OPERATION_COLUMNS: &str = "tenant, op_id, kind, subject, provider, params, fingerprint, \
    amount_minor, amount_currency, state, idempotency_key, key_first_sent_at_us, key_retention_s, \
    requested_by, compensates, approved_by, approved_fingerprint, approval_granted_at_us, \
    approval_expires_at_us, open_attempt, last_attempt, last_failure, cancel_requested, failure_reason, \
    accepted_at_us, retry_of, action, (server_sends <> 0) as server_sends, version, created_at_us, updated_at_us, \
    after_5xx";

/// The row a guarded write wrote, and whether it recorded its change's one external id: `None`
/// when the write did not say (SQLite's, or one with no single external id to record).
#[derive(sqlx::FromRow)]
pub(super) struct GuardedRow {
    #[sqlx(flatten)]
    pub row: OperationRow,
    #[sqlx(default)]
    pub external_id_recorded: Option<bool>,
}

#[derive(sqlx::FromRow)]
pub(super) struct OperationRow {
    tenant: String,
    op_id: String,
    kind: String,
    subject: String,
    provider: String,
    params: String,
    fingerprint: String,
    state: String,
    idempotency_key: String,
    key_first_sent_at_us: Option<i64>,
    key_retention_s: i64,
    requested_by: String,
    compensates: Option<String>,
    approved_by: Option<String>,
    approved_fingerprint: Option<String>,
    approval_granted_at_us: Option<i64>,
    approval_expires_at_us: Option<i64>,
    open_attempt: Option<i64>,
    last_attempt: Option<i64>,
    last_failure: Option<String>,
    cancel_requested: bool,
    failure_reason: Option<String>,
    accepted_at_us: Option<i64>,
    retry_of: Option<String>,
    action: Option<String>,
    server_sends: bool,
    version: i64,
    created_at_us: i64,
    updated_at_us: i64,
    after_5xx: String,
}

fn attempt_number(n: i64) -> Result<AttemptNumber, StoreError> {
    u32::try_from(n).map(AttemptNumber).map_err(|e| StoreError::Corrupt(format!("attempt number {n}: {e}")))
}

impl OperationRow {
    pub(super) fn into_record(self) -> Result<OperationRecord, StoreError> {
        let params =
            CanonicalParams::from_json(&self.params).map_err(|e| corrupt("params")(e.to_string()))?;
        let fingerprint = Fingerprint::from_stored(self.fingerprint);
        let approval = match (
            self.approved_by,
            self.approved_fingerprint,
            self.approval_granted_at_us,
            self.approval_expires_at_us,
        ) {
            (Some(approver), Some(fingerprint), Some(granted), Some(expires)) => Some(Approval {
                approver,
                fingerprint: Fingerprint::from_stored(fingerprint),
                granted_at: time(granted)?,
                expires_at: time(expires)?,
            }),
            _ => None,
        };
        let last_failure = self
            .last_failure
            .map(|text| {
                serde_json::from_str::<FailureClass>(&text)
                    .map_err(|e| corrupt("last_failure")(e.to_string()))
            })
            .transpose()?;
        let snapshot = Snapshot {
            state: State::parse(&self.state).ok_or_else(|| corrupt("state")(self.state.clone()))?,
            requested_by: self.requested_by,
            fingerprint,
            approval,
            open_attempt: self.open_attempt.map(attempt_number).transpose()?,
            last_attempt: self.last_attempt.map(attempt_number).transpose()?,
            last_failure,
            key_first_sent_at: self.key_first_sent_at_us.map(time).transpose()?,
            key_retention: chrono::Duration::seconds(self.key_retention_s),
            after_5xx: After5xx::parse(&self.after_5xx)
                .ok_or_else(|| corrupt("after_5xx")(self.after_5xx))?,
            cancel_requested: self.cancel_requested,
            failure_reason: self.failure_reason,
        };
        let op_id =
            |what: &'static str, text: String| OpId::parse(&text).map_err(|e| corrupt(what)(e.to_string()));
        Ok(OperationRecord {
            tenant: TenantId::parse(&self.tenant).map_err(|e| corrupt("tenant")(e.to_string()))?,
            op_id: OpId::parse(&self.op_id).map_err(|e| corrupt("op_id")(e.to_string()))?,
            kind: self.kind,
            subject: self.subject,
            provider: self.provider,
            params,
            idempotency_key: self.idempotency_key,
            compensates: self.compensates.map(|c| op_id("compensates", c)).transpose()?,
            retry_of: self.retry_of.map(|r| op_id("retry_of", r)).transpose()?,
            action: self.action,
            server_sends: self.server_sends,
            accepted_at: self.accepted_at_us.map(time).transpose()?,
            snapshot,
            version: self.version,
            created_at: time(self.created_at_us)?,
            updated_at: time(self.updated_at_us)?,
        })
    }
}

/// The snapshot's columns as values: parameters `$1..$11` of [`UPDATE_OPERATION`] and `$15..$25`
/// of [`INSERT_OPERATION`].
fn snapshot_values(snapshot: &Snapshot) -> [SqlValue; 11] {
    let approval = snapshot.approval.as_ref();
    [
        SqlValue::Text(snapshot.state.as_str().to_owned()),
        SqlValue::MaybeInt(snapshot.key_first_sent_at.map(micros)),
        SqlValue::MaybeText(approval.map(|a| a.approver.clone())),
        SqlValue::MaybeText(approval.map(|a| a.fingerprint.as_str().to_owned())),
        SqlValue::MaybeInt(approval.map(|a| micros(a.granted_at))),
        SqlValue::MaybeInt(approval.map(|a| micros(a.expires_at))),
        SqlValue::MaybeInt(snapshot.open_attempt.map(|a| i64::from(a.0))),
        SqlValue::MaybeInt(snapshot.last_attempt.map(|a| i64::from(a.0))),
        SqlValue::MaybeText(
            snapshot.last_failure.map(|f| serde_json::to_string(&f).expect("failure classes serialize")),
        ),
        SqlValue::Bool(snapshot.cancel_requested),
        SqlValue::MaybeText(snapshot.failure_reason.clone()),
    ]
}

const INSERT_OPERATION: &str = "insert into operations (tenant, op_id, kind, subject, provider, \
    params, fingerprint, amount_minor, amount_currency, idempotency_key, key_retention_s, requested_by, \
    compensates, version, created_at_us, updated_at_us, state, key_first_sent_at_us, approved_by, \
    approved_fingerprint, approval_granted_at_us, approval_expires_at_us, open_attempt, last_attempt, \
    last_failure, cancel_requested, failure_reason, server_sends, retry_of, action, after_5xx) \
    values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, 1, $14, $14, $15, $16, $17, $18, $19, \
    $20, $21, $22, $23, $24, $25, $26, $27, $28, $29) on conflict (tenant, op_id) do nothing returning ";

const UPDATE_OPERATION: &str = "update operations set state = $1, key_first_sent_at_us = $2, \
    approved_by = $3, approved_fingerprint = $4, approval_granted_at_us = $5, approval_expires_at_us = $6, \
    open_attempt = $7, last_attempt = $8, last_failure = $9, cancel_requested = $10, failure_reason = $11, \
    version = version + 1, updated_at_us = $12, \
    unknown_since_us = case when $1 = 'unknown' then coalesce(unknown_since_us, $12) else unknown_since_us end, \
    accepted_at_us = case when $1 = 'accepted' then coalesce(accepted_at_us, $12) else accepted_at_us end \
    where tenant = $13 and op_id = $14 and version = $15 returning ";

/// Records `new`, unless its op id is taken, returning the row it wrote ([`OPERATION_COLUMNS`]).
pub(super) fn operation_insert(new: &NewOperation) -> QueryText {
    let amount = new.params.money("amount");
    let mut values = vec![
        SqlValue::Text(new.tenant.as_str().to_owned()),
        SqlValue::Text(new.op_id.as_str().to_owned()),
        SqlValue::Text(new.kind.clone()),
        SqlValue::Text(new.subject.clone()),
        SqlValue::Text(new.provider.clone()),
        SqlValue::Text(new.params.canonical_text().to_owned()),
        SqlValue::Text(new.params.fingerprint().as_str().to_owned()),
        SqlValue::MaybeInt(amount.map(|m| m.minor)),
        SqlValue::MaybeText(amount.map(|m| m.currency.as_str().to_owned())),
        SqlValue::Text(new.idempotency_key.clone()),
        SqlValue::Int(new.snapshot.key_retention.num_seconds()),
        SqlValue::Text(new.snapshot.requested_by.clone()),
        SqlValue::MaybeText(new.compensates.as_ref().map(|id| id.as_str().to_owned())),
        SqlValue::Int(micros(new.at)),
    ];
    values.extend(snapshot_values(&new.snapshot));
    values.extend([
        SqlValue::Int(i64::from(new.server_sends)),
        SqlValue::MaybeText(new.retry_of.as_ref().map(|id| id.as_str().to_owned())),
        SqlValue::MaybeText(new.action.clone()),
        SqlValue::Text(new.snapshot.after_5xx.as_str().to_owned()),
    ]);
    QueryText { values, ..QueryText::new(&format!("{INSERT_OPERATION}{OPERATION_COLUMNS}")) }
}

/// Writes the snapshot `change` leaves, if the operation is still at the version it was decided
/// from, returning the row it wrote ([`OPERATION_COLUMNS`]).
pub(super) fn operation_update(change: &OperationChange) -> QueryText {
    let mut values = Vec::from(snapshot_values(&change.after));
    values.extend([
        SqlValue::Int(micros(change.at)),
        SqlValue::Text(change.before.tenant.as_str().to_owned()),
        SqlValue::Text(change.before.op_id.as_str().to_owned()),
        SqlValue::Int(change.before.version),
    ]);
    QueryText { values, ..QueryText::new(&format!("{UPDATE_OPERATION}{OPERATION_COLUMNS}")) }
}

/// Marks the console request that `answer` names answered, in the write of the change it asked
/// for; only the claim of the same person is answered.
pub(super) fn answer_update(tenant: &TenantId, answer: &RequestAnswer) -> QueryText {
    let mut text = QueryText::new("update console_requests set answered = ");
    let values = [
        SqlValue::Bool(true),
        SqlValue::Text(answer.answer.clone()),
        SqlValue::Text(tenant.as_str().to_owned()),
        SqlValue::Text(answer.key.clone()),
        SqlValue::Text(answer.requested_by.clone()),
    ];
    let p: Vec<String> = values.into_iter().map(|value| text.param(value)).collect();
    text.push(&format!(
        "{}, response = {} where tenant = {} and request_key = {} and requested_by = {}",
        p[0], p[1], p[2], p[3], p[4]
    ));
    text.where_ends_here()
}

#[derive(sqlx::FromRow)]
pub(super) struct AttemptRow {
    number: i64,
    idempotency_key: String,
    sent_by: String,
    started_at_us: i64,
    finished_at_us: Option<i64>,
    outcome: Option<String>,
    http_status: Option<i64>,
    latency_ms: Option<i64>,
    error: Option<String>,
    retry_after_s: Option<i64>,
    send_budget: Option<i64>,
    deadline_at_us: Option<i64>,
}

fn narrow<T: TryFrom<i64>>(value: Option<i64>, what: &str) -> Result<Option<T>, StoreError> {
    value
        .map(|v| T::try_from(v).map_err(|_| StoreError::Corrupt(format!("{what} {v} out of range"))))
        .transpose()
}

impl AttemptRow {
    pub(super) fn into_record(self) -> Result<AttemptRecord, StoreError> {
        Ok(AttemptRecord {
            number: attempt_number(self.number)?.0,
            idempotency_key: self.idempotency_key,
            sent_by: self.sent_by,
            started_at: time(self.started_at_us)?,
            finished_at: self.finished_at_us.map(time).transpose()?,
            outcome: self.outcome,
            http_status: narrow(self.http_status, "http status")?,
            latency_ms: narrow(self.latency_ms, "latency")?,
            error: self.error,
            retry_after_s: narrow(self.retry_after_s, "retry-after")?,
            send_budget: narrow(self.send_budget, "send budget")?,
            deadline_at: self.deadline_at_us.map(time).transpose()?,
        })
    }
}

pub(super) struct ExternalRefRow {
    provider: String,
    ref_type: String,
    external_id: String,
    recorded_at_us: i64,
}

impl ExternalRefRow {
    pub(super) fn into_record(self) -> Result<ExternalRef, StoreError> {
        Ok(ExternalRef {
            provider: self.provider,
            ref_type: self.ref_type,
            external_id: self.external_id,
            recorded_at: time(self.recorded_at_us)?,
        })
    }
}

/// An operation's attempts in order, then its external references in order of recording: one
/// round trip for what a change answers with.
pub(super) const ATTEMPTS_AND_REFS_QUERY: &str = "select cast(0 as bigint) as part, number, idempotency_key, sent_by, \
    started_at_us, finished_at_us, outcome, http_status, latency_ms, error, retry_after_s, send_budget, deadline_at_us, \
    cast(null as text) as provider, cast(null as text) as ref_type, cast(null as text) as external_id, \
    cast(null as bigint) as recorded_at_us from attempts where tenant = $1 and op_id = $2 \
    union all select 1, null, null, null, null, null, null, null, null, null, null, null, null, provider, ref_type, \
    external_id, recorded_at_us from external_refs where tenant = $1 and op_id = $2 \
    order by part, number, recorded_at_us, external_id";

/// One row of [`ATTEMPTS_AND_REFS_QUERY`]: an attempt (`part` 0) or an external reference (1).
#[derive(sqlx::FromRow)]
pub(super) struct AttemptOrRefRow {
    part: i64,
    number: Option<i64>,
    idempotency_key: Option<String>,
    sent_by: Option<String>,
    started_at_us: Option<i64>,
    finished_at_us: Option<i64>,
    outcome: Option<String>,
    http_status: Option<i64>,
    latency_ms: Option<i64>,
    error: Option<String>,
    retry_after_s: Option<i64>,
    send_budget: Option<i64>,
    deadline_at_us: Option<i64>,
    provider: Option<String>,
    ref_type: Option<String>,
    external_id: Option<String>,
    recorded_at_us: Option<i64>,
}

/// What an [`AttemptOrRefRow`] holds.
pub(super) enum AttemptOrRef {
    Attempt(AttemptRecord),
    Ref(ExternalRef),
}

impl AttemptOrRefRow {
    pub(super) fn into_record(self) -> Result<AttemptOrRef, StoreError> {
        fn given<T>(value: Option<T>, what: &str) -> Result<T, StoreError> {
            value.ok_or_else(|| StoreError::Corrupt(format!("{what} missing")))
        }
        if self.part == 0 {
            let row = AttemptRow {
                number: given(self.number, "attempt number")?,
                idempotency_key: given(self.idempotency_key, "attempt key")?,
                sent_by: given(self.sent_by, "attempt sender")?,
                started_at_us: given(self.started_at_us, "attempt start")?,
                finished_at_us: self.finished_at_us,
                outcome: self.outcome,
                http_status: self.http_status,
                latency_ms: self.latency_ms,
                error: self.error,
                retry_after_s: self.retry_after_s,
                send_budget: self.send_budget,
                deadline_at_us: self.deadline_at_us,
            };
            row.into_record().map(AttemptOrRef::Attempt)
        } else {
            let row = ExternalRefRow {
                provider: given(self.provider, "reference provider")?,
                ref_type: given(self.ref_type, "reference type")?,
                external_id: given(self.external_id, "external id")?,
                recorded_at_us: given(self.recorded_at_us, "reference time")?,
            };
            row.into_record().map(AttemptOrRef::Ref)
        }
    }
}

pub(super) const AUDIT_COLUMNS: &str =
    "tenant, seq, at_us, actor, role, action, op_id, from_state, to_state, reason, evidence, prev_hash, hash";

/// An operation's trail: its sealed events in chain order, then those waiting for the sealer in the
/// order they were recorded (`$1` tenant, `$2` op id).
pub(super) const TRAIL_QUERY: &str =
    "select at_us, actor, role, action, op_id, from_state, to_state, reason, evidence, \
     seq, hash, 0 as waiting, seq as place from audit_events where tenant = $1 and op_id = $2 \
     union all \
     select at_us, actor, role, action, op_id, from_state, to_state, reason, evidence, \
     cast(null as bigint), cast(null as text), 1, id from audit_pending where tenant = $1 and op_id = $2 \
     order by waiting, place";

/// The columns every stored audit entry has, whatever table holds it.
#[derive(sqlx::FromRow)]
pub(super) struct EntryColumns {
    at_us: i64,
    actor: String,
    role: String,
    action: String,
    op_id: Option<String>,
    from_state: Option<String>,
    to_state: Option<String>,
    reason: Option<String>,
    evidence: String,
}

impl EntryColumns {
    fn into_entry(self, tenant: String) -> Result<AuditEntry, StoreError> {
        Ok(AuditEntry {
            at: time(self.at_us)?,
            tenant,
            actor: self.actor,
            role: self.role,
            action: self.action,
            op_id: self.op_id,
            from_state: self.from_state,
            to_state: self.to_state,
            reason: self.reason,
            evidence: serde_json::from_str(&self.evidence).map_err(|e| corrupt("evidence")(e.to_string()))?,
        })
    }
}

#[derive(sqlx::FromRow)]
pub(super) struct TrailRow {
    #[sqlx(flatten)]
    entry: EntryColumns,
    seq: Option<i64>,
    hash: Option<String>,
}

impl TrailRow {
    pub(super) fn into_event(self, tenant: &str) -> Result<TrailEvent, StoreError> {
        Ok(TrailEvent {
            seq: self
                .seq
                .map(|seq| u64::try_from(seq).map_err(|e| corrupt("audit seq")(e.to_string())))
                .transpose()?,
            entry: self.entry.into_entry(tenant.to_owned())?,
            hash: self.hash,
        })
    }
}

/// The columns of an entry waiting for the sealer, in `audit_pending`.
pub(super) const PENDING_COLUMNS: &str =
    "id, tenant, at_us, actor, role, action, op_id, from_state, to_state, reason, evidence";

#[derive(sqlx::FromRow)]
pub(super) struct PendingRow {
    pub(super) id: i64,
    tenant: String,
    #[sqlx(flatten)]
    entry: EntryColumns,
}

impl PendingRow {
    pub(super) fn into_entry(self) -> Result<AuditEntry, StoreError> {
        self.entry.into_entry(self.tenant)
    }
}

#[derive(sqlx::FromRow)]
pub(super) struct AuditRow {
    tenant: String,
    seq: i64,
    #[sqlx(flatten)]
    entry: EntryColumns,
    prev_hash: String,
    hash: String,
}

impl AuditRow {
    pub(super) fn into_record(self) -> Result<AuditRecord, StoreError> {
        Ok(AuditRecord {
            seq: u64::try_from(self.seq).map_err(|e| corrupt("audit seq")(e.to_string()))?,
            entry: self.entry.into_entry(self.tenant)?,
            prev_hash: self.prev_hash,
            hash: self.hash,
        })
    }
}

#[derive(sqlx::FromRow)]
pub(super) struct ConflictRow {
    id: i64,
    op_id: String,
    requested_params: String,
    requested_fingerprint: String,
    stored_fingerprint: String,
    diff: String,
    requested_by: String,
    received_at_us: i64,
}

impl ConflictRow {
    pub(super) fn into_record(self) -> Result<ConflictRecord, StoreError> {
        Ok(ConflictRecord {
            id: self.id,
            op_id: OpId::parse(&self.op_id).map_err(|e| corrupt("op_id")(e.to_string()))?,
            requested_params: serde_json::from_str(&self.requested_params)
                .map_err(|e| corrupt("requested params")(e.to_string()))?,
            requested_fingerprint: self.requested_fingerprint,
            stored_fingerprint: self.stored_fingerprint,
            diff: serde_json::from_str(&self.diff).map_err(|e| corrupt("diff")(e.to_string()))?,
            requested_by: self.requested_by,
            received_at: time(self.received_at_us)?,
        })
    }
}

#[derive(sqlx::FromRow)]
pub(super) struct ApiTokenRow {
    id: String,
    tenant: String,
    name: String,
}

impl ApiTokenRow {
    pub(super) fn into_record(self) -> Result<ApiTokenRecord, StoreError> {
        Ok(ApiTokenRecord {
            id: self.id,
            tenant: TenantId::parse(&self.tenant).map_err(|e| corrupt("tenant")(e.to_string()))?,
            name: self.name,
        })
    }
}

/// A value bound to a query whose shape depends on the filters given.
pub(super) enum SqlValue {
    Text(String),
    MaybeText(Option<String>),
    Int(i64),
    MaybeInt(Option<i64>),
    Small(i16),
    Bool(bool),
}

/// `values` as the arguments of a query on `DB`, in order.
pub(super) fn arguments<'q, DB>(values: Vec<SqlValue>) -> Result<DB::Arguments<'q>, sqlx::Error>
where
    DB: sqlx::Database,
    String: sqlx::Encode<'q, DB> + sqlx::Type<DB>,
    Option<String>: sqlx::Encode<'q, DB> + sqlx::Type<DB>,
    i64: sqlx::Encode<'q, DB> + sqlx::Type<DB>,
    Option<i64>: sqlx::Encode<'q, DB> + sqlx::Type<DB>,
    i16: sqlx::Encode<'q, DB> + sqlx::Type<DB>,
    bool: sqlx::Encode<'q, DB> + sqlx::Type<DB>,
{
    use sqlx::Arguments;
    let mut arguments = DB::Arguments::default();
    for value in values {
        match value {
            SqlValue::Text(text) => arguments.add(text),
            SqlValue::MaybeText(text) => arguments.add(text),
            SqlValue::Int(number) => arguments.add(number),
            SqlValue::MaybeInt(number) => arguments.add(number),
            SqlValue::Small(number) => arguments.add(number),
            SqlValue::Bool(flag) => arguments.add(flag),
        }
        .map_err(sqlx::Error::Encode)?;
    }
    Ok(arguments)
}

/// A query's text with its `$n` parameters, built one condition at a time.
pub(super) struct QueryText {
    pub sql: String,
    pub values: Vec<SqlValue>,
    /// What a later statement of [`QueryText::together`] calls this one's returned rows.
    pub name: Option<&'static str>,
    /// Where [`QueryText::only_if`] can make this write conditional.
    pub opening: Opening,
}

/// Where a write can take a condition: [`QueryText::only_if`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) enum Opening {
    /// Nowhere: a read, or a write built without one.
    None,
    /// An insert whose `values …` rows lie in this span of its text.
    Rows(std::ops::Range<usize>),
    /// A write whose `where` clause ends at this byte of its text.
    WhereEndsAt(usize),
}

impl QueryText {
    pub(super) fn new(sql: &str) -> Self {
        QueryText { sql: sql.to_owned(), values: Vec::new(), name: None, opening: Opening::None }
    }

    /// Marks the text from `start` to here as the insert's `values …` rows.
    fn rows_from(mut self, start: usize) -> Self {
        self.opening = Opening::Rows(start..self.sql.len());
        self
    }

    /// Marks the text so far as ending in its `where` clause.
    fn where_ends_here(mut self) -> Self {
        self.opening = Opening::WhereEndsAt(self.sql.len());
        self
    }

    /// This write made to do nothing unless `condition` (with no parameters of its own) holds:
    /// an insert's rows are selected under it, a `where` clause gets it added. Panics on a
    /// statement built without an [`Opening`], which only a change to a builder here can make.
    pub(super) fn only_if(self, condition: &str) -> Self {
        let sql = match &self.opening {
            Opening::Rows(rows) => format!(
                "{}select * from ({}) as v where {condition}{}",
                &self.sql[..rows.start],
                &self.sql[rows.clone()],
                &self.sql[rows.end..]
            ),
            Opening::WhereEndsAt(end) => {
                format!("{} and {condition}{}", &self.sql[..*end], &self.sql[*end..])
            }
            Opening::None => panic!("a statement with no place for a condition: {}", self.sql),
        };
        QueryText { sql, opening: Opening::None, ..self }
    }

    /// Adds the next parameter and returns its placeholder.
    fn param(&mut self, value: SqlValue) -> String {
        self.values.push(value);
        format!("${}", self.values.len())
    }

    fn push(&mut self, text: &str) {
        self.sql.push_str(text);
    }

    pub(super) fn named(self, name: &'static str) -> Self {
        QueryText { name: Some(name), ..self }
    }
}

impl QueryText {
    /// `statements` as one statement: on PostgreSQL, every one but the last as a data-modifying
    /// `with` part of the last (under its [`QueryText::name`], for the later ones to read what it
    /// returns), their parameters numbered on; `None` when there are none.
    pub(super) fn together(statements: Vec<QueryText>) -> Option<QueryText> {
        let count = statements.len();
        let mut joined = QueryText::new("");
        for (i, statement) in statements.into_iter().enumerate() {
            let offset = joined.values.len();
            let sql = shift_params(&statement.sql, offset);
            let name = statement.name.map_or_else(|| format!("part{i}"), str::to_owned);
            match (i, i + 1 == count) {
                (0, true) => joined.push(&sql),
                (0, false) => joined.push(&format!("with {name} as ({sql})")),
                (_, false) => joined.push(&format!(", {name} as ({sql})")),
                (_, true) => joined.push(&format!(" {sql}")),
            }
            joined.values.extend(statement.values);
        }
        (count > 0).then_some(joined)
    }
}

impl QueryText {
    /// `statements` as one text that runs them one after the other (as SQLite runs a text of
    /// several statements: one call into its connection's thread instead of one for each), their
    /// parameters numbered on; `None` when there are none.
    pub(super) fn in_order(statements: Vec<QueryText>) -> Option<QueryText> {
        let count = statements.len();
        let mut joined = QueryText::new("");
        for statement in statements {
            let sql = shift_params(&statement.sql, joined.values.len());
            if !joined.sql.is_empty() {
                joined.push("; ");
            }
            joined.push(&sql);
            joined.values.extend(statement.values);
        }
        (count > 0).then_some(joined)
    }
}

/// `sql` with every `$n` placeholder numbered `offset` further on.
fn shift_params(sql: &str, offset: usize) -> String {
    let mut shifted = String::with_capacity(sql.len() + 16);
    let mut rest = sql;
    while let Some(dollar) = rest.find('$') {
        shifted.push_str(&rest[..=dollar]);
        rest = &rest[dollar + 1..];
        let digits = rest.bytes().take_while(u8::is_ascii_digit).count();
        match rest[..digits].parse::<usize>() {
            Ok(number) => shifted.push_str(&(number + offset).to_string()),
            Err(_) => shifted.push_str(&rest[..digits]),
        }
        rest = &rest[digits..];
    }
    shifted.push_str(rest);
    shifted
}

/// The values of an audit entry's columns that follow its tenant, in the order both audit tables
/// name them: at_us, actor, role, action, op_id, from_state, to_state, reason, evidence.
fn entry_values(entry: &AuditEntry) -> [SqlValue; 9] {
    [
        SqlValue::Int(micros(entry.at)),
        SqlValue::Text(entry.actor.clone()),
        SqlValue::Text(entry.role.clone()),
        SqlValue::Text(entry.action.clone()),
        SqlValue::MaybeText(entry.op_id.clone()),
        SqlValue::MaybeText(entry.from_state.clone()),
        SqlValue::MaybeText(entry.to_state.clone()),
        SqlValue::MaybeText(entry.reason.clone()),
        SqlValue::Text(entry.evidence.to_string()),
    ]
}

/// `insert into {into} values …` with one row for each of `rows`: the tenant's id (one parameter
/// that every row shares), then the row's values.
fn tenant_rows_insert(
    into: &str,
    tenant: &TenantId,
    rows: impl IntoIterator<Item = Vec<SqlValue>>,
) -> QueryText {
    let mut text = QueryText::new(&format!("insert into {into} values "));
    let start = text.sql.len() - "values ".len();
    let tenant_param = text.param(SqlValue::Text(tenant.as_str().to_owned()));
    for (i, values) in rows.into_iter().enumerate() {
        let placeholders: Vec<String> = values.into_iter().map(|value| text.param(value)).collect();
        let separator = if i == 0 { "" } else { ", " };
        text.push(&format!("{separator}({tenant_param}, {})", placeholders.join(", ")));
    }
    text.rows_from(start)
}

/// Records `entries` for the sealer in this order: one insert of all of them.
pub(super) fn audit_pending_insert(tenant: &TenantId, entries: &[AuditEntry]) -> Option<QueryText> {
    if entries.is_empty() {
        return None;
    }
    Some(tenant_rows_insert(
        "audit_pending (tenant, at_us, actor, role, action, op_id, from_state, to_state, reason, evidence)",
        tenant,
        entries.iter().map(|entry| Vec::from(entry_values(entry))),
    ))
}

/// The most sealed entries one insert into `audit_events` carries: 12 parameters each, well
/// within both engines' limit on a statement's parameters.
pub(super) const SEALED_PER_INSERT: usize = 500;

/// Adds `records`, sealed in this order, to the tenant's chain: one insert of all of them
/// (at most [`SEALED_PER_INSERT`]).
pub(super) fn audit_events_insert(tenant: &TenantId, records: &[AuditRecord]) -> QueryText {
    let rows = records.iter().map(|record| {
        let mut values = vec![SqlValue::Int(record.seq as i64)];
        values.extend(entry_values(&record.entry));
        values.extend([SqlValue::Text(record.prev_hash.clone()), SqlValue::Text(record.hash.clone())]);
        values
    });
    tenant_rows_insert(&format!("audit_events ({AUDIT_COLUMNS})"), tenant, rows)
}

/// The counts a change from state `from` (none for a new operation) to `to` moves, each with its
/// delta, in the order of the states' names, so that two changes lock their rows in one order;
/// `None` when the state did not change.
fn state_moves(from: Option<State>, to: State) -> Option<Vec<(State, i64)>> {
    Some(match from {
        None => vec![(to, 1)],
        Some(from) if from == to => return None,
        Some(from) if from.as_str() < to.as_str() => vec![(from, -1), (to, 1)],
        Some(from) => vec![(to, 1), (from, -1)],
    })
}

/// Moves one operation counted in `stripe` from the count of state `from` (none for a new one) to
/// that of `to`, both among the counts of every hour ([`EVERY_HOUR`]) and among those of
/// `created_hour`, the hour it was created in: one statement (never the same row twice), its rows
/// in the order of their hours and states' names, so that two changes lock their rows in one
/// order; `None` when the state did not change.
pub(super) fn counts_move(
    tenant: &TenantId,
    stripe: i16,
    created_hour: i64,
    from: Option<State>,
    to: State,
) -> Option<QueryText> {
    let moves = state_moves(from, to)?;
    let mut text =
        QueryText::new("insert into hourly_outcomes (tenant, stripe, hour_us, state, operations) values ");
    let values_at = text.sql.len() - "values ".len();
    let tenant = text.param(SqlValue::Text(tenant.as_str().to_owned()));
    let stripe = text.param(SqlValue::Small(stripe));
    let rows = [EVERY_HOUR, created_hour]
        .into_iter()
        .flat_map(|hour| moves.iter().map(move |&(state, delta)| (hour, state, delta)));
    for (i, (hour, state, delta)) in rows.enumerate() {
        let hour = text.param(SqlValue::Int(hour));
        let state = text.param(SqlValue::Text(state.as_str().to_owned()));
        let delta = text.param(SqlValue::Int(delta));
        let separator = if i == 0 { "" } else { ", " };
        text.push(&format!("{separator}({tenant}, {stripe}, {hour}, {state}, {delta})"));
    }
    let mut text = text.rows_from(values_at);
    text.push(
        " on conflict (tenant, hour_us, state, stripe) do update set operations = hourly_outcomes.operations + excluded.operations",
    );
    Some(text)
}

/// Moves one operation counted in `stripe` from the count of its kind and provider in state `from`
/// (none for a new one) to that in `to`: one statement, its rows in the order of the states' names
/// (as [`counts_move`]); `None` when the state did not change.
pub(super) fn kind_counts_move(
    operation: &OperationRecord,
    stripe: i16,
    from: Option<State>,
) -> Option<QueryText> {
    let moves = state_moves(from, operation.snapshot.state)?;
    let mut text = QueryText::new(
        "insert into operation_counts (tenant, kind, provider, state, stripe, operations) values ",
    );
    let rows = text.sql.len() - "values ".len();
    let tenant = text.param(SqlValue::Text(operation.tenant.as_str().to_owned()));
    let kind = text.param(SqlValue::Text(operation.kind.clone()));
    let provider = text.param(SqlValue::Text(operation.provider.clone()));
    let stripe = text.param(SqlValue::Small(stripe));
    for (i, (state, delta)) in moves.into_iter().enumerate() {
        let state = text.param(SqlValue::Text(state.as_str().to_owned()));
        let delta = text.param(SqlValue::Int(delta));
        let separator = if i == 0 { "" } else { ", " };
        text.push(&format!("{separator}({tenant}, {kind}, {provider}, {state}, {stripe}, {delta})"));
    }
    let mut text = text.rows_from(rows);
    text.push(
        " on conflict (tenant, kind, provider, state, stripe) do update set operations = operation_counts.operations + excluded.operations",
    );
    Some(text)
}

/// One event for the outbox: what [`outbox_rows`] writes for every endpoint subscribed to it.
pub(super) struct OutboxEvent {
    pub event_type: String,
    pub stream: String,
    pub position: i64,
    pub payload: serde_json::Value,
    pub at_us: i64,
}

const OUTBOX_COLUMNS: &str =
    "insert into webhook_deliveries (tenant, id, endpoint_id, message_id, event_type, stream, \
    position, payload, created_at_us, next_attempt_at_us) ";

/// The outbox rows of `event`, one per endpoint of the tenant subscribed to its type (none when no
/// endpoint is), each to be delivered from now on; `condition` (on `e`, the endpoint, and whatever
/// `join` adds) narrows them further.
fn outbox_rows(
    tenant: &TenantId,
    event: OutboxEvent,
    join: &str,
    condition: (&str, Vec<SqlValue>),
) -> QueryText {
    let message_id =
        crate::domain::webhook::message_id(tenant.as_str(), &event.stream, event.position, &event.event_type);
    let mut text = QueryText::new(OUTBOX_COLUMNS);
    let values = [
        SqlValue::Text(message_id),
        SqlValue::Text(event.event_type.clone()),
        SqlValue::Text(event.stream),
        SqlValue::Int(event.position),
        SqlValue::Text(event.payload.to_string()),
        SqlValue::Int(event.at_us),
        SqlValue::Text(tenant.as_str().to_owned()),
        SqlValue::Text(crate::domain::webhook::subscribed_pattern(&event.event_type)),
        SqlValue::Text(format!(",{},", crate::domain::webhook::ALL_EVENTS)),
    ];
    let p: Vec<String> = values.into_iter().map(|value| text.param(value)).collect();
    text.push(&format!(
        "select e.tenant, cast({0} as text) || ':' || e.id, e.id, {0}, {1}, {2}, {3}, {4}, {5}, {5} \
         from webhook_endpoints e {join} where e.tenant = {6} and (e.event_types like {7} or e.event_types = {8})",
        p[0], p[1], p[2], p[3], p[4], p[5], p[6], p[7], p[8]
    ));
    let (sql, values) = condition;
    if !sql.is_empty() {
        let mut shifted = shift_params(sql, text.values.len());
        shifted.insert_str(0, " and ");
        text.push(&shifted);
        text.values.extend(values);
    }
    text.where_ends_here()
}

/// The outbox rows of `operation`'s entering its state from `from` (none for a new one) at `at_us`.
pub(super) fn operation_outbox(
    operation: &OperationRecord,
    from: Option<State>,
    at_us: i64,
) -> Option<QueryText> {
    use crate::domain::webhook::{event_type_of, operation_payload, operation_stream};
    if from == Some(operation.snapshot.state) {
        return None;
    }
    let at = time(at_us).ok()?;
    let event = OutboxEvent {
        event_type: event_type_of(operation.snapshot.state),
        stream: operation_stream(operation),
        position: operation.version,
        payload: operation_payload(operation, from, at),
        at_us,
    };
    Some(outbox_rows(&operation.tenant, event, "", ("", Vec::new())))
}

/// What [`activity_upsert`] calls its returned row: the order's tally after the change.
pub(super) const ORDER_TALLY_AFTER: &str = "tally_after";

/// What a statement of a change calls the rows its external id's insert wrote (none when it
/// skipped the id): how the statement tells whether it recorded it.
pub(super) const EXTERNAL_ID_RECORDED: &str = "external_id_recorded";

/// The outbox rows of the order of `operation` falling into partial success with this change,
/// which moved the order's tally by `moved`: written when the tally after the change says partial
/// success and the tally before it (after less the move) did not. `after` names where the tally
/// after the change is read: on PostgreSQL the row [`activity_upsert`] returned in the same
/// statement ([`ORDER_TALLY_AFTER`]), which its row lock ordered after any concurrent change of the
/// same order; on SQLite, whose changes run one at a time, `subject_activity` once it ran.
pub(super) fn partial_success_outbox(
    operation: &OperationRecord,
    moved: OrderTally,
    at_us: i64,
    after: &str,
) -> Option<QueryText> {
    use crate::domain::webhook::{order_stream, partial_success_payload, ORDER_PARTIAL_SUCCESS};
    let at = time(at_us).ok()?;
    let event = OutboxEvent {
        event_type: ORDER_PARTIAL_SUCCESS.to_owned(),
        stream: order_stream(&operation.subject),
        position: at_us,
        payload: partial_success_payload(
            operation.tenant.as_str(),
            &operation.subject,
            operation.op_id.as_str(),
            at,
        ),
        at_us,
    };
    let partial = |u: &str, s: &str, f: &str, g: &str, d: &str| {
        format!("{u} = 0 and {s} = 0 and {f} > 0 and {g} > {d}")
    };
    let now = partial("a.uncertain", "a.unsent", "a.failed_originals", "a.succeeded_originals", "a.undone");
    let before = partial(
        "a.uncertain - $2",
        "a.unsent - $3",
        "a.failed_originals - $4",
        "a.succeeded_originals - $5",
        "a.undone - $6",
    );
    let condition = format!("a.subject = $1 and {now} and not ({before})");
    let values = vec![
        SqlValue::Text(operation.subject.clone()),
        SqlValue::Int(moved.uncertain),
        SqlValue::Int(moved.unsent),
        SqlValue::Int(moved.failed_originals),
        SqlValue::Int(moved.succeeded_originals),
        SqlValue::Int(moved.undone),
    ];
    let join = format!("join {after} a on a.tenant = e.tenant");
    Some(outbox_rows(&operation.tenant, event, &join, (&condition, values)))
}

/// Marks `subject` changed at `at_us` and moves its tally by `tally`, returning the tally after the
/// move (as [`ORDER_TALLY_AFTER`] in a statement of [`QueryText::together`]).
pub(super) fn activity_upsert(tenant: &TenantId, subject: &str, at_us: i64, tally: OrderTally) -> QueryText {
    insert_values(
        "subject_activity (tenant, subject, changed_at_us, uncertain, unsent, failed_originals, succeeded_originals, undone)",
        vec![
            SqlValue::Text(tenant.as_str().to_owned()),
            SqlValue::Text(subject.to_owned()),
            SqlValue::Int(at_us),
            SqlValue::Int(tally.uncertain),
            SqlValue::Int(tally.unsent),
            SqlValue::Int(tally.failed_originals),
            SqlValue::Int(tally.succeeded_originals),
            SqlValue::Int(tally.undone),
        ],
        " on conflict (tenant, subject) do update set changed_at_us = excluded.changed_at_us, \
         uncertain = subject_activity.uncertain + excluded.uncertain, \
         unsent = subject_activity.unsent + excluded.unsent, \
         failed_originals = subject_activity.failed_originals + excluded.failed_originals, \
         succeeded_originals = subject_activity.succeeded_originals + excluded.succeeded_originals, \
         undone = subject_activity.undone + excluded.undone \
         returning tenant, subject, uncertain, unsent, failed_originals, succeeded_originals, undone",
    )
    .named(ORDER_TALLY_AFTER)
}

/// `insert into <into> values (…)` of `values`, each a parameter, then `rest`.
fn insert_values(into: &str, values: Vec<SqlValue>, rest: &str) -> QueryText {
    let mut text = QueryText::new(&format!("insert into {into} values ("));
    let rows = text.sql.len() - "values (".len();
    let placeholders: Vec<String> = values.into_iter().map(|value| text.param(value)).collect();
    text.push(&placeholders.join(", "));
    text.push(")");
    let mut text = text.rows_from(rows);
    text.push(rest);
    text
}

/// The attempt `event` starts, if it does, as its row.
fn started_attempt(
    operation: &OperationRecord,
    change: &OperationChange,
    event: &Event,
) -> Option<AttemptRow> {
    let Event::AttemptStarted { attempt, at: started, .. } = event else { return None };
    Some(AttemptRow {
        number: i64::from(attempt.0),
        idempotency_key: operation.idempotency_key.clone(),
        sent_by: format!("{} ({})", change.actor.name, change.actor.role_label()),
        started_at_us: micros(*started),
        finished_at_us: None,
        outcome: None,
        http_status: None,
        latency_ms: None,
        error: None,
        retry_after_s: None,
        send_budget: change.report.budget.map(|b| i64::from(b.max_sends)),
        deadline_at_us: change.report.budget.map(|b| micros(b.deadline)),
    })
}

/// What `event` writes to the open attempt it finishes, if it finishes one.
struct FinishedAttempt {
    number: u32,
    outcome: String,
    http_status: Option<i64>,
    latency_ms: Option<i64>,
    error: Option<String>,
    retry_after_s: Option<i64>,
}

/// How `event`, reported with `report`, finishes an attempt, if it does.
fn finished_attempt(event: &Event, report: &AttemptReport) -> Option<FinishedAttempt> {
    let (number, outcome, report) = match event {
        Event::AttemptSucceeded { attempt, .. } => (attempt.0, "succeeded", report.clone()),
        Event::AttemptAccepted { attempt, .. } => (attempt.0, "accepted", report.clone()),
        Event::AttemptFailedAtProvider { attempt, reason, .. } => {
            let error = Some(report.error.clone().unwrap_or_else(|| reason.clone()));
            (attempt.0, FailureClass::FailedAtProvider.as_str(), AttemptReport { error, ..report.clone() })
        }
        Event::AttemptFailed { attempt, class } => {
            let mut report = report.clone();
            if let FailureClass::TransientUnavailable { retry_after_s: Some(s) } = class {
                report.retry_after_s.get_or_insert(*s);
            }
            (attempt.0, class.as_str(), report)
        }
        Event::MarkedUnknown { attempt: Some(attempt), reason } => (
            attempt.0,
            "no_report",
            AttemptReport { error: Some(reason.clone()), ..AttemptReport::default() },
        ),
        _ => return None,
    };
    Some(FinishedAttempt {
        number,
        outcome: outcome.to_owned(),
        http_status: report.http_status.map(i64::from),
        latency_ms: report.latency_ms.map(|ms| i64::try_from(ms).unwrap_or(i64::MAX)),
        error: report.error,
        retry_after_s: report.retry_after_s.map(i64::from),
    })
}

/// The external id `event`, reported with `report`, records for its operation, if any.
fn recorded_external_id<'a>(event: &'a Event, report: &'a AttemptReport) -> Option<&'a str> {
    match event {
        Event::AttemptSucceeded { external_id, .. }
        | Event::AttemptAccepted { external_id, .. }
        | Event::AttemptFailedAtProvider { external_id, .. } => {
            external_id.as_deref().or(report.external_id.as_deref())
        }
        Event::FoundDownstream { external_id, .. } | Event::MarkedSucceeded { external_id, .. } => {
            Some(external_id)
        }
        _ => None,
    }
}

/// The external id `event` of `change` records for `operation`, if any, as its row.
fn recorded_ref(
    operation: &OperationRecord,
    change: &OperationChange,
    event: &Event,
) -> Option<ExternalRefRow> {
    recorded_external_id(event, &change.report).map(|external_id| ExternalRefRow {
        provider: operation.provider.clone(),
        ref_type: operation.kind.clone(),
        external_id: external_id.to_owned(),
        recorded_at_us: micros(change.at),
    })
}

/// The statements that project `event`, of a change that `change` describes, onto attempts,
/// external references and approvals: none, one or two, on different tables.
pub(super) fn projection(
    operation: &OperationRecord,
    change: &OperationChange,
    event: &Event,
) -> Vec<QueryText> {
    let at = micros(change.at);
    let tenant = || SqlValue::Text(operation.tenant.as_str().to_owned());
    let op_id = || SqlValue::Text(operation.op_id.as_str().to_owned());
    let mut statements = Vec::new();
    if let Some(row) = started_attempt(operation, change, event) {
        statements.push(insert_values(
            "attempts (tenant, op_id, number, idempotency_key, sent_by, started_at_us, send_budget, deadline_at_us)",
            vec![
                tenant(),
                op_id(),
                SqlValue::Int(row.number),
                SqlValue::Text(row.idempotency_key),
                SqlValue::Text(row.sent_by),
                SqlValue::Int(row.started_at_us),
                SqlValue::MaybeInt(row.send_budget),
                SqlValue::MaybeInt(row.deadline_at_us),
            ],
            "",
        ));
    }
    if let Some(finished) = finished_attempt(event, &change.report) {
        let mut text = QueryText::new("update attempts set finished_at_us = ");
        let values = [
            SqlValue::Int(at),
            SqlValue::Text(finished.outcome),
            SqlValue::MaybeInt(finished.http_status),
            SqlValue::MaybeInt(finished.latency_ms),
            SqlValue::MaybeText(finished.error),
            SqlValue::MaybeInt(finished.retry_after_s),
            tenant(),
            op_id(),
            SqlValue::Int(i64::from(finished.number)),
        ];
        let p: Vec<String> = values.into_iter().map(|value| text.param(value)).collect();
        text.push(&format!(
            "{}, outcome = {}, http_status = {}, latency_ms = {}, error = {}, retry_after_s = {} \
             where tenant = {} and op_id = {} and number = {} and outcome is null",
            p[0], p[1], p[2], p[3], p[4], p[5], p[6], p[7], p[8]
        ));
        statements.push(text.where_ends_here());
    }
    if let Some(row) = recorded_ref(operation, change, event) {
        statements.push(
            insert_values(
                "external_refs (tenant, op_id, provider, ref_type, external_id, recorded_at_us)",
                vec![
                    tenant(),
                    op_id(),
                    SqlValue::Text(row.provider),
                    SqlValue::Text(row.ref_type),
                    SqlValue::Text(row.external_id),
                    SqlValue::Int(row.recorded_at_us),
                ],
                " on conflict (tenant, provider, external_id) do nothing returning op_id",
            )
            .named(EXTERNAL_ID_RECORDED),
        );
    }
    match event {
        Event::ApprovalGranted { approval, reason } => statements.push(insert_values(
            "approvals (tenant, op_id, decision, decided_by, fingerprint, reason, decided_at_us, expires_at_us)",
            vec![
                tenant(),
                op_id(),
                SqlValue::Text("approved".into()),
                SqlValue::Text(approval.approver.clone()),
                SqlValue::Text(approval.fingerprint.as_str().to_owned()),
                SqlValue::Text(reason.clone()),
                SqlValue::Int(micros(approval.granted_at)),
                SqlValue::Int(micros(approval.expires_at)),
            ],
            "",
        )),
        Event::ApprovalDenied { by, reason } => statements.push(insert_values(
            "approvals (tenant, op_id, decision, decided_by, fingerprint, reason, decided_at_us)",
            vec![
                tenant(),
                op_id(),
                SqlValue::Text("denied".into()),
                SqlValue::Text(by.clone()),
                SqlValue::Text(operation.snapshot.fingerprint.as_str().to_owned()),
                SqlValue::Text(reason.clone()),
                SqlValue::Int(at),
            ],
            "",
        )),
        _ => {}
    }
    statements
}

/// What a write answered a change with, known before the write from the same values it binds,
/// but for one thing only the write can tell: whether the external id the change records was
/// written, which the write skips when an operation of the tenant (this one included) already
/// holds it.
pub(super) struct AnswerBeforeWrite {
    known: AttemptsAndRefs,
    external_ref: Option<ExternalRef>,
}

impl AnswerBeforeWrite {
    /// The attempts and external ids once written, given whether the write recorded the change's
    /// external id; `None` when that matters and the write could not tell.
    pub(super) fn given(self, external_id_recorded: Option<bool>) -> Option<AttemptsAndRefs> {
        let AnswerBeforeWrite { mut known, external_ref } = self;
        match (external_ref, external_id_recorded) {
            (None, _) | (Some(_), Some(false)) => Some(known),
            (Some(recorded), Some(true)) => {
                let later = |held: &ExternalRef| {
                    (held.recorded_at, held.external_id.as_bytes())
                        > (recorded.recorded_at, recorded.external_id.as_bytes())
                };
                let at = known.external_refs.iter().position(later).unwrap_or(known.external_refs.len());
                known.external_refs.insert(at, recorded);
                Some(known)
            }
            (Some(_), None) => None,
        }
    }
}

/// The attempts and external ids of `operation` once `change` is written, from `before`, those it
/// had when the change was decided: what a read just after the write finds, built from the same
/// values the write binds. `None` when the change records more than one external id, which only a
/// read can tell apart.
pub(super) fn attempts_and_refs_after(
    operation: &OperationRecord,
    change: &OperationChange,
    before: AttemptsAndRefs,
) -> Result<Option<AnswerBeforeWrite>, StoreError> {
    let AttemptsAndRefs { mut attempts, external_refs } = before;
    let mut external_ref = None;
    for event in &change.events {
        if let Some(row) = recorded_ref(operation, change, event) {
            if external_ref.is_some() {
                return Ok(None);
            }
            external_ref = Some(row.into_record()?);
        }
        if let Some(row) = started_attempt(operation, change, event) {
            attempts.push(row.into_record()?);
        }
        if let Some(finished) = finished_attempt(event, &change.report) {
            let open = attempts.iter_mut().find(|a| a.number == finished.number && a.outcome.is_none());
            if let Some(open) = open {
                open.finished_at = Some(time(micros(change.at))?);
                open.outcome = Some(finished.outcome);
                open.http_status = narrow(finished.http_status, "http status")?;
                open.latency_ms = narrow(finished.latency_ms, "latency")?;
                open.error = finished.error;
                open.retry_after_s = narrow(finished.retry_after_s, "retry-after")?;
            }
        }
    }
    Ok(Some(AnswerBeforeWrite { known: AttemptsAndRefs { attempts, external_refs }, external_ref }))
}

/// Counts `operation`, settled at `at_us`, in the hour of `at_us` and the bucket of
/// [`SETTLE_BOUNDS_S`](crate::domain::operation::SETTLE_BOUNDS_S) of the time since it became
/// unknown, as its row says before the change's update (which leaves that time as it was); nothing
/// when it never was unknown.
pub(super) fn settle_time_count(operation: &OperationRecord, at_us: i64, stripe: i16) -> QueryText {
    let mut text =
        QueryText::new("insert into settle_times (tenant, hour_us, bucket, stripe, operations) select ");
    let tenant = text.param(SqlValue::Text(operation.tenant.as_str().to_owned()));
    let hour = text.param(SqlValue::Int(hour_of(at_us)));
    let at = text.param(SqlValue::Int(at_us));
    let stripe = text.param(SqlValue::Small(stripe));
    let op_id = text.param(SqlValue::Text(operation.op_id.as_str().to_owned()));
    let bucket = settle_bucket(&format!("({at} - o.unknown_since_us) / 1000000"));
    text.push(&format!(
        "{tenant}, {hour}, {bucket}, {stripe}, 1 from operations o \
         where o.tenant = {tenant} and o.op_id = {op_id} and o.unknown_since_us is not null"
    ));
    let mut text = text.where_ends_here();
    text.push(" on conflict (tenant, hour_us, bucket, stripe) do update set operations = settle_times.operations + 1");
    text
}

/// Which bucket of [`SETTLE_BOUNDS_S`](crate::domain::operation::SETTLE_BOUNDS_S) a time to
/// settle of `seconds` (an SQL expression) falls into, as an SQL `smallint`.
fn settle_bucket(seconds: &str) -> String {
    let bounds = crate::domain::operation::SETTLE_BOUNDS_S;
    let whens: String = bounds
        .iter()
        .enumerate()
        .map(|(bucket, bound)| format!("when {seconds} < {bound} then {bucket} "))
        .collect();
    format!("cast(case {whens}else {} end as smallint)", bounds.len())
}

/// The condition on `subject_activity` of [`OrderTally::needs_attention`](crate::domain::rollup::OrderTally::needs_attention),
/// written as the partial index `subject_activity_attention` (migration 0027) is, so that the
/// planner reads that index.
pub(super) const NEEDS_ATTENTION: &str =
    "and (uncertain > 0 or (unsent = 0 and failed_originals > 0 and succeeded_originals > undone)) ";

pub(super) const LIST_COLUMNS: &str =
    "op_id, kind, subject, provider, state, amount_minor, amount_currency, \
    last_attempt, compensates, failure_reason, retry_of, created_at_us, updated_at_us";

/// `columns` of up to `limit` operations in `state`, the longest unchanged first: one index range.
fn in_state_by_age(columns: &str, tenant: &TenantId, state: State, limit: u32) -> QueryText {
    let mut text = QueryText::new(&format!("select {columns} from operations where tenant = "));
    let tenant = text.param(SqlValue::Text(tenant.as_str().to_owned()));
    let state = text.param(SqlValue::Text(state.as_str().to_owned()));
    text.push(&format!("{tenant} and state = {state} order by updated_at_us limit {limit}"));
    text
}

/// Up to `limit` operations in `state`, the longest unchanged first.
pub(super) fn state_by_age_query(tenant: &TenantId, state: State, limit: u32) -> QueryText {
    in_state_by_age(LIST_COLUMNS, tenant, state, limit)
}

/// When each of up to `limit` operations in `state` last changed, the longest unchanged first.
pub(super) fn changed_at_query(tenant: &TenantId, state: State, limit: u32) -> QueryText {
    in_state_by_age("updated_at_us", tenant, state, limit)
}

/// The most recently changed subjects, only those needing attention when `attention_only`.
pub(super) fn subjects_activity_query(tenant: &TenantId, attention_only: bool, limit: u32) -> QueryText {
    let mut text = QueryText::new("select subject from subject_activity where tenant = ");
    let tenant = text.param(SqlValue::Text(tenant.as_str().to_owned()));
    let filter = if attention_only { NEEDS_ATTENTION } else { "" };
    text.push(&format!("{tenant} {filter}order by changed_at_us desc, subject desc limit {limit}"));
    text
}

/// The operations of `subjects`, in no particular order: sorting them in the query would let a
/// planner without statistics read every operation of the tenant in order of creation instead of
/// each order's few; external ids are filled in afterwards.
pub(super) fn subjects_query(tenant: &TenantId, subjects: &[String]) -> QueryText {
    in_list(&format!("select {LIST_COLUMNS} from operations"), tenant, "subject", subjects, "")
}

/// One combination of the list's chosen values: a state, a kind and a provider, each or none.
type Branch<'a> = (Option<State>, Option<&'a str>, Option<&'a str>);

/// Every combination of the values `query` chose for its state, kind and provider.
pub(super) fn branches_of(query: &OperationQuery) -> Vec<Branch<'_>> {
    fn any_or<T: Copy>(values: Vec<T>) -> Vec<Option<T>> {
        if values.is_empty() {
            vec![None]
        } else {
            values.into_iter().map(Some).collect()
        }
    }
    let states = any_or(query.states.clone());
    let kinds = any_or(query.kinds.iter().map(String::as_str).collect());
    let providers = any_or(query.providers.iter().map(String::as_str).collect());
    let mut branches = Vec::with_capacity(states.len() * kinds.len() * providers.len());
    for state in &states {
        for kind in &kinds {
            for provider in &providers {
                branches.push((*state, *kind, *provider));
            }
        }
    }
    branches
}

/// The operations list for `query`, newest first; external ids are filled in afterwards. With
/// one value (or none) per filter it is one index range; with several, each combination of
/// values is its own index range of at most `limit` rows, and only those are merged in order.
pub(super) fn list_query(tenant: &TenantId, query: &OperationQuery) -> QueryText {
    let branches = branches_of(query);
    let mut text = QueryText::new("");
    let tenant = text.param(SqlValue::Text(tenant.as_str().to_owned()));
    if let [only] = branches.as_slice() {
        list_branch(&mut text, &tenant, query, *only);
        return text;
    }
    text.push("select * from (");
    for (at, branch) in branches.iter().enumerate() {
        text.push(if at == 0 { "select * from (" } else { " union all select * from (" });
        list_branch(&mut text, &tenant, query, *branch);
        text.push(&format!(") as branch_{at}"));
    }
    let limit = text.param(SqlValue::Int(i64::from(query.limit)));
    text.push(&format!(") as branches order by created_at_us desc, op_id desc limit {limit}"));
    text
}

/// One index range of the list: the rows of `tenant` (a placeholder) matching `query`'s other
/// filters and the one state, kind and provider of `branch`.
fn list_branch(text: &mut QueryText, tenant: &str, query: &OperationQuery, branch: Branch<'_>) {
    let (state, kind, provider) = branch;
    text.push(&format!("select {LIST_COLUMNS} from operations where tenant = {tenant}"));
    let exact = [
        ("state", state.map(|s| s.as_str().to_owned())),
        ("kind", kind.map(str::to_owned)),
        ("provider", provider.map(str::to_owned)),
        ("subject", query.subject.clone()),
    ];
    // A search finds a few rows by their keys, then filters and sorts them: its filters and its
    // order compare expressions (`column || ''`, `column + 0`, in both engines' SQL) so that no
    // other index can be chosen, or a planner without statistics could walk a filter's whole
    // range, or the whole list, testing each row against the search.
    let searching = query.search.is_some();
    let text_column = |column: &str| if searching { format!("{column} || ''") } else { column.to_owned() };
    let created = if searching { "created_at_us + 0" } else { "created_at_us" };
    for (column, value) in exact {
        if let Some(value) = value {
            let p = text.param(SqlValue::Text(value));
            text.push(&format!(" and {} = {p}", text_column(column)));
        }
    }
    if let Some(from) = query.created_from {
        let p = text.param(SqlValue::Int(micros(from)));
        text.push(&format!(" and {created} >= {p}"));
    }
    if let Some(before) = query.created_before {
        let p = text.param(SqlValue::Int(micros(before)));
        text.push(&format!(" and {created} < {p}"));
    }
    if let Some(search) = &query.search {
        let a = text.param(SqlValue::Text(search.clone()));
        let b = text.param(SqlValue::Text(search.clone()));
        // Two index lookups (the operation's key, the external id's index), never a scan of the list.
        text.push(&format!(
            " and op_id in (select {a} union all select op_id from external_refs where tenant = {tenant} and external_id = {b})"
        ));
    }
    if let Some((created, op_id)) = &query.after {
        let c = text.param(SqlValue::Int(micros(*created)));
        let o = text.param(SqlValue::Text(op_id.as_str().to_owned()));
        text.push(&format!(" and (created_at_us, op_id) < ({c}, {o})"));
    }
    let limit = text.param(SqlValue::Int(i64::from(query.limit)));
    text.push(&format!(" order by {created} desc, {} desc limit {limit}", text_column("op_id")));
}

/// One page of audit events for `query`, by `seq` in the direction it asks.
pub(super) fn audit_query(tenant: &TenantId, query: &AuditQuery) -> QueryText {
    let mut text = QueryText::new(&format!("select {AUDIT_COLUMNS} from audit_events where tenant = "));
    let tenant = text.param(SqlValue::Text(tenant.as_str().to_owned()));
    text.push(&tenant);
    for (column, value) in [("actor", &query.actor), ("op_id", &query.op_id)] {
        if let Some(value) = value {
            let p = text.param(SqlValue::Text(value.clone()));
            text.push(&format!(" and {column} = {p}"));
        }
    }
    if !query.actions.is_empty() {
        let actions: Vec<String> =
            query.actions.iter().map(|action| text.param(SqlValue::Text(action.clone()))).collect();
        text.push(&format!(" and action in ({})", actions.join(", ")));
    }
    if let Some(subject) = &query.subject {
        let p = text.param(SqlValue::Text(subject.clone()));
        text.push(&format!(
            " and op_id in (select op_id from operations where tenant = {tenant} and subject = {p})"
        ));
    }
    for (condition, at) in [("at_us >=", query.at_from), ("at_us <", query.at_before)] {
        if let Some(at) = at {
            let p = text.param(SqlValue::Int(micros(at)));
            text.push(&format!(" and {condition} {p}"));
        }
    }
    for (condition, seq) in [("seq <", query.before_seq), ("seq >", query.after_seq)] {
        if let Some(seq) = seq {
            let p = text.param(SqlValue::Int(i64::try_from(seq).unwrap_or(i64::MAX)));
            text.push(&format!(" and {condition} {p}"));
        }
    }
    let limit = text.param(SqlValue::Int(i64::from(query.limit)));
    let order = if query.oldest_first { "asc" } else { "desc" };
    text.push(&format!(" order by seq {order} limit {limit}"));
    text
}

/// [`audit_query`]'s page as JSON Lines written by SQLite (its `json_object` and `string_agg`), each
/// line as `serde_json` writes an [`AuditRecord`]: the same keys in the same order, the time in
/// RFC 3339 with microseconds, the evidence as the JSON it is stored as. SQLite alone.
pub(super) fn audit_json_lines_query(tenant: &TenantId, query: &AuditQuery) -> QueryText {
    let page = audit_query(tenant, query);
    let line = "json_object('seq', seq, 'at', strftime('%Y-%m-%dT%H:%M:%S', at_us / 1000000, 'unixepoch') || '.' || \
        printf('%06d', at_us % 1000000) || 'Z', 'tenant', tenant, 'actor', actor, 'role', role, 'action', action, \
        'op_id', op_id, 'from_state', from_state, 'to_state', to_state, 'reason', reason, 'evidence', json(evidence), \
        'prev_hash', prev_hash, 'hash', hash)";
    QueryText {
        sql: format!(
            "select string_agg({line}, char(10) order by seq), max(seq) from ({}) as page",
            page.sql
        ),
        values: page.values,
        name: None,
        opening: Opening::None,
    }
}

/// An attempt with the op id it belongs to.
#[derive(sqlx::FromRow)]
pub(super) struct AttemptOfRow {
    pub op_id: String,
    #[sqlx(flatten)]
    pub attempt: AttemptRow,
}

/// `select … where tenant = $1 and <column> in ($2, $3, …)` for a list of values.
pub(super) fn in_list(
    select: &str,
    tenant: &TenantId,
    column: &str,
    values: &[String],
    order: &str,
) -> QueryText {
    let mut text = QueryText::new(select);
    let tenant = text.param(SqlValue::Text(tenant.as_str().to_owned()));
    let placeholders: Vec<String> = values.iter().map(|v| text.param(SqlValue::Text(v.clone()))).collect();
    text.push(&format!(" where tenant = {tenant} and {column} in ({}) {order}", placeholders.join(", ")));
    text
}

#[derive(sqlx::FromRow)]
pub(super) struct ListRow {
    op_id: String,
    kind: String,
    subject: String,
    provider: String,
    state: String,
    amount_minor: Option<i64>,
    amount_currency: Option<String>,
    last_attempt: Option<i64>,
    compensates: Option<String>,
    failure_reason: Option<String>,
    retry_of: Option<String>,
    created_at_us: i64,
    updated_at_us: i64,
}

impl ListRow {
    pub(super) fn into_item(self) -> Result<OperationListItem, StoreError> {
        let amount = match (self.amount_minor, self.amount_currency) {
            (Some(minor), Some(currency)) => Some(Money::new(
                minor,
                Currency::parse(&currency).map_err(|e| corrupt("currency")(e.to_string()))?,
            )),
            _ => None,
        };
        Ok(OperationListItem {
            op_id: OpId::parse(&self.op_id).map_err(|e| corrupt("op_id")(e.to_string()))?,
            kind: self.kind,
            subject: self.subject,
            provider: self.provider,
            state: State::parse(&self.state).ok_or_else(|| corrupt("state")(self.state.clone()))?,
            amount,
            attempts: self
                .last_attempt
                .map_or(Ok(0), |n| u32::try_from(n).map_err(|e| corrupt("attempts")(e.to_string())))?,
            external_ids: Vec::new(),
            compensates: self
                .compensates
                .map(|c| OpId::parse(&c).map_err(|e| corrupt("compensates")(e.to_string())))
                .transpose()?,
            failure_reason: self.failure_reason,
            retry_of: self
                .retry_of
                .map(|r| OpId::parse(&r).map_err(|e| corrupt("retry_of")(e.to_string())))
                .transpose()?,
            created_at: time(self.created_at_us)?,
            updated_at: time(self.updated_at_us)?,
        })
    }
}

#[derive(sqlx::FromRow)]
pub(super) struct UserRow {
    id: String,
    tenant: String,
    name: String,
    role: String,
    password_hash: String,
    created_at_us: i64,
    language: Option<String>,
}

/// The columns a new user is inserted with; [`USER_COLUMNS`] reads them back with the language.
pub(super) const NEW_USER_COLUMNS: &str = "id, tenant, name, role, password_hash, created_at_us";
pub(super) const USER_COLUMNS: &str = "id, tenant, name, role, password_hash, created_at_us, language";

impl UserRow {
    pub(super) fn into_record(self) -> Result<UserRecord, StoreError> {
        Ok(UserRecord {
            id: self.id,
            tenant: TenantId::parse(&self.tenant).map_err(|e| corrupt("tenant")(e.to_string()))?,
            name: self.name,
            role: Role::parse(&self.role).ok_or_else(|| corrupt("role")(self.role.clone()))?,
            password_hash: self.password_hash,
            created_at: time(self.created_at_us)?,
            language: self.language.as_deref().and_then(Language::parse),
        })
    }
}

#[derive(sqlx::FromRow)]
pub(super) struct ApprovalRuleRow {
    id: String,
    kind: String,
    provider: Option<String>,
    threshold_minor: Option<i64>,
    threshold_currency: Option<String>,
    created_by: String,
    created_at_us: i64,
}

pub(super) const APPROVAL_RULE_COLUMNS: &str =
    "id, kind, provider, threshold_minor, threshold_currency, created_by, created_at_us";

impl ApprovalRuleRow {
    pub(super) fn into_record(self) -> Result<ApprovalRuleRecord, StoreError> {
        let threshold = match (self.threshold_minor, self.threshold_currency) {
            (Some(minor), Some(currency)) => Some(Money::new(
                minor,
                Currency::parse(&currency).map_err(|e| corrupt("threshold_currency")(e.to_string()))?,
            )),
            _ => None,
        };
        Ok(ApprovalRuleRecord {
            id: self.id,
            rule: ApprovalRule { kind: self.kind, provider: self.provider, threshold },
            created_by: self.created_by,
            created_at: time(self.created_at_us)?,
        })
    }
}

#[derive(sqlx::FromRow)]
pub(super) struct ProviderConnectionRow {
    tenant: String,
    name: String,
    kind: String,
    base_url: String,
    sealed_secret: String,
    secret_last4: String,
    updated_by: String,
    updated_at_us: i64,
    account: Option<String>,
    key_retention_s: Option<i64>,
    sealed_webhook_secret: Option<String>,
    description: Option<String>,
}

/// The columns a connection is written with; it is read with its webhook signing secret besides
/// ([`PROVIDER_CONNECTION_READ`]).
pub(super) const PROVIDER_CONNECTION_COLUMNS: &str =
    "tenant, name, kind, base_url, sealed_secret, secret_last4, updated_by, updated_at_us, account, key_retention_s, description";

pub(super) const PROVIDER_CONNECTION_READ: &str =
    "tenant, name, kind, base_url, sealed_secret, secret_last4, \
    updated_by, updated_at_us, account, key_retention_s, sealed_webhook_secret, description";

impl ProviderConnectionRow {
    pub(super) fn into_record(self) -> Result<ProviderConnectionRecord, StoreError> {
        Ok(ProviderConnectionRecord {
            tenant: TenantId::parse(&self.tenant).map_err(|e| corrupt("tenant")(e.to_string()))?,
            kind: ProviderKind::parse(&self.kind).ok_or_else(|| corrupt("kind")(self.kind.clone()))?,
            name: self.name,
            base_url: self.base_url,
            sealed_secret: self.sealed_secret,
            secret_last4: self.secret_last4,
            updated_by: self.updated_by,
            updated_at: time(self.updated_at_us)?,
            account: self.account,
            key_retention: self.key_retention_s.map(chrono::Duration::seconds),
            sealed_webhook_secret: self.sealed_webhook_secret,
            description: self.description,
        })
    }
}

#[derive(sqlx::FromRow)]
pub(super) struct EmailTemplateRow {
    tenant: String,
    name: String,
    subject: String,
    body: String,
    updated_by: String,
    updated_at_us: i64,
}

impl EmailTemplateRow {
    pub(super) fn into_record(self) -> Result<EmailTemplateRecord, StoreError> {
        Ok(EmailTemplateRecord {
            tenant: TenantId::parse(&self.tenant).map_err(|e| corrupt("tenant")(e.to_string()))?,
            template: crate::domain::email::EmailTemplate {
                name: self.name,
                subject: self.subject,
                body: self.body,
            },
            updated_by: self.updated_by,
            updated_at: time(self.updated_at_us)?,
        })
    }
}

#[derive(sqlx::FromRow)]
pub(super) struct WebhookEndpointRow {
    tenant: String,
    id: String,
    url: String,
    event_types: String,
    sealed_secret: String,
    created_by: String,
    created_at_us: i64,
}

pub(super) const WEBHOOK_ENDPOINT_COLUMNS: &str =
    "tenant, id, url, event_types, sealed_secret, created_by, created_at_us";

impl WebhookEndpointRow {
    pub(super) fn into_record(self) -> Result<WebhookEndpointRecord, StoreError> {
        Ok(WebhookEndpointRecord {
            tenant: TenantId::parse(&self.tenant).map_err(|e| corrupt("tenant")(e.to_string()))?,
            id: self.id,
            url: self.url,
            event_types: crate::domain::webhook::read_event_types(&self.event_types),
            sealed_secret: self.sealed_secret,
            created_by: self.created_by,
            created_at: time(self.created_at_us)?,
        })
    }
}

#[derive(sqlx::FromRow)]
pub(super) struct WebhookDeliveryRow {
    tenant: String,
    id: String,
    endpoint_id: String,
    message_id: String,
    event_type: String,
    payload: String,
    created_at_us: i64,
    status: String,
    attempts: i32,
    next_attempt_at_us: i64,
    last_attempt_at_us: Option<i64>,
    last_status: Option<i32>,
    last_error: Option<String>,
}

pub(super) const WEBHOOK_DELIVERY_COLUMNS: &str =
    "tenant, id, endpoint_id, message_id, event_type, payload, \
    created_at_us, status, attempts, next_attempt_at_us, last_attempt_at_us, last_status, last_error";

impl WebhookDeliveryRow {
    pub(super) fn into_record(self) -> Result<WebhookDeliveryRecord, StoreError> {
        Ok(WebhookDeliveryRecord {
            tenant: TenantId::parse(&self.tenant).map_err(|e| corrupt("tenant")(e.to_string()))?,
            status: DeliveryStatus::parse(&self.status)
                .ok_or_else(|| corrupt("status")(self.status.clone()))?,
            id: self.id,
            endpoint_id: self.endpoint_id,
            message_id: self.message_id,
            event_type: self.event_type,
            payload: self.payload,
            created_at: time(self.created_at_us)?,
            attempts: u32::try_from(self.attempts).map_err(|e| corrupt("attempts")(e.to_string()))?,
            next_attempt_at: time(self.next_attempt_at_us)?,
            last_attempt_at: self.last_attempt_at_us.map(time).transpose()?,
            last_status: self.last_status.and_then(|status| u16::try_from(status).ok()),
            last_error: self.last_error,
        })
    }
}

#[derive(sqlx::FromRow)]
pub(super) struct BulkItemRow {
    position: i64,
    op_id: String,
    outcome: Option<String>,
    message: Option<String>,
}

impl BulkItemRow {
    pub(super) fn into_record(self) -> Result<BulkItemRecord, StoreError> {
        Ok(BulkItemRecord {
            position: u32::try_from(self.position).map_err(|e| corrupt("position")(e.to_string()))?,
            op_id: self.op_id,
            outcome: self.outcome,
            message: self.message,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use sqlx::sqlite::SqlitePoolOptions;

    /// SQLite's plan for the operations list with `query`: each step's description.
    async fn plan(pool: &sqlx::SqlitePool, query: &OperationQuery) -> Vec<String> {
        plan_of(pool, list_query(&TenantId::parse("acme").unwrap(), query)).await
    }

    /// SQLite's plan for `text`: each step's description.
    async fn plan_of(pool: &sqlx::SqlitePool, text: QueryText) -> Vec<String> {
        let sql = format!("explain query plan {}", text.sql);
        let explain = sqlx::query_as_with::<_, (i64, i64, i64, String), _>(
            &sql,
            arguments::<sqlx::Sqlite>(text.values).unwrap(),
        );
        explain.fetch_all(pool).await.unwrap().into_iter().map(|row| row.3).collect()
    }

    #[tokio::test]
    async fn every_filter_alone_and_every_pair_reads_one_index_range_in_the_lists_order() {
        let pool = SqlitePoolOptions::new().max_connections(1).connect("sqlite::memory:").await.unwrap();
        sqlx::migrate!("migrations/sqlite").run(&pool).await.unwrap();
        let filters: [(&str, fn(&mut OperationQuery)); 4] = [
            ("state", |q| q.states = vec![State::Unknown]),
            ("kind", |q| q.kinds = vec!["refund".into()]),
            ("provider", |q| q.providers = vec!["stripe".into()]),
            ("subject", |q| q.subject = Some("order:1043".into())),
        ];
        // Each query with the columns its index range must be bounded by: every filter, or the
        // subject alone (one order's few operations) when the subject is one of them.
        let mut queries = vec![(Vec::new(), OperationQuery { limit: 51, ..OperationQuery::default() })];
        for (i, (first, set_first)) in filters.iter().enumerate() {
            let mut alone = OperationQuery { limit: 51, ..OperationQuery::default() };
            set_first(&mut alone);
            queries.push((vec![*first], alone.clone()));
            for (second, set_second) in &filters[i + 1..] {
                let mut pair = alone.clone();
                set_second(&mut pair);
                let bounds = if *second == "subject" { vec!["subject"] } else { vec![*first, *second] };
                queries.push((bounds, pair));
            }
        }
        let later_pages: Vec<_> = queries
            .iter()
            .map(|(bounds, query)| {
                let mut later = query.clone();
                later.after = Some((
                    DateTime::from_timestamp(1_700_000_000, 0).unwrap(),
                    OpId::parse("refund-1-li_1").unwrap(),
                ));
                later.created_from = DateTime::from_timestamp(1_600_000_000, 0);
                (bounds.clone(), later)
            })
            .collect();
        queries.extend(later_pages);
        for (bounds, query) in queries {
            let steps = plan(&pool, &query).await;
            let search = steps.iter().find(|step| step.starts_with("SEARCH operations USING INDEX"));
            let search =
                search.unwrap_or_else(|| panic!("{query:?}: the list is read from an index: {steps:?}"));
            for column in bounds {
                assert!(
                    search.contains(&format!("{column}=?")),
                    "{query:?}: the range is bounded by {column}: {steps:?}"
                );
            }
            assert!(
                steps
                    .iter()
                    .all(|step| !step.starts_with("SCAN operations") && !step.contains("TEMP B-TREE")),
                "{query:?}: no scan and no sort of the rows the filters match: {steps:?}"
            );
        }
        let several = OperationQuery {
            limit: 51,
            states: vec![State::Unknown, State::NeedsReview],
            kinds: vec!["refund".into()],
            ..OperationQuery::default()
        };
        let steps = plan(&pool, &several).await;
        let ranges: Vec<&String> =
            steps.iter().filter(|step| step.contains("SEARCH operations USING INDEX")).collect();
        assert_eq!(ranges.len(), 2, "one index range per state: {steps:?}");
        assert!(
            ranges.iter().all(|step| step.contains("state=?") && step.contains("kind=?")),
            "each range is bounded by its state and the kind: {steps:?}"
        );
        assert!(steps.iter().all(|step| !step.starts_with("SCAN operations")), "no scan: {steps:?}");
        let search = OperationQuery { limit: 51, search: Some("re_1".into()), ..OperationQuery::default() };
        let mut with_state = search.clone();
        with_state.states = vec![State::Succeeded];
        for query in [search, with_state] {
            let steps = plan(&pool, &query).await;
            let operations: Vec<&String> =
                steps.iter().filter(|step| step.contains(" operations ")).collect();
            assert!(
                !operations.is_empty() && operations.iter().all(|step| step.contains("op_id=?")),
                "a search reads the operations it found by their keys, not the list: {steps:?}"
            );
        }
    }

    #[tokio::test]
    async fn the_operations_of_several_orders_are_read_through_their_subjects() {
        let pool = SqlitePoolOptions::new().max_connections(1).connect("sqlite::memory:").await.unwrap();
        sqlx::migrate!("migrations/sqlite").run(&pool).await.unwrap();
        let subjects = ["order:1043".to_owned(), "order:1051".to_owned()];
        let steps = plan_of(&pool, subjects_query(&TenantId::parse("acme").unwrap(), &subjects)).await;
        assert!(
            steps.iter().any(|step| step
                .starts_with("SEARCH operations USING INDEX operations_by_subject (tenant=? AND subject=?)")),
            "each order's few operations, not the tenant's in order of creation: {steps:?}"
        );
        assert!(steps.iter().all(|step| !step.starts_with("SCAN operations")), "{steps:?}");
    }

    #[test]
    fn statements_together_number_their_parameters_on() {
        let statement = |sql: &str, values: &[i64]| QueryText {
            sql: sql.to_owned(),
            values: values.iter().map(|v| SqlValue::Int(*v)).collect(),
            name: None,
            opening: Opening::None,
        };
        let joined = QueryText::together(vec![
            statement("insert into a values ($1, $2, $1)", &[1, 2]),
            statement("insert into b values ($1)", &[3]),
            statement("update c set x = $2 where y = $1", &[4, 5]),
        ])
        .unwrap();
        assert_eq!(
            joined.sql,
            "with part0 as (insert into a values ($1, $2, $1)), part1 as (insert into b values ($3)) \
             update c set x = $5 where y = $4"
        );
        let values: Vec<i64> =
            joined.values.iter().map(|v| if let SqlValue::Int(v) = v { *v } else { 0 }).collect();
        assert_eq!(values, [1, 2, 3, 4, 5]);
        assert_eq!(
            QueryText::together(vec![statement("delete from d where e = $1", &[6])]).unwrap().sql,
            "delete from d where e = $1"
        );
        assert!(QueryText::together(Vec::new()).is_none());
        let read_back = QueryText::together(vec![
            statement("update f set n = n + $1 returning n", &[1]).named("after"),
            statement("insert into g select n from after where n > $1", &[2]),
        ])
        .unwrap();
        assert_eq!(
            read_back.sql,
            "with after as (update f set n = n + $1 returning n) insert into g select n from after where n > $2"
        );
    }

    #[tokio::test]
    async fn statements_in_order_run_one_after_the_other_in_one_call() {
        let pool = SqlitePoolOptions::new().max_connections(1).connect("sqlite::memory:").await.unwrap();
        sqlx::query("create table t (n integer)").execute(&pool).await.unwrap();
        let statement = |sql: &str, values: &[i64]| QueryText {
            sql: sql.to_owned(),
            values: values.iter().map(|v| SqlValue::Int(*v)).collect(),
            name: None,
            opening: Opening::None,
        };
        let joined = QueryText::in_order(vec![
            statement("insert into t values ($1), ($2)", &[1, 2]),
            statement("update t set n = n * $1 where n = $2", &[10, 2]),
            statement("insert into t select max(n) + $1 from t", &[1]),
        ])
        .unwrap();
        assert_eq!(
            joined.sql,
            "insert into t values ($1), ($2); update t set n = n * $3 where n = $4; insert into t select max(n) + $5 from t"
        );
        sqlx::query_with(&joined.sql, arguments::<sqlx::Sqlite>(joined.values).unwrap())
            .execute(&pool)
            .await
            .unwrap();
        let rows: Vec<i64> = sqlx::query_scalar("select n from t order by n").fetch_all(&pool).await.unwrap();
        assert_eq!(rows, [1, 20, 21], "each statement saw the one before it");
        assert!(QueryText::in_order(Vec::new()).is_none());
    }

    #[test]
    fn a_write_made_conditional_takes_its_condition_in_its_own_place() {
        let rows = insert_values(
            "t (a, b)",
            vec![SqlValue::Int(1), SqlValue::Int(2)],
            " on conflict (a) do nothing",
        );
        assert_eq!(
            rows.only_if("exists (select from w)").sql,
            "insert into t (a, b) select * from (values ($1, $2)) as v where exists (select from w) on conflict (a) do nothing"
        );
        let acme = TenantId::parse("acme").unwrap();
        let answer = RequestAnswer { key: "k".into(), requested_by: "kai".into(), answer: "{}".into() };
        let conditioned = answer_update(&acme, &answer).only_if("c");
        assert!(conditioned.sql.ends_with("and requested_by = $5 and c"), "{}", conditioned.sql);
        assert_eq!(conditioned.values.len(), 5);
    }

    #[tokio::test]
    async fn times_to_settle_fall_into_their_buckets() {
        let pool = SqlitePoolOptions::new().max_connections(1).connect("sqlite::memory:").await.unwrap();
        let mut buckets = Vec::new();
        for seconds in [0, 59, 60, 299, 300, 7199, 7200, 86_400] {
            let bucket: i16 = sqlx::query_scalar(&format!("select {}", settle_bucket("$1")))
                .bind(seconds)
                .fetch_one(&pool)
                .await
                .unwrap();
            buckets.push(bucket);
        }
        assert_eq!(buckets, [0, 0, 1, 1, 2, 3, 4, 4]);
    }

    #[test]
    #[should_panic(expected = "no place for a condition")]
    fn a_statement_without_a_place_for_a_condition_is_refused() {
        QueryText::new("select 1").only_if("c");
    }

    #[tokio::test]
    async fn the_orders_needing_attention_and_the_ages_of_a_state_are_read_from_their_indexes() {
        let pool = SqlitePoolOptions::new().max_connections(1).connect("sqlite::memory:").await.unwrap();
        sqlx::migrate!("migrations/sqlite").run(&pool).await.unwrap();
        let acme = TenantId::parse("acme").unwrap();
        let steps = plan_of(&pool, subjects_activity_query(&acme, true, 100)).await;
        assert_eq!(
            steps,
            ["SEARCH subject_activity USING INDEX subject_activity_attention (tenant=?)"],
            "only the orders whose tally needs attention, in order of change, without a sort"
        );
        let steps = plan_of(&pool, subjects_activity_query(&acme, false, 100)).await;
        assert_eq!(
            steps,
            ["SEARCH subject_activity USING COVERING INDEX subject_activity_changed (tenant=?)"]
        );
        let steps = plan_of(&pool, changed_at_query(&acme, State::Unknown, 500)).await;
        assert_eq!(
            steps,
            ["SEARCH operations USING COVERING INDEX operations_by_state_changed (tenant=? AND state=?)"]
        );
    }

    #[tokio::test]
    async fn the_longest_unchanged_of_a_state_are_one_index_range() {
        let pool = SqlitePoolOptions::new().max_connections(1).connect("sqlite::memory:").await.unwrap();
        sqlx::migrate!("migrations/sqlite").run(&pool).await.unwrap();
        let steps =
            plan_of(&pool, state_by_age_query(&TenantId::parse("acme").unwrap(), State::Unknown, 500)).await;
        assert_eq!(
            steps,
            ["SEARCH operations USING INDEX operations_by_state_changed (tenant=? AND state=?)"],
            "no walk through other states' operations and no sort"
        );
    }

    #[test]
    fn an_answer_takes_the_external_id_only_when_the_write_says_it_recorded_it() {
        let at = |second| DateTime::from_timestamp(second, 0).unwrap();
        let external_ref = |id: &str, second| ExternalRef {
            provider: "stripe".into(),
            ref_type: "refund".into(),
            external_id: id.into(),
            recorded_at: at(second),
        };
        let held = AttemptsAndRefs {
            attempts: Vec::new(),
            external_refs: vec![external_ref("re_a", 10), external_ref("re_c", 20)],
        };
        let answer =
            |recorded: Option<ExternalRef>| AnswerBeforeWrite { known: held.clone(), external_ref: recorded };
        let ids = |answered: Option<AttemptsAndRefs>| -> Option<Vec<String>> {
            answered.map(|a| a.external_refs.into_iter().map(|r| r.external_id).collect())
        };
        assert_eq!(
            ids(answer(Some(external_ref("re_b", 20))).given(Some(true))),
            Some(vec!["re_a".into(), "re_b".into(), "re_c".into()]),
            "in the read's order: time, then id"
        );
        assert_eq!(
            ids(answer(Some(external_ref("re_d", 30))).given(Some(true))),
            Some(vec!["re_a".into(), "re_c".into(), "re_d".into()])
        );
        assert_eq!(
            ids(answer(Some(external_ref("re_d", 30))).given(Some(false))),
            Some(vec!["re_a".into(), "re_c".into()]),
            "skipped: held already"
        );
        assert_eq!(
            ids(answer(Some(external_ref("re_d", 30))).given(None)),
            None,
            "the write could not tell: read it"
        );
        assert_eq!(
            ids(answer(None).given(None)),
            Some(vec!["re_a".into(), "re_c".into()]),
            "nothing to record, nothing to tell"
        );
    }
}
