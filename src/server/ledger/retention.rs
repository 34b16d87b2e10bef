//! Retention: each tenant says how many days it keeps closed operations hot and where its archive
//! is; a sweep moves what is due there. A sweep holds the tenant's lease (another instance's sweep
//! waits for it), first finishes what a stopped sweep left (removes a file it never sealed, deletes
//! the hot rows of operations whose keys it committed), then, a batch at a time: reads the
//! operations closed before the cutoff, writes their Parquet file and signed manifest, reads the
//! file back and checks its SHA-256, commits the manifest with the operations' keys, and only then
//! deletes their hot rows. Then the audit chain: the records made before the cutoff, a segment at
//! a time from where the last sealed segment ended (never the head, which the next record links
//! to), each written, read back and sealed like a file of operations. On PostgreSQL a month of the
//! chain whose records are all archived, of every tenant, is then detached and dropped; what is
//! left of the segments is deleted from the hot table, except the records about an operation
//! still hot, which stay until it leaves. An archive that
//! cannot be reached stops the sweep before anything is deleted; killed at any point, a sweep run
//! again loses nothing and archives nothing twice.

use bytes::Bytes;
use chrono::{DateTime, Duration, Utc};
use serde_json::json;
use sha2::{Digest, Sha256};

use super::{Ledger, LedgerError};
use crate::domain::archive::{
    chain_span, check_retention_days, segment_span, ArchiveContents, ArchiveLocation, Manifest,
    SignedManifest, MANIFEST_FORMAT,
};
use crate::domain::audit::GENESIS_HASH;
use crate::domain::ids::{Actor, TenantId};
use crate::server::archive::verify::Refused;
use crate::server::archive::{file, manifest_path, Archive, ArchiveError};
use crate::server::clock::now;
use crate::server::store::archive::{ArchiveRecord, RetentionPolicy, SweepStatus};
use crate::server::store::StoreError;

/// How long a sweep's lease lasts without progress: another instance takes over after it.
const SWEEP_LEASE: Duration = Duration::minutes(5);

/// How many operations one archive file holds, unless the caller says otherwise.
pub const DEFAULT_BATCH: u32 = 2_000;

/// How many audit records one segment of the chain holds at most.
pub const AUDIT_SEGMENT_RECORDS: u32 = 10_000;

/// How many positions of the audit chain one transaction deletes from the hot table at most.
const AUDIT_PRUNE_WINDOW: u64 = 5_000;

