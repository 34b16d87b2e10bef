//! What retention keeps, on both engines: each tenant's retention policy, the sweep's lease and
//! progress, the archive files with their manifests, and the keys of archived operations (with the
//! order and external ids the console searches by), which stay for ever. The hot rows of an
//! operation leave only after its key is committed, in a later transaction, so that a registration
//! that races a sweep finds either the hot operation or its key, never neither.

use async_trait::async_trait;
use chrono::{DateTime, Utc};

use super::rows::{corrupt, time};
use super::StoreError;
use crate::domain::archive::{ArchiveDistrust, ArchivedOperation, SignedManifest};
use crate::domain::audit::{AuditEntry, AuditRecord};
use crate::domain::ids::{OpId, TenantId};
use crate::domain::machine::State;
use crate::domain::params::Fingerprint;

/// A tenant's retention: closed operations are archived `days` after they closed, to `archive_url`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RetentionPolicy {
    pub tenant: TenantId,
    pub days: u32,
    pub archive_url: String,
    pub updated_by: String,
    pub updated_at: DateTime<Utc>,
}

/// Where the last sweep of a tenant got, and who sweeps it now.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SweepStatus {
    pub holder: Option<String>,
    pub lease_until: Option<DateTime<Utc>>,
    pub started_at: Option<DateTime<Utc>>,
    pub finished_at: Option<DateTime<Utc>>,
    /// Operations the last sweep archived (so far, while it runs).
    pub archived: u64,
    pub last_error: Option<String>,
}

/// An archive file as the ledger knows it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ArchiveRecord {
    pub tenant: TenantId,
    pub id: String,
    /// The archive URL it was written to (a tenant may change its archive; each file keeps its own).
    pub location: String,
    pub object_path: String,
    /// `writing` until its manifest is committed, then `sealed` (or `abandoned`, on its way out).
    pub sealed: bool,
    /// The operations it holds; none for a segment of the audit chain.
    pub operations: u64,
    /// For a segment of the audit chain, the first and last position it holds.
    pub audit_span: Option<(u64, u64)>,
    pub manifest: Option<SignedManifest>,
    pub created_at: DateTime<Utc>,
    /// Why a read last found the file not as it was signed, when it did and has not found it as
    /// signed since.
    pub distrust: Option<ArchiveDistrust>,
}

/// The key an archived operation leaves in the hot database, with where its history went.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ArchivedKey {
    pub tenant: TenantId,
    pub op_id: OpId,
    pub kind: String,
    pub subject: String,
    pub provider: String,
    pub fingerprint: Fingerprint,
    pub state: State,
    pub created_at: DateTime<Utc>,
    pub closed_at: DateTime<Utc>,
    pub archive_id: String,
    pub location: String,
    pub object_path: String,
    /// The manifest its file was sealed with.
    pub manifest: Option<SignedManifest>,
    /// Why its file is not trusted now, if it is not.
    pub distrust: Option<ArchiveDistrust>,
}

#[async_trait]
pub trait ArchiveStore: Send + Sync {
    /// The tenant's retention, if it set one.
    async fn retention_policy(&self, tenant: &TenantId) -> Result<Option<RetentionPolicy>, StoreError>;

    /// Sets (or replaces) the tenant's retention, with its audit entry.
    async fn set_retention_policy(
        &self,
        policy: RetentionPolicy,
        audit: AuditEntry,
    ) -> Result<(), StoreError>;

    /// Ends the tenant's retention: nothing more is archived; what was archived stays archived.
    async fn remove_retention_policy(&self, tenant: &TenantId, audit: AuditEntry) -> Result<(), StoreError>;

    /// Takes the tenant's sweep lease for `holder` until `until`, unless another holder has it
    /// beyond `now` (or whatever it holds, when `take_over`); `true` when taken (or renewed). A new
    /// lease starts the progress from zero.
    async fn take_sweep_lease(
        &self,
        tenant: &TenantId,
        holder: &str,
        now: DateTime<Utc>,
        until: DateTime<Utc>,
        take_over: bool,
    ) -> Result<bool, StoreError>;

    /// Records the sweep's progress and renews `holder`'s lease until `until`; `false` when the
    /// lease is no longer `holder`'s.
    async fn sweep_progress(
        &self,
        tenant: &TenantId,
        holder: &str,
        archived: u64,
        until: DateTime<Utc>,
    ) -> Result<bool, StoreError>;

    /// Ends `holder`'s sweep at `at`, releasing the lease, with the error that stopped it if one did.
    async fn end_sweep(
        &self,
        tenant: &TenantId,
        holder: &str,
        at: DateTime<Utc>,
        archived: u64,
        error: Option<String>,
    ) -> Result<(), StoreError>;

    /// The tenant's last or running sweep.
    async fn sweep_status(&self, tenant: &TenantId) -> Result<Option<SweepStatus>, StoreError>;

    /// Up to `limit` of the tenant's operations that may be archived now: closed before
    /// `closed_before`, every audit entry of theirs sealed, none compensated by an operation still
    /// hot, and not archived already; oldest closed first, each with everything recorded about it.
    async fn archivable(
        &self,
        tenant: &TenantId,
        closed_before: DateTime<Utc>,
        limit: u32,
    ) -> Result<Vec<ArchivedOperation>, StoreError>;

    /// Records that the archive file `record` is being written (`writing`).
    async fn claim_archive(&self, record: ArchiveRecord) -> Result<(), StoreError>;

    /// Seals the archive file `id` with its manifest and commits the keys of its operations, with
    /// the audit entry; refused with [`StoreError::Conflict`] when one of them is archived already
    /// (another sweep got there first).
    async fn seal_archive(
        &self,
        tenant: &TenantId,
        id: &str,
        manifest: &SignedManifest,
        operations: &[ArchivedOperation],
        audit: AuditEntry,
    ) -> Result<(), StoreError>;

