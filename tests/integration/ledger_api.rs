//! The ledger API over real HTTP on both engines: registration (201/200/409/422), attempts,
//! outcomes, cancellation, tenant isolation, concurrency, and the audit chain.

use futures::future::join_all;
use opledger::domain::operation::AttemptReport;
use opledger::domain::{
    audit::verify_chain,
    ids::{Actor, OpId, TenantId},
    machine::Command,
};
use serde_json::{json, Value};

use crate::support::refund_1043;

const OP: &str = "refund-1043-li_2";
/// The key sent downstream for acme's `OP`: the tenant and the op id.
const KEY: &str = "acme:refund-1043-li_2";

fn acme() -> TenantId {
    TenantId::parse("acme").unwrap()
}

crate::engine_tests! {
    the_same_intent_twice_is_201_then_200_with_the_same_operation(app) {
        let (created, first) = app.register(&refund_1043(38000)).await;
        assert_eq!(created, 201, "{first}");
        assert_eq!(first["state"], "planned");
        assert_eq!(first["idempotency_key"], KEY);
        assert_eq!(first["amount"], json!({"minor": 38000, "currency": "TWD"}));
        let mut reordered = refund_1043(38000);
        reordered["params"] = json!({"line_item": "li_2", "reason": "requested_by_customer", "amount": {"currency": "TWD", "minor": 38000}, "payment_intent": "pi_1043"});
        let (again, second) = app.register(&reordered).await;
        assert_eq!(again, 200, "{second}");
        assert_eq!(second["fingerprint"], first["fingerprint"]);
        assert_eq!(second["created_at"], first["created_at"]);
        assert_eq!(second["version"], 1);
    }

    a_conflicting_request_is_409_with_the_diff_and_changes_nothing(app) {
        app.register(&refund_1043(10000)).await;
        let (status, answer) = app.register(&refund_1043(20000)).await;
        assert_eq!(status, 409, "{answer}");
        assert_eq!(answer["error"]["code"], "idempotency_conflict");
        assert_eq!(answer["error"]["diff"], json!([{
            "field": "amount",
            "stored": {"minor": 10000, "currency": "TWD"},
            "requested": {"minor": 20000, "currency": "TWD"}
        }]));
        let (_, stored) = app.get_json(&format!("/api/v1/operations/{OP}")).await;
        assert_eq!(stored["amount"]["minor"], 10000, "the stored operation is never overwritten");
        assert_eq!(stored["version"], 1);
        let conflicts = app.ledger.reads().conflicts_of(&acme(), &OpId::parse(OP).unwrap()).await.unwrap();
        assert_eq!(conflicts.len(), 1, "the refused request is kept for review");
        assert_eq!(conflicts[0].requested_params["amount"]["minor"], 20000);
        assert_eq!(conflicts[0].requested_by, "agent-7");
    }

    malformed_input_is_422_naming_the_field(app) {
        let mut float = refund_1043(0);
        float["params"]["amount"]["minor"] = json!(380.5);
        let (status, answer) = app.register(&float).await;
        assert_eq!(status, 422);
        assert!(answer["error"]["message"].as_str().unwrap().starts_with("params.amount.minor"), "{answer}");

        let mut spaced = refund_1043(38000);
        spaced["op_id"] = json!("refund 1043");
        let (status, answer) = app.register(&spaced).await;
        assert_eq!(status, 422);
        assert!(answer["error"]["message"].as_str().unwrap().starts_with("op_id"), "{answer}");

        let mut unknown_field = refund_1043(38000);
        unknown_field["amount_hint"] = json!(1);
        let (status, answer) = app.register(&unknown_field).await;
        assert_eq!(status, 422);
        assert!(answer["error"]["message"].as_str().unwrap().contains("unknown field `amount_hint`"), "{answer}");

        let mut missing = refund_1043(38000);
        missing.as_object_mut().unwrap().remove("subject");
        let (status, answer) = app.register(&missing).await;
        assert_eq!(status, 422);
        assert!(answer["error"]["message"].as_str().unwrap().contains("missing field `subject`"), "{answer}");
    }

    numbers_out_of_their_bounds_are_422_naming_the_field_and_change_nothing(app) {
        for (provider, too_long, longest) in [("stripe", 4_294_967_295_u64, 86_400_u64), ("stripe", 86_401, 86_400), ("acme_crm", 3_888_001, 3_888_000)] {
            let mut body = refund_1043(38000);
            body["provider"] = json!(provider);
            body["key_retention_s"] = json!(too_long);
            let (status, answer) = app.register(&body).await;
            assert_eq!(status, 422, "{provider} {too_long}: {answer}");
            assert_eq!(answer["error"]["field"], "key_retention_s", "{answer}");
            assert!(answer["error"]["message"].as_str().unwrap().contains(&format!("1 to {longest} seconds")), "{answer}");
            assert_eq!(app.get_json(&format!("/api/v1/operations/{OP}")).await.0, 404, "nothing was recorded");
        }
        let mut corrected = refund_1043(38000);
        corrected["key_retention_s"] = json!(86_400);
        assert_eq!(app.register(&corrected).await.0, 201, "the corrected call goes through under the same op id");

        assert_eq!(app.begin_attempt(OP).await.0, 201);
        for (field, value) in [("latency_ms", json!(u64::MAX)), ("latency_ms", json!(86_400_001)), ("http_status", json!(99)), ("http_status", json!(600)), ("retry_after_s", json!(86_401))] {
            let mut outcome = json!({"outcome": "timeout"});
            outcome[field] = value.clone();
            let (status, answer) = app.report(OP, 1, &outcome).await;
            assert_eq!(status, 422, "{field} {value}: {answer}");
            assert_eq!(answer["error"]["field"], field, "{answer}");
        }
        let (_, stored) = app.get_json(&format!("/api/v1/operations/{OP}")).await;
        assert_eq!(stored["state"], "submitted", "a refused report changes nothing: {stored}");
        let (status, answer) = app.report(OP, 1, &json!({"outcome": "timeout", "latency_ms": 30_000, "http_status": 504})).await;
        assert_eq!(status, 200, "{answer}");
        assert_eq!(answer["operation"]["attempts"][0]["latency_ms"], 30_000, "{answer}");
    }

    oversized_bodies_and_missing_tokens_are_refused(app) {
        let mut huge = refund_1043(38000);
        huge["params"]["note"] = json!("x".repeat(70 * 1024));
        let (status, answer) = app.register(&huge).await;
        assert_eq!((status, answer["error"]["code"].as_str()), (413, Some("body_too_large")));
        let (status, answer) = app.post_as("opl_nope_nope", "/api/v1/operations", &refund_1043(1)).await;
        assert_eq!((status, answer["error"]["code"].as_str()), (401, Some("unauthorized")));
        let anonymous = app.client.get(app.url(&format!("/api/v1/operations/{OP}"))).send().await.unwrap();
        assert_eq!(anonymous.status(), 401);
    }

    fifty_identical_registrations_at_once_make_exactly_one_operation(app) {
        let body = refund_1043(38000);
        let answers = join_all((0..50).map(|_| app.register(&body))).await;
        let created = answers.iter().filter(|(status, _)| *status == 201).count();
        let found = answers.iter().filter(|(status, _)| *status == 200).count();
        assert_eq!((created, found), (1, 49), "{answers:?}");
        assert!(answers.iter().all(|(_, op)| op["op_id"] == OP && op["fingerprint"] == answers[0].1["fingerprint"]));
        let chain = app.ledger.audit_chain(&acme()).await.unwrap();
        assert_eq!(chain.iter().filter(|r| r.entry.action == "register").count(), 1);
    }

    fifty_concurrent_attempts_open_exactly_one(app) {
        app.register(&refund_1043(38000)).await;
        let answers = join_all((0..50).map(|_| app.begin_attempt(OP))).await;
        let opened: Vec<&Value> = answers.iter().filter(|(status, _)| *status == 201).map(|(_, a)| a).collect();
        assert_eq!(opened.len(), 1, "{answers:?}");
        assert_eq!(opened[0]["attempt"], 1);
        assert_eq!(opened[0]["idempotency_key"], KEY);
        assert!(answers.iter().filter(|(s, _)| *s != 201).all(|(s, a)| *s == 409 && a["error"]["code"] == "attempt_open"));
        let (_, operation) = app.get_json(&format!("/api/v1/operations/{OP}")).await;
        assert_eq!(operation["state"], "submitted");
        assert_eq!(operation["attempts"].as_array().unwrap().len(), 1);
    }

    a_timeout_is_unknown_and_no_new_attempt_is_allowed_until_reconciled(app) {
        app.register(&refund_1043(38000)).await;
        let (_, attempt) = app.begin_attempt(OP).await;
        let (status, answer) = app.report(OP, 1, &json!({"outcome": "timeout", "latency_ms": 10000, "error": "read timed out"})).await;
        assert_eq!(status, 200, "{answer}");
        assert_eq!(answer["operation"]["state"], "unknown", "a timeout is never a failure");
        assert_eq!(answer["message"], "Result unknown; do not send again; it is being checked.");
        assert_eq!(answer["operation"]["attempts"][0]["outcome"], "timeout");
        assert_eq!(answer["operation"]["attempts"][0]["idempotency_key"], attempt["idempotency_key"]);

        let (status, refused) = app.begin_attempt(OP).await;
        assert_eq!((status, refused["error"]["code"].as_str()), (409, Some("reconcile_first")));
        let (status, again) = app.register(&refund_1043(38000)).await;
        assert_eq!((status, again["state"].as_str()), (200, Some("unknown")), "the caller learns it is unknown");

        let found = Command::ConfirmFound { external_id: "re_7f3a".into(), evidence: "refund with metadata.op_id found".into(), status: opledger::domain::machine::ProviderStatus::Succeeded };
        let op_id = OpId::parse(OP).unwrap();
        app.ledger.execute(&acme(), &op_id, found, &Actor::system("reconciler"), AttemptReport::default()).await.unwrap();
        let (_, settled) = app.get_json(&format!("/api/v1/operations/{OP}")).await;
        assert_eq!(settled["state"], "succeeded");
        assert_eq!(settled["external_refs"], json!(["stripe/refund/re_7f3a"]));
        let (status, done) = app.begin_attempt(OP).await;
        assert_eq!((status, done["error"]["code"].as_str()), (409, Some("already_succeeded")));
    }

    a_success_records_the_external_id_and_a_late_outcome_is_refused(app) {
        app.register(&refund_1043(38000)).await;
        app.begin_attempt(OP).await;
        let (status, answer) = app.report(OP, 1, &json!({"outcome": "succeeded", "http_status": 200, "external_id": "re_9b1c"})).await;
        assert_eq!(status, 200, "{answer}");
        assert_eq!(answer["operation"]["external_refs"], json!(["stripe/refund/re_9b1c"]));
        assert_eq!(answer["operation"]["attempts"][0]["http_status"], 200);
        let (status, late) = app.report(OP, 1, &json!({"outcome": "timeout"})).await;
        assert_eq!((status, late["error"]["code"].as_str()), (409, Some("already_finished")));
        let (status, bad) = app.report(OP, 1, &json!({"outcome": "exploded"})).await;
        assert_eq!(status, 422, "{bad}");
    }

    a_retryable_failure_allows_a_new_attempt_with_the_same_key(app) {
        app.register(&refund_1043(38000)).await;
        app.begin_attempt(OP).await;
        let (_, answer) = app.report(OP, 1, &json!({"outcome": "unavailable", "http_status": 429, "retry_after_s": 2})).await;
        assert_eq!(answer["operation"]["state"], "planned");
        assert_eq!(answer["operation"]["attempts"][0]["retry_after_s"], 2);
        let (status, second) = app.begin_attempt(OP).await;
        assert_eq!(status, 201);
        assert_eq!(second["attempt"], 2);
        assert_eq!(second["idempotency_key"], KEY, "the same key on every attempt");
    }

    cancel_in_flight_is_honest(app) {
        app.register(&refund_1043(38000)).await;
        app.begin_attempt(OP).await;
        let (status, answer) = app.post(&format!("/api/v1/operations/{OP}/cancel"), &json!({"reason": "customer changed their mind"})).await;
        assert_eq!(status, 200, "{answer}");
        assert_eq!(answer["message"], format!("Stopped further processing, but the result of {OP} is still being confirmed."));
        assert_eq!(answer["operation"]["state"], "submitted");
        assert_eq!(answer["operation"]["cancel_requested"], true);

        let mut other = refund_1043(12000);
        other["op_id"] = json!("refund-1043-li_1");
        app.register(&other).await;
        let (_, answer) = app.post("/api/v1/operations/refund-1043-li_1/cancel", &Value::Null).await;
        assert_eq!(answer["operation"]["state"], "cancelled");
    }

    another_tenant_sees_404_for_every_route(app) {
        app.register(&refund_1043(38000)).await;
        app.begin_attempt(OP).await;
        let other = app.other_token.clone();
        for path in [format!("/api/v1/operations/{OP}")] {
            let (status, answer) = app.get_as(&other, &path).await;
            assert_eq!(status, 404, "{answer}");
        }
        for (path, body) in [
            (format!("/api/v1/operations/{OP}/attempts"), Value::Null),
            (format!("/api/v1/operations/{OP}/attempts/1/outcome"), json!({"outcome": "succeeded", "external_id": "re_x"})),
            (format!("/api/v1/operations/{OP}/cancel"), json!({"reason": "not mine"})),
        ] {
            let (status, answer) = app.post_as(&other, &path, &body).await;
            assert_eq!(status, 404, "{path}: {answer}");
            assert_eq!(answer["error"]["message"], "No such operation.");
        }
        let (status, subject) = app.get_as(&other, "/api/v1/subjects/order:1043/operations").await;
        assert_eq!(status, 200);
        assert_eq!(subject["operations"], json!([]));
        let (_, mine) = app.get_json(&format!("/api/v1/operations/{OP}")).await;
        assert_eq!(mine["state"], "submitted", "nothing the other tenant did touched it");
        let (status, theirs) = app.post_as(&other, "/api/v1/operations", &refund_1043(99)).await;
        assert_eq!(status, 201, "op ids are scoped per tenant: {theirs}");
    }

    an_order_rolls_up_its_operations(app) {
        let aftersale = json!({"op_id": "aftersale-1043-li_2", "kind": "create_aftersale", "subject": "order:1043",
            "provider": "sandbox", "params": {"order": "1043", "line_item": "li_2"}, "requested_by": "agent-7"});
        let pickup = json!({"op_id": "pickup-1043-li_2", "kind": "schedule_pickup", "subject": "order:1043",
            "provider": "sandbox", "params": {"order": "1043", "line_item": "li_2"}, "requested_by": "agent-7"});
        for (body, outcome) in [(aftersale, json!({"outcome": "succeeded", "external_id": "as_1"})), (pickup, json!({"outcome": "rejected", "http_status": 409}))] {
            app.register(&body).await;
            let op = body["op_id"].as_str().unwrap();
            app.begin_attempt(op).await;
            app.report(op, 1, &outcome).await;
        }
        let (status, order) = app.get_json("/api/v1/subjects/order:1043/operations").await;
        assert_eq!(status, 200, "{order}");
        assert_eq!(order["status"], "partial_success");
        assert_eq!(order["completed"], json!(["aftersale-1043-li_2"]));
        assert_eq!(order["not_done"], json!(["pickup-1043-li_2"]));
        assert_eq!(order["operations"].as_array().unwrap().len(), 2);
    }

    the_audit_chain_verifies_and_breaks_when_a_row_is_edited(app) {
        app.register(&refund_1043(38000)).await;
        app.register(&refund_1043(1)).await;
        app.begin_attempt(OP).await;
        app.report(OP, 1, &json!({"outcome": "timeout"})).await;
        let chain = app.ledger.audit_chain(&acme()).await.unwrap();
        let actions: Vec<&str> = chain.iter().map(|r| r.entry.action.as_str()).collect();
        assert_eq!(actions, ["create_api_token", "register", "refuse_conflict", "begin_attempt", "record_outcome"]);
        assert_eq!(verify_chain(&chain), Ok(5));
        let (_, operation) = app.get_json(&format!("/api/v1/operations/{OP}")).await;
        assert_eq!(operation["audit"].as_array().unwrap().len(), 4, "the operation's own trail");
        assert_eq!(operation["audit"][3]["to_state"], "unknown");

        app.tamper("update audit_events set reason = 'nothing to see' where tenant = 'acme' and seq = 3").await;
        let tampered = app.ledger.audit_chain(&acme()).await.unwrap();
        let broken = verify_chain(&tampered).unwrap_err();
        assert_eq!(broken.seq, 3);
    }
}