/// Why retention could not do what was asked.
#[derive(Debug, thiserror::Error)]
pub enum RetentionError {
    #[error("{field}: {problem}")]
    Invalid { field: &'static str, problem: String },
    #[error("the tenant has no retention set: set one first (opledger retention set)")]
    NoPolicy,
    #[error("no OPLEDGER_SECRET_KEY is set: the archive's manifests are signed with a key derived from it")]
    NoSigningKey,
    #[error("another sweep of this tenant is running (held by {0}); it is not started twice")]
    Busy(String),
    #[error(transparent)]
    Archive(#[from] ArchiveError),
    /// A file read back from the archive is not as it was signed.
    #[error("{0}")]
    Untrusted(Refused),
    #[error(transparent)]
    Store(#[from] StoreError),
}

impl From<RetentionError> for LedgerError {
    fn from(error: RetentionError) -> Self {
        match error {
            RetentionError::Invalid { field, problem } => LedgerError::InvalidField { field, problem },
            RetentionError::Store(error) => LedgerError::Store(error),
            RetentionError::Archive(error) => LedgerError::Unavailable(format!(
                "the operation is archived and its archive cannot be read now: {error}"
            )),
            RetentionError::Untrusted(refused) => {
                LedgerError::Untrusted { why: refused.why, object: refused.object }
            }
            other => LedgerError::Invalid(other.to_string()),
        }
    }
}

/// What a sweep did.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct SweepReport {
    /// Operations archived by this sweep.
    pub archived: u64,
    /// Archive files it wrote.
    pub files: u64,
    /// Unsealed files of a stopped sweep that it removed.
    pub abandoned_files: u64,
    /// Audit records it archived, in segments of the chain.
    pub audit_records: u64,
    /// Segments of the audit chain it wrote.
    pub audit_files: u64,
    /// Audit records it deleted from the hot table, all of them in sealed segments.
    pub audit_pruned: u64,
    /// PostgreSQL: monthly partitions of the audit chain it detached and dropped, every record in
    /// them archived.
    pub audit_months_detached: u64,
}

/// The manifest of the archive file `id` at `object`, holding `contents`, before it is written:
/// its SHA-256 and key are filled in then. `span` is when its first and last operation closed, or
/// its first and last record was made.
fn unsigned_manifest(
    contents: ArchiveContents,
    tenant: &TenantId,
    id: &str,
    object: &str,
    operations: u64,
    chain: Option<crate::domain::archive::ChainSpan>,
    span: (DateTime<Utc>, DateTime<Utc>),
) -> Manifest {
    Manifest {
        format: MANIFEST_FORMAT.to_owned(),
        contents,
        tenant: tenant.clone(),
        archive_id: id.to_owned(),
        object: object.to_owned(),
        operations,
        chain,
        closed_from: span.0,
        closed_to: span.1,
        sha256: String::new(),
        created_at: super::now(),
        public_key: String::new(),
    }
}

/// A new archive file's id: when it was made, and enough randomness to tell two apart.
fn new_archive_id() -> String {
    format!(
        "{}-{}",
        super::now().format("%Y%m%dT%H%M%S%.6fZ"),
        &uuid::Uuid::new_v4().simple().to_string()[..8]
    )
}

impl Ledger {
    /// Sets `tenant`'s retention: closed operations leave the hot tables `days` after they closed,
    /// for the archive at `archive_url`. Refused, changing nothing, for a retention outside 1 to
    /// 36500 days, an archive URL that is not one, or an endpoint the egress policy refuses.
    pub async fn set_retention(
        &self,
        tenant: &TenantId,
        actor: &Actor,
        days: i64,
        archive_url: &str,
    ) -> Result<RetentionPolicy, RetentionError> {
        let days = check_retention_days(days)
            .map_err(|problem| RetentionError::Invalid { field: "days", problem })?;
        ArchiveLocation::parse(archive_url)
            .map_err(|problem| RetentionError::Invalid { field: "archive_url", problem })?;
        Archive::open(archive_url, self.egress()).await.map_err(|error| match error {
            ArchiveError::Refused(problem) => RetentionError::Invalid { field: "archive_url", problem },
            other => RetentionError::Archive(other),
        })?;
        let policy = RetentionPolicy {
            tenant: tenant.clone(),
            days,
            archive_url: archive_url.trim().to_owned(),
            updated_by: actor.name.clone(),
            updated_at: now(),
        };
        let evidence = json!({"days": days, "archive_url": policy.archive_url});
        let audit = Self::action_entry(tenant, actor, "set_retention", evidence);
        self.store.set_retention_policy(policy.clone(), audit).await?;
        Ok(policy)
    }

    /// Ends `tenant`'s retention: nothing more is archived.
    pub async fn remove_retention(&self, tenant: &TenantId, actor: &Actor) -> Result<(), RetentionError> {
        let audit = Self::action_entry(tenant, actor, "remove_retention", json!({}));
        match self.store.remove_retention_policy(tenant, audit).await {
            Err(StoreError::NotFound) => Err(RetentionError::NoPolicy),
            other => Ok(other?),
        }
    }

    /// `tenant`'s last or running sweep and its archive files, oldest first.
    pub async fn retention_status(
        &self,
        tenant: &TenantId,
    ) -> Result<(Option<SweepStatus>, Vec<ArchiveRecord>), StoreError> {
        Ok((self.store.sweep_status(tenant).await?, self.store.archives(tenant).await?))
    }

    /// The public key the archive's manifests are signed with; `None` without a server key.
    pub fn archive_public_key(&self) -> Option<String> {
        self.secrets.as_ref().map(|secrets| secrets.archive_signer().public_key())
    }

    /// `tenant`'s retention, if it set one.
    pub async fn retention(&self, tenant: &TenantId) -> Result<Option<RetentionPolicy>, StoreError> {
        self.store.retention_policy(tenant).await
    }

    /// Archives `tenant`'s operations closed before `now` less its retention, `batch` to a file,
    /// as `holder` (the instance's name), telling `progress` the count archived after each file.
    /// With `take_over`, the lease of a sweep that stopped without releasing it is taken at once;
    /// should that sweep still run, an operation is still sealed in one file only.
    pub async fn sweep(
        &self,
        tenant: &TenantId,
        holder: &str,
        now: DateTime<Utc>,
        batch: u32,
        take_over: bool,
        mut progress: impl FnMut(u64),
    ) -> Result<SweepReport, RetentionError> {
        let policy = self.store.retention_policy(tenant).await?.ok_or(RetentionError::NoPolicy)?;
        let signer = self.secrets.as_ref().ok_or(RetentionError::NoSigningKey)?.archive_signer().clone();
        let archive = Archive::open(&policy.archive_url, self.egress()).await?;
        // The lease runs on the clock, whatever `now` the cutoff is counted from.
        let clock = super::now();
        if !self.store.take_sweep_lease(tenant, holder, clock, clock + SWEEP_LEASE, take_over).await? {
            let holder =
                self.store.sweep_status(tenant).await?.and_then(|status| status.holder).unwrap_or_default();
            return Err(RetentionError::Busy(holder));
        }
        let mut report = SweepReport::default();
        let swept = self
            .sweep_holding(
                tenant,
                holder,
                now,
                batch.max(1),
                &policy,
                &archive,
                &signer,
                &mut report,
                &mut progress,
            )
            .await;
        let error = swept.as_ref().err().map(ToString::to_string);
        self.store.end_sweep(tenant, holder, super::now(), report.archived, error).await?;
        swept.map(|()| report)
    }

    #[allow(clippy::too_many_arguments)]
    async fn sweep_holding(
        &self,
        tenant: &TenantId,
        holder: &str,
        now: DateTime<Utc>,
        batch: u32,
        policy: &RetentionPolicy,
        archive: &Archive,
        signer: &crate::server::archive::signing::ArchiveSigner,
        report: &mut SweepReport,
        progress: &mut impl FnMut(u64),
    ) -> Result<(), RetentionError> {
        for unfinished in self.store.unfinished_archives(tenant).await? {
            let left = Archive::open(&unfinished.location, self.egress()).await?;
            if self.discard(&left, tenant, &unfinished.id, &unfinished.object_path).await? {
                report.abandoned_files += 1;
            }
        }
        for sealed in self.store.archives_with_hot_rows(tenant).await? {
            self.store.remove_archived(tenant, &sealed, super::now()).await?;
        }
        self.seal_audit(Some(tenant)).await?;
        let cutoff = now - Duration::days(i64::from(policy.days));
        loop {
            let operations = self.store.archivable(tenant, cutoff, batch).await?;
            if operations.is_empty() {
                break;
            }
            let id = new_archive_id();
            let closed_to = operations.iter().map(|operation| operation.closed_at).max().unwrap_or(now);
            let object_path = format!("{tenant}/operations/{}/{id}.parquet", closed_to.format("%Y/%m"));
            self.store
                .claim_archive(ArchiveRecord {
                    tenant: tenant.clone(),
                    id: id.clone(),
                    location: policy.archive_url.clone(),
                    object_path: object_path.clone(),
                    sealed: false,
                    operations: operations.len() as u64,
                    audit_span: None,
                    manifest: None,
                    created_at: super::now(),
                    distrust: None,
                })
                .await?;
            let closed_from =
                operations.iter().map(|operation| operation.closed_at).min().unwrap_or_default();
            let manifest = unsigned_manifest(
                ArchiveContents::Operations,
                tenant,
                &id,
                &object_path,
                operations.len() as u64,
                chain_span(&operations),
                (closed_from, closed_to),
            );
            let signed = self.write_or_abandon(archive, signer, file::write(&operations), manifest).await?;
            let evidence = json!({
                "archive": id,
                "object": object_path,
                "operations": operations.len(),
                "sha256": signed.manifest.sha256,
                "closed_before": cutoff,
            });
            let audit = Self::action_entry(tenant, &Actor::system(holder), "archive_operations", evidence);
            if let Err(error) = self.store.seal_archive(tenant, &id, &signed, &operations, audit).await {
                self.abandon(archive, tenant, &id, &object_path).await;
                return Err(error.into());
            }
            report.files += 1;
            report.archived += operations.len() as u64;
            self.store.remove_archived(tenant, &id, super::now()).await?;
            progress(report.archived);
            self.renew_lease(tenant, holder, report).await?;
        }
        self.archive_audit(tenant, holder, cutoff, policy, archive, signer, report).await?;
        if report.archived > 0 || report.audit_pruned > 0 {
            self.store.tidy_after_sweep().await?;
        }
        Ok(())
    }

    /// Records the sweep's progress and renews its lease; refused when another instance took it.
    async fn renew_lease(
        &self,
        tenant: &TenantId,
        holder: &str,
        report: &SweepReport,
    ) -> Result<(), RetentionError> {
        if self.store.sweep_progress(tenant, holder, report.archived, super::now() + SWEEP_LEASE).await? {
            return Ok(());
        }
        Err(RetentionError::Busy("another instance, after this one's lease ran out".into()))
    }

    /// Archives `tenant`'s audit records made before `cutoff`, a segment at a time after the last
    /// sealed one, never the chain's head; on PostgreSQL, detaches and drops the months that hold
    /// archived records only; then deletes the new segments' records left in the hot table but
    /// those about an operation still hot, and those of earlier segments whose operation has left
    /// since.
    #[allow(clippy::too_many_arguments)]
    async fn archive_audit(
        &self,
        tenant: &TenantId,
        holder: &str,
        cutoff: DateTime<Utc>,
        policy: &RetentionPolicy,
        archive: &Archive,
        signer: &crate::server::archive::signing::ArchiveSigner,
        report: &mut SweepReport,
    ) -> Result<(), RetentionError> {
        let sealed = self.store.audit_segments(tenant).await?;
        let mut after = match sealed.last().and_then(|last| last.manifest.as_ref()) {
            Some(signed) => {
                let span = signed.manifest.chain.as_ref().ok_or_else(|| {
                    StoreError::Corrupt(format!(
                        "the segment {} states no span of the chain",
                        signed.manifest.archive_id
                    ))
                })?;
                (span.last_seq, span.hash_after.clone())
            }
            None => (0, GENESIS_HASH.to_owned()),
        };
        let archived_from = after.0 + 1;
        loop {
            let records = self.store.audit_due(tenant, after.0, cutoff, AUDIT_SEGMENT_RECORDS).await?;
            if records.is_empty() {
                break;
            }
            let span = segment_span((after.0, &after.1), &records).map_err(|why| {
                ArchiveError::Corrupt(format!(
                    "the audit chain does not hold, and none of it is archived: {why}"
                ))
            })?;
            let id = new_archive_id();
            let object_path = format!("{tenant}/audit/{:012}-{id}.parquet", span.first_seq);
            self.store
                .claim_archive(ArchiveRecord {
                    tenant: tenant.clone(),
                    id: id.clone(),
                    location: policy.archive_url.clone(),
                    object_path: object_path.clone(),
                    sealed: false,
                    operations: 0,
                    audit_span: Some((span.first_seq, span.last_seq)),
                    manifest: None,
                    created_at: super::now(),
                    distrust: None,
                })
                .await?;
            let (first, last) = (span.first_seq, span.last_seq);
            let made = (
                records.first().map(|record| record.entry.at).unwrap_or_default(),
                records.last().map(|record| record.entry.at).unwrap_or_default(),
            );
            let manifest = unsigned_manifest(
                ArchiveContents::AuditChain,
                tenant,
                &id,
                &object_path,
                0,
                Some(span.clone()),
                made,
            );
            let signed =
                self.write_or_abandon(archive, signer, file::write_audit(&records), manifest).await?;
            let evidence = json!({
                "archive": id,
                "object": object_path,
                "first_seq": first,
                "last_seq": last,
                "sha256": signed.manifest.sha256,
                "made_before": cutoff,
            });
            let audit = Self::action_entry(tenant, &Actor::system(holder), "archive_audit", evidence);
            if let Err(error) = self.store.seal_audit_segment(tenant, &id, &signed, audit).await {
                self.abandon(archive, tenant, &id, &object_path).await;
                return Err(error.into());
            }
            report.audit_files += 1;
            report.audit_records += span.records;
            after = (last, span.hash_after);
            self.renew_lease(tenant, holder, report).await?;
        }
        report.audit_months_detached += self.store.detach_archived_months(cutoff).await?.len() as u64;
        if after.0 >= archived_from {
            report.audit_pruned += self.prune_audit(tenant, archived_from, after.0).await?;
        }
        if archived_from > 1 {
            report.audit_pruned += self.store.prune_audit(tenant, 1, archived_from - 1).await?;
        }
        Ok(())
    }

    /// Deletes the sealed audit records from `first` to `last` from the hot table, but those about
    /// an operation still hot, a window at a time; how many.
    async fn prune_audit(&self, tenant: &TenantId, first: u64, last: u64) -> Result<u64, RetentionError> {
        let mut pruned = 0;
        let mut from = first;
        while from <= last {
            let to = last.min(from + AUDIT_PRUNE_WINDOW - 1);
            pruned += self.store.prune_audit(tenant, from, to).await?;
            from = to + 1;
        }
        Ok(pruned)
    }

    /// Writes the file `bytes` (when they could be made) with its manifest, as [`Self::write_file`];
    /// the file claimed is abandoned should anything fail.
    async fn write_or_abandon(
        &self,
        archive: &Archive,
        signer: &crate::server::archive::signing::ArchiveSigner,
        bytes: Result<Bytes, ArchiveError>,
        manifest: Manifest,
    ) -> Result<SignedManifest, RetentionError> {
        let (tenant, id, object_path) =
            (manifest.tenant.clone(), manifest.archive_id.clone(), manifest.object.clone());
        let written = match bytes {
            Ok(bytes) => self.write_file(archive, signer, bytes, manifest).await,
            Err(error) => Err(error.into()),
        };
        if written.is_err() {
            self.abandon(archive, &tenant, &id, &object_path).await;
        }
        written
    }

    /// Writes `bytes` and their manifest, signed with its SHA-256 filled in, and reads the file
    /// back to check it.
    async fn write_file(
        &self,
        archive: &Archive,
        signer: &crate::server::archive::signing::ArchiveSigner,
        bytes: Bytes,
        mut manifest: Manifest,
    ) -> Result<SignedManifest, RetentionError> {
        let sha256 = hex::encode(Sha256::digest(&bytes));
        manifest.sha256 = sha256.clone();
        let object_path = manifest.object.clone();
        let object_path = object_path.as_str();
        let signed = signer.sign(manifest);
        archive.put(object_path, bytes).await?;
        let manifest_text = serde_json::to_vec_pretty(&signed).expect("a manifest is plain data");
        archive.put(&manifest_path(object_path), Bytes::from(manifest_text)).await?;
        let read_back = archive.get(object_path).await?;
        if hex::encode(Sha256::digest(&read_back)) != sha256 {
            return Err(
                ArchiveError::Corrupt(format!("{object_path} did not read back as it was written")).into()
            );
        }
        Ok(signed)
    }

    /// Removes a file that will not be sealed, as far as the archive can be reached; a file left
    /// behind is removed by the next sweep, which finds its claim. A file sealed meanwhile (its
    /// claim no longer `writing`) is never removed.
    async fn abandon(&self, archive: &Archive, tenant: &TenantId, id: &str, object_path: &str) {
        if let Err(error) = self.discard(archive, tenant, id, object_path).await {
            tracing::warn!(%tenant, archive = id, %error, "an unsealed archive file is left for the next sweep to remove");
        }
    }

    /// Removes the unsealed archive file `id` and forgets it; `false` when it was sealed
    /// meanwhile, and is kept. It is marked abandoned first, so that a sweep still writing it can
    /// no longer seal it.
    async fn discard(
        &self,
        archive: &Archive,
        tenant: &TenantId,
        id: &str,
        object_path: &str,
    ) -> Result<bool, RetentionError> {
        let ours = self.store.abandon_archive(tenant, id).await?;
        let abandoned =
            ours || self.store.unfinished_archives(tenant).await?.iter().any(|left| left.id == id);
        if !abandoned {
            return Ok(false);
        }
        archive.remove(&manifest_path(object_path)).await?;
        archive.remove(object_path).await?;
        self.store.drop_archive(tenant, id).await?;
        Ok(true)
    }

    /// Sweeps every tenant that set a retention, a minute after the server starts (or `every`, when
    /// shorter) and then every `every`, until `stop`. A sweep another instance holds is left to it; one that stops on an
    /// error is logged and tried again at the next pass.
    pub async fn sweep_until(self, every: std::time::Duration, stop: tokio_util::sync::CancellationToken) {
        let holder = format!("serve-{}", std::process::id());
        let mut wait = every.min(std::time::Duration::from_secs(60));
        loop {
            tokio::select! {
                () = stop.cancelled() => return,
                () = tokio::time::sleep(wait) => {}
            }
            wait = every;
            let tenants = match self.store.tenants().await {
                Ok(tenants) => tenants,
                Err(error) => {
                    tracing::warn!(%error, "the retention sweep could not list the tenants");
                    continue;
                }
            };
            for tenant in tenants {
                if !matches!(self.store.retention_policy(&tenant).await, Ok(Some(_))) {
                    continue;
                }
                match self.sweep(&tenant, &holder, now(), DEFAULT_BATCH, false, |_| {}).await {
                    Ok(report) if report.archived > 0 => {
                        tracing::info!(%tenant, archived = report.archived, files = report.files, "archived closed operations")
                    }
                    Ok(_) | Err(RetentionError::Busy(_)) => {}
                    Err(error) => tracing::warn!(%tenant, %error, "the retention sweep stopped"),
                }
            }
        }
    }
}
