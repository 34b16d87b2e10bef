//! Any downstream, honestly: a shop's own helpdesk API, unlike the after-sale service in every
//! detail (JSON bodies, its own paths, key header and answer shape, statuses of its own), reached
//! from its description alone. The same API is described four times, honouring a key and a lookup,
//! a key only, a lookup only, or neither; each description's story drops the answer to the first
//! send and ends as the seed's rules say (found by a lookup, re-sent once with the same key, handed
//! to people), with never more than one ticket at the helpdesk. A 5xx is settled by what the
//! description says a re-send under the key gets after one (`after_5xx`); the agent's tools speak
//! of the tenant's own helpdesk by its name and as it is described; and the docs say what each
//! downstream honours as the code does.

use axum::{
    extract::{Path, Query, State},
    http::{HeaderMap, StatusCode},
    routing::{get, post},
    Json, Router,
};
use serde_json::{json, Value};
use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use crate::support::{Engine, TestApp};
use opledger::domain::connection::{After5xx, ProviderKind};
use opledger::domain::http_api::HttpApi;
use opledger::domain::ids::{Actor, OpId, TenantId};
use opledger::domain::language::Language;
use opledger::domain::machine::{Command, State as OpState};
use opledger::domain::operation::AttemptReport;
use opledger::domain::params::CanonicalParams;
use opledger::domain::policy::Role;
use opledger::domain::wording::retention_words;
use opledger::server::app::wiring::{self, ProviderSettings};
use opledger::server::ledger::connections::NewConnection;
use opledger::server::ledger::executor::Executor;
use opledger::server::ledger::reconciler::Reconciler;
use opledger::server::ledger::{LedgerError, RegisterRequest, Registration};
use opledger::server::providers::built_in_api;

const OP: &str = "ticket-1043-li_2";

/// The helpdesk: tickets by number, the answers it gave per key, how many requests to open one
/// it got, and the faults the test sets: a 500 to the next requests, kept as the key's answer
/// when the desk replays its 5xx (as Stripe does) and forgotten when it runs a re-send again.
#[derive(Default)]
struct Desk {
    tickets: Vec<Value>,
    answers_by_key: HashMap<String, (StatusCode, Value)>,
    opens: usize,
    drop_next: usize,
    fail_next: usize,
    replays_5xx: bool,
    hide_from_lookups: bool,
}

type Shared = Arc<Mutex<Desk>>;

