//! `opledger audit verify-archive`: checks an archive folder offline (a bucket is checked once
//! copied down, `aws s3 sync s3://bucket/prefix ./archive`). Every manifest must carry a valid
//! signature (by the pinned key, when one is given), name a file whose SHA-256 it states, with as
//! many operations as it says, each trail entry's hash matching its content and the span of the
//! audit chain the manifest states; every file must have its manifest. A segment of the audit
//! chain must hold every record of the span its manifest states, each linked to the one before;
//! a tenant's segments must join, from the chain's first record, with none missing or overlapping.
//! The check of one file against its manifest ([`check_file`]) is the one the server makes before
//! it shows or uses anything read from its archive.

use bytes::Bytes;
use sha2::{Digest, Sha256};
use std::path::{Path, PathBuf};

use super::signing::check_signature;
use super::{file, manifest_path};
use crate::domain::archive::{
    chain_span, segment_span, ArchiveContents, ArchiveDistrust, ArchivedOperation, ChainSpan, SignedManifest,
    MANIFEST_FORMAT,
};
use crate::domain::audit::{AuditRecord, GENESIS_HASH};
use crate::domain::ids::TenantId;

/// What checking an archive folder found when everything holds.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ArchiveCheck {
    pub files: u64,
    pub operations: u64,
    pub audit_records: u64,
    /// Segments of the audit chain, and the records they hold.
    pub segments: u64,
    pub segment_records: u64,
    /// The keys the manifests were signed with.
    pub keys: Vec<String>,
}

fn files_under(folder: &Path, found: &mut Vec<PathBuf>) -> std::io::Result<()> {
    for entry in std::fs::read_dir(folder)? {
        let path = entry?.path();
        if path.is_dir() {
            files_under(&path, found)?;
        } else {
            found.push(path);
        }
    }
    Ok(())
}

/// Checks the archive in `folder`; the first problem found, in words, naming its file.
pub fn verify_folder(folder: &Path, pinned: Option<&str>) -> Result<ArchiveCheck, String> {
    let mut paths = Vec::new();
    files_under(folder, &mut paths).map_err(|error| format!("{}: {error}", folder.display()))?;
    paths.sort();
    let relative =
        |path: &Path| path.strip_prefix(folder).unwrap_or(path).to_string_lossy().replace('\\', "/");
    let mut check = ArchiveCheck {
        files: 0,
        operations: 0,
        audit_records: 0,
        segments: 0,
        segment_records: 0,
        keys: Vec::new(),
    };
    let mut segments: Vec<(TenantId, ChainSpan, String)> = Vec::new();
    let manifests: Vec<&PathBuf> =
        paths.iter().filter(|path| path.to_string_lossy().ends_with(".manifest.json")).collect();
    for path in &paths {
        let name = relative(path);
        if name.ends_with(".parquet") && !paths.contains(&folder.join(manifest_path(&name))) {
            return Err(format!("{name}: a file with no manifest"));
        }
    }
    for path in manifests {
        let name = relative(path);
        let text = std::fs::read_to_string(path).map_err(|error| format!("{name}: {error}"))?;
        let signed: SignedManifest =
            serde_json::from_str(&text).map_err(|error| format!("{name}: not a manifest ({error})"))?;
        check_signature(&signed, pinned).map_err(|why| format!("{name}: {why}"))?;
        let manifest = &signed.manifest;
        if manifest_path(&manifest.object) != name {
            return Err(format!("{name}: it describes {}, which is not the file beside it", manifest.object));
        }
        let object = &manifest.object;
        let bytes = std::fs::read(folder.join(object)).map_err(|error| format!("{object}: {error}"))?;
        let contents = check_file(&signed, Bytes::from(bytes), Depth::Chain).map_err(|refused| refused.detail)?;
        if !check.keys.contains(&manifest.public_key) {
            check.keys.push(manifest.public_key.clone());
        }
        check.files += 1;
        match contents {
            Contents::Segment { span, .. } => {
                check.segments += 1;
                check.segment_records += span.records;
                segments.push((manifest.tenant.clone(), span, object.clone()));
            }
            Contents::Operations(_) => {
                check.operations += manifest.operations;
                check.audit_records += manifest.chain.as_ref().map_or(0, |span| span.records);
            }
        }
    }
    segments_join(segments)?;
    Ok(check)
}

/// Why a file is refused: the reason a reader acts on, and the detail in words, naming the file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Refused {
    pub why: ArchiveDistrust,
    /// The file's path within the archive.
    pub object: String,
    pub detail: String,
}

impl std::fmt::Display for Refused {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.detail)
    }
}

impl Refused {
    pub fn new(why: ArchiveDistrust, object: &str, detail: String) -> Refused {
        Refused { why, object: object.to_owned(), detail }
    }
}

/// What a file holds, checked against its manifest.
#[derive(Debug, Clone, PartialEq)]
pub enum Contents {
    Operations(Vec<ArchivedOperation>),
    /// A segment of the audit chain: the span it holds, and its records.
    Segment {
        span: ChainSpan,
        records: Vec<AuditRecord>,
    },
}

