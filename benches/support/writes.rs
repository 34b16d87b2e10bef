//! The three-step protocol written three ways, for the benchmarks of the write path: through the
//! ledger API over loopback; the same rows straight to the engine in three transactions over one
//! pool, with no service around them (tenant `straight`); and the floor, those transactions at
//! their simplest, without audit rows (tenant `floor`).

use serde_json::json;
use std::str::FromStr;
use std::sync::LazyLock;
use std::time::{Duration, Instant};

/// Operations each sequential measurement times, after its warm-ups.
pub const SEQUENTIAL: usize = 200;
pub const WARM_UP: usize = 20;

/// One operation's three calls to the ledger API.
pub async fn protocol(client: &reqwest::Client, base: &str, token: &str, op_id: &str) {
    let post = |path: String, body: serde_json::Value| {
        let request = client.post(format!("{base}{path}")).bearer_auth(token).json(&body);
        async move {
            let response = request.send().await.unwrap();
            let status = response.status();
            assert!(status.is_success(), "{status}: {}", response.text().await.unwrap_or_default());
        }
    };
    post(
        "/api/v1/operations".into(),
        json!({"op_id": op_id, "kind": "refund", "subject": format!("order:{op_id}"), "provider": "stripe",
               "params": {"payment_intent": "pi_bench", "amount": {"minor": 38000, "currency": "TWD"}}}),
    )
    .await;
    post(format!("/api/v1/operations/{op_id}/attempts"), json!({"send_deadline_s": 15})).await;
    post(
        format!("/api/v1/operations/{op_id}/attempts/1/outcome"),
        json!({"outcome": "succeeded", "external_id": format!("re_{op_id}"), "http_status": 200, "latency_ms": 80}),
    )
    .await;
}

const INSERT_OPERATION: &str = "insert into operations (tenant, op_id, kind, subject, provider, params, fingerprint, \
     amount_minor, amount_currency, state, idempotency_key, key_retention_s, requested_by, cancel_requested, version, \
     created_at_us, updated_at_us) values ('straight', $1, 'refund', $2, 'stripe', \
     '{\"amount\":{\"currency\":\"TWD\",\"minor\":38000},\"payment_intent\":\"pi_bench\"}', 'fingerprint', 38000, 'TWD', \
     'planned', $1, 86400, 'bench-agent', $3, 1, $4, $4)";
const INSERT_AUDIT: &str =
    "insert into audit_pending (tenant, at_us, actor, role, action, op_id, from_state, to_state, \
     evidence) values ('straight', $1, 'bench-agent', 'agent', $2, $3, $4, $5, '{}')";
const INSERT_ATTEMPT: &str =
    "insert into attempts (tenant, op_id, number, idempotency_key, sent_by, started_at_us) \
     values ('straight', $1, 1, $1, 'bench-agent (agent)', $2)";
const SUBMIT: &str = "update operations set state = 'submitted', open_attempt = 1, last_attempt = 1, \
     key_first_sent_at_us = $2, version = version + 1, updated_at_us = $2 where tenant = 'straight' and op_id = $1";
const FINISH_ATTEMPT: &str =
    "update attempts set finished_at_us = $2, outcome = 'succeeded', http_status = 200, \
     latency_ms = 80 where tenant = 'straight' and op_id = $1 and number = 1";
const SUCCEED: &str =
    "update operations set state = 'succeeded', open_attempt = null, version = version + 1, \
     updated_at_us = $2 where tenant = 'straight' and op_id = $1";
const INSERT_REF: &str =
    "insert into external_refs (tenant, op_id, provider, ref_type, external_id, recorded_at_us) \
     values ('straight', $1, 'stripe', 'refund', $2, $3)";

fn now_us() -> i64 {
    chrono::Utc::now().timestamp_micros()
}

