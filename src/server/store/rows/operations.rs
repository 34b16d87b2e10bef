//! An operation's rows: the operation itself (read back whole after every guarded write, written
//! by one insert or one version-checked update), its attempts and external references (read in one
//! round trip), the console request a change answers, and the conflicts recorded against it.

use super::{corrupt, micros, narrow, time};
use crate::domain::{
    connection::After5xx,
    failure::FailureClass,
    ids::{AttemptNumber, OpId, TenantId},
    machine::{Snapshot, State},
    operation::{AttemptRecord, ExternalRef, OperationRecord},
    params::{CanonicalParams, Fingerprint},
    policy::Approval,
};
use crate::server::store::query::{QueryText, SqlValue};
use crate::server::store::records::{ConflictRecord, NewOperation, OperationChange, RequestAnswer};
use crate::server::store::StoreError;

pub(in crate::server::store) const OPERATION_COLUMNS: &str = "tenant, op_id, kind, subject, provider, params, fingerprint, \
    amount_minor, amount_currency, state, idempotency_key, key_first_sent_at_us, key_retention_s, \
    requested_by, compensates, approved_by, approved_fingerprint, approval_granted_at_us, \
    approval_expires_at_us, open_attempt, last_attempt, last_failure, cancel_requested, failure_reason, \
    accepted_at_us, retry_of, action, (server_sends <> 0) as server_sends, version, created_at_us, updated_at_us, \
    after_5xx";

/// The row a guarded write wrote, and whether it recorded its change's one external id: `None`
/// when the write did not say (SQLite's, or one with no single external id to record).
#[derive(sqlx::FromRow)]
pub(in crate::server::store) struct GuardedRow {
    #[sqlx(flatten)]
    pub row: OperationRow,
    #[sqlx(default)]
    pub external_id_recorded: Option<bool>,
}

