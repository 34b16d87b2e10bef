//! The source articles' scenarios, end to end through the executor, the Stripe connector, the
//! sandbox provider and the reconciler, on both engines: a timeout never turns into a double refund.

use opledger::domain::operation::AttemptReport;
use opledger::domain::{
    ids::{Actor, OpId, TenantId},
    machine::{Command, State},
};
use serde_json::{json, Value};

use crate::support::{refund_1043, ProviderHarness, TestApp};

const OP: &str = "refund-1043-li_2";
/// The key sent downstream for acme's `OP`: the tenant and the op id.
const KEY: &str = "acme:refund-1043-li_2";

fn acme() -> TenantId {
    TenantId::parse("acme").unwrap()
}

fn op() -> OpId {
    OpId::parse(OP).unwrap()
}

crate::engine_tests! {
    a_dropped_answer_is_unknown_then_found_and_refunded_once(app) {
        let provider = ProviderHarness::start(&app.ledger).await;
        provider.fault(json!({"match": OP, "fault": "drop_response", "ms": 10000})).await;
        app.register(&refund_1043(38000)).await;
        let after = provider.executor.run(&acme(), &op()).await.unwrap();
        assert_eq!(after.operation.snapshot.state, State::Unknown, "no answer is not a failure");
        let (status, again) = app.register(&refund_1043(38000)).await;
        assert_eq!((status, again["message"].as_str()), (200, Some("Result unknown; do not send again; it is being checked.")));

        let pass = provider.reconciler.reconcile_once().await.unwrap();
        assert_eq!(pass.settled, vec![(op(), State::Succeeded)]);
        let refunds = provider.refunds();
        assert_eq!(refunds.len(), 1, "one refund, not two");
        let (_, settled) = app.get_json(&format!("/api/v1/operations/{OP}")).await;
        assert_eq!(settled["external_refs"], json!([format!("stripe/refund/{}", refunds[0].id)]));
        assert_eq!(refunds[0].idempotency_key.as_deref(), Some(KEY));
        assert_eq!(refunds[0].metadata["op_id"], OP);
    }

    a_crash_between_submitted_and_the_send_is_settled_with_one_effect_at_most(app) {
        let provider = ProviderHarness::start(&app.ledger).await;
        app.register(&refund_1043(38000)).await;
        let (status, _) = app.begin_attempt_within(OP, 1).await;
        assert_eq!(status, 201, "submitted, and then the sender died before sending");
        assert!(provider.refunds().is_empty());
        provider.reconciler.reconcile_once().await.unwrap();
        let (_, operation) = app.get_json(&format!("/api/v1/operations/{OP}")).await;
        assert_eq!(operation["state"], "submitted", "not presumed abandoned before its send deadline");
        TestApp::wait_past(1).await;
        provider.reconciler.reconcile_once().await.unwrap();
        let (_, operation) = app.get_json(&format!("/api/v1/operations/{OP}")).await;
        assert_eq!(operation["state"], "succeeded");
        let attempts = operation["attempts"].as_array().unwrap();
        assert_eq!(attempts.len(), 2);
        assert_eq!(attempts[0]["outcome"], "no_report");
        assert_eq!(attempts[1]["idempotency_key"], KEY, "re-sent with the same key");
        assert_eq!(provider.refunds().len(), 1);
        provider.reconciler.reconcile_once().await.unwrap();
        assert_eq!(provider.refunds().len(), 1, "a second pass changes nothing");
    }

    a_cached_500_goes_to_review_and_never_to_a_new_key(app) {
        let provider = ProviderHarness::start(&app.ledger).await;
        provider.fault(json!({"match": OP, "fault": "error_500_before"})).await;
        app.register(&refund_1043(38000)).await;
        let after = provider.executor.run(&acme(), &op()).await.unwrap();
        assert_eq!(after.operation.snapshot.state, State::Unknown);
        provider.reconciler.reconcile_once().await.unwrap();
        let (_, operation) = app.get_json(&format!("/api/v1/operations/{OP}")).await;
        assert_eq!(operation["state"], "needs_review");
        assert_eq!(operation["attempts"].as_array().unwrap().len(), 1, "no re-send after a cached 500");
        let escalation = operation["audit"].as_array().unwrap().last().unwrap().clone();
        assert!(escalation["reason"].as_str().unwrap().contains("only a lookup can settle it"), "{escalation}");
        assert!(provider.refunds().is_empty());
    }

    a_key_past_its_retention_is_not_re_sent(app) {
        let provider = ProviderHarness::start(&app.ledger).await;
        provider.fault(json!({"match": OP, "fault": "drop_response", "ms": 10000})).await;
        provider.fault(json!({"match": OP, "fault": "lookup_lag", "ms": 60000})).await;
        let mut body = refund_1043(38000);
        body["key_retention_s"] = json!(1);
        app.register(&body).await;
        provider.executor.run(&acme(), &op()).await.unwrap();
        tokio::time::sleep(std::time::Duration::from_millis(1100)).await;
        provider.reconciler.reconcile_once().await.unwrap();
        let (_, operation) = app.get_json(&format!("/api/v1/operations/{OP}")).await;
        assert_eq!(operation["state"], "needs_review", "{operation}");
        assert_eq!(provider.refunds().len(), 1, "the lagging lookup could not see it, and nothing was sent again");
    }

    a_rate_limit_is_retried_by_the_executor_with_the_same_key(app) {
        let provider = ProviderHarness::start(&app.ledger).await;
        provider.fault(json!({"match": OP, "fault": "rate_limit"})).await;
        app.register(&refund_1043(38000)).await;
        let after = provider.executor.run(&acme(), &op()).await.unwrap();
        assert_eq!(after.operation.snapshot.state, State::Succeeded);
        assert_eq!(after.operation.snapshot.last_attempt.map(|a| a.0), Some(2));
        assert_eq!(provider.refunds().len(), 1);
        let (_, operation) = app.get_json(&format!("/api/v1/operations/{OP}")).await;
        let attempts = operation["attempts"].as_array().unwrap();
        assert_eq!(attempts[0]["outcome"], "transient_unavailable");
        assert_eq!(attempts[0]["retry_after_s"], 1);
        assert!(attempts.iter().all(|a| a["send_budget"] == 3 && a["deadline_at"].is_string()), "the budget is on every attempt");
        assert_eq!(attempts[0]["deadline_at"], attempts[1]["deadline_at"], "one deadline for the whole run");
    }

    refunds_of_100_then_50_on_order_a1042_are_two_operations(app) {
        let provider = ProviderHarness::start(&app.ledger).await;
        for (op_id, minor) in [("refund-A1042-1", 10000), ("refund-A1042-2", 5000)] {
            let body = json!({"op_id": op_id, "kind": "refund", "subject": "order:A1042", "provider": "stripe",
                "params": {"payment_intent": "pi_A1042", "amount": {"minor": minor, "currency": "CNY"}}, "requested_by": "agent-7"});
            assert_eq!(app.register(&body).await.0, 201);
            let done = provider.executor.run(&acme(), &OpId::parse(op_id).unwrap()).await.unwrap();
            assert_eq!(done.operation.snapshot.state, State::Succeeded);
        }
        let conflicting = json!({"op_id": "refund-A1042-1", "kind": "refund", "subject": "order:A1042", "provider": "stripe",
            "params": {"payment_intent": "pi_A1042", "amount": {"minor": 20000, "currency": "CNY"}}, "requested_by": "agent-7"});
        assert_eq!(app.register(&conflicting).await.0, 409, "op-9 with 20000 instead of 10000 is a conflict");
        assert_eq!(provider.refunds().len(), 2, "two legitimate refunds, nothing sent for the conflict");
        let (_, order) = app.get_json("/api/v1/subjects/order:A1042/operations").await;
        assert_eq!(order["net_refunded"], json!([{"minor": 15000, "currency": "CNY"}]));
    }

    a_refund_the_executor_completed_cannot_be_marked_again(app) {
        let provider = ProviderHarness::start(&app.ledger).await;
        app.register(&refund_1043(38000)).await;
        provider.executor.run(&acme(), &op()).await.unwrap();
        let late = app
            .ledger
            .execute(&acme(), &op(), Command::MarkSucceeded { external_id: "re_x".into(), evidence: "phone call".into() },
                &Actor::human("sam", opledger::domain::policy::Role::Support), AttemptReport::default())
            .await;
        assert!(late.is_err(), "a succeeded operation cannot be marked again");
    }
}

