//! The server's boundaries, tried as an attacker would: what the server sends is what the approval
//! policy saw (an operation renamed to slip past a rule is never sent by the server and waits for
//! people); the server's own provider account serves only the tenant it was named for; the URLs
//! tenants set reach public addresses only (each refused address class, a name that resolves to
//! one, a redirect to one, and the operator's exception, for provider connections, order sources
//! and webhook endpoints); undecodable bodies are 4xx on every server function and form; and a
//! live stream ends with its session on a busy tenant.

use chrono::Duration as ChronoDuration;
use serde_json::{json, Value};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::Duration;

use crate::support::{sandbox_refunds, Engine, TestApp};
use opledger::domain::connection::ProviderKind;
use opledger::domain::ids::{Actor, TenantId};
use opledger::domain::money::{Currency, Money};
use opledger::domain::policy::{ApprovalRule, Role, ANY_KIND};
use opledger::server::app::wiring::{self, ProviderSettings};
use opledger::server::clock::now;
use opledger::server::egress::Allowed;
use opledger::server::ledger::connections::NewConnection;
use opledger::server::ledger::reconciler::Reconciler;
use opledger::server::ledger::webhooks::WebhookDispatcher;
use opledger::server::store::records::ApprovalRuleRecord;

fn acme() -> TenantId {
    TenantId::parse("acme").unwrap()
}

/// The application with the sandbox mounted (the server's own account, which serves `acme`), and
/// a reconciler over its ledger pointed at that sandbox, run pass by pass.
async fn app(engine: Engine) -> Option<(TestApp, Reconciler)> {
    let app = TestApp::spawn_with(engine, |settings| {
        settings.sandbox = true;
        settings.provider_timeout = Duration::from_millis(2000);
    })
    .await?;
    let providers = ProviderSettings {
        tenants: vec![acme()],
        stripe_base_url: Some(app.url("/sandbox")),
        services_base_url: Some(app.url("/sandbox")),
        secret_key: "sk_test_sandbox".into(),
        timeout: Duration::from_millis(2000),
    };
    let reconciler =
        Reconciler::new(wiring::executor(app.ledger.clone(), &providers), ChronoDuration::zero());
    Some((app, reconciler))
}

async fn add_rule(app: &TestApp, id: &str, kind: &str) {
    let rule = ApprovalRule {
        kind: kind.into(),
        provider: Some("stripe".into()),
        threshold: Some(Money::new(100_000, Currency::parse("TWD").unwrap())),
    };
    let record = ApprovalRuleRecord { id: id.into(), rule, created_by: "alex".into(), created_at: now() };
    app.ledger.add_approval_rule(&acme(), &Actor::human("alex", Role::Admin), record).await.unwrap();
}

fn renamed(op_id: &str, kind: &str, provider: &str) -> Value {
    json!({
        "op_id": op_id, "kind": kind, "subject": "order:1051", "provider": provider,
        "params": {"payment_intent": "pi_1051", "amount": {"minor": 150_000, "currency": "TWD"}}
    })
}

/// An agent registers `body`, begins an attempt with a 1 s send deadline, reports a timeout and
/// goes quiet; the reconciler then takes the operation. Its state and last reason after that.
async fn agent_goes_quiet(app: &TestApp, reconciler: &Reconciler, body: &Value) -> Value {
    let op_id = body["op_id"].as_str().unwrap();
    let (status, registered) = app.register(body).await;
    assert_eq!(status, 201, "{registered}");
    assert_eq!(registered["state"], "planned", "{registered}");
    assert_eq!(app.begin_attempt_within(op_id, 1).await.0, 201);
    let (status, _) = app.report(op_id, 1, &json!({"outcome": "timeout"})).await;
    assert_eq!(status, 200);
    TestApp::wait_past(1).await;
    reconciler.reconcile_once().await.unwrap();
    let (_, operation) = app.get_json(&format!("/api/v1/operations/{op_id}")).await;
    operation
}

mod policy {
    use super::*;

