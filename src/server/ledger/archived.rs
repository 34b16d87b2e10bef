//! Reading back what the archive holds, only as it was signed. Every read of an archived operation
//! (its console page, the ledger API and MCP, a registration of its intent again) and of a segment
//! of the audit chain (the exports) takes its file through [`check_file`], against the manifest
//! the ledger sealed the file with, after checking that the manifest beside the file is that one,
//! signed, and of the tenant asking. Nothing read from a file is used before. A file found as signed
//! is kept checked ([`CheckedFiles`]) while the archive holds it and its manifest unchanged. One
//! that is not is refused ([`RetentionError::Untrusted`]): logged, counted in the metrics, recorded
//! with the file (with its audit entry, starting the tenant's notification rules about untrusted
//! archive files), and nothing of it shown, until a read finds the file as signed again.

use serde_json::json;
use std::sync::Arc;

use super::retention::RetentionError;
use super::Ledger;
use crate::domain::archive::{ArchiveDistrust, ArchivedOperation, SignedManifest};
use crate::domain::audit::AuditRecord;
use crate::domain::ids::{Actor, OpId, TenantId};
use crate::server::archive::checked::CheckedFile;
use crate::server::archive::signing::check_signature;
use crate::server::archive::verify::{check_file, Contents, Depth, Refused};
use crate::server::archive::{file, manifest_path, Archive, ArchiveError};
use crate::server::store::archive::{ArchiveRecord, ArchivedKey};
use crate::server::store::StoreError;

/// The actor of the audit entries that record a file refused, or found as signed again.
const CHECKER: &str = "archive-check";

/// An archived operation read back from its file.
#[derive(Debug, Clone)]
pub struct ArchivedHistory {
    pub key: ArchivedKey,
    pub operation: ArchivedOperation,
}

/// A sealed archive file, as the ledger recorded it.
struct Sealed<'a> {
    tenant: &'a TenantId,
    id: &'a str,
    location: &'a str,
    object_path: &'a str,
    manifest: Option<&'a SignedManifest>,
    distrust: Option<ArchiveDistrust>,
}

impl<'a> Sealed<'a> {
    fn of_key(key: &'a ArchivedKey) -> Self {
        Sealed {
            tenant: &key.tenant,
            id: &key.archive_id,
            location: &key.location,
            object_path: &key.object_path,
            manifest: key.manifest.as_ref(),
            distrust: key.distrust,
        }
    }

    fn of_record(record: &'a ArchiveRecord) -> Self {
        Sealed {
            tenant: &record.tenant,
            id: &record.id,
            location: &record.location,
            object_path: &record.object_path,
            manifest: record.manifest.as_ref(),
            distrust: record.distrust,
        }
    }
}

/// Why a file could not be checked: the archive did not answer, or the file is not as signed.
enum Unchecked {
    Unreachable(ArchiveError),
    Refused(Refused),
}

impl Ledger {
    /// `tenant`'s archived operations whose op id, order or external id is exactly `term`.
    pub async fn find_archived(
        &self,
        tenant: &TenantId,
        term: &str,
        limit: u32,
    ) -> Result<Vec<ArchivedKey>, StoreError> {
        self.store.find_archived(tenant, term, limit).await
    }

    /// The archived operation `op_id` of `tenant`, read back from its file as it was signed; `None`
    /// when it was never archived.
    pub async fn archived_history(
        &self,
        tenant: &TenantId,
        op_id: &OpId,
    ) -> Result<Option<ArchivedHistory>, RetentionError> {
        let Some(key) = self.store.archived_key(tenant, op_id).await? else { return Ok(None) };
        self.read_archived(key).await.map(Some)
    }

    /// `tenant`'s sealed segments of the audit chain, from its start.
    pub async fn audit_segments(&self, tenant: &TenantId) -> Result<Vec<ArchiveRecord>, StoreError> {
        self.store.audit_segments(tenant).await
    }

    /// The audit records of the sealed segment `segment`, read from its file as it was signed.
    pub async fn read_audit_segment(
        &self,
        segment: &ArchiveRecord,
    ) -> Result<Vec<AuditRecord>, RetentionError> {
        match &self.checked_file(Sealed::of_record(segment)).await?.contents {
            Contents::Segment { records, .. } => Ok(records.clone()),
            Contents::Operations(_) => Err(StoreError::Corrupt(format!(
                "the segment {} was sealed as a file of operations",
                segment.id
            ))
            .into()),
        }
    }

