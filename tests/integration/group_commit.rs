//! SQLite's group commit tried directly: concurrent writes share commits, every acknowledged write
//! is durable for a connection that opens the file afresh, a write that fails inside a group takes
//! nothing of the others with it, and a write whose caller goes away never holds the writer.

use crate::support::refund_request;
use opledger::domain::ids::{Actor, TenantId};
use opledger::server::ledger::{Ledger, LedgerError, Registration};
use opledger::server::store::{SqliteStore, Store, StoreError};
use std::sync::Arc;
use std::time::Duration;

struct Opened {
    _dir: tempfile::TempDir,
    url: String,
    store: Arc<SqliteStore>,
    ledger: Ledger,
}

async fn open() -> Opened {
    let dir = tempfile::tempdir().unwrap();
    let url = format!("sqlite://{}", dir.path().join("ledger.db").display());
    let store = Arc::new(SqliteStore::connect(&url).await.unwrap());
    store.migrate().await.unwrap();
    let ledger = Ledger::new(store.clone());
    ledger.create_token(&acme(), "setup", "admin").await.unwrap();
    Opened { _dir: dir, url, store, ledger }
}

fn acme() -> TenantId {
    TenantId::parse("acme").unwrap()
}

/// Registers the refunds of orders `orders`, each in a task of its own, all at once.
fn spawn_registers(
    ledger: &Ledger,
    orders: std::ops::Range<usize>,
) -> Vec<tokio::task::JoinHandle<Result<Registration, LedgerError>>> {
    orders
        .map(|n| {
            let ledger = ledger.clone();
            tokio::spawn(async move {
                ledger.register(&acme(), &Actor::agent("agent-7"), refund_request(n)).await
            })
        })
        .collect()
}

/// How many rows `sql` counts, read over a connection of its own that opens the file afresh.
async fn count_afresh(url: &str, sql: &str) -> i64 {
    use sqlx::Connection;
    let mut connection = sqlx::SqliteConnection::connect(url).await.unwrap();
    sqlx::query_scalar(sql).fetch_one(&mut connection).await.unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn concurrent_writes_share_commits_and_every_acknowledged_one_is_durable() {
    let opened = open().await;
    let writes = 64;
    let before = opened.store.group_commits();
    for task in spawn_registers(&opened.ledger, 0..writes) {
        assert!(matches!(task.await.unwrap().unwrap(), Registration::Created(_)));
    }
    let commits = opened.store.group_commits() - before;
    assert!(commits < writes as u64 / 2, "{writes} concurrent writes took {commits} commits");
    assert_eq!(count_afresh(&opened.url, "select count(*) from operations").await, writes as i64);
    let registered = "select count(*) from audit_pending where action = 'register'";
    assert_eq!(count_afresh(&opened.url, registered).await, writes as i64);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_write_that_fails_inside_a_group_leaves_the_others_and_no_trace_of_itself() {
    let opened = open().await;
    opened.ledger.create_token(&acme(), "agent-7", "admin").await.unwrap();
    let audited_before = count_afresh(&opened.url, "select count(*) from audit_pending").await;
    let registers = spawn_registers(&opened.ledger, 0..24);
    let duplicates: Vec<_> = (0..4)
        .map(|_| {
            let ledger = opened.ledger.clone();
            tokio::spawn(async move { ledger.create_token(&acme(), "agent-7", "admin").await })
        })
        .collect();
    for duplicate in duplicates {
        let refused = duplicate.await.unwrap().unwrap_err();
        assert!(matches!(refused, StoreError::Conflict(_)), "{refused:?}");
    }
    for register in registers {
        register.await.unwrap().unwrap();
    }
    assert_eq!(count_afresh(&opened.url, "select count(*) from operations").await, 24);
    assert_eq!(count_afresh(&opened.url, "select count(*) from api_tokens where name = 'agent-7'").await, 1);
    assert_eq!(
        count_afresh(&opened.url, "select count(*) from audit_pending").await,
        audited_before + 24,
        "the refused tokens left no audit entry"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_write_whose_caller_goes_away_is_whole_or_absent_and_never_holds_the_writer() {
    let opened = open().await;
    let tasks = spawn_registers(&opened.ledger, 0..40);
    for (n, task) in tasks.iter().enumerate() {
        if n % 2 == 1 {
            task.abort();
        }
    }
    for task in tasks {
        let _ = task.await;
    }
    let (tenant, agent) = (acme(), Actor::agent("agent-7"));
    let next = opened.ledger.register(&tenant, &agent, refund_request(1_000));
    let next = tokio::time::timeout(Duration::from_secs(5), next).await.expect("the writer is free");
    assert!(matches!(next.unwrap(), Registration::Created(_)));
    let operations = count_afresh(&opened.url, "select count(*) from operations").await;
    let audited =
        count_afresh(&opened.url, "select count(*) from audit_pending where action = 'register'").await;
    let counted: i64 = count_afresh(
        &opened.url,
        "select coalesce(sum(operations), 0) from hourly_outcomes where hour_us = -1",
    )
    .await;
    assert!((21..=41).contains(&operations), "{operations} operations");
    assert_eq!(audited, operations, "each operation recorded has its audit entry, and only those");
    assert_eq!(counted, operations, "each operation recorded is counted, and only those");
}
