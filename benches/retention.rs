//! Retention at scale: every console page at tens of millions of operations, the write path beside
//! its floor, and the sweep that archives the oldest closed operations, on PostgreSQL (50,000,000
//! operations) and SQLite (10,000,000).
//!
//! Run with `scripts/bench.sh retention` (`cargo bench --features ssr --bench retention`). It fills
//! the operations of `benches/support/fill.rs` straight into the database, 120 ms apart up to a
//! moment ago (`OPLEDGER_BENCH_POSTGRES_OPERATIONS`, `OPLEDGER_BENCH_SQLITE_OPERATIONS`), then:
//!
//! 1. times every console page as a signed-in manager (the admin pages as an admin) gets it:
//!    median and p99 of 50 requests after 3 warm-ups, over loopback;
//! 2. times the three-step protocol through the ledger API, one operation after another (median of
//!    200 after 20 warm-ups), beside the floor: the same rows at their simplest, straight to the
//!    engine (see `benches/write_path.rs`);
//! 3. sets a retention of 30 days and sweeps as if it were 30 days after operation
//!    `OPLEDGER_BENCH_SWEPT` (default 100,000) closed: the closed operations before it go to Parquet
//!    files in a local folder and leave the hot tables; it reports rows a second;
//! 4. times the pages and the write path again, with an archived operation's page and search.
//!
//! A fill of 50,000,000 rows takes an hour or more. With `OPLEDGER_BENCH_KEEP=1` the filled
//! database (`opledger_bench_retention` on PostgreSQL, `target/bench-retention.db`) is kept, and
//! a later run with the same count reuses it: it first puts the swept operations back.

mod support;

use opledger::domain::{ids::Actor, ids::TenantId, policy::Role};
use opledger::server::app::startup::{Application, Settings};
use opledger::server::ledger::retention::DEFAULT_BATCH;
use std::num::NonZeroU32;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};
use support::fill::{execute, numbers, Fill};
use support::writes::{percentiles, protocol, sequential, Straight, SEQUENTIAL};
use support::console::signed_in;

const PAGE_RUNS: usize = 50;
const PASSWORD: &str = "benchmark password";
const RETENTION_DAYS: u64 = 30;
const DAY_US: u64 = 86_400_000_000;
/// The server key the archive's manifests are signed with.
const SECRET_KEY: &str = "5e5e5e5e5e5e5e5e5e5e5e5e5e5e5e5e5e5e5e5e5e5e5e5e5e5e5e5e5e5e5e5e";

fn number(variable: &str, default: u64) -> u64 {
    std::env::var(variable).map_or(default, |n| n.parse().expect("a number"))
}

fn keep() -> bool {
    std::env::var("OPLEDGER_BENCH_KEEP").is_ok_and(|value| value == "1")
}

/// The results tables' rows: the pages, the write path, the fill and the sweep; printed when
/// every engine has been measured.
static TABLES: std::sync::Mutex<[Vec<String>; 3]> = std::sync::Mutex::new([Vec::new(), Vec::new(), Vec::new()]);
const PAGES: usize = 0;
const WRITE_PATH: usize = 1;
const FILL_AND_SWEEP: usize = 2;

fn row(table: usize, line: String) {
    eprintln!("{line}");
    TABLES.lock().unwrap()[table].push(line);
}

fn ms(duration: Duration) -> String {
    format!("{:.2} ms", duration.as_secs_f64() * 1000.0)
}


