//! The write path: the README's three-step protocol (register the intent, begin an attempt, report
//! its outcome) through the ledger API over loopback, one operation after another and from 8 and 32
//! clients at once, on SQLite and (when it is running) PostgreSQL, beside the limit: the same rows
//! written straight to the same engine in three transactions over one pool, with no service around
//! them; and the floor: those transactions at their simplest, without audit rows.
//!
//! Run with `scripts/bench.sh write_path`. Each way first writes 200 operations, then the
//! database's statistics are gathered (`analyze`), as in a database in service. Each figure comes
//! from this one run: the sequential median and 99th percentile of one operation's three calls
//! (after 20 warm-ups), and operations per second for 2,000 operations at each concurrency, with
//! the 99th percentile of an operation, and the CPU a call of the server's threads (its own
//! runtime's and SQLite's connection threads) apart from the whole process's. Every operation is a
//! new refund of tenant `bench`; each call's answer is checked.

mod support;

use futures::stream::{self, StreamExt};
use opledger::domain::ids::TenantId;
use opledger::server::app::startup::{Application, Settings};
use serde_json::json;
use std::num::NonZeroU32;
use std::str::FromStr;
use std::sync::LazyLock;
use std::time::{Duration, Instant};

const SEQUENTIAL: usize = 200;
const WARM_UP: usize = 20;
/// Operations written each way before the planner's statistics are gathered, once, for every run.
const PRIMED: usize = 200;
const CONCURRENT: usize = 2_000;
const CLIENTS: [usize; 2] = [8, 32];

