//! A refund the provider accepted is not a refund that happened. Against the sandbox mounted in
//! the application, behaving as Stripe's API reference says: a refund created `pending` is
//! recorded `accepted` and told as such to the agent and the customer, then settles to succeeded
//! or to a failure at the provider (told in words), by polling alone or by Stripe's signed webhook
//! alone; a dropped answer whose refund failed is never recorded as succeeded; a failed refund is
//! made again only on purpose, once, under a key of its own. The webhook intake refuses bad and
//! old signatures, replays and other tenants' events, and the official `stripe` package verifies
//! the signatures made here.

use chrono::{Duration as ChronoDuration, Utc};
use serde_json::{json, Value};
use std::time::Duration;

use crate::support::{python, run_client, sandbox_refunds, Engine, TestApp};
use opledger::domain::connection::ProviderKind;
use opledger::domain::ids::{Actor, TenantId};
use opledger::domain::policy::Role;
use opledger::server::app::wiring::{self, ProviderSettings};
use opledger::server::ledger::connections::NewConnection;
use opledger::server::ledger::reconciler::Reconciler;
use opledger::server::providers::stripe_events::signature_header;

const SANDBOX_KEY: &str = "sk_test_sandbox";
const REFUND: &str = "refund-1043-li_2";

/// The application with the sandbox mounted and no reconciler of its own, and a reconciler over
/// its ledger that the test runs pass by pass.
async fn app(engine: Engine) -> Option<(TestApp, Reconciler)> {
    let app = TestApp::spawn_with(engine, |settings| {
        settings.sandbox = true;
        settings.provider_timeout = Duration::from_millis(2000);
    })
    .await?;
    let providers = ProviderSettings {
        tenants: vec![tenant("acme")],
        stripe_base_url: Some(app.url("/sandbox")),
        services_base_url: Some(app.url("/sandbox")),
        secret_key: SANDBOX_KEY.into(),
        timeout: Duration::from_millis(2000),
    };
    let reconciler =
        Reconciler::new(wiring::executor(app.ledger.clone(), &providers), ChronoDuration::zero());
    Some((app, reconciler))
}

fn tenant(name: &str) -> TenantId {
    TenantId::parse(name).unwrap()
}

/// Gives `tenant` its own Stripe account at the mounted sandbox, with `signing` as the secret of
/// its webhooks.
async fn own_account(app: &TestApp, tenant_name: &str, signing: &str) {
    let admin = Actor::human("alex", Role::Admin);
    let connection = NewConnection {
        name: "stripe".into(),
        kind: ProviderKind::Stripe,
        base_url: app.url("/sandbox"),
        secret: SANDBOX_KEY.into(),
        account: None,
        key_retention: None,
        description: None,
    };
    app.ledger.set_provider_connection(&tenant(tenant_name), &admin, connection).await.unwrap();
    app.ledger.set_webhook_secret(&tenant(tenant_name), &admin, "stripe", signing).await.unwrap();
}

/// Points the sandbox's own Stripe events at `tenant`'s webhook address, signed with `signing`.
async fn events_to(app: &TestApp, tenant_name: &str, signing: &str) {
    let destination =
        json!({"url": app.url(&format!("/webhooks/providers/{tenant_name}/stripe")), "secret": signing});
    let response = app
        .client
        .post(app.url("/sandbox/v1/_sandbox/event_destination"))
        .bearer_auth(SANDBOX_KEY)
        .json(&destination)
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 200);
}

async fn refund_item(app: &TestApp, token: &str, extra: Value) -> Value {
    let mut call = json!({"order_id": "1043", "line_item_id": "li_2"});
    call.as_object_mut().unwrap().extend(extra.as_object().unwrap().clone());
    let (status, answer) = app.post_as(token, "/api/v1/tools/refund_item", &call).await;
    assert_eq!(status, 200, "{answer}");
    answer
}

async fn operation(app: &TestApp, token: &str, op_id: &str) -> Value {
    let (status, operation) = app.get_as(token, &format!("/api/v1/operations/{op_id}")).await;
    assert_eq!(status, 200, "{operation}");
    operation
}

