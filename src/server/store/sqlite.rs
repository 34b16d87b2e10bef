//! The SQLite backend: one file, WAL journal, `synchronous=FULL` so a committed write survives a
//! power loss, foreign keys on, a busy timeout, readers side by side and one writer connection.
//! Write transactions take that connection in turn and share commits ([`GroupWriter`], group
//! commit; the shared transaction opens with `BEGIN IMMEDIATE`, so that a read-then-write never
//! fails half-way with `SQLITE_BUSY`); single writes outside a transaction take the same connection.

use super::group_commit::{GroupTx, GroupWriter};
use sqlx::sqlite::{
    SqliteAutoVacuum, SqliteConnectOptions, SqliteJournalMode, SqlitePool, SqlitePoolOptions, SqliteSynchronous,
};
use std::{str::FromStr, time::Duration};

pub struct SqliteStore {
    /// Readers, side by side (WAL).
    pool: SqlitePool,
    /// The one connection every write takes in turn: SQLite runs one writer at a time, and
    /// writers queued here wait in order instead of retrying `BEGIN IMMEDIATE` with back-off.
    writes: SqlitePool,
    /// The write transactions on that connection, committed in groups.
    group: GroupWriter,
}

impl SqliteStore {
    pub async fn connect(url: &str) -> Result<Self, StoreError> {
        let options = SqliteConnectOptions::from_str(url)?
            .create_if_missing(true)
            .journal_mode(SqliteJournalMode::Wal)
            .synchronous(SqliteSynchronous::Full)
            .foreign_keys(true)
            // A new database gives the pages that archived rows leave back to the file system
            // when a sweep asks (`pragma incremental_vacuum`); one made before keeps them for new rows.
            .auto_vacuum(SqliteAutoVacuum::Incremental)
            .busy_timeout(Duration::from_secs(10));
        let pool = SqlitePoolOptions::new()
            .max_connections(8)
            .acquire_timeout(Duration::from_secs(10))
            // A connection to a file cannot drop; a ping would only be a trip to its thread.
            .test_before_acquire(false)
            .connect_with(options.clone())
            .await?;
        let writes = SqlitePoolOptions::new()
            .max_connections(1)
            .acquire_timeout(Duration::from_secs(10))
            .test_before_acquire(false)
            .connect_with(options)
            .await?;
        Ok(Self { pool, group: GroupWriter::new(writes.clone()), writes })
    }

    /// How many group commits have made writes durable since the store was opened.
    pub fn group_commits(&self) -> u64 {
        self.group.commits()
    }
}

async fn begin_grouped(store: &SqliteStore) -> Result<GroupTx, sqlx::Error> {
    store.group.begin().await
}

super::sql::sql_store!(
    SqliteStore,
    sqlx::Sqlite,
    Backend::Sqlite,
    "migrations/sqlite",
    begin = begin_grouped,
    lock_tenant = "select id from tenants where id = $1",
    skip_locked = "",
    tx = GroupTx
);

/// Runs `first`, a write that returns an operation's row or nothing, and `rest` only when it
/// returned one, all or nothing, in one transaction, one statement after the other (SQLite's
/// writes run one at a time); answers the row.
async fn write_guarded(
    store: &SqliteStore,
    first: QueryText,
    rest: Vec<QueryText>,
) -> Result<Option<GuardedRow>, StoreError> {
    let mut tx = begin_grouped(store).await?;
    let row: Option<GuardedRow> = sqlx::query_as_with(&first.sql, arguments::<sqlx::Sqlite>(first.values)?)
        .fetch_optional(&mut *tx)
        .await?;
    if row.is_some() {
        execute_all(&mut tx, rest).await?;
        tx.commit().await?;
    } else {
        tx.rollback().await?;
    }
    Ok(row)
}

/// One machine's store: no other instance to tell or to hear.
#[async_trait::async_trait]
impl super::changes::ChangeNotices for SqliteStore {
    async fn announce_changes(
        &self,
        _origin: &str,
        _tenants: &[crate::domain::ids::TenantId],
    ) -> Result<(), StoreError> {
        Ok(())
    }

    async fn listen_changes(&self) -> Result<Option<super::changes::ChangeListener>, StoreError> {
        Ok(None)
    }
}
