//! Any downstream, honestly: a shop's own helpdesk API, unlike the after-sale service in every
//! detail (JSON bodies, its own paths, key header and answer shape, statuses of its own), reached
//! from its description alone. The same API is described four times, honouring a key and a lookup,
//! a key only, a lookup only, or neither; each description's story drops the answer to the first
//! send and ends as the seed's rules say (found by a lookup, re-sent once with the same key, handed
//! to people), with never more than one ticket at the helpdesk.

use axum::{
    extract::{Path, Query, State},
    http::HeaderMap,
    routing::{get, post},
    Json, Router,
};
use serde_json::{json, Value};
use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use crate::support::{Engine, TestApp};
use opledger::domain::connection::ProviderKind;
use opledger::domain::ids::{Actor, OpId, TenantId};
use opledger::domain::machine::{Command, State as OpState};
use opledger::domain::operation::AttemptReport;
use opledger::domain::params::CanonicalParams;
use opledger::domain::policy::Role;
use opledger::server::app::wiring::{self, ProviderSettings};
use opledger::server::ledger::connections::NewConnection;
use opledger::server::ledger::executor::Executor;
use opledger::server::ledger::reconciler::Reconciler;
use opledger::server::ledger::{LedgerError, RegisterRequest, Registration};

const OP: &str = "ticket-1043-li_2";

/// The helpdesk: tickets by number, the answers it gave per key, how many requests to open one
/// it got, and the faults the test sets.
#[derive(Default)]
struct Desk {
    tickets: Vec<Value>,
    answers_by_key: HashMap<String, Value>,
    opens: usize,
    drop_next: usize,
    hide_from_lookups: bool,
}

type Shared = Arc<Mutex<Desk>>;

/// `POST /api/orders/{order}/tickets`: opens a ticket (replaying the first answer to a key it has
/// seen), then answers it, or, when told to drop the answer, answers only after the caller gave
/// up.
async fn open(
    State(desk): State<Shared>,
    Path(order): Path<String>,
    headers: HeaderMap,
    Json(body): Json<Value>,
) -> Json<Value> {
    let key = headers.get("x-request-key").and_then(|v| v.to_str().ok()).map(str::to_owned);
    let (answer, drop) = {
        let mut desk = desk.lock().unwrap();
        desk.opens += 1;
        let replayed = key.as_ref().and_then(|key| desk.answers_by_key.get(key).cloned());
        let answer = replayed.unwrap_or_else(|| {
            let number = desk.tickets.len() + 100;
            let ticket = json!({"number": number, "state": "open", "order": order, "ref": body["ref"], "subject": body["subject"]});
            desk.tickets.push(ticket.clone());
            let answer = json!({"ticket": ticket});
            if let Some(key) = &key {
                desk.answers_by_key.insert(key.clone(), answer.clone());
            }
            answer
        });
        let drop = desk.drop_next > 0;
        desk.drop_next = desk.drop_next.saturating_sub(1);
        (answer, drop)
    };
    if drop {
        tokio::time::sleep(Duration::from_secs(3)).await;
    }
    Json(answer)
}

/// `GET /api/tickets?ref=`: the tickets opened for a reference.
async fn find(State(desk): State<Shared>, Query(query): Query<HashMap<String, String>>) -> Json<Value> {
    let desk = desk.lock().unwrap();
    let wanted = query.get("ref").cloned().unwrap_or_default();
    let tickets: Vec<&Value> = if desk.hide_from_lookups {
        Vec::new()
    } else {
        desk.tickets.iter().filter(|ticket| ticket["ref"] == wanted.as_str()).collect()
    };
    Json(json!({"tickets": tickets}))
}

async fn start_desk() -> (String, Shared) {
    let desk = Shared::default();
    let router = Router::new()
        .route("/api/orders/{order}/tickets", post(open))
        .route("/api/tickets", get(find))
        .with_state(desk.clone());
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let base_url = format!("http://{}", listener.local_addr().unwrap());
    tokio::spawn(async move { axum::serve(listener, router).await });
    (base_url, desk)
}