#[tokio::test]
async fn the_naive_tool_with_a_new_key_per_call_refunds_twice() {
    let Some(app) = crate::support::TestApp::spawn(crate::support::Engine::Sqlite).await else { return };
    let provider = ProviderHarness::start(&app.ledger).await;
    provider.fault(json!({"match": "naive-call-1", "fault": "drop_response", "ms": 10000})).await;
    let client = reqwest::Client::builder().timeout(std::time::Duration::from_millis(2000)).build().unwrap();
    for call in ["naive-call-1", "naive-call-2"] {
        let _ = client
            .post(format!("{}/v1/refunds", provider.base_url))
            .bearer_auth("sk_test_x")
            .header("Idempotency-Key", call)
            .form(&[("payment_intent", "pi_1043"), ("amount", "38000")])
            .send()
            .await;
    }
    assert_eq!(provider.refunds().len(), 2, "without the ledger, a timeout and a retry refund twice");
}

mod compensation {
    use super::*;

    crate::engine_tests! {
        a_partial_success_is_compensated_by_an_operation_with_its_own_lifecycle(app) {
            let provider = ProviderHarness::start(&app.ledger).await;
            let run = |op: &str| { let op = OpId::parse(op).unwrap(); let executor = provider.executor.clone(); async move { executor.run(&acme(), &op).await.unwrap() } };
            app.register(&json!({"op_id": "aftersale-1043-li_2", "kind": "create_aftersale", "subject": "order:1043",
                "provider": "sandbox", "params": {"order": "1043", "line_item": "li_2"}, "requested_by": "agent-7"})).await;
            let ticket = run("aftersale-1043-li_2").await;
            assert_eq!(ticket.operation.snapshot.state, State::Succeeded);
            let (_, created) = app.get_json("/api/v1/operations/aftersale-1043-li_2").await;
            let ticket_id = created["external_refs"][0].as_str().unwrap().rsplit('/').next().unwrap().to_owned();
            assert!(ticket_id.starts_with("as_"), "{ticket_id}");

            provider.fault(json!({"match": "pickup-1043-li_2", "fault": "business_reject"})).await;
            app.register(&json!({"op_id": "pickup-1043-li_2", "kind": "schedule_pickup", "subject": "order:1043",
                "provider": "sandbox", "params": {"ticket": ticket_id, "date": "2026-12-02"}, "requested_by": "agent-7"})).await;
            assert_eq!(run("pickup-1043-li_2").await.operation.snapshot.state, State::Rejected);
            let (_, order) = app.get_json("/api/v1/subjects/order:1043/operations").await;
            assert_eq!(order["status"], "partial_success");

            provider.fault(json!({"match": "cancel-aftersale-1043-li_2", "fault": "drop_response", "ms": 10000})).await;
            let (status, _) = app.register(&json!({"op_id": "cancel-aftersale-1043-li_2", "kind": "cancel_aftersale", "subject": "order:1043",
                "provider": "sandbox", "params": {"ticket": ticket_id}, "requested_by": "sam", "compensates": "aftersale-1043-li_2"})).await;
            assert_eq!(status, 201);
            assert_eq!(run("cancel-aftersale-1043-li_2").await.operation.snapshot.state, State::Unknown, "calling a compensation proves nothing");
            let (_, order) = app.get_json("/api/v1/subjects/order:1043/operations").await;
            assert_eq!(order["status"], "pending_confirmation");
            assert_eq!(order["effects_in_force"], json!(["aftersale-1043-li_2"]), "the ticket still stands until the cancel is confirmed");

            provider.reconciler.reconcile_once().await.unwrap();
            let (_, order) = app.get_json("/api/v1/subjects/order:1043/operations").await;
            assert_eq!(order["status"], "compensated", "{order}");
            assert_eq!(order["effects_in_force"], json!([]));
            let cancellations = provider.sandbox.created_objects().into_iter().filter(|o| o.object_type == "aftersale_cancellation").count();
            assert_eq!(cancellations, 1);
        }
    }
}