/// One operation's three calls to the ledger API.
async fn protocol(client: &reqwest::Client, base: &str, token: &str, op_id: &str) {
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
enum Straight {
    Sqlite(sqlx::SqlitePool),
    Postgres(sqlx::PgPool),
}

impl Straight {
    async fn open(url: &str) -> Straight {
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
             ('floor', 'floor', 0)";
        match &straight {
            Straight::Sqlite(pool) => sqlx::query(tenants).execute(pool).await.map(drop).unwrap(),
            Straight::Postgres(pool) => sqlx::query(tenants).execute(pool).await.map(drop).unwrap(),
        }
        straight
    }

    async fn protocol(&self, op_id: &str) {
        match self {
            Straight::Sqlite(pool) => straight_sqlite(pool, op_id).await,
            Straight::Postgres(pool) => straight_postgres(pool, op_id).await,
        }
    }

    async fn floor(&self, op_id: &str) {
        match self {
            Straight::Sqlite(pool) => floor_sqlite(pool, op_id).await,
            Straight::Postgres(pool) => floor_postgres(pool, op_id).await,
        }
    }

    /// Gathers the planner's statistics of the whole database, as a database in service has them
    /// (PostgreSQL's autovacuum looks at a database once a minute; until then a new table has
    /// none, and the planner may read a single operation through any index led by the tenant).
    async fn analyze(&self) {
        match self {
            Straight::Sqlite(pool) => sqlx::query("analyze").execute(pool).await.map(drop).unwrap(),
            Straight::Postgres(pool) => sqlx::query("analyze").execute(pool).await.map(drop).unwrap(),
        }
    }
}

/// The median and 99th percentile of `samples`.
fn percentiles(mut samples: Vec<Duration>) -> (Duration, Duration) {
    samples.sort();
    let at = |fraction: f64| samples[((samples.len() as f64 * fraction) as usize).min(samples.len() - 1)];
    (at(0.5), at(0.99))
}

/// Runs `run(n)` for `SEQUENTIAL` new numbers after `WARM_UP` others; answers the median and p99.
async fn sequential<F, Fut>(prefix: &str, run: F) -> (Duration, Duration)
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

/// Runs `run(n)` for `CONCURRENT` new numbers, `clients` at a time; answers operations per second
/// and the 99th percentile of one operation's three calls.
async fn concurrent<F, Fut>(prefix: &str, clients: usize, run: F) -> (f64, Duration)
where
    F: Fn(String) -> Fut,
    Fut: std::future::Future<Output = ()>,
{
    let started = Instant::now();
    let samples = stream::iter(0..CONCURRENT)
        .map(|n| {
            let operation = run(format!("refund-{prefix}c{clients}x{n}-li_1"));
            async move {
                let started = Instant::now();
                operation.await;
                started.elapsed()
            }
        })
        .buffer_unordered(clients)
        .collect::<Vec<Duration>>()
        .await;
    let rate = CONCURRENT as f64 / started.elapsed().as_secs_f64();
    (rate, percentiles(samples).1)
}

fn ms(duration: Duration) -> String {
    format!("{:.2} ms", duration.as_secs_f64() * 1000.0)
}

/// The name of the server's threads, apart from the client's (at most 15 bytes, as Linux keeps it).
const SERVER_THREADS: &str = "opledger-server";

async fn bench(engine: &str, url: String) {
    let server = tokio::runtime::Builder::new_multi_thread()
        .thread_name(SERVER_THREADS)
        .thread_keep_alive(Duration::from_secs(3600))
        .enable_all()
        .build()
        .expect("the server's runtime starts");
    let server_url = url.clone();
    let (base, token) = server
        .spawn(async move {
            let mut settings = Settings::new(&server_url, "127.0.0.1:0".parse().unwrap());
            settings.limits.api_calls_per_second = NonZeroU32::new(1_000_000).unwrap();
            let application = Application::build(settings).await.expect("the application starts");
            let base = format!("http://{}", application.local_addr());
            let token = application
                .ledger()
                .create_token(&TenantId::parse("bench").unwrap(), "bench-agent", "bench")
                .await
                .unwrap();
            tokio::spawn(application.run_until(std::future::pending()));
            (base, token)
        })
        .await
        .expect("the server starts");
    let client = reqwest::Client::new();
    let straight = Straight::open(&url).await;

    let through_ledger = |op_id: String| {
        let (client, base, token) = (&client, &base, &token);
        async move { protocol(client, base, token, &op_id).await }
    };
    let straight_writes = |op_id: String| {
        let straight = &straight;
        async move { straight.protocol(&op_id).await }
    };
    let floor_writes = |op_id: String| {
        let straight = &straight;
        async move { straight.floor(&op_id).await }
    };
    for n in 0..PRIMED {
        through_ledger(format!("refund-Pl{n}-li_1")).await;
        straight_writes(format!("refund-Ps{n}-li_1")).await;
        floor_writes(format!("refund-Pf{n}-li_1")).await;
    }
    straight.analyze().await;
    let (ledger_p50, ledger_p99) = sequential("L", through_ledger).await;
    let (straight_p50, straight_p99) = sequential("S", straight_writes).await;
    let (floor_p50, floor_p99) = sequential("F", floor_writes).await;
    println!(
        "| {engine} | sequential, one operation | {} (p99 {}) | {} (p99 {}) | {} (p99 {}) | {:.1} × | {:.1} × |",
        ms(ledger_p50),
        ms(ledger_p99),
        ms(straight_p50),
        ms(straight_p99),
        ms(floor_p50),
        ms(floor_p99),
        ledger_p50.as_secs_f64() / straight_p50.as_secs_f64(),
        ledger_p50.as_secs_f64() / floor_p50.as_secs_f64()
    );
    for clients in CLIENTS {
        let (cpu_before, server_before) = (process_cpu(), server_cpu());
        let (ledger_rate, ledger_p99) = concurrent("L", clients, through_ledger).await;
        let calls = (3 * CONCURRENT) as f64;
        let cpu_per_call = (process_cpu() - cpu_before) / calls;
        let server_per_call = (server_cpu() - server_before) / calls;
        let (straight_rate, straight_p99) = concurrent("S", clients, straight_writes).await;
        let (floor_rate, floor_p99) = concurrent("F", clients, floor_writes).await;
        println!(
            "| {engine} | {clients} clients | {ledger_rate:.0} ops/s (p99 {}; CPU a call: {:.2} ms server, {:.2} ms with the client) | {straight_rate:.0} ops/s (p99 {}) | {floor_rate:.0} ops/s (p99 {}) | {:.0} % | {:.0} % |",
            ms(ledger_p99),
            server_per_call * 1000.0,
            cpu_per_call * 1000.0,
            ms(straight_p99),
            ms(floor_p99),
            100.0 * ledger_rate / straight_rate,
            100.0 * ledger_rate / floor_rate
        );
    }
    server.shutdown_background();
}

/// Seconds of CPU this process (the server and its client) has used, user and system.
fn process_cpu() -> f64 {
    cpu_seconds(&std::fs::read_to_string("/proc/self/stat").unwrap_or_default()).1
}

/// Seconds of CPU the server's threads have used: its runtime's and SQLite's connection workers
/// (the bench's own SQLite connections stay idle while the server is measured).
fn server_cpu() -> f64 {
    let tasks = std::fs::read_dir("/proc/self/task").expect("the process's threads are listed");
    tasks
        .filter_map(|task| std::fs::read_to_string(task.ok()?.path().join("stat")).ok())
        .map(|stat| cpu_seconds(&stat))
        .filter(|(name, _)| name == SERVER_THREADS || name.starts_with("sqlx-sqlite-wor"))
        .map(|(_, seconds)| seconds)
        .sum()
}

/// The name and the seconds of CPU (user and system) in a `/proc` `stat` line.
fn cpu_seconds(stat: &str) -> (String, f64) {
    let (head, rest) = stat.rsplit_once(')').unwrap_or_default();
    let name = head.split_once('(').map_or("", |(_, name)| name).to_owned();
    let fields: Vec<&str> = rest.split_whitespace().collect();
    let ticks: f64 = [11, 12].iter().filter_map(|at| fields.get(*at)?.parse::<f64>().ok()).sum();
    (name, ticks / 100.0)
}

#[tokio::main]
async fn main() {
    println!(
        "| engine | run | through the ledger API | same rows straight to the engine | the floor | of straight | of the floor |"
    );
    println!("|---|---|---|---|---|---|---|");
    support::on_each_engine(|engine, url| bench(engine, url)).await;
}
