//! The archive files this server has read and found as they were signed, kept in memory so that
//! the page of an archived operation does not read and check its whole file again. Each entry
//! holds a file's checked contents with the versions of the file and of its manifest it was read
//! at, and the tenant it was checked for: it serves only that tenant, and only while the archive
//! still holds both at those versions (the reader asks the archive first, so a file written again
//! is read and checked again). Entries are weighed by their file's size; the least used leave
//! when the files kept pass the capacity.

use quick_cache::sync::Cache;
use quick_cache::Weighter;
use std::sync::Arc;

use super::verify::Contents;
use super::FileVersion;
use crate::domain::ids::TenantId;

/// How many bytes of archive files a server keeps checked in memory, by default.
pub const CHECKED_BYTES: u64 = 64 * 1024 * 1024;

/// A file found as it was signed.
#[derive(Debug)]
pub struct CheckedFile {
    /// The tenant it was checked for, whose manifest and rows it holds.
    pub tenant: TenantId,
    /// The versions of the file and of its manifest that were read.
    pub file: FileVersion,
    pub manifest: FileVersion,
    pub contents: Contents,
    /// The file's size in bytes.
    pub bytes: u64,
}

#[derive(Clone)]
struct BySize;

impl Weighter<(String, String), Arc<CheckedFile>> for BySize {
    fn weight(&self, _key: &(String, String), checked: &Arc<CheckedFile>) -> u64 {
        checked.bytes.max(1)
    }
}

/// The files kept checked, by archive URL and path; clones share them.
#[derive(Clone)]
pub struct CheckedFiles {
    kept: Arc<Cache<(String, String), Arc<CheckedFile>, BySize>>,
}

impl Default for CheckedFiles {
    fn default() -> Self {
        Self::new(CHECKED_BYTES)
    }
}

impl CheckedFiles {
    /// Keeps up to `capacity` bytes of files.
    pub fn new(capacity: u64) -> Self {
        let files = usize::try_from(capacity / (256 * 1024)).unwrap_or(usize::MAX).max(16);
        Self { kept: Arc::new(Cache::with_weighter(files, capacity, BySize)) }
    }

    /// The file at `object_path` of the archive `location` as it was checked for `tenant`, when
    /// the archive holds it and its manifest at the versions `file` and `manifest` still.
    pub fn get(
        &self,
        location: &str,
        object_path: &str,
        tenant: &TenantId,
        file: &FileVersion,
        manifest: &FileVersion,
    ) -> Option<Arc<CheckedFile>> {
        let kept = self.kept.get(&(location.to_owned(), object_path.to_owned()))?;
        (&kept.tenant == tenant && &kept.file == file && &kept.manifest == manifest).then_some(kept)
    }

    /// Keeps `checked`, the file at `object_path` of the archive `location`.
    pub fn keep(&self, location: &str, object_path: &str, checked: Arc<CheckedFile>) {
        self.kept.insert((location.to_owned(), object_path.to_owned()), checked);
    }

    /// Forgets the file at `object_path` of the archive `location`: it was refused.
    pub fn forget(&self, location: &str, object_path: &str) {
        self.kept.remove(&(location.to_owned(), object_path.to_owned()));
    }
}