/// Writes `straight_protocol` for one engine: the rows of the three steps (the operation and its
/// audit entry; the attempt, the operation submitted and its entry; the attempt finished, the
/// operation succeeded, its external id and its entry), each step in one transaction.
macro_rules! straight_protocol {
    ($name:ident, $db:ty, $cancel:expr, $begin:expr) => {
        async fn $name(pool: &sqlx::Pool<$db>, op_id: &str) {
            let at = now_us();
            let mut tx = $begin(pool).await.unwrap();
            sqlx::query(INSERT_OPERATION)
                .bind(op_id)
                .bind(format!("order:{op_id}"))
                .bind($cancel)
                .bind(at)
                .execute(&mut *tx)
                .await
                .unwrap();
            sqlx::query(INSERT_AUDIT)
                .bind(at)
                .bind("register")
                .bind(op_id)
                .bind(None::<&str>)
                .bind("planned")
                .execute(&mut *tx)
                .await
                .unwrap();
            tx.commit().await.unwrap();

            let at = now_us();
            let mut tx = $begin(pool).await.unwrap();
            sqlx::query(INSERT_ATTEMPT).bind(op_id).bind(at).execute(&mut *tx).await.unwrap();
            sqlx::query(SUBMIT).bind(op_id).bind(at).execute(&mut *tx).await.unwrap();
            sqlx::query(INSERT_AUDIT)
                .bind(at)
                .bind("begin_attempt")
                .bind(op_id)
                .bind("planned")
                .bind("submitted")
                .execute(&mut *tx)
                .await
                .unwrap();
            tx.commit().await.unwrap();

            let at = now_us();
            let mut tx = $begin(pool).await.unwrap();
            sqlx::query(FINISH_ATTEMPT).bind(op_id).bind(at).execute(&mut *tx).await.unwrap();
            sqlx::query(SUCCEED).bind(op_id).bind(at).execute(&mut *tx).await.unwrap();
            sqlx::query(INSERT_REF)
                .bind(op_id)
                .bind(format!("re_{op_id}"))
                .bind(at)
                .execute(&mut *tx)
                .await
                .unwrap();
            sqlx::query(INSERT_AUDIT)
                .bind(at)
                .bind("record_outcome")
                .bind(op_id)
                .bind("submitted")
                .bind("succeeded")
                .execute(&mut *tx)
                .await
                .unwrap();
            tx.commit().await.unwrap();
        }
    };
}

const FLOOR_SUBMIT: &str = "update operations set state = 'submitted', open_attempt = 1, last_attempt = 1, \
     version = version + 1, updated_at_us = $2 where tenant = 'floor' and op_id = $1";
const FLOOR_FINISH_ATTEMPT: &str = "update attempts set finished_at_us = $2, outcome = 'succeeded' \
     where tenant = 'floor' and op_id = $1 and number = 1";
const FLOOR_SUCCEED: &str =
    "update operations set state = 'succeeded', open_attempt = null, version = version + 1, \
     updated_at_us = $2 where tenant = 'floor' and op_id = $1";

/// The straight rows' statements that the floor writes too, for its own tenant: made once, so
/// that the floor's measured calls do no string work the straight rows do not.
static FLOOR_INSERT_OPERATION: LazyLock<String> = LazyLock::new(|| for_the_floor(INSERT_OPERATION));
static FLOOR_INSERT_ATTEMPT: LazyLock<String> = LazyLock::new(|| for_the_floor(INSERT_ATTEMPT));
static FLOOR_INSERT_REF: LazyLock<String> = LazyLock::new(|| for_the_floor(INSERT_REF));

fn for_the_floor(statement: &str) -> String {
    statement.replace("'straight'", "'floor'")
}

/// Writes `floor_protocol` for one engine: the least any ledger recording what opledger records
/// writes, in the three transactions of the protocol: insert the operation; insert the attempt and
/// update the operation; update both and insert the external id. No audit rows, no summaries.
macro_rules! floor_protocol {
    ($name:ident, $db:ty, $cancel:expr, $begin:expr) => {
        async fn $name(pool: &sqlx::Pool<$db>, op_id: &str) {
            let at = now_us();
            sqlx::query(FLOOR_INSERT_OPERATION.as_str())
                .bind(op_id)
                .bind(format!("order:{op_id}"))
                .bind($cancel)
                .bind(at)
                .execute(pool)
                .await
                .unwrap();

            let at = now_us();
            let mut tx = $begin(pool).await.unwrap();
            sqlx::query(FLOOR_INSERT_ATTEMPT.as_str()).bind(op_id).bind(at).execute(&mut *tx).await.unwrap();
            sqlx::query(FLOOR_SUBMIT).bind(op_id).bind(at).execute(&mut *tx).await.unwrap();
            tx.commit().await.unwrap();

            let at = now_us();
            let mut tx = $begin(pool).await.unwrap();
            sqlx::query(FLOOR_FINISH_ATTEMPT).bind(op_id).bind(at).execute(&mut *tx).await.unwrap();
            sqlx::query(FLOOR_SUCCEED).bind(op_id).bind(at).execute(&mut *tx).await.unwrap();
            sqlx::query(FLOOR_INSERT_REF.as_str())
                .bind(op_id)
                .bind(format!("re_{op_id}"))
                .bind(at)
                .execute(&mut *tx)
                .await
                .unwrap();
            tx.commit().await.unwrap();
        }
    };
}

