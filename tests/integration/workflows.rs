//! The console's workflows over HTTP, with the sandbox mounted in the application: approvals with
//! four-eyes and expiry, the reconcile desk's actions, cancellation, compensations and bulk
//! queries. Each checks what changed in the ledger and at the provider, that refused requests
//! change nothing, and that a resent form acts once.

use opledger::domain::{
    ids::{Actor, OpId, TenantId},
    machine::State,
    params::CanonicalParams,
    policy::Role,
};
use opledger::server::ledger::{RegisterRequest, Registration};
use serde_json::{json, Value};

use crate::support::{Console, TestApp};

fn acme() -> TenantId {
    TenantId::parse("acme").unwrap()
}

async fn state_of(app: &TestApp, op_id: &str) -> State {
    let op_id = OpId::parse(op_id).unwrap();
    app.ledger.reads().load_operation(&acme(), &op_id).await.unwrap().unwrap().snapshot.state
}

async fn audit_actions(app: &TestApp, op_id: &str) -> Vec<(String, String)> {
    let op_id = OpId::parse(op_id).unwrap();
    let history = app.ledger.reads().operation_history(&acme(), &op_id).await.unwrap().unwrap();
    history.audit.into_iter().map(|a| (a.entry.actor, a.entry.action)).collect()
}

/// The refunds the mounted sandbox really made for `op_id`.
async fn refunds_at_provider(app: &TestApp, op_id: &str) -> usize {
    let response = app
        .client
        .get(app.url("/sandbox/v1/refunds?payment_intent=pi_1043"))
        .bearer_auth("sk_test_sandbox")
        .send()
        .await
        .unwrap();
    let list: Value = response.json().await.unwrap();
    list["data"].as_array().unwrap().iter().filter(|r| r["metadata"]["op_id"] == op_id).count()
}

/// An unknown refund of line item 2 of order 1043 (TWD 380.00): its answer was lost after the
/// provider made it.
async fn unknown_refund(app: &TestApp) {
    app.fault(json!({"match": "refund-1043-li_2", "fault": "drop_response", "ms": 10000})).await;
    let (_, answer) =
        app.post("/api/v1/tools/refund_item", &json!({"order_id": "1043", "line_item_id": "li_2"})).await;
    assert_eq!(answer["status"], "unknown", "{answer}");
}

/// A refund that the agent began but never sent (its sender crashed), then reported lost:
/// unknown, and the provider has nothing.
async fn unsent_unknown_refund(app: &TestApp) {
    assert_eq!(app.register(&crate::support::refund_1043(38000)).await.0, 201);
    assert_eq!(app.begin_attempt("refund-1043-li_2").await.0, 201);
    let (status, body) = app.report("refund-1043-li_2", 1, &json!({"outcome": "timeout"})).await;
    assert_eq!(status, 200, "{body}");
}

async fn add_refund_rule(app: &TestApp, admin: &Console, provider: &str) {
    let csrf = admin.csrf().await;
    let (status, body) = admin
        .call(
            "add_approval_rule",
            &[
                ("csrf", &csrf),
                ("kind", "refund"),
                ("provider", provider),
                ("threshold", "1,000"),
                ("currency", "twd"),
            ],
        )
        .await;
    assert_eq!(status, 200, "{body}");
    assert!(body.contains("refund operations") && body.contains("TWD 1000.00"), "{body}");
    assert_eq!(app.ledger.reads().approval_rules(&acme()).await.unwrap().len(), 1);
}

fn big_refund(requested_by: &str, provider: &str) -> Value {
    json!({
        "op_id": "refund-1043-li_1", "kind": "refund", "subject": "order:1043", "provider": provider,
        "params": {"payment_intent": "pi_1043", "amount": {"minor": 120000, "currency": "TWD"},
                   "reason": "requested_by_customer", "line_item": "li_1", "order": "1043"},
        "requested_by": requested_by
    })
}