    /// The tenant's archive files not sealed: left by a sweep that stopped, or being written by
    /// another.
    async fn unfinished_archives(&self, tenant: &TenantId) -> Result<Vec<ArchiveRecord>, StoreError>;

    /// Marks an archive file still `writing` as abandoned, so that it can no longer be sealed;
    /// `false` when it was sealed (or abandoned) first. Only then may its objects be removed.
    async fn abandon_archive(&self, tenant: &TenantId, id: &str) -> Result<bool, StoreError>;

    /// Forgets an abandoned archive file once its objects are removed.
    async fn drop_archive(&self, tenant: &TenantId, id: &str) -> Result<(), StoreError>;

    /// The tenant's sealed archive files whose operations may still have hot rows (a sweep stopped
    /// after sealing them), oldest first.
    async fn archives_with_hot_rows(&self, tenant: &TenantId) -> Result<Vec<String>, StoreError>;

    /// Deletes the hot rows of the operations sealed in the archive file `id` and marks it done,
    /// in one transaction; how many operations it deleted.
    async fn remove_archived(
        &self,
        tenant: &TenantId,
        id: &str,
        at: DateTime<Utc>,
    ) -> Result<u64, StoreError>;

    /// After a sweep: gives the space that deleted rows left back to the file system where the
    /// engine needs to be asked (SQLite's incremental vacuum; PostgreSQL's autovacuum needs
    /// nothing), and has PostgreSQL's planner count the keys the sweep added, so that a lookup by
    /// key (every registration makes one) is planned on the index, not as a scan of a table it
    /// last saw empty.
    async fn tidy_after_sweep(&self) -> Result<(), StoreError>;

    /// The key of an archived operation, with where its history is.
    async fn archived_key(&self, tenant: &TenantId, op_id: &OpId) -> Result<Option<ArchivedKey>, StoreError>;

    /// The archived operations whose op id, order or external id is exactly `term`, newest closed
    /// first, at most `limit`.
    async fn find_archived(
        &self,
        tenant: &TenantId,
        term: &str,
        limit: u32,
    ) -> Result<Vec<ArchivedKey>, StoreError>;

    /// The tenant's archive files, oldest first.
    async fn archives(&self, tenant: &TenantId) -> Result<Vec<ArchiveRecord>, StoreError>;

    /// Records that a read found the sealed file `id` not as it was signed, for `why` (or, with
    /// `None`, as signed again), with its audit entry; a distrust starts the watch of the tenant's
    /// rules about untrusted archive files. `false`, changing nothing, when the file was already
    /// so recorded.
    async fn distrust_archive(
        &self,
        tenant: &TenantId,
        id: &str,
        why: Option<ArchiveDistrust>,
        audit: AuditEntry,
    ) -> Result<bool, StoreError>;

    /// The tenant's sealed segments of the audit chain, from its start.
    async fn audit_segments(&self, tenant: &TenantId) -> Result<Vec<ArchiveRecord>, StoreError>;

    /// Up to `limit` of the tenant's audit records after position `after_seq`, in order, never the
    /// chain's head (the next record links to it), stopping before the first made at or after
    /// `made_before`.
    async fn audit_due(
        &self,
        tenant: &TenantId,
        after_seq: u64,
        made_before: DateTime<Utc>,
        limit: u32,
    ) -> Result<Vec<AuditRecord>, StoreError>;

    /// Seals the segment of the audit chain `id` with its manifest, with the audit entry; refused
    /// with [`StoreError::Conflict`] unless it follows the last sealed segment (or starts the
    /// chain), and is still being written.
    async fn seal_audit_segment(
        &self,
        tenant: &TenantId,
        id: &str,
        manifest: &SignedManifest,
        audit: AuditEntry,
    ) -> Result<(), StoreError>;

    /// Deletes the tenant's audit records from position `from_seq` to `to_seq` (all sealed in
    /// segments) except those about an operation still hot, in one transaction; how many.
    async fn prune_audit(&self, tenant: &TenantId, from_seq: u64, to_seq: u64) -> Result<u64, StoreError>;

    /// PostgreSQL: detaches (concurrently) and drops each monthly partition of the audit chain
    /// that ended before `ended_before` and holds only records sealed in segments and about no
    /// hot operation, whatever their tenant; first finishes a detach a stopped sweep left. A
    /// partition that a record reached between the check and the detach is attached again. The
    /// partitions dropped, by name. SQLite has no partitions: none.
    async fn detach_archived_months(&self, ended_before: DateTime<Utc>) -> Result<Vec<String>, StoreError>;
}

/// The month a partition of `audit_events` named as every one is (see migration 0045) holds: its
/// first microsecond and the first after it; `None` for any other name.
pub(super) fn partition_month(name: &str) -> Option<(i64, i64)> {
    use chrono::NaiveDate;
    let digits = name.strip_prefix("audit_events_").filter(|rest| rest.len() == 6)?;
    let (year, month) = (digits[..4].parse::<i32>().ok()?, digits[4..].parse::<u32>().ok()?);
    let (next_year, next_month) = if month == 12 { (year + 1, 1) } else { (year, month + 1) };
    let first = |year: i32, month: u32| {
        NaiveDate::from_ymd_opt(year, month, 1)?
            .and_hms_opt(0, 0, 0)
            .map(|start| start.and_utc().timestamp_micros())
    };
    Some((first(year, month)?, first(next_year, next_month)?))
}

