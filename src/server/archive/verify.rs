//! `opledger audit verify-archive`: checks an archive folder offline (a bucket is checked once
//! copied down, `aws s3 sync s3://bucket/prefix ./archive`). Every manifest must carry a valid
//! signature (by the pinned key, when one is given), name a file whose SHA-256 it states, with as
//! many operations as it says, each trail entry's hash matching its content and the span of the
//! audit chain the manifest states; every file must have its manifest.

use bytes::Bytes;
use sha2::{Digest, Sha256};
use std::path::{Path, PathBuf};

use super::signing::check_signature;
use super::{file, manifest_path};
use crate::domain::archive::{chain_span, SignedManifest, MANIFEST_FORMAT};

/// What checking an archive folder found when everything holds.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ArchiveCheck {
    pub files: u64,
    pub operations: u64,
    pub audit_records: u64,
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
    let mut check = ArchiveCheck { files: 0, operations: 0, audit_records: 0, keys: Vec::new() };
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
        if manifest.format != MANIFEST_FORMAT {
            return Err(format!("{name}: format {:?}, not {MANIFEST_FORMAT}", manifest.format));
        }
        if manifest_path(&manifest.object) != name {
            return Err(format!("{name}: it describes {}, which is not the file beside it", manifest.object));
        }
        let object = &manifest.object;
        let bytes = std::fs::read(folder.join(object)).map_err(|error| format!("{object}: {error}"))?;
        let sha256 = hex::encode(Sha256::digest(&bytes));
        if sha256 != manifest.sha256 {
            return Err(format!(
                "{object}: its SHA-256 is {sha256}, the manifest says {}: the file was changed",
                manifest.sha256
            ));
        }
        let operations = file::read(Bytes::from(bytes)).map_err(|error| format!("{object}: {error}"))?;
        if operations.len() as u64 != manifest.operations {
            return Err(format!(
                "{object}: {} operations, the manifest says {}",
                operations.len(),
                manifest.operations
            ));
        }
        for operation in &operations {
            if operation.tenant != manifest.tenant {
                return Err(format!(
                    "{object}: {} is not of the tenant {}",
                    operation.op_id, manifest.tenant
                ));
            }
            operation.check_trail().map_err(|why| format!("{object}: {why}"))?;
        }
        if chain_span(&operations) != manifest.chain {
            return Err(format!(
                "{object}: the trails do not cover the span of the audit chain the manifest states"
            ));
        }
        check.files += 1;
        check.operations += manifest.operations;
        check.audit_records += manifest.chain.as_ref().map_or(0, |span| span.records);
        if !check.keys.contains(&manifest.public_key) {
            check.keys.push(manifest.public_key.clone());
        }
    }
    Ok(check)
}