/// The helpdesk's description, with its key header and its lookup where asked for.
fn description(key: bool, lookup: bool) -> String {
    let mut operation = json!({
        "request": {"method": "POST", "path": "/api/orders/{params.order}/tickets",
                    "body": {"subject": "{params.subject}", "ref": "{op_id}"}},
        "answer": {"id": "/ticket/number", "status": "/ticket/state"},
        "statuses": {"open": "succeeded", "queued": "pending", "refused": "failed"}
    });
    if key {
        operation["key"] = json!({"header": "X-Request-Key", "remembered_s": 3600});
    }
    if lookup {
        operation["lookup"] = json!({"path": "/api/tickets", "query": {"ref": "{op_id}"},
            "object": "/tickets/0", "id": "/number", "status": "/state", "match": {"/ref": "{op_id}"}});
    }
    json!({"format": "opledger/http-api/1", "operations": {"open_ticket": operation}}).to_string()
}

fn acme() -> TenantId {
    TenantId::parse("acme").unwrap()
}

/// Connects acme to the helpdesk as `description(key, lookup)` describes it, and answers an
/// executor that waits 800 ms for it and a reconciler that settles at once.
async fn connect(app: &TestApp, base_url: &str, key: bool, lookup: bool) -> (Executor, Reconciler) {
    let connection = NewConnection {
        name: "helpdesk".into(),
        kind: ProviderKind::Http,
        base_url: base_url.into(),
        secret: "desk_secret".into(),
        account: None,
        key_retention: None,
        description: Some(description(key, lookup)),
    };
    app.ledger
        .set_provider_connection(&acme(), &Actor::human("alex", Role::Admin), connection)
        .await
        .unwrap();
    let providers = ProviderSettings {
        tenants: Vec::new(),
        stripe_base_url: None,
        services_base_url: None,
        secret_key: "unused".into(),
        timeout: Duration::from_millis(800),
    };
    let executor = wiring::executor(app.ledger.clone(), &providers);
    let reconciler = Reconciler::new(executor.clone(), chrono::Duration::zero());
    (executor, reconciler)
}

/// Records the ticket for order 1043 and, when it is new, runs the executor on it: what it came
/// to, or how the same intent recorded earlier stands.
async fn open_ticket(app: &TestApp, executor: &Executor) -> OpState {
    let request = RegisterRequest {
        op_id: OpId::parse(OP).unwrap(),
        kind: "open_ticket".into(),
        subject: "order:1043".into(),
        provider: "helpdesk".into(),
        params: CanonicalParams::from_value(
            json!({"order": "1043", "subject": "Headphone case arrived cracked"}),
        )
        .unwrap(),
        requested_by: "agent".into(),
        on_behalf_of: None,
        server_sends: true,
        compensates: None,
        key_retention: Some(chrono::Duration::days(30)),
    };
    match app.ledger.register(&acme(), &Actor::human("agent", Role::Support), request).await.unwrap() {
        Registration::Created(_) => {
            executor.run(&acme(), &OpId::parse(OP).unwrap()).await.unwrap().operation.snapshot.state
        }
        Registration::Existing(stored) => stored.operation.snapshot.state,
        Registration::Conflict { .. } => panic!("the same intent is no conflict"),
    }
}

async fn state_and_trail(app: &TestApp) -> (OpState, String) {
    let history =
        app.ledger.reads().operation_history(&acme(), &OpId::parse(OP).unwrap()).await.unwrap().unwrap();
    (history.operation.snapshot.state, serde_json::to_string(&history.audit).unwrap())
}

fn tickets_and_opens(desk: &Shared) -> (usize, usize) {
    let desk = desk.lock().unwrap();
    (desk.tickets.len(), desk.opens)
}