/// Fills the database (migrated already) with `operations`, or reuses a kept one filled with as
/// many: puts back what its last run swept, and forgets that run's archive. Answers the fill.
async fn prepare(engine: &str, url: &str, operations: u64, archive_dir: &Path) -> Fill {
    let postgres = engine == "postgres";
    execute(
        url,
        &["create table if not exists bench_fill (operations bigint not null, origin_us bigint not null, \
           swept_below bigint not null)"
            .to_owned()],
    )
    .await;
    let kept = numbers(url, &format!("select origin_us from bench_fill where operations = {operations}")).await;
    if let Some(origin_us) = kept.first() {
        let fill = Fill { operations, origin_us: u64::try_from(*origin_us).unwrap() };
        let swept_below = numbers(url, "select swept_below from bench_fill").await[0] as u64;
        let started = Instant::now();
        let mut statements: Vec<String> =
            ["archived_refs", "archived_operations", "archives", "retention_sweeps", "retention_policies"]
                .iter()
                .map(|table| format!("delete from {table} where tenant = 'bench'"))
                .collect();
        if swept_below > 0 {
            statements.push(fill.operations_sql(postgres, 0, swept_below));
            statements.push(fill.refs_sql(postgres, 0, swept_below));
        }
        statements.push("update bench_fill set swept_below = 0".to_owned());
        execute(url, &statements).await;
        let _ = std::fs::remove_dir_all(archive_dir);
        std::fs::create_dir_all(archive_dir).unwrap();
        eprintln!(
            "{engine}: reused a database of {operations} operations, {swept_below} put back in {:.1} s",
            started.elapsed().as_secs_f64()
        );
        return fill;
    }
    let fill = Fill::ending_now(operations);
    let started = Instant::now();
    support::fill::fill(url, fill).await;
    execute(
        url,
        &[
            "delete from bench_fill".to_owned(),
            format!("insert into bench_fill values ({operations}, {}, 0)", fill.origin_us),
        ],
    )
    .await;
    let seconds = started.elapsed().as_secs_f64();
    row(FILL_AND_SWEEP, format!("| {engine} | fill | {operations} | {seconds:.0} s | {:.0} rows/s |", operations as f64 / seconds));
    fill
}

/// Times `GET path` as `client` gets it: the median and the p99 of [`PAGE_RUNS`] after 3 warm-ups,
/// each answer checked to be a page (200) that contains `expected`.
async fn page(client: &reqwest::Client, base: &str, path: &str, expected: &str) -> (Duration, Duration) {
    let url = format!("{base}{path}");
    let get = || async {
        let response = client.get(&url).send().await.unwrap();
        assert_eq!(response.status(), 200, "{path}");
        let body = response.text().await.unwrap();
        assert!(body.contains(expected), "{path} shows {expected}");
    };
    for _ in 0..3 {
        get().await;
    }
    let mut samples = Vec::with_capacity(PAGE_RUNS);
    for _ in 0..PAGE_RUNS {
        let started = Instant::now();
        get().await;
        samples.push(started.elapsed());
    }
    percentiles(samples)
}

/// Where each measurement stands: before or after the sweep.
struct Phase<'a> {
    engine: &'a str,
    name: &'a str,
}

struct Console<'a> {
    base: &'a str,
    manager: &'a reqwest::Client,
    admin: &'a reqwest::Client,
    token: &'a str,
    straight: &'a Straight,
    run: &'a str,
}

impl Console<'_> {
    /// Times every page of the console, and the write path beside its floor.
    async fn measure(&self, phase: Phase<'_>, pages: &[(&str, String, &str)]) {
        let Phase { engine, name } = phase;
        for (page_name, path, expected) in pages {
            let client = if path.starts_with("/admin") { self.admin } else { self.manager };
            let (median, p99) = page(client, self.base, path, expected).await;
            row(PAGES, format!("| {engine} | {name} | {page_name} | {} | {} |", ms(median), ms(p99)));
        }
        let (client, base, token) = (&reqwest::Client::new(), self.base, self.token);
        let through_ledger = |op_id: String| async move { protocol(client, base, token, &op_id).await };
        let floor = |op_id: String| async move { self.straight.floor(&op_id).await };
        let (ledger, ledger_p99) = sequential(&format!("{}{name}l", self.run), through_ledger).await;
        let (floor, floor_p99) = sequential(&format!("{}{name}f", self.run), floor).await;
        row(
            WRITE_PATH,
            format!(
            "| {engine} | {name} | {} (p99 {}) | {} (p99 {}) | {:.1} × |",
            ms(ledger),
            ms(ledger_p99),
            ms(floor),
            ms(floor_p99),
            ledger.as_secs_f64() / floor.as_secs_f64()
        ),
        );
    }
}

