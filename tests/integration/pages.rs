//! The console over HTTP, as a browser without JavaScript sees it: sign-in, sessions, CSRF, the
//! role checks on every page and server function, tenant isolation, and the pages' content.

use crate::support::{hidden_field, refund_1043, PASSWORD};
use opledger::domain::policy::Role;
use serde_json::json;

const PAGES: [&str; 14] = [
    "/",
    "/search?q=1043",
    "/operations",
    "/operations/refund-1043-li_2",
    "/orders",
    "/orders/order:1043",
    "/approvals",
    "/reconcile",
    "/conflicts",
    "/audit",
    "/admin",
    "/bulk?state=unknown",
    "/bulk/some-run",
    "/no/such/page",
];

/// Every server function that reads or changes data, with arguments it accepts.
const SERVER_FUNCTIONS: [(&str, &[(&str, &str)]); 29] = [
    ("overview", &[]),
    ("operations", &[("filter[state]", "unknown")]),
    ("operation", &[("op_id", "refund-1043-li_2")]),
    ("orders", &[]),
    ("order", &[("subject", "order:1043")]),
    ("conflicts", &[]),
    ("audit_events", &[("filter[actor]", "sam")]),
    ("users", &[]),
    ("add_user", &[("csrf", "x"), ("name", "eve"), ("role", "admin"), ("password", "a long password")]),
    ("reconcile_queue", &[]),
    ("search", &[("q", "1043")]),
    ("operation_facets", &[]),
    ("act", &[("csrf", "x"), ("key", "k"), ("op_id", "refund-1043-li_2"), ("action", "confirm_found")]),
    ("approvals", &[]),
    (
        "compensate",
        &[("csrf", "x"), ("key", "k"), ("op_id", "aftersale-1043-li_2"), ("compensation", "cancel_ticket")],
    ),
    ("preview_bulk", &[("filter[state]", "unknown")]),
    ("start_bulk", &[("csrf", "x"), ("key", "k"), ("filter", "state=unknown")]),
    ("bulk_run", &[("id", "k")]),
    ("approval_rules", &[]),
    ("add_approval_rule", &[("csrf", "x"), ("kind", "refund")]),
    ("remove_approval_rule", &[("csrf", "x"), ("id", "r")]),
    ("request_answer", &[("key", "k")]),
    ("provider_connections", &[]),
    (
        "set_provider_connection",
        &[("csrf", "x"), ("name", "stripe"), ("kind", "stripe"), ("base_url", "http://x"), ("secret", "s")],
    ),
    ("remove_provider_connection", &[("csrf", "x"), ("name", "stripe")]),
    ("webhook_endpoints", &[]),
    ("add_webhook_endpoint", &[("csrf", "x"), ("url", "http://x"), ("events[0]", "operation.unknown")]),
    ("remove_webhook_endpoint", &[("csrf", "x"), ("id", "wh_1")]),
    ("resend_webhook", &[("csrf", "x"), ("id", "d")]),
];