/// Whether the table `name` holds only records sealed in segments and about no hot operation.
pub(super) fn only_archived_query(name: &str) -> String {
    format!(
        "select not exists (select 1 from {name} e where e.seq > coalesce((select max(a.last_seq) from archives a \
         where a.tenant = e.tenant and a.holds = 'audit' and a.status = 'sealed'), 0) \
         or (e.op_id is not null and exists (select 1 from operations o where o.tenant = e.tenant and o.op_id = e.op_id)))"
    )
}

/// The closed states, as SQL text.
pub(super) const CLOSED_STATES: &str = "('succeeded', 'rejected', 'denied', 'cancelled')";

pub(super) const ARCHIVE_COLUMNS: &str =
    "tenant, id, location, object_path, status, operations, manifest, created_at_us, first_seq, last_seq, distrust";

pub(super) type ArchiveRow = (
    String,
    String,
    String,
    String,
    String,
    i64,
    Option<String>,
    i64,
    Option<i64>,
    Option<i64>,
    Option<String>,
);

/// A sealed manifest as stored.
fn stored_manifest(text: Option<String>) -> Result<Option<SignedManifest>, StoreError> {
    text.map(|text| serde_json::from_str(&text)).transpose().map_err(|e| corrupt("a manifest")(e.to_string()))
}

/// A distrust as stored.
fn stored_distrust(text: Option<String>) -> Result<Option<ArchiveDistrust>, StoreError> {
    text.map(|text| ArchiveDistrust::parse(&text).ok_or_else(|| corrupt("an archive's distrust")(text)))
        .transpose()
}

pub(super) fn archive_record(row: ArchiveRow) -> Result<ArchiveRecord, StoreError> {
    let (
        tenant,
        id,
        location,
        object_path,
        status,
        operations,
        manifest,
        created_at,
        first_seq,
        last_seq,
        distrust,
    ) = row;
    let position = |seq: i64| u64::try_from(seq).map_err(|e| corrupt("a segment's position")(e.to_string()));
    let audit_span = match (first_seq, last_seq) {
        (Some(first), Some(last)) => Some((position(first)?, position(last)?)),
        _ => None,
    };
    Ok(ArchiveRecord {
        tenant: TenantId::parse(&tenant).map_err(|e| StoreError::Corrupt(e.to_string()))?,
        id,
        location,
        object_path,
        sealed: status == "sealed",
        operations: u64::try_from(operations).map_err(|e| corrupt("an archive's rows")(e.to_string()))?,
        audit_span,
        manifest: stored_manifest(manifest)?,
        created_at: time(created_at)?,
        distrust: stored_distrust(distrust)?,
    })
}

pub(super) const KEY_COLUMNS: &str =
    "k.tenant, k.op_id, k.kind, k.subject, k.provider, k.fingerprint, k.state, \
    k.created_at_us, k.closed_at_us, k.archive_id, a.location, a.object_path, a.manifest, a.distrust";

#[derive(sqlx::FromRow)]
pub(super) struct KeyRow {
    tenant: String,
    op_id: String,
    kind: String,
    subject: String,
    provider: String,
    fingerprint: String,
    state: String,
    created_at_us: i64,
    closed_at_us: i64,
    archive_id: String,
    location: String,
    object_path: String,
    manifest: Option<String>,
    distrust: Option<String>,
}

impl KeyRow {
    pub(super) fn into_key(self) -> Result<ArchivedKey, StoreError> {
        Ok(ArchivedKey {
            tenant: TenantId::parse(&self.tenant).map_err(|e| StoreError::Corrupt(e.to_string()))?,
            op_id: OpId::parse(&self.op_id).map_err(|e| StoreError::Corrupt(e.to_string()))?,
            kind: self.kind,
            subject: self.subject,
            provider: self.provider,
            fingerprint: Fingerprint::from_stored(self.fingerprint),
            state: State::parse(&self.state)
                .ok_or_else(|| corrupt("an archived state")(self.state.clone()))?,
            created_at: time(self.created_at_us)?,
            closed_at: time(self.closed_at_us)?,
            archive_id: self.archive_id,
            location: self.location,
            object_path: self.object_path,
            manifest: stored_manifest(self.manifest)?,
            distrust: stored_distrust(self.distrust)?,
        })
    }
}

