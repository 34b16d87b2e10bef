//! The PostgreSQL backend, for several opledger instances sharing one database. Writers of one
//! tenant run side by side; the sealers of its audit chain (one per instance) are serialised by a
//! `for no key update` lock on the tenant's row, which keeps the chain linear without blocking the
//! foreign-key checks of concurrent inserts.
//!
//! A call's own write (a registration, a begin-attempt, an outcome) is one statement, run on a
//! connection of [`StatementConnections`]: taken and given back with no round trip to the database.
//! Transactions and reads use sqlx's pool, which pings each connection it takes back.

use deadpool::managed::{Manager, Metrics, Object, Pool, PoolError, RecycleResult};
use sqlx::postgres::{PgConnectOptions, PgConnection, PgPool, PgPoolOptions};
use sqlx::{ConnectOptions, Connection};
use std::str::FromStr;
use std::time::Duration;

/// A connection that was taken less than this long ago is handed out again without a ping: a
/// ping on every call is a round trip to the database on every call. One idle longer is pinged
/// first, and replaced if the ping fails.
pub const TRUSTED_WHILE_IDLE: Duration = Duration::from_secs(1);

/// The most connections each of the two pools opens.
const MAX_CONNECTIONS: usize = 16;

/// How long a call waits for a connection before the database counts as unavailable.
const ACQUIRE_TIMEOUT: Duration = Duration::from_secs(10);

/// Whether a connection idle for `idle_for` is pinged before it is handed out.
fn pinged_before_use(idle_for: Duration) -> bool {
    idle_for >= TRUSTED_WHILE_IDLE
}

/// Opens and hands out the connections a call's single statement runs on.
pub struct StatementConnections {
    options: PgConnectOptions,
}

impl Manager for StatementConnections {
    type Type = PgConnection;
    type Error = sqlx::Error;

    async fn create(&self) -> Result<PgConnection, sqlx::Error> {
        self.options.connect().await
    }

    async fn recycle(&self, connection: &mut PgConnection, metrics: &Metrics) -> RecycleResult<sqlx::Error> {
        if pinged_before_use(metrics.last_used()) {
            connection.ping().await?;
        }
        Ok(())
    }
}

pub struct PostgresStore {
    pool: PgPool,
    /// The same pool: PostgreSQL runs writers side by side.
    writes: PgPool,
    statements: Pool<StatementConnections>,
}

impl PostgresStore {
    pub async fn connect(url: &str) -> Result<Self, StoreError> {
        let options = PgConnectOptions::from_str(url)?;
        let pool = PgPoolOptions::new()
            .max_connections(MAX_CONNECTIONS as u32)
            .acquire_timeout(ACQUIRE_TIMEOUT)
            .test_before_acquire(false)
            .before_acquire(|connection, metadata| {
                Box::pin(async move {
                    if pinged_before_use(metadata.idle_for) {
                        connection.ping().await?;
                    }
                    Ok(true)
                })
            })
            .connect_with(options.clone())
            .await?;
        let statements = Pool::builder(StatementConnections { options })
            .max_size(MAX_CONNECTIONS)
            .wait_timeout(Some(ACQUIRE_TIMEOUT))
            .create_timeout(Some(ACQUIRE_TIMEOUT))
            .recycle_timeout(Some(ACQUIRE_TIMEOUT))
            .runtime(deadpool::Runtime::Tokio1)
            .build()
            .expect("a runtime and the timeouts are set");
        Ok(Self { writes: pool.clone(), pool, statements })
    }

    /// A connection for one statement outside a transaction.
    async fn statement_connection(&self) -> Result<Object<StatementConnections>, StoreError> {
        self.statements.get().await.map_err(|error| match error {
            PoolError::Backend(error) => StoreError::from(error),
            PoolError::Closed => StoreError::Unavailable(sqlx::Error::PoolClosed),
            _ => StoreError::Unavailable(sqlx::Error::PoolTimedOut),
        })
    }
}

/// Whether `error` leaves the connection it came from unusable: the connection is gone, or the
/// protocol broke.
fn breaks_the_connection(error: &sqlx::Error) -> bool {
    matches!(error, sqlx::Error::Protocol(_)) || super::connection_lost(error)
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

/// What [`write_guarded`] calls the row its first write returned.
const WRITTEN: &str = "written";

/// Runs `first`, a write that returns an operation's row or nothing, and `rest` only when it
/// returned one, all or nothing, as one statement (atomic on its own, and one round trip); answers
/// the row. Each part of `rest` is made to do nothing unless `first` wrote its row (which `first`
/// has locked before any part runs); the answer says too whether its one part named
/// [`EXTERNAL_ID_RECORDED`], if any, wrote. A connection the statement broke is not given back.
async fn write_guarded(
    store: &PostgresStore,
    first: QueryText,
    mut rest: Vec<QueryText>,
) -> Result<Option<GuardedRow>, StoreError> {
    let condition = format!("exists (select from {WRITTEN})");
    let recording = rest.iter().filter(|part| part.name == Some(EXTERNAL_ID_RECORDED)).count();
    let answer = if recording == 1 {
        format!(
            "select *, exists (select from {EXTERNAL_ID_RECORDED}) as {EXTERNAL_ID_RECORDED} from {WRITTEN}"
        )
    } else {
        // Several parts cannot share the name; the caller reads back what they wrote.
        for part in rest.iter_mut().filter(|part| part.name == Some(EXTERNAL_ID_RECORDED)) {
            part.name = None;
        }
        format!("select * from {WRITTEN}")
    };
    let parts: Vec<QueryText> = std::iter::once(first.named(WRITTEN))
        .chain(rest.into_iter().map(|part| part.only_if(&condition)))
        .chain(std::iter::once(QueryText::new(&answer)))
        .collect();
    let Some(text) = QueryText::together(parts) else { return Ok(None) };
    let arguments = arguments::<sqlx::Postgres>(text.values)?;
    let mut connection = store.statement_connection().await?;
    let row = sqlx::query_as_with(&text.sql, arguments).fetch_optional(&mut *connection).await;
    if row.as_ref().is_err_and(breaks_the_connection) {
        drop(Object::take(connection));
    }
    Ok(row?)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_a_connection_idle_past_the_trusted_window_is_pinged() {
        assert!(!pinged_before_use(Duration::ZERO));
        assert!(!pinged_before_use(TRUSTED_WHILE_IDLE - Duration::from_millis(1)));
        assert!(pinged_before_use(TRUSTED_WHILE_IDLE));
        assert!(pinged_before_use(Duration::from_secs(600)));
    }
}

#[async_trait::async_trait]
impl super::changes::ChangeNotices for PostgresStore {
    async fn announce_changes(
        &self,
        origin: &str,
        tenants: &[crate::domain::ids::TenantId],
    ) -> Result<(), StoreError> {
        for payload in super::changes::payloads(origin, tenants) {
            sqlx::query("select pg_notify($1, $2)")
                .bind(super::changes::CHANNEL)
                .bind(payload)
                .execute(&self.pool)
                .await?;
        }
        Ok(())
    }

    async fn listen_changes(&self) -> Result<Option<super::changes::ChangeListener>, StoreError> {
        super::changes::ChangeListener::on(&self.pool).await.map(Some)
    }
}