mod leases {
    use super::dispatcher::refund_request;
    use super::*;
    use chrono::{Duration, Utc};

    crate::engine_tests! {
        two_reconcilers_at_once_never_work_on_the_same_operation(app) {
            let provider = ProviderHarness::start(&app.ledger).await;
            let ops: Vec<String> = (1..=12).map(|n| format!("refund-A1042-part{n}")).collect();
            for op_id in &ops {
                let body = json!({"op_id": op_id, "kind": "refund", "subject": "order:A1042", "provider": "stripe",
                    "params": {"payment_intent": "pi_A1042", "amount": {"minor": 100, "currency": "CNY"}}, "requested_by": "agent-7"});
                assert_eq!(app.register(&body).await.0, 201);
                assert_eq!(app.begin_attempt_within(op_id, 1).await.0, 201, "submitted, then the sender stopped");
            }
            TestApp::wait_past(1).await;
            let other_instance = provider.reconciler.clone();
            let (first, second) = tokio::join!(provider.reconciler.reconcile_once(), other_instance.reconcile_once());
            let (first, second) = (first.unwrap(), second.unwrap());
            let mut worked: Vec<String> = first.settled.iter().chain(&second.settled).map(|(op, _)| op.to_string()).collect();
            worked.sort();
            let mut expected = ops.clone();
            expected.sort();
            assert_eq!(worked, expected, "every operation was taken by exactly one of the two");
            assert_eq!(provider.refunds().len(), ops.len(), "one refund per operation, none twice");
            for op_id in &ops {
                let (_, operation) = app.get_json(&format!("/api/v1/operations/{op_id}")).await;
                assert_eq!(operation["state"], "succeeded");
                assert_eq!(operation["attempts"].as_array().unwrap().len(), 2, "{op_id}: one silent attempt, one re-send");
            }
        }

        a_claim_whose_holder_stopped_is_taken_over_when_its_lease_runs_out(app) {
            let provider = ProviderHarness::start(&app.ledger).await;
            app.ledger.register(&acme(), &Actor::agent("agent-7"), refund_request(OP, 38_000, true)).await.unwrap();
            let at = Utc::now();
            let stopped_holder = app.store.lease_due_for_dispatch(at, at, at + Duration::seconds(1), 50).await.unwrap();
            assert_eq!(stopped_holder, vec![(acme(), op())], "a holder took it, then was killed");

            let reconciler = provider.reconciler.clone().with_lease(Duration::seconds(1));
            let pass = reconciler.reconcile_once().await.unwrap();
            assert!(pass.dispatched.is_empty(), "another holder's lease is respected: {pass:?}");
            TestApp::wait_past(1).await;
            let pass = reconciler.reconcile_once().await.unwrap();
            assert_eq!(pass.dispatched, vec![(op(), State::Succeeded)], "taken over once the lease ran out");
            assert_eq!(provider.refunds().len(), 1);
        }

        a_working_holder_renews_its_lease_while_a_slow_send_runs(app) {
            let provider = ProviderHarness::start(&app.ledger).await;
            provider.fault(json!({"match": OP, "fault": "delay", "ms": 1800})).await;
            app.ledger.register(&acme(), &Actor::agent("agent-7"), refund_request(OP, 38_000, true)).await.unwrap();
            let reconciler = provider.reconciler.clone().with_lease(Duration::seconds(1));
            let started = Utc::now();
            let pass = tokio::spawn(async move { reconciler.reconcile_once().await });
            tokio::time::sleep(std::time::Duration::from_millis(1400)).await;
            let lease_until = app.number(&format!("select lease_until_us from operations where op_id = '{OP}'")).await;
            let first_lease_ended = (started + Duration::seconds(1)).timestamp_micros();
            assert!(lease_until > first_lease_ended + 300_000, "renewed while it works: {lease_until} vs {first_lease_ended}");
            let pass = pass.await.unwrap().unwrap();
            assert_eq!(pass.dispatched, vec![(op(), State::Succeeded)]);
            assert_eq!(provider.refunds().len(), 1);
        }
    }
}

