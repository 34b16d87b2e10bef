//! The console's pages at millions of operations: how long the server takes to answer the
//! overview, the orders, the operations list with each filter alone and two at once, and the
//! search, on SQLite and (when it is running) PostgreSQL.
//!
//! Run with `scripts/bench.sh` (`cargo bench --features ssr --bench operations_list`). It fills a
//! fresh database with `OPLEDGER_BENCH_OPERATIONS` (default 5,000,000) operations of one tenant,
//! created over the last week up to now, in one statement, signs in, and times the store's reads
//! alone (median of 41 runs after 3 warm-ups, beside the same reads done by grouping straight on
//! the database) and each page as a signed-in browser gets it (session lookup, role check, the
//! reads, server-side rendering), measured from the client over loopback: median and p99 of 50
//! requests after 3 warm-ups.

mod support;

use opledger::domain::{ids::TenantId, policy::Role};
use opledger::server::app::startup::{Application, Settings};
use opledger::server::ledger::Ledger;
use opledger::server::store::records::OperationQuery;
use opledger::server::store::Store;
use std::time::{Duration, Instant};

const RUNS: usize = 41;
const PAGE_RUNS: usize = 50;
const PASSWORD: &str = "benchmark password";

/// How many operations to fill: `OPLEDGER_BENCH_OPERATIONS`, 5,000,000 when unset.
fn operations() -> u64 {
    std::env::var("OPLEDGER_BENCH_OPERATIONS")
        .map_or(5_000_000, |n| n.parse().expect("a number of operations"))
}

/// The operation the searches look for: one in the middle of the filled ones.
const SEARCHED: u64 = 777_777;

/// The pages' rows of the second table, printed when every engine has been measured.
static PAGE_ROWS: std::sync::Mutex<Vec<String>> = std::sync::Mutex::new(Vec::new());

/// The median and the p99 of [`PAGE_RUNS`] runs of `run` after 3 warm-ups.
async fn percentiles<F, Fut>(mut run: F) -> (Duration, Duration)
where
    F: FnMut() -> Fut,
    Fut: std::future::Future<Output = ()>,
{
    for _ in 0..3 {
        run().await;
    }
    let mut samples = Vec::with_capacity(PAGE_RUNS);
    for _ in 0..PAGE_RUNS {
        let started = Instant::now();
        run().await;
        samples.push(started.elapsed());
    }
    samples.sort();
    let p99 = samples[(samples.len() * 99).div_ceil(100) - 1];
    (samples[samples.len() / 2], p99)
}

fn median(mut samples: Vec<Duration>) -> Duration {
    samples.sort();
    samples[samples.len() / 2]
}

async fn time<F, Fut>(mut run: F) -> Duration
where
    F: FnMut() -> Fut,
    Fut: std::future::Future<Output = ()>,
{
    for _ in 0..3 {
        run().await;
    }
    let mut samples = Vec::with_capacity(RUNS);
    for _ in 0..RUNS {
        let started = Instant::now();
        run().await;
        samples.push(started.elapsed());
    }
    median(samples)
}

fn ms(duration: Duration) -> String {
    format!("{:.2} ms", duration.as_secs_f64() * 1000.0)
}

