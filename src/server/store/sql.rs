//! The SQL both backends share. Queries use `$1`-style parameters, which SQLite and PostgreSQL
//! both accept, and times are stored as UTC microseconds since the epoch in `bigint` columns, so
//! rows decode the same way on both engines. [`sql_store!`] writes the store's methods for one
//! engine; each backend adds only how it opens a write transaction and locks a tenant's chain.

use chrono::{DateTime, Utc};

use super::records::{ApiTokenRecord, AttemptRecord, ConflictRecord, ExternalRef, OperationRecord};
use super::StoreError;
use crate::domain::{
    audit::{AuditEntry, AuditRecord},
    failure::FailureClass,
    ids::{AttemptNumber, OpId, TenantId},
    machine::{Snapshot, State},
    params::{CanonicalParams, Fingerprint},
    policy::Approval,
};

pub(super) fn micros(at: DateTime<Utc>) -> i64 {
    at.timestamp_micros()
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
    approval_expires_at_us, open_attempt, last_attempt, last_failure, cancel_requested, version, \
    created_at_us, updated_at_us";

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
    version: i64,
    created_at_us: i64,
    updated_at_us: i64,
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
            cancel_requested: self.cancel_requested,
        };
        Ok(OperationRecord {
            tenant: TenantId::parse(&self.tenant).map_err(|e| corrupt("tenant")(e.to_string()))?,
            op_id: OpId::parse(&self.op_id).map_err(|e| corrupt("op_id")(e.to_string()))?,
            kind: self.kind,
            subject: self.subject,
            provider: self.provider,
            params,
            idempotency_key: self.idempotency_key,
            compensates: self
                .compensates
                .map(|c| OpId::parse(&c).map_err(|e| corrupt("compensates")(e.to_string())))
                .transpose()?,
            snapshot,
            version: self.version,
            created_at: time(self.created_at_us)?,
            updated_at: time(self.updated_at_us)?,
        })
    }
}

/// The snapshot's columns: parameters `$1..$10` of [`UPDATE_OPERATION`] and `$15..$24` of
/// [`INSERT_OPERATION`].
pub(super) struct SnapshotColumns {
    pub state: &'static str,
    pub key_first_sent_at_us: Option<i64>,
    pub approved_by: Option<String>,
    pub approved_fingerprint: Option<String>,
    pub approval_granted_at_us: Option<i64>,
    pub approval_expires_at_us: Option<i64>,
    pub open_attempt: Option<i64>,
    pub last_attempt: Option<i64>,
    pub last_failure: Option<String>,
    pub cancel_requested: bool,
}

impl SnapshotColumns {
    pub(super) fn of(snapshot: &Snapshot) -> Self {
        let approval = snapshot.approval.as_ref();
        Self {
            state: snapshot.state.as_str(),
            key_first_sent_at_us: snapshot.key_first_sent_at.map(micros),
            approved_by: approval.map(|a| a.approver.clone()),
            approved_fingerprint: approval.map(|a| a.fingerprint.as_str().to_owned()),
            approval_granted_at_us: approval.map(|a| micros(a.granted_at)),
            approval_expires_at_us: approval.map(|a| micros(a.expires_at)),
            open_attempt: snapshot.open_attempt.map(|a| i64::from(a.0)),
            last_attempt: snapshot.last_attempt.map(|a| i64::from(a.0)),
            last_failure: snapshot
                .last_failure
                .map(|f| serde_json::to_string(&f).expect("failure classes serialize")),
            cancel_requested: snapshot.cancel_requested,
        }
    }
}

pub(super) const INSERT_OPERATION: &str = "insert into operations (tenant, op_id, kind, subject, provider, \
    params, fingerprint, amount_minor, amount_currency, idempotency_key, key_retention_s, requested_by, \
    compensates, version, created_at_us, updated_at_us, state, key_first_sent_at_us, approved_by, \
    approved_fingerprint, approval_granted_at_us, approval_expires_at_us, open_attempt, last_attempt, \
    last_failure, cancel_requested) \
    values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, 1, $14, $14, $15, $16, $17, $18, $19, \
    $20, $21, $22, $23, $24) on conflict (tenant, op_id) do nothing";