crate::engine_tests! {
    a_signed_out_visitor_is_sent_to_sign_in_and_back(app) {
        let console = app.console();
        for page in PAGES {
            let response = console.get(page).await;
            assert_eq!(response.status(), 303, "GET {page}");
            let location = response.headers()["location"].to_str().unwrap().to_owned();
            let expected = format!("/login?{}", serde_urlencoded::to_string([("next", page)]).unwrap());
            assert_eq!(location, expected);
        }
        let response = console.get("/operations?state=unknown").await;
        assert_eq!(response.headers()["location"], "/login?next=%2Foperations%3Fstate%3Dunknown");

        app.add_user("acme", "sam", Role::Support).await;
        let response = console.sign_in("sam", PASSWORD, "/operations?state=unknown").await;
        assert_eq!(response.status(), 303);
        assert_eq!(response.headers()["location"], "/operations?state=unknown", "back to where they were going");
        let html = console.page("/operations?state=unknown", 200).await;
        assert!(html.contains("<title>Operations · opledger</title>"), "{html}");
    }

    every_server_function_refuses_a_signed_out_caller(app) {
        let console = app.console();
        for (function, args) in SERVER_FUNCTIONS {
            let (status, body) = console.call(function, args).await;
            assert_eq!(status, 401, "{function}: {body}");
            assert!(body.contains("signed_out"), "{function}: {body}");
        }
        let (status, body) = console.call("who_am_i", &[]).await;
        assert_eq!((status, body.as_str()), (200, "null"), "who_am_i says nobody, and nothing else");
        let live = console.get("/live/operations").await;
        assert_eq!(live.status(), 401);
    }

    signing_in_checks_the_password_and_starts_a_fresh_http_only_session(app) {
        app.add_user("acme", "maria", Role::Manager).await;
        let console = app.console();
        let first = console.get("/login").await;
        let cookie_before = first.headers()["set-cookie"].to_str().unwrap().to_owned();
        assert!(cookie_before.contains("HttpOnly"), "{cookie_before}");
        assert!(cookie_before.contains("SameSite=Strict"), "{cookie_before}");
        assert!(!cookie_before.contains("Secure"), "plain HTTP here: {cookie_before}");
        let html = first.text().await.unwrap();
        assert!(html.contains(r#"name="username""#) && html.contains(r#"name="password""#), "{html}");

        let wrong = console.sign_in("maria", "not her password", "/orders").await;
        let location = wrong.headers()["location"].to_str().unwrap().to_owned();
        assert_eq!(location, "/login?error=invalid&username=maria&next=%2Forders");
        let html = console.page(&location, 200).await;
        assert!(html.contains("That name and password do not match"), "the reason in words");
        assert!(html.contains(r#"value="maria""#), "the name is kept");
        let unknown = console.sign_in("nobody", PASSWORD, "/").await;
        assert!(unknown.headers()["location"].to_str().unwrap().starts_with("/login?error=invalid"), "no hint that the name does not exist");
        assert_eq!(console.get("/orders").await.status(), 303, "still signed out");

        let session_before = cookie_before.split(';').next().unwrap().to_owned();
        let right = console.sign_in("maria", PASSWORD, "//evil.example/").await;
        assert_eq!(right.headers()["location"], "/", "only local paths are followed");
        let cookie_after = right.headers()["set-cookie"].to_str().unwrap().to_owned();
        assert_ne!(cookie_after.split(';').next().unwrap(), session_before, "the session id changes at sign-in");
        let html = console.page("/orders", 200).await;
        assert!(html.contains("maria"), "the header says who is signed in");

        let csrf = hidden_field(&html, "csrf").unwrap();
        let refused = console.post_form("/logout", &[("csrf", "forged")]).await;
        assert_eq!(refused.status(), 403, "sign-out needs the session's token");
        let out = console.post_form("/logout", &[("csrf", &csrf)]).await;
        assert_eq!(out.headers()["location"], "/login?signed_out=1");
        assert_eq!(console.get("/orders").await.status(), 303, "signed out");
    }

    a_sign_in_without_the_forms_token_is_refused(app) {
        app.add_user("acme", "sam", Role::Support).await;
        let console = app.console();
        let response = console.post_form("/login", &[("username", "sam"), ("password", PASSWORD), ("next", "/")]).await;
        assert!(response.headers()["location"].to_str().unwrap().starts_with("/login?error=expired"));
        assert_eq!(console.get("/").await.status(), 303);
    }

    sign_in_attempts_are_limited_per_address_and_name_with_retry_after(app) {
        app.add_user("acme", "sam", Role::Support).await;
        let console = app.console();
        for _ in 0..5 {
            let response = console.sign_in("sam", "wrong password", "/").await;
            assert!(response.headers()["location"].to_str().unwrap().contains("error=invalid"));
        }
        let limited = console.sign_in("sam", PASSWORD, "/").await;
        assert_eq!(limited.status(), 429, "even the right password waits");
        let wait: u64 = limited.headers()["retry-after"].to_str().unwrap().parse().unwrap();
        assert!((1..=12).contains(&wait), "Retry-After: {wait}");
        assert!(limited.text().await.unwrap().contains("Too many sign-in attempts"));

        app.add_user("acme", "maria", Role::Manager).await;
        let other_name = console.sign_in("maria", PASSWORD, "/").await;
        assert_eq!(other_name.headers()["location"], "/", "one name's limit does not lock the others out");
        let elsewhere = app.console();
        let mut statuses = Vec::new();
        for n in 0..60 {
            let status = elsewhere.sign_in(&format!("nobody{n}"), "wrong password", "/").await.status().as_u16();
            statuses.push(status);
            if status == 429 {
                break;
            }
        }
        assert_eq!(statuses.last(), Some(&429), "password checks across many names are limited per address: {statuses:?}");
        assert!(statuses.len() <= 40, "the address's limit is 20 a minute: {statuses:?}");
    }

    roles_are_checked_on_the_server_for_pages_and_functions(app) {
        let support = app.signed_in("sam", Role::Support).await;
        for page in ["/admin", "/approvals", "/audit"] {
            let html = support.page(page, 403).await;
            assert!(html.contains("Your role does not allow this"), "{page}");
        }
        let (status, body) = support.call("users", &[]).await;
        assert_eq!(status, 403, "{body}");
        let csrf = support.csrf().await;
        let (status, _) = support.call("add_user", &[("csrf", &csrf), ("name", "eve"), ("role", "admin"), ("password", PASSWORD)]).await;
        assert_eq!(status, 403, "a support user cannot add an admin");
        let nav = support.page("/", 200).await;
        assert!(!nav.contains(r#"href="/admin""#), "and is not shown the link");

        let auditor = app.signed_in("ada", Role::Auditor).await;
        auditor.page("/audit", 200).await;
        auditor.page("/admin", 403).await;

        let admin = app.signed_in("alex", Role::Admin).await;
        let html = admin.page("/admin", 200).await;
        assert!(html.contains("sam") && html.contains("ada"), "the tenant's users");
        let csrf = admin.csrf().await;
        let (status, body) = admin.call("add_user", &[("csrf", "stale"), ("name", "eve"), ("role", "support"), ("password", PASSWORD)]).await;
        assert_eq!(status, 403, "{body}");
        assert!(body.contains("form_expired"), "{body}");
        let (status, body) = admin.call("add_user", &[("csrf", &csrf), ("name", "eve"), ("role", "support"), ("password", "short")]).await;
        assert_eq!(status, 422, "{body}");
        assert!(body.contains("at least 10 characters"), "{body}");
        let (status, body) = admin.call("add_user", &[("csrf", &csrf), ("name", "eve"), ("role", "support"), ("password", PASSWORD)]).await;
        assert_eq!(status, 200, "{body}");
        let eve = app.console();
        assert_eq!(eve.sign_in("eve", PASSWORD, "/").await.headers()["location"], "/");
    }

    a_user_sees_only_their_tenants_operations(app) {
        assert_eq!(app.register(&refund_1043(38000)).await.0, 201);
        let acme = app.signed_in("sam", Role::Support).await;
        let html = acme.page("/operations", 200).await;
        assert!(html.contains("refund-1043-li_2"), "{html}");
        let html = acme.page("/operations/refund-1043-li_2", 200).await;
        assert!(html.contains("NT$380") && html.contains("pi_1043"), "{html}");

        app.add_user("globex", "gina", Role::Admin).await;
        let globex = app.console();
        globex.sign_in("gina", PASSWORD, "/").await;
        let html = globex.page("/operations", 200).await;
        assert!(!html.contains("refund-1043-li_2"));
        assert!(html.contains("No operations yet"), "an empty state that says what to do");
        let html = globex.page("/operations/refund-1043-li_2", 404).await;
        assert!(html.contains("no operation refund-1043-li_2 in tenant globex"), "{html}");
        globex.page("/orders/order:1043", 404).await;
        let (status, _) = globex.call("operation", &[("op_id", "refund-1043-li_2")]).await;
        assert_eq!(status, 404, "the function refuses too");
    }

    the_list_pages_with_keysets_and_keeps_filters_in_the_url(app) {
        for n in 0..55 {
            let mut body = refund_1043(100 + n);
            body["op_id"] = json!(format!("refund-9{n:03}-li_1"));
            body["subject"] = json!(format!("order:9{n:03}"));
            assert_eq!(app.register(&body).await.0, 201);
        }
        assert_eq!(app.begin_attempt("refund-9007-li_1").await.0, 201);
        assert_eq!(app.report("refund-9007-li_1", 1, &json!({"outcome": "timeout"})).await.0, 200);

        let console = app.signed_in("sam", Role::Support).await;
        let rows = |html: &str| html.matches(r#"data-testid="operation-row""#).count();
        let html = console.page("/operations", 200).await;
        assert_eq!(rows(&html), 50);
        assert!(html.contains("refund-9054-li_1"), "newest first");
        let next = html.split(r#"data-testid="next-page""#).next().unwrap().rsplit("href=\"").next().unwrap().split('"').next().unwrap().replace("&amp;", "&");
        assert!(next.starts_with("/operations?after="), "{next}");
        let html = console.page(&next, 200).await;
        assert_eq!(rows(&html), 5);
        assert!(html.contains("refund-9000-li_1") && !html.contains("refund-9054-li_1"));
        assert!(!html.contains("next-page"), "the last page");

        let html = console.page("/operations?state=unknown", 200).await;
        assert_eq!(rows(&html), 1);
        assert!(html.contains("refund-9007-li_1"));
        assert!(html.contains(r#"value="unknown" checked"#), "the filter shows what is applied");
        let html = console.page("/operations?q=refund-9003-li_1", 200).await;
        assert_eq!(rows(&html), 1);
        assert_eq!(app.begin_attempt("refund-9010-li_1").await.0, 201);
        let found = json!({"outcome": "succeeded", "external_id": "re_found9010"});
        assert_eq!(app.report("refund-9010-li_1", 1, &found).await.0, 200);
        let mut theirs = refund_1043(100);
        theirs["op_id"] = json!("refund-9011-li_1");
        assert_eq!(app.post_as(&app.other_token, "/api/v1/operations", &theirs).await.0, 201);
        assert_eq!(app.post_as(&app.other_token, "/api/v1/operations/refund-9011-li_1/attempts", &json!(null)).await.0, 201);
        assert_eq!(app.post_as(&app.other_token, "/api/v1/operations/refund-9011-li_1/attempts/1/outcome", &found).await.0, 200);
        let html = console.page("/operations?q=re_found9010", 200).await;
        assert_eq!(rows(&html), 1, "found by its external id, and another tenant's with the same id is not");
        assert!(html.contains("refund-9010-li_1") && !html.contains("refund-9011-li_1"));
        let html = console.page("/operations?subject=order:9001&state=succeeded", 200).await;
        assert!(html.contains("No operation matches these filters"));
        let html = console.page("/operations?state=lost", 422).await;
        assert!(html.contains("There is no state named “lost”"), "{html}");
        let html = console.page("/operations?from=yesterday", 422).await;
        assert!(html.contains("is not a time"));
    }

    the_pages_show_the_operation_its_order_and_conflicts(app) {
        assert_eq!(app.register(&refund_1043(38000)).await.0, 201);
        assert_eq!(app.register(&refund_1043(20000)).await.0, 409);
        assert_eq!(app.begin_attempt("refund-1043-li_2").await.0, 201);
        assert_eq!(app.report("refund-1043-li_2", 1, &json!({"outcome": "timeout"})).await.0, 200);
        let console = app.signed_in("sam", Role::Support).await;

        let html = console.page("/operations/refund-1043-li_2", 200).await;
        for expected in ["data-testid=\"attempts\"", "No answer in time", "refund-1043-li_2", "Fingerprint", "left", "1 refused", "Re-send with the same key"] {
            assert!(html.contains(expected), "detail lacks {expected}");
        }
        let html = console.page("/orders/order:1043", 200).await;
        assert!(html.contains("pending confirmation"), "{html}");
        let html = console.page("/conflicts", 200).await;
        assert!(html.contains("data-testid=\"diff\""));
        assert!(html.contains("NT$380") && html.contains("NT$200"), "stored and requested side by side, in money");
        let html = console.page("/", 200).await;
        assert!(html.contains("<svg"), "charts are drawn on the server");
        assert!(html.contains(r#"data-testid="count-unknown""#));
        let html = console.page("/orders", 200).await;
        assert!(html.contains("order:1043"));
    }

    the_overview_charts_show_what_happened_in_the_tenant_alone(app) {
        use opledger::domain::{
            failure::FailureClass,
            ids::{Actor, AttemptNumber, OpId, TenantId},
            machine::{AttemptOutcome, Command},
            operation::AttemptReport,
        };
        const NOTHING_SETTLED: &str = "No operation has gone from unknown to settled in the last 7 days.";
        app.add_user("acme", "sam", Role::Support).await;
        app.add_user("globex", "gina", Role::Support).await;
        let (acme, globex) = (app.console(), app.console());
        acme.sign_in("sam", PASSWORD, "/").await;
        globex.sign_in("gina", PASSWORD, "/").await;

        assert_eq!(app.register(&refund_1043(38000)).await.0, 201);
        assert_eq!(app.post_as(&app.other_token, "/api/v1/operations", &refund_1043(38000)).await.0, 201);
        let (tenant, op_id) = (TenantId::parse("acme").unwrap(), OpId::parse("refund-1043-li_2").unwrap());
        let agent = Actor::agent("agent-7");
        app.ledger.execute(&tenant, &op_id, Command::BeginAttempt, &agent, AttemptReport::default()).await.unwrap();
        let timed_out = AttemptOutcome::Failed { failure: FailureClass::Timeout };
        let recorded = Command::RecordOutcome { attempt: AttemptNumber::FIRST, outcome: timed_out };
        app.ledger.execute(&tenant, &op_id, recorded, &agent, AttemptReport::default()).await.unwrap();
        let found = Command::ConfirmFound { external_id: "re_1043".into(), evidence: "found by lookup".into(), status: opledger::domain::machine::ProviderStatus::Succeeded };
        app.ledger.execute(&tenant, &op_id, found, &Actor::system("reconciler"), AttemptReport::default()).await.unwrap();

        let html = acme.page("/", 200).await;
        assert!(!html.contains(NOTHING_SETTLED), "the refund went from unknown to settled");
        let settled = html.split(r#"aria-label="Settled operations by time taken""#).nth(1).expect("the settling chart");
        let first_bar = settled.split("under 1 min</text>").nth(1).expect("its first bucket");
        assert!(first_bar.split("</text>").next().unwrap().ends_with(">1"), "one settled within a minute: {first_bar}");
        assert!(html.contains("1 succeeded, 0 not done, 0 uncertain, 0 not sent yet"), "this hour's bar holds the refund");
        let theirs = globex.page("/", 200).await;
        assert!(theirs.contains(NOTHING_SETTLED), "another tenant's chart holds none of it");
        assert!(theirs.contains("0 succeeded, 0 not done, 0 uncertain, 1 not sent yet"), "only its own planned refund");
    }

    live_updates_announce_changes_to_the_tenants_operations(app) {
        use futures::StreamExt;
        let console = app.signed_in("sam", Role::Support).await;
        let response = console.get("/live/operations").await;
        assert_eq!(response.status(), 200);
        assert_eq!(response.headers()["content-type"], "text/event-stream");
        let mut stream = response.bytes_stream();
        app.add_user("globex", "gina", Role::Support).await;
        let other_tenant = app.console();
        other_tenant.sign_in("gina", PASSWORD, "/").await;
        let mut other_stream = other_tenant.get("/live/operations").await.bytes_stream();
        assert_eq!(app.register(&refund_1043(38000)).await.0, 201);
        let mut received = String::new();
        let deadline = tokio::time::Instant::now() + std::time::Duration::from_secs(10);
        while !received.contains("event: changed") {
            let chunk = tokio::time::timeout_at(deadline, stream.next()).await.expect("an event within 10 s");
            received.push_str(&String::from_utf8_lossy(&chunk.unwrap().unwrap()));
        }
        let quiet_until = tokio::time::Instant::now() + std::time::Duration::from_secs(3);
        let mut other_received = String::new();
        while let Ok(Some(Ok(chunk))) = tokio::time::timeout_at(quiet_until, other_stream.next()).await {
            other_received.push_str(&String::from_utf8_lossy(&chunk));
        }
        assert!(!other_received.contains("event: changed"), "another tenant hears nothing: {other_received}");
    }

    instances_on_one_database_share_sessions(app) {
        use opledger::server::app::startup::{Application, Settings};
        let console = app.signed_in("sam", Role::Support).await;
        let settings = Settings::new(app.database.url(), "127.0.0.1:0".parse().unwrap());
        let second = Application::build(settings).await.expect("a second instance starts");
        let addr = second.local_addr();
        let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
        tokio::spawn(second.run_until(async move { let _ = stopped.await; }));
        let response = console.client.get(format!("http://{addr}/orders")).send().await.unwrap();
        assert_eq!(response.status(), 200, "the session made on one instance is valid on the other");
        let _ = stop.send(());
    }

    an_unknown_address_is_a_404_page(app) {
        let console = app.signed_in("sam", Role::Support).await;
        let html = console.page("/no/such/page", 404).await;
        assert!(html.contains("Page not found"));
    }
}