    async fn a_renamed_refund_is_never_sent_by_the_server_and_waits_for_people(engine: Engine) {
        let Some((app, reconciler)) = app(engine).await else { return };
        add_rule(&app, "refunds", "refund").await;
        let (status, honest) = app.register(&renamed("refund-1051-li_1", "refund", "stripe")).await;
        assert_eq!(
            (status, honest["state"].as_str()),
            (201, Some("pending_approval")),
            "the rule sees a refund: {honest}"
        );

        for (op_id, kind, provider) in [
            ("manual-1051-li_1", "refund_manual", "stripe"),
            ("aftersale-v2-1051-li_1", "create_aftersale_v2", "sandbox"),
            ("refund-at-services-1051", "refund", "sandbox"),
        ] {
            let operation = agent_goes_quiet(&app, &reconciler, &renamed(op_id, kind, provider)).await;
            assert_eq!(operation["state"], "needs_review", "{kind} at {provider}: {operation}");
            let reason = operation["audit"]
                .as_array()
                .unwrap()
                .iter()
                .rev()
                .find_map(|e| e["reason"].as_str())
                .unwrap()
                .to_owned();
            assert!(reason.contains("opledger never sends it"), "{reason}");
            assert_eq!(
                operation["attempts"].as_array().unwrap().len(),
                1,
                "the server sent nothing of its own"
            );
        }
        assert!(sandbox_refunds(&app).await.is_empty(), "no money moved through the server");
        let console = app.signed_in("sam", Role::Support).await;
        let page = console.page("/operations/manual-1051-li_1", 200).await;
        assert!(page.contains("opledger never sends it itself"), "the page says who sends it");
    }

    async fn a_rule_by_provider_only_holds_every_kind_there(engine: Engine) {
        let Some((app, reconciler)) = app(engine).await else { return };
        add_rule(&app, "all-at-stripe", ANY_KIND).await;
        let (status, held) = app.register(&renamed("manual-1051-li_1", "refund_manual", "stripe")).await;
        assert_eq!((status, held["state"].as_str()), (201, Some("pending_approval")), "{held}");
        let (status, refused) = app.begin_attempt("manual-1051-li_1").await;
        assert_eq!(status, 409, "the agent may not send it either: {refused}");
        reconciler.reconcile_once().await.unwrap();
        assert!(sandbox_refunds(&app).await.is_empty());
    }

    async fn the_server_sends_what_it_bound_and_the_policy_saw(engine: Engine) {
        let Some((app, _)) = app(engine).await else { return };
        add_rule(&app, "refunds", "refund").await;
        let (status, answer) =
            app.post("/api/v1/tools/refund_item", &json!({"order_id": "1051", "line_item_id": "li_1"})).await;
        assert_eq!(
            (status, answer["status"].as_str()),
            (200, Some("pending_approval")),
            "TWD 1,890 needs a manager: {answer}"
        );
        let (_, operation) = app.get_json("/api/v1/operations/refund-1051-li_1").await;
        assert_eq!(operation["state"], "pending_approval");
        assert!(sandbox_refunds(&app).await.is_empty());
    }

    crate::on_both_engines!(
        a_renamed_refund_is_never_sent_by_the_server_and_waits_for_people,
        a_rule_by_provider_only_holds_every_kind_there,
        the_server_sends_what_it_bound_and_the_policy_saw,
    );
}

mod server_account {
    use super::*;

    async fn another_tenant_cannot_read_or_refund_through_the_servers_account(engine: Engine) {
        let Some(app) = TestApp::spawn_with(engine, |settings| {
            settings.demo = true;
            settings.default_tenants = Vec::new();
            settings.provider_timeout = Duration::from_millis(2000);
        })
        .await
        else {
            return;
        };
        let globex = app
            .ledger
            .create_token(&TenantId::parse("globex").unwrap(), "globex-agent", "test")
            .await
            .unwrap();
        let call = json!({"order_id": "1043", "line_item_id": "li_1"});
        let (status, answer) = app.post_as(&globex, "/api/v1/tools/refund_item", &call).await;
        assert_eq!(status, 503, "{answer}");
        assert_eq!(answer["error"]["code"], "provider_not_connected");
        let (status, answer) = app.post_as(&app.token, "/api/v1/tools/refund_item", &call).await;
        assert_eq!(status, 503, "acme is not the demo's tenant either: {answer}");
        let refunds = sandbox_refunds(&app).await;
        assert!(
            refunds.iter().all(|r| r["metadata"]["tenant"] == "demo"),
            "only the demo's own: {refunds:?}"
        );
        assert!(!refunds
            .iter()
            .any(|r| r["metadata"]["op_id"] == "refund-1043-li_1" && r["metadata"]["tenant"] != "demo"));
    }