/// Waits up to 10 s for `op_id` to reach `state` (a webhook settles it in the background).
async fn becomes(app: &TestApp, token: &str, op_id: &str, state: &str) -> Value {
    for _ in 0..100 {
        let now = operation(app, token, op_id).await;
        if now["state"] == state {
            return now;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    panic!("{op_id} did not become {state}: {}", operation(app, token, op_id).await);
}

/// A Stripe event about `refund`, signed at `signed_at` with `signing`: its body and signature.
fn signed_event(
    id: &str,
    event_type: &str,
    refund: &str,
    signing: &str,
    signed_at: chrono::DateTime<Utc>,
) -> (String, String) {
    let body = json!({"id": id, "object": "event", "type": event_type, "data": {"object": {"id": refund, "object": "refund"}}})
        .to_string();
    let signature = signature_header(body.as_bytes(), signing, signed_at);
    (body, signature)
}

async fn post_event(app: &TestApp, tenant_name: &str, body: &str, signature: Option<&str>) -> (u16, Value) {
    let mut request = app
        .client
        .post(app.url(&format!("/webhooks/providers/{tenant_name}/stripe")))
        .header("content-type", "application/json")
        .body(body.to_owned());
    if let Some(signature) = signature {
        request = request.header("stripe-signature", signature);
    }
    let response = request.send().await.unwrap();
    (response.status().as_u16(), response.json().await.unwrap_or(Value::Null))
}

fn refund_id(operation: &Value) -> String {
    operation["external_refs"][0].as_str().unwrap().rsplit('/').next().unwrap().to_owned()
}

mod stories {
    use super::*;

    async fn pending_then_succeeded_by_polling(engine: Engine) {
        let Some((app, reconciler)) = app(engine).await else { return };
        app.fault(json!({"match": REFUND, "fault": "pending", "then": "succeeded", "ms": 1500})).await;
        let first = refund_item(&app, &app.token, json!({})).await;
        assert_eq!(first["status"], "accepted", "{first}");
        let message = first["message"].as_str().unwrap();
        assert!(
            message.starts_with("Stripe accepted the refund of NT$380 for Headphone case; the bank has not confirmed it yet. Do not refund it again."),
            "{message}"
        );
        assert!(!message.contains("has been issued"), "the customer is not told it is done: {message}");
        assert!(message.contains("is being processed by the bank"), "{message}");
        assert_eq!(operation(&app, &app.token, REFUND).await["state"], "accepted");

        let again = refund_item(&app, &app.token, json!({})).await;
        assert_eq!(again["status"], "accepted", "a second call sends nothing: {again}");
        reconciler.reconcile_once().await.unwrap();
        assert_eq!(operation(&app, &app.token, REFUND).await["state"], "accepted", "still pending at Stripe");

        tokio::time::sleep(Duration::from_millis(1700)).await;
        reconciler.reconcile_once().await.unwrap();
        let settled = operation(&app, &app.token, REFUND).await;
        assert_eq!(settled["state"], "succeeded", "{settled}");
        let done = refund_item(&app, &app.token, json!({})).await;
        assert_eq!(done["status"], "already_done");
        assert!(done["message"].as_str().unwrap().contains("has been issued"));
        assert_eq!(sandbox_refunds(&app).await.len(), 1, "one refund at the provider");
    }

    async fn pending_then_failed_is_told_and_made_again_only_on_purpose(engine: Engine) {
        let Some((app, reconciler)) = app(engine).await else { return };
        app.fault(json!({"match": REFUND, "fault": "pending", "then": "failed",
                         "failure_reason": "expired_or_canceled_card", "ms": 800}))
            .await;
        assert_eq!(refund_item(&app, &app.token, json!({})).await["status"], "accepted");
        tokio::time::sleep(Duration::from_millis(1000)).await;
        reconciler.reconcile_once().await.unwrap();
        let failed = operation(&app, &app.token, REFUND).await;
        assert_eq!(failed["state"], "rejected", "{failed}");
        assert_eq!(failed["failure_reason"], "expired_or_canceled_card");
        assert_eq!(failed["failure"], "the card it was going back to has expired or was cancelled");

        let told = refund_item(&app, &app.token, json!({})).await;
        assert_eq!(told["status"], "failed_at_provider", "{told}");
        let message = told["message"].as_str().unwrap();
        assert!(
            message
                .contains("then it failed there: the card it was going back to has expired or was cancelled"),
            "{message}"
        );
        assert!(
            message.contains("retry_after_failure: true and failed_op_id: \"refund-1043-li_2\""),
            "{message}"
        );
        assert_eq!(sandbox_refunds(&app).await.len(), 1, "nothing is sent again by itself");

        let support = app.signed_in("sam", Role::Support).await;
        let page = support.page(&format!("/operations/{REFUND}"), 200).await;
        assert!(
            page.contains("then it failed there: the card it was going back to has expired or was cancelled"),
            "support reads it in words"
        );
        assert!(page.contains("data-testid=\"retry\""), "the page offers to make it again");
        let order = support.page("/orders/order:1043", 200).await;
        assert!(
            order.contains("the card it was going back to has expired or was cancelled"),
            "the order page says why"
        );

        let retried =
            refund_item(&app, &app.token, json!({"retry_after_failure": true, "failed_op_id": REFUND})).await;
        assert_eq!(retried["op_id"], "refund-1043-li_2-retry-2", "{retried}");
        assert_eq!(retried["status"], "succeeded", "{retried}");
        let again =
            refund_item(&app, &app.token, json!({"retry_after_failure": true, "failed_op_id": REFUND})).await;
        assert_eq!(again["op_id"], "refund-1043-li_2-retry-2");
        assert_eq!(again["status"], "already_done", "asking twice is one retry: {again}");
        let latest = refund_item(&app, &app.token, json!({})).await;
        assert_eq!(
            (latest["op_id"].as_str(), latest["status"].as_str()),
            (Some("refund-1043-li_2-retry-2"), Some("already_done"))
        );

        let refunds = sandbox_refunds(&app).await;
        assert_eq!(refunds.len(), 2, "exactly one more refund: {refunds:?}");
        assert_eq!(refunds[1]["idempotency_key"], "acme:refund-1043-li_2-retry-2", "under a key of its own");
        let retry = operation(&app, &app.token, "refund-1043-li_2-retry-2").await;
        assert_eq!(retry["retry_of"], REFUND);
        let page = support.page(&format!("/operations/{REFUND}"), 200).await;
        assert!(page.contains("data-testid=\"retried-by\""), "the failed one links to its retry");
        assert!(!page.contains("data-testid=\"retry\""), "and offers no second retry");
    }

    async fn a_retry_is_refused_while_the_first_is_accepted_or_unknown(engine: Engine) {
        let Some((app, _)) = app(engine).await else { return };
        app.fault(json!({"match": REFUND, "fault": "pending"})).await;
        assert_eq!(refund_item(&app, &app.token, json!({})).await["status"], "accepted");
        let call = json!({"order_id": "1043", "line_item_id": "li_2", "retry_after_failure": true, "failed_op_id": REFUND});
        let (status, refused) = app.post("/api/v1/tools/refund_item", &call).await;
        assert_eq!(status, 422, "{refused}");
        assert!(
            refused["error"]["message"].as_str().unwrap().contains("is accepted: its result is not settled"),
            "{refused}"
        );
        let other_item = json!({"order_id": "1043", "line_item_id": "li_1", "retry_after_failure": true, "failed_op_id": REFUND});
        let (status, _) = app.post("/api/v1/tools/refund_item", &other_item).await;
        assert_eq!(status, 422, "a retry names a failed refund of the same item");
        assert_eq!(sandbox_refunds(&app).await.len(), 1);
    }

    async fn a_dropped_answer_whose_refund_failed_is_never_recorded_succeeded(engine: Engine) {
        let Some((app, reconciler)) = app(engine).await else { return };
        app.fault(json!({"match": REFUND, "fault": "pending", "then": "failed", "failure_reason": "declined", "ms": 300})).await;
        app.fault(json!({"match": REFUND, "fault": "drop_response", "ms": 4000})).await;
        assert_eq!(refund_item(&app, &app.token, json!({})).await["status"], "unknown");
        tokio::time::sleep(Duration::from_millis(400)).await;
        reconciler.reconcile_once().await.unwrap();
        let settled = operation(&app, &app.token, REFUND).await;
        assert_eq!(settled["state"], "rejected", "found failed at Stripe, not succeeded: {settled}");
        assert_eq!(settled["failure_reason"], "declined");
        assert_eq!(sandbox_refunds(&app).await.len(), 1, "the lookup re-sent nothing");
    }

    async fn pending_then_failed_by_the_webhook_alone(engine: Engine) {
        let Some((app, _)) = app(engine).await else { return };
        own_account(&app, "acme", "whsec_acme").await;
        events_to(&app, "acme", "whsec_acme").await;
        app.fault(json!({"match": REFUND, "fault": "pending", "then": "failed",
                         "failure_reason": "expired_or_canceled_card", "ms": 500}))
            .await;
        assert_eq!(refund_item(&app, &app.token, json!({})).await["status"], "accepted");
        let failed = becomes(&app, &app.token, REFUND, "rejected").await;
        assert_eq!(failed["failure_reason"], "expired_or_canceled_card");
        let settled_by: Vec<&Value> = failed["audit"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|event| event["to_state"] == "rejected")
            .collect();
        assert_eq!(settled_by.len(), 1, "{failed}");
        assert_eq!(settled_by[0]["actor"], "stripe-webhook", "the webhook settled it, nothing else ran");
    }

    async fn pending_then_succeeded_by_the_webhook_alone(engine: Engine) {
        let Some((app, _)) = app(engine).await else { return };
        own_account(&app, "acme", "whsec_acme").await;
        events_to(&app, "acme", "whsec_acme").await;
        app.fault(json!({"match": REFUND, "fault": "pending", "then": "succeeded", "ms": 500})).await;
        assert_eq!(refund_item(&app, &app.token, json!({})).await["status"], "accepted");
        becomes(&app, &app.token, REFUND, "succeeded").await;
        assert_eq!(sandbox_refunds(&app).await.len(), 1);
    }

    async fn a_dropped_answer_whose_refund_failed_is_settled_by_the_webhook_alone(engine: Engine) {
        let Some((app, _)) = app(engine).await else { return };
        own_account(&app, "acme", "whsec_acme").await;
        events_to(&app, "acme", "whsec_acme").await;
        app.fault(json!({"match": REFUND, "fault": "pending", "then": "failed", "failure_reason": "declined", "ms": 2600})).await;
        app.fault(json!({"match": REFUND, "fault": "drop_response", "ms": 4000})).await;
        assert_eq!(refund_item(&app, &app.token, json!({})).await["status"], "unknown");
        let settled = becomes(&app, &app.token, REFUND, "rejected").await;
        assert_eq!(settled["failure_reason"], "declined", "never succeeded: {settled}");
    }

    async fn pending_too_long_or_waiting_for_action_goes_to_people(engine: Engine) {
        let Some((app, reconciler)) = app(engine).await else { return };
        app.fault(json!({"match": REFUND, "fault": "pending"})).await;
        app.fault(json!({"match": "refund-1043-li_1", "fault": "requires_action"})).await;
        assert_eq!(refund_item(&app, &app.token, json!({})).await["status"], "accepted");
        let (_, action) =
            app.post("/api/v1/tools/refund_item", &json!({"order_id": "1043", "line_item_id": "li_1"})).await;
        assert_eq!(action["status"], "accepted", "{action}");
        let reconciler =
            reconciler.with_pending_limit(ProviderKind::Stripe, ChronoDuration::milliseconds(600));
        reconciler.reconcile_once().await.unwrap();
        assert_eq!(operation(&app, &app.token, REFUND).await["state"], "accepted", "within its limit");
        let waiting = operation(&app, &app.token, "refund-1043-li_1").await;
        assert_eq!(waiting["state"], "needs_review", "requires_action goes to people at once: {waiting}");
        tokio::time::sleep(Duration::from_millis(700)).await;
        reconciler.reconcile_once().await.unwrap();
        let history = operation(&app, &app.token, REFUND).await;
        assert_eq!(history["state"], "needs_review", "{history}");
        let reasons: Vec<&str> =
            history["audit"].as_array().unwrap().iter().filter_map(|e| e["reason"].as_str()).collect();
        assert!(reasons.iter().any(|r| r.contains("still has it pending, past the")), "{reasons:?}");
        assert_eq!(sandbox_refunds(&app).await.len(), 2, "an accepted refund is never sent again");
    }

    /// "Make it again" is one rule (`OperationRecord::make_again_refusal`), which the operation
    /// page offers by and the console's server function and the tool refuse by: only an operation
    /// that failed at the provider and that opledger sends itself is made again. An agent's own
    /// refund, in every state the API can bring it to, is refused by the server function with
    /// words that say why (for a declined one: who sends it), and by the tool; nothing is recorded
    /// or sent. The one the server sent and that failed is offered and made again.
    async fn make_it_again_does_only_what_the_page_offers(engine: Engine) {
        let Some((app, reconciler)) = app(engine).await else { return };
        let agents_own = |op_id: &str| {
            let mut body = crate::support::refund_1043(38_000);
            body["op_id"] = json!(op_id);
            body
        };
        let states: [(&str, &[Value]); 6] = [
            ("planned", &[]),
            ("submitted", &[json!(null)]),
            ("unknown", &[json!({"outcome": "timeout"})]),
            ("succeeded", &[json!({"outcome": "succeeded", "external_id": "re_agent_1"})]),
            (
                "rejected",
                &[json!({"outcome": "failed_at_provider", "external_id": "re_agent_2", "error": "declined"})],
            ),
            ("cancelled", &[]),
        ];
        let support = app.signed_in("sam", Role::Support).await;
        let csrf = support.csrf().await;
        for (index, (state, outcomes)) in states.iter().enumerate() {
            let op_id = if *state == "rejected" {
                REFUND.to_owned()
            } else {
                format!("refund-1043-li_2-agent-{state}")
            };
            assert_eq!(app.register(&agents_own(&op_id)).await.0, 201);
            for outcome in *outcomes {
                assert_eq!(app.begin_attempt(&op_id).await.0, 201);
                if !outcome.is_null() {
                    assert_eq!(app.report(&op_id, 1, outcome).await.0, 200);
                }
            }
            if *state == "cancelled" {
                let (status, _) = app.post(&format!("/api/v1/operations/{op_id}/cancel"), &json!({})).await;
                assert_eq!(status, 200);
            }
            assert_eq!(operation(&app, &app.token, &op_id).await["state"], *state);
            let page = support.page(&format!("/operations/{op_id}"), 200).await;
            assert!(!page.contains("data-testid=\"retry\""), "{state}: the page offers no retry");
            let key = format!("again-{index}");
            let form = [
                ("csrf", csrf.as_str()),
                ("key", key.as_str()),
                ("op_id", op_id.as_str()),
                ("reason", "the customer asked"),
                ("confirmed", "yes"),
            ];
            let (status, body) = support.call("retry_after_failure", &form).await;
            assert_eq!(status, 422, "{state}: {body}");
            if *state == "rejected" {
                assert!(body.contains("is sent by the agent that recorded it"), "{body}");
            }
        }
        let call = json!({"order_id": "1043", "line_item_id": "li_2", "retry_after_failure": true, "failed_op_id": REFUND});
        let (status, refused) = app.post("/api/v1/tools/refund_item", &call).await;
        assert_eq!(status, 422, "{refused}");
        assert!(refused["error"]["message"].as_str().unwrap().contains("is sent by the agent"), "{refused}");
        let (status, _) = app.get_json(&format!("/api/v1/operations/{REFUND}-retry-2")).await;
        assert_eq!(status, 404, "nothing was recorded");
        assert!(sandbox_refunds(&app).await.is_empty(), "nothing was sent");

        let servers = "refund-1043-li_1";
        app.fault(json!({"match": servers, "fault": "pending", "then": "failed", "failure_reason": "declined", "ms": 100})).await;
        let item_1 = json!({"order_id": "1043", "line_item_id": "li_1"});
        let (status, _) = app.post("/api/v1/tools/refund_item", &item_1).await;
        assert_eq!(status, 200);
        tokio::time::sleep(Duration::from_millis(300)).await;
        reconciler.reconcile_once().await.unwrap();
        assert_eq!(operation(&app, &app.token, servers).await["state"], "rejected");
        let page = support.page(&format!("/operations/{servers}"), 200).await;
        assert!(page.contains("data-testid=\"retry\""), "the page offers it");
        let form = [
            ("csrf", csrf.as_str()),
            ("key", "again-server"),
            ("op_id", servers),
            ("reason", "the customer asked"),
            ("confirmed", "yes"),
        ];
        let (status, body) = support.call("retry_after_failure", &form).await;
        assert_eq!(status, 200, "{body}");
        assert_eq!(operation(&app, &app.token, "refund-1043-li_1-retry-2").await["retry_of"], servers);
    }

    crate::on_both_engines!(
        make_it_again_does_only_what_the_page_offers,
        pending_then_succeeded_by_polling,
        pending_then_failed_is_told_and_made_again_only_on_purpose,
        a_retry_is_refused_while_the_first_is_accepted_or_unknown,
        a_dropped_answer_whose_refund_failed_is_never_recorded_succeeded,
        pending_then_failed_by_the_webhook_alone,
        pending_then_succeeded_by_the_webhook_alone,
        a_dropped_answer_whose_refund_failed_is_settled_by_the_webhook_alone,
        pending_too_long_or_waiting_for_action_goes_to_people,
    );
}

mod intake {
    use super::*;

    /// Two tenants with their own accounts at the one sandbox account, each with a pending refund
    /// under the same op id; no events are sent by the sandbox itself.
    async fn two_tenants(engine: Engine) -> Option<(TestApp, String, String)> {
        let (app, _) = app(engine).await?;
        own_account(&app, "acme", "whsec_acme").await;
        own_account(&app, "globex", "whsec_globex").await;
        app.fault(json!({"match": "acme:refund-1043-li_2", "fault": "pending", "then": "failed", "failure_reason": "declined", "ms": 200})).await;
        app.fault(json!({"match": "globex:refund-1043-li_2", "fault": "pending"})).await;
        assert_eq!(refund_item(&app, &app.token, json!({})).await["status"], "accepted");
        assert_eq!(refund_item(&app, &app.other_token, json!({})).await["status"], "accepted");
        let acme_refund = refund_id(&operation(&app, &app.token, REFUND).await);
        let globex_refund = refund_id(&operation(&app, &app.other_token, REFUND).await);
        tokio::time::sleep(Duration::from_millis(300)).await;
        Some((app, acme_refund, globex_refund))
    }

    async fn stored_events(app: &TestApp) -> i64 {
        app.number("select count(*) from provider_events").await
    }

    async fn refused_signatures_and_replays_change_nothing(engine: Engine) {
        let Some((app, acme_refund, _)) = two_tenants(engine).await else { return };
        let (body, good) = signed_event("evt_1", "refund.updated", &acme_refund, "whsec_acme", Utc::now());
        let (_, wrong_secret) =
            signed_event("evt_1", "refund.updated", &acme_refund, "whsec_guess", Utc::now());
        let (_, old) = signed_event(
            "evt_1",
            "refund.updated",
            &acme_refund,
            "whsec_acme",
            Utc::now() - ChronoDuration::minutes(6),
        );
        for (signature, what) in [
            (Some(wrong_secret.as_str()), "another secret"),
            (Some(old.as_str()), "an old timestamp"),
            (None, "no signature"),
        ] {
            let (status, answer) = post_event(&app, "acme", &body, signature).await;
            assert_eq!(status, 400, "{what}: {answer}");
            assert_eq!(
                operation(&app, &app.token, REFUND).await["state"],
                "accepted",
                "{what} changed nothing"
            );
        }
        let (status, _) =
            post_event(&app, "acme", &body.replace("refund.updated", "refund.failed"), Some(&good)).await;
        assert_eq!(status, 400, "a body changed after signing");
        assert_eq!(stored_events(&app).await, 0, "nothing refused is stored");

        let (status, answer) = post_event(&app, "acme", &body, Some(&good)).await;
        assert_eq!(status, 200, "{answer}");
        assert!(
            answer["outcome"].as_str().unwrap().starts_with("refund-1043-li_2 is now rejected"),
            "{answer}"
        );
        assert_eq!(operation(&app, &app.token, REFUND).await["state"], "rejected");
        let before = operation(&app, &app.token, REFUND).await["version"].clone();
        let (status, replayed) = post_event(&app, "acme", &body, Some(&good)).await;
        assert_eq!(status, 200);
        assert!(replayed["outcome"].as_str().unwrap().starts_with("already processed"), "{replayed}");
        assert_eq!(operation(&app, &app.token, REFUND).await["version"], before, "a replay changes nothing");
        assert_eq!(stored_events(&app).await, 1, "each event id is kept once");
    }

    async fn an_event_never_changes_another_tenants_operation(engine: Engine) {
        let Some((app, acme_refund, globex_refund)) = two_tenants(engine).await else { return };
        let (body, signed_by_globex) =
            signed_event("evt_2", "refund.failed", &acme_refund, "whsec_globex", Utc::now());
        let (status, answer) = post_event(&app, "globex", &body, Some(&signed_by_globex)).await;
        assert_eq!(status, 200, "{answer}");
        assert_eq!(answer["outcome"], format!("refund {acme_refund} belongs to another tenant"));
        assert_eq!(
            operation(&app, &app.other_token, REFUND).await["state"],
            "accepted",
            "globex's is untouched"
        );
        assert_eq!(
            operation(&app, &app.token, REFUND).await["state"],
            "accepted",
            "and acme's too, through globex's address"
        );
        let (status, _) = post_event(&app, "acme", &body, Some(&signed_by_globex)).await;
        assert_eq!(status, 400, "acme's address takes only acme's secret");
        let (body, _) = signed_event("evt_3", "refund.updated", &globex_refund, "whsec_globex", Utc::now());
        let (status, _) = post_event(
            &app,
            "initech",
            &body,
            Some(&signature_header(body.as_bytes(), "whsec_globex", Utc::now())),
        )
        .await;
        assert_eq!(status, 404, "a tenant without a webhook has no address");
    }

    async fn an_event_about_nothing_known_is_answered_and_kept(engine: Engine) {
        let Some((app, _, _)) = two_tenants(engine).await else { return };
        for (id, event_type, object) in
            [("evt_4", "refund.updated", "re_unknown"), ("evt_5", "charge.succeeded", "ch_1")]
        {
            let (body, signature) = signed_event(id, event_type, object, "whsec_acme", Utc::now());
            let (status, answer) = post_event(&app, "acme", &body, Some(&signature)).await;
            assert_eq!(status, 200, "{answer}");
        }
        assert_eq!(stored_events(&app).await, 2);
        assert_eq!(operation(&app, &app.token, REFUND).await["state"], "accepted");
        let kept = app
            .number("select count(*) from audit_events where action = 'receive_provider_event'")
            .await
            + app.number("select count(*) from audit_pending where action = 'receive_provider_event'").await;
        assert_eq!(kept, 2, "both are in the audit");
    }

    crate::on_both_engines!(
        refused_signatures_and_replays_change_nothing,
        an_event_never_changes_another_tenants_operation,
        an_event_about_nothing_known_is_answered_and_kept,
    );
}

/// The official `stripe` package verifies what opledger signs: the sandbox's events as sent, and
/// a signature made here; and refuses one made under another secret.
#[tokio::test]
async fn stripes_own_library_verifies_the_signatures() {
    let Some((app, _)) = app(Engine::Sqlite).await else { return };
    let Some(python) = python("stripe") else { return };
    let receiver = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}/", receiver.local_addr().unwrap());
    let (sent, mut got) = tokio::sync::mpsc::unbounded_channel::<(String, String)>();
    let keep = axum::Router::new().route(
        "/",
        axum::routing::post(move |headers: axum::http::HeaderMap, body: String| {
            let sent = sent.clone();
            async move {
                let signature = headers["stripe-signature"].to_str().unwrap().to_owned();
                sent.send((body, signature)).unwrap();
                "ok"
            }
        }),
    );
    tokio::spawn(async move { axum::serve(receiver, keep).await });
    let destination = json!({"url": url, "secret": "whsec_library"});
    app.client
        .post(app.url("/sandbox/v1/_sandbox/event_destination"))
        .bearer_auth(SANDBOX_KEY)
        .json(&destination)
        .send()
        .await
        .unwrap();
    app.fault(json!({"match": REFUND, "fault": "pending", "then": "failed", "failure_reason": "declined", "ms": 100})).await;
    refund_item(&app, &app.token, json!({})).await;
    let mut events = Vec::new();
    while events.len() < 3 {
        let (payload, signature) =
            tokio::time::timeout(Duration::from_secs(10), got.recv()).await.unwrap().unwrap();
        events.push(json!({"payload": payload, "signature": signature}));
    }
    let (body, signature) = signed_event("evt_here", "refund.updated", "re_1", "whsec_library", Utc::now());
    events.push(json!({"payload": body, "signature": signature}));
    let verified = run_client(
        python.clone(),
        "stripe_events.py",
        vec!["whsec_library".into()],
        Value::from(events.clone()).to_string(),
    )
    .await;
    let types: Vec<&str> = verified.lines().map(|line| line.rsplit(' ').next().unwrap()).collect();
    assert_eq!(types, ["refund.created", "refund.updated", "refund.failed", "refund.updated"], "{verified}");

    let script = format!("{}/tests/clients/stripe_events.py", env!("CARGO_MANIFEST_DIR"));
    let refused = std::process::Command::new(python)
        .args([script, "whsec_other".to_owned()])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .and_then(|mut child| {
            use std::io::Write;
            child.stdin.take().unwrap().write_all(Value::from(events).to_string().as_bytes())?;
            child.wait_with_output()
        })
        .unwrap();
    assert!(!refused.status.success(), "another secret does not verify");
}