mod reconcile_command {
    use super::*;

    /// `opledger reconcile --once` against the provider at `base_url`, on `app`'s database.
    async fn reconcile_once(database_url: &str, base_url: &str) -> String {
        let args = [
            "reconcile",
            "--once",
            "--database-url",
            database_url,
            "--services-base-url",
            base_url,
            "--stripe-secret-key",
            "sk_test_x",
            "--provider-timeout",
            "1s",
            "--settle-after",
            "1s",
            "--default-tenant",
            "acme",
        ]
        .map(str::to_owned);
        tokio::time::sleep(std::time::Duration::from_millis(1100)).await;
        let output = tokio::task::spawn_blocking(move || {
            std::process::Command::new(env!("CARGO_BIN_EXE_opledger")).args(&args).output().unwrap()
        })
        .await
        .unwrap();
        assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
        String::from_utf8(output.stdout).unwrap()
    }

    crate::engine_tests! {
        the_reconcile_command_looks_after_sale_tickets_and_pickups_up(app) {
            let provider = ProviderHarness::start(&app.ledger).await;
            let mut ticket = String::new();
            for (op_id, kind) in [("aftersale-1043-li_2", "create_aftersale"), ("pickup-1043-li_2-2026-12-02", "schedule_pickup")] {
                let params = if kind == "create_aftersale" {
                    json!({"order": "1043", "line_item": "li_2"})
                } else {
                    json!({"ticket": ticket, "date": "2026-12-02", "order": "1043", "line_item": "li_2"})
                };
                provider.fault(json!({"match": op_id, "fault": "drop_response", "ms": 10000})).await;
                app.register(&json!({"op_id": op_id, "kind": kind, "subject": "order:1043",
                    "provider": "sandbox", "params": params, "requested_by": "agent-7"})).await;
                let sent = provider.executor.run(&acme(), &OpId::parse(op_id).unwrap()).await.unwrap();
                assert_eq!(sent.operation.snapshot.state, State::Unknown, "the answer was lost");

                let printed = reconcile_once(app.database.url(), &provider.base_url).await;
                assert!(printed.contains(&format!("{op_id}\tsucceeded")), "{printed}");
                let history = app.ledger.reads().operation_history(&acme(), &OpId::parse(op_id).unwrap()).await.unwrap().unwrap();
                assert_eq!(history.operation.snapshot.state, State::Succeeded, "found by its op id, not escalated");
                assert_eq!(history.external_refs.len(), 1);
                ticket = history.external_refs[0].external_id.clone();
            }
            let made = provider.sandbox.created_objects().into_iter().filter(|o| o.object_type != "refund").count();
            assert_eq!(made, 2, "one ticket and one pickup, nothing sent twice");
        }
    }
}

