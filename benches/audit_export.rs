//! The audit export at a million events: rows per second and the server's memory while it streams
//! `GET /audit/export.jsonl`, on SQLite and (when it is running) PostgreSQL.
//!
//! Run with `scripts/bench.sh` (`cargo bench --features ssr --bench audit_export`). It fills a fresh
//! database with a valid hash chain of 100,000 events for one tenant, starts the real `opledger
//! serve` binary on it as a child process, signs an auditor in, downloads the export while reading
//! the server's resident memory from `/proc` every 10 ms, checks the last line's seq; then runs
//! `opledger audit export` on the same database the same way (its own memory sampled); then grows
//! the chain to 1,000,000 events and measures both again. Flat memory means the peak does not grow
//! with the number of events.

mod support;

use opledger::domain::audit::{AuditEntry, AuditRecord};
use opledger::domain::{ids::TenantId, policy::Role};
use opledger::server::ledger::Ledger;
use opledger::server::store::records::AuditQuery;
use serde_json::json;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

const PASSWORD: &str = "benchmark password";
const BATCH: usize = 1000;

fn entry(i: u64) -> AuditEntry {
    let at = chrono::DateTime::from_timestamp_micros(1_700_000_000_000_000 + i as i64 * 1000).unwrap();
    AuditEntry {
        at,
        tenant: "bench".into(),
        actor: "bench-agent".into(),
        role: "agent".into(),
        action: if i.is_multiple_of(3) { "register" } else { "record_outcome" }.into(),
        op_id: Some(format!("refund-{}-li_1", i / 3)),
        from_state: Some("submitted".into()),
        to_state: Some("succeeded".into()),
        reason: None,
        evidence: json!({"http_status": 200, "latency_ms": 120, "external_id": format!("re_{i:010}")}),
    }
}

/// Appends events `from..to` to the tenant's chain after `last`, in batches of rows.
async fn extend(url: &str, from: u64, to: u64, mut last: Option<AuditRecord>) {
    let records = (from..to).map(|i| {
        let record = entry(i).chain_after(last.as_ref().map(|r| (r.seq, r.hash.as_str())));
        last = Some(record.clone());
        record
    });
    let records: Vec<AuditRecord> = records.collect();
    macro_rules! insert_in_batches {
        ($db:ty, $pool:expr) => {
            for chunk in records.chunks(BATCH) {
                let mut insert = sqlx::QueryBuilder::<$db>::new(
                    "insert into audit_events (tenant, seq, at_us, actor, role, action, op_id, from_state, to_state, reason, evidence, prev_hash, hash) ",
                );
                insert.push_values(chunk, |mut row, r| {
                    row.push_bind("bench").push_bind(r.seq as i64).push_bind(r.entry.at.timestamp_micros())
                        .push_bind(&r.entry.actor).push_bind(&r.entry.role).push_bind(&r.entry.action)
                        .push_bind(&r.entry.op_id).push_bind(&r.entry.from_state).push_bind(&r.entry.to_state)
                        .push_bind(&r.entry.reason).push_bind(r.entry.evidence.to_string())
                        .push_bind(&r.prev_hash).push_bind(&r.hash);
                });
                insert.build().execute($pool).await.unwrap();
            }
        };
    }
    if url.starts_with("postgres") {
        let pool = sqlx::PgPool::connect(url).await.unwrap();
        // The chain is kept in monthly partitions there: the months these records fall in first.
        for record in [records.first(), records.last()].into_iter().flatten() {
            sqlx::query("select audit_events_partition_for($1)")
                .bind(record.entry.at.timestamp_micros())
                .execute(&pool)
                .await
                .unwrap();
        }
        insert_in_batches!(sqlx::Postgres, &pool);
        sqlx::query("analyze audit_events").execute(&pool).await.unwrap();
    } else {
        let pool = sqlx::SqlitePool::connect(url).await.unwrap();
        insert_in_batches!(sqlx::Sqlite, &pool);
    }
}

/// The resident memory of process `pid` in KiB, from `/proc`.
fn resident_kib(pid: u32) -> u64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap_or_default();
    status
        .lines()
        .find(|line| line.starts_with("VmRSS:"))
        .and_then(|line| line.split_whitespace().nth(1))
        .and_then(|kib| kib.parse().ok())
        .unwrap_or(0)
}