/// How far [`check_file`] goes past the file's SHA-256.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Depth {
    /// Its rows: as many as the manifest states, each of the manifest's tenant. Enough for the
    /// server, which compares the manifest with the one it sealed itself: the SHA-256 under that
    /// signature fixes every byte, the trails' hashes with them.
    Rows,
    /// Also every trail entry's and chain record's hash and link, and the span of the chain the
    /// manifest states: `verify-archive`, for an auditor who takes nothing from the server.
    Chain,
}

/// Checks `bytes` as the file the manifest `signed` describes (whose signature the caller checked):
/// the manifest's format, the file's SHA-256, then what it holds, to `depth`. Operations: as many as
/// the manifest says, each of its tenant; with [`Depth::Chain`], each trail entry's hash matching
/// its content, covering the span of the chain it states. A segment: each record of its tenant;
/// with [`Depth::Chain`], every record of the span it states, each linked to the one before.
/// Whoever reads an archive file (`verify-archive`, the server's pages, API and exports) reads it
/// through here.
pub fn check_file(signed: &SignedManifest, bytes: Bytes, depth: Depth) -> Result<Contents, Refused> {
    let manifest = &signed.manifest;
    let object = &manifest.object;
    if manifest.format != MANIFEST_FORMAT {
        return Err(Refused::new(
            ArchiveDistrust::ManifestChanged,
            object,
            format!("{}: format {:?}, not {MANIFEST_FORMAT}", manifest_path(object), manifest.format),
        ));
    }
    let changed =
        |detail: String| Refused::new(ArchiveDistrust::FileChanged, object, format!("{object}: {detail}"));
    let sha256 = hex::encode(Sha256::digest(&bytes));
    if sha256 != manifest.sha256 {
        return Err(changed(format!(
            "its SHA-256 is {sha256}, the manifest says {}: the file was changed",
            manifest.sha256
        )));
    }
    let other_tenant = |what: String| {
        let detail = format!("{object}: {what} is not of the tenant {}", manifest.tenant);
        Refused::new(ArchiveDistrust::OtherTenant, object, detail)
    };
    if manifest.contents == ArchiveContents::AuditChain {
        let stated = manifest
            .chain
            .as_ref()
            .ok_or_else(|| changed("its manifest states no span of the chain".into()))?;
        let records = file::read_audit(bytes).map_err(|error| changed(error.to_string()))?;
        if let Some(record) = records.iter().find(|record| record.entry.tenant != manifest.tenant.as_str()) {
            return Err(other_tenant(format!("audit record {}", record.seq)));
        }
        if depth == Depth::Rows {
            if records.len() as u64 != stated.records {
                return Err(changed(format!("{} records, the manifest says {}", records.len(), stated.records)));
            }
            return Ok(Contents::Segment { span: stated.clone(), records });
        }
        let span = segment_span((stated.first_seq.saturating_sub(1), &stated.hash_before), &records)
            .map_err(changed)?;
        if &span != stated {
            return Err(changed("it does not hold the span of the chain its manifest states".into()));
        }
        return Ok(Contents::Segment { span, records });
    }
    let operations = file::read(bytes).map_err(|error| changed(error.to_string()))?;
    if operations.len() as u64 != manifest.operations {
        return Err(changed(format!(
            "{} operations, the manifest says {}",
            operations.len(),
            manifest.operations
        )));
    }
    if let Some(operation) = operations.iter().find(|operation| operation.tenant != manifest.tenant) {
        return Err(other_tenant(operation.op_id.to_string()));
    }
    if depth == Depth::Rows {
        return Ok(Contents::Operations(operations));
    }
    for operation in &operations {
        operation.check_trail().map_err(changed)?;
    }
    if chain_span(&operations) != manifest.chain {
        return Err(changed(
            "the trails do not cover the span of the audit chain the manifest states".into(),
        ));
    }
    Ok(Contents::Operations(operations))
}

/// Checks that each tenant's segments follow one another from the chain's first record: each
/// starts where the one before ended, linked to its last hash.
fn segments_join(mut segments: Vec<(TenantId, ChainSpan, String)>) -> Result<(), String> {
    segments.sort_by(|a, b| (a.0.as_str(), a.1.first_seq).cmp(&(b.0.as_str(), b.1.first_seq)));
    let mut previous: Option<&(TenantId, ChainSpan, String)> = None;
    for segment in &segments {
        let (tenant, span, object) = segment;
        let (expected_seq, expected_hash) = match previous {
            Some((before, span_before, _)) if before == tenant => {
                (span_before.last_seq + 1, span_before.hash_after.as_str())
            }
            _ => (1, GENESIS_HASH),
        };
        if span.first_seq != expected_seq || span.hash_before != expected_hash {
            let what = if expected_seq == 1 {
                "the start of the chain".to_owned()
            } else {
                format!("audit record {expected_seq}")
            };
            return Err(format!(
                "{object}: the segments of {tenant} do not join: it starts at audit record {}, not at {what}: a segment is missing, overlaps or was changed",
                span.first_seq
            ));
        }
        previous = Some(segment);
    }
    Ok(())
}