mod two_tenants {
    use super::*;

    crate::engine_tests! {
        each_tenant_s_lookup_finds_only_its_own_refund(app) {
            let provider = ProviderHarness::start(&app.ledger).await;
            provider.fault(json!({"match": OP, "fault": "drop_response", "ms": 10000, "times": 2})).await;
            let globex = TenantId::parse("globex").unwrap();
            for (tenant, token) in [(acme(), &app.token), (globex.clone(), &app.other_token)] {
                let (status, _) = app.post_as(token, "/api/v1/operations", &refund_1043(38000)).await;
                assert_eq!(status, 201);
                let sent = provider.executor.run(&tenant, &op()).await.unwrap();
                assert_eq!(sent.operation.snapshot.state, State::Unknown, "both answers are lost");
            }
            assert_eq!(provider.refunds().len(), 2, "two tenants' sends are two refunds, not one replayed");

            let pass = provider.reconciler.reconcile_once().await.unwrap();
            assert_eq!(pass.settled.len(), 2);
            let mut found = Vec::new();
            for tenant in [acme(), globex] {
                let history = app.ledger.reads().operation_history(&tenant, &op()).await.unwrap().unwrap();
                assert_eq!(history.operation.snapshot.state, State::Succeeded);
                let external = history.external_refs[0].external_id.clone();
                let refund = provider.refunds().into_iter().find(|r| r.id == external).unwrap();
                assert_eq!(refund.metadata.get("tenant").map(String::as_str), Some(tenant.as_str()), "found its own refund");
                found.push(external);
            }
            assert_ne!(found[0], found[1]);
            assert_eq!(provider.refunds().len(), 2, "the lookups sent nothing again");
        }
    }
}

/// A send that outlives the settle window: an agent's refund at a slow provider while the
/// reconciler runs. Nothing may be sent twice, however the timing falls.
mod in_flight {
    use super::*;

    /// The agent's own send of the refund to the provider, as the ledger told it to (the key and
    /// the metadata), answering with the provider's status.
    async fn agent_sends(base_url: &str) -> u16 {
        reqwest::Client::new()
            .post(format!("{base_url}/v1/refunds"))
            .bearer_auth("sk_test_x")
            .header("Idempotency-Key", KEY)
            .form(&[
                ("payment_intent", "pi_1043"),
                ("amount", "38000"),
                ("currency", "twd"),
                ("metadata[op_id]", OP),
                ("metadata[tenant]", "acme"),
            ])
            .send()
            .await
            .unwrap()
            .status()
            .as_u16()
    }

    async fn state_of(app: &TestApp) -> String {
        app.get_json(&format!("/api/v1/operations/{OP}")).await.1["state"].as_str().unwrap().to_owned()
    }

