//! Security, tried as an attacker would: hostile ids and texts never become markup, the server
//! sends only what the provider's facts and the approval policy allow, sign-in returns only to
//! this site, every answer carries the browser's protections, sessions end when they should,
//! bad input gets words and a 4xx, and limits answer 429 with Retry-After.

use chrono::Utc;
use opledger::domain::{
    ids::{Actor, OpId, TenantId},
    machine::State,
    money::{Currency, Money},
    policy::{ApprovalRule, Role},
};
use opledger::server::store::records::ApprovalRuleRecord;
use scraper::{Html, Selector};
use serde_json::{json, Value};
use sha2::{Digest, Sha256};

use crate::support::{refund_1043, ProviderHarness, TestApp, PASSWORD};

/// Markup that runs script wherever it is written out unescaped: in a title, an element or an
/// attribute.
const HOSTILE: &str = "\"><img src=x onerror=alert(1)></title><script>alert(1)</script>";

fn acme() -> TenantId {
    TenantId::parse("acme").unwrap()
}

/// Fails when `html` holds an element that `HOSTILE` would have made: a script that is not the
/// bundle's (every one of which carries a nonce), or an element with an event handler.
fn assert_no_injected_markup(path: &str, html: &str) {
    let document = Html::parse_document(html);
    for script in document.select(&Selector::parse("script").unwrap()) {
        let text: String = script.text().collect();
        assert_ne!(text.trim(), "alert(1)", "{path}: an injected script runs");
        assert!(script.value().attr("nonce").is_some(), "{path}: a script without the page's nonce");
    }
    let handlers = Selector::parse("[onerror], [onload], [onclick]").unwrap();
    assert!(document.select(&handlers).next().is_none(), "{path}: an injected event handler");
    let title: String = document.select(&Selector::parse("title").unwrap()).flat_map(|t| t.text()).collect();
    assert!(!title.is_empty(), "{path}: the page has a title");
}

async fn add_refund_rule(app: &TestApp) {
    let rule = ApprovalRule {
        kind: "refund".into(),
        provider: Some("stripe".into()),
        threshold: Some(Money::new(100_000, Currency::parse("TWD").unwrap())),
    };
    let record =
        ApprovalRuleRecord { id: "r1".into(), rule, created_by: "alex".into(), created_at: Utc::now() };
    app.ledger.add_approval_rule(&acme(), &Actor::human("alex", Role::Admin), record).await.unwrap();
}

async fn state_and_reason(app: &TestApp, op_id: &str) -> (State, String) {
    let op_id = OpId::parse(op_id).unwrap();
    let history = app.ledger.reads().operation_history(&acme(), &op_id).await.unwrap().unwrap();
    let reasons: Vec<String> = history
        .audit
        .iter()
        .filter_map(|a| a.entry.reason.clone())
        .chain(history.attempts.iter().filter_map(|a| a.error.clone()))
        .collect();
    (history.operation.snapshot.state, reasons.join(" | "))
}

/// The session id the browser was given with `response`, and its hash as the store keeps it.
fn session_hash(response: &reqwest::Response) -> String {
    let id = response
        .headers()
        .get_all("set-cookie")
        .iter()
        .filter_map(|v| v.to_str().ok())
        .find_map(|v| v.strip_prefix("opledger_session="))
        .and_then(|v| v.split(';').next())
        .expect("a session cookie")
        .to_owned();
    hex::encode(Sha256::digest(id.as_bytes()))
}