#[tokio::test]
async fn the_openapi_document_describes_every_route() {
    let Some(app) = crate::support::TestApp::spawn(crate::support::Engine::Sqlite).await else { return };
    let response = app.get("/api/v1/openapi.json").await;
    assert_eq!(response.status(), 200);
    assert!(response.headers().contains_key("x-request-id"));
    let doc: Value = response.json().await.unwrap();
    assert!(doc["openapi"].as_str().unwrap().starts_with("3."), "{doc}");
    for path in [
        "/api/v1/operations",
        "/api/v1/operations/{op_id}",
        "/api/v1/operations/{op_id}/attempts",
        "/api/v1/operations/{op_id}/attempts/{attempt}/outcome",
        "/api/v1/operations/{op_id}/cancel",
        "/api/v1/subjects/{subject}/operations",
    ] {
        assert!(doc["paths"][path].is_object(), "{path} is missing");
    }
    assert!(doc["paths"]["/api/v1/operations"]["post"]["responses"]["409"].is_object());
    let read = &doc["paths"]["/api/v1/operations/{op_id}"]["get"];
    let wait = read["parameters"]
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["name"] == "wait")
        .expect("wait is described");
    assert_eq!(
        (wait["in"].as_str(), wait["schema"]["maximum"].as_f64()),
        (Some("query"), Some(60.0)),
        "{wait}"
    );
    assert!(doc["components"]["schemas"]["RegisterBody"]["properties"]["op_id"].is_object());
    assert_eq!(doc["components"]["securitySchemes"]["bearer"]["scheme"], "bearer");
}