    crate::engine_tests! {
        a_send_slower_than_the_settle_window_is_not_presumed_abandoned_before_its_deadline(app) {
            let provider = ProviderHarness::start(&app.ledger).await;
            provider.fault(json!({"match": OP, "fault": "delay", "ms": 1700})).await;
            app.register(&refund_1043(38000)).await;
            let (status, started) = app.begin_attempt_within(OP, 3).await;
            assert_eq!(status, 201, "{started}");
            assert!(started["send_deadline"].is_string(), "the agent is told until when its send counts as in flight");
            let base_url = provider.base_url.clone();
            let send = tokio::spawn(async move { agent_sends(&base_url).await });

            tokio::time::sleep(std::time::Duration::from_millis(1000)).await;
            provider.reconciler.reconcile_once().await.unwrap();
            assert_eq!(state_of(&app).await, "submitted", "the send may still be in flight: nobody touches it");
            let support = app.signed_in("sam", opledger::domain::policy::Role::Support).await;
            let html = support.page(&format!("/operations/{OP}"), 200).await;
            let shown = html.split("data-testid=\"send-deadline\"").nth(1).expect("the attempts table shows the deadline");
            let cell = shown.split("</td>").next().unwrap_or_default();
            assert!(cell.contains("<time datetime="), "the deadline is a time: {cell:.300}");
            assert_eq!(send.await.unwrap(), 200, "the agent's refund lands");
            assert_eq!(provider.refunds().len(), 1);

            TestApp::wait_past(2).await;
            provider.reconciler.reconcile_once().await.unwrap();
            assert_eq!(state_of(&app).await, "succeeded", "after the deadline, a lookup finds it");
            assert_eq!(provider.refunds().len(), 1, "exactly one refund");
        }

        a_resend_while_the_first_request_runs_is_told_the_key_is_in_use(app) {
            let provider = ProviderHarness::start(&app.ledger).await;
            provider.fault(json!({"match": OP, "fault": "delay", "ms": 2500})).await;
            app.register(&refund_1043(38000)).await;
            app.begin_attempt_within(OP, 1).await;
            let base_url = provider.base_url.clone();
            let send = tokio::spawn(async move { agent_sends(&base_url).await });

            TestApp::wait_past(1).await;
            provider.reconciler.reconcile_once().await.unwrap();
            let (_, operation) = app.get_json(&format!("/api/v1/operations/{OP}")).await;
            assert_eq!(operation["state"], "unknown", "the re-send met the running request: {operation}");
            let attempts = operation["attempts"].as_array().unwrap();
            assert_eq!(attempts.last().unwrap()["http_status"], 409, "{operation}");
            assert!(attempts.last().unwrap()["deadline_at"].is_string(), "a re-send has its own deadline");

            assert_eq!(send.await.unwrap(), 200);
            let support = opledger::domain::ids::Actor::human("sam", opledger::domain::policy::Role::Support);
            opledger::server::ledger::workflows::query_provider(&provider.executor, &acme(), &op(), &support, None).await.unwrap();
            assert_eq!(state_of(&app).await, "succeeded", "a lookup finds the one refund");
            assert_eq!(provider.refunds().len(), 1, "one refund, although two requests were made");
        }
    }
}

mod paging {
    use super::*;

    crate::engine_tests! {
        a_refund_made_before_a_hundred_others_is_found_by_its_op_id(app) {
            let provider = ProviderHarness::start(&app.ledger).await;
            provider.fault(json!({"match": OP, "fault": "error_500_after"})).await;
            app.register(&refund_1043(100)).await;
            let sent = provider.executor.run(&acme(), &op()).await.unwrap();
            assert_eq!(sent.operation.snapshot.state, State::Unknown, "made, but answered with a 500");
            let client = reqwest::Client::new();
            for n in 0..120 {
                let made = client
                    .post(format!("{}/v1/refunds", provider.base_url))
                    .bearer_auth("sk_test_x")
                    .header("Idempotency-Key", format!("other-{n}"))
                    .form(&[("payment_intent", "pi_1043"), ("amount", "1")])
                    .send()
                    .await
                    .unwrap();
                assert_eq!(made.status(), 200);
            }
            let first_page: Value = client
                .get(format!("{}/v1/refunds?payment_intent=pi_1043&limit=100", provider.base_url))
                .bearer_auth("sk_test_x")
                .send()
                .await
                .unwrap()
                .json()
                .await
                .unwrap();
            assert_eq!(first_page["has_more"], true, "the sandbox pages like Stripe");

            provider.reconciler.reconcile_once().await.unwrap();
            let (_, operation) = app.get_json(&format!("/api/v1/operations/{OP}")).await;
            assert_eq!(operation["state"], "succeeded", "found on the second page, not sent to review: {operation}");
            assert_eq!(provider.refunds().len(), 121, "nothing sent again");
        }
    }
}

/// What the server should have sent and has not (a crash between recording and sending, an
/// approval whose send never ran) is picked up by the dispatcher; an agent's own operation is not.
mod dispatcher {
    use super::*;
    use opledger::domain::{params::CanonicalParams, policy::Role};
    use opledger::server::ledger::RegisterRequest;

    pub(super) fn refund_request(op_id: &str, minor: i64, server_sends: bool) -> RegisterRequest {
        let params = json!({"payment_intent": "pi_1043", "amount": {"minor": minor, "currency": "TWD"}});
        RegisterRequest {
            op_id: OpId::parse(op_id).unwrap(),
            kind: "refund".into(),
            subject: "order:1043".into(),
            provider: "stripe".into(),
            params: CanonicalParams::from_value(params).unwrap(),
            requested_by: "agent-7".into(),
            on_behalf_of: None,
            server_sends,
            compensates: None,
            key_retention: None,
        }
    }

