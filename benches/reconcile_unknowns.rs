//! Reconciling at volume: how long 10,000 operations whose result is unknown take to settle
//! against the sandbox provider, on SQLite and (when it is running) PostgreSQL, beside the same
//! lookups made straight against the sandbox at the same concurrency.
//!
//! Run with `scripts/bench.sh reconcile_unknowns`. It records 10,000 refunds through the ledger
//! (registered, an attempt begun, then marked unknown), half of which the provider really made
//! (sent straight to the sandbox with the ledger's key and metadata) and half it never saw. Then it
//! times reconcile passes until nothing is unknown: the made half is found and confirmed, the other
//! half re-sent with the same key. The floor is the 10,000 lookups (`GET /v1/refunds` by payment
//! intent) alone, made by the same connector eight at a time: what the reconciler cannot beat.

mod support;

use futures::stream::{self, StreamExt};
use opledger::domain::{
    ids::{Actor, OpId, TenantId},
    machine::{Command, State},
    operation::{AttemptReport, RetryBudget},
    params::CanonicalParams,
};
use opledger::server::clock::now;
use opledger::server::egress::EgressPolicy;
use opledger::server::ledger::{
    executor::{Executor, RetryPolicy},
    reconciler::Reconciler,
    Ledger, RegisterRequest,
};
use opledger::server::providers::orders::{LineItem, Order};
use opledger::server::providers::{Connector, StripeConnector};
use opledger::server::sandbox::{Sandbox, SandboxConfig};
use opledger::server::store::Store;
use serde_json::json;
use std::sync::Arc;
use std::time::{Duration, Instant};

const OPERATIONS: usize = 10_000;
const SECRET: &str = "sk_test_bench";

fn op_id(i: usize) -> OpId {
    OpId::parse(&format!("refund-B{i}-li_1")).unwrap()
}

/// A sandbox with one paid order (and payment intent) per operation, on its own port.
async fn sandbox() -> String {
    let sandbox = Sandbox::empty(SandboxConfig { secret_key: SECRET.into(), ..SandboxConfig::default() });
    for i in 0..OPERATIONS {
        sandbox.add_order(Order {
            id: format!("B{i}"),
            currency: "TWD".into(),
            payment_intent: format!("pi_bench_{i}"),
            line_items: vec![LineItem { id: "li_1".into(), name: "Kettle".into(), amount_minor: 38_000 }],
            customer_email: None,
            gateway: None,
        });
    }
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let base_url = format!("http://{}", listener.local_addr().unwrap());
    let router = sandbox.router();
    tokio::spawn(async move { axum::serve(listener, router).await });
    base_url
}

/// Records the 10,000 unknown refunds; the provider made the even ones.
async fn record_unknowns(ledger: &Ledger, tenant: &TenantId, base_url: &str) {
    let agent = Actor::agent("bench-agent");
    let reconciler = Actor::system("bench");
    let client = reqwest::Client::new();
    for i in 0..OPERATIONS {
        let params = json!({"payment_intent": format!("pi_bench_{i}"), "amount": {"minor": 38_000, "currency": "TWD"}});
        let request = RegisterRequest {
            op_id: op_id(i),
            kind: "refund".into(),
            subject: format!("order:B{i}"),
            provider: "stripe".into(),
            params: CanonicalParams::from_value(params).unwrap(),
            requested_by: "bench-agent".into(),
            on_behalf_of: None,
            server_sends: false,
            compensates: None,
            key_retention: None,
        };
        ledger.register(tenant, &agent, request).await.unwrap();
        let report = AttemptReport {
            budget: Some(RetryBudget { max_sends: 1, deadline: now() }),
            ..AttemptReport::default()
        };
        ledger.execute(tenant, &op_id(i), Command::BeginAttempt, &agent, report).await.unwrap();
        if i % 2 == 0 {
            let made = client
                .post(format!("{base_url}/v1/refunds"))
                .bearer_auth(SECRET)
                .header("Idempotency-Key", op_id(i).downstream_key(tenant))
                .form(&[
                    ("payment_intent", format!("pi_bench_{i}")),
                    ("amount", "38000".into()),
                    ("currency", "twd".into()),
                    ("metadata[op_id]", op_id(i).to_string()),
                    ("metadata[tenant]", tenant.to_string()),
                ])
                .send()
                .await
                .unwrap();
            assert!(made.status().is_success(), "{}", made.text().await.unwrap_or_default());
        }
        let lost = Command::MarkUnknown { reason: "the answer was lost".into() };
        ledger.execute(tenant, &op_id(i), lost, &reconciler, AttemptReport::default()).await.unwrap();
    }
}