crate::sandboxed_tests! {
    querying_the_provider_settles_an_unknown_refund_once(app) {
        unknown_refund(&app).await;
        app.add_user("globex", "gus", Role::Support).await;
        let other_tenant = app.console();
        other_tenant.sign_in("gus", crate::support::PASSWORD, "/").await;
        let html = other_tenant.page("/reconcile", 200).await;
        assert!(!html.contains("refund-1043-li_2") && html.contains("Nothing to reconcile"), "another tenant's desk is its own");
        let (status, _) = other_tenant.act("k-other", "refund-1043-li_2", "confirm_found", &[]).await;
        assert_eq!(status, 404, "another tenant's operation does not exist for this user");
        assert_eq!(state_of(&app, "refund-1043-li_2").await, State::Unknown);

        let support = app.signed_in("sam", Role::Support).await;
        let html = support.page("/reconcile", 200).await;
        assert!(html.contains("refund-1043-li_2") && html.contains("Query the provider now"), "{html}");

        let auditor = app.signed_in("ada", Role::Auditor).await;
        let (status, body) = auditor.act("k-ada", "refund-1043-li_2", "confirm_found", &[]).await;
        assert_eq!(status, 403, "{body}");
        assert!(!auditor.page("/reconcile", 200).await.contains("Query the provider now"), "an auditor is offered no action");
        assert_eq!(state_of(&app, "refund-1043-li_2").await, State::Unknown);

        let (status, _) = support.call("act", &[("csrf", "forged"), ("key", "k1"), ("op_id", "refund-1043-li_2"), ("action", "confirm_found")]).await;
        assert_eq!(status, 403, "the form's token is checked");
        let (status, body) = support.act("k1", "refund-1043-li_2", "confirm_found", &[]).await;
        assert_eq!(status, 200, "{body}");
        assert!(body.contains("is now succeeded") && body.contains("re_"), "{body}");
        assert_eq!(state_of(&app, "refund-1043-li_2").await, State::Succeeded);

        let (status, again) = support.act("k1", "refund-1043-li_2", "confirm_found", &[]).await;
        assert_eq!((status, &again), (200, &body), "a resent form gets its first answer back");
        let (status, body) = support.act("k2", "refund-1043-li_2", "confirm_found", &[]).await;
        assert_eq!(status, 422, "a second click with a new form changes nothing: {body}");
        let (status, body) = support.act("k1", "refund-1043-li_2", "escalate", &[("reason", "x")]).await;
        assert_eq!(status, 422, "a key is bound to its request: {body}");
        let html = support.page("/operations/refund-1043-li_2", 200).await;
        assert!(html.contains("sam (support)") && html.contains("confirm found"), "the audit trail names who settled it");
        assert!(support.page("/reconcile", 200).await.contains("Nothing to reconcile"));
        assert_eq!(refunds_at_provider(&app, "refund-1043-li_2").await, 1);
    }

    a_lookup_that_finds_nothing_changes_nothing_and_a_resend_uses_the_same_key_once(app) {
        unsent_unknown_refund(&app).await;
        let support = app.signed_in("sam", Role::Support).await;
        let (status, body) = support.act("q1", "refund-1043-li_2", "confirm_found", &[]).await;
        assert_eq!(status, 200, "{body}");
        assert!(body.contains("has nothing under refund-1043-li_2") && body.contains("Nothing was changed"), "{body}");
        assert_eq!(state_of(&app, "refund-1043-li_2").await, State::Unknown);
        let html = support.page("/operations/refund-1043-li_2", 200).await;
        assert!(html.contains("Re-send with the same key") && html.contains("left"), "offered with the key's remaining time");

        let resend = || support.act("r1", "refund-1043-li_2", "resend_same_key", &[]);
        let (first, second) = tokio::join!(resend(), resend());
        let answers = [first, second];
        assert!(answers.iter().any(|(status, body)| *status == 200 && body.contains("Re-sent with the same key") && body.contains("succeeded as re_")), "{answers:?}");
        assert!(answers.iter().all(|(status, _)| *status == 200 || *status == 422), "{answers:?}");
        assert_eq!(state_of(&app, "refund-1043-li_2").await, State::Succeeded);
        assert_eq!(refunds_at_provider(&app, "refund-1043-li_2").await, 1, "a double click re-sends once");
        let (status, _) = support.act("q2", "no-such-op", "confirm_found", &[]).await;
        assert_eq!(status, 404);
    }

    escalating_and_settling_by_hand_need_evidence_and_the_right_role(app) {
        unsent_unknown_refund(&app).await;
        let support = app.signed_in("sam", Role::Support).await;
        let manager = app.signed_in("maria", Role::Manager).await;
        let (status, body) = support.act("e1", "refund-1043-li_2", "escalate", &[("reason", "  ")]).await;
        assert_eq!((status, body.contains("A reason is required")), (422, true), "{body}");
        let (status, body) = support.act("e1", "refund-1043-li_2", "escalate", &[("reason", "customer says no money arrived")]).await;
        assert_eq!(status, 200, "a refused form can be corrected and sent again: {body}");
        assert!(body.contains("waits for a person's review"), "{body}");
        assert_eq!(state_of(&app, "refund-1043-li_2").await, State::NeedsReview);

        let not_happened = [("reason", "the bank statement shows nothing"), ("evidence", "statement 2026-11")];
        let (status, _) = support.act("n1", "refund-1043-li_2", "mark_not_happened", &not_happened).await;
        assert_eq!(status, 403, "only a manager marks not happened");
        let (status, body) = manager.act("n2", "refund-1043-li_2", "mark_not_happened", &[("reason", "nothing there")]).await;
        assert_eq!((status, body.contains("Evidence is required")), (422, true), "{body}");
        let (status, body) = manager.act("n3", "refund-1043-li_2", "mark_not_happened", &not_happened).await;
        assert_eq!(status, 200, "{body}");
        assert_eq!(state_of(&app, "refund-1043-li_2").await, State::Rejected);
        let actions = audit_actions(&app, "refund-1043-li_2").await;
        assert!(actions.contains(&("sam".into(), "escalate".into())) && actions.contains(&("maria".into(), "mark_not_happened".into())), "{actions:?}");
    }

    a_form_sent_without_javascript_returns_to_its_page_with_the_answer_in_words(app) {
        unsent_unknown_refund(&app).await;
        let support = app.signed_in("sam", Role::Support).await;
        let page = app.url("/operations/refund-1043-li_2");
        let csrf = support.csrf().await;
        let form = [("csrf", csrf.as_str()), ("key", "m1"), ("op_id", "refund-1043-li_2"), ("action", "mark_succeeded"),
            ("external_id", "re_manual_1"), ("evidence", "seen in the dashboard")];
        let response = support.client.post(app.url("/rpc/act")).header("accept", "text/html").header("referer", &page).form(&form).send().await.unwrap();
        assert_eq!(response.status(), 302);
        let location = response.headers()["location"].to_str().unwrap().to_owned();
        assert_eq!(location, "/operations/refund-1043-li_2?done=m1");
        let html = support.page(&location, 200).await;
        assert!(html.contains("Marked succeeded: refund-1043-li_2 succeeded as re_manual_1."), "the answer shows after the redirect");
        assert!(html.contains("re_manual_1") && html.contains("mark succeeded"), "the external id and the audit event show");
    }

    a_cancel_stops_what_was_not_sent_and_is_honest_about_what_was(app) {
        app.register(&big_refund("agent-7", "stripe")).await;
        unsent_unknown_refund(&app).await;
        let support = app.signed_in("sam", Role::Support).await;
        let (status, body) = support.act("c1", "refund-1043-li_1", "cancel", &[("reason", "customer changed their mind")]).await;
        assert_eq!(status, 200, "{body}");
        assert_eq!(body, "\"refund-1043-li_1 was cancelled before anything was sent.\"");
        assert_eq!(state_of(&app, "refund-1043-li_1").await, State::Cancelled);
        let (status, body) = support.act("c2", "refund-1043-li_2", "cancel", &[("reason", "duplicate ticket")]).await;
        assert_eq!(status, 200, "{body}");
        assert!(body.contains("Stopped further processing, but the result of refund-1043-li_2 is still being confirmed."), "{body}");
        assert_eq!(state_of(&app, "refund-1043-li_2").await, State::Unknown, "a stop does not pretend to undo");
        let (status, body) = support.act("c3", "refund-1043-li_2", "resend_same_key", &[]).await;
        assert_eq!(status, 422, "after a stop only a lookup may settle it: {body}");
        assert_eq!(refunds_at_provider(&app, "refund-1043-li_2").await, 0);
    }

    a_manager_approves_another_persons_request_and_it_is_sent_at_once(app) {
        let admin = app.signed_in("alex", Role::Admin).await;
        let support = app.signed_in("sam", Role::Support).await;
        let (status, _) = support.call("add_approval_rule", &[("csrf", &support.csrf().await), ("kind", "refund")]).await;
        assert_eq!(status, 403, "only admins change the policy");
        let (status, body) = admin.call("add_approval_rule", &[("csrf", &admin.csrf().await), ("kind", "refund"), ("threshold", "10.5.5"), ("currency", "TWD")]).await;
        assert_eq!((status, body.contains("write it like 1000.00")), (422, true), "{body}");
        add_refund_rule(&app, &admin, "stripe").await;

        let (status, body) = app.register(&big_refund("agent-7", "stripe")).await;
        assert_eq!((status, body["state"].as_str()), (201, Some("pending_approval")), "{body}");
        let mut claims_maria = big_refund("maria", "stripe");
        claims_maria["op_id"] = json!("refund-1043-li_8");
        let (_, by_agent) = app.register(&claims_maria).await;
        assert_eq!(by_agent["requested_by"], "agent-7", "an agent's request is its token's, whoever it names");
        let own = RegisterRequest {
            op_id: OpId::parse("refund-1043-li_9").unwrap(),
            kind: "refund".into(),
            subject: "order:1043".into(),
            provider: "stripe".into(),
            params: CanonicalParams::from_value(big_refund("maria", "stripe")["params"].clone()).unwrap(),
            requested_by: "maria".into(),
            on_behalf_of: None,
            server_sends: true,
            compensates: None,
            key_retention: None,
        };
        let registered = app.ledger.register(&acme(), &Actor::human("maria", Role::Manager), own).await.unwrap();
        assert!(matches!(registered, Registration::Created(h) if h.operation.snapshot.state == State::PendingApproval));
        let (status, small) = app.register(&crate::support::refund_1043(38000)).await;
        assert_eq!((status, small["state"].as_str()), (201, Some("planned")), "below the threshold, no approval");

        let manager = app.signed_in("maria", Role::Manager).await;
        let html = manager.page("/approvals", 200).await;
        assert!(html.contains("refund-1043-li_1") && html.contains("NT$1,200") && html.contains("agent-7"), "{html}");
        assert!(html.contains("You requested this operation; another manager must decide on it."), "four-eyes shows on the queue");
        let (status, body) = manager.act("a0", "refund-1043-li_9", "approve", &[]).await;
        assert_eq!((status, body.contains("another manager must decide")), (422, true), "{body}");
        assert_eq!(state_of(&app, "refund-1043-li_9").await, State::PendingApproval);
        let (status, _) = support.act("a1", "refund-1043-li_1", "approve", &[]).await;
        assert_eq!(status, 403);
        let auditor = app.signed_in("ada", Role::Auditor).await;
        assert_eq!(auditor.act("a2", "refund-1043-li_1", "approve", &[]).await.0, 403);
        assert!(support.page("/approvals", 403).await.contains("Your role does not allow this"));

        let (status, body) = manager.act("a3", "refund-1043-li_1", "approve", &[("reason", "receipt checked")]).await;
        assert_eq!(status, 200, "{body}");
        assert!(body.contains("Approved and sent: refund-1043-li_1 succeeded as re_"), "{body}");
        assert_eq!(state_of(&app, "refund-1043-li_1").await, State::Succeeded);
        let actions = audit_actions(&app, "refund-1043-li_1").await;
        assert!(actions.contains(&("maria".into(), "approve".into())) && actions.contains(&("executor".into(), "record_outcome".into())), "{actions:?}");

        let second_manager = app.signed_in("mei", Role::Manager).await;
        let (status, body) = second_manager.act("d1", "refund-1043-li_9", "deny", &[]).await;
        assert_eq!((status, body.contains("A reason is required")), (422, true), "{body}");
        let (status, body) = second_manager.act("d2", "refund-1043-li_9", "deny", &[("reason", "already refunded in store")]).await;
        assert_eq!(status, 200, "{body}");
        assert_eq!(state_of(&app, "refund-1043-li_9").await, State::Denied);
    }

    an_approval_that_expires_unsent_goes_back_to_the_queue_marked_as_such(app) {
        let admin = app.signed_in("alex", Role::Admin).await;
        add_refund_rule(&app, &admin, "").await;
        app.register(&big_refund("agent-7", "nowhere")).await;
        let manager = app.signed_in("maria", Role::Manager).await;
        let (status, body) = manager.act("a1", "refund-1043-li_1", "approve", &[]).await;
        assert_eq!(status, 200, "{body}");
        assert!(body.contains("could not be sent yet"), "no connector for the provider: {body}");
        assert_eq!(state_of(&app, "refund-1043-li_1").await, State::Approved);
        app.tamper("update operations set approval_expires_at_us = 1 where op_id = 'refund-1043-li_1'").await;
        let executor = opledger::server::ledger::executor::Executor::new(app.ledger.clone(), Default::default());
        let report = opledger::server::ledger::reconciler::Reconciler::new(executor, chrono::Duration::zero()).reconcile_once().await.unwrap();
        assert_eq!(report.approvals_expired, [OpId::parse("refund-1043-li_1").unwrap()]);
        assert_eq!(state_of(&app, "refund-1043-li_1").await, State::PendingApproval);
        let html = manager.page("/approvals", 200).await;
        assert!(html.contains("refund-1043-li_1") && html.contains("an earlier approval expired"), "{html}");
    }

    a_form_resent_after_a_crash_gets_the_answer_its_change_recorded(app) {
        use opledger::domain::machine::Command;
        use opledger::server::ledger::{executor::Executor, requests::ConsoleRequest, workflows};
        use opledger::server::store::records::RequestClaim;
        unsent_unknown_refund(&app).await;
        let support = app.signed_in("sam", Role::Support).await;
        let sam = Actor::human("sam", Role::Support);
        let executor = Executor::new(app.ledger.clone(), Default::default());
        let reason = "customer says no money arrived";
        // The first request claimed its key and committed its change; then its server stopped
        // before the request could answer.
        let claim = app.ledger.claim_request(&acme(), "crash-1", "sam", "escalate refund-1043-li_2").await.unwrap();
        assert_eq!(claim, RequestClaim::Claimed);
        let request = ConsoleRequest { key: "crash-1".into(), requested_by: "sam".into() };
        let op_id = OpId::parse("refund-1043-li_2").unwrap();
        let escalate = Command::Escalate { reason: reason.into() };
        workflows::act(&executor, &acme(), &op_id, &sam, escalate, &request).await.unwrap();
        let (status, body) = support.act("crash-1", "refund-1043-li_2", "escalate", &[("reason", reason)]).await;
        assert_eq!(status, 200, "the resent form gets the first answer, not a refusal: {body}");
        assert!(body.contains("Escalated: refund-1043-li_2 now waits"), "{body}");
        assert_eq!(state_of(&app, "refund-1043-li_2").await, State::NeedsReview);
        let escalations = audit_actions(&app, "refund-1043-li_2").await.into_iter().filter(|(_, action)| action == "escalate").count();
        assert_eq!(escalations, 1, "the change was made once");

        // The same for a compensation, whose change is a new operation.
        let ticket = app.post("/api/v1/tools/create_aftersale", &json!({"order_id": "2002", "line_item_id": "li_1"})).await;
        assert_eq!(ticket.1["status"], "succeeded", "{:?}", ticket);
        let claim = app.ledger.claim_request(&acme(), "crash-2", "sam", "cancel_ticket aftersale-2002-li_1 ").await.unwrap();
        assert_eq!(claim, RequestClaim::Claimed);
        let request = ConsoleRequest { key: "crash-2".into(), requested_by: "sam".into() };
        let original = OpId::parse("aftersale-2002-li_1").unwrap();
        let cancel = opledger::domain::compensation::Compensation::CancelTicket;
        workflows::compensate(&executor, &acme(), &original, &sam, cancel, None, &request).await.unwrap();
        let (status, body) = compensate(&support, "crash-2", "aftersale-2002-li_1", "cancel_ticket", "").await;
        assert_eq!(status, 200, "{body}");
        assert!(body.contains("Recorded cancel-aftersale-2002-li_1 to compensate aftersale-2002-li_1"), "{body}");
    }

    a_compensation_is_a_new_operation_with_its_own_state(app) {
        let ticket = app.post("/api/v1/tools/create_aftersale", &json!({"order_id": "2002", "line_item_id": "li_1"})).await;
        assert_eq!(ticket.1["status"], "succeeded", "{:?}", ticket);
        app.fault(json!({"match": "pickup-2002-li_1-*", "fault": "business_reject"})).await;
        let pickup = app.post("/api/v1/tools/schedule_pickup", &json!({"order_id": "2002", "line_item_id": "li_1", "date": "2026-12-02"})).await;
        assert_eq!(pickup.1["status"], "rejected", "{:?}", pickup);

        let support = app.signed_in("sam", Role::Support).await;
        let html = support.page("/orders/order:2002", 200).await;
        assert!(html.contains("partial success") && html.contains("Cancel the after-sale ticket") && html.contains("Re-schedule the pickup"), "{html}");
        let auditor = app.signed_in("ada", Role::Auditor).await;
        assert!(!auditor.page("/orders/order:2002", 200).await.contains("Cancel the after-sale ticket"), "auditors are offered nothing");
        assert_eq!(compensate(&auditor, "x1", "aftersale-2002-li_1", "cancel_ticket", "").await.0, 403);
        let (status, body) = compensate(&support, "x2", "pickup-2002-li_1-2026-12-02", "reschedule_pickup", "next week").await;
        assert_eq!((status, body.contains("2026-12-09")), (422, true), "{body}");
        let (status, body) = compensate(&support, "x3", "aftersale-2002-li_1", "reschedule_pickup", "2026-12-09").await;
        assert_eq!(status, 422, "a compensation the operation does not offer: {body}");

        let (status, body) = compensate(&support, "x4", "aftersale-2002-li_1", "cancel_ticket", "").await;
        assert_eq!(status, 200, "{body}");
        assert!(body.contains("Recorded cancel-aftersale-2002-li_1 to compensate aftersale-2002-li_1: cancel-aftersale-2002-li_1 succeeded"), "{body}");
        assert_eq!(state_of(&app, "cancel-aftersale-2002-li_1").await, State::Succeeded);
        let (status, body) = compensate(&support, "x5", "aftersale-2002-li_1", "cancel_ticket", "").await;
        assert_eq!(status, 200, "{body}");
        assert!(body.contains("was recorded before and is succeeded; nothing was sent again"), "{body}");

        let html = support.page("/orders/order:2002", 200).await;
        assert!(html.contains("cancel-aftersale-2002-li_1") && html.contains("compensated"), "{html}");
        assert!(!html.contains("Cancel the after-sale ticket"), "a compensated order offers no more compensations");
        let operation = OpId::parse("cancel-aftersale-2002-li_1").unwrap();
        let history = app.ledger.reads().operation_history(&acme(), &operation).await.unwrap().unwrap();
        assert_eq!(history.operation.compensates, Some(OpId::parse("aftersale-2002-li_1").unwrap()));
        assert_eq!(history.operation.snapshot.requested_by, "sam");
        let (_, order) = app.get_json("/api/v1/subjects/order:2002/operations").await;
        assert_eq!(order["status"], "compensated", "{order}");
    }

    a_bulk_query_settles_every_unknown_of_the_filter_once_and_lists_each_result(app) {
        for item in ["li_1", "li_2"] {
            app.fault(json!({"match": format!("refund-1043-{item}"), "fault": "drop_response", "ms": 10000})).await;
        }
        let (one, two) = (json!({"order_id": "1043", "line_item_id": "li_1"}), json!({"order_id": "1043", "line_item_id": "li_2"}));
        let (first, second) = tokio::join!(app.post("/api/v1/tools/refund_item", &one), app.post("/api/v1/tools/refund_item", &two));
        assert_eq!((first.1["status"].as_str(), second.1["status"].as_str()), (Some("unknown"), Some("unknown")));
        unknown_aside(&app).await;

        let support = app.signed_in("sam", Role::Support).await;
        let (status, preview) = support.call("preview_bulk", &[("filter[state]", "unknown"), ("filter[subject]", "order:1043")]).await;
        assert_eq!(status, 200, "{preview}");
        let preview: Value = serde_json::from_str(&preview).unwrap();
        assert_eq!((preview["matching"].as_u64(), preview["actionable"].as_u64()), (Some(2), Some(2)), "{preview}");
        let key = preview["form_key"].as_str().unwrap().to_owned();
        let auditor = app.signed_in("ada", Role::Auditor).await;
        let (status, _) = auditor.call("start_bulk", &[("csrf", &auditor.csrf().await), ("key", "auditor-run"), ("filter", "state=unknown")]).await;
        assert_eq!(status, 403);

        let csrf = support.csrf().await;
        let form = [("csrf", csrf.as_str()), ("key", key.as_str()), ("filter", "state=unknown&subject=order%3A1043")];
        let (status, body) = support.call("start_bulk", &form).await;
        assert!(status == 200 || status == 302, "{status} {body}");
        let (again, _) = support.call("start_bulk", &form).await;
        assert!(again == 200 || again == 302, "a resent form finds the same run");
        let run = loop {
            let (status, body) = support.call("bulk_run", &[("id", &key)]).await;
            assert_eq!(status, 200, "{body}");
            let run: Value = serde_json::from_str(&body).unwrap();
            if !run["finished_at"].is_null() {
                break run;
            }
            tokio::time::sleep(std::time::Duration::from_millis(100)).await;
        };
        let items = run["items"].as_array().unwrap();
        assert_eq!(items.len(), 2, "{run}");
        assert!(items.iter().all(|i| i["outcome"] == "confirmed" && i["message"].as_str().unwrap().contains("is now succeeded")), "{run}");
        assert_eq!(state_of(&app, "refund-1043-li_1").await, State::Succeeded);
        assert_eq!(state_of(&app, "refund-1043-li_2").await, State::Succeeded);
        assert_eq!(state_of(&app, "refund-A1042-li_1").await, State::Unknown, "outside the filter, untouched");
        let html = support.page(&format!("/bulk/{key}"), 200).await.replace("<!>", "");
        assert!(html.contains("Done: 2 of 2") && html.contains("2 confirmed"), "{html}");
        let starts = app.ledger.audit_chain(&acme()).await.unwrap().into_iter().filter(|a| a.entry.action == "start_bulk_query").count();
        assert_eq!(starts, 1, "one run for one form");
        assert_eq!(refunds_at_provider(&app, "refund-1043-li_1").await, 1);
    }
}

/// An unknown refund of another order, which a filter on order 1043 must leave alone.
async fn unknown_aside(app: &TestApp) {
    app.fault(json!({"match": "refund-A1042-li_1", "fault": "drop_response", "ms": 10000})).await;
    let (_, answer) =
        app.post("/api/v1/tools/refund_item", &json!({"order_id": "A1042", "line_item_id": "li_1"})).await;
    assert_eq!(answer["status"], "unknown", "{answer}");
}

/// Records a compensation through the console's `compensate` server function.
async fn compensate(
    console: &Console,
    key: &str,
    op_id: &str,
    compensation: &str,
    date: &str,
) -> (u16, String) {
    let csrf = console.csrf().await;
    console
        .call(
            "compensate",
            &[
                ("csrf", &csrf),
                ("key", key),
                ("op_id", op_id),
                ("compensation", compensation),
                ("date", date),
                ("confirmed", "yes"),
            ],
        )
        .await
}