async fn bench(engine: &str, url: &str) {
    let settings = Settings::new(url, "127.0.0.1:0".parse().unwrap());
    let application = Application::build(settings).await.expect("the application starts");
    let store = opledger::server::store::connect(url).await.unwrap();
    let tenant = TenantId::parse("bench").unwrap();
    Ledger::new(store.clone())
        .add_user(&tenant, "bench.support", Role::Support, PASSWORD, "bench")
        .await
        .unwrap();
    let filled = Instant::now();
    support::fill::fill(url, support::fill::Fill::ending_now(operations())).await;
    eprintln!("{engine}: filled {} operations in {:.1} s", operations(), filled.elapsed().as_secs_f64());

    let query = OperationQuery { limit: 51, ..OperationQuery::default() };
    let first = store.list_operations(&tenant, &query).await.unwrap();
    let last = first.last().unwrap();
    let later = OperationQuery { after: Some((last.created_at, last.op_id.clone())), ..query.clone() };
    let unknown = OperationQuery {
        states: opledger::domain::machine::State::parse("unknown").into_iter().collect(),
        ..query.clone()
    };
    let store_ref: &dyn Store = store.as_ref();
    let q_first = time(|| async {
        store_ref.list_operations(&tenant, &query).await.unwrap();
    })
    .await;
    let q_later = time(|| async {
        store_ref.list_operations(&tenant, &later).await.unwrap();
    })
    .await;
    let q_unknown = time(|| async {
        store_ref.list_operations(&tenant, &unknown).await.unwrap();
    })
    .await;
    let search = |text: &str| OperationQuery { search: Some(text.into()), ..query.clone() };
    let (by_op_id, by_external_id) =
        (search(&format!("refund-{SEARCHED}-li_1")), search(&format!("re_{SEARCHED}")));
    let q_op_id = time(|| async {
        assert_eq!(store_ref.list_operations(&tenant, &by_op_id).await.unwrap().len(), 1);
    })
    .await;
    let q_external_id = time(|| async {
        assert_eq!(store_ref.list_operations(&tenant, &by_external_id).await.unwrap().len(), 1);
    })
    .await;
    let q_either = straight_on_the_database(
        engine,
        url,
        SEARCH_WITH_EITHER_CONDITION,
        Some(&format!("re_{SEARCHED}")),
        1,
    )
    .await;
    let q_grouped_counts = straight_on_the_database(engine, url, COUNTS_BY_GROUPING, None, 4).await;
    let q_grouped_orders = straight_on_the_database(engine, url, ORDERS_BY_GROUPING, None, 50).await;
    let q_counts = time(|| async {
        assert!(!store_ref.count_by_state(&tenant).await.unwrap().is_empty());
    })
    .await;
    let q_orders = time(|| async {
        assert_eq!(store_ref.subjects(&tenant, false, 50).await.unwrap().len(), 50);
    })
    .await;
    let q_attention = time(|| async {
        assert_eq!(store_ref.subjects(&tenant, true, 50).await.unwrap().len(), 50);
    })
    .await;

    let addr = application.local_addr();
    tokio::spawn(application.run_until(std::future::pending()));
    let base = format!("http://{addr}");
    let client = support::console::signed_in(&base, "bench.support", PASSWORD).await;
    let page = |path: String| {
        let client = client.clone();
        let url = format!("{base}{path}");
        move || {
            let client = client.clone();
            let url = url.clone();
            async move {
                let response = client.get(&url).send().await.unwrap();
                assert_eq!(response.status(), 200, "{url}");
                assert!(!response.text().await.unwrap().is_empty());
            }
        }
    };
    let p_first = time(page("/operations".into())).await;
    let p_unknown = time(page("/operations?state=unknown".into())).await;
    let order = format!("order:{}", SEARCHED / 3);
    let pages = [
        ("overview", "/".to_owned()),
        ("orders", "/orders".to_owned()),
        ("operations, no filter", "/operations".to_owned()),
        ("state = unknown", "/operations?state=unknown".to_owned()),
        ("kind = create_aftersale", "/operations?kind=create_aftersale".to_owned()),
        ("provider = sandbox", "/operations?provider=sandbox".to_owned()),
        ("subject = one order", format!("/operations?subject={order}")),
        (
            "state = needs_review and kind = create_aftersale",
            "/operations?state=needs_review&kind=create_aftersale".to_owned(),
        ),
        ("state = unknown and provider = sandbox", "/operations?state=unknown&provider=sandbox".to_owned()),
        (
            "kind = create_aftersale and provider = stripe (none)",
            "/operations?kind=create_aftersale&provider=stripe".to_owned(),
        ),
        ("state = succeeded and subject = one order", format!("/operations?state=succeeded&subject={order}")),
        ("search by op id", format!("/operations?q=refund-{SEARCHED}-li_1")),
        ("search by external id", format!("/operations?q=re_{SEARCHED}")),
    ];
    for (name, path) in pages {
        let (median, p99) = percentiles(page(path)).await;
        PAGE_ROWS.lock().unwrap().push(format!("| {engine} | {name} | {} | {} |", ms(median), ms(p99)));
    }
    println!("| {engine} | first page | {} | {} |", ms(q_first), ms(p_first));
    println!("| {engine} | state = unknown | {} | {} |", ms(q_unknown), ms(p_unknown));
    println!("| {engine} | a later page (keyset) | {} | — |", ms(q_later));
    println!("| {engine} | search by op id | {} | — |", ms(q_op_id));
    println!("| {engine} | search by external id | {} | — |", ms(q_external_id));
    println!(
        "| {engine} | the same search as one `or` condition, straight on the database | {} | — |",
        ms(q_either)
    );
    println!("| {engine} | overview: counts per state | {} | — |", ms(q_counts));
    println!(
        "| {engine} | the same counts by grouping the operations, straight on the database | {} | — |",
        ms(q_grouped_counts)
    );
    println!("| {engine} | orders: 50 most recently changed | {} | — |", ms(q_orders));
    println!(
        "| {engine} | the same orders by grouping the operations, straight on the database | {} | — |",
        ms(q_grouped_orders)
    );
    println!("| {engine} | orders: 50 needing attention | {} | — |", ms(q_attention));
}