async fn bench(engine: &'static str, url: String, archive_dir: PathBuf) {
    let operations = if engine == "postgres" {
        number("OPLEDGER_BENCH_POSTGRES_OPERATIONS", 50_000_000)
    } else {
        number("OPLEDGER_BENCH_SQLITE_OPERATIONS", 10_000_000)
    };
    let swept = number("OPLEDGER_BENCH_SWEPT", 100_000).min(operations / 2);
    std::fs::create_dir_all(&archive_dir).unwrap();
    let mut settings = Settings::new(&url, "127.0.0.1:0".parse().unwrap());
    settings.limits.api_calls_per_second = NonZeroU32::new(1_000_000).unwrap();
    settings.archive_dir = Some(archive_dir.clone());
    settings.secret_key = Some(SECRET_KEY.to_owned());
    let application = Application::build(settings).await.expect("the application starts");

    let ledger = application.ledger().clone();
    let tenant = TenantId::parse("bench").unwrap();
    let run = format!("r{}", chrono::Utc::now().timestamp());
    let (manager, admin) = (format!("bench.manager.{run}"), format!("bench.admin.{run}"));
    ledger.add_user(&tenant, &manager, Role::Manager, PASSWORD, "bench").await.unwrap();
    ledger.add_user(&tenant, &admin, Role::Admin, PASSWORD, "bench").await.unwrap();
    let token = ledger.create_token(&tenant, &format!("bench-agent-{run}"), "bench").await.unwrap();
    // The users first: adding one makes the tenant the filled rows belong to.
    let fill = prepare(engine, &url, operations, &archive_dir).await;
    let base = format!("http://{}", application.local_addr());
    tokio::spawn(application.run_until(std::future::pending()));
    let (manager, admin) = (signed_in(&base, &manager, PASSWORD).await, signed_in(&base, &admin, PASSWORD).await);
    let straight = Straight::open(&url).await;
    let console = Console { base: &base, manager: &manager, admin: &admin, token: &token, straight: &straight, run: &run };

    // Operation `swept` (hot before the sweep, archived after it), a later one that stays hot, and
    // the order of the first.
    let (old, hot) = (swept - 7, operations - 17);
    let old_op = format!("refund-{old}-li_1");
    let hot_op = format!("refund-{hot}-li_1");
    let mut pages: Vec<(&str, String, &str)> = vec![
        ("overview", "/".into(), "<main"),
        ("operations", "/operations".into(), "<main"),
        ("operations, state = unknown", "/operations?state=unknown".into(), "<main"),
        ("operations, state = needs_review and kind = create_aftersale", "/operations?state=needs_review&kind=create_aftersale".into(), "<main"),
        ("operations, provider = sandbox", "/operations?provider=sandbox".into(), "<main"),
        ("operations, one order", format!("/operations?subject=order:{}", hot / 3), &hot_op),
        ("operations, search by op id (hot)", format!("/operations?q={hot_op}"), &hot_op),
        ("operations, search by external id (hot)", format!("/operations?q=re_{hot}"), &hot_op),
        ("one operation (hot)", format!("/operations/{hot_op}"), &hot_op),
        ("orders", "/orders".into(), "<main"),
        ("one order", format!("/orders/order:{}", hot / 3), &hot_op),
        ("conflicts", "/conflicts".into(), "<main"),
        ("approvals", "/approvals".into(), "<main"),
        ("reconcile", "/reconcile".into(), "<main"),
        ("bulk", "/bulk".into(), "<main"),
        ("audit", "/audit".into(), "<main"),
        ("search by op id (hot)", format!("/search?q={hot_op}"), &hot_op),
        ("search by external id (hot)", format!("/search?q=re_{hot}"), &hot_op),
        ("account", "/account".into(), "<main"),
        ("account, notifications", "/account/notifications".into(), "<main"),
        ("admin: people", "/admin".into(), "<main"),
        ("admin: access", "/admin/access".into(), "<main"),
        ("admin: providers", "/admin/providers".into(), "<main"),
        ("admin: policy", "/admin/policy".into(), "<main"),
        ("admin: webhooks", "/admin/webhooks".into(), "<main"),
        ("admin: notifications", "/admin/notifications".into(), "<main"),
        ("admin: retention", "/admin/retention".into(), "<main"),
        ("one old operation", format!("/operations/{old_op}"), &old_op),
        ("search by op id (old)", format!("/search?q={old_op}"), &old_op),
        ("search by external id (old)", format!("/search?q=re_{old}"), &old_op),
    ];
    console.measure(Phase { engine, name: "before" }, &pages).await;

    let actor = Actor::human("bench", Role::Admin);
    let archive_url = archive_dir.display().to_string();
    ledger.set_retention(&tenant, &actor, RETENTION_DAYS as i64, &archive_url).await.unwrap();
    let cutoff_us = fill.created_us(swept);
    let as_if = chrono::DateTime::from_timestamp_micros((cutoff_us + RETENTION_DAYS * DAY_US) as i64).unwrap();
    let started = Instant::now();
    let report = ledger
        .sweep(&tenant, "bench", as_if, DEFAULT_BATCH, false, |archived| {
            eprintln!("{engine}: {archived} archived, {:.0} s", started.elapsed().as_secs_f64())
        })
        .await
        .expect("the sweep archives");
    let seconds = started.elapsed().as_secs_f64();
    execute(&url, &[format!("update bench_fill set swept_below = {swept}")]).await;
    let closed_before = (0..swept).filter(|i| i % 20 == 1 || i % 20 >= 3).count() as u64;
    assert_eq!(report.archived, closed_before, "every closed operation before the cutoff, and no other");
    row(
        FILL_AND_SWEEP,
        format!(
            "| {engine} | sweep ({} files of {DEFAULT_BATCH}) | {} | {seconds:.1} s | {:.0} rows/s |",
            report.files,
            report.archived,
            report.archived as f64 / seconds
        ),
    );

    for (name, _, expected) in &mut pages {
        if name.ends_with("(old)") || *name == "one old operation" {
            *expected = "archived";
        }
    }
    console.measure(Phase { engine, name: "after" }, &pages).await;
}

