//! The ledger's durable store: a [`Store`] trait named by intent, with one backend per engine
//! (SQLite, the embedded default; PostgreSQL, for several instances), chosen by the scheme of the
//! database URL. All SQL lives below this module; each engine has its own migrations folder with
//! the same numbering.

mod postgres;
mod sqlite;

use async_trait::async_trait;
use std::sync::Arc;

pub use postgres::PostgresStore;
pub use sqlite::SqliteStore;

/// The database engine behind a store.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Backend {
    Sqlite,
    Postgres,
}

impl Backend {
    pub fn as_str(self) -> &'static str {
        match self {
            Backend::Sqlite => "sqlite",
            Backend::Postgres => "postgres",
        }
    }
}

#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    #[error("the database URL must start with sqlite:// or postgres://")]
    UnsupportedUrl,
    #[error("the database is unavailable")]
    Unavailable(#[source] sqlx::Error),
    #[error("the database migrations failed")]
    Migration(#[source] sqlx::migrate::MigrateError),
    #[error("the database failed")]
    Other(#[source] sqlx::Error),
}

impl From<sqlx::Error> for StoreError {
    fn from(error: sqlx::Error) -> Self {
        match error {
            sqlx::Error::Io(_)
            | sqlx::Error::PoolTimedOut
            | sqlx::Error::PoolClosed
            | sqlx::Error::Tls(_) => StoreError::Unavailable(error),
            other => StoreError::Other(other),
        }
    }
}

#[async_trait]
pub trait Store: Send + Sync {
    fn backend(&self) -> Backend;

    /// Applies the migrations this build knows and the database has not seen.
    async fn migrate(&self) -> Result<(), StoreError>;

    /// One round trip to the database.
    async fn check_health(&self) -> Result<(), StoreError>;
}

/// Opens the store that `url` names: `sqlite://FILE` or `postgres://…` (`postgresql://` too).
pub async fn connect(url: &str) -> Result<Arc<dyn Store>, StoreError> {
    if url.starts_with("sqlite:") {
        Ok(Arc::new(SqliteStore::connect(url).await?))
    } else if url.starts_with("postgres://") || url.starts_with("postgresql://") {
        Ok(Arc::new(PostgresStore::connect(url).await?))
    } else {
        Err(StoreError::UnsupportedUrl)
    }
}