#[derive(sqlx::FromRow)]
pub(in crate::server::store) struct OperationRow {
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
    pub(in crate::server::store) fn into_record(self) -> Result<OperationRecord, StoreError> {
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
    select $1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, 1, $14, $14, $15, $16, $17, $18, $19, \
    $20, $21, $22, $23, $24, $25, $26, $27, $28, $29 \
    where not exists (select 1 from archived_operations k where k.tenant = $1 and k.op_id = $2) \
    on conflict (tenant, op_id) do nothing returning ";

const UPDATE_OPERATION: &str = "update operations set state = $1, key_first_sent_at_us = $2, \
    approved_by = $3, approved_fingerprint = $4, approval_granted_at_us = $5, approval_expires_at_us = $6, \
    open_attempt = $7, last_attempt = $8, last_failure = $9, cancel_requested = $10, failure_reason = $11, \
    version = version + 1, updated_at_us = $12, \
    unknown_since_us = case when $1 = 'unknown' then coalesce(unknown_since_us, $12) else unknown_since_us end, \
    accepted_at_us = case when $1 = 'accepted' then coalesce(accepted_at_us, $12) else accepted_at_us end \
    where tenant = $13 and op_id = $14 and version = $15 returning ";

/// Records `new`, unless its op id is taken, by a hot operation or an archived one, returning the
/// row it wrote ([`OPERATION_COLUMNS`]).
pub(in crate::server::store) fn operation_insert(new: &NewOperation) -> QueryText {
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
pub(in crate::server::store) fn operation_update(change: &OperationChange) -> QueryText {
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
pub(in crate::server::store) fn answer_update(tenant: &TenantId, answer: &RequestAnswer) -> QueryText {
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
pub(in crate::server::store) struct AttemptRow {
    pub(super) number: i64,
    pub(super) idempotency_key: String,
    pub(super) sent_by: String,
    pub(super) started_at_us: i64,
    pub(super) finished_at_us: Option<i64>,
    pub(super) outcome: Option<String>,
    pub(super) http_status: Option<i64>,
    pub(super) latency_ms: Option<i64>,
    pub(super) error: Option<String>,
    pub(super) retry_after_s: Option<i64>,
    pub(super) send_budget: Option<i64>,
    pub(super) deadline_at_us: Option<i64>,
}

impl AttemptRow {
    pub(in crate::server::store) fn into_record(self) -> Result<AttemptRecord, StoreError> {
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

/// An attempt with the op id it belongs to.
#[derive(sqlx::FromRow)]
pub(in crate::server::store) struct AttemptOfRow {
    pub op_id: String,
    #[sqlx(flatten)]
    pub attempt: AttemptRow,
}

pub(in crate::server::store) struct ExternalRefRow {
    pub(super) provider: String,
    pub(super) ref_type: String,
    pub(super) external_id: String,
    pub(super) recorded_at_us: i64,
}

impl ExternalRefRow {
    pub(in crate::server::store) fn into_record(self) -> Result<ExternalRef, StoreError> {
        Ok(ExternalRef {
            provider: self.provider,
            ref_type: self.ref_type,
            external_id: self.external_id,
            recorded_at: time(self.recorded_at_us)?,
        })
    }
}

/// An operation's attempts in order, then its external references in order of recording: one
/// round trip for what a change answers with. `$1` is the tenant, `$2` the op id.
pub(in crate::server::store) static ATTEMPTS_AND_REFS_QUERY: std::sync::LazyLock<String> =
    std::sync::LazyLock::new(|| attempts_and_refs_where("$1", "= $2"));

/// [`ATTEMPTS_AND_REFS_QUERY`] for the operations `op_ids` at once, grouped by op id: one round
/// trip for any number of them.
pub(in crate::server::store) fn attempts_and_refs_of(tenant: &TenantId, op_ids: &[String]) -> QueryText {
    let mut text = QueryText::new("");
    let tenant = text.param(SqlValue::Text(tenant.as_str().to_owned()));
    let list: Vec<String> = op_ids.iter().map(|op_id| text.param(SqlValue::Text(op_id.clone()))).collect();
    text.push(&attempts_and_refs_where(&tenant, &format!("in ({})", list.join(", "))));
    text
}

fn attempts_and_refs_where(tenant: &str, op_ids: &str) -> String {
    format!(
        "select op_id, cast(0 as bigint) as part, number, idempotency_key, sent_by, started_at_us, finished_at_us, \
         outcome, http_status, latency_ms, error, retry_after_s, send_budget, deadline_at_us, \
         cast(null as text) as provider, cast(null as text) as ref_type, cast(null as text) as external_id, \
         cast(null as bigint) as recorded_at_us from attempts where tenant = {tenant} and op_id {op_ids} \
         union all select op_id, 1, null, null, null, null, null, null, null, null, null, null, null, null, provider, \
         ref_type, external_id, recorded_at_us from external_refs where tenant = {tenant} and op_id {op_ids} \
         order by op_id, part, number, recorded_at_us, external_id"
    )
}

/// A row of [`attempts_and_refs_of`]: whose it is, and what.
#[derive(sqlx::FromRow)]
pub(in crate::server::store) struct OperationPartRow {
    pub op_id: String,
    #[sqlx(flatten)]
    pub part: AttemptOrRefRow,
}

/// One row of [`ATTEMPTS_AND_REFS_QUERY`]: an attempt (`part` 0) or an external reference (1).
#[derive(sqlx::FromRow)]
pub(in crate::server::store) struct AttemptOrRefRow {
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
pub(in crate::server::store) enum AttemptOrRef {
    Attempt(AttemptRecord),
    Ref(ExternalRef),
}

impl AttemptOrRefRow {
    pub(in crate::server::store) fn into_record(self) -> Result<AttemptOrRef, StoreError> {
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

#[derive(sqlx::FromRow)]
pub(in crate::server::store) struct ConflictRow {
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
    pub(in crate::server::store) fn into_record(self) -> Result<ConflictRecord, StoreError> {
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::server::store::query::insert_values;

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
}