/// Each bound the OpenAPI document gives a field is the one the server holds to, so that a client
/// generated from it refuses what the server refuses: a value past a bound is a 422 that records
/// nothing, and the value at the bound goes through.
#[tokio::test]
async fn the_openapi_document_bounds_are_the_servers() {
    let Some(app) = crate::support::TestApp::spawn(crate::support::Engine::Sqlite).await else { return };
    let (_, doc) = app.get_json("/api/v1/openapi.json").await;
    let register = &doc["components"]["schemas"]["RegisterBody"]["properties"];
    assert_eq!(register["op_id"]["pattern"], "^[A-Za-z0-9._:-]+$", "{register}");
    assert_eq!(register["op_id"]["maxLength"], 128);
    assert_eq!(register["kind"]["pattern"], "^[a-z0-9_]+$");
    assert_eq!((register["on_behalf_of"]["maxLength"].as_u64()), Some(200));
    assert_eq!(
        (register["key_retention_s"]["format"].as_str(), register["key_retention_s"]["minimum"].as_u64()),
        (Some("uint32"), Some(1)),
        "{register}"
    );
    let deadline = &doc["components"]["schemas"]["BeginBody"]["properties"]["send_deadline_s"];
    assert_eq!((deadline["minimum"].as_u64(), deadline["maximum"].as_u64()), (Some(1), Some(600)), "{deadline}");
    assert_eq!(
        doc["components"]["schemas"]["RefundRequest"]["properties"]["locale"]["pattern"],
        "^(en|zh-TW|zh-CN)$"
    );
    let states = doc["components"]["schemas"]["State"]["enum"].as_array().map(Vec::len);
    assert_eq!(states, Some(opledger::domain::machine::State::ALL.len()), "every state is named");

    let past_a_bound = [
        ("op_id", json!("refund 1043 li_2")),
        ("op_id", json!("r".repeat(129))),
        ("kind", json!("Refund")),
        ("provider", json!("")),
        ("subject", json!("order:<1043>")),
        ("on_behalf_of", json!("m".repeat(201))),
        ("on_behalf_of", json!("maria\n")),
        ("compensates", json!("pickup 1043")),
        ("key_retention_s", json!(0)),
        ("key_retention_s", json!(4_294_967_296_u64)),
    ];
    for (field, value) in past_a_bound {
        let mut body = refund_1043(38000);
        body.as_object_mut().unwrap().remove("requested_by");
        body[field] = value;
        let (status, answer) = app.register(&body).await;
        assert_eq!((status, answer["error"]["code"].as_str()), (422, Some("invalid_request")), "{field}: {answer}");
    }
    assert_eq!(app.get_json(&format!("/api/v1/operations/{OP}")).await.0, 404, "nothing was recorded");

    let mut at_the_bounds = refund_1043(38000);
    at_the_bounds.as_object_mut().unwrap().remove("requested_by");
    at_the_bounds["op_id"] = json!("r".repeat(128));
    at_the_bounds["on_behalf_of"] = json!("m".repeat(200));
    let (status, answer) = app.register(&at_the_bounds).await;
    assert_eq!(status, 201, "{answer}");
    let op = "r".repeat(128);
    for seconds in [0, 601] {
        let (status, answer) = app.begin_attempt_within(&op, seconds).await;
        assert_eq!(status, 422, "send_deadline_s {seconds}: {answer}");
    }
    assert_eq!(app.begin_attempt_within(&op, 600).await.0, 201);

    for locale in ["zh-tw", "", "en-US"] {
        let call = json!({"order_id": "1043", "line_item_id": "li_2", "locale": locale});
        let (status, answer) = app.post("/api/v1/tools/refund_item", &call).await;
        assert_eq!(status, 422, "locale {locale:?}: {answer}");
    }

    for (path, item) in doc["paths"].as_object().unwrap() {
        for (method, operation) in item.as_object().unwrap() {
            let documented = |status: &str| operation["responses"][status].is_object();
            if path != "/api/v1/openapi.json" {
                for status in ["401", "403", "429", "503"] {
                    assert!(documented(status), "{method} {path} documents {status}");
                }
            }
            if method == "post" {
                assert!(documented("413") && documented("422"), "{method} {path} documents 413 and 422");
            }
        }
    }
}