/// The search as the list once wrote it, one condition with `or`.
const SEARCH_WITH_EITHER_CONDITION: &str =
    "select op_id from operations where tenant = 'bench' and (op_id = $1 or op_id in \
     (select op_id from external_refs where tenant = 'bench' and external_id = $1)) \
     order by created_at_us desc, op_id desc limit 51";

/// The overview's counts as they were read before the ledger kept them.
const COUNTS_BY_GROUPING: &str =
    "select state, count(*) from operations where tenant = 'bench' group by state";

/// The orders list as it was read before the ledger kept each order's latest change.
const ORDERS_BY_GROUPING: &str = "select subject from operations where tenant = 'bench' group by subject \
     order by max(updated_at_us) desc limit 50";

/// `sql` (with `$1` bound to `text`, if any) timed straight on the database over one open
/// connection, checking that it answers `rows` rows: the forms the summaries and the index
/// lookups are measured against.
async fn straight_on_the_database(
    engine: &str,
    url: &str,
    sql: &str,
    text: Option<&str>,
    rows: usize,
) -> Duration {
    use sqlx::Connection;
    if engine == "postgres" {
        let connection = tokio::sync::Mutex::new(sqlx::PgConnection::connect(url).await.unwrap());
        time(|| async {
            let query = text.into_iter().fold(sqlx::query(sql), |query, text| query.bind(text));
            assert_eq!(query.fetch_all(&mut *connection.lock().await).await.unwrap().len(), rows);
        })
        .await
    } else {
        let connection = tokio::sync::Mutex::new(sqlx::SqliteConnection::connect(url).await.unwrap());
        time(|| async {
            let query = text.into_iter().fold(sqlx::query(sql), |query, text| query.bind(text));
            assert_eq!(query.fetch_all(&mut *connection.lock().await).await.unwrap().len(), rows);
        })
        .await
    }
}

#[tokio::main]
async fn main() {
    println!("| engine | list | store query (median) | GET /operations, whole request (median) |");
    println!("|---|---|---|---|");
    support::on_each_engine(|engine, url| async move { bench(engine, &url).await }).await;
    println!();
    println!("| engine | page | whole request, median | p99 of {PAGE_RUNS} |");
    println!("|---|---|---|---|");
    for row in PAGE_ROWS.lock().unwrap().iter() {
        println!("{row}");
    }
}