async fn answer_dropped(app: &TestApp, key: bool, lookup: bool) -> (Shared, Executor, Reconciler) {
    let (base_url, desk) = start_desk().await;
    let (executor, reconciler) = connect(app, &base_url, key, lookup).await;
    desk.lock().unwrap().drop_next = 1;
    (desk, executor, reconciler)
}

async fn a_second_api_works_from_its_description_alone(engine: Engine) {
    let Some(app) = TestApp::spawn(engine).await else { return };
    let (base_url, desk) = start_desk().await;
    let (executor, _) = connect(&app, &base_url, true, true).await;
    assert_eq!(open_ticket(&app, &executor).await, OpState::Succeeded);
    let history =
        app.ledger.reads().operation_history(&acme(), &OpId::parse(OP).unwrap()).await.unwrap().unwrap();
    assert_eq!(history.external_refs[0].external_id, "100", "the id is read where the description says");
    let ticket = desk.lock().unwrap().tickets[0].clone();
    assert_eq!(ticket["order"], "1043");
    assert_eq!(ticket["subject"], "Headphone case arrived cracked");
    assert_eq!(ticket["ref"], OP, "the body is built from the stored parameters and the op id");
    assert_eq!(open_ticket(&app, &executor).await, OpState::Succeeded, "the same intent again");
    assert_eq!(tickets_and_opens(&desk), (1, 1), "sent once");
}

async fn key_and_lookup_a_dropped_answer_is_found(engine: Engine) {
    let Some(app) = TestApp::spawn(engine).await else { return };
    let (desk, executor, reconciler) = answer_dropped(&app, true, true).await;
    assert_eq!(open_ticket(&app, &executor).await, OpState::Unknown, "a timeout is not a failure");
    reconciler.reconcile_once().await.unwrap();
    let (state, trail) = state_and_trail(&app).await;
    assert_eq!(state, OpState::Succeeded, "{trail}");
    assert!(trail.contains("GET /api/tickets?ref=ticket-1043-li_2 finds it as 100, status open"), "{trail}");
    assert_eq!(tickets_and_opens(&desk), (1, 1), "looked up, not sent again");
}

async fn key_only_a_dropped_answer_is_re_sent_once_with_the_same_key(engine: Engine) {
    let Some(app) = TestApp::spawn(engine).await else { return };
    let (desk, executor, reconciler) = answer_dropped(&app, true, false).await;
    assert_eq!(open_ticket(&app, &executor).await, OpState::Unknown);
    reconciler.reconcile_once().await.unwrap();
    let (state, trail) = state_and_trail(&app).await;
    assert_eq!(state, OpState::Succeeded, "{trail}");
    assert_eq!(tickets_and_opens(&desk), (1, 2), "re-sent once, and the key made it the same ticket");
}

async fn lookup_only_an_empty_lookup_goes_to_people_never_to_a_re_send(engine: Engine) {
    let Some(app) = TestApp::spawn(engine).await else { return };
    let (desk, executor, reconciler) = answer_dropped(&app, false, true).await;
    desk.lock().unwrap().hide_from_lookups = true;
    assert_eq!(open_ticket(&app, &executor).await, OpState::Unknown);
    reconciler.reconcile_once().await.unwrap();
    let (state, trail) = state_and_trail(&app).await;
    assert_eq!(state, OpState::NeedsReview, "{trail}");
    assert!(trail.contains("finds nothing of it"), "the evidence is kept: {trail}");
    assert!(trail.contains("takes no idempotency key"), "{trail}");
    reconciler.reconcile_once().await.unwrap();
    assert_eq!(tickets_and_opens(&desk), (1, 1), "never sent again");

    desk.lock().unwrap().hide_from_lookups = false;
    reconciler.reconcile_once().await.unwrap();
    assert_eq!(state_and_trail(&app).await.0, OpState::NeedsReview, "people decide now, not the reconciler");
}

