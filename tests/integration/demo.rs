//! `serve --demo` and `opledger demo` seed operations in every state through the real protocol,
//! and the reconciler then settles them as the articles say it must.

use opledger::domain::{
    ids::{OpId, TenantId},
    machine::State,
};
use opledger::server::{
    ledger::executor::{Executor, RetryPolicy},
    ledger::reconciler::Reconciler,
    providers::StripeConnector,
};
use std::sync::Arc;
use std::time::{Duration, Instant};

fn op(id: &str) -> OpId {
    OpId::parse(id).unwrap()
}

async fn state_of(app: &crate::support::TestApp, id: &str) -> Option<State> {
    let demo = TenantId::parse("demo").unwrap();
    app.ledger.reads().load_operation(&demo, &op(id)).await.unwrap().map(|o| o.snapshot.state)
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
    let deadline = Instant::now() + Duration::from_secs(60);
    // The demo's last operation is registered, then sent: planned and submitted are on its way.
    while matches!(
        state_of(&app, "cancel-aftersale-1051-li_2").await,
        None | Some(State::Planned | State::Submitted)
    ) {
        assert!(Instant::now() < deadline, "the demo was not seeded within 60 s");
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
        ("refund-1060-li_1", State::PendingApproval),
        ("refund-1060-li_2", State::Denied),
        ("refund-1060-li_3", State::NeedsReview),
        ("refund-1088-li_1", State::Succeeded),
        ("refund-1092-li_1", State::Succeeded),
        ("aftersale-2002-li_1", State::Succeeded),
        ("pickup-2002-li_1-2026-12-02", State::Rejected),
        ("cancel-aftersale-1051-li_2", State::Unknown),
    ];
    for (id, state) in expected {
        assert_eq!(state_of(&app, id).await, Some(state), "{id}");
    }
    let demo = TenantId::parse("demo").unwrap();
    let people = |history: opledger::domain::operation::OperationHistory| {
        history.audit.iter().map(|a| (a.entry.actor.clone(), a.entry.action.clone())).collect::<Vec<_>>()
    };
    let approved =
        app.ledger.reads().operation_history(&demo, &op("refund-1088-li_1")).await.unwrap().unwrap();
    assert!(
        people(approved).contains(&("maria.manager".into(), "approve".into())),
        "a manager's approval is in the demo"
    );
    let settled =
        app.ledger.reads().operation_history(&demo, &op("refund-1092-li_1")).await.unwrap().unwrap();
    assert!(
        people(settled).contains(&("sam.support".into(), "confirm_found".into())),
        "support's reconciliation is in the demo"
    );
    let stopped = app.ledger.reads().load_operation(&demo, &op("refund-1043-li_1")).await.unwrap().unwrap();
    assert!(stopped.snapshot.cancel_requested, "a stop was recorded while the result is unknown");
    let expired =
        app.ledger.reads().operation_history(&demo, &op("refund-1060-li_3")).await.unwrap().unwrap();
    assert!(
        expired.audit.iter().any(|a| a.entry.reason.as_deref().is_some_and(|r| r.contains("key"))),
        "the review says the key expired: {:?}",
        expired.audit.iter().map(|a| &a.entry.reason).collect::<Vec<_>>()
    );
    assert_eq!(app.ledger.reads().conflicts_of(&demo, &op("refund-A1042-li_1")).await.unwrap().len(), 1);

    let second = TenantId::parse("eu-shop").unwrap();
    let deadline = Instant::now() + Duration::from_secs(30);
    let eu_refund = loop {
        let found = app.ledger.reads().operation_history(&second, &op("refund-1043-li_2")).await.unwrap();
        if let Some(history) = found.filter(|h| h.operation.snapshot.state == State::Succeeded) {
            break history;
        }
        assert!(Instant::now() < deadline, "the second tenant was not seeded within 30 s");
        tokio::time::sleep(Duration::from_millis(100)).await;
    };
    assert_eq!(
        eu_refund.operation.idempotency_key, "eu-shop:refund-1043-li_2",
        "the same op id, its own key"
    );
    assert_eq!(
        eu_refund.operation.params.money("amount").unwrap().to_string(),
        "EUR 19.90",
        "its own shop's order 1043"
    );
    assert_eq!(
        state_of(&app, "refund-1043-li_2").await,
        Some(State::Unknown),
        "the demo tenant's own is untouched"
    );

    let state_in = |tenant: &'static str, id: &'static str| {
        let ledger = app.ledger.clone();
        async move {
            let tenant = TenantId::parse(tenant).unwrap();
            ledger.reads().load_operation(&tenant, &op(id)).await.unwrap().map(|o| o.snapshot.state)
        }
    };
    let deadline = Instant::now() + Duration::from_secs(40);
    while !(state_in("nl-shop", "refund-1043-li_1").await == Some(State::Succeeded)
        && state_in("nl-shop", "refund-1043-li_2").await == Some(State::Rejected)
        && state_in("tw-shop", "refund-1043-li_1").await == Some(State::Succeeded))
    {
        assert!(
            Instant::now() < deadline,
            "the Adyen and PayPal shops were not seeded and settled within 40 s: {:?} {:?} {:?}",
            state_in("nl-shop", "refund-1043-li_1").await,
            state_in("nl-shop", "refund-1043-li_2").await,
            state_in("tw-shop", "refund-1043-li_1").await
        );
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
    assert_eq!(
        state_in("tw-shop", "refund-1043-li_2").await,
        Some(State::Accepted),
        "PayPal holds it PENDING for 20 s"
    );

    // tw-ecpay: ECPay and LINE Pay, without a key. As seeded, before any reconciler pass:
    let seeded = [
        ("refund-TW1043-li_1", State::Accepted, "refunded, then ECPay's nightly close ran"),
        ("refund-TW1043-li_2", State::Accepted, "refunded after the close: waits for the next"),
        ("refund-TW1044-li_1", State::Unknown, "its answer dropped"),
        ("refund-TW1045-li_1", State::Planned, "held back at 20:20 Taiwan time"),
        ("refund-TW2001-li_1", State::Succeeded, "LINE Pay: final on the answer"),
        ("refund-TW2001-li_2", State::Unknown, "1198: still processing"),
        ("refund-TW2002-li_1", State::Unknown, "a 500 after the refund was made"),
    ];
    let taiwan_states = |ids: Vec<&'static str>| {
        let state_in = &state_in;
        async move {
            let mut states = Vec::new();
            for id in ids {
                states.push(state_in("tw-ecpay", id).await);
            }
            states
        }
    };
    let ids: Vec<&'static str> = seeded.iter().map(|(id, _, _)| *id).collect();
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        let states = taiwan_states(ids.clone()).await;
        if seeded.iter().zip(&states).all(|((_, want, _), got)| *got == Some(*want)) {
            break;
        }
        assert!(Instant::now() < deadline, "tw-ecpay was not seeded as expected within 60 s: {states:?}");
        tokio::time::sleep(Duration::from_millis(250)).await;
    }

    let connector = StripeConnector::new(
        &app.url("/sandbox"),
        "sk_test_sandbox",
        Duration::from_secs(5),
        &opledger::server::egress::EgressPolicy::unrestricted(),
    );
    let executor = Executor::new(app.ledger.clone(), RetryPolicy::default())
        .with_connector("stripe", Arc::new(connector))
        .serving([TenantId::parse("demo").unwrap()]);
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

    // The pass above settled the demo tenant's and tw-ecpay's; one more follows what it accepted.
    Reconciler::new(Executor::new(app.ledger.clone(), RetryPolicy::default()), chrono::Duration::zero())
        .reconcile_once()
        .await
        .unwrap();
    let settled = [
        State::Succeeded, // ECPay's close made it 已關帳
        State::Accepted,
        State::Accepted, // found in close_data against the list kept before the send
        State::Accepted, // sent once ECPay could take it
        State::Succeeded,
        State::Succeeded,   // found in refundList
        State::NeedsReview, // two new refunds of NT$380: a person decides
    ];
    let states = taiwan_states(ids.clone()).await;
    assert_eq!(states, settled.map(Some).to_vec(), "{ids:?}");
    let tenant = TenantId::parse("tw-ecpay").unwrap();
    let history = |id: &'static str| {
        let ledger = app.ledger.clone();
        let tenant = tenant.clone();
        async move { ledger.reads().operation_history(&tenant, &op(id)).await.unwrap().unwrap() }
    };
    let held = history("refund-TW1045-li_1").await;
    let first = held.attempts.first().and_then(|attempt| attempt.error.clone()).unwrap_or_default();
    assert!(first.starts_with("not sent") && first.contains("20:30"), "{first}");
    let found = history("refund-TW1044-li_1").await;
    assert!(!found.external_refs.is_empty(), "recorded with ECPay's sno");
    let ambiguous = history("refund-TW2002-li_1").await;
    let reason = ambiguous
        .audit
        .iter()
        .rev()
        .find(|event| event.entry.action == "escalate")
        .and_then(|event| event.entry.reason.clone())
        .unwrap_or_default();
    assert!(reason.contains("380"), "the person sees both refunds: {reason}");
}