crate::engine_tests! {
    hostile_ids_and_texts_never_become_markup(app) {
        let (status, body) = app.register(&json!({
            "op_id": "refund-1043-li_2", "kind": "refund", "subject": HOSTILE, "provider": "stripe",
            "params": {"payment_intent": "pi_1043", "amount": {"minor": 100, "currency": "TWD"}}
        })).await;
        assert_eq!(status, 422, "a subject with markup is refused at registration: {body}");
        assert!(body["error"]["message"].as_str().unwrap().contains("subject"), "{body}");
        let (status, body) = app.register(&json!({
            "op_id": HOSTILE, "kind": "refund", "subject": "order:1043", "provider": "stripe", "params": {}
        })).await;
        assert_eq!(status, 422, "{body}");

        let mut refund = refund_1043(38000);
        refund.as_object_mut().unwrap().remove("requested_by");
        refund["on_behalf_of"] = json!(HOSTILE.replace(['<', '>'], "_"));
        assert_eq!(app.register(&refund).await.0, 201);
        let (status, _) = app.post("/api/v1/operations/refund-1043-li_2/cancel", &json!({"reason": HOSTILE})).await;
        assert_eq!(status, 200, "a reason is free text");

        let encoded: String = HOSTILE.bytes().map(|b| format!("%{b:02X}")).collect();
        for role in [Role::Support, Role::Manager, Role::Auditor, Role::Admin] {
            let console = app.signed_in(&format!("user-{}", role.as_str()), role).await;
            for path in [
                "/".to_owned(),
                format!("/operations?state={encoded}&q={encoded}"),
                "/operations/refund-1043-li_2".to_owned(),
                format!("/operations/{encoded}"),
                format!("/orders?q={encoded}"),
                format!("/orders/{encoded}"),
                "/orders/order:1043".to_owned(),
                "/conflicts".to_owned(),
                "/approvals".to_owned(),
                "/reconcile".to_owned(),
                format!("/bulk/{encoded}"),
                format!("/audit?op_id={encoded}&actor={encoded}"),
                "/admin".to_owned(),
                format!("/nowhere/{encoded}"),
            ] {
                let response = console.get(&path).await;
                let html = response.text().await.unwrap();
                assert_no_injected_markup(&path, &html);
            }
        }
        let anonymous = app.console();
        for path in [format!("/login?next={encoded}&username={encoded}&error={encoded}"), format!("/login?next=%2F{encoded}")] {
            let html = anonymous.page(&path, 200).await;
            assert_no_injected_markup(&path, &html);
        }
    }

    the_server_never_sends_a_refund_in_another_currency_than_the_payment(app) {
        let provider = ProviderHarness::start(&app.ledger).await;
        add_refund_rule(&app).await;
        let mut usd = refund_1043(150_000);
        usd["params"]["amount"]["currency"] = json!("USD");
        let (status, body) = app.register(&usd).await;
        assert_eq!((status, body["state"].as_str()), (201, Some("planned")), "the TWD rule does not match USD: {body}");
        assert_eq!(app.begin_attempt_within("refund-1043-li_2", 1).await.0, 201, "the agent begins an attempt and goes quiet");
        TestApp::wait_past(1).await;

        provider.reconciler.reconcile_once().await.unwrap();
        let (state, reasons) = state_and_reason(&app, "refund-1043-li_2").await;
        assert_eq!(state, State::NeedsReview, "{reasons}");
        assert!(reasons.contains("recorded in USD but payment pi_1043 was made in TWD"), "{reasons}");
        assert!(provider.refunds().is_empty(), "nothing was refunded: {:?}", provider.refunds());

        let asked = reqwest::Client::new()
            .post(format!("{}/v1/refunds", provider.base_url))
            .bearer_auth("sk_test_x")
            .form(&[("payment_intent", "pi_1043"), ("amount", "100"), ("currency", "usd")])
            .send()
            .await
            .unwrap();
        assert_eq!(asked.status(), 400, "the provider refuses another currency too");
    }

    a_refund_goes_out_with_its_currency_and_never_beyond_what_is_left(app) {
        let provider = ProviderHarness::start(&app.ledger).await;
        app.register(&refund_1043(38_000)).await;
        let sent = provider.executor.run(&acme(), &OpId::parse("refund-1043-li_2").unwrap()).await.unwrap();
        assert_eq!(sent.operation.snapshot.state, State::Succeeded);
        let refunds = provider.refunds();
        assert_eq!(refunds.len(), 1);
        assert_eq!(refunds[0].currency.as_deref(), Some("TWD"));
        assert_eq!(refunds[0].metadata.get("line_item").map(String::as_str), Some("li_2"), "every recorded field is sent");

        let mut too_much = refund_1043(130_000);
        too_much["op_id"] = json!("refund-1043-li_1");
        app.register(&too_much).await;
        let refused = provider.executor.run(&acme(), &OpId::parse("refund-1043-li_1").unwrap()).await.unwrap();
        let (state, reasons) = state_and_reason(&app, "refund-1043-li_1").await;
        assert_eq!((refused.operation.snapshot.state, state), (State::Rejected, State::Rejected), "{reasons}");
        assert!(reasons.contains("not sent: the refund of TWD 1300.00 is more than the TWD 1200.00 left"), "{reasons}");
        assert_eq!(provider.refunds().len(), 1, "nothing more was refunded");
    }

    a_send_the_policy_now_asks_approval_for_is_not_made(app) {
        let provider = ProviderHarness::start(&app.ledger).await;
        let (_, body) = app.register(&refund_1043(120_000)).await;
        assert_eq!(body["state"], "planned", "no rule yet");
        add_refund_rule(&app).await;
        provider.executor.run(&acme(), &OpId::parse("refund-1043-li_2").unwrap()).await.unwrap();
        let (state, reasons) = state_and_reason(&app, "refund-1043-li_2").await;
        assert_eq!(state, State::Rejected, "{reasons}");
        assert!(reasons.contains("the approval policy asks a manager to approve it"), "{reasons}");
        assert!(provider.refunds().is_empty());
    }

    an_agent_request_is_its_tokens_whoever_it_names(app) {
        let mut refund = refund_1043(38_000);
        refund["requested_by"] = json!("maria");
        let (status, body) = app.register(&refund).await;
        assert_eq!(status, 201, "{body}");
        assert_eq!(body["requested_by"], "agent-7");
        let op_id = OpId::parse("refund-1043-li_2").unwrap();
        let history = app.ledger.reads().operation_history(&acme(), &op_id).await.unwrap().unwrap();
        assert_eq!(history.audit[0].entry.evidence["on_behalf_of"], "maria", "what it named is recorded, not trusted");
    }

    sign_in_returns_only_to_this_site(app) {
        app.add_user("acme", "sam", Role::Support).await;
        for (next, expected) in [
            ("/\t/evil.example/", "/"),
            ("/\\evil.example/", "/"),
            ("//evil.example/", "/"),
            ("/ops\r\nSet-Cookie: x=1", "/"),
            ("/operations?state=unknown", "/operations?state=unknown"),
        ] {
            let console = app.console();
            let response = console.sign_in("sam", PASSWORD, next).await;
            assert_eq!(response.status(), 303, "{next:?}");
            assert_eq!(response.headers()["location"], expected, "{next:?}");
        }
        app.add_user("acme", "ada", Role::Auditor).await;
        let refused = app.console().sign_in("ada", "wrong password", "/\t/evil.example/").await;
        let location = refused.headers()["location"].to_str().unwrap().to_owned();
        assert!(location.starts_with("/login?") && location.ends_with("next=%2F"), "{location}");
    }

    every_answer_carries_the_browsers_protections(app) {
        let console = app.signed_in("sam", Role::Support).await;
        let mut nonces = Vec::new();
        for _ in 0..2 {
            let response = console.get("/operations").await;
            let headers = response.headers().clone();
            let policy = headers["content-security-policy"].to_str().unwrap().to_owned();
            let nonce = policy.split("'nonce-").nth(1).and_then(|rest| rest.split('\'').next()).expect("a nonce").to_owned();
            assert!(policy.contains("'wasm-unsafe-eval'") && policy.contains("frame-ancestors 'none'"), "{policy}");
            assert!(!policy.contains("unsafe-inline"), "{policy}");
            assert_eq!(headers["x-content-type-options"], "nosniff");
            assert_eq!(headers["referrer-policy"], "same-origin");
            assert_eq!(headers["cache-control"], "no-store");
            assert!(headers.get("strict-transport-security").is_none(), "no HSTS over plain HTTP");
            let html = response.text().await.unwrap();
            let document = Html::parse_document(&html);
            let scripts: Vec<_> = document.select(&Selector::parse("script").unwrap()).collect();
            assert!(!scripts.is_empty());
            for script in scripts {
                assert_eq!(script.value().attr("nonce"), Some(nonce.as_str()), "every script carries the page's nonce");
            }
            nonces.push(nonce);
        }
        assert_ne!(nonces[0], nonces[1], "a nonce per response");
        for path in ["/healthz", "/api/v1/openapi.json", "/api/v1/nowhere"] {
            let response = app.get(path).await;
            assert_eq!(response.headers()["x-content-type-options"], "nosniff", "{path}");
            assert!(response.headers()["content-security-policy"].to_str().unwrap().starts_with("default-src 'none'"), "{path}");
        }
    }

    hsts_is_sent_when_the_console_is_served_over_https(app) {
        let secure = TestApp::spawn_with(app.database.engine(), |settings| settings.secure_cookies = true)
            .await
            .expect("a second application");
        let response = secure.get("/healthz").await;
        assert_eq!(response.headers()["strict-transport-security"], "max-age=31536000");
        assert!(app.get("/healthz").await.headers().get("strict-transport-security").is_none());
    }

    an_idle_session_expires_counting_from_its_last_request(app) {
        app.add_user("acme", "sam", Role::Support).await;
        let console = app.console();
        let signed_in = console.sign_in("sam", PASSWORD, "/").await;
        let hash = session_hash(&signed_in);
        let stored = app.store.load_session(&hash, Utc::now()).await.unwrap().expect("the session is stored");
        assert!(stored.contains("\"data\":{") && !stored.contains("\"seen\""), "{stored}");
        let last_seen_long_ago = stored.replacen("\"data\":{", "\"data\":{\"seen\":0,", 1);
        let almost_over = Utc::now() + chrono::Duration::minutes(1);
        app.store.save_session(&hash, &last_seen_long_ago, almost_over, None).await.unwrap();
        console.page("/operations", 200).await;
        let later = Utc::now() + chrono::Duration::minutes(10);
        assert!(app.store.load_session(&hash, later).await.unwrap().is_some(), "the request moved the expiry");
    }

    live_updates_end_with_the_session(app) {
        let console = app.signed_in("sam", Role::Support).await;
        let csrf = console.csrf().await;
        let mut stream = console.get("/live/operations").await;
        assert_eq!(stream.status(), 200);
        assert_eq!(console.post_form("/logout", &[("csrf", &csrf)]).await.status(), 303);
        let ended = tokio::time::timeout(std::time::Duration::from_secs(10), async {
            while stream.chunk().await.ok().flatten().is_some() {}
        })
        .await;
        assert!(ended.is_ok(), "the stream ends once the session is gone");
    }

    an_anonymous_visit_stores_no_session(app) {
        let console = app.console();
        for _ in 0..3 {
            let response = console.get("/login").await;
            let cookies: Vec<String> = response
                .headers()
                .get_all("set-cookie")
                .iter()
                .map(|v| v.to_str().unwrap().to_owned())
                .collect();
            assert!(cookies.iter().all(|c| !c.starts_with("opledger_session=")), "{cookies:?}");
            response.text().await.unwrap();
        }
        app.add_user("acme", "sam", Role::Support).await;
        let response = console.sign_in("sam", PASSWORD, "/").await;
        assert_eq!(response.headers()["location"], "/", "the sign-in cookie's token signs in");
    }

    a_name_is_unique_per_tenant_and_a_shared_one_signs_in_with_its_tenant(app) {
        app.add_user("acme", "sam", Role::Support).await;
        let globex = TenantId::parse("globex").unwrap();
        app.ledger.add_user(&globex, "sam", Role::Admin, "another long password", "test").await
            .expect("another tenant may use the name; its admin learns nothing of acme's");
        let refused = app.ledger.add_user(&acme(), "sam", Role::Manager, PASSWORD, "test").await;
        assert!(refused.unwrap_err().to_string().contains("exists already in this tenant"));

        let console = app.console();
        let without_tenant = console.sign_in("sam", PASSWORD, "/").await;
        let location = without_tenant.headers()["location"].to_str().unwrap().to_owned();
        assert!(location.contains("error=invalid"), "a shared name alone signs nobody in: {location}");
        let csrf = console.login_token().await;
        for (tenant, password, expected) in [("globex", PASSWORD, "error=invalid"), ("acme", PASSWORD, "/")] {
            let answer = console
                .post_form("/login", &[("username", "sam"), ("password", password), ("tenant", tenant), ("csrf", &csrf), ("next", "/")])
                .await;
            let location = answer.headers()["location"].to_str().unwrap().to_owned();
            assert!(location == expected || location.contains(expected), "{tenant}: {location}");
        }
        let (status, viewer) = console.call("who_am_i", &[]).await;
        assert_eq!(status, 200);
        assert!(viewer.contains("\"tenant\":\"acme\"") && viewer.contains("\"role\":\"support\""), "{viewer}");
    }

    bad_input_gets_a_4xx_with_words_and_no_internals(app) {
        let console = app.signed_in("sam", Role::Support).await;
        let (status, body) = console.call("act", &[("op_id", "refund-1043-li_2"), ("action", "cancel")]).await;
        assert!((400..500).contains(&status), "{status} {body}");
        assert!(body.contains("could not be read") && !body.contains("missing field"), "{body}");
        let bad_encoding = console
            .client
            .post(app.url("/rpc/act"))
            .header("content-type", "application/x-www-form-urlencoded")
            .body("csrf=%ZZ&op_id=%FF%FE")
            .send()
            .await
            .unwrap();
        let status = bad_encoding.status().as_u16();
        let body = bad_encoding.text().await.unwrap();
        assert!((400..500).contains(&status), "{status} {body}");
        let oversized = console
            .client
            .post(app.url("/rpc/act"))
            .header("content-type", "application/x-www-form-urlencoded")
            .body(format!("reason={}", "x".repeat(3 * 1024 * 1024)))
            .send()
            .await
            .unwrap();
        assert!((400..500).contains(&oversized.status().as_u16()), "{}", oversized.status());
        let garbled = console
            .client
            .post(app.url("/login"))
            .header("content-type", "application/json")
            .body("{\"username\": 1}")
            .send()
            .await
            .unwrap();
        assert_eq!(garbled.status(), 400);
        assert!(garbled.text().await.unwrap().contains("could not be read"));
    }

    api_calls_are_limited_per_address_and_token_with_retry_after(app) {
        let limited = TestApp::spawn_with(app.database.engine(), |settings| {
            settings.limits.api_calls_per_second = std::num::NonZeroU32::new(2).unwrap();
        })
        .await
        .expect("a second application");
        let mut statuses = Vec::new();
        for _ in 0..8 {
            statuses.push(limited.get_json("/api/v1/operations/refund-1043-li_2").await.0);
        }
        assert!(statuses.contains(&404) && statuses.contains(&429), "{statuses:?}");
        let response = limited.client.get(limited.url("/api/v1/operations/x")).bearer_auth(&limited.token).send().await.unwrap();
        assert_eq!(response.status(), 429);
        let wait: u64 = response.headers()["retry-after"].to_str().unwrap().parse().unwrap();
        assert!(wait >= 1, "{wait}");
        let body: Value = response.json().await.unwrap();
        assert_eq!(body["error"]["code"], "rate_limited");
    }
}