async fn lookup_only_a_dropped_answer_is_found(engine: Engine) {
    let Some(app) = TestApp::spawn(engine).await else { return };
    let (desk, executor, reconciler) = answer_dropped(&app, false, true).await;
    assert_eq!(open_ticket(&app, &executor).await, OpState::Unknown);
    reconciler.reconcile_once().await.unwrap();
    assert_eq!(state_and_trail(&app).await.0, OpState::Succeeded);
    assert_eq!(tickets_and_opens(&desk), (1, 1));
}

async fn neither_a_dropped_answer_goes_straight_to_people_and_is_never_re_sent(engine: Engine) {
    let Some(app) = TestApp::spawn(engine).await else { return };
    let (desk, executor, reconciler) = answer_dropped(&app, false, false).await;
    assert_eq!(open_ticket(&app, &executor).await, OpState::NeedsReview, "no checking can settle it");
    let (_, trail) = state_and_trail(&app).await;
    assert!(trail.contains("nobody can tell whether this happened"), "{trail}");
    assert!(trail.contains("What was seen:"), "the evidence goes with it: {trail}");
    reconciler.reconcile_once().await.unwrap();
    let manager = Actor::human("maria", Role::Manager);
    let op_id = OpId::parse(OP).unwrap();
    let resent =
        app.ledger.execute(&acme(), &op_id, Command::ResendSameKey, &manager, AttemptReport::default()).await;
    match resent {
        Err(LedgerError::Rejected(rejection)) => {
            assert!(rejection.message.contains("takes no idempotency key"), "{}", rejection.message)
        }
        other => panic!("a re-send must be refused, even to a manager: {other:?}"),
    }
    assert_eq!(
        open_ticket(&app, &executor).await,
        OpState::NeedsReview,
        "the same intent again sends nothing"
    );
    assert_eq!(tickets_and_opens(&desk), (1, 1), "at most once");
    let done =
        Command::MarkSucceeded { external_id: "100".into(), evidence: "ticket 100 in the helpdesk".into() };
    let settled =
        app.ledger.execute(&acme(), &op_id, done, &manager, AttemptReport::default()).await.unwrap();
    assert_eq!(settled.operation.snapshot.state, OpState::Succeeded, "a person settles it with evidence");
}

async fn a_wrong_description_is_refused_on_save_saying_where(engine: Engine) {
    let Some(app) = TestApp::spawn(engine).await else { return };
    let mut description: Value = serde_json::from_str(&description(true, true)).unwrap();
    description["operations"]["open_ticket"]["lookup"]["query"] = json!({"order": "{params.order}"});
    description["operations"]["open_ticket"]["lookup"]["match"] = json!({"/order": "{params.order}"});
    let connection = NewConnection {
        name: "helpdesk".into(),
        kind: ProviderKind::Http,
        base_url: "http://127.0.0.1:9".into(),
        secret: "desk_secret".into(),
        account: None,
        key_retention: None,
        description: Some(description.to_string()),
    };
    let refused = app
        .ledger
        .set_provider_connection(&acme(), &Actor::human("alex", Role::Admin), connection)
        .await
        .unwrap_err()
        .to_string();
    assert!(
        refused
            .contains("operations.open_ticket.lookup: must find the operation by what it wrote downstream"),
        "{refused}"
    );
    assert!(app.ledger.reads().provider_connections(&acme()).await.unwrap().is_empty(), "nothing saved");
}

crate::on_both_engines!(
    a_second_api_works_from_its_description_alone,
    key_and_lookup_a_dropped_answer_is_found,
    key_only_a_dropped_answer_is_re_sent_once_with_the_same_key,
    lookup_only_a_dropped_answer_is_found,
    lookup_only_an_empty_lookup_goes_to_people_never_to_a_re_send,
    neither_a_dropped_answer_goes_straight_to_people_and_is_never_re_sent,
    a_wrong_description_is_refused_on_save_saying_where,
);