#[test]
fn the_demo_command_seeds_a_database_and_can_run_again() {
    let dir = tempfile::tempdir().unwrap();
    let url = format!("sqlite://{}", dir.path().join("demo.db").display());
    let run = || {
        std::process::Command::new(env!("CARGO_BIN_EXE_opledger"))
            .args(["demo", "--database-url", &url])
            .env_remove("OPLEDGER_DATABASE_URL")
            .output()
            .unwrap()
    };
    let first = run();
    assert!(first.status.success(), "{}", String::from_utf8_lossy(&first.stderr));
    let printed = String::from_utf8(first.stdout).unwrap();
    assert!(printed.contains("API token of demo-agent (shown once): opl_"), "{printed}");
    for user in ["sam.support", "maria.manager", "ada.auditor", "alex.admin", "opledger-demo"] {
        assert!(printed.contains(user), "{user} missing from {printed}");
    }
    let states = tokio::runtime::Runtime::new().unwrap().block_on(async {
        let store = opledger::server::store::connect(&url).await.unwrap();
        let demo = TenantId::parse("demo").unwrap();
        let mut states = Vec::new();
        for id in [
            "refund-1060-li_1",
            "refund-1060-li_2",
            "refund-1060-li_3",
            "refund-1043-li_2",
            "refund-2002-li_1",
        ] {
            states.push(store.load_operation(&demo, &op(id)).await.unwrap().unwrap().snapshot.state);
        }
        states
    });
    assert_eq!(
        states,
        [State::PendingApproval, State::Denied, State::NeedsReview, State::Unknown, State::Rejected]
    );
    let again = run();
    assert!(again.status.success());
    assert!(String::from_utf8(again.stdout).unwrap().contains("already has its demo operations"));
}
