//! Two instances of the server on one database. What the ledger reads on every call and keeps for
//! a moment (tokens, approval rules) changes on the instance that changed it at once, and on the
//! other within the bound the security page (docs/security.md) states: one second. Sessions are
//! read from the database on every request, so a person deactivated on one is out on the other at
//! once.

use std::net::SocketAddr;
use std::time::{Duration, Instant};

use opledger::domain::ids::{Actor, TenantId};
use opledger::domain::people::PeopleChange;
use opledger::domain::policy::{ApprovalRule, Role};
use opledger::server::app::startup::{Application, Settings};
use opledger::server::ledger::people::ChangedBy;
use opledger::server::store::records::ApprovalRuleRecord;
use serde_json::Value;

use crate::support::{refund_1043, Engine, TestApp, PASSWORD, SECRET_KEY};

/// The bound, with room for a loaded test machine to schedule the polls.
const BOUND: Duration = Duration::from_millis(1_000);
const SLACK: Duration = Duration::from_millis(400);

/// A second server on `app`'s database, serving until it is dropped.
struct OtherInstance {
    addr: SocketAddr,
    _stop: tokio::sync::oneshot::Sender<()>,
}

impl OtherInstance {
    async fn start(app: &TestApp) -> OtherInstance {
        let mut settings = Settings::new(app.database.url(), "127.0.0.1:0".parse().unwrap());
        settings.secret_key = Some(SECRET_KEY.into());
        settings.default_tenants = vec![TenantId::parse("acme").unwrap()];
        let site_root = tempfile::tempdir().unwrap();
        settings.site_root = site_root.path().display().to_string();
        let application = Application::build(settings).await.expect("the second instance starts");
        let addr = application.local_addr();
        let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
        tokio::spawn(application.run_until(async move {
            let _ = stopped.await;
            drop(site_root);
        }));
        OtherInstance { addr, _stop: stop }
    }
}

async fn status_of_read(app: &TestApp, addr: SocketAddr) -> u16 {
    let url = format!("http://{addr}/api/v1/operations/refund-1043-li_2");
    app.client.get(url).bearer_auth(&app.token).send().await.unwrap().status().as_u16()
}

async fn register_at(app: &TestApp, addr: SocketAddr, n: usize) -> Value {
    let mut body = refund_1043(5_000);
    body["op_id"] = Value::from(format!("refund-{}-li_1", 3_000 + n));
    body["subject"] = Value::from(format!("order:{}", 3_000 + n));
    let url = format!("http://{addr}/api/v1/operations");
    let response = app.client.post(url).bearer_auth(&app.token).json(&body).send().await.unwrap();
    assert_eq!(response.status(), 201);
    response.json().await.unwrap()
}

