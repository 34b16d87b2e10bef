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
use std::num::NonZeroU32;
use support::writes::{percentiles, protocol, sequential, Straight};
use std::time::{Duration, Instant};

/// Operations written each way before the planner's statistics are gathered, once, for every run.
const PRIMED: usize = 200;
const CONCURRENT: usize = 2_000;
const CLIENTS: [usize; 2] = [8, 32];

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
