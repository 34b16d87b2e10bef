//! API tokens as docs/ledger-api.md and docs/security.md promise them: a scope on every route (403
//! naming the scope a token lacks), expiry (401 like an unknown token), rotation with a grace for
//! the old secret, the last use written at most once a minute, revocation seen by another ledger
//! on the same database within a second, the tokens a user created revoked or reassigned, the
//! console's server functions for every role and two tenants, and the command line.

use std::time::{Duration, Instant};

use opledger::domain::api_token::{Expiry, Scopes};
use opledger::domain::ids::{Actor, TenantId};
use opledger::domain::policy::Role;
use opledger::server::app::router::route_list;
use opledger::server::http::ledger_api::scopes::{is_for_tokens, need_of, Need};
use opledger::server::ledger::tokens::TokenSpec;
use opledger::server::ledger::{Ledger, LedgerError};
use opledger::server::store::StoreError;
use reqwest::Method;
use serde_json::{json, Value};

use crate::support::{refund_1043, TestApp, PASSWORD};

const OP: &str = "refund-1043-li_2";

fn acme() -> TenantId {
    TenantId::parse("acme").unwrap()
}

fn admin() -> Actor {
    Actor::human("alex", Role::Admin)
}

/// A new token of `acme` named `name` with `scopes` (comma-separated), made by the console user
/// `user_id` when given.
async fn token(app: &TestApp, name: &str, scopes: &str, user_id: Option<&str>) -> String {
    let spec =
        TokenSpec { name: name.into(), scopes: Scopes::parse(scopes).unwrap(), expiry: Expiry::default() };
    app.ledger.create_token_with(&acme(), &spec, &admin(), user_id).await.expect("token").token
}

/// The status and JSON answer of `method path` with `token` (and an empty JSON body on a POST).
async fn call_as(app: &TestApp, token: &str, method: &Method, path: &str) -> (u16, Value) {
    let request = app.client.request(method.clone(), app.url(path)).bearer_auth(token);
    let request = match *method {
        Method::POST => request.header("accept", "application/json, text/event-stream").json(&json!({})),
        _ => request,
    };
    let response = request.send().await.expect("request");
    let status = response.status().as_u16();
    (status, response.json().await.unwrap_or(Value::Null))
}

/// The same path with its parameters filled in.
fn concrete(path: &str) -> String {
    path.replace("{op_id}", OP).replace("{subject}", "order:1043").replace("{attempt}", "1")
}

/// Whether a read with `token` is let in (`true`: 200, or 404 for an operation not registered),
/// or refused as unauthorized (`false`).
async fn reads_with(app: &TestApp, token: &str) -> bool {
    let (status, answer) = app.get_as(token, &format!("/api/v1/operations/{OP}")).await;
    assert!(matches!(status, 200 | 404 | 401), "a read answers 200, 404 or 401, not {status}: {answer}");
    status != 401
}

