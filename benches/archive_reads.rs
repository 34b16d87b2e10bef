//! What checking an archive file against its signed manifest costs the page of an archived
//! operation, on SQLite and PostgreSQL: `OPLEDGER_BENCH_ARCHIVED` operations (default 2,000, one
//! archive file of the sweep's default batch) are made through the ledger API, each with its
//! attempt, external id and audit trail, and swept to a folder. Then, median and p99 of
//! [`PAGE_RUNS`] requests each:
//! - the page of one of them while it was hot, before the sweep;
//! - its page once archived, with the file's check kept (the file and its manifest unchanged since
//!   the last read);
//! - its page with the file read and checked at every request (the file written again, with the
//!   same bytes, before each one, so that the server reads and checks it anew);
//! - without the check, in the bench's process: the file read and parsed, as the page did before
//!   files were checked; the server's check alone on the file's bytes ([`verify::check_file`]:
//!   SHA-256, rows, tenant); and `verify-archive`'s, which checks every hash of the trails too.
//!
//! Run with `scripts/bench.sh archive_reads`.

mod support;

use opledger::domain::ids::TenantId;
use opledger::domain::policy::Role;
use opledger::server::app::startup::{Application, Settings};
use opledger::server::archive::{file, verify, Archive};
use opledger::server::egress::EgressPolicy;
use std::num::NonZeroU32;
use std::sync::Mutex;
use std::time::{Duration, Instant};

use support::console::signed_in;
use support::writes::{percentiles, protocol};

const PAGE_RUNS: usize = 200;
const PASSWORD: &str = "a long bench password";
const SECRET_KEY: &str = "5e7f1c0a9b3d2e4f60718293a4b5c6d7e8f90a1b2c3d4e5f60718293a4b5c6d7";

static ROWS: Mutex<Vec<String>> = Mutex::new(Vec::new());

fn ms(duration: Duration) -> String {
    format!("{:.2} ms", duration.as_secs_f64() * 1000.0)
}

fn row(engine: &str, what: &str, (median, p99): (Duration, Duration)) {
    ROWS.lock().unwrap().push(format!("| {engine} | {what} | {} | {} |", ms(median), ms(p99)));
}

/// Times `run` [`PAGE_RUNS`] times after 3 warm-ups; `prepare` runs before each, untimed.
async fn timed<P, PF, R, RF>(prepare: P, run: R) -> (Duration, Duration)
where
    P: Fn() -> PF,
    PF: std::future::Future<Output = ()>,
    R: Fn() -> RF,
    RF: std::future::Future<Output = ()>,
{
    for _ in 0..3 {
        prepare().await;
        run().await;
    }
    let mut samples = Vec::with_capacity(PAGE_RUNS);
    for _ in 0..PAGE_RUNS {
        prepare().await;
        let started = Instant::now();
        run().await;
        samples.push(started.elapsed());
    }
    percentiles(samples)
}

async fn bench(engine: &'static str, url: String) {
    let operations: usize = std::env::var("OPLEDGER_BENCH_ARCHIVED").ok().and_then(|n| n.parse().ok()).unwrap_or(2_000);
    let folder = tempfile::tempdir().unwrap();
    let mut settings = Settings::new(&url, "127.0.0.1:0".parse().unwrap());
    settings.limits.api_calls_per_second = NonZeroU32::new(1_000_000).unwrap();
    settings.archive_dir = Some(folder.path().to_owned());
    settings.secret_key = Some(SECRET_KEY.to_owned());
    let application = Application::build(settings).await.expect("the application starts");
    let ledger = application.ledger().clone();
    let tenant = TenantId::parse("bench").unwrap();
    ledger.add_user(&tenant, "bench.manager", Role::Manager, PASSWORD, "bench").await.unwrap();
    let token = ledger.create_token(&tenant, "bench-agent", "bench").await.unwrap();
    let base = format!("http://{}", application.local_addr());
    tokio::spawn(application.run_until(std::future::pending()));
    let client = reqwest::Client::new();
    let started = Instant::now();
    let op_ids: Vec<String> = (0..operations).map(|n| format!("refund-b{n}-li_1")).collect();
    for chunk in op_ids.chunks(8) {
        futures::future::join_all(chunk.iter().map(|op_id| protocol(&client, &base, &token, op_id))).await;
    }
    eprintln!("{engine}: {operations} operations made in {:.0} s", started.elapsed().as_secs_f64());
    let manager = signed_in(&base, "bench.manager", PASSWORD).await;
    let op_id = format!("refund-b{}-li_1", operations / 2);
    let page_url = format!("{base}/operations/{op_id}");
    let page = || async {
        let response = manager.get(&page_url).send().await.unwrap();
        assert_eq!(response.status(), 200);
        assert!(response.text().await.unwrap().contains(&format!("re_{op_id}")));
    };
    let nothing = || async {};
    row(engine, "the page of an operation, hot (before the sweep)", timed(nothing, page).await);

    let admin = opledger::domain::ids::Actor::human("bench", Role::Admin);
    let archive_url = format!("file://{}", folder.path().display());
    ledger.set_retention(&tenant, &admin, 1, &archive_url).await.unwrap();
    let later = opledger::server::clock::now() + chrono::Duration::days(2);
    let report = ledger.sweep(&tenant, "bench", later, operations as u32, false, |_| {}).await.unwrap();
    assert_eq!(report.archived, operations as u64);
    let key = ledger.find_archived(&tenant, &op_id, 1).await.unwrap().pop().expect("archived");
    let archive = Archive::open(&archive_url, &EgressPolicy::default().with_archive_dir(Some(folder.path().to_owned())))
        .await
        .unwrap();
    let bytes = archive.get(&key.object_path).await.unwrap();
    eprintln!("{engine}: the file holds {operations} operations in {} bytes", bytes.len());
    row(engine, "the page of the operation archived, the file's check kept", timed(nothing, page).await);
    let rewrite = || async { archive.put(&key.object_path, bytes.clone()).await.unwrap() };
    row(engine, "the page of the operation archived, the file read and checked at each request", timed(rewrite, page).await);
    let read_only = || async {
        let operations = file::read(archive.get(&key.object_path).await.unwrap()).unwrap();
        assert!(operations.iter().any(|operation| operation.op_id == key.op_id));
    };
    row(engine, "without the check: the file read and parsed (in the bench's process)", timed(nothing, read_only).await);
    let signed = key.manifest.clone().expect("sealed");
    let check = || async {
        verify::check_file(&signed, bytes.clone(), verify::Depth::Rows).unwrap();
    };
    row(engine, "the server's check alone, on the file's bytes (in the bench's process)", timed(nothing, check).await);
    let whole = || async {
        verify::check_file(&signed, bytes.clone(), verify::Depth::Chain).unwrap();
    };
    row(engine, "verify-archive's check of the same file, every hash (in the bench's process)", timed(nothing, whole).await);
}

#[tokio::main]
async fn main() {
    support::on_each_engine(bench).await;
    println!("| engine | what | median | p99 of {PAGE_RUNS} |");
    println!("|---|---|---|---|");
    ROWS.lock().unwrap().iter().for_each(|line| println!("{line}"));
}