struct Server {
    child: std::process::Child,
    base: String,
    client: reqwest::Client,
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

async fn start(url: &str) -> Server {
    let port = {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        listener.local_addr().unwrap().port()
    };
    let child = std::process::Command::new(env!("CARGO_BIN_EXE_opledger"))
        .args([
            "serve",
            "--database-url",
            url,
            "--addr",
            &format!("127.0.0.1:{port}"),
            "--reconcile-every",
            "0s",
        ])
        .env("RUST_LOG", "warn")
        .stderr(std::process::Stdio::null())
        .spawn()
        .expect("opledger serve starts");
    let base = format!("http://127.0.0.1:{port}");
    let client = reqwest::Client::builder()
        .cookie_store(true)
        .redirect(reqwest::redirect::Policy::none())
        .build()
        .unwrap();
    for _ in 0..200 {
        if client.get(format!("{base}/healthz")).send().await.is_ok_and(|r| r.status() == 200) {
            break;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    let login = client.get(format!("{base}/login")).send().await.unwrap().text().await.unwrap();
    let marker = "name=\"csrf\" value=\"";
    let at = login.find(marker).expect("a CSRF field") + marker.len();
    let csrf = login[at..].split('"').next().unwrap().to_owned();
    let signed_in = client
        .post(format!("{base}/login"))
        .form(&[("username", "bench.auditor"), ("password", PASSWORD), ("csrf", &csrf), ("next", "/")])
        .send()
        .await
        .unwrap();
    assert_eq!(signed_in.headers()["location"], "/", "signed in");
    Server { child, base, client }
}

/// Downloads the whole audit export, sampling the server's memory meanwhile.
async fn measure(engine: &str, server: &Server, events: u64) {
    use futures::StreamExt;
    let pid = server.child.id();
    let before = resident_kib(pid);
    let peak = Arc::new(AtomicU64::new(before));
    let sampling = Arc::new(std::sync::atomic::AtomicBool::new(true));
    let sampler = {
        let (peak, sampling) = (peak.clone(), sampling.clone());
        tokio::spawn(async move {
            while sampling.load(Ordering::Relaxed) {
                peak.fetch_max(resident_kib(pid), Ordering::Relaxed);
                tokio::time::sleep(Duration::from_millis(10)).await;
            }
        })
    };
    let started = Instant::now();
    let response = server.client.get(format!("{}/audit/export.jsonl", server.base)).send().await.unwrap();
    assert_eq!(response.status(), 200);
    let mut body = response.bytes_stream();
    let (mut bytes, mut lines, mut tail) = (0u64, 0u64, Vec::new());
    while let Some(chunk) = body.next().await {
        let chunk = chunk.unwrap();
        bytes += chunk.len() as u64;
        lines += chunk.iter().filter(|b| **b == b'\n').count() as u64;
        tail.extend_from_slice(&chunk);
        if tail.len() > 8192 {
            tail.drain(..tail.len() - 4096);
        }
    }
    let elapsed = started.elapsed();
    sampling.store(false, Ordering::Relaxed);
    sampler.await.unwrap();
    let last_line = String::from_utf8_lossy(&tail).lines().last().unwrap_or_default().to_owned();
    let last: serde_json::Value = serde_json::from_str(&last_line).expect("the last line is an event");
    assert_eq!(last["action"], "export", "the export's own event ends the file");
    assert_eq!(Some(lines), last["seq"].as_u64(), "every event of the chain, in order");
    let peak = peak.load(Ordering::Relaxed);
    print_row(engine, "HTTP", events, elapsed, lines, bytes, (before, peak));
}

/// Prints one export's row: its time, rows per second and size, and the exporting process's
/// resident memory (KiB) before and at its peak.
fn print_row(
    engine: &str,
    how: &str,
    events: u64,
    elapsed: Duration,
    lines: u64,
    bytes: u64,
    (before, peak): (u64, u64),
) {
    println!(
        "| {engine} | {how} | {events} | {:.1} s | {:.0} | {:.0} MB | {:.1} MiB | {:.1} MiB | {:+.1} MiB |",
        elapsed.as_secs_f64(),
        lines as f64 / elapsed.as_secs_f64(),
        bytes as f64 / 1e6,
        before as f64 / 1024.0,
        peak as f64 / 1024.0,
        (peak as f64 - before as f64) / 1024.0,
    );
}

/// Runs `opledger audit export` on `url`, counting what it writes and sampling its memory.
async fn measure_command_line(engine: &str, url: &str, events: u64) {
    use std::io::Read;
    let started = Instant::now();
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_opledger"))
        .args(["audit", "export", "--database-url", url, "--tenant", "bench"])
        .stdout(std::process::Stdio::piped())
        .spawn()
        .expect("opledger audit export starts");
    let pid = child.id();
    let mut stdout = child.stdout.take().unwrap();
    let reader = std::thread::spawn(move || {
        let (mut bytes, mut lines, mut buffer) = (0u64, 0u64, vec![0u8; 1 << 16]);
        loop {
            let read = stdout.read(&mut buffer).unwrap();
            if read == 0 {
                return (bytes, lines);
            }
            bytes += read as u64;
            lines += buffer[..read].iter().filter(|b| **b == b'\n').count() as u64;
        }
    });
    let first = resident_kib(pid);
    let mut peak = first;
    while !reader.is_finished() {
        peak = peak.max(resident_kib(pid));
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    let (bytes, lines) = reader.join().unwrap();
    assert!(child.wait().unwrap().success(), "opledger audit export failed");
    let elapsed = started.elapsed();
    assert!(lines >= events, "every event of the chain: {lines} lines for {events} events");
    print_row(engine, "command line", events, elapsed, lines, bytes, (first, peak));
}

/// The limit on SQLite: the `sqlite3` shell writing the same rows as JSON, straight from the file.
fn measure_sqlite3_shell(url: &str, events: u64) {
    let path = url.trim_start_matches("sqlite://");
    let started = Instant::now();
    let output = std::process::Command::new("sqlite3")
        .args([
            "-json",
            path,
            "select seq, at_us, tenant, actor, role, action, op_id, from_state, to_state, reason, evidence, \
             prev_hash, hash from audit_events where tenant = 'bench' order by seq",
        ])
        .output()
        .expect("the sqlite3 shell runs (Debian package sqlite3)");
    let elapsed = started.elapsed();
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    let rows = output.stdout.iter().filter(|b| **b == b'\n').count() as u64;
    assert!(rows >= events, "sqlite3 wrote {rows} rows for {events} events");
    println!(
        "| sqlite | `sqlite3 -json`, straight from the file | {events} | {:.1} s | {:.0} | {:.0} MB | — | — | — |",
        elapsed.as_secs_f64(),
        rows as f64 / elapsed.as_secs_f64(),
        output.stdout.len() as f64 / 1e6,
    );
}

async fn bench(engine: &str, url: &str) {
    let store = opledger::server::store::connect(url).await.unwrap();
    store.migrate().await.unwrap();
    let tenant = TenantId::parse("bench").unwrap();
    Ledger::new(store.clone())
        .add_user(&tenant, "bench.auditor", Role::Auditor, PASSWORD, "bench")
        .await
        .unwrap();
    let newest = AuditQuery { limit: 1, ..AuditQuery::default() };
    for target in [100_000u64, 1_000_000] {
        let last = store.list_audit(&tenant, &newest).await.unwrap().pop();
        let filled = Instant::now();
        let from = last.as_ref().map_or(0, |r| r.seq);
        extend(url, from, target, last).await;
        eprintln!("{engine}: chain at {target} events ({:.1} s to fill)", filled.elapsed().as_secs_f64());
        let server = start(url).await;
        measure(engine, &server, target).await;
        drop(server);
        measure_command_line(engine, url, target).await;
        if engine == "sqlite" {
            measure_sqlite3_shell(url, target);
        }
    }
}

#[tokio::main]
async fn main() {
    println!("| engine | export | events | time | rows/s | size | RSS before (first sample) | peak RSS during | growth |");
    println!("|---|---|---|---|---|---|---|---|---|");
    support::on_each_engine(|engine, url| async move { bench(engine, &url).await }).await;
}