/// Waits up to the one-second bound (with slack) for `check` to hold.
async fn within_a_second<F, Fut>(what: &str, mut check: F)
where
    F: FnMut() -> Fut,
    Fut: std::future::Future<Output = bool>,
{
    let started = Instant::now();
    while !check().await {
        assert!(
            started.elapsed() < Duration::from_millis(1_500),
            "{what}: not so after {:?}",
            started.elapsed()
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

/// The id of `name`, a user of `tenant`.
async fn user_id(app: &TestApp, tenant: &str, name: &str) -> String {
    let users = app.ledger.reads().users_named(name, Some(&TenantId::parse(tenant).unwrap())).await.unwrap();
    users.into_iter().next().expect("the user exists").id
}

crate::engine_tests! {
    every_route_for_tokens_needs_its_scope(app) {
        assert_eq!(app.register(&refund_1043(38_000)).await.0, 201);
        let by_scope = [
            ("tools", token(&app, "tools-only", "tools", None).await),
            ("read", token(&app, "read-only", "read", None).await),
            ("write", token(&app, "write-only", "write", None).await),
        ];
        let routes: Vec<_> = route_list().into_iter().filter(|(_, path)| is_for_tokens(path)).collect();
        assert!(routes.iter().any(|(_, path)| path == "/mcp"), "MCP is among the routes");
        let mut failures = Vec::new();
        for (method, path) in &routes {
            let need = need_of(method, path).unwrap_or_else(|| panic!("{method} {path} has no scope rule"));
            let Need::Scope(needed) = need else { continue };
            for (scope, token) in &by_scope {
                let (status, answer) = call_as(&app, token, method, &concrete(path)).await;
                let code = answer["error"]["code"].as_str().unwrap_or_default().to_owned();
                let has = *scope == needed.as_str();
                let ok = if has {
                    status != 401 && code != "insufficient_scope" && status < 500
                } else {
                    status == 403 && code == "insufficient_scope" && answer["error"]["scope"] == needed.as_str()
                };
                if !ok {
                    failures.push(format!("{method} {path} with a {scope} token: {status} {answer}"));
                }
            }
        }
        assert!(failures.is_empty(), "{}", failures.join("\n"));

        // The refusal names the scope and says what to do, in the API's error shape.
        let (status, answer) = app.post_as(&by_scope[1].1, "/api/v1/operations", &refund_1043(100)).await;
        assert_eq!(status, 403);
        assert_eq!(answer["error"]["code"], "insufficient_scope");
        assert_eq!(answer["error"]["scope"], "write");
        assert!(answer["error"]["message"].as_str().unwrap().contains("`write`"), "{answer}");
        // MCP says so in its challenge too.
        let refused = app.client.post(app.url("/mcp")).bearer_auth(&by_scope[1].1)
            .header("accept", "application/json, text/event-stream")
            .json(&json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list"})).send().await.unwrap();
        assert_eq!(refused.status(), 403);
        assert!(refused.headers()["www-authenticate"].to_str().unwrap().contains("insufficient_scope"));
        // Tokens made before scopes (and the default) keep every scope.
        let (status, _) = app.post_as(&app.token, "/api/v1/operations", &refund_1043(38_000)).await;
        assert_eq!(status, 200, "the same intent again, with a token of every scope");
        // The OpenAPI document says which scope each operation needs, and its 403.
        let (_, doc) = app.get_json("/api/v1/openapi.json").await;
        let register = &doc["paths"]["/api/v1/operations"]["post"];
        assert!(register["responses"]["403"].is_object(), "{register}");
        assert!(register["description"].as_str().unwrap_or_default().contains("`write` scope"), "{register}");
    }

    an_expired_token_is_refused_like_an_unknown_one(app) {
        let spec = TokenSpec { name: "short".into(), scopes: Scopes::ALL, expiry: Expiry::Days(1) };
        let created = app.ledger.create_token_with(&acme(), &spec, &admin(), None).await.unwrap();
        let expires_at = created.expires_at.expect("an expiry");
        let in_a_day = chrono::Utc::now() + chrono::Duration::days(1);
        assert!((expires_at - in_a_day).num_seconds().abs() < 60, "{expires_at}");
        assert!(reads_with(&app, &created.token).await);
        let past = (chrono::Utc::now() - chrono::Duration::seconds(1)).timestamp_micros();
        app.tamper(&format!("update api_tokens set expires_at_us = {past} where name = 'short'")).await;
        within_a_second("the expired token is refused", || async { !reads_with(&app, &created.token).await }).await;
        let (status, answer) = app.get_as(&created.token, &format!("/api/v1/operations/{OP}")).await;
        assert_eq!((status, answer["error"]["code"].as_str()), (401, Some("unauthorized")), "as an unknown token is");

        for refused in [Expiry::Days(0), Expiry::Days(731)] {
            let spec = TokenSpec { name: "too-long".into(), scopes: Scopes::ALL, expiry: refused };
            let answer = app.ledger.create_token_with(&acme(), &spec, &admin(), None).await;
            assert!(matches!(answer, Err(LedgerError::InvalidField { field: "expires_in_days", .. })), "{answer:?}");
        }
        let never = TokenSpec { name: "forever".into(), scopes: Scopes::ALL, expiry: Expiry::Never };
        assert_eq!(app.ledger.create_token_with(&acme(), &never, &admin(), None).await.unwrap().expires_at, None);
    }

    a_rotated_token_keeps_its_old_secret_for_the_grace_only(app) {
        let old = token(&app, "rotating", "read", None).await;
        let new = app.ledger.rotate_token(&acme(), "rotating", 1, &admin()).await.unwrap();
        assert_ne!(old, new);
        assert!(reads_with(&app, &new).await, "the new secret works");
        assert!(reads_with(&app, &old).await, "the old one too, within its hour");
        let listed = app.ledger.tokens(&acme()).await.unwrap().into_iter().find(|t| t.name == "rotating").unwrap();
        assert!(listed.previous_valid_until.is_some() && listed.rotated_at.is_some());
        assert_eq!(listed.scopes, Scopes::parse("read").unwrap(), "a rotation keeps the scopes");
        let past = (chrono::Utc::now() - chrono::Duration::seconds(1)).timestamp_micros();
        app.tamper(&format!("update api_tokens set previous_valid_until_us = {past} where name = 'rotating'")).await;
        within_a_second("the old secret is refused once its grace is over", || async { !reads_with(&app, &old).await }).await;
        assert!(reads_with(&app, &new).await, "the new one still works");

        let newest = app.ledger.rotate_token(&acme(), "rotating", 0, &admin()).await.unwrap();
        assert!(!reads_with(&app, &new).await, "without grace, the replaced secret stops at once here");
        assert!(reads_with(&app, &newest).await);
        assert!(matches!(
            app.ledger.rotate_token(&acme(), "rotating", 169, &admin()).await,
            Err(LedgerError::InvalidField { field: "grace_hours", .. })
        ));
        assert!(matches!(
            app.ledger.rotate_token(&acme(), "no-such-token", 0, &admin()).await,
            Err(LedgerError::Store(StoreError::NotFound))
        ));
        app.ledger.revoke_token(&acme(), "rotating", "alex").await.unwrap();
        assert!(matches!(
            app.ledger.rotate_token(&acme(), "rotating", 0, &admin()).await,
            Err(LedgerError::Store(StoreError::NotFound))
        ), "a revoked token is not rotated back to life");

        let chain = serde_json::to_string(&app.ledger.audit_chain(&acme()).await.unwrap()).unwrap();
        assert!(chain.contains("rotate_api_token") && chain.contains("grace_hours"));
        for secret in [&old, &new, &newest] {
            assert!(!chain.contains(secret.as_str()), "no secret in the audit trail");
            let (_, after_prefix) = secret.split_at(17);
            assert!(!chain.contains(after_prefix), "no part of a secret in the audit trail");
        }
    }

    a_burst_of_calls_writes_the_last_use_once(app) {
        let agent = token(&app, "busy", "read", None).await;
        let last_use = "select coalesce(max(last_used_at_us), 0) from api_tokens where name = 'busy'";
        assert_eq!(app.number(last_use).await, 0, "never used");
        for _ in 0..20 {
            app.get_as(&agent, &format!("/api/v1/operations/{OP}")).await;
        }
        let started = Instant::now();
        while app.number(last_use).await == 0 {
            assert!(started.elapsed() < Duration::from_secs(5), "the last use is written");
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
        let listed = app.ledger.tokens(&acme()).await.unwrap().into_iter().find(|t| t.name == "busy").unwrap();
        assert_eq!(listed.last_used_from.as_deref(), Some("127.0.0.1"), "with the client's address");
        let used_at = listed.last_used_at.unwrap();
        assert!((chrono::Utc::now() - used_at).num_seconds() < 10);
        // Mark the row: any further write within the minute would overwrite the mark.
        app.tamper("update api_tokens set last_used_at_us = 1, last_used_from = 'mark' where name = 'busy'").await;
        for _ in 0..20 {
            app.get_as(&agent, &format!("/api/v1/operations/{OP}")).await;
        }
        tokio::time::sleep(Duration::from_millis(300)).await;
        assert_eq!(app.number(last_use).await, 1, "no second write within the minute: one write for the burst");
    }

    a_revocation_is_seen_by_another_ledger_within_a_second(app) {
        let agent = token(&app, "leaked", "tools", None).await;
        let elsewhere = Ledger::new(app.store.clone());
        assert!(elsewhere.authenticate(&agent).await.unwrap().is_some(), "the other ledger has read it");
        app.ledger.revoke_token(&acme(), "leaked", "alex").await.unwrap();
        assert!(app.ledger.authenticate(&agent).await.unwrap().is_none(), "at once where it was revoked");
        within_a_second("the other ledger refuses the revoked token", || async {
            elsewhere.authenticate(&agent).await.unwrap().is_none()
        }).await;
        // And a rotation without grace, likewise.
        let rotated = token(&app, "rotated", "tools", None).await;
        assert!(elsewhere.authenticate(&rotated).await.unwrap().is_some());
        app.ledger.rotate_token(&acme(), "rotated", 0, &admin()).await.unwrap();
        within_a_second("the other ledger refuses the replaced secret", || async {
            elsewhere.authenticate(&rotated).await.unwrap().is_none()
        }).await;
    }

    the_tokens_a_user_created_are_revoked_or_reassigned(app) {
        app.add_user("acme", "ann", Role::Admin).await;
        app.add_user("acme", "bob", Role::Admin).await;
        app.add_user("acme", "cy", Role::Admin).await;
        app.add_user("globex", "gus", Role::Admin).await;
        let (ann, bob, cy, gus) = (
            user_id(&app, "acme", "ann").await,
            user_id(&app, "acme", "bob").await,
            user_id(&app, "acme", "cy").await,
            user_id(&app, "globex", "gus").await,
        );
        let anns = [token(&app, "ann-1", "read", Some(&ann)).await, token(&app, "ann-2", "tools", Some(&ann)).await];
        let bobs = token(&app, "bob-1", "read", Some(&bob)).await;
        let from_cli = token(&app, "cli-1", "read", None).await;
        let globex = TenantId::parse("globex").unwrap();
        assert!(app.ledger.revoke_tokens_created_by(&globex, &ann, &admin()).await.unwrap().is_empty(), "another tenant's user id reaches nothing");

        let revoked = app.ledger.revoke_tokens_created_by(&acme(), &ann, &admin()).await.unwrap();
        assert_eq!(revoked.iter().map(|t| t.name.as_str()).collect::<Vec<_>>(), ["ann-1", "ann-2"]);
        for token in &anns {
            assert!(app.ledger.authenticate(token).await.unwrap().is_none(), "{token} is refused at once");
        }
        assert!(reads_with(&app, &bobs).await && reads_with(&app, &from_cli).await, "the others still work");
        assert!(app.ledger.revoke_tokens_created_by(&acme(), &ann, &admin()).await.unwrap().is_empty(), "again: nothing left");

        for (to, why) in [(gus.as_str(), "a user of another tenant"), ("no-such-user", "nobody")] {
            let refused = app.ledger.reassign_tokens(&acme(), &bob, to, &admin()).await;
            assert!(matches!(refused, Err(StoreError::NotFound)), "not to {why}: {refused:?}");
        }
        app.tamper(&format!("update users set status = 'deactivated' where id = '{ann}'")).await;
        assert!(matches!(app.ledger.reassign_tokens(&acme(), &bob, &ann, &admin()).await, Err(StoreError::NotFound)), "not to a deactivated user");
        let moved = app.ledger.reassign_tokens(&acme(), &bob, &cy, &admin()).await.unwrap();
        assert_eq!(moved.iter().map(|t| t.name.as_str()).collect::<Vec<_>>(), ["bob-1"]);
        assert!(app.ledger.revoke_tokens_created_by(&acme(), &bob, &admin()).await.unwrap().is_empty(), "bob's tokens are cy's now");
        assert!(reads_with(&app, &bobs).await, "a reassigned token keeps working");
        let listed = app.ledger.tokens(&acme()).await.unwrap().into_iter().find(|t| t.name == "bob-1").unwrap();
        assert_eq!((listed.created_by.as_str(), listed.created_by_user_id.as_deref()), ("cy", Some(cy.as_str())));

        let chain = app.ledger.audit_chain(&acme()).await.unwrap();
        let of = |action: &str| chain.iter().filter(|r| r.entry.action == action).map(|r| r.entry.evidence.clone()).collect::<Vec<_>>();
        let revocations: Vec<_> = of("revoke_api_token").into_iter().filter(|e| e["created_by_user_id"] == ann.as_str()).collect();
        assert_eq!(revocations.len(), 2, "one audit entry per token revoked: {revocations:?}");
        assert!(revocations.iter().all(|e| e["name"].as_str().unwrap().starts_with("ann-")));
        let reassigned = of("reassign_api_token");
        assert_eq!(reassigned.len(), 1);
        assert_eq!((reassigned[0]["name"].as_str(), reassigned[0]["to_user_id"].as_str()), (Some("bob-1"), Some(cy.as_str())));
        assert!(chain.iter().filter(|r| r.entry.action == "reassign_api_token").all(|r| r.entry.actor == "alex"));
    }

    only_admins_manage_tokens_in_the_console(app) {
        for role in [Role::Support, Role::Manager, Role::Auditor] {
            let console = app.signed_in(&format!("tokens-{}", role.as_str()), role).await;
            let csrf = console.csrf().await;
            for (function, form) in [
                ("api_tokens", vec![]),
                ("create_api_token", vec![("csrf", csrf.as_str()), ("name", "sneaky"), ("scopes[0]", "write")]),
                ("revoke_api_token", vec![("csrf", csrf.as_str()), ("name", "agent-7"), ("confirmed", "yes")]),
                ("rotate_api_token", vec![("csrf", csrf.as_str()), ("name", "agent-7"), ("grace_hours", "0"), ("confirmed", "yes")]),
            ] {
                let (status, body) = console.call(function, &form).await;
                assert_eq!(status, 403, "{function} as {}: {body}", role.as_str());
            }
        }
        assert!(reads_with(&app, &app.token).await, "agent-7 untouched");
        assert!(!app.ledger.tokens(&acme()).await.unwrap().iter().any(|t| t.name == "sneaky"));

        let admin = app.signed_in("ada", Role::Admin).await;
        let csrf = admin.csrf().await;
        let (status, body) = admin.call("create_api_token", &[
            ("csrf", csrf.as_str()), ("name", "console-agent"), ("scopes[0]", "read"), ("scopes[1]", "tools"), ("expires_in_days", "30"),
        ]).await;
        assert_eq!(status, 200, "{body}");
        let answer: String = serde_json::from_str(&body).unwrap();
        let secret = answer.split_whitespace().find(|word| word.starts_with("opl_")).expect("the secret, shown once").to_owned();
        assert!(reads_with(&app, &secret).await, "the secret works");
        let (status, _) = app.post_as(&secret, "/api/v1/operations", &refund_1043(100)).await;
        assert_eq!(status, 403, "without the write scope");

        let (status, body) = admin.call("api_tokens", &[]).await;
        assert_eq!(status, 200, "{body}");
        assert!(!body.contains(&secret), "the list never shows a secret");
        let page: Value = serde_json::from_str(&body).unwrap();
        let listed = page["tokens"].as_array().unwrap().iter().find(|t| t["name"] == "console-agent").cloned().unwrap();
        assert_eq!(listed["scopes"], json!(["tools", "read"]));
        assert_eq!(listed["created_by"], "ada");
        assert_eq!(listed["status"], "active");
        assert!(listed["expires_at"].is_string());
        assert!(page["tokens"].as_array().unwrap().iter().all(|t| t["name"] != "agent-9"), "no token of another tenant");
        let ada = user_id(&app, "acme", "ada").await;
        let stored = app.ledger.tokens(&acme()).await.unwrap().into_iter().find(|t| t.name == "console-agent").unwrap();
        assert_eq!(stored.created_by_user_id.as_deref(), Some(ada.as_str()), "the console user who created it");

        for (form, why) in [
            (vec![("csrf", csrf.as_str()), ("name", "no-scope")], "no scope"),
            (vec![("csrf", csrf.as_str()), ("name", "too-long"), ("scopes[0]", "read"), ("expires_in_days", "731")], "over two years"),
            (vec![("csrf", csrf.as_str()), ("name", "console-agent"), ("scopes[0]", "read")], "a name taken"),
            (vec![("csrf", csrf.as_str()), ("name", "bad"), ("scopes[0]", "admin")], "an unknown scope"),
        ] {
            let (status, body) = admin.call("create_api_token", &form).await;
            assert_eq!(status, 422, "{why}: {body}");
        }
        let (status, _) = admin.call("create_api_token", &[("csrf", "forged"), ("name", "forged"), ("scopes[0]", "read")]).await;
        assert_eq!(status, 403, "a forged CSRF token");

        let (status, body) = admin.call("revoke_api_token", &[("csrf", csrf.as_str()), ("name", "console-agent")]).await;
        assert_eq!(status, 422, "an unconfirmed revocation changes nothing: {body}");
        assert!(reads_with(&app, &secret).await);
        let (status, body) = admin.call("rotate_api_token", &[("csrf", csrf.as_str()), ("name", "console-agent"), ("grace_hours", "1"), ("confirmed", "yes")]).await;
        assert_eq!(status, 200, "{body}");
        let answer: String = serde_json::from_str(&body).unwrap();
        let rotated = answer.split_whitespace().find(|word| word.starts_with("opl_")).expect("the new secret").to_owned();
        assert!(reads_with(&app, &rotated).await && reads_with(&app, &secret).await, "both within the hour's grace");
        let (status, _) = admin.call("rotate_api_token", &[("csrf", csrf.as_str()), ("name", "console-agent"), ("grace_hours", "500"), ("confirmed", "yes")]).await;
        assert_eq!(status, 422, "a grace over a week");
        let (status, body) = admin.call("revoke_api_token", &[("csrf", csrf.as_str()), ("name", "console-agent"), ("confirmed", "yes")]).await;
        assert_eq!(status, 200, "{body}");
        assert!(!reads_with(&app, &rotated).await && !reads_with(&app, &secret).await, "revoked: both secrets refused at once");
        let (_, body) = admin.call("api_tokens", &[]).await;
        let page: Value = serde_json::from_str(&body).unwrap();
        let listed = page["tokens"].as_array().unwrap().iter().find(|t| t["name"] == "console-agent").cloned().unwrap();
        assert_eq!(listed["status"], "revoked");
    }

    a_tenants_admin_never_reaches_another_tenants_tokens(app) {
        app.add_user("globex", "gina", Role::Admin).await;
        let gina = app.console();
        gina.sign_in("gina", PASSWORD, "/").await;
        let csrf = gina.csrf().await;
        let (status, body) = gina.call("api_tokens", &[]).await;
        assert_eq!(status, 200, "{body}");
        let page: Value = serde_json::from_str(&body).unwrap();
        let names: Vec<_> = page["tokens"].as_array().unwrap().iter().map(|t| t["name"].as_str().unwrap().to_owned()).collect();
        assert_eq!(names, ["agent-9"], "globex's only");
        for (function, form) in [
            ("revoke_api_token", vec![("csrf", csrf.as_str()), ("name", "agent-7"), ("confirmed", "yes")]),
            ("rotate_api_token", vec![("csrf", csrf.as_str()), ("name", "agent-7"), ("grace_hours", "0"), ("confirmed", "yes")]),
        ] {
            let (status, body) = gina.call(function, &form).await;
            assert_eq!(status, 404, "{function} of acme's token by globex's admin: {body}");
        }
        assert!(reads_with(&app, &app.token).await, "acme's token untouched");
        let acme_tokens = app.ledger.tokens(&acme()).await.unwrap();
        let agent7 = acme_tokens.iter().find(|t| t.name == "agent-7").unwrap();
        assert!(agent7.revoked_at.is_none() && agent7.rotated_at.is_none());
        let (status, _) = gina.call("create_api_token", &[("csrf", csrf.as_str()), ("name", "agent-7"), ("scopes[0]", "read")]).await;
        assert_eq!(status, 200, "a name is the tenant's own: globex may use agent-7 too");
        assert!(app.ledger.tokens(&acme()).await.unwrap().len() == acme_tokens.len(), "nothing added to acme");
    }
}

/// The access page shows the tokens section, its empty state when a tenant has no token, and the form.
#[tokio::test]
async fn the_admin_page_lists_tokens_and_says_what_to_do_without_one() {
    let Some(app) = TestApp::spawn(crate::support::Engine::Sqlite).await else { return };
    let ada = app.signed_in("ada", Role::Admin).await;
    let html = ada.page("/admin/access", 200).await;
    assert!(
        html.contains("data-testid=\"api-tokens\"") && html.contains("agent-7"),
        "the section with acme's token"
    );
    assert!(html.contains("never used") && html.contains("data-testid=\"create-token\""));
    assert!(!html.contains("agent-9"), "no token of another tenant");
    app.add_user("initech", "ian", Role::Admin).await;
    let ian = app.console();
    ian.sign_in("ian", PASSWORD, "/").await;
    let html = ian.page("/admin/access", 200).await;
    assert!(html.contains("data-testid=\"tokens-empty\""), "the empty state says what to do");
}

mod cli {
    use std::process::Command;

    fn opledger(url: &str, args: &[&str]) -> (bool, String, String) {
        let output = Command::new(env!("CARGO_BIN_EXE_opledger"))
            .env_remove("OPLEDGER_DATABASE_URL")
            .args(args)
            .args(["--database-url", url])
            .output()
            .unwrap();
        (
            output.status.success(),
            String::from_utf8(output.stdout).unwrap(),
            String::from_utf8(output.stderr).unwrap(),
        )
    }

    #[test]
    fn the_command_line_creates_lists_rotates_and_revokes() {
        let dir = tempfile::tempdir().unwrap();
        let url = format!("sqlite://{}", dir.path().join("cli.db").display());
        let (ok, out, err) = opledger(&url, &["migrate"]);
        assert!(ok, "{out}{err}");
        let (ok, out, err) = opledger(&url, &["tenant", "add", "acme"]);
        assert!(ok && out.contains("Added the tenant acme"), "{out}{err}");
        let (ok, token, err) = opledger(
            &url,
            &[
                "token",
                "create",
                "--tenant",
                "acme",
                "--name",
                "reporting",
                "--scope",
                "read",
                "--expires-in-days",
                "30",
            ],
        );
        assert!(ok, "{err}");
        assert!(
            token.trim().starts_with("opl_") && err.contains("scopes read") && err.contains("expires"),
            "{token}{err}"
        );
        let (ok, _, err) =
            opledger(&url, &["token", "create", "--tenant", "acme", "--name", "pipeline", "--no-expiry"]);
        assert!(ok, "{err}");
        assert!(err.contains("never expires"), "{err}");
        for refused in [
            vec!["token", "create", "--tenant", "acme", "--name", "x", "--expires-in-days", "731"],
            vec!["token", "create", "--tenant", "acme", "--name", "x", "--scope", "admin"],
            vec![
                "token",
                "create",
                "--tenant",
                "acme",
                "--name",
                "x",
                "--expires-in-days",
                "5",
                "--no-expiry",
            ],
            vec!["token", "create", "--tenant", "acme", "--name", "reporting"],
            vec!["token", "rotate", "--tenant", "acme", "--name", "reporting", "--grace-hours", "169"],
        ] {
            let (ok, _, err) = opledger(&url, &refused);
            assert!(!ok, "{refused:?} is refused");
            assert!(!err.is_empty(), "{refused:?} says why");
        }
        let (ok, table, _) = opledger(&url, &["token", "list", "--tenant", "acme"]);
        assert!(ok);
        let lines: Vec<&str> = table.lines().collect();
        assert!(
            lines[0].starts_with("NAME") && lines[0].contains("LAST USE") && lines[0].contains("EXPIRES"),
            "{table}"
        );
        assert!(
            lines
                .iter()
                .any(|l| l.starts_with("pipeline") && l.contains("tools,read,write") && l.contains("never")),
            "{table}"
        );
        assert!(
            lines
                .iter()
                .any(|l| l.starts_with("reporting") && l.contains("never used") && l.ends_with("active")),
            "{table}"
        );
        let (ok, rotated, err) = opledger(
            &url,
            &["token", "rotate", "--tenant", "acme", "--name", "reporting", "--grace-hours", "24"],
        );
        assert!(
            ok && rotated.trim().starts_with("opl_") && rotated != token && err.contains("24 h"),
            "{rotated}{err}"
        );
        let (ok, table, _) = opledger(&url, &["token", "list", "--tenant", "acme"]);
        assert!(ok && table.contains("old secret until"), "{table}");
        let (ok, out, _) = opledger(&url, &["token", "revoke", "--tenant", "acme", "--name", "reporting"]);
        assert!(ok && out.contains("Revoked"));
        let (ok, table, _) = opledger(&url, &["token", "list", "--tenant", "acme"]);
        assert!(ok && table.lines().any(|l| l.starts_with("reporting") && l.ends_with("revoked")), "{table}");
        let (ok, _, err) = opledger(&url, &["token", "list", "--tenant", "nobody"]);
        assert!(!ok && err.contains("there is no tenant \"nobody\""), "{err}");
        opledger(&url, &["tenant", "add", "nobody"]);
        let (ok, out, _) = opledger(&url, &["token", "list", "--tenant", "nobody"]);
        assert!(ok && out.contains("no API tokens") && out.contains("opledger token create"), "{out}");
    }

    #[test]
    fn the_help_explains_scopes_expiry_and_grace() {
        let help = |args: &[&str]| {
            let output =
                Command::new(env!("CARGO_BIN_EXE_opledger")).args(args).arg("--help").output().unwrap();
            String::from_utf8(output.stdout).unwrap()
        };
        let create = help(&["token", "create"]);
        for expected in ["--scope", "tools", "read", "write", "--expires-in-days", "--no-expiry", "403"] {
            assert!(create.contains(expected), "token create --help lacks {expected}: {create}");
        }
        assert!(help(&["token", "rotate"]).contains("--grace-hours"));
        assert!(help(&["token"]).contains("list"));
    }
}
