//! The archive: where closed operations' histories go when their tenant's retention says so. A
//! tenant's archive is a folder on the server or an S3-compatible bucket, reached through
//! `object_store`; a bucket's requests go through the egress policy's HTTP client, so an endpoint
//! the policy refuses is refused when the retention is set and again at every connection. Each file
//! is Parquet ([`file`]), with a manifest beside it signed by the server's key ([`signing`]), and
//! can be checked offline ([`verify`]).

pub mod checked;
pub mod file;
mod http;
pub mod signing;
pub mod verify;

use bytes::Bytes;
use object_store::path::Path;
use object_store::{ObjectStore, ObjectStoreExt, PutPayload};
use std::sync::Arc;

use crate::domain::archive::ArchiveLocation;
use crate::server::egress::EgressPolicy;

/// Why the archive could not be used.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ArchiveError {
    /// The URL is not an archive's, or the egress policy refuses its endpoint.
    #[error("{0}")]
    Refused(String),
    /// The archive did not answer as it should: nothing that depends on it was done.
    #[error("the archive could not be reached: {0}")]
    Unreachable(String),
    #[error("{0} is not in the archive")]
    Missing(String),
    /// A file is not what its manifest says.
    #[error("{0}")]
    Corrupt(String),
}

/// Which version of a file is in the archive: what changes when the file is written again (its
/// size, its time, the store's entity tag and version).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FileVersion {
    size: u64,
    modified: chrono::DateTime<chrono::Utc>,
    e_tag: Option<String>,
    version: Option<String>,
}

impl FileVersion {
    fn of(meta: &object_store::ObjectMeta) -> FileVersion {
        FileVersion {
            size: meta.size,
            modified: meta.last_modified,
            e_tag: meta.e_tag.clone(),
            version: meta.version.clone(),
        }
    }
}

/// A read of `object_path` that failed: not there, or the archive did not answer.
fn failed(object_path: &str, error: object_store::Error) -> ArchiveError {
    match error {
        object_store::Error::NotFound { .. } => ArchiveError::Missing(object_path.to_owned()),
        error => ArchiveError::Unreachable(error.to_string()),
    }
}

/// A tenant's archive, opened.
#[derive(Debug, Clone)]
pub struct Archive {
    url: String,
    store: Arc<dyn ObjectStore>,
    prefix: Path,
}

/// The name of the manifest beside the file at `object_path`.
pub fn manifest_path(object_path: &str) -> String {
    format!("{object_path}.manifest.json")
}

impl Archive {
    /// Opens the archive at `url`, checking a bucket's endpoint, or a folder, against `egress`
    /// first. A folder is created when it does not exist.
    pub async fn open(url: &str, egress: &EgressPolicy) -> Result<Archive, ArchiveError> {
        let location = ArchiveLocation::parse(url).map_err(ArchiveError::Refused)?;
        let (store, prefix): (Arc<dyn ObjectStore>, Path) = match &location {
            ArchiveLocation::Folder(folder) => {
                egress.check_folder(folder).map_err(ArchiveError::Refused)?;
                std::fs::create_dir_all(folder)
                    .map_err(|error| ArchiveError::Unreachable(format!("the folder {folder}: {error}")))?;
                let store = object_store::local::LocalFileSystem::new_with_prefix(folder)
                    .map_err(|error| ArchiveError::Unreachable(error.to_string()))?;
                (Arc::new(store), Path::default())
            }
            ArchiveLocation::Bucket { bucket, prefix, endpoint, region } => {
                let endpoint_url = location.endpoint().expect("a bucket has an endpoint");
                egress.check_url(&endpoint_url).await.map_err(|why| {
                    ArchiveError::Refused(format!("the archive's endpoint is refused: {why}"))
                })?;
                let connector = http::EgressConnector::new(egress.clone(), &endpoint_url)?;
                let mut builder = object_store::aws::AmazonS3Builder::from_env()
                    .with_bucket_name(bucket)
                    .with_region(region.as_deref().unwrap_or("us-east-1"))
                    .with_http_connector(connector)
                    .with_retry(object_store::RetryConfig {
                        max_retries: 2,
                        retry_timeout: std::time::Duration::from_secs(20),
                        ..object_store::RetryConfig::default()
                    });
                if let Some(endpoint) = endpoint {
                    builder =
                        builder.with_endpoint(endpoint).with_allow_http(endpoint.starts_with("http://"));
                }
                let store = builder.build().map_err(|error| ArchiveError::Refused(error.to_string()))?;
                (Arc::new(store), Path::from(prefix.as_str()))
            }
        };
        Ok(Archive { url: url.trim().to_owned(), store, prefix })
    }

    /// The URL it was opened with.
    pub fn url(&self) -> &str {
        &self.url
    }

    fn path(&self, object_path: &str) -> Path {
        object_path
            .split('/')
            .filter(|part| !part.is_empty())
            .fold(self.prefix.clone(), |path, part| path.clone().join(part))
    }

    /// Writes `bytes` at `object_path`.
    pub async fn put(&self, object_path: &str, bytes: Bytes) -> Result<(), ArchiveError> {
        self.store
            .put(&self.path(object_path), PutPayload::from_bytes(bytes))
            .await
            .map(|_| ())
            .map_err(|error| ArchiveError::Unreachable(error.to_string()))
    }

    /// Reads the file at `object_path`.
    pub async fn get(&self, object_path: &str) -> Result<Bytes, ArchiveError> {
        Ok(self.get_version(object_path).await?.0)
    }

    /// Reads the file at `object_path`, with the version read.
    pub async fn get_version(&self, object_path: &str) -> Result<(Bytes, FileVersion), ArchiveError> {
        let found =
            self.store.get(&self.path(object_path)).await.map_err(|error| failed(object_path, error))?;
        let version = FileVersion::of(&found.meta);
        let bytes = found.bytes().await.map_err(|error| ArchiveError::Unreachable(error.to_string()))?;
        Ok((bytes, version))
    }

    /// The version of the file at `object_path` there now, without reading it.
    pub async fn version(&self, object_path: &str) -> Result<FileVersion, ArchiveError> {
        let meta =
            self.store.head(&self.path(object_path)).await.map_err(|error| failed(object_path, error))?;
        Ok(FileVersion::of(&meta))
    }

    /// Removes the file at `object_path`, if it is there.
    pub async fn remove(&self, object_path: &str) -> Result<(), ArchiveError> {
        match self.store.delete(&self.path(object_path)).await {
            Ok(()) | Err(object_store::Error::NotFound { .. }) => Ok(()),
            Err(error) => Err(ArchiveError::Unreachable(error.to_string())),
        }
    }
}