/// Opens a SQLite write transaction the way the store does: taking the write lock at once.
async fn begin_immediate(
    pool: &sqlx::SqlitePool,
) -> Result<sqlx::Transaction<'static, sqlx::Sqlite>, sqlx::Error> {
    pool.begin_with("begin immediate").await
}

/// Opens a PostgreSQL transaction.
async fn begin(pool: &sqlx::PgPool) -> Result<sqlx::Transaction<'static, sqlx::Postgres>, sqlx::Error> {
    pool.begin().await
}

straight_protocol!(straight_sqlite, sqlx::Sqlite, 0_i64, begin_immediate);
straight_protocol!(straight_postgres, sqlx::Postgres, false, begin);
floor_protocol!(floor_sqlite, sqlx::Sqlite, 0_i64, begin_immediate);
floor_protocol!(floor_postgres, sqlx::Postgres, false, begin);

/// The straight writes' pool, opened as the store opens its own.
pub enum Straight {
    Sqlite(sqlx::SqlitePool),
    Postgres(sqlx::PgPool),
}

impl Straight {
    pub async fn open(url: &str) -> Straight {
        let straight = if url.starts_with("sqlite:") {
            use sqlx::sqlite::{
                SqliteConnectOptions, SqliteJournalMode, SqlitePoolOptions, SqliteSynchronous,
            };
            let options = SqliteConnectOptions::from_str(url)
                .unwrap()
                .journal_mode(SqliteJournalMode::Wal)
                .synchronous(SqliteSynchronous::Full)
                .foreign_keys(true)
                .busy_timeout(Duration::from_secs(10));
            Straight::Sqlite(SqlitePoolOptions::new().max_connections(8).connect_with(options).await.unwrap())
        } else {
            Straight::Postgres(
                sqlx::postgres::PgPoolOptions::new().max_connections(16).connect(url).await.unwrap(),
            )
        };
        let tenants = "insert into tenants (id, name, created_at_us) values ('straight', 'straight', 0), \
             ('floor', 'floor', 0) on conflict do nothing";
        match &straight {
            Straight::Sqlite(pool) => sqlx::query(tenants).execute(pool).await.map(drop).unwrap(),
            Straight::Postgres(pool) => sqlx::query(tenants).execute(pool).await.map(drop).unwrap(),
        }
        straight
    }

    pub async fn protocol(&self, op_id: &str) {
        match self {
            Straight::Sqlite(pool) => straight_sqlite(pool, op_id).await,
            Straight::Postgres(pool) => straight_postgres(pool, op_id).await,
        }
    }

    pub async fn floor(&self, op_id: &str) {
        match self {
            Straight::Sqlite(pool) => floor_sqlite(pool, op_id).await,
            Straight::Postgres(pool) => floor_postgres(pool, op_id).await,
        }
    }

    /// Gathers the planner's statistics of the whole database, as a database in service has them
    /// (PostgreSQL's autovacuum looks at a database once a minute; until then a new table has
    /// none, and the planner may read a single operation through any index led by the tenant).
    pub async fn analyze(&self) {
        match self {
            Straight::Sqlite(pool) => sqlx::query("analyze").execute(pool).await.map(drop).unwrap(),
            Straight::Postgres(pool) => sqlx::query("analyze").execute(pool).await.map(drop).unwrap(),
        }
    }
}


/// The median and 99th percentile of `samples`.
pub fn percentiles(mut samples: Vec<Duration>) -> (Duration, Duration) {
    samples.sort();
    let at = |fraction: f64| samples[((samples.len() as f64 * fraction) as usize).min(samples.len() - 1)];
    (at(0.5), at(0.99))
}

/// Runs `run(op_id)` for [`SEQUENTIAL`] new op ids after [`WARM_UP`] others, one after another;
/// answers the median and p99.
pub async fn sequential<F, Fut>(prefix: &str, run: F) -> (Duration, Duration)
where
    F: Fn(String) -> Fut,
    Fut: std::future::Future<Output = ()>,
{
    for n in 0..WARM_UP {
        run(format!("refund-{prefix}w{n}-li_1")).await;
    }
    let mut samples = Vec::with_capacity(SEQUENTIAL);
    for n in 0..SEQUENTIAL {
        let started = Instant::now();
        run(format!("refund-{prefix}s{n}-li_1")).await;
        samples.push(started.elapsed());
    }
    percentiles(samples)
}