/// Calls `check` every 20 ms until it holds; answers how long that took (failing past the bound).
async fn within_the_bound<F, Fut>(what: &str, mut check: F) -> Duration
where
    F: FnMut() -> Fut,
    Fut: std::future::Future<Output = bool>,
{
    let started = Instant::now();
    while !check().await {
        assert!(started.elapsed() < BOUND + SLACK, "{what}: still not so after {:?}", started.elapsed());
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    started.elapsed()
}

async fn a_revoked_token_is_refused_here_at_once_and_there_within_a_second(engine: Engine) {
    let Some(app) = TestApp::spawn(engine).await else { return };
    let other = OtherInstance::start(&app).await;
    assert_eq!(app.register(&refund_1043(5_000)).await.0, 201);
    assert_eq!(status_of_read(&app, app.addr).await, 200);
    assert_eq!(status_of_read(&app, other.addr).await, 200, "the other instance has read the token");

    app.ledger.revoke_token(&TenantId::parse("acme").unwrap(), "agent-7", "test").await.unwrap();
    assert_eq!(status_of_read(&app, app.addr).await, 401, "refused at once where it was revoked");
    let took = within_the_bound("the other instance refuses the token", || async {
        status_of_read(&app, other.addr).await == 401
    })
    .await;
    assert!(took <= BOUND + SLACK);
}

async fn a_removed_approval_rule_stops_counting_here_at_once_and_there_within_a_second(engine: Engine) {
    let Some(app) = TestApp::spawn(engine).await else { return };
    let other = OtherInstance::start(&app).await;
    let acme = TenantId::parse("acme").unwrap();
    let admin = Actor::human("alex", Role::Admin);
    let rule = ApprovalRule { kind: "refund".into(), provider: None, threshold: None };
    let record = ApprovalRuleRecord {
        id: "all".into(),
        rule,
        created_by: "alex".into(),
        created_at: chrono::Utc::now(),
    };
    app.ledger.add_approval_rule(&acme, &admin, record).await.unwrap();
    assert_eq!(register_at(&app, app.addr, 0).await["state"], "pending_approval", "counts at once here");
    let mut n = 1;
    within_the_bound("the other instance applies the added rule", || {
        n += 1;
        let n = n;
        let (app, addr) = (&app, other.addr);
        async move { register_at(app, addr, n).await["state"] == "pending_approval" }
    })
    .await;

    app.ledger.remove_approval_rule(&acme, &admin, "all").await.unwrap();
    n += 1;
    assert_eq!(register_at(&app, app.addr, n).await["state"], "planned", "gone at once here");
    let took = within_the_bound("the other instance drops the removed rule", || {
        n += 1;
        let n = n;
        let (app, addr) = (&app, other.addr);
        async move { register_at(app, addr, n).await["state"] == "planned" }
    })
    .await;
    assert!(took <= BOUND + SLACK);
}

async fn a_person_deactivated_on_one_instance_is_signed_out_on_the_other_at_once(engine: Engine) {
    let Some(app) = TestApp::spawn(engine).await else { return };
    let other = OtherInstance::start(&app).await;
    app.add_user("acme", "max", Role::Manager).await;
    let there = app.console_at(other.addr);
    assert_eq!(
        there.sign_in("max", PASSWORD, "/").await.headers()["location"],
        "/",
        "signs in on the other instance"
    );
    there.page("/approvals", 200).await;
    let by = ChangedBy::command_line();
    let acme = TenantId::parse("acme").unwrap();
    app.ledger.change_person(&acme, "max", PeopleChange::Deactivate, "left", None, &by).await.unwrap();
    let response = there.get("/approvals").await;
    assert_eq!(response.status().as_u16(), 303, "the next click there is the sign-in page, at once");
}

/// PostgreSQL: a change committed on one instance, after one with a later time, wakes a read
/// waiting on the other within the bound.
#[tokio::test]
async fn postgres_a_change_with_an_earlier_time_wakes_a_read_waiting_on_the_other_instance() {
    let Some(app) = TestApp::spawn(Engine::Postgres).await else { return };
    let other = OtherInstance::start(&app).await;
    app.hold_large_refunds().await;
    let (status, held) = app.register(&refund_1043(120_000)).await;
    assert_eq!((status, held["state"].as_str()), (201, Some("pending_approval")), "{held}");
    register_at(&app, app.addr, 1).await;
    app.tamper("update operations set updated_at_us = updated_at_us + 3600000000 where op_id = 'refund-3001-li_1'").await;
    let url = format!("http://{}/api/v1/operations/refund-1043-li_2?wait=10", other.addr);
    let waiting = tokio::spawn({
        let (client, token) = (app.client.clone(), app.token.clone());
        async move {
            let response = client.get(url).bearer_auth(token).send().await.unwrap();
            (response.json::<Value>().await.unwrap(), Instant::now())
        }
    });
    // The other instance's poller has read the later time by now.
    tokio::time::sleep(Duration::from_millis(1_500)).await;
    app.approve("refund-1043-li_2").await;
    let approved_at = Instant::now();
    let (answer, answered_at) = waiting.await.unwrap();
    assert_eq!(answer["state"], "approved", "{answer}");
    let took = answered_at.saturating_duration_since(approved_at);
    assert!(took <= BOUND, "the read on the other instance answered {took:?} after the approval");
}

crate::on_both_engines!(
    a_person_deactivated_on_one_instance_is_signed_out_on_the_other_at_once,
    a_revoked_token_is_refused_here_at_once_and_there_within_a_second,
    a_removed_approval_rule_stops_counting_here_at_once_and_there_within_a_second,
);