    crate::engine_tests! {
        a_tool_call_left_unsent_by_a_crash_is_sent_and_an_agents_own_is_left_alone(app) {
            let provider = ProviderHarness::start(&app.ledger).await;
            let agent = Actor::agent("agent-7");
            app.ledger.register(&acme(), &agent, refund_request(OP, 38_000, true)).await.unwrap();
            app.ledger.register(&acme(), &agent, refund_request("refund-1043-li_1", 100, false)).await.unwrap();

            let pass = provider.reconciler.reconcile_once().await.unwrap();
            assert_eq!(pass.dispatched, vec![(op(), State::Succeeded)], "the server's own operation is sent once");
            let theirs = app.ledger.reads().load_operation(&acme(), &OpId::parse("refund-1043-li_1").unwrap()).await.unwrap().unwrap();
            assert_eq!(theirs.snapshot.state, State::Planned, "the agent sends its own");
            assert_eq!(provider.refunds().len(), 1);
            let again = provider.reconciler.reconcile_once().await.unwrap();
            assert!(again.dispatched.is_empty(), "nothing is sent twice");
        }

        an_approval_whose_send_never_ran_is_sent(app) {
            let provider = ProviderHarness::start(&app.ledger).await;
            app.ledger.register(&acme(), &Actor::agent("agent-7"), refund_request(OP, 38_000, false)).await.unwrap();
            let rule = opledger::domain::policy::ApprovalRule {
                kind: "refund".into(),
                provider: None,
                threshold: None,
            };
            let record = opledger::server::store::records::ApprovalRuleRecord {
                id: "all".into(), rule, created_by: "alex".into(), created_at: chrono::Utc::now(),
            };
            app.ledger.add_approval_rule(&acme(), &Actor::human("alex", Role::Admin), record).await.unwrap();
            let mut needing = refund_request("refund-1043-li_1", 100, false);
            needing.params = CanonicalParams::from_value(json!({"payment_intent": "pi_1043", "amount": {"minor": 100, "currency": "TWD"}})).unwrap();
            app.ledger.register(&acme(), &Actor::agent("agent-7"), needing).await.unwrap();
            let approve = Command::Approve { reason: "checked".into(), valid_for: chrono::Duration::hours(1) };
            let approved = app.ledger
                .execute(&acme(), &OpId::parse("refund-1043-li_1").unwrap(), approve, &Actor::human("maria", Role::Manager), AttemptReport::default())
                .await
                .unwrap();
            assert_eq!(approved.operation.snapshot.state, State::Approved, "approved, and then the server stopped");

            let pass = provider.reconciler.reconcile_once().await.unwrap();
            assert_eq!(pass.dispatched, vec![(OpId::parse("refund-1043-li_1").unwrap(), State::Succeeded)]);
            assert_eq!(provider.refunds().len(), 1, "the agent's planned one, registered before the rule, is left alone");
        }
    }
}

/// A bulk query whose instance stopped midway is finished by the next reconcile pass.
mod bulk_resume {
    use super::*;
    use opledger::domain::policy::Role;
    use opledger::server::store::records::NewBulkRun;

    crate::engine_tests! {
        a_bulk_run_left_midway_is_resumed_and_finished(app) {
            let provider = ProviderHarness::start(&app.ledger).await;
            let ops = ["refund-1043-li_1", "refund-1043-li_2"];
            for op_id in ops {
                provider.fault(json!({"match": op_id, "fault": "drop_response", "ms": 2500})).await;
                let mut body = refund_1043(100);
                body["op_id"] = json!(op_id);
                assert_eq!(app.register(&body).await.0, 201);
                let sent = provider.executor.run(&acme(), &OpId::parse(op_id).unwrap()).await.unwrap();
                assert_eq!(sent.operation.snapshot.state, State::Unknown);
            }
            let run = NewBulkRun {
                tenant: acme(),
                id: "run-1".into(),
                action: "query_provider".into(),
                filter: "state=unknown".into(),
                requested_by: "sam".into(),
                op_ids: ops.iter().map(|op| OpId::parse(op).unwrap()).collect(),
                at: chrono::Utc::now(),
            };
            assert!(app.ledger.start_bulk_run(run, &Actor::human("sam", Role::Support)).await.unwrap());

            let pass = provider.reconciler.reconcile_once().await.unwrap();
            assert_eq!(pass.bulk_runs_resumed, vec!["run-1".to_owned()], "the stopped run is taken over");
            let finished = app.ledger.reads().bulk_run(&acme(), "run-1").await.unwrap().unwrap();
            assert!(finished.finished_at.is_some(), "and finished");
            let outcomes: Vec<_> = finished.items.iter().map(|i| i.outcome.clone().unwrap_or_default()).collect();
            assert_eq!(outcomes, ["confirmed", "confirmed"]);
            let again = provider.reconciler.reconcile_once().await.unwrap();
            assert!(again.bulk_runs_resumed.is_empty(), "a finished run is left alone");
        }
    }
}