/// The real binary, serving with the sandbox mounted, its log lines collected as they come.
struct Served {
    server: std::process::Child,
    base: String,
    log: std::sync::Arc<std::sync::Mutex<Vec<String>>>,
    _dir: tempfile::TempDir,
}

impl Served {
    async fn start() -> Served {
        use std::io::BufRead;
        let dir = tempfile::tempdir().unwrap();
        let port = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
        let mut server = std::process::Command::new(env!("CARGO_BIN_EXE_opledger"))
            .args(["serve", "--sandbox", "--reconcile-every", "0s", "--addr", &format!("127.0.0.1:{port}")])
            .args(["--site-root", &dir.path().display().to_string()])
            .args(["--database-url", &format!("sqlite://{}", dir.path().join("served.db").display())])
            .env_remove("OPLEDGER_STRIPE_SECRET_KEY")
            .env("NO_COLOR", "1")
            .stderr(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        let log = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
        let lines = std::io::BufReader::new(server.stderr.take().unwrap());
        let collected = log.clone();
        std::thread::spawn(move || {
            for line in lines.lines().map_while(Result::ok) {
                collected.lock().unwrap().push(line);
            }
        });
        let base = format!("http://127.0.0.1:{port}");
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(30);
        while reqwest::get(format!("{base}/healthz")).await.is_err() {
            assert!(std::time::Instant::now() < deadline, "the server did not answer within 30 s");
            tokio::time::sleep(std::time::Duration::from_millis(100)).await;
        }
        Served { server, base, log, _dir: dir }
    }

    fn log(&self) -> Vec<String> {
        self.log.lock().unwrap().clone()
    }
}

impl Drop for Served {
    fn drop(&mut self) {
        let _ = self.server.kill();
        let _ = self.server.wait();
    }
}

#[tokio::test]
async fn a_sign_in_name_cannot_forge_a_log_line_and_the_mounted_sandbox_has_no_well_known_key() {
    let served = Served::start().await;
    let client = reqwest::Client::builder()
        .cookie_store(true)
        .redirect(reqwest::redirect::Policy::none())
        .build()
        .unwrap();
    let login = client.get(format!("{}/login", served.base)).send().await.unwrap().text().await.unwrap();
    let csrf = crate::support::hidden_field(&login, "csrf").expect("a sign-in token");
    let forged = "nobody\n2026-12-01T00:00:00Z  INFO FORGED signed in user=\"alex.admin\"";
    let answer = client
        .post(format!("{}/login", served.base))
        .form(&[("username", forged), ("password", "wrong password"), ("csrf", &csrf)])
        .send()
        .await
        .unwrap();
    assert_eq!(answer.status(), 303);
    tokio::time::sleep(std::time::Duration::from_millis(300)).await;
    let log = served.log();
    assert!(log.iter().any(|line| line.contains("sign-in refused")), "{log:#?}");
    assert!(
        log.iter().all(|line| !line.contains("FORGED") || line.contains("sign-in refused")),
        "a name wrote a line of its own: {log:#?}"
    );

    let well_known = client
        .get(format!("{}/sandbox/v1/_sandbox/ledger", served.base))
        .bearer_auth("sk_test_sandbox")
        .send()
        .await
        .unwrap();
    assert_eq!(well_known.status(), 401, "the old documented key opens nothing");
    let key = log
        .iter()
        .find_map(|line| line.split("its secret key is ").nth(1))
        .map(|rest| rest.split_whitespace().next().unwrap().trim_matches('"').to_owned())
        .expect("the key is logged at start");
    assert!(key.starts_with("sk_test_") && key.len() > 20, "{key}");
    let own = client
        .get(format!("{}/sandbox/v1/_sandbox/ledger", served.base))
        .bearer_auth(&key)
        .send()
        .await
        .unwrap();
    assert_eq!(own.status(), 200);
}