    /// The operation `key` names, read from its file as it was signed.
    pub(super) async fn read_archived(&self, key: ArchivedKey) -> Result<ArchivedHistory, RetentionError> {
        let checked = self.checked_file(Sealed::of_key(&key)).await?;
        let Contents::Operations(operations) = &checked.contents else {
            return Err(StoreError::Corrupt(format!(
                "{} is kept in a segment of the audit chain",
                key.op_id
            ))
            .into());
        };
        let operation = operations
            .iter()
            .find(|operation| operation.op_id == key.op_id)
            .cloned()
            .ok_or_else(|| ArchiveError::Missing(format!("{} in {}", key.op_id, key.object_path)))?;
        Ok(ArchivedHistory { key, operation })
    }

    /// The contents of `sealed`'s file as it was signed: kept from an earlier read while the archive
    /// holds the file and its manifest at the versions read then, else read and checked now.
    async fn checked_file(&self, sealed: Sealed<'_>) -> Result<Arc<CheckedFile>, RetentionError> {
        let signed = sealed.manifest.ok_or_else(|| {
            StoreError::Corrupt(format!("the archive file {} is recorded without its manifest", sealed.id))
        })?;
        if &signed.manifest.tenant != sealed.tenant || signed.manifest.object != sealed.object_path {
            return Err(StoreError::Corrupt(format!(
                "the archive file {} is recorded with another file's manifest",
                sealed.id
            ))
            .into());
        }
        let archive = Archive::open(sealed.location, self.egress()).await?;
        let beside = manifest_path(sealed.object_path);
        let (file, manifest) = tokio::join!(archive.version(sealed.object_path), archive.version(&beside));
        if let (Ok(file), Ok(manifest)) = (&file, &manifest) {
            if let Some(kept) =
                self.checked.get(sealed.location, sealed.object_path, sealed.tenant, file, manifest)
            {
                self.trusted(&sealed).await;
                return Ok(kept);
            }
        }
        match check_now(&archive, &sealed, signed).await {
            Ok(checked) => {
                let checked = Arc::new(checked);
                self.checked.keep(sealed.location, sealed.object_path, checked.clone());
                self.trusted(&sealed).await;
                Ok(checked)
            }
            Err(Unchecked::Unreachable(error)) => Err(error.into()),
            Err(Unchecked::Refused(refused)) => {
                self.checked.forget(sealed.location, sealed.object_path);
                self.refuse(&sealed, &refused).await;
                Err(RetentionError::Untrusted(refused))
            }
        }
    }

    /// Logs, counts and records that `sealed`'s file was refused for `refused` (once for each
    /// reason: the record and its notification are written when the reason is new).
    async fn refuse(&self, sealed: &Sealed<'_>, refused: &Refused) {
        let why = refused.why.as_str();
        tracing::error!(
            tenant = %sealed.tenant,
            archive = sealed.id,
            object = sealed.object_path,
            why,
            detail = %refused.detail,
            "an archive file is not as it was signed: nothing of it is shown"
        );
        self.metrics.archive_file_refused(sealed.tenant.as_str(), why);
        if sealed.distrust == Some(refused.why) {
            return;
        }
        let evidence =
            json!({"archive": sealed.id, "object": sealed.object_path, "why": why, "detail": refused.detail});
        let audit = Self::action_entry(sealed.tenant, &Actor::system(CHECKER), "distrust_archive", evidence);
        if let Err(error) =
            self.store.distrust_archive(sealed.tenant, sealed.id, Some(refused.why), audit).await
        {
            tracing::warn!(tenant = %sealed.tenant, archive = sealed.id, %error, "an untrusted archive file could not be recorded");
        }
    }

