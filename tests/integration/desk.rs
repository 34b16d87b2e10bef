//! The reconcile desk over HTTP, with the sandbox mounted in the application: a support user
//! settles an unknown refund by querying the provider; nothing changes when the provider has
//! nothing; an auditor and a second click change nothing.

use opledger::domain::{
    ids::{OpId, TenantId},
    machine::State,
    policy::Role,
};
use serde_json::json;

async fn state_of(app: &crate::support::TestApp, op_id: &str) -> State {
    let acme = TenantId::parse("acme").unwrap();
    let op_id = OpId::parse(op_id).unwrap();
    app.ledger.store().load_operation(&acme, &op_id).await.unwrap().unwrap().snapshot.state
}

crate::sandboxed_tests! {
    querying_the_provider_settles_an_unknown_refund_once(app) {
        let fault = app.client.post(app.url("/sandbox/v1/_sandbox/faults")).bearer_auth("sk_test_sandbox")
            .json(&json!({"match": "refund-1043-li_2", "fault": "drop_response", "ms": 10000})).send().await.unwrap();
        assert_eq!(fault.status(), 201);
        let (_, answer) = app.post("/api/v1/tools/refund_item", &json!({"order_id": "1043", "line_item_id": "li_2"})).await;
        assert_eq!(answer["status"], "unknown", "{answer}");

        app.add_user("globex", "gus", Role::Support).await;
        let other_tenant = app.console();
        other_tenant.sign_in("gus", crate::support::PASSWORD, "/").await;
        let html = other_tenant.page("/reconcile", 200).await;
        assert!(!html.contains("refund-1043-li_2") && html.contains("Nothing to reconcile"), "another tenant's desk is its own");
        let other_csrf = other_tenant.csrf().await;
        let (status, _) = other_tenant.call("query_provider", &[("csrf", &other_csrf), ("op_id", "refund-1043-li_2")]).await;
        assert_eq!(status, 404, "another tenant's operation does not exist for this user");
        assert_eq!(state_of(&app, "refund-1043-li_2").await, State::Unknown);

        let support = app.signed_in("sam", Role::Support).await;
        let html = support.page("/reconcile", 200).await;
        assert!(html.contains("refund-1043-li_2") && html.contains("Query the provider now"), "{html}");
        let csrf = support.csrf().await;

        let auditor = app.signed_in("ada", Role::Auditor).await;
        let auditor_csrf = auditor.csrf().await;
        let (status, body) = auditor.call("query_provider", &[("csrf", &auditor_csrf), ("op_id", "refund-1043-li_2")]).await;
        assert_eq!(status, 422, "{body}");
        assert!(body.contains("the auditor role may not"), "{body}");
        assert!(!auditor.page("/reconcile", 200).await.contains("Query the provider now"), "an auditor is offered no action");
        assert_eq!(state_of(&app, "refund-1043-li_2").await, State::Unknown);

        let (status, _) = support.call("query_provider", &[("csrf", "forged"), ("op_id", "refund-1043-li_2")]).await;
        assert_eq!(status, 403, "the form's token is checked");
        let (status, body) = support.call("query_provider", &[("csrf", &csrf), ("op_id", "refund-1043-li_2")]).await;
        assert_eq!(status, 200, "{body}");
        assert!(body.contains("is now succeeded") && body.contains("re_"), "{body}");
        assert_eq!(state_of(&app, "refund-1043-li_2").await, State::Succeeded);

        let (status, body) = support.call("query_provider", &[("csrf", &csrf), ("op_id", "refund-1043-li_2")]).await;
        assert_eq!(status, 422, "a second click changes nothing: {body}");
        let html = support.page("/operations/refund-1043-li_2", 200).await;
        assert!(html.contains("sam (support)") && html.contains("confirm_found"), "the audit trail names who settled it");
        assert!(support.page("/reconcile", 200).await.contains("Nothing to reconcile"));
    }

    a_lookup_that_finds_nothing_changes_nothing(app) {
        let mut body = crate::support::refund_1043(38000);
        body["provider"] = json!("stripe");
        assert_eq!(app.register(&body).await.0, 201);
        assert_eq!(app.begin_attempt("refund-1043-li_2").await.0, 201);
        let support = app.signed_in("sam", Role::Support).await;
        let csrf = support.csrf().await;
        let (status, body) = support.call("query_provider", &[("csrf", &csrf), ("op_id", "refund-1043-li_2")]).await;
        assert_eq!(status, 200, "{body}");
        assert!(body.contains("has nothing under refund-1043-li_2") && body.contains("Nothing was changed"), "{body}");
        assert_eq!(state_of(&app, "refund-1043-li_2").await, State::Submitted);
        let (status, _) = support.call("query_provider", &[("csrf", &csrf), ("op_id", "no-such-op")]).await;
        assert_eq!(status, 404);
    }
}