#[tokio::test]
async fn a_revoked_token_is_refused() {
    let Some(app) = crate::support::TestApp::spawn(crate::support::Engine::Sqlite).await else { return };
    assert_eq!(app.register(&refund_1043(38000)).await.0, 201);
    app.ledger.revoke_token(&acme(), "agent-7", "test").await.unwrap();
    let (status, answer) = app.get_json(&format!("/api/v1/operations/{OP}")).await;
    assert_eq!((status, answer["error"]["code"].as_str()), (401, Some("unauthorized")));
}

/// A read that waits for the operation's state to change (`?wait=`), as an agent whose refund waits
/// for a manager does.
mod waiting {
    use std::time::{Duration, Instant};

    use serde_json::Value;

    use super::OP;
    use crate::support::{refund_1043, TestApp};

    /// `acme`'s refund of TWD 1,200.00 for `OP`, held for a manager.
    async fn pending_refund(app: &TestApp) {
        app.hold_large_refunds().await;
        let (status, registered) = app.register(&refund_1043(120_000)).await;
        assert_eq!((status, registered["state"].as_str()), (201, Some("pending_approval")), "{registered}");
    }

    /// The read of `OP` with `query` by `token`: its status, its answer, and how long it took.
    async fn read(app: &TestApp, token: &str, query: &str) -> (u16, Value, Duration) {
        let started = Instant::now();
        let (status, answer) = app.get_as(token, &format!("/api/v1/operations/{OP}{query}")).await;
        (status, answer, started.elapsed())
    }