    /// Records that `sealed`'s file, refused before, was found as it was signed.
    async fn trusted(&self, sealed: &Sealed<'_>) {
        let Some(before) = sealed.distrust else { return };
        tracing::info!(tenant = %sealed.tenant, archive = sealed.id, object = sealed.object_path, "an archive file refused before is as it was signed again");
        let evidence = json!({"archive": sealed.id, "object": sealed.object_path, "was": before.as_str()});
        let audit =
            Self::action_entry(sealed.tenant, &Actor::system(CHECKER), "trust_archive_again", evidence);
        if let Err(error) = self.store.distrust_archive(sealed.tenant, sealed.id, None, audit).await {
            tracing::warn!(tenant = %sealed.tenant, archive = sealed.id, %error, "an archive file trusted again could not be recorded");
        }
    }
}

/// Reads `sealed`'s file and the manifest beside it, and checks them against `signed`, the
/// manifest the ledger sealed the file with: the manifest beside it must be that one, of the
/// tenant asking, its signature holding; the file must be what it states ([`check_file`]).
async fn check_now(
    archive: &Archive,
    sealed: &Sealed<'_>,
    signed: &SignedManifest,
) -> Result<CheckedFile, Unchecked> {
    let object = sealed.object_path;
    let beside_path = manifest_path(object);
    let refuse = |why, detail: String| Unchecked::Refused(Refused::new(why, object, detail));
    let (file, beside) = tokio::join!(archive.get_version(object), archive.get_version(&beside_path));
    let (beside, manifest_version) = match beside {
        Ok(read) => read,
        Err(ArchiveError::Missing(_)) => {
            return Err(refuse(
                ArchiveDistrust::ManifestMissing,
                format!("{beside_path}: not in the archive"),
            ))
        }
        Err(error) => return Err(Unchecked::Unreachable(error)),
    };
    let (bytes, file_version) = match file {
        Ok(read) => read,
        Err(ArchiveError::Missing(_)) => {
            return Err(refuse(ArchiveDistrust::FileMissing, format!("{object}: not in the archive")))
        }
        Err(error) => return Err(Unchecked::Unreachable(error)),
    };
    let beside: SignedManifest = serde_json::from_slice(&beside).map_err(|error| {
        refuse(ArchiveDistrust::ManifestChanged, format!("{beside_path}: not a manifest ({error})"))
    })?;
    if &beside.manifest.tenant != sealed.tenant {
        let detail = format!("{beside_path}: a manifest of the tenant {}", beside.manifest.tenant);
        return Err(refuse(ArchiveDistrust::OtherTenant, detail));
    }
    if &beside != signed {
        let detail = format!("{beside_path}: not the manifest the file was sealed with");
        return Err(refuse(ArchiveDistrust::ManifestChanged, detail));
    }
    check_signature(signed, None)
        .map_err(|why| refuse(ArchiveDistrust::ManifestChanged, format!("{beside_path}: {why}")))?;
    let size = bytes.len() as u64;
    let contents = check_file(signed, bytes.clone(), Depth::Rows).map_err(|refused| match tenant_of(&bytes, signed) {
        Some(other) if refused.why == ArchiveDistrust::FileChanged && &other != sealed.tenant => {
            refuse(ArchiveDistrust::OtherTenant, format!("{object}: it holds the tenant {other}'s records"))
        }
        _ => Unchecked::Refused(refused),
    })?;
    Ok(CheckedFile {
        tenant: sealed.tenant.clone(),
        file: file_version,
        manifest: manifest_version,
        contents,
        bytes: size,
    })
}

/// The tenant whose records the file `bytes` holds, read as the kind of file `signed` describes,
/// when it reads as one: to tell another tenant's file put in place of this one. The bytes are not
/// the signed ones, so a reader that panics on them answers nothing rather than ending the request.
fn tenant_of(bytes: &bytes::Bytes, signed: &SignedManifest) -> Option<TenantId> {
    let read = || match signed.manifest.contents {
        crate::domain::archive::ArchiveContents::Operations => {
            file::read(bytes.clone()).ok()?.first().map(|operation| operation.tenant.clone())
        }
        crate::domain::archive::ArchiveContents::AuditChain => {
            TenantId::parse(&file::read_audit(bytes.clone()).ok()?.first()?.entry.tenant).ok()
        }
    };
    std::panic::catch_unwind(std::panic::AssertUnwindSafe(read)).ok().flatten()
}
