//! Operating opledger: `/metrics` scraped after a scripted story (a refund that times out and is
//! reconciled, an approval) and read with Prometheus' own Python parser; webhooks delivered from
//! the outbox, signed (verified by the `standardwebhooks` package), retried after a 500, in order
//! per operation, each tenant's to its own endpoints, and none lost when `serve` is killed between
//! the change and the delivery.

use serde_json::{json, Value};
use std::collections::BTreeMap;
use std::time::Duration;

use crate::support::{python, refund_1043, run_client, Engine, TestApp, TestDatabase, SECRET_KEY};
use opledger::domain::ids::{Actor, OpId, TenantId};
use opledger::domain::machine::Command;
use opledger::domain::operation::AttemptReport;
use opledger::domain::policy::Role;

const SANDBOX_KEY: &str = "sk_test_sandbox";
const METRICS_TOKEN: &str = "scrape-4242";

fn acme() -> TenantId {
    TenantId::parse("acme").unwrap()
}

fn admin() -> Actor {
    Actor::human("alex", Role::Admin)
}

/// The application with the sandbox mounted, delivering webhooks every 100 ms and retrying a
/// failed one after 1 s.
async fn webhook_app(engine: Engine) -> Option<TestApp> {
    TestApp::spawn_with(engine, |settings| {
        settings.sandbox = true;
        settings.provider_timeout = Duration::from_millis(2000);
        settings.deliver_webhooks_every = Some(Duration::from_millis(100));
        settings.webhook_retry_after = Duration::from_secs(1);
    })
    .await
}

/// What the sandbox's receiver got, oldest first.
async fn received(app: &TestApp) -> Vec<Value> {
    let response = app
        .client
        .get(app.url("/sandbox/v1/_sandbox/webhooks"))
        .bearer_auth(SANDBOX_KEY)
        .send()
        .await
        .unwrap();
    let list: Value = response.json().await.unwrap();
    list["data"].as_array().unwrap().clone()
}

fn body(webhook: &Value) -> Value {
    serde_json::from_str(webhook["body"].as_str().unwrap()).unwrap()
}

