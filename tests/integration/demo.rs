//! `serve --demo` seeds operations in every state through the real protocol, and the reconciler
//! then settles them as the articles say it must.

use opledger::domain::{
    ids::{OpId, TenantId},
    machine::State,
};
use opledger::server::{
    connectors::StripeConnector,
    executor::{Executor, RetryPolicy},
    reconciler::Reconciler,
};
use std::sync::Arc;
use std::time::{Duration, Instant};

fn op(id: &str) -> OpId {
    OpId::parse(id).unwrap()
}

async fn state_of(app: &crate::support::TestApp, id: &str) -> Option<State> {
    let demo = TenantId::parse("demo").unwrap();
    app.ledger.store().load_operation(&demo, &op(id)).await.unwrap().map(|o| o.snapshot.state)
}

#[tokio::test]
async fn the_demo_shows_every_state_and_the_reconciler_settles_it() {
    let Some(app) = crate::support::TestApp::spawn_with(crate::support::Engine::Sqlite, |settings| {
        settings.demo = true;
        settings.provider_timeout = Duration::from_millis(2000);
    })
    .await
    else {
        return;
    };
    let deadline = Instant::now() + Duration::from_secs(30);
    while state_of(&app, "refund-1043-li_2").await.is_none_or(|s| s == State::Submitted) {
        assert!(Instant::now() < deadline, "the demo was not seeded within 30 s");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    let expected = [
        ("refund-A1042-li_1", State::Succeeded),
        ("refund-A1042-li_2", State::Succeeded),
        ("refund-1051-li_2", State::Succeeded),
        ("refund-2002-li_1", State::Rejected),
        ("refund-1051-li_1", State::Cancelled),
        ("refund-A1042-li_3", State::Submitted),
        ("refund-1043-li_1", State::Unknown),
        ("refund-1043-li_2", State::Unknown),
    ];
    for (id, state) in expected {
        assert_eq!(state_of(&app, id).await, Some(state), "{id}");
    }
    let demo = TenantId::parse("demo").unwrap();
    assert_eq!(app.ledger.store().conflicts_of(&demo, &op("refund-A1042-li_1")).await.unwrap().len(), 1);

    let connector = StripeConnector::new(&app.url("/sandbox"), "sk_test_sandbox", Duration::from_secs(5));
    let executor = Executor::new(app.ledger.clone(), RetryPolicy::default())
        .with_connector("stripe", Arc::new(connector));
    Reconciler::new(executor, chrono::Duration::zero()).reconcile_once().await.unwrap();
    assert_eq!(
        state_of(&app, "refund-A1042-li_3").await,
        Some(State::Succeeded),
        "re-sent with the same key"
    );
    assert_eq!(
        state_of(&app, "refund-1043-li_1").await,
        Some(State::NeedsReview),
        "a cached 500 goes to a person"
    );
    assert_eq!(state_of(&app, "refund-1043-li_2").await, Some(State::Succeeded), "found by its op id");
}