/// `POST /api/orders/{order}/tickets`: opens a ticket (replaying the first answer to a key it has
/// seen), then answers it, or, when told to drop the answer, answers only after the caller gave
/// up; when told to fail, answers 500 before it opens anything.
async fn open(
    State(desk): State<Shared>,
    Path(order): Path<String>,
    headers: HeaderMap,
    Json(body): Json<Value>,
) -> (StatusCode, Json<Value>) {
    let key = headers.get("x-request-key").and_then(|v| v.to_str().ok()).map(str::to_owned);
    let (answer, drop) = {
        let mut desk = desk.lock().unwrap();
        desk.opens += 1;
        let replayed = key.as_ref().and_then(|key| desk.answers_by_key.get(key).cloned());
        let answer = replayed.unwrap_or_else(|| {
            if desk.fail_next > 0 {
                desk.fail_next -= 1;
                let failed = (StatusCode::INTERNAL_SERVER_ERROR, json!({"error": "internal"}));
                if let (Some(key), true) = (&key, desk.replays_5xx) {
                    desk.answers_by_key.insert(key.clone(), failed.clone());
                }
                return failed;
            }
            let number = desk.tickets.len() + 100;
            let ticket = json!({"number": number, "state": "open", "order": order, "ref": body["ref"], "subject": body["subject"]});
            desk.tickets.push(ticket.clone());
            let answer = (StatusCode::CREATED, json!({"ticket": ticket}));
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
    (answer.0, Json(answer.1))
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
    let key = key.then(|| json!({"header": "X-Request-Key", "remembered_s": 3600}));
    described_as("open_ticket", key, lookup)
}

/// The helpdesk described as serving operations of `kind` by opening a ticket (its subject the
/// operation's `subject`, else its line item), with `key` as its key (if any) and its lookup where
/// asked for.
fn described_as(kind: &str, key: Option<Value>, lookup: bool) -> String {
    let subject = if kind == "open_ticket" { "{params.subject}" } else { "Line item {params.line_item}" };
    let mut operation = json!({
        "request": {"method": "POST", "path": "/api/orders/{params.order}/tickets",
                    "body": {"subject": subject, "ref": "{op_id}"}},
        "answer": {"id": "/ticket/number", "status": "/ticket/state"},
        "statuses": {"open": "succeeded", "queued": "pending", "refused": "failed"}
    });
    if let Some(key) = key {
        operation["key"] = key;
    }
    if lookup {
        operation["lookup"] = json!({"path": "/api/tickets", "query": {"ref": "{op_id}"},
            "object": "/tickets/0", "id": "/number", "status": "/state", "match": {"/ref": "{op_id}"}});
    }
    json!({"format": "opledger/http-api/1", "operations": {kind: operation}}).to_string()
}

fn acme() -> TenantId {
    TenantId::parse("acme").unwrap()
}

/// Connects acme to the helpdesk as `description(key, lookup)` describes it, and answers an
/// executor that waits 800 ms for it and a reconciler that settles at once.
async fn connect(app: &TestApp, base_url: &str, key: bool, lookup: bool) -> (Executor, Reconciler) {
    connect_described(app, base_url, description(key, lookup)).await
}

/// Connects acme to the helpdesk at `base_url` as `description` describes it, under the name
/// `helpdesk`.
async fn set_helpdesk(app: &TestApp, base_url: &str, description: String) {
    let connection = NewConnection {
        name: "helpdesk".into(),
        kind: ProviderKind::Http,
        base_url: base_url.into(),
        secret: "desk_secret".into(),
        account: None,
        key_retention: None,
        description: Some(description),
    };
    app.ledger
        .set_provider_connection(&acme(), &Actor::human("alex", Role::Admin), connection)
        .await
        .unwrap();
}

/// [`connect`], with the helpdesk described as `description` says.
async fn connect_described(app: &TestApp, base_url: &str, description: String) -> (Executor, Reconciler) {
    set_helpdesk(app, base_url, description).await;
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
    match app.ledger.register(&acme(), &Actor::human("agent", Role::Support), ticket(None)).await.unwrap() {
        Registration::Created(_) => {
            executor.run(&acme(), &OpId::parse(OP).unwrap()).await.unwrap().operation.snapshot.state
        }
        Registration::Existing(stored) => stored.operation.snapshot.state,
        Registration::Conflict { .. } => panic!("the same intent is no conflict"),
    }
}

/// The ticket for order 1043, with the key window its caller claims, if any.
fn ticket(key_retention: Option<chrono::Duration>) -> RegisterRequest {
    RegisterRequest {
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
        key_retention,
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
    let claimed =
        app.ledger.register(&acme(), &Actor::agent("agent"), ticket(Some(chrono::Duration::days(30)))).await;
    match claimed {
        Err(LedgerError::InvalidField { field: "key_retention_s", problem }) => {
            assert!(problem.contains("honours no idempotency key"), "{problem}")
        }
        other => panic!("a key window claimed for a downstream without a key is refused: {other:?}"),
    }
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

/// The helpdesk with a key only, failing the first send with a 500, described as `after_5xx`
/// says (left out when `None`) and behaving as it says (it replays its 500 unless it runs a
/// re-send again): what the operation came to after one reconciler pass, its trail, and the
/// desk's tickets and requests.
async fn a_500_at_a_key_only_desk(
    app: &TestApp,
    after_5xx: Option<After5xx>,
) -> (OpState, String, (usize, usize)) {
    let (base_url, desk) = start_desk().await;
    let mut key = json!({"header": "X-Request-Key", "remembered_s": 3600});
    if let Some(after_5xx) = after_5xx {
        key["after_5xx"] = json!(after_5xx.as_str());
    }
    let (executor, reconciler) =
        connect_described(app, &base_url, described_as("open_ticket", Some(key), false)).await;
    {
        let mut desk = desk.lock().unwrap();
        desk.fail_next = 1;
        desk.replays_5xx = after_5xx != Some(After5xx::Retry);
    }
    assert_eq!(open_ticket(app, &executor).await, OpState::Unknown, "a 500 is not a failure");
    reconciler.reconcile_once().await.unwrap();
    let (state, trail) = state_and_trail(app).await;
    (state, trail, tickets_and_opens(&desk))
}

async fn a_500_where_a_re_send_is_run_again_is_re_sent_once_with_the_same_key(engine: Engine) {
    let Some(app) = TestApp::spawn(engine).await else { return };
    let (state, trail, desk) = a_500_at_a_key_only_desk(&app, Some(After5xx::Retry)).await;
    assert_eq!(state, OpState::Succeeded, "{trail}");
    assert_eq!(desk, (1, 2), "re-sent once, and it made the one ticket");
    let history =
        app.ledger.reads().operation_history(&acme(), &OpId::parse(OP).unwrap()).await.unwrap().unwrap();
    let keys: Vec<&str> = history.attempts.iter().map(|a| a.idempotency_key.as_str()).collect();
    assert_eq!(keys, ["acme:ticket-1043-li_2"; 2], "the same key both times");
    assert_eq!(history.external_refs[0].external_id, "100");
    let (_, operation) = app.get_json(&format!("/api/v1/operations/{OP}")).await;
    assert_eq!(operation["key"]["after_5xx"], "retry", "the API shows it with the key: {operation}");
}

async fn a_500_that_is_replayed_or_not_known_to_be_run_again_goes_to_people(engine: Engine) {
    for (after_5xx, words) in [
        (Some(After5xx::SameKey), "which it replays for the same key"),
        (Some(After5xx::Unknown), "it is not known whether it runs a re-send"),
        (None, "it is not known whether it runs a re-send"),
    ] {
        let Some(app) = TestApp::spawn(engine).await else { return };
        let (state, trail, desk) = a_500_at_a_key_only_desk(&app, after_5xx).await;
        assert_eq!(state, OpState::NeedsReview, "{after_5xx:?}: {trail}");
        assert!(trail.contains(words), "{after_5xx:?}: the reason is told: {trail}");
        assert_eq!(desk, (0, 1), "{after_5xx:?}: never re-sent after its 500");
    }
}

/// The agent's after-sale tool at a tenant whose own helpdesk takes no key and cannot be asked:
/// its lost answer is told as what happens (sent at most once, a person checks), naming the
/// tenant's helpdesk, and the same call again sends nothing.
async fn a_tool_at_a_helpdesk_without_key_or_lookup_says_what_happens_and_names_it(engine: Engine) {
    let Some(app) = TestApp::spawn_with_sandbox(engine).await else { return };
    let (base_url, desk) = start_desk().await;
    set_helpdesk(&app, &base_url, described_as("create_aftersale", None, false)).await;
    desk.lock().unwrap().drop_next = 1;
    let call = json!({"order_id": "1043", "line_item_id": "li_2"});
    let (status, answer) = app.post("/api/v1/tools/create_aftersale", &call).await;
    assert_eq!(status, 200, "{answer}");
    assert_eq!(answer["status"], "unknown", "{answer}");
    let message = answer["message"].as_str().unwrap();
    assert!(
        message.contains("was handed to Helpdesk, which cannot recognise a repeat or be asked"),
        "{message}"
    );
    assert!(message.contains("it is never sent again by itself. A person will check"), "{message}");
    assert!(!message.contains("reconciler") && !message.contains("after-sale service"), "{message}");
    let customer = answer["for_customer"].as_str().unwrap();
    assert!(customer.contains("a colleague is checking it"), "{customer}");
    let (_, operation) = app.get_json("/api/v1/operations/aftersale-1043-li_2").await;
    assert_eq!(operation["provider"], "helpdesk", "{operation}");
    assert_eq!(operation["state"], "needs_review", "{operation}");
    let (_, again) = app.post("/api/v1/tools/create_aftersale", &call).await;
    assert_eq!(again["message"], answer["message"], "{again}");
    assert_eq!(tickets_and_opens(&desk), (1, 1), "sent at most once");
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

/// The cells of the rows of `text`'s Markdown tables whose first cell is code (`` `stripe` ``),
/// by that first cell.
fn code_rows(text: &str) -> HashMap<String, Vec<String>> {
    text.lines()
        .filter(|line| line.starts_with("| `"))
        .map(|line| {
            let cells: Vec<String> =
                line.trim_matches('|').split(" | ").map(|cell| cell.trim().to_owned()).collect();
            (cells[0].trim_matches('`').to_owned(), cells[1..].to_vec())
        })
        .collect()
}

/// A docs page of this project, as written.
fn docs_page(name: &str) -> String {
    let path = format!("{}/docs/{name}", env!("CARGO_MANIFEST_DIR"));
    std::fs::read_to_string(&path).unwrap_or_else(|error| panic!("{path}: {error}"))
}

/// The docs say what each downstream honours as the code does: each built-in kind's row in the
/// table of `docs/any-downstream.md` is that kind's capabilities (and the built-in descriptions
/// declare the same), the refund providers' row in `docs/provider-outcomes.md` agrees, the
/// description format's `after_5xx` lists exactly the values a description may take, and the
/// example description it shows is one a connection takes.
#[test]
fn the_docs_say_what_each_downstream_honours_as_the_code_does() {
    let section = docs_page("any-downstream.md");
    let section = section.split("\n## Tests").next().expect("the page before its tests");
    let rows = code_rows(section);
    for kind in ProviderKind::ALL.into_iter().filter(|kind| *kind != ProviderKind::Orders) {
        let row = rows.get(kind.as_str()).unwrap_or_else(|| panic!("no row for {}", kind.as_str()));
        if kind == ProviderKind::Http {
            assert!(row.iter().all(|cell| cell == "as described"), "{row:?}");
            continue;
        }
        let caps = kind.capabilities();
        let keyed = |said: String| if caps.honours_keys() { said } else { "no key".to_owned() };
        let expected = vec![
            keyed(caps.key_max_len.to_string()),
            keyed(retention_words(caps.key_retention, Language::En)),
            if caps.lookup { "yes" } else { "no" }.to_owned(),
            keyed(format!("`{}`", caps.after_5xx.as_str())),
        ];
        assert_eq!(row, &expected, "the docs' row for {}", kind.as_str());
    }
    for kind in [ProviderKind::Services, ProviderKind::Email] {
        let api = built_in_api(kind).unwrap();
        for served in api.kinds() {
            assert_eq!(api.capabilities(&served), kind.capabilities(), "{} {served}", kind.as_str());
        }
    }
    let refunds = docs_page("provider-outcomes.md");
    let refunds = refunds
        .lines()
        .find(|line| line.starts_with("| a re-send under the key after a 5xx (`after_5xx`) |"))
        .expect("the refund providers' row on a re-send after a 5xx");
    let cells: Vec<&str> = refunds.trim_matches('|').split(" | ").map(str::trim).collect();
    for (cell, kind) in
        cells[1..].iter().zip([ProviderKind::Stripe, ProviderKind::Adyen, ProviderKind::PayPal])
    {
        let said = format!("`{}`", kind.capabilities().after_5xx.as_str());
        assert!(cell.ends_with(&said), "{} says {cell:?}, not {said}", kind.as_str());
    }

    let prose = section.split_whitespace().collect::<Vec<_>>().join(" ");
    let format = prose
        .split("(`after_5xx`: ")
        .nth(1)
        .and_then(|rest| rest.split_once("; a downstream without a key"))
        .map(|(format, _)| format)
        .expect("the description format's after_5xx");
    let documented: Vec<&str> =
        format.match_indices("` (").filter_map(|(at, _)| format[..at].rsplit('`').next()).collect();
    let values: Vec<&str> = After5xx::ALL.iter().map(|value| value.as_str()).collect();
    assert_eq!(documented, values, "every value a description takes, and only those: {format}");
    for value in documented {
        let key = json!({"header": "X-Request-Key", "remembered_s": 60, "after_5xx": value});
        let api = HttpApi::parse(&described_as("open_ticket", Some(key), false)).unwrap();
        assert_eq!(Some(api.capabilities("open_ticket").after_5xx), After5xx::parse(value), "{value}");
    }
    let example = section
        .split("```json\n")
        .nth(1)
        .and_then(|rest| rest.split("```").next())
        .expect("the page's example description");
    let api = HttpApi::parse(example).unwrap_or_else(|error| panic!("the page's example: {error}"));
    assert!(api.capabilities("open_ticket").lookup);
}

crate::on_both_engines!(
    a_second_api_works_from_its_description_alone,
    key_and_lookup_a_dropped_answer_is_found,
    key_only_a_dropped_answer_is_re_sent_once_with_the_same_key,
    lookup_only_a_dropped_answer_is_found,
    lookup_only_an_empty_lookup_goes_to_people_never_to_a_re_send,
    neither_a_dropped_answer_goes_straight_to_people_and_is_never_re_sent,
    a_500_where_a_re_send_is_run_again_is_re_sent_once_with_the_same_key,
    a_500_that_is_replayed_or_not_known_to_be_run_again_goes_to_people,
    a_tool_at_a_helpdesk_without_key_or_lookup_says_what_happens_and_names_it,
    a_wrong_description_is_refused_on_save_saying_where,
);