/// Waits up to 30 s for `done` to hold of what the receiver got; what it got then.
async fn received_until(app: &TestApp, done: impl Fn(&[Value]) -> bool) -> Vec<Value> {
    for _ in 0..300 {
        let got = received(app).await;
        if done(&got) {
            return got;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    panic!("the receiver did not get what was expected: {:#?}", received(app).await);
}

/// Defines `mod sqlite` and `mod postgres` with one test per body, given the engine.
macro_rules! both_engines {
    ($($name:ident($engine:ident) $body:block)*) => {
        mod sqlite {
            use super::*;
            $(#[tokio::test] async fn $name() { let $engine = Engine::Sqlite; $body })*
        }
        mod postgres {
            use super::*;
            $(#[tokio::test] async fn $name() { let $engine = Engine::Postgres; $body })*
        }
    };
}

mod webhooks {
    use super::*;

    both_engines! {
        events_arrive_signed_in_order_after_a_500_and_only_at_their_tenants_endpoints(engine) {
            let Some(app) = webhook_app(engine).await else { return };
            let receiver = app.url("/sandbox/v1/_sandbox/webhooks");
            let added = app.ledger.add_webhook_endpoint(&acme(), &admin(), &receiver, "*").await.unwrap();
            let globex = TenantId::parse("globex").unwrap();
            let other = app.ledger.add_webhook_endpoint(&globex, &admin(), &receiver, "*").await.unwrap();
            let answer = app
                .client
                .post(app.url("/sandbox/v1/_sandbox/webhooks/failures"))
                .bearer_auth(SANDBOX_KEY)
                .json(&json!({"times": 1}))
                .send()
                .await
                .unwrap();
            assert_eq!(answer.status(), 200);

            let (status, done) = app.post("/api/v1/tools/refund_item", &json!({"order_id": "1043", "line_item_id": "li_2"})).await;
            assert_eq!(status, 200, "{done}");
            let got = received_until(&app, |got| {
                got.iter().any(|w| w["answered"] == 200 && body(w)["type"] == "operation.succeeded")
            })
            .await;

            assert_eq!(got[0]["answered"], 500, "the first attempt was refused");
            let retried: Vec<&Value> = got.iter().filter(|w| w["webhook_id"] == got[0]["webhook_id"]).collect();
            assert_eq!(retried.len(), 2, "sent again under the same id: {got:#?}");
            assert_eq!(retried[1]["answered"], 200);
            let delivered: Vec<Value> =
                got.iter().filter(|w| w["answered"] == 200).map(body).filter(|b| b["data"]["tenant"] == "acme").collect();
            let states: Vec<&str> = delivered.iter().map(|b| b["data"]["state"].as_str().unwrap()).collect();
            assert_eq!(states, ["planned", "submitted", "succeeded"], "in the order they happened, none before an earlier one");
            let versions: Vec<i64> = delivered.iter().map(|b| b["data"]["version"].as_i64().unwrap()).collect();
            assert!(versions.windows(2).all(|pair| pair[0] < pair[1]), "{versions:?}");
            assert!(delivered.iter().all(|b| b["data"]["tenant"] == "acme" && b["data"]["op_id"] == "refund-1043-li_2"));
            assert_eq!(delivered[2]["data"]["amount_minor"], 38000);
            assert_eq!(delivered[2]["data"]["previous_state"], "submitted");

            let mut stored = Vec::new();
            for _ in 0..50 {
                stored = app.ledger.reads().webhook_deliveries(&acme(), &added.endpoint.id, 10).await.unwrap();
                if stored.iter().all(|d| d.status.as_str() == "delivered") {
                    break;
                }
                tokio::time::sleep(std::time::Duration::from_millis(100)).await;
            }
            assert_eq!(stored.len(), 3);
            assert!(stored.iter().all(|d| d.status.as_str() == "delivered"), "recorded once answered: {stored:#?}");
            let first = stored.iter().find(|d| d.event_type == "operation.planned").unwrap();
            assert_eq!((first.attempts, first.last_status), (2, Some(200)));
            let others = app.ledger.reads().webhook_deliveries(&globex, &other.endpoint.id, 10).await.unwrap();
            assert!(others.is_empty(), "globex's endpoint gets nothing of acme's: {others:#?}");
            // The same op id in the other tenant: its event goes to its own endpoint alone.
            assert_eq!(app.post_as(&app.other_token, "/api/v1/operations", &refund_1043(38000)).await.0, 201);
            let with_globex = received_until(&app, |got| got.iter().any(|w| body(w)["data"]["tenant"] == "globex")).await;
            let globex_events: Vec<Value> = with_globex.iter().map(body).filter(|b| b["data"]["tenant"] == "globex").collect();
            assert_eq!(globex_events.len(), 1, "{globex_events:#?}");
            assert_eq!(globex_events[0]["data"]["op_id"], "refund-1043-li_2");
            assert_eq!(globex_events[0]["data"]["idempotency_key"], "globex:refund-1043-li_2");
            let others = app.ledger.reads().webhook_deliveries(&globex, &other.endpoint.id, 10).await.unwrap();
            assert_eq!(others.len(), 1);
            let own = app.ledger.reads().webhook_deliveries(&acme(), &added.endpoint.id, 10).await.unwrap();
            assert_eq!(own.len(), 3, "acme's endpoint gets nothing of globex's");

            let Some(python) = python("standardwebhooks") else { return };
            let verified = run_client(python, "verify_webhooks.py", vec![added.secret.clone()], Value::from(got.clone()).to_string()).await;
            assert_eq!(verified.lines().count(), got.len(), "{verified}");
            assert!(verified.lines().last().unwrap().ends_with(" operation.succeeded"), "{verified}");
            let mut tampered = got[1].clone();
            tampered["body"] = Value::from(tampered["body"].as_str().unwrap().replace("38000", "99000"));
            let python = std::env::var_os("OPLEDGER_TEST_PYTHON").unwrap();
            let script = format!("{}/tests/clients/verify_webhooks.py", env!("CARGO_MANIFEST_DIR"));
            let refused = std::process::Command::new(python)
                .args([script, added.secret])
                .stdin(std::process::Stdio::piped())
                .stdout(std::process::Stdio::piped())
                .spawn()
                .and_then(|mut child| {
                    use std::io::Write;
                    child.stdin.take().unwrap().write_all(Value::from(vec![tampered]).to_string().as_bytes())?;
                    child.wait_with_output()
                })
                .unwrap();
            assert!(!refused.status.success(), "a changed body does not verify");
        }

        an_order_falling_into_partial_success_is_one_event(engine) {
            let Some(app) = webhook_app(engine).await else { return };
            let receiver = app.url("/sandbox/v1/_sandbox/webhooks");
            app.ledger.add_webhook_endpoint(&acme(), &admin(), &receiver, "order.partial_success").await.unwrap();
            for (line_item, outcome) in [("li_1", json!({"outcome": "succeeded", "external_id": "re_1"})), ("li_2", json!({"outcome": "rejected", "http_status": 409}))] {
                let mut request = refund_1043(100);
                let op_id = format!("refund-77-{line_item}");
                request["op_id"] = Value::from(op_id.clone());
                request["subject"] = Value::from("order:77");
                request["params"]["line_item"] = Value::from(line_item);
                assert_eq!(app.register(&request).await.0, 201);
                assert_eq!(app.begin_attempt(&op_id).await.0, 201);
                assert_eq!(app.report(&op_id, 1, &outcome).await.0, 200);
            }
            let got = received_until(&app, |got| !got.is_empty()).await;
            tokio::time::sleep(Duration::from_millis(500)).await;
            let got_later = received(&app).await;
            assert_eq!(got_later.len(), got.len(), "one event: {got_later:#?}");
            let event = body(&got[0]);
            assert_eq!(event["type"], "order.partial_success");
            assert_eq!(event["data"]["subject"], "order:77");
            assert_eq!(event["data"]["caused_by"], "refund-77-li_2", "the settling change that made it partial");
        }

        orders_settled_by_two_changes_at_once_each_make_one_partial_success_event(engine) {
            let Some(app) = webhook_app(engine).await else { return };
            let receiver = app.url("/sandbox/v1/_sandbox/webhooks");
            app.ledger.add_webhook_endpoint(&acme(), &admin(), &receiver, "order.partial_success").await.unwrap();
            let orders: Vec<String> = (0..8).map(|n| format!("9{n}")).collect();
            for order in &orders {
                for line_item in ["li_1", "li_2"] {
                    let mut request = refund_1043(100);
                    let op_id = format!("refund-{order}-{line_item}");
                    request["op_id"] = Value::from(op_id.clone());
                    request["subject"] = Value::from(format!("order:{order}"));
                    request["params"]["line_item"] = Value::from(line_item);
                    assert_eq!(app.register(&request).await.0, 201);
                    assert_eq!(app.begin_attempt(&op_id).await.0, 201);
                }
            }
            // Both operations of each order settle at the same moment: one succeeded, one refused.
            let settles = orders.iter().map(|order| {
                let app = &app;
                async move {
                    let (first, second) = (format!("refund-{order}-li_1"), format!("refund-{order}-li_2"));
                    let success = json!({"outcome": "succeeded", "external_id": format!("re_{order}")});
                    let refusal = json!({"outcome": "rejected", "http_status": 409});
                    let (a, b) = tokio::join!(app.report(&first, 1, &success), app.report(&second, 1, &refusal));
                    assert_eq!((a.0, b.0), (200, 200));
                }
            });
            futures::future::join_all(settles).await;
            let got = received_until(&app, |got| got.len() >= orders.len()).await;
            tokio::time::sleep(Duration::from_millis(500)).await;
            let got_later = received(&app).await;
            let mut subjects: Vec<String> = got_later.iter().map(|w| body(w)["data"]["subject"].as_str().unwrap().to_owned()).collect();
            subjects.sort();
            let expected: Vec<String> = orders.iter().map(|order| format!("order:{order}")).collect();
            assert_eq!(subjects, expected, "one event per order, none lost, none twice ({} at first)", got.len());
        }

        an_admin_adds_an_endpoint_sees_its_deliveries_and_sends_one_again(engine) {
            let Some(app) = webhook_app(engine).await else { return };
            let console = app.signed_in("alex", Role::Admin).await;
            let csrf = console.csrf().await;
            let receiver = app.url("/sandbox/v1/_sandbox/webhooks");
            let (status, answer) = console
                .call("add_webhook_endpoint", &[("csrf", &csrf), ("url", &receiver), ("events[0]", "operation.planned"), ("events[3]", "order.partial_success")])
                .await;
            assert_eq!(status, 200, "{answer}");
            assert!(answer.contains("whsec_"), "the secret is shown once: {answer}");
            let (status, refused) = console.call("add_webhook_endpoint", &[("csrf", &csrf), ("url", &receiver)]).await;
            assert_eq!(status, 422, "{refused}");
            assert!(refused.contains("at least one event type"), "{refused}");

            assert_eq!(app.register(&refund_1043(100)).await.0, 201);
            received_until(&app, |got| got.len() == 1).await;
            let endpoint = app.ledger.reads().webhook_endpoints(&acme()).await.unwrap().remove(0);
            assert_eq!(endpoint.event_types, ["operation.planned", "order.partial_success"]);
            let html = console.page("/admin/webhooks", 200).await;
            assert!(html.contains("data-testid=\"webhook-endpoint\"") && html.contains(&receiver), "{html}");
            assert!(html.contains("operation.planned") && html.contains("delivered"), "the delivery and its status show");
            let delivery = app.ledger.reads().webhook_deliveries(&acme(), &endpoint.id, 1).await.unwrap().remove(0);
            let (status, answer) = console.call("resend_webhook", &[("csrf", &csrf), ("id", &delivery.id)]).await;
            assert_eq!(status, 200, "{answer}");
            let got = received_until(&app, |got| got.len() == 2).await;
            assert_eq!(got[0]["webhook_id"], got[1]["webhook_id"], "the same event, sent again");
            let (status, _) = console.call("resend_webhook", &[("csrf", &csrf), ("id", "no-such-delivery")]).await;
            assert_eq!(status, 404);
            let (status, refused) = console.call("remove_webhook_endpoint", &[("csrf", &csrf), ("id", &endpoint.id)]).await;
            assert_eq!(status, 422, "not without a confirmation: {refused}");
            assert_eq!(app.ledger.reads().webhook_endpoints(&acme()).await.unwrap().len(), 1);
            let confirmed = [("csrf", csrf.as_str()), ("id", endpoint.id.as_str()), ("confirmed", "yes")];
            let (status, answer) = console.call("remove_webhook_endpoint", &confirmed).await;
            assert_eq!(status, 200, "{answer}");
            assert!(app.ledger.reads().webhook_endpoints(&acme()).await.unwrap().is_empty());
        }

        an_endpoint_is_refused_a_bad_url_or_event_type_and_is_removed_with_its_deliveries(engine) {
            let Some(app) = webhook_app(engine).await else { return };
            let refused = app.ledger.add_webhook_endpoint(&acme(), &admin(), "ftp://example.com", "*").await.unwrap_err();
            assert!(refused.to_string().contains("http or https"), "{refused}");
            let refused = app.ledger.add_webhook_endpoint(&acme(), &admin(), "https://example.com", "operation.unknwon").await.unwrap_err();
            assert!(refused.to_string().contains("is not an event type"), "{refused}");
            let added = app.ledger.add_webhook_endpoint(&acme(), &admin(), "http://127.0.0.1:9/closed", "*").await.unwrap();
            assert!(app.register(&refund_1043(100)).await.0 == 201);
            let deliveries = app.ledger.reads().webhook_deliveries(&acme(), &added.endpoint.id, 10).await.unwrap();
            assert_eq!(deliveries.len(), 1, "written with the change");
            let globex = TenantId::parse("globex").unwrap();
            let other_admin = Actor::human("gus", Role::Admin);
            let foreign = app.ledger.remove_webhook_endpoint(&globex, &other_admin, &added.endpoint.id).await;
            assert!(foreign.is_err(), "another tenant cannot remove it by its id");
            let foreign = app.ledger.resend_webhook_delivery(&globex, &other_admin, &deliveries[0].id).await;
            assert!(foreign.is_err(), "nor send its deliveries again");
            assert!(app.ledger.reads().webhook_delivery(&globex, &deliveries[0].id).await.unwrap().is_none());
            assert!(app.ledger.reads().webhook_endpoints(&globex).await.unwrap().is_empty());
            app.ledger.remove_webhook_endpoint(&acme(), &admin(), &added.endpoint.id).await.unwrap();
            assert_eq!(app.number("select count(*) from webhook_deliveries").await, 0);
            let again = app.ledger.remove_webhook_endpoint(&acme(), &admin(), &added.endpoint.id).await;
            assert!(again.is_err(), "it is gone");
        }
    }
}

/// An endpoint at an https address is reached over TLS (as are providers': one HTTP client crate):
/// the first byte at its port is a TLS handshake record, a ClientHello.
#[tokio::test]
async fn an_https_endpoint_is_spoken_to_in_tls() {
    use std::io::Read;
    let Some(app) = webhook_app(Engine::Sqlite).await else { return };
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let port = listener.local_addr().unwrap().port();
    let url = format!("https://127.0.0.1:{port}/hook");
    app.ledger.add_webhook_endpoint(&acme(), &admin(), &url, "*").await.unwrap();
    assert_eq!(app.register(&refund_1043(100)).await.0, 201);
    let (socket, _) = tokio::time::timeout(Duration::from_secs(20), listener.accept())
        .await
        .expect("the endpoint is called")
        .unwrap();
    let mut socket = socket.into_std().unwrap();
    socket.set_nonblocking(false).unwrap();
    socket.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
    let first = tokio::task::spawn_blocking(move || {
        let mut first = [0_u8; 1];
        socket.read_exact(&mut first).map(|()| first[0])
    })
    .await
    .unwrap()
    .expect("the endpoint is sent something");
    assert_eq!(first, 0x16, "a TLS handshake record");
}

/// The samples of an exposition as the Python parser read them: name and sorted labels to value.
type Samples = BTreeMap<(String, Vec<(String, String)>), f64>;

async fn scrape(app: &TestApp, python: std::ffi::OsString) -> Samples {
    let response = app.client.get(app.url("/metrics")).bearer_auth(METRICS_TOKEN).send().await.unwrap();
    assert_eq!(response.status(), 200);
    assert!(response.headers()["content-type"].to_str().unwrap().starts_with("text/plain; version=0.0.4"));
    let text = response.text().await.unwrap();
    let parsed = run_client(python, "parse_metrics.py", Vec::new(), text).await;
    parsed
        .lines()
        .map(|line| {
            let sample: Value = serde_json::from_str(line).unwrap();
            let labels = sample["labels"]
                .as_object()
                .unwrap()
                .iter()
                .map(|(name, value)| (name.clone(), value.as_str().unwrap().to_owned()))
                .collect();
            ((sample["name"].as_str().unwrap().to_owned(), labels), sample["value"].as_f64().unwrap())
        })
        .collect()
}

/// The sum of the samples named `name` whose labels include all of `labels`.
fn value(samples: &Samples, name: &str, labels: &[(&str, &str)]) -> f64 {
    samples
        .iter()
        .filter(|((sample, have), _)| {
            sample == name && labels.iter().all(|(k, v)| have.iter().any(|(hk, hv)| hk == k && hv == v))
        })
        .map(|(_, value)| value)
        .sum()
}

mod metrics {
    use super::*;

    both_engines! {
        a_scripted_story_reads_back_from_the_metrics(engine) {
            let Some(app) = TestApp::spawn_with(engine, |settings| {
                settings.sandbox = true;
                settings.provider_timeout = Duration::from_millis(2000);
                settings.reconcile_every = Some(Duration::from_millis(200));
                settings.settle_after = chrono::Duration::zero();
                settings.metrics_token = Some(METRICS_TOKEN.into());
            })
            .await else { return };
            let anonymous = app.get("/metrics").await;
            assert_eq!(anonymous.status(), 401);
            assert!(anonymous.headers().contains_key("www-authenticate"));
            let wrong = app.client.get(app.url("/metrics")).bearer_auth("guess").send().await.unwrap();
            assert_eq!(wrong.status(), 401);
            let admin_console = app.signed_in("alex", Role::Admin).await;
            assert_eq!(admin_console.get("/metrics").await.status(), 401, "a console session opens nothing there");

            // A refund whose answer never comes in time, settled by the reconciler.
            app.fault(json!({"match": "refund-1043-li_2", "fault": "drop_response", "ms": 10000})).await;
            let (_, first) = app.post("/api/v1/tools/refund_item", &json!({"order_id": "1043", "line_item_id": "li_2"})).await;
            assert_eq!(first["status"], "unknown", "{first}");
            let mut state = Value::Null;
            for _ in 0..100 {
                state = app.get_json("/api/v1/operations/refund-1043-li_2").await.1["state"].clone();
                if state == "succeeded" {
                    break;
                }
                tokio::time::sleep(Duration::from_millis(100)).await;
            }
            assert_eq!(state, "succeeded", "the reconciler found it");
            // An agent's refund over the approval threshold waits for a manager.
            let rule = opledger::domain::policy::ApprovalRule { kind: "refund".into(), provider: None, threshold: None };
            let record = opledger::server::store::records::ApprovalRuleRecord {
                id: "all".into(), rule, created_by: "alex".into(), created_at: chrono::Utc::now(),
            };
            app.ledger.add_approval_rule(&acme(), &admin(), record).await.unwrap();
            let mut waiting = refund_1043(5000);
            waiting["op_id"] = Value::from("refund-2001-li_1");
            waiting["subject"] = Value::from("order:2001");
            assert_eq!(app.register(&waiting).await.0, 201);
            let refused_sign_in = app.client.post(app.url("/login")).form(&[("username", "nobody"), ("password", "x"), ("csrf", "")]).send().await.unwrap();
            assert_eq!(refused_sign_in.status(), 303);

            let Some(python) = python("prometheus_client") else { return };
            let before = scrape(&app, python.clone()).await;
            let refunds = [("tenant", "acme"), ("kind", "refund"), ("provider", "stripe")];
            assert_eq!(value(&before, "opledger_operations", &[refunds[0], refunds[1], refunds[2], ("state", "succeeded")]), 1.0);
            assert_eq!(value(&before, "opledger_operations", &[refunds[0], ("state", "pending_approval")]), 1.0);
            assert_eq!(value(&before, "opledger_operations", &[refunds[0], ("state", "unknown")]), 0.0, "the settled one left unknown");
            assert_eq!(value(&before, "opledger_approvals_waiting", &[("tenant", "acme")]), 1.0);
            assert_eq!(value(&before, "opledger_attempts_total", &[("tenant", "acme"), ("provider", "stripe"), ("outcome", "timeout")]), 1.0);
            assert_eq!(value(&before, "opledger_transitions_total", &[("tenant", "acme"), ("from", "unknown"), ("to", "succeeded")]), 1.0);
            assert_eq!(value(&before, "opledger_transitions_total", &[("command", "approve")]), 0.0);
            assert!(value(&before, "opledger_provider_call_duration_seconds_count", &[("provider", "stripe")]) >= 1.0);
            assert!(value(&before, "opledger_reconciler_pass_duration_seconds_count", &[]) >= 1.0);
            assert_eq!(value(&before, "opledger_http_requests_total", &[("route", "/api/v1/tools/refund_item"), ("status", "200")]), 1.0);
            assert_eq!(value(&before, "opledger_sign_in_failures_total", &[("reason", "expired_form")]), 1.0);
            assert_eq!(value(&before, "opledger_oldest_operation_age_seconds", &[("tenant", "acme"), ("state", "unknown")]), 0.0);
            assert_eq!(value(&before, "opledger_webhook_backlog", &[]), 0.0);
            assert!(before.keys().any(|(name, labels)| name == "opledger_oldest_operation_age_seconds" && labels.iter().any(|(k, v)| k == "tenant" && v == "globex")));

            let approve = Command::Approve { reason: "checked".into(), valid_for: chrono::Duration::hours(1) };
            app.ledger
                .execute(&acme(), &OpId::parse("refund-2001-li_1").unwrap(), approve, &Actor::human("maria", Role::Manager), AttemptReport::default())
                .await
                .unwrap();
            let after = scrape(&app, python).await;
            assert_eq!(value(&after, "opledger_transitions_total", &[("tenant", "acme"), ("command", "approve"), ("from", "pending_approval"), ("to", "approved")]), 1.0);
            assert_eq!(value(&after, "opledger_approvals_waiting", &[("tenant", "acme")]), 0.0);
            assert_eq!(value(&after, "opledger_operations", &[refunds[0], ("state", "pending_approval")]), 0.0, "a count that fell to none reads 0");
        }

        the_metrics_address_serves_them_without_a_token_and_the_main_one_not_at_all(engine) {
            let Some(app) = TestApp::spawn_with(engine, |settings| {
                settings.metrics_addr = Some("127.0.0.1:0".parse().unwrap());
            })
            .await else { return };
            let main = app.get("/metrics").await;
            assert_eq!(main.status(), 404);
            assert!(main.text().await.unwrap().contains("--metrics-token"));
            assert_eq!(app.register(&refund_1043(100)).await.0, 201);
            let Some(addr) = app.metrics_addr else { panic!("the metrics address is bound") };
            let text = reqwest::get(format!("http://{addr}/metrics")).await.unwrap().text().await.unwrap();
            assert!(text.contains("opledger_operations{tenant=\"acme\",kind=\"refund\",provider=\"stripe\",state=\"planned\"} 1"), "{text}");
        }
    }
}

/// `serve` killed with SIGKILL after changes were committed and before their webhooks went out:
/// the next start delivers every one of them.
mod kill_between_change_and_delivery {
    use super::*;
    use std::process::{Child, Command as Process, Stdio};
    use std::sync::{Arc, Mutex};

    type Inbox = Arc<Mutex<Vec<(String, String, String, String)>>>;

    /// A webhook endpoint outside the server (which is killed): records id, timestamp, signature
    /// and body of every POST, answering 200.
    async fn start_receiver() -> (String, Inbox) {
        use axum::{body::Bytes, http::HeaderMap, routing::post, Router};
        let inbox: Inbox = Arc::default();
        let kept = inbox.clone();
        let router = Router::new().route(
            "/hook",
            post(move |headers: HeaderMap, body: Bytes| {
                let kept = kept.clone();
                async move {
                    let header = |name: &str| headers[name].to_str().unwrap().to_owned();
                    kept.lock().unwrap().push((
                        header("webhook-id"),
                        header("webhook-timestamp"),
                        header("webhook-signature"),
                        String::from_utf8(body.to_vec()).unwrap(),
                    ));
                    "ok"
                }
            }),
        );
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let url = format!("http://{}/hook", listener.local_addr().unwrap());
        tokio::spawn(async move { axum::serve(listener, router).await });
        (url, inbox)
    }

    fn opledger(args: &[&str]) -> String {
        let output = Process::new(env!("CARGO_BIN_EXE_opledger"))
            .args(args)
            .env("OPLEDGER_SECRET_KEY", SECRET_KEY)
            .output()
            .unwrap();
        assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
        String::from_utf8(output.stdout).unwrap()
    }

    async fn serve(database_url: &str, port: u16, deliver_every: &str) -> Child {
        let site = std::env::temp_dir();
        let child = Process::new(env!("CARGO_BIN_EXE_opledger"))
            .args(["serve", "--database-url", database_url, "--addr", &format!("127.0.0.1:{port}")])
            .args(["--site-root", &site.display().to_string(), "--reconcile-every", "0s"])
            .args(["--deliver-webhooks-every", deliver_every, "--allow-egress", "127.0.0.1"])
            .env("OPLEDGER_SECRET_KEY", SECRET_KEY)
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        for _ in 0..200 {
            if reqwest::get(format!("http://127.0.0.1:{port}/healthz")).await.is_ok_and(|r| r.status() == 200)
            {
                return child;
            }
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
        panic!("serve did not start");
    }

    both_engines! {
        no_webhook_is_lost(engine) {
            let Some(database) = TestDatabase::create(engine).await else { return };
            let url = database.url().to_owned();
            let (receiver, inbox) = start_receiver().await;
            opledger(&["migrate", "--database-url", &url]);
            opledger(&["tenant", "add", "--database-url", &url, "acme"]);
            let added = opledger(&["webhook", "add", "--database-url", &url, "--tenant", "acme", "--url", &receiver, "--events", "operation.planned", "--allow-egress", "127.0.0.1"]);
            let secret = added.lines().find_map(|line| line.split(": ").nth(1).filter(|s| s.starts_with("whsec_"))).expect("the secret is printed").to_owned();
            let listed = opledger(&["webhook", "list", "--database-url", &url, "--tenant", "acme"]);
            assert!(listed.contains(&receiver) && listed.contains("operation.planned"), "{listed}");
            let token = opledger(&["token", "create", "--database-url", &url, "--tenant", "acme", "--name", "agent-7"]).trim().to_owned();

            let port = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
            let mut first = serve(&url, port, "1h").await;
            let client = reqwest::Client::new();
            for n in 0..5 {
                let mut request = refund_1043(100);
                request["op_id"] = Value::from(format!("refund-{n}-li_1"));
                let answer = client.post(format!("http://127.0.0.1:{port}/api/v1/operations")).bearer_auth(&token).json(&request).send().await.unwrap();
                assert_eq!(answer.status(), 201);
            }
            first.kill().unwrap();
            first.wait().unwrap();
            assert!(inbox.lock().unwrap().is_empty(), "nothing was delivered before the kill");

            let mut second = serve(&url, port, "100ms").await;
            let mut delivered = Vec::new();
            for _ in 0..100 {
                delivered = inbox.lock().unwrap().clone();
                if delivered.len() >= 5 {
                    break;
                }
                tokio::time::sleep(Duration::from_millis(100)).await;
            }
            second.kill().unwrap();
            second.wait().unwrap();
            let ids: std::collections::BTreeSet<&str> = delivered.iter().map(|(id, ..)| id.as_str()).collect();
            assert_eq!(ids.len(), 5, "every change's event arrived after the restart: {delivered:#?}");
            for (id, timestamp, signature, body) in &delivered {
                let expected = opledger::server::ledger::webhooks::sign(&secret, id, timestamp.parse().unwrap(), body).unwrap();
                assert_eq!(signature, &expected, "signed with the endpoint's secret");
            }
            let removed = opledger(&["webhook", "list", "--database-url", &url, "--tenant", "acme"]);
            let id = removed.split('\t').next().unwrap().to_owned();
            opledger(&["webhook", "remove", "--database-url", &url, "--tenant", "acme", "--id", &id]);
            assert!(opledger(&["webhook", "list", "--database-url", &url, "--tenant", "acme"]).contains("no webhook endpoint"));
        }
    }
}