    crate::on_both_engines!(another_tenant_cannot_read_or_refund_through_the_servers_account);
}

mod egress {
    use super::*;

    /// A listener on `ip` that counts the requests it gets and answers each with `status` and a
    /// `location` of `to`, if given.
    async fn listener(ip: &str, status: u16, to: Option<String>) -> (String, Arc<AtomicUsize>) {
        let socket = tokio::net::TcpListener::bind(format!("{ip}:0")).await.unwrap();
        let address = socket.local_addr().unwrap();
        let hits = Arc::new(AtomicUsize::new(0));
        let counted = hits.clone();
        let router = axum::Router::new().fallback(move || {
            let (counted, to) = (counted.clone(), to.clone());
            async move {
                counted.fetch_add(1, Ordering::SeqCst);
                let mut response = axum::http::Response::builder().status(status);
                if let Some(to) = to {
                    response = response.header("location", to);
                }
                response.body(axum::body::Body::from("{}")).unwrap()
            }
        });
        tokio::spawn(async move { axum::serve(socket, router).await });
        (format!("http://{address}"), hits)
    }

    /// The application with nothing allowed beyond public https addresses (or `allowed`).
    async fn strict(engine: Engine, allowed: Vec<Allowed>) -> Option<TestApp> {
        TestApp::spawn_with(engine, move |settings| {
            settings.allow_egress = allowed;
            settings.provider_timeout = Duration::from_millis(2000);
        })
        .await
    }

    async fn connect(app: &TestApp, name: &str, kind: ProviderKind, base_url: &str) -> Result<(), String> {
        let connection = NewConnection {
            name: name.into(),
            kind,
            base_url: base_url.into(),
            secret: "sk_test_x".into(),
            account: None,
            key_retention: None,
            description: None,
        };
        app.ledger
            .set_provider_connection(&acme(), &Actor::human("alex", Role::Admin), connection)
            .await
            .map_err(|e| e.to_string())
    }

    const REFUSED: [(&str, &str); 12] = [
        ("https://127.0.0.2/", "loopback"),
        ("https://10.0.0.5/admin", "private"),
        ("https://172.16.3.4/", "private"),
        ("https://169.254.169.254/latest/meta-data/", "link-local"),
        ("https://100.64.0.1/", "carrier-grade NAT"),
        ("https://224.0.0.1/", "multicast"),
        ("https://0.0.0.0/", "unspecified"),
        ("https://[::1]/", "loopback"),
        ("https://[fd00::1]/", "unique local"),
        ("https://[::ffff:10.0.0.5]/", "IPv4-mapped"),
        ("https://localhost/", "loopback"),
        ("http://93.184.216.34/", "plain http"),
    ];

    async fn every_refused_address_class_is_refused_at_save(engine: Engine) {
        let Some(app) = strict(engine, Vec::new()).await else { return };
        for (url, class) in REFUSED {
            for kind in [ProviderKind::Stripe, ProviderKind::Orders] {
                let refused =
                    connect(&app, if kind == ProviderKind::Orders { "orders" } else { "stripe" }, kind, url)
                        .await
                        .unwrap_err();
                assert!(refused.contains(class), "{url} as {kind:?}: {refused}");
            }
            let refused = app
                .ledger
                .add_webhook_endpoint(&acme(), &Actor::human("alex", Role::Admin), url, "*")
                .await
                .unwrap_err();
            assert!(refused.to_string().contains(class), "{url} as a webhook: {refused}");
        }
        assert!(
            app.ledger.reads().provider_connections(&acme()).await.unwrap().is_empty(),
            "nothing was saved"
        );
        assert!(
            connect(&app, "stripe", ProviderKind::Stripe, "https://api.stripe.com").await.is_ok(),
            "a public https address is"
        );
        let admin = app.signed_in("alex", Role::Admin).await;
        let csrf = admin.csrf().await;
        let (status, body) = admin
            .call(
                "set_provider_connection",
                &[
                    ("csrf", &csrf),
                    ("name", "stripe"),
                    ("kind", "stripe"),
                    ("base_url", "http://169.254.169.254/"),
                    ("secret", "s"),
                ],
            )
            .await;
        assert_eq!(status, 422, "{body}");
        assert!(body.contains("link-local"), "the admin is told why: {body}");
    }