#[tokio::main]
async fn main() {
    if keep() {
        let target = std::fs::canonicalize("target").expect("the target folder");
        let admin_url = std::env::var("OPLEDGER_TEST_POSTGRES_URL")
            .unwrap_or_else(|_| "postgres://postgres@127.0.0.1:5432/postgres".to_owned());
        let base = admin_url.rsplit_once('/').map_or(admin_url.as_str(), |(base, _)| base);
        let kept: Vec<i64> = numbers(&admin_url, "select 1::bigint from pg_database where datname = 'opledger_bench_retention'").await;
        if kept.is_empty() {
            execute(&admin_url, &["create database opledger_bench_retention".to_owned()]).await;
        }
        let postgres = format!("{base}/opledger_bench_retention");
        bench("postgres", postgres, target.join("bench-retention-archive-postgres")).await;
        let sqlite = format!("sqlite://{}", target.join("bench-retention.db").display());
        bench("sqlite", sqlite, target.join("bench-retention-archive-sqlite")).await;
    } else {
        let archive = tempfile::tempdir().unwrap();
        let root = archive.path().to_owned();
        support::on_each_engine(|engine, url| bench(engine, url, root.join(engine))).await;
    }
    let [pages, writes, fill_and_sweep] = std::mem::take(&mut *TABLES.lock().unwrap());
    println!("| engine | when | page | whole request, median | p99 of {PAGE_RUNS} |");
    println!("|---|---|---|---|---|");
    pages.iter().for_each(|line| println!("{line}"));
    println!();
    println!("| engine | when | through the ledger API, median of {SEQUENTIAL} | the floor | ratio |");
    println!("|---|---|---|---|---|");
    writes.iter().for_each(|line| println!("{line}"));
    println!();
    println!("| engine | step | operations | time | rows a second |");
    println!("|---|---|---|---|---|");
    fill_and_sweep.iter().for_each(|line| println!("{line}"));
}