    crate::engine_tests! {
        a_waiting_read_answers_soon_after_the_manager_decides(app) {
            pending_refund(&app).await;
            let started = Instant::now();
            let ((status, answer, _), approved_at) = tokio::join!(read(&app, &app.token, "?wait=10"), async {
                tokio::time::sleep(Duration::from_millis(300)).await;
                app.approve(OP).await;
                Instant::now()
            });
            let answered_after = started.elapsed();
            assert_eq!((status, answer["state"].as_str()), (200, Some("approved")), "{answer}");
            assert_eq!(answer["approval"]["approver"], "maria", "{answer}");
            let after_the_decision = Instant::now().saturating_duration_since(approved_at);
            assert!(answered_after < Duration::from_secs(5), "answered {answered_after:?} after the call, not after the 10 s wait");
            assert!(after_the_decision < Duration::from_secs(3), "answered {after_the_decision:?} after the decision");
        }

        a_wait_with_no_change_of_state_answers_the_same_state_after_it(app) {
            pending_refund(&app).await;
            let (status, answer, took) = read(&app, &app.token, "?wait=1").await;
            assert_eq!((status, answer["state"].as_str()), (200, Some("pending_approval")), "{answer}");
            assert!(took >= Duration::from_secs(1) && took < Duration::from_secs(4), "{took:?}");

            // Another operation of the tenant changes: the tenant's change time moves, this
            // operation's state does not, and the wait goes on.
            let mut other = refund_1043(5_000);
            other["op_id"] = Value::from("refund-1043-li_3");
            let ((status, answer, took), registered) = tokio::join!(read(&app, &app.token, "?wait=2"), async {
                tokio::time::sleep(Duration::from_millis(300)).await;
                app.register(&other).await.0
            });
            assert_eq!(registered, 201);
            assert_eq!((status, answer["state"].as_str()), (200, Some("pending_approval")), "{answer}");
            assert!(took >= Duration::from_secs(2), "another operation's change ended the wait after {took:?}");

            for at_once in ["", "?wait=0", "?wait=10&state=planned", "?wait=0&state=pending_approval"] {
                let (status, answer, took) = read(&app, &app.token, at_once).await;
                assert_eq!((status, answer["state"].as_str()), (200, Some("pending_approval")), "{at_once}: {answer}");
                assert!(took < Duration::from_secs(3), "{at_once} answered after {took:?}");
            }
        }

        bad_waits_are_refused_naming_the_field(app) {
            assert_eq!(app.register(&refund_1043(38_000)).await.0, 201);
            let (_, before, _) = read(&app, &app.token, "").await;
            for (query, field) in [
                ("?wait=abc", "wait"),
                ("?wait=-1", "wait"),
                ("?wait=61", "wait"),
                ("?wait=1.5", "wait"),
                ("?wait=", "wait"),
                ("?wait=4294967296", "wait"),
                ("?wait=5&state=approve", "state"),
                ("?state=PLANNED", "state"),
            ] {
                let (status, answer, took) = read(&app, &app.token, query).await;
                assert_eq!((status, answer["error"]["code"].as_str()), (422, Some("invalid_request")), "{query}: {answer}");
                assert_eq!(answer["error"]["field"], field, "{query}: {answer}");
                assert!(answer["error"]["message"].as_str().unwrap().starts_with(field), "{query}: {answer}");
                assert!(took < Duration::from_secs(3), "{query} is refused at once");
            }
            let (status, _, took) = read(&app, &app.token, "?wait=60&state=approved").await;
            assert_eq!(status, 200, "60 s is the longest wait, and allowed");
            assert!(took < Duration::from_secs(3), "a state already left answers at once: {took:?}");
            let (_, after, _) = read(&app, &app.token, "").await;
            assert_eq!(after, before, "the refused reads recorded nothing");
        }

        another_tenants_wait_is_no_such_operation_at_once(app) {
            pending_refund(&app).await;
            let (plain_status, plain, _) = read(&app, &app.other_token, "").await;
            assert_eq!(plain_status, 404, "{plain}");
            let (status, answer, took) = read(&app, &app.other_token, "?wait=30").await;
            assert_eq!((status, &answer), (plain_status, &plain), "the same answer as the plain read");
            assert!(took < Duration::from_secs(3), "answered at once, not after the wait: {took:?}");
            let (status, answer, _) = read(&app, &app.other_token, "?wait=30&state=approved").await;
            assert_eq!((status, answer), (plain_status, plain));
        }

        a_change_committed_after_one_with_a_later_time_wakes_a_waiting_read_and_an_open_page(app) {
            pending_refund(&app).await;
            // Another operation of the tenant changed at a later time, as an instance whose clock
            // is ahead, or a transaction that took its time after a later one, writes it.
            let mut other = refund_1043(5_000);
            other["op_id"] = "refund-1044-li_1".into();
            assert_eq!(app.register(&other).await.0, 201);
            app.tamper("update operations set updated_at_us = updated_at_us + 3600000000 where op_id = 'refund-1044-li_1'").await;
            let page = app.signed_in("mei", opledger::domain::policy::Role::Manager).await;
            let mut stream = page.get("/live/operations").await;
            assert_eq!(stream.status(), 200);
            let events = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
            let heard = events.clone();
            let listening = tokio::spawn(async move {
                while let Ok(Some(chunk)) = stream.chunk().await {
                    if String::from_utf8_lossy(&chunk).contains("event: changed") {
                        heard.lock().unwrap().push(Instant::now());
                    }
                }
            });
            let waiting = tokio::spawn({
                let (client, url, token) = (app.client.clone(), app.url(&format!("/api/v1/operations/{OP}?wait=10")), app.token.clone());
                async move {
                    let response = client.get(url).bearer_auth(token).send().await.unwrap();
                    (response.json::<Value>().await.unwrap(), Instant::now())
                }
            });
            // Both followers have read the later time by now.
            tokio::time::sleep(Duration::from_millis(1_500)).await;
            app.approve(OP).await;
            let approved_at = Instant::now();
            let (answer, answered_at) = waiting.await.unwrap();
            assert_eq!(answer["state"], "approved", "{answer}");
            let read_took = answered_at.saturating_duration_since(approved_at);
            assert!(read_took < Duration::from_secs(1), "the waiting read answered {read_took:?} after the approval");
            tokio::time::sleep(Duration::from_millis(1_000)).await;
            listening.abort();
            let told: Vec<Duration> = events.lock().unwrap().iter().filter(|at| **at >= approved_at).map(|at| at.duration_since(approved_at)).collect();
            assert!(told.first().is_some_and(|first| *first < Duration::from_secs(1)), "the open page is told within a second: {told:?}");
        }

        a_waiting_read_answers_at_once_when_the_server_stops(app) {
            let mut app = app;
            pending_refund(&app).await;
            let waiting = app.client.get(app.url(&format!("/api/v1/operations/{OP}?wait=30"))).bearer_auth(&app.token).send();
            let waiting = tokio::spawn(waiting);
            tokio::time::sleep(Duration::from_millis(300)).await;
            let stopped_at = Instant::now();
            app.stop();
            let response = waiting.await.unwrap().expect("the waiting read is answered");
            let took = stopped_at.elapsed();
            assert_eq!(response.status(), 200);
            let answer: Value = response.json().await.unwrap();
            assert_eq!(answer["state"], "pending_approval", "{answer}");
            assert!(took < Duration::from_secs(3), "answered {took:?} after the stop, not at the end of the wait");
        }
    }
}
