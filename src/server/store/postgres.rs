//! The PostgreSQL backend, for several opledger instances sharing one database. Writers of one
//! tenant run side by side; the sealers of its audit chain (one per instance) are serialised by a
//! `for no key update` lock on the tenant's row, which keeps the chain linear without blocking the
//! foreign-key checks of concurrent inserts.

use sqlx::postgres::{PgPool, PgPoolOptions};
use std::time::Duration;

pub struct PostgresStore {
    pool: PgPool,
    /// The same pool: PostgreSQL runs writers side by side.
    writes: PgPool,
}

impl PostgresStore {
    pub async fn connect(url: &str) -> Result<Self, StoreError> {
        let pool = PgPoolOptions::new()
            .max_connections(16)
            .acquire_timeout(Duration::from_secs(10))
            .connect(url)
            .await?;
        Ok(Self { writes: pool.clone(), pool })
    }
}

async fn begin(store: &PostgresStore) -> Result<sqlx::Transaction<'static, sqlx::Postgres>, sqlx::Error> {
    store.writes.begin().await
}

super::sql::sql_store!(
    PostgresStore,
    sqlx::Postgres,
    Backend::Postgres,
    "migrations/postgres",
    begin = begin,
    lock_tenant = "select id from tenants where id = $1 for no key update",
    skip_locked = "for update skip locked",
    tx = sqlx::Transaction<'static, sqlx::Postgres>
);