macro_rules! store_archive {
    ($store:ty, $db:ty, $backend:expr, $begin:path) => {
        #[async_trait::async_trait]
        impl $crate::server::store::archive::ArchiveStore for $store {
            async fn retention_policy(
                &self,
                tenant: &TenantId,
            ) -> Result<Option<$crate::server::store::archive::RetentionPolicy>, StoreError> {
                let row: Option<(i64, String, String, i64)> = sqlx::query_as(
                    "select days, archive_url, updated_by, updated_at_us from retention_policies where tenant = $1",
                )
                .bind(tenant.as_str())
                .fetch_optional(&self.pool)
                .await?;
                let Some((days, archive_url, updated_by, updated_at)) = row else { return Ok(None) };
                Ok(Some($crate::server::store::archive::RetentionPolicy {
                    tenant: tenant.clone(),
                    days: u32::try_from(days).map_err(|_| StoreError::Corrupt("retention days".into()))?,
                    archive_url,
                    updated_by,
                    updated_at: time(updated_at)?,
                }))
            }

            async fn set_retention_policy(
                &self,
                policy: $crate::server::store::archive::RetentionPolicy,
                audit: AuditEntry,
            ) -> Result<(), StoreError> {
                let mut tx = $begin(self).await?;
                sqlx::query(
                    "insert into retention_policies (tenant, days, archive_url, updated_by, updated_at_us) \
                     values ($1, $2, $3, $4, $5) on conflict (tenant) do update set days = excluded.days, \
                     archive_url = excluded.archive_url, updated_by = excluded.updated_by, \
                     updated_at_us = excluded.updated_at_us",
                )
                .bind(policy.tenant.as_str())
                .bind(i64::from(policy.days))
                .bind(&policy.archive_url)
                .bind(&policy.updated_by)
                .bind(micros(policy.updated_at))
                .execute(&mut *tx)
                .await?;
                append_audit(&mut tx, &policy.tenant, vec![audit]).await?;
                tx.commit().await?;
                Ok(())
            }

            async fn remove_retention_policy(&self, tenant: &TenantId, audit: AuditEntry) -> Result<(), StoreError> {
                let mut tx = $begin(self).await?;
                let removed = sqlx::query("delete from retention_policies where tenant = $1")
                    .bind(tenant.as_str())
                    .execute(&mut *tx)
                    .await?
                    .rows_affected();
                if removed == 0 {
                    return Err(StoreError::NotFound);
                }
                append_audit(&mut tx, tenant, vec![audit]).await?;
                tx.commit().await?;
                Ok(())
            }

            async fn take_sweep_lease(
                &self,
                tenant: &TenantId,
                holder: &str,
                now: chrono::DateTime<chrono::Utc>,
                until: chrono::DateTime<chrono::Utc>,
                take_over: bool,
            ) -> Result<bool, StoreError> {
                let mut tx = $begin(self).await?;
                let taken = sqlx::query(
                    "insert into retention_sweeps (tenant, holder, lease_until_us, started_at_us, finished_at_us, archived, last_error) \
                     values ($1, $2, $3, $4, null, 0, null) \
                     on conflict (tenant) do update set holder = excluded.holder, lease_until_us = excluded.lease_until_us, \
                     started_at_us = excluded.started_at_us, finished_at_us = null, archived = 0, last_error = null \
                     where retention_sweeps.holder is null or retention_sweeps.holder = excluded.holder \
                     or retention_sweeps.lease_until_us < $5",
                )
                .bind(tenant.as_str())
                .bind(holder)
                .bind(micros(until))
                .bind(micros(now))
                .bind(if take_over { i64::MAX } else { micros(now) })
                .execute(&mut *tx)
                .await?
                .rows_affected();
                tx.commit().await?;
                Ok(taken == 1)
            }

            async fn sweep_progress(
                &self,
                tenant: &TenantId,
                holder: &str,
                archived: u64,
                until: chrono::DateTime<chrono::Utc>,
            ) -> Result<bool, StoreError> {
                let mut tx = $begin(self).await?;
                let renewed = sqlx::query(
                    "update retention_sweeps set archived = $1, lease_until_us = $2 where tenant = $3 and holder = $4",
                )
                .bind(i64::try_from(archived).unwrap_or(i64::MAX))
                .bind(micros(until))
                .bind(tenant.as_str())
                .bind(holder)
                .execute(&mut *tx)
                .await?
                .rows_affected();
                tx.commit().await?;
                Ok(renewed == 1)
            }

            async fn end_sweep(
                &self,
                tenant: &TenantId,
                holder: &str,
                at: chrono::DateTime<chrono::Utc>,
                archived: u64,
                error: Option<String>,
            ) -> Result<(), StoreError> {
                let mut tx = $begin(self).await?;
                sqlx::query(
                    "update retention_sweeps set holder = null, lease_until_us = null, finished_at_us = $1, \
                     archived = $2, last_error = $3 where tenant = $4 and holder = $5",
                )
                .bind(micros(at))
                .bind(i64::try_from(archived).unwrap_or(i64::MAX))
                .bind(error)
                .bind(tenant.as_str())
                .bind(holder)
                .execute(&mut *tx)
                .await?;
                tx.commit().await?;
                Ok(())
            }

            async fn sweep_status(
                &self,
                tenant: &TenantId,
            ) -> Result<Option<$crate::server::store::archive::SweepStatus>, StoreError> {
                type Row = (Option<String>, Option<i64>, Option<i64>, Option<i64>, i64, Option<String>);
                let row: Option<Row> = sqlx::query_as(
                    "select holder, lease_until_us, started_at_us, finished_at_us, archived, last_error \
                     from retention_sweeps where tenant = $1",
                )
                .bind(tenant.as_str())
                .fetch_optional(&self.pool)
                .await?;
                let Some((holder, lease_until, started_at, finished_at, archived, last_error)) = row else {
                    return Ok(None);
                };
                let time = |us: Option<i64>| us.map(time).transpose();
                Ok(Some($crate::server::store::archive::SweepStatus {
                    holder,
                    lease_until: time(lease_until)?,
                    started_at: time(started_at)?,
                    finished_at: time(finished_at)?,
                    archived: u64::try_from(archived).unwrap_or(0),
                    last_error,
                }))
            }

            async fn archivable(
                &self,
                tenant: &TenantId,
                closed_before: chrono::DateTime<chrono::Utc>,
                limit: u32,
            ) -> Result<Vec<$crate::domain::archive::ArchivedOperation>, StoreError> {
                use $crate::server::store::archive::CLOSED_STATES;
                let mut connection = self.pool.acquire().await?;
                let ids: Vec<(String,)> = sqlx::query_as(&format!(
                    "select o.op_id from operations o where o.tenant = $1 and o.state in {CLOSED_STATES} \
                     and o.updated_at_us < $2 \
                     and not exists (select 1 from operations c where c.tenant = o.tenant and c.compensates = o.op_id) \
                     and not exists (select 1 from audit_pending p where p.tenant = o.tenant and p.op_id = o.op_id) \
                     and not exists (select 1 from archived_operations k where k.tenant = o.tenant and k.op_id = o.op_id) \
                     order by o.updated_at_us, o.op_id limit $3"
                ))
                .bind(tenant.as_str())
                .bind(micros(closed_before))
                .bind(i64::from(limit))
                .fetch_all(&mut *connection)
                .await?;
                let op_ids = ids
                    .into_iter()
                    .map(|(op_id,)| OpId::parse(&op_id).map_err(|e| StoreError::Corrupt(e.to_string())))
                    .collect::<Result<Vec<_>, _>>()?;
                let histories = histories_in(&mut connection, tenant, &op_ids).await?;
                type Grouped = std::collections::HashMap<String, Vec<serde_json::Value>>;
                let (mut trails, mut approvals, mut conflicts) =
                    (std::collections::HashMap::<String, Vec<_>>::new(), Grouped::new(), Grouped::new());
                for chunk in op_ids.chunks(1000) {
                    let ids: Vec<String> = chunk.iter().map(|op_id| op_id.as_str().to_owned()).collect();
                    let text = in_list(&format!("select {AUDIT_COLUMNS} from audit_events"), tenant, "op_id", &ids, "order by seq");
                    let rows: Vec<AuditRow> =
                        sqlx::query_as_with(&text.sql, arguments::<$db>(text.values)?).fetch_all(&mut *connection).await?;
                    for record in rows.into_iter().map(AuditRow::into_record) {
                        let record = record?;
                        trails.entry(record.entry.op_id.clone().unwrap_or_default()).or_default().push(record);
                    }
                    type ApprovalRow = (String, String, String, String, String, i64, Option<i64>);
                    let text = in_list(
                        "select op_id, decision, decided_by, fingerprint, reason, decided_at_us, expires_at_us from approvals",
                        tenant,
                        "op_id",
                        &ids,
                        "order by id",
                    );
                    let rows: Vec<ApprovalRow> =
                        sqlx::query_as_with(&text.sql, arguments::<$db>(text.values)?).fetch_all(&mut *connection).await?;
                    for (op_id, decision, decided_by, fingerprint, reason, decided_at, expires_at) in rows {
                        approvals.entry(op_id).or_default().push(serde_json::json!({
                            "decision": decision, "decided_by": decided_by, "fingerprint": fingerprint,
                            "reason": reason, "decided_at_us": decided_at, "expires_at_us": expires_at,
                        }));
                    }
                    type ConflictRow = (String, String, String, String, String, String, i64);
                    let text = in_list(
                        "select op_id, requested_params, requested_fingerprint, stored_fingerprint, diff, requested_by, \
                         received_at_us from conflicts",
                        tenant,
                        "op_id",
                        &ids,
                        "order by id",
                    );
                    let rows: Vec<ConflictRow> =
                        sqlx::query_as_with(&text.sql, arguments::<$db>(text.values)?).fetch_all(&mut *connection).await?;
                    for (op_id, params, requested, stored, diff, by, at) in rows {
                        let parse = |text: &str| {
                            serde_json::from_str::<serde_json::Value>(text).map_err(|e| corrupt("a conflict")(e.to_string()))
                        };
                        conflicts.entry(op_id).or_default().push(serde_json::json!({
                            "requested_params": parse(&params)?,
                            "requested_fingerprint": requested, "stored_fingerprint": stored,
                            "diff": parse(&diff)?,
                            "requested_by": by, "received_at_us": at,
                        }));
                    }
                }
                let mut archived = Vec::with_capacity(histories.len());
                for history in histories {
                    let key = history.operation.op_id.as_str().to_owned();
                    let (trail, approvals, conflicts) = (
                        trails.remove(&key).unwrap_or_default(),
                        approvals.remove(&key).unwrap_or_default(),
                        conflicts.remove(&key).unwrap_or_default(),
                    );
                    let operation = history.operation;
                    archived.push($crate::domain::archive::ArchivedOperation {
                        tenant: operation.tenant,
                        op_id: operation.op_id,
                        kind: operation.kind,
                        subject: operation.subject,
                        provider: operation.provider,
                        params: operation.params.as_value().clone(),
                        idempotency_key: operation.idempotency_key,
                        compensates: operation.compensates,
                        retry_of: operation.retry_of,
                        action: operation.action,
                        server_sends: operation.server_sends,
                        snapshot: operation.snapshot,
                        accepted_at: operation.accepted_at,
                        version: operation.version,
                        created_at: operation.created_at,
                        closed_at: operation.updated_at,
                        attempts: history.attempts,
                        external_refs: history.external_refs,
                        approvals,
                        conflicts,
                        trail,
                    });
                }
                Ok(archived)
            }

            async fn claim_archive(&self, record: $crate::server::store::archive::ArchiveRecord) -> Result<(), StoreError> {
                let mut tx = $begin(self).await?;
                sqlx::query(
                    "insert into archives (tenant, id, location, object_path, status, operations, manifest, created_at_us, \
                     holds, first_seq, last_seq) values ($1, $2, $3, $4, 'writing', $5, null, $6, $7, $8, $9)",
                )
                .bind(record.tenant.as_str())
                .bind(&record.id)
                .bind(&record.location)
                .bind(&record.object_path)
                .bind(i64::try_from(record.operations).unwrap_or(i64::MAX))
                .bind(micros(record.created_at))
                .bind(if record.audit_span.is_some() { "audit" } else { "operations" })
                .bind(record.audit_span.map(|(first, _)| first as i64))
                .bind(record.audit_span.map(|(_, last)| last as i64))
                .execute(&mut *tx)
                .await?;
                tx.commit().await?;
                Ok(())
            }

            async fn seal_archive(
                &self,
                tenant: &TenantId,
                id: &str,
                manifest: &$crate::domain::archive::SignedManifest,
                operations: &[$crate::domain::archive::ArchivedOperation],
                audit: AuditEntry,
            ) -> Result<(), StoreError> {
                let text = serde_json::to_string(manifest).map_err(|e| StoreError::Corrupt(e.to_string()))?;
                let mut tx = $begin(self).await?;
                let sealed = sqlx::query(
                    "update archives set status = 'sealed', manifest = $1 where tenant = $2 and id = $3 and status = 'writing'",
                )
                .bind(&text)
                .bind(tenant.as_str())
                .bind(id)
                .execute(&mut *tx)
                .await?
                .rows_affected();
                if sealed == 0 {
                    return Err(StoreError::Conflict(format!("the archive file {id} is no longer being written")));
                }
                for operation in operations {
                    sqlx::query(
                        "insert into archived_operations (tenant, op_id, kind, subject, provider, fingerprint, state, \
                         created_at_us, closed_at_us, archive_id) values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)",
                    )
                    .bind(tenant.as_str())
                    .bind(operation.op_id.as_str())
                    .bind(&operation.kind)
                    .bind(&operation.subject)
                    .bind(&operation.provider)
                    .bind(operation.snapshot.fingerprint.as_str())
                    .bind(operation.snapshot.state.as_str())
                    .bind(micros(operation.created_at))
                    .bind(micros(operation.closed_at))
                    .bind(id)
                    .execute(&mut *tx)
                    .await
                    .map_err(|e| StoreError::from_unique(e, "an operation of this file was archived by another sweep"))?;
                    for reference in &operation.external_refs {
                        sqlx::query(
                            "insert into archived_refs (tenant, provider, external_id, op_id) values ($1, $2, $3, $4) \
                             on conflict (tenant, provider, external_id) do nothing",
                        )
                        .bind(tenant.as_str())
                        .bind(&reference.provider)
                        .bind(&reference.external_id)
                        .bind(operation.op_id.as_str())
                        .execute(&mut *tx)
                        .await?;
                    }
                }
                append_audit(&mut tx, tenant, vec![audit]).await?;
                tx.commit().await?;
                Ok(())
            }

            async fn unfinished_archives(
                &self,
                tenant: &TenantId,
            ) -> Result<Vec<$crate::server::store::archive::ArchiveRecord>, StoreError> {
                use $crate::server::store::archive::{archive_record, ArchiveRow, ARCHIVE_COLUMNS};
                let rows: Vec<ArchiveRow> = sqlx::query_as(&format!(
                    "select {ARCHIVE_COLUMNS} from archives where tenant = $1 and status <> 'sealed' order by created_at_us, id"
                ))
                .bind(tenant.as_str())
                .fetch_all(&self.pool)
                .await?;
                rows.into_iter().map(archive_record).collect()
            }

            async fn abandon_archive(&self, tenant: &TenantId, id: &str) -> Result<bool, StoreError> {
                let mut tx = $begin(self).await?;
                let abandoned = sqlx::query(
                    "update archives set status = 'abandoned' where tenant = $1 and id = $2 and status = 'writing'",
                )
                .bind(tenant.as_str())
                .bind(id)
                .execute(&mut *tx)
                .await?
                .rows_affected();
                tx.commit().await?;
                Ok(abandoned == 1)
            }

            async fn drop_archive(&self, tenant: &TenantId, id: &str) -> Result<(), StoreError> {
                let mut tx = $begin(self).await?;
                sqlx::query("delete from archives where tenant = $1 and id = $2 and status = 'abandoned'")
                    .bind(tenant.as_str())
                    .bind(id)
                    .execute(&mut *tx)
                    .await?;
                tx.commit().await?;
                Ok(())
            }

            async fn archives_with_hot_rows(&self, tenant: &TenantId) -> Result<Vec<String>, StoreError> {
                let ids: Vec<(String,)> = sqlx::query_as(
                    "select id from archives where tenant = $1 and status = 'sealed' and holds = 'operations' \
                     and hot_rows_removed_at_us is null order by created_at_us, id",
                )
                .bind(tenant.as_str())
                .fetch_all(&self.pool)
                .await?;
                Ok(ids.into_iter().map(|(id,)| id).collect())
            }

            async fn remove_archived(
                &self,
                tenant: &TenantId,
                id: &str,
                at: chrono::DateTime<chrono::Utc>,
            ) -> Result<u64, StoreError> {
                let mut tx = $begin(self).await?;
                let mut removed = 0;
                // Operations last: the other rows refer to them. Operations that compensate
                // others of the same file go in the same statement as those they compensate.
                for table in ["attempts", "external_refs", "conflicts", "approvals", "send_baselines", "operations"] {
                    removed = sqlx::query(&format!(
                        "delete from {table} where tenant = $1 and op_id in \
                         (select op_id from archived_operations where tenant = $1 and archive_id = $2)"
                    ))
                    .bind(tenant.as_str())
                    .bind(id)
                    .execute(&mut *tx)
                    .await?
                    .rows_affected();
                }
                sqlx::query("update archives set hot_rows_removed_at_us = $1 where tenant = $2 and id = $3")
                    .bind(micros(at))
                    .bind(tenant.as_str())
                    .bind(id)
                    .execute(&mut *tx)
                    .await?;
                tx.commit().await?;
                Ok(removed)
            }

            async fn tidy_after_sweep(&self) -> Result<(), StoreError> {
                match $backend {
                    Backend::Sqlite => sqlx::query("pragma incremental_vacuum").execute(&self.writes).await?,
                    Backend::Postgres => sqlx::query("analyze archived_operations, archived_refs, archives").execute(&self.pool).await?,
                };
                Ok(())
            }

            async fn archived_key(
                &self,
                tenant: &TenantId,
                op_id: &OpId,
            ) -> Result<Option<$crate::server::store::archive::ArchivedKey>, StoreError> {
                use $crate::server::store::archive::{KeyRow, KEY_COLUMNS};
                let row: Option<KeyRow> = sqlx::query_as(&format!(
                    "select {KEY_COLUMNS} from archived_operations k join archives a \
                     on a.tenant = k.tenant and a.id = k.archive_id where k.tenant = $1 and k.op_id = $2"
                ))
                .bind(tenant.as_str())
                .bind(op_id.as_str())
                .fetch_optional(&self.pool)
                .await?;
                row.map(KeyRow::into_key).transpose()
            }

            async fn find_archived(
                &self,
                tenant: &TenantId,
                term: &str,
                limit: u32,
            ) -> Result<Vec<$crate::server::store::archive::ArchivedKey>, StoreError> {
                use $crate::server::store::archive::{KeyRow, KEY_COLUMNS};
                // The op ids first, each way by its own index; then their keys by primary key. One
                // statement joining the two leaves the planner free to read every key.
                let found: Vec<(String,)> = sqlx::query_as(
                    "select op_id from archived_operations where tenant = $1 and op_id = $2 \
                     union select op_id from archived_operations where tenant = $1 and subject = $2 \
                     union select op_id from archived_refs where tenant = $1 and external_id = $2",
                )
                .bind(tenant.as_str())
                .bind(term)
                .fetch_all(&self.pool)
                .await?;
                if found.is_empty() {
                    return Ok(Vec::new());
                }
                let mut text = QueryText::new(&format!(
                    "select {KEY_COLUMNS} from archived_operations k join archives a \
                     on a.tenant = k.tenant and a.id = k.archive_id where k.tenant = "
                ));
                let tenant_value = text.param(SqlValue::Text(tenant.as_str().to_owned()));
                text.push(&tenant_value);
                let list: Vec<String> = found.into_iter().map(|(op_id,)| text.param(SqlValue::Text(op_id))).collect();
                let limit = text.param(SqlValue::Int(i64::from(limit)));
                text.push(&format!(" and k.op_id in ({}) order by k.closed_at_us desc, k.op_id limit {limit}", list.join(", ")));
                let rows: Vec<KeyRow> =
                    sqlx::query_as_with(&text.sql, arguments::<$db>(text.values)?).fetch_all(&self.pool).await?;
                rows.into_iter().map(KeyRow::into_key).collect()
            }

            async fn archives(
                &self,
                tenant: &TenantId,
            ) -> Result<Vec<$crate::server::store::archive::ArchiveRecord>, StoreError> {
                use $crate::server::store::archive::{archive_record, ArchiveRow, ARCHIVE_COLUMNS};
                let rows: Vec<ArchiveRow> = sqlx::query_as(&format!(
                    "select {ARCHIVE_COLUMNS} from archives where tenant = $1 order by created_at_us, id"
                ))
                .bind(tenant.as_str())
                .fetch_all(&self.pool)
                .await?;
                rows.into_iter().map(archive_record).collect()
            }

            async fn distrust_archive(
                &self,
                tenant: &TenantId,
                id: &str,
                why: Option<$crate::domain::archive::ArchiveDistrust>,
                audit: AuditEntry,
            ) -> Result<bool, StoreError> {
                let why = why.map(|why| why.as_str());
                let mut tx = $begin(self).await?;
                let changed = sqlx::query(
                    "update archives set distrust = $1, distrusted_at_us = $2 where tenant = $3 and id = $4 \
                     and status = 'sealed' and coalesce(distrust, '') <> coalesce($1, '')",
                )
                .bind(why)
                .bind(why.map(|_| micros(audit.at)))
                .bind(tenant.as_str())
                .bind(id)
                .execute(&mut *tx)
                .await?
                .rows_affected();
                if changed == 0 {
                    return Ok(false);
                }
                if why.is_some() {
                    let event = $crate::domain::notification::NotifyEvent::ArchiveUntrusted;
                    let watch = watch_insert(tenant.as_str(), &format!("archive:{id}"), event, "", micros(audit.at));
                    execute_all(&mut tx, vec![watch]).await?;
                }
                append_audit(&mut tx, tenant, vec![audit]).await?;
                tx.commit().await?;
                Ok(true)
            }

            async fn audit_segments(
                &self,
                tenant: &TenantId,
            ) -> Result<Vec<$crate::server::store::archive::ArchiveRecord>, StoreError> {
                use $crate::server::store::archive::{archive_record, ArchiveRow, ARCHIVE_COLUMNS};
                let rows: Vec<ArchiveRow> = sqlx::query_as(&format!(
                    "select {ARCHIVE_COLUMNS} from archives where tenant = $1 and holds = 'audit' and status = 'sealed' \
                     order by first_seq"
                ))
                .bind(tenant.as_str())
                .fetch_all(&self.pool)
                .await?;
                rows.into_iter().map(archive_record).collect()
            }

            async fn audit_due(
                &self,
                tenant: &TenantId,
                after_seq: u64,
                made_before: chrono::DateTime<chrono::Utc>,
                limit: u32,
            ) -> Result<Vec<$crate::domain::audit::AuditRecord>, StoreError> {
                let rows: Vec<AuditRow> = sqlx::query_as(&format!(
                    "select {AUDIT_COLUMNS} from audit_events where tenant = $1 and seq > $2 \
                     and seq < (select max(seq) from audit_events where tenant = $1) order by seq limit $3"
                ))
                .bind(tenant.as_str())
                .bind(after_seq as i64)
                .bind(i64::from(limit))
                .fetch_all(&self.pool)
                .await?;
                let mut due = Vec::new();
                for row in rows {
                    let record = row.into_record()?;
                    if record.entry.at >= made_before {
                        break;
                    }
                    due.push(record);
                }
                Ok(due)
            }

            async fn seal_audit_segment(
                &self,
                tenant: &TenantId,
                id: &str,
                manifest: &$crate::domain::archive::SignedManifest,
                audit: AuditEntry,
            ) -> Result<(), StoreError> {
                let text = serde_json::to_string(manifest).map_err(|e| StoreError::Corrupt(e.to_string()))?;
                let mut tx = $begin(self).await?;
                let (last,): (Option<i64>,) = sqlx::query_as(
                    "select max(last_seq) from archives where tenant = $1 and holds = 'audit' and status = 'sealed'",
                )
                .bind(tenant.as_str())
                .fetch_one(&mut *tx)
                .await?;
                let sealed = sqlx::query(
                    "update archives set status = 'sealed', manifest = $1 where tenant = $2 and id = $3 \
                     and status = 'writing' and holds = 'audit' and first_seq = $4",
                )
                .bind(&text)
                .bind(tenant.as_str())
                .bind(id)
                .bind(last.unwrap_or(0) + 1)
                .execute(&mut *tx)
                .await
                .map_err(|e| StoreError::from_unique(e, "another sweep sealed a segment from the same position"))?
                .rows_affected();
                if sealed == 0 {
                    return Err(StoreError::Conflict(format!(
                        "the segment {id} no longer follows the last sealed one, or is no longer being written"
                    )));
                }
                append_audit(&mut tx, tenant, vec![audit]).await?;
                tx.commit().await?;
                Ok(())
            }

            async fn detach_archived_months(
                &self,
                ended_before: chrono::DateTime<chrono::Utc>,
            ) -> Result<Vec<String>, StoreError> {
                use $crate::server::store::archive::{only_archived_query, partition_month};
                if $backend != Backend::Postgres {
                    return Ok(Vec::new());
                }
                let pending: Vec<(String,)> = sqlx::query_as(
                    "select c.relname::text from pg_inherits i join pg_class c on c.oid = i.inhrelid \
                     where i.inhparent = 'audit_events'::regclass and i.inhdetachpending",
                )
                .fetch_all(&self.pool)
                .await?;
                for (name,) in &pending {
                    if partition_month(name).is_some() {
                        sqlx::raw_sql(&format!("alter table audit_events detach partition {name} finalize"))
                            .execute(&self.pool)
                            .await?;
                    }
                }
                // A month detached by a sweep that stopped before dropping it: whatever it holds is
                // in the archive, or it would have been attached again.
                let detached: Vec<(String,)> = sqlx::query_as(
                    "select c.relname::text from pg_class c where c.relkind = 'r' and c.relnamespace = 'public'::regnamespace \
                     and c.relname ~ '^audit_events_[0-9]{6}$' and not c.relispartition",
                )
                .fetch_all(&self.pool)
                .await?;
                for (name,) in &detached {
                    if partition_month(name).is_some() {
                        sqlx::raw_sql(&format!("drop table {name}")).execute(&self.pool).await?;
                    }
                }
                let partitions: Vec<(String,)> = sqlx::query_as(
                    "select c.relname::text from pg_inherits i join pg_class c on c.oid = i.inhrelid \
                     where i.inhparent = 'audit_events'::regclass order by 1",
                )
                .fetch_all(&self.pool)
                .await?;
                let mut dropped = Vec::new();
                for (name,) in partitions {
                    let Some((start, end)) = partition_month(&name) else { continue };
                    if end > micros(ended_before) {
                        continue;
                    }
                    let (archived,): (bool,) = sqlx::query_as(&only_archived_query(&name)).fetch_one(&self.pool).await?;
                    if !archived {
                        continue;
                    }
                    sqlx::raw_sql(&format!("alter table audit_events detach partition {name} concurrently"))
                        .execute(&self.pool)
                        .await?;
                    let (still,): (bool,) = sqlx::query_as(&only_archived_query(&name)).fetch_one(&self.pool).await?;
                    if !still {
                        tracing::warn!(partition = %name, "a record reached a month while it was detached: attached again");
                        sqlx::raw_sql(&format!("alter table audit_events attach partition {name} for values from ({start}) to ({end})"))
                            .execute(&self.pool)
                            .await?;
                        continue;
                    }
                    sqlx::raw_sql(&format!("drop table {name}")).execute(&self.pool).await?;
                    dropped.push(name);
                }
                Ok(dropped)
            }

            async fn prune_audit(&self, tenant: &TenantId, from_seq: u64, to_seq: u64) -> Result<u64, StoreError> {
                let mut tx = $begin(self).await?;
                let pruned = sqlx::query(
                    "delete from audit_events where tenant = $1 and seq >= $2 and seq <= $3 \
                     and (op_id is null or not exists \
                     (select 1 from operations o where o.tenant = audit_events.tenant and o.op_id = audit_events.op_id))",
                )
                .bind(tenant.as_str())
                .bind(from_seq as i64)
                .bind(to_seq as i64)
                .execute(&mut *tx)
                .await?
                .rows_affected();
                tx.commit().await?;
                Ok(pruned)
            }
        }
    };
}

pub(super) use store_archive;

#[cfg(test)]
mod tests {
    use super::partition_month;

    #[test]
    fn a_partitions_month_is_read_from_its_name_alone() {
        let micros = |text: &str| chrono::DateTime::parse_from_rfc3339(text).unwrap().timestamp_micros();
        assert_eq!(
            partition_month("audit_events_202001"),
            Some((micros("2020-01-01T00:00:00Z"), micros("2020-02-01T00:00:00Z")))
        );
        assert_eq!(
            partition_month("audit_events_202612"),
            Some((micros("2026-12-01T00:00:00Z"), micros("2027-01-01T00:00:00Z")))
        );
        for other in [
            "audit_events",
            "audit_events_2020",
            "audit_events_202013",
            "audit_events_20201",
            "operations_202001",
        ] {
            assert_eq!(partition_month(other), None, "{other}");
        }
    }
}