async fn bench(engine: &str, url: &str) {
    let store: Arc<dyn Store> = opledger::server::store::connect(url).await.unwrap();
    store.migrate().await.unwrap();
    let ledger = Ledger::new(store);
    let tenant = TenantId::parse("bench").unwrap();
    ledger.create_token(&tenant, "bench-agent", "bench").await.unwrap();
    let base_url = sandbox().await;
    let started = Instant::now();
    record_unknowns(&ledger, &tenant, &base_url).await;
    let recorded_in = started.elapsed();

    let connector = Arc::new(StripeConnector::new(
        &base_url,
        SECRET,
        Duration::from_secs(10),
        &EgressPolicy::unrestricted(),
    ));
    let lookups_started = Instant::now();
    let reads = ledger.reads();
    let operations: Vec<_> = stream::iter(0..OPERATIONS)
        .then(|i| {
            let reads = reads.clone();
            let tenant = tenant.clone();
            async move { reads.load_operation(&tenant, &op_id(i)).await.unwrap().unwrap() }
        })
        .collect()
        .await;
    let loaded_in = lookups_started.elapsed();
    let floor_started = Instant::now();
    let found = stream::iter(&operations)
        .map(|operation| {
            let connector = connector.clone();
            async move {
                matches!(
                    connector.look_up(operation).await,
                    opledger::server::providers::Lookup::Found { .. }
                )
            }
        })
        .buffer_unordered(8)
        .filter(|found| std::future::ready(*found))
        .count()
        .await;
    let floor = floor_started.elapsed();
    assert_eq!(found, OPERATIONS / 2, "the provider made the even half");

    let executor = Executor::new(ledger.clone(), RetryPolicy::default()).with_connector("stripe", connector);
    let reconciler = Reconciler::new(executor, chrono::Duration::zero());
    let settle_started = Instant::now();
    let mut passes = 0;
    loop {
        let pass = reconciler.reconcile_once().await.unwrap();
        passes += 1;
        if pass.settled.is_empty() {
            break;
        }
    }
    let settled_in = settle_started.elapsed();
    let succeeded = stream::iter(0..OPERATIONS)
        .filter(|i| {
            let reads = reads.clone();
            let tenant = tenant.clone();
            let i = *i;
            async move {
                reads.load_operation(&tenant, &op_id(i)).await.unwrap().unwrap().snapshot.state
                    == State::Succeeded
            }
        })
        .count()
        .await;
    assert_eq!(succeeded, OPERATIONS, "every unknown refund settled as succeeded");
    let per_op = |d: Duration| d.as_secs_f64() * 1000.0 / OPERATIONS as f64;
    println!(
        "| {engine} | {:.1} s ({:.2} ms each) | {:.1} s ({:.2} ms each) | {:.1}× | {passes} | {:.1} s / {:.1} s |",
        settled_in.as_secs_f64(),
        per_op(settled_in),
        floor.as_secs_f64(),
        per_op(floor),
        settled_in.as_secs_f64() / floor.as_secs_f64(),
        recorded_in.as_secs_f64(),
        loaded_in.as_secs_f64(),
    );
}

#[tokio::main]
async fn main() {
    println!("| engine | 10,000 unknowns settled by reconcile passes | their lookups alone, 8 at a time (floor) | ratio to floor | passes | recording / loading them |");
    println!("|---|---|---|---|---|---|---|");
    support::on_each_engine(|engine, url| async move { bench(engine, &url).await }).await;
}