    async fn a_url_saved_before_is_still_refused_at_connect_time(engine: Engine) {
        let Some(app) = strict(engine, Vec::new()).await else { return };
        let (internal, hits) = listener("127.0.0.2", 200, None).await;
        connect(&app, "stripe", ProviderKind::Stripe, "https://api.stripe.com").await.unwrap();
        app.tamper(&format!("update provider_connections set base_url = '{internal}' where tenant = 'acme'"))
            .await;
        let (status, answer) =
            app.post("/api/v1/tools/refund_item", &json!({"order_id": "1043", "line_item_id": "li_2"})).await;
        assert_eq!(status, 503, "{answer}");
        assert!(answer["error"]["message"].as_str().unwrap().contains("egress policy"), "{answer}");
        app.tamper("update provider_connections set base_url = 'http://localhost:9' where tenant = 'acme'")
            .await;
        app.tamper("update provider_connections set updated_at_us = updated_at_us + 1 where tenant = 'acme'")
            .await;
        let (status, answer) =
            app.post("/api/v1/tools/refund_item", &json!({"order_id": "1043", "line_item_id": "li_2"})).await;
        assert_eq!(status, 503, "a name that resolves to loopback: {answer}");
        assert_eq!(hits.load(Ordering::SeqCst), 0, "nothing reached the internal address");
    }

    async fn redirects_are_never_followed(engine: Engine) {
        let (internal, hits) = listener("127.0.0.2", 200, None).await;
        let (redirecting, redirected) =
            listener("127.0.0.1", 307, Some(format!("{internal}/latest/meta-data/"))).await;
        let allowed = Allowed::parse(redirecting.trim_start_matches("http://")).unwrap();
        let Some(app) = strict(engine, vec![allowed]).await else { return };
        connect(&app, "stripe", ProviderKind::Stripe, &redirecting).await.unwrap();
        let (status, _) =
            app.post("/api/v1/tools/refund_item", &json!({"order_id": "1043", "line_item_id": "li_2"})).await;
        assert_eq!(status, 503, "the shop's answer is a redirect, not an order");
        app.ledger
            .add_webhook_endpoint(
                &acme(),
                &Actor::human("alex", Role::Admin),
                &format!("{redirecting}/hook"),
                "*",
            )
            .await
            .unwrap();
        assert_eq!(app.register(&crate::support::refund_1043(38_000)).await.0, 201);
        WebhookDispatcher::new(app.ledger.clone(), Duration::from_secs(1)).pass().await.unwrap();
        assert!(redirected.load(Ordering::SeqCst) >= 2, "the allowed address was asked");
        assert_eq!(hits.load(Ordering::SeqCst), 0, "its redirect was not followed");
    }

    async fn the_operators_exception_is_the_only_way_in(engine: Engine) {
        let (receiver, received) = listener("127.0.0.1", 200, None).await;
        let (other, other_hits) = listener("127.0.0.1", 200, None).await;
        let allowed = Allowed::parse(receiver.trim_start_matches("http://")).unwrap();
        let Some(app) = strict(engine, vec![allowed]).await else { return };
        assert!(
            connect(&app, "orders", ProviderKind::Orders, &receiver).await.is_ok(),
            "the allowed address, over http"
        );
        let refused = connect(&app, "stripe", ProviderKind::Stripe, &other).await.unwrap_err();
        assert!(refused.contains("loopback"), "another port of the same address is not: {refused}");
        app.ledger
            .add_webhook_endpoint(
                &acme(),
                &Actor::human("alex", Role::Admin),
                &format!("{receiver}/hook"),
                "*",
            )
            .await
            .unwrap();
        assert!(app
            .ledger
            .add_webhook_endpoint(&acme(), &Actor::human("alex", Role::Admin), &format!("{other}/hook"), "*")
            .await
            .is_err());
        assert_eq!(app.register(&crate::support::refund_1043(38_000)).await.0, 201);
        let delivered =
            WebhookDispatcher::new(app.ledger.clone(), Duration::from_secs(1)).pass().await.unwrap();
        assert!(
            delivered >= 1 && received.load(Ordering::SeqCst) >= 1,
            "the allowed endpoint gets its events"
        );
        assert_eq!(other_hits.load(Ordering::SeqCst), 0);
    }