mod settling_at_once {
    use super::dispatcher::refund_request;
    use super::*;
    use opledger::domain::{failure::FailureClass, machine::AttemptOutcome, operation::OperationRecord};
    use opledger::server::ledger::{executor::Executor, reconciler::Reconciler};
    use opledger::server::providers::{Checked, Connector, Lookup, Sent};
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::sync::Arc;

    /// How many lookups are running, and the most that ever ran at once.
    #[derive(Default)]
    struct Concurrency {
        running: AtomicUsize,
        most: AtomicUsize,
    }

    impl Concurrency {
        fn enter(&self) {
            let running = self.running.fetch_add(1, Ordering::SeqCst) + 1;
            self.most.fetch_max(running, Ordering::SeqCst);
        }

        fn leave(&self) {
            self.running.fetch_sub(1, Ordering::SeqCst);
        }
    }

    /// A provider whose lookups take 100 ms and always find the operation.
    struct SlowLookups {
        own: Concurrency,
        all: Arc<Concurrency>,
    }

    #[async_trait::async_trait]
    impl Connector for SlowLookups {
        fn kind(&self) -> opledger::domain::connection::ProviderKind {
            opledger::domain::connection::ProviderKind::Stripe
        }

        async fn check(&self, _: &OperationRecord) -> Checked {
            Checked::Unavailable { reason: "not asked in this test".into() }
        }

        async fn send(&self, _: &OperationRecord) -> Sent {
            Sent {
                outcome: AttemptOutcome::Failed { failure: FailureClass::NotSent },
                report: AttemptReport::default(),
            }
        }

        async fn look_up(&self, operation: &OperationRecord) -> Lookup {
            self.own.enter();
            self.all.enter();
            tokio::time::sleep(std::time::Duration::from_millis(100)).await;
            self.all.leave();
            self.own.leave();
            Lookup::Found {
                external_id: format!("re_{}", operation.op_id),
                status: opledger::domain::machine::ProviderStatus::Succeeded,
                evidence: "found".into(),
            }
        }
    }

    crate::engine_tests! {
        a_pass_settles_a_bounded_number_per_provider_and_providers_side_by_side(app) {
            let all = Arc::new(Concurrency::default());
            let slow = |all: &Arc<Concurrency>| Arc::new(SlowLookups { own: Concurrency::default(), all: all.clone() });
            let (first, second) = (slow(&all), slow(&all));
            let agent = Actor::agent("agent-7");
            let system = Actor::system("test");
            for n in 0..40 {
                let mut request = refund_request(&format!("refund-{n}-li_1"), 100, false);
                request.provider = if n % 2 == 0 { "first".into() } else { "second".into() };
                app.ledger.register(&acme(), &agent, request.clone()).await.unwrap();
                app.ledger.execute(&acme(), &request.op_id, Command::BeginAttempt, &agent, AttemptReport::default()).await.unwrap();
                let lost = Command::MarkUnknown { reason: "the answer was lost".into() };
                app.ledger.execute(&acme(), &request.op_id, lost, &system, AttemptReport::default()).await.unwrap();
            }
            // The two providers are this test's own connectors, which the ledger's binding does
            // not know by name: their refunds are bound as a Stripe account's would be.
            app.tamper("update operations set action = 'refund' where provider in ('first', 'second')").await;
            let executor = Executor::new(app.ledger.clone(), Default::default())
                .with_connector("first", first.clone())
                .with_connector("second", second.clone())
                .serving([acme()]);
            let pass = Reconciler::new(executor, chrono::Duration::zero()).reconcile_once().await.unwrap();
            assert_eq!(pass.settled.len(), 40);
            assert!(pass.settled.iter().all(|(_, state)| *state == State::Succeeded), "{pass:?}");
            for provider in [&first, &second] {
                let most = provider.own.most.load(Ordering::SeqCst);
                assert!((2..=8).contains(&most), "at most eight lookups at one provider at once, and more than one: {most}");
            }
            let most = all.most.load(Ordering::SeqCst);
            assert!(most > 8, "the two providers were asked side by side: {most}");
        }
    }
}