pub(super) const UPDATE_OPERATION: &str = "update operations set state = $1, key_first_sent_at_us = $2, \
    approved_by = $3, approved_fingerprint = $4, approval_granted_at_us = $5, approval_expires_at_us = $6, \
    open_attempt = $7, last_attempt = $8, last_failure = $9, cancel_requested = $10, \
    version = version + 1, updated_at_us = $11 \
    where tenant = $12 and op_id = $13 and version = $14";

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

#[derive(sqlx::FromRow)]
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

pub(super) const AUDIT_COLUMNS: &str =
    "tenant, seq, at_us, actor, role, action, op_id, from_state, to_state, reason, evidence, prev_hash, hash";

#[derive(sqlx::FromRow)]
pub(super) struct AuditRow {
    tenant: String,
    seq: i64,
    at_us: i64,
    actor: String,
    role: String,
    action: String,
    op_id: Option<String>,
    from_state: Option<String>,
    to_state: Option<String>,
    reason: Option<String>,
    evidence: String,
    prev_hash: String,
    hash: String,
}

impl AuditRow {
    pub(super) fn into_record(self) -> Result<AuditRecord, StoreError> {
        Ok(AuditRecord {
            seq: u64::try_from(self.seq).map_err(|e| corrupt("audit seq")(e.to_string()))?,
            entry: AuditEntry {
                at: time(self.at_us)?,
                tenant: self.tenant,
                actor: self.actor,
                role: self.role,
                action: self.action,
                op_id: self.op_id,
                from_state: self.from_state,
                to_state: self.to_state,
                reason: self.reason,
                evidence: serde_json::from_str(&self.evidence)
                    .map_err(|e| corrupt("evidence")(e.to_string()))?,
            },
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

/// Writes the [`Store`](super::Store) implementation for one engine. `$begin` opens a write
/// transaction on `&self.pool`; `$lock_tenant` is a query on `$1` = tenant id that serialises
/// writers of one tenant (its audit chain) until the transaction ends; `$skip_locked` ends a
/// query that claims rows so that concurrent claimers skip each other's rows.
macro_rules! sql_store {
    ($store:ty, $db:ty, $backend:expr, $migrations:literal, begin = $begin:path, lock_tenant = $lock_tenant:literal, skip_locked = $skip_locked:literal) => {
        use $crate::domain::audit::{AuditEntry, AuditRecord};
        use $crate::domain::ids::{OpId, TenantId};
        use $crate::domain::machine::{Event, State};
        use $crate::server::store::console_sql::*;
        use $crate::server::store::records::*;
        use $crate::server::store::sql::*;
        use $crate::server::store::{Backend, Store, StoreError};

        type Tx = sqlx::Transaction<'static, $db>;

        async fn begin_write(pool: &sqlx::Pool<$db>, tenant: &TenantId) -> Result<Tx, StoreError> {
            let mut tx = $begin(pool).await?;
            sqlx::query($lock_tenant).bind(tenant.as_str()).execute(&mut *tx).await?;
            Ok(tx)
        }

        /// Binds the snapshot's columns, in the order of [`SnapshotColumns`], after `query`'s own.
        fn bind_snapshot<'q>(
            query: sqlx::query::Query<'q, $db, <$db as sqlx::Database>::Arguments<'q>>,
            columns: SnapshotColumns,
        ) -> sqlx::query::Query<'q, $db, <$db as sqlx::Database>::Arguments<'q>> {
            query
                .bind(columns.state)
                .bind(columns.key_first_sent_at_us)
                .bind(columns.approved_by)
                .bind(columns.approved_fingerprint)
                .bind(columns.approval_granted_at_us)
                .bind(columns.approval_expires_at_us)
                .bind(columns.open_attempt)
                .bind(columns.last_attempt)
                .bind(columns.last_failure)
                .bind(columns.cancel_requested)
        }

        /// Binds the values of a query built from optional filters, in order.
        fn bind_values<'q, O>(
            mut query: sqlx::query::QueryAs<'q, $db, O, <$db as sqlx::Database>::Arguments<'q>>,
            values: Vec<SqlValue>,
        ) -> sqlx::query::QueryAs<'q, $db, O, <$db as sqlx::Database>::Arguments<'q>> {
            for value in values {
                query = match value {
                    SqlValue::Text(text) => query.bind(text),
                    SqlValue::Int(number) => query.bind(number),
                };
            }
            query
        }

        /// Fills in the external ids of the listed operations with one query.
        async fn fill_external_ids(
            pool: &sqlx::Pool<$db>,
            tenant: &TenantId,
            items: &mut [OperationListItem],
        ) -> Result<(), StoreError> {
            if items.is_empty() {
                return Ok(());
            }
            let ids: Vec<String> = items.iter().map(|item| item.op_id.as_str().to_owned()).collect();
            let text = in_list(
                "select op_id, external_id from external_refs",
                tenant,
                "op_id",
                &ids,
                "order by recorded_at_us, external_id",
            );
            let rows: Vec<(String, String)> = bind_values(sqlx::query_as(&text.sql), text.values).fetch_all(pool).await?;
            for (op_id, external_id) in rows {
                if let Some(item) = items.iter_mut().find(|item| item.op_id.as_str() == op_id) {
                    item.external_ids.push(external_id);
                }
            }
            Ok(())
        }

        async fn load_in(tx: &mut Tx, tenant: &TenantId, op_id: &OpId) -> Result<Option<OperationRecord>, StoreError> {
            let row: Option<OperationRow> = sqlx::query_as(&format!(
                "select {OPERATION_COLUMNS} from operations where tenant = $1 and op_id = $2"
            ))
            .bind(tenant.as_str())
            .bind(op_id.as_str())
            .fetch_optional(&mut **tx)
            .await?;
            row.map(OperationRow::into_record).transpose()
        }

        async fn append_audit(tx: &mut Tx, tenant: &TenantId, entries: Vec<AuditEntry>) -> Result<(), StoreError> {
            let head: Option<(i64, String)> =
                sqlx::query_as("select seq, hash from audit_events where tenant = $1 order by seq desc limit 1")
                    .bind(tenant.as_str())
                    .fetch_optional(&mut **tx)
                    .await?;
            let mut previous: Option<AuditRecord> = None;
            for entry in entries {
                let record = match (&previous, &head) {
                    (Some(p), _) => entry.chain_after(Some((p.seq, p.hash.as_str()))),
                    (None, Some((seq, hash))) => entry.chain_after(Some((*seq as u64, hash.as_str()))),
                    (None, None) => entry.chain_after(None),
                };
                sqlx::query(&format!(
                    "insert into audit_events ({AUDIT_COLUMNS}) values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13)"
                ))
                .bind(tenant.as_str())
                .bind(record.seq as i64)
                .bind(micros(record.entry.at))
                .bind(&record.entry.actor)
                .bind(&record.entry.role)
                .bind(&record.entry.action)
                .bind(&record.entry.op_id)
                .bind(&record.entry.from_state)
                .bind(&record.entry.to_state)
                .bind(&record.entry.reason)
                .bind(record.entry.evidence.to_string())
                .bind(&record.prev_hash)
                .bind(&record.hash)
                .execute(&mut **tx)
                .await?;
                previous = Some(record);
            }
            Ok(())
        }

        async fn insert_external_ref(
            tx: &mut Tx,
            operation: &OperationRecord,
            external_id: &str,
            at: i64,
        ) -> Result<(), StoreError> {
            sqlx::query(
                "insert into external_refs (tenant, op_id, provider, ref_type, external_id, recorded_at_us) \
                 values ($1, $2, $3, $4, $5, $6) on conflict (tenant, provider, external_id) do nothing",
            )
            .bind(operation.tenant.as_str())
            .bind(operation.op_id.as_str())
            .bind(&operation.provider)
            .bind(&operation.kind)
            .bind(external_id)
            .bind(at)
            .execute(&mut **tx)
            .await?;
            Ok(())
        }

        async fn finish_attempt(
            tx: &mut Tx,
            operation: &OperationRecord,
            number: u32,
            outcome: &str,
            report: &AttemptReport,
            at: i64,
        ) -> Result<(), StoreError> {
            sqlx::query(
                "update attempts set finished_at_us = $1, outcome = $2, http_status = $3, latency_ms = $4, \
                 error = $5, retry_after_s = $6 where tenant = $7 and op_id = $8 and number = $9 and outcome is null",
            )
            .bind(at)
            .bind(outcome)
            .bind(report.http_status.map(i64::from))
            .bind(report.latency_ms.map(|ms| i64::try_from(ms).unwrap_or(i64::MAX)))
            .bind(&report.error)
            .bind(report.retry_after_s.map(i64::from))
            .bind(operation.tenant.as_str())
            .bind(operation.op_id.as_str())
            .bind(i64::from(number))
            .execute(&mut **tx)
            .await?;
            Ok(())
        }

        /// Projects one event onto attempts, external references and approvals.
        async fn project(tx: &mut Tx, before: &OperationRecord, change: &OperationChange, event: &Event) -> Result<(), StoreError> {
            let at = micros(change.at);
            match event {
                Event::AttemptStarted { attempt, at: started, .. } => {
                    sqlx::query(
                        "insert into attempts (tenant, op_id, number, idempotency_key, sent_by, started_at_us, \
                         send_budget, deadline_at_us) values ($1, $2, $3, $4, $5, $6, $7, $8)",
                    )
                    .bind(before.tenant.as_str())
                    .bind(before.op_id.as_str())
                    .bind(i64::from(attempt.0))
                    .bind(&before.idempotency_key)
                    .bind(format!("{} ({})", change.actor.name, change.actor.role_label()))
                    .bind(micros(*started))
                    .bind(change.report.budget.map(|b| i64::from(b.max_sends)))
                    .bind(change.report.budget.map(|b| micros(b.deadline)))
                    .execute(&mut **tx)
                    .await?;
                }
                Event::AttemptSucceeded { attempt, external_id } => {
                    finish_attempt(tx, before, attempt.0, "succeeded", &change.report, at).await?;
                    if let Some(id) = external_id.as_deref().or(change.report.external_id.as_deref()) {
                        insert_external_ref(tx, before, id, at).await?;
                    }
                }
                Event::AttemptFailed { attempt, class } => {
                    let mut report = change.report.clone();
                    if let $crate::domain::failure::FailureClass::TransientUnavailable { retry_after_s: Some(s) } = class {
                        report.retry_after_s.get_or_insert(*s);
                    }
                    finish_attempt(tx, before, attempt.0, class.as_str(), &report, at).await?;
                }
                Event::MarkedUnknown { attempt: Some(attempt), reason } => {
                    let report = AttemptReport { error: Some(reason.clone()), ..AttemptReport::default() };
                    finish_attempt(tx, before, attempt.0, "no_report", &report, at).await?;
                }
                Event::FoundDownstream { external_id, .. } | Event::MarkedSucceeded { external_id, .. } => {
                    insert_external_ref(tx, before, external_id, at).await?;
                }
                Event::ApprovalGranted { approval, reason } => {
                    sqlx::query(
                        "insert into approvals (tenant, op_id, decision, decided_by, fingerprint, reason, decided_at_us, expires_at_us) \
                         values ($1, $2, 'approved', $3, $4, $5, $6, $7)",
                    )
                    .bind(before.tenant.as_str())
                    .bind(before.op_id.as_str())
                    .bind(&approval.approver)
                    .bind(approval.fingerprint.as_str())
                    .bind(reason)
                    .bind(micros(approval.granted_at))
                    .bind(micros(approval.expires_at))
                    .execute(&mut **tx)
                    .await?;
                }
                Event::ApprovalDenied { by, reason } => {
                    sqlx::query(
                        "insert into approvals (tenant, op_id, decision, decided_by, fingerprint, reason, decided_at_us) \
                         values ($1, $2, 'denied', $3, $4, $5, $6)",
                    )
                    .bind(before.tenant.as_str())
                    .bind(before.op_id.as_str())
                    .bind(by)
                    .bind(before.snapshot.fingerprint.as_str())
                    .bind(reason)
                    .bind(at)
                    .execute(&mut **tx)
                    .await?;
                }
                Event::MarkedUnknown { attempt: None, .. }
                | Event::ApprovalExpired { .. }
                | Event::Escalated { .. }
                | Event::MarkedNotHappened { .. }
                | Event::CancelRequested { .. }
                | Event::Cancelled { .. } => {}
            }
            Ok(())
        }

        #[async_trait::async_trait]
        impl Store for $store {
            fn backend(&self) -> Backend {
                $backend
            }

            async fn migrate(&self) -> Result<(), StoreError> {
                sqlx::migrate!($migrations).run(&self.pool).await.map_err(StoreError::Migration)
            }

            async fn check_health(&self) -> Result<(), StoreError> {
                sqlx::query("select 1").execute(&self.pool).await?;
                Ok(())
            }

            async fn create_api_token(&self, token: NewApiToken, audit: AuditEntry) -> Result<(), StoreError> {
                let mut tx = $begin(&self.pool).await?;
                sqlx::query("insert into tenants (id, name, created_at_us) values ($1, $1, $2) on conflict (id) do nothing")
                    .bind(token.tenant.as_str())
                    .bind(micros(token.at))
                    .execute(&mut *tx)
                    .await?;
                sqlx::query($lock_tenant).bind(token.tenant.as_str()).execute(&mut *tx).await?;
                sqlx::query(
                    "insert into api_tokens (id, tenant, name, secret_hash, created_at_us) values ($1, $2, $3, $4, $5)",
                )
                .bind(&token.id)
                .bind(token.tenant.as_str())
                .bind(&token.name)
                .bind(&token.secret_hash)
                .bind(micros(token.at))
                .execute(&mut *tx)
                .await
                .map_err(|e| StoreError::from_unique(e, "an API token with this name already exists for the tenant"))?;
                append_audit(&mut tx, &token.tenant, vec![audit]).await?;
                tx.commit().await?;
                Ok(())
            }

            async fn revoke_api_token(&self, tenant: &TenantId, name: &str, audit: AuditEntry) -> Result<(), StoreError> {
                let mut tx = begin_write(&self.pool, tenant).await?;
                let revoked = sqlx::query(
                    "update api_tokens set revoked_at_us = $1 where tenant = $2 and name = $3 and revoked_at_us is null",
                )
                .bind(micros(audit.at))
                .bind(tenant.as_str())
                .bind(name)
                .execute(&mut *tx)
                .await?
                .rows_affected();
                if revoked == 0 {
                    return Err(StoreError::NotFound);
                }
                append_audit(&mut tx, tenant, vec![audit]).await?;
                tx.commit().await?;
                Ok(())
            }

            async fn find_api_token(&self, secret_hash: &str) -> Result<Option<ApiTokenRecord>, StoreError> {
                let row: Option<ApiTokenRow> = sqlx::query_as(
                    "select id, tenant, name from api_tokens where secret_hash = $1 and revoked_at_us is null",
                )
                .bind(secret_hash)
                .fetch_optional(&self.pool)
                .await?;
                row.map(ApiTokenRow::into_record).transpose()
            }

            async fn register_operation(&self, new: NewOperation, audit: AuditEntry) -> Result<Registered, StoreError> {
                let mut tx = begin_write(&self.pool, &new.tenant).await?;
                let amount = new.params.money("amount");
                let columns = SnapshotColumns::of(&new.snapshot);
                let fingerprint = new.params.fingerprint();
                let insert = sqlx::query(INSERT_OPERATION)
                    .bind(new.tenant.as_str())
                    .bind(new.op_id.as_str())
                    .bind(&new.kind)
                    .bind(&new.subject)
                    .bind(&new.provider)
                    .bind(new.params.canonical_text())
                    .bind(fingerprint.as_str())
                    .bind(amount.map(|m| m.minor))
                    .bind(amount.map(|m| m.currency.as_str().to_owned()))
                    .bind(new.op_id.as_str())
                    .bind(new.snapshot.key_retention.num_seconds())
                    .bind(&new.snapshot.requested_by)
                    .bind(new.compensates.as_ref().map(OpId::as_str))
                    .bind(micros(new.at));
                let inserted = bind_snapshot(insert, columns)
                    .execute(&mut *tx)
                    .await?
                    .rows_affected();
                if inserted == 0 {
                    let existing = load_in(&mut tx, &new.tenant, &new.op_id).await?.ok_or(StoreError::NotFound)?;
                    tx.rollback().await?;
                    return Ok(Registered::Existing(existing));
                }
                append_audit(&mut tx, &new.tenant, vec![audit]).await?;
                let created = load_in(&mut tx, &new.tenant, &new.op_id).await?.ok_or(StoreError::NotFound)?;
                tx.commit().await?;
                Ok(Registered::Created(created))
            }

            async fn record_conflict(&self, conflict: NewConflict, audit: AuditEntry) -> Result<(), StoreError> {
                let mut tx = begin_write(&self.pool, &conflict.tenant).await?;
                sqlx::query(
                    "insert into conflicts (tenant, op_id, requested_params, requested_fingerprint, stored_fingerprint, \
                     diff, requested_by, received_at_us) values ($1, $2, $3, $4, $5, $6, $7, $8)",
                )
                .bind(conflict.tenant.as_str())
                .bind(conflict.op_id.as_str())
                .bind(conflict.requested.canonical_text())
                .bind(conflict.requested.fingerprint().as_str())
                .bind(conflict.stored_fingerprint.as_str())
                .bind(serde_json::to_string(&conflict.diff).map_err(|e| StoreError::Corrupt(e.to_string()))?)
                .bind(&conflict.requested_by)
                .bind(micros(conflict.at))
                .execute(&mut *tx)
                .await?;
                append_audit(&mut tx, &conflict.tenant, vec![audit]).await?;
                tx.commit().await?;
                Ok(())
            }

            async fn load_operation(&self, tenant: &TenantId, op_id: &OpId) -> Result<Option<OperationRecord>, StoreError> {
                let row: Option<OperationRow> = sqlx::query_as(&format!(
                    "select {OPERATION_COLUMNS} from operations where tenant = $1 and op_id = $2"
                ))
                .bind(tenant.as_str())
                .bind(op_id.as_str())
                .fetch_optional(&self.pool)
                .await?;
                row.map(OperationRow::into_record).transpose()
            }

            async fn apply_change(&self, change: OperationChange) -> Result<OperationRecord, StoreError> {
                let mut tx = begin_write(&self.pool, &change.tenant).await?;
                let before = load_in(&mut tx, &change.tenant, &change.op_id).await?.ok_or(StoreError::NotFound)?;
                if before.version != change.expected_version {
                    return Err(StoreError::Conflict("the operation changed since it was read".into()));
                }
                let columns = SnapshotColumns::of(&change.after);
                let updated = bind_snapshot(sqlx::query(UPDATE_OPERATION), columns)
                    .bind(micros(change.at))
                    .bind(change.tenant.as_str())
                    .bind(change.op_id.as_str())
                    .bind(change.expected_version)
                    .execute(&mut *tx)
                    .await?
                    .rows_affected();
                if updated != 1 {
                    return Err(StoreError::Conflict("the operation changed since it was read".into()));
                }
                sqlx::query(
                    "insert into operation_events (tenant, op_id, version, events, actor, recorded_at_us) \
                     values ($1, $2, $3, $4, $5, $6)",
                )
                .bind(change.tenant.as_str())
                .bind(change.op_id.as_str())
                .bind(change.expected_version + 1)
                .bind(serde_json::to_string(&change.events).map_err(|e| StoreError::Corrupt(e.to_string()))?)
                .bind(&change.actor.name)
                .bind(micros(change.at))
                .execute(&mut *tx)
                .await?;
                for event in &change.events {
                    project(&mut tx, &before, &change, event).await?;
                }
                append_audit(&mut tx, &change.tenant, change.audit.clone()).await?;
                let after = load_in(&mut tx, &change.tenant, &change.op_id).await?.ok_or(StoreError::NotFound)?;
                tx.commit().await?;
                Ok(after)
            }

            async fn operation_history(&self, tenant: &TenantId, op_id: &OpId) -> Result<Option<OperationHistory>, StoreError> {
                let Some(operation) = self.load_operation(tenant, op_id).await? else {
                    return Ok(None);
                };
                let attempts: Vec<AttemptRow> = sqlx::query_as(
                    "select number, idempotency_key, sent_by, started_at_us, finished_at_us, outcome, http_status, \
                     latency_ms, error, retry_after_s, send_budget, deadline_at_us from attempts \
                     where tenant = $1 and op_id = $2 order by number",
                )
                .bind(tenant.as_str())
                .bind(op_id.as_str())
                .fetch_all(&self.pool)
                .await?;
                let refs: Vec<ExternalRefRow> = sqlx::query_as(
                    "select provider, ref_type, external_id, recorded_at_us from external_refs \
                     where tenant = $1 and op_id = $2 order by recorded_at_us, external_id",
                )
                .bind(tenant.as_str())
                .bind(op_id.as_str())
                .fetch_all(&self.pool)
                .await?;
                let audit: Vec<AuditRow> = sqlx::query_as(&format!(
                    "select {AUDIT_COLUMNS} from audit_events where tenant = $1 and op_id = $2 order by seq"
                ))
                .bind(tenant.as_str())
                .bind(op_id.as_str())
                .fetch_all(&self.pool)
                .await?;
                Ok(Some(OperationHistory {
                    operation,
                    attempts: attempts.into_iter().map(AttemptRow::into_record).collect::<Result<_, _>>()?,
                    external_refs: refs.into_iter().map(ExternalRefRow::into_record).collect::<Result<_, _>>()?,
                    audit: audit.into_iter().map(AuditRow::into_record).collect::<Result<_, _>>()?,
                }))
            }

            async fn subject_operations(&self, tenant: &TenantId, subject: &str) -> Result<Vec<OperationHistory>, StoreError> {
                let ids: Vec<(String,)> = sqlx::query_as(
                    "select op_id from operations where tenant = $1 and subject = $2 order by created_at_us, op_id",
                )
                .bind(tenant.as_str())
                .bind(subject)
                .fetch_all(&self.pool)
                .await?;
                let mut histories = Vec::with_capacity(ids.len());
                for (op_id,) in ids {
                    let op_id = OpId::parse(&op_id).map_err(|e| StoreError::Corrupt(e.to_string()))?;
                    if let Some(history) = self.operation_history(tenant, &op_id).await? {
                        histories.push(history);
                    }
                }
                Ok(histories)
            }

            async fn conflicts_of(&self, tenant: &TenantId, op_id: &OpId) -> Result<Vec<ConflictRecord>, StoreError> {
                let rows: Vec<ConflictRow> = sqlx::query_as(
                    "select id, op_id, requested_params, requested_fingerprint, stored_fingerprint, diff, requested_by, \
                     received_at_us from conflicts where tenant = $1 and op_id = $2 order by id",
                )
                .bind(tenant.as_str())
                .bind(op_id.as_str())
                .fetch_all(&self.pool)
                .await?;
                rows.into_iter().map(ConflictRow::into_record).collect()
            }

            async fn lease_due_for_reconcile(
                &self,
                settled_before: chrono::DateTime<chrono::Utc>,
                now: chrono::DateTime<chrono::Utc>,
                lease_until: chrono::DateTime<chrono::Utc>,
                limit: u32,
            ) -> Result<Vec<(TenantId, OpId)>, StoreError> {
                let mut tx = $begin(&self.pool).await?;
                let rows: Vec<(String, String)> = sqlx::query_as(concat!(
                    "update operations set lease_until_us = $1 where (tenant, op_id) in (",
                    "select tenant, op_id from operations where state in ('submitted', 'unknown') ",
                    "and updated_at_us <= $2 and (lease_until_us is null or lease_until_us <= $3) ",
                    "order by updated_at_us limit $4 ", $skip_locked, ") returning tenant, op_id"
                ))
                .bind(micros(lease_until))
                .bind(micros(settled_before))
                .bind(micros(now))
                .bind(i64::from(limit))
                .fetch_all(&mut *tx)
                .await?;
                tx.commit().await?;
                rows.into_iter()
                    .map(|(tenant, op_id)| {
                        Ok((
                            TenantId::parse(&tenant).map_err(|e| StoreError::Corrupt(e.to_string()))?,
                            OpId::parse(&op_id).map_err(|e| StoreError::Corrupt(e.to_string()))?,
                        ))
                    })
                    .collect()
            }

            async fn audit_chain(&self, tenant: &TenantId) -> Result<Vec<AuditRecord>, StoreError> {
                let rows: Vec<AuditRow> =
                    sqlx::query_as(&format!("select {AUDIT_COLUMNS} from audit_events where tenant = $1 order by seq"))
                        .bind(tenant.as_str())
                        .fetch_all(&self.pool)
                        .await?;
                rows.into_iter().map(AuditRow::into_record).collect()
            }
        }

        $crate::server::store::console_sql::console_store!($store, $db, begin = $begin, lock_tenant = $lock_tenant);
    };
}

pub(super) use sql_store;