    crate::on_both_engines!(
        every_refused_address_class_is_refused_at_save,
        a_url_saved_before_is_still_refused_at_connect_time,
        redirects_are_never_followed,
        the_operators_exception_is_the_only_way_in,
    );
}

/// Random bytes and undecodable text posted to every server function and form route, signed in
/// and signed out, with and without a form's content type: never a 5xx.
#[tokio::test]
async fn undecodable_bodies_are_refused_in_words_never_with_a_5xx() {
    let Some(app) = TestApp::spawn(Engine::Sqlite).await else { return };
    let signed_in = app.signed_in("sam", Role::Support).await;
    let signed_out = app.console();
    let routes: Vec<String> = opledger::server::app::router::route_list()
        .into_iter()
        .filter(|(method, path)| {
            method == "POST" && (path.starts_with("/rpc/") || path == "/login" || path == "/logout")
        })
        .map(|(_, path)| path)
        .collect();
    assert!(routes.len() > 20, "{routes:?}");
    let mut seed = 0x2545_f491_4f6c_dd1d_u64;
    let mut random = |len: usize| -> Vec<u8> {
        (0..len)
            .map(|_| {
                seed ^= seed << 13;
                seed ^= seed >> 7;
                seed ^= seed << 17;
                (seed >> 24) as u8
            })
            .collect()
    };
    let mut bodies: Vec<Vec<u8>> = vec![
        b"subject=\xff".to_vec(),
        b"csrf=\xfe\xff&op_id=%ff%fe".to_vec(),
        b"\x00\x01\x02".to_vec(),
        Vec::new(),
    ];
    for len in [1, 7, 64, 700] {
        bodies.push(random(len));
    }
    let mut failures = Vec::new();
    for route in &routes {
        for (who, console) in [("signed in", &signed_in), ("signed out", &signed_out)] {
            for body in &bodies {
                for content_type in ["application/x-www-form-urlencoded", "application/json", "text/plain"] {
                    let response = console
                        .client
                        .post(format!("{}{route}", console.base()))
                        .header("content-type", content_type)
                        .body(body.clone())
                        .send()
                        .await
                        .unwrap();
                    let status = response.status().as_u16();
                    if status >= 500 {
                        let text = response.text().await.unwrap_or_default();
                        failures.push(format!(
                            "{route} {who} {content_type} {:?}: {status} {text}",
                            &body[..body.len().min(16)]
                        ));
                    }
                }
            }
        }
    }
    assert!(failures.is_empty(), "{} answers were 5xx:\n{}", failures.len(), failures.join("\n"));
}

/// A live stream on a tenant that changes every second stops within its session check's bound
/// (5 s) after sign-out.
#[tokio::test]
async fn a_busy_tenants_live_stream_ends_with_its_session() {
    let Some(app) = TestApp::spawn(Engine::Sqlite).await else { return };
    let console = app.signed_in("sam", Role::Support).await;
    let csrf = console.csrf().await;
    let mut stream = console.get("/live/operations").await;
    assert_eq!(stream.status(), 200);
    let busy = {
        let (client, url, token) = (app.client.clone(), app.url("/api/v1/operations"), app.token.clone());
        tokio::spawn(async move {
            for n in 0.. {
                let body = json!({"op_id": format!("note-{n}"), "kind": "note", "subject": "order:9", "provider": "stripe", "params": {"n": n}});
                let _ = client.post(&url).bearer_auth(&token).json(&body).send().await;
                tokio::time::sleep(Duration::from_millis(700)).await;
            }
        })
    };
    tokio::time::sleep(Duration::from_secs(2)).await;
    assert_eq!(console.post_form("/logout", &[("csrf", &csrf)]).await.status(), 303);
    let signed_out_at = std::time::Instant::now();
    let ended = tokio::time::timeout(Duration::from_secs(12), async {
        while stream.chunk().await.ok().flatten().is_some() {}
    })
    .await;
    busy.abort();
    assert!(ended.is_ok(), "the stream went on for 12 s after sign-out");
    assert!(signed_out_at.elapsed() < Duration::from_secs(7), "ended after {:?}", signed_out_at.elapsed());
}
