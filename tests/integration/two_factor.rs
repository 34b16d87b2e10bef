//! Two-factor sign-in (docs/security.md, docs/console.md): a person sets it up on their own
//! account page with codes computed by `pyotp` from the secret the page shows, independently of
//! the server; after that their password alone opens nothing, and the second step takes a current
//! code once or a recovery code once, within the sign-in limits. A tenant that requires it sends a
//! manager or admin without it to set it up and refuses them everything else. An admin resets it
//! for a person who lost their phone; another tenant's admin cannot. SSO users are not offered it.
//! Every change is audited, and no secret or code is kept in the clear.

use opledger::domain::ids::TenantId;
use opledger::domain::policy::Role;
use serde_json::{json, Value};

use crate::support::{hidden_field, python, run_client, Console, TestApp, PASSWORD};

/// The codes `pyotp` computes for `secret` at each of `at` (Unix seconds); `None` (the test is
/// skipped) without the test clients' Python.
async fn codes(secret: &str, at: &[i64]) -> Option<Vec<String>> {
    let python = python("pyotp")?;
    let printed =
        run_client(python, "totp_codes.py", vec![], json!({"secret": secret, "at": at}).to_string()).await;
    let answer: Value = serde_json::from_str(printed.trim()).expect("JSON from totp_codes.py");
    Some(answer["codes"].as_array().unwrap().iter().map(|code| code.as_str().unwrap().to_owned()).collect())
}

fn now() -> i64 {
    chrono::Utc::now().timestamp()
}

/// A code of six digits that is none of `codes`.
fn wrong_code(codes: &[String]) -> String {
    (0..10u32).map(|n| format!("{n}{n}{n}{n}{n}{n}")).find(|code| !codes.contains(code)).unwrap()
}

/// The session's CSRF token from the account page (which opens even before a required set-up).
async fn account_csrf(console: &Console) -> String {
    hidden_field(&console.page("/account", 200).await, "csrf").expect("the account page carries a CSRF token")
}

/// Sets up two-factor sign-in for the console's user: the secret the server shows, and the
/// recovery codes. `None` without the test clients' Python.
async fn enrol(console: &Console) -> Option<(String, Vec<String>)> {
    let csrf = account_csrf(console).await;
    let (status, body) = console.call("start_two_factor", &[("csrf", &csrf)]).await;
    assert_eq!(status, 200, "{body}");
    let started: Value = serde_json::from_str(&body).unwrap();
    let secret = started["secret"].as_str().unwrap().to_owned();
    let now_codes = codes(&secret, &[now() - 30, now(), now() + 30]).await?;
    let (status, body) =
        console.call("confirm_two_factor", &[("csrf", &csrf), ("code", &wrong_code(&now_codes))]).await;
    assert_eq!(status, 422, "a wrong first code turns nothing on: {body}");
    let (status, body) =
        console.call("confirm_two_factor", &[("csrf", &csrf), ("code", &now_codes[1])]).await;
    assert_eq!(status, 200, "{body}");
    let recovery: Vec<String> = serde_json::from_str(&body).unwrap();
    Some((secret, recovery))
}

/// Posts the second step's form with `code`; the response.
async fn second_step(console: &Console, code: &str) -> reqwest::Response {
    let html = console.page("/login/two-factor", 200).await;
    let csrf = hidden_field(&html, "csrf").expect("the second step's form carries a CSRF token");
    console.post_form("/login/two-factor", &[("csrf", &csrf), ("code", code)]).await
}

fn location(response: &reqwest::Response) -> String {
    response.headers()["location"].to_str().unwrap().to_owned()
}

/// Whether the console's session opens a page.
async fn opens_pages(console: &Console) -> bool {
    console.get("/conflicts").await.status().as_u16() == 200
}

async fn audit_actions(app: &TestApp, tenant: &str) -> Vec<Value> {
    let chain = app.ledger.audit_chain(&TenantId::parse(tenant).unwrap()).await.unwrap();
    chain.into_iter().map(|record| serde_json::to_value(&record.entry).unwrap()).collect()
}

crate::engine_tests! {
    after_the_password_a_current_code_signs_in_once(app) {
        let tess = app.signed_in("tess", Role::Support).await;
        let csrf = account_csrf(&tess).await;
        let (status, body) = tess.call("start_two_factor", &[("csrf", &csrf)]).await;
        assert_eq!(status, 200, "{body}");
        let started: Value = serde_json::from_str(&body).unwrap();
        let svg = started["qr_svg"].as_str().unwrap();
        assert!(svg.starts_with("<svg") && !svg.contains("style"), "a QR code without inline styles");
        let page = tess.page("/account", 200).await;
        let secret = started["secret"].as_str().unwrap().to_owned();
        assert!(page.contains("data-testid=\"two-factor-qr\"") && page.contains(&secret), "the page shows the code to scan and the key");

        let Some(python) = python("pyotp") else { return };
        let uri = started["uri"].as_str().unwrap();
        let parsed: Value = serde_json::from_str(
            run_client(python, "totp_codes.py", vec![], json!({"secret": secret, "at": [0], "uri": uri}).to_string()).await.trim(),
        )
        .unwrap();
        assert_eq!(parsed["uri"], json!({"secret": secret, "name": "tess@acme", "issuer": "opledger", "digits": 6, "interval": 30}));

        let at = now();
        let Some(now_codes) = codes(&secret, &[at, at + 30]).await else { return };
        let (status, body) = tess.call("confirm_two_factor", &[("csrf", &csrf), ("code", &now_codes[0])]).await;
        assert_eq!(status, 200, "{body}");
        let recovery: Vec<String> = serde_json::from_str(&body).unwrap();
        assert_eq!(recovery.len(), 10);
        let page = tess.page("/account", 200).await;
        assert!(page.contains("new-recovery-codes") && page.contains(&recovery[0]), "the recovery codes show once");
        let page = tess.page("/account", 200).await;
        assert!(!page.contains(&recovery[0]), "and only once");

        assert_eq!(app.number(&format!("select count(*) from users where two_factor_secret like '%{secret}%'")).await, 0, "sealed at rest");
        assert_eq!(app.number("select count(*) from users where two_factor_secret is not null").await, 1);
        assert_eq!(app.number("select count(*) from recovery_codes where used_at_us is null").await, 10);
        let plain = recovery[0].replace('-', "");
        assert_eq!(app.number(&format!("select count(*) from recovery_codes where code_hash like '%{plain}%'")).await, 0, "hashed");

        let again = app.console();
        let response = again.sign_in("tess", PASSWORD, "/approvals").await;
        assert_eq!(location(&response), "/login/two-factor", "the password leads to the second step");
        assert!(!opens_pages(&again).await, "the password alone opens no page");
        let (status, _) = again.call("overview", &[]).await;
        assert_eq!(status, 401, "nor any server function");
        let (status, _) = again.call("my_account", &[]).await;
        assert_eq!(status, 401);

        let response = second_step(&again, &now_codes[1]).await;
        assert_eq!(location(&response), "/approvals", "a current code starts the session and goes where the sign-in went");
        assert!(opens_pages(&again).await);

        let replay = app.console();
        assert_eq!(location(&replay.sign_in("tess", PASSWORD, "/").await), "/login/two-factor");
        let response = second_step(&replay, &now_codes[1]).await;
        assert_eq!(location(&response), "/login/two-factor?error=invalid", "a code used once is refused in its window");
        assert!(!opens_pages(&replay).await);
        let page = replay.page("/login/two-factor?error=invalid", 200).await;
        assert!(page.contains("not right, or it was used already"), "in words");

        let entries = audit_actions(&app, "acme").await;
        let enrolled = entries.iter().find(|entry| entry["action"] == "enrol_two_factor").expect("the set-up is audited");
        assert_eq!(enrolled["actor"], "tess");
        let trail = serde_json::to_string(&entries).unwrap();
        assert!(!trail.contains(&secret) && !trail.contains(&recovery[0]) && !trail.contains(&now_codes[1]), "no secret or code in the audit trail");
    }

    a_recovery_code_works_once_and_wrong_codes_meet_the_sign_in_limit(app) {
        let rita = app.signed_in("rita", Role::Manager).await;
        let Some((_, recovery)) = enrol(&rita).await else { return };
        let first = app.console();
        assert_eq!(location(&first.sign_in("rita", PASSWORD, "/").await), "/login/two-factor");
        let typed = recovery[0].to_uppercase().replace('-', " ");
        assert_eq!(location(&second_step(&first, &typed).await), "/", "a recovery code, however it is typed, signs in");
        assert!(opens_pages(&first).await);
        assert_eq!(app.number("select count(*) from recovery_codes where used_at_us is null").await, 9);

        let second = app.console();
        assert_eq!(location(&second.sign_in("rita", PASSWORD, "/").await), "/login/two-factor");
        assert_eq!(location(&second_step(&second, &recovery[0]).await), "/login/two-factor?error=invalid", "once");
        let over = second_step(&second, &recovery[1]).await;
        assert_eq!(over.status().as_u16(), 429, "wrong codes count against the sign-in limits");
        let wait: u64 = over.headers()["retry-after"].to_str().unwrap().parse().unwrap();
        assert!(wait >= 1, "{wait}");
        assert!(!opens_pages(&second).await);

        let entries = audit_actions(&app, "acme").await;
        assert_eq!(entries.iter().filter(|entry| entry["action"] == "use_recovery_code").count(), 1);
    }

    a_tenant_that_requires_it_lets_managers_without_it_do_nothing_but_set_it_up(app) {
        let ada = app.signed_in("ada", Role::Admin).await;
        let csrf = ada.csrf().await;
        let (status, body) = ada.call("set_two_factor_required", &[("csrf", &csrf), ("required", "on")]).await;
        assert_eq!(status, 200, "{body}");
        assert!(ada.page("/admin/access", 200).await.contains("must sign in with two-factor sign-in"));

        app.add_user("acme", "max", Role::Manager).await;
        let max = app.console();
        assert_eq!(location(&max.sign_in("max", PASSWORD, "/approvals").await), "/account", "straight to the set-up");
        for page in ["/", "/approvals", "/operations", "/admin"] {
            let response = max.get(page).await;
            assert_eq!((response.status().as_u16(), location(&response)), (303, "/account".to_owned()), "{page}");
        }
        assert!(max.page("/account", 200).await.contains("two-factor-must"));
        for function in ["overview", "approvals", "operations"] {
            let (status, body) = max.call(function, &[]).await;
            assert_eq!(status, 403, "{function}: {body}");
            assert!(body.contains("two_factor_first"), "{function} says why: {body}");
        }
        let live = max.get("/live/operations").await.status().as_u16();
        assert_eq!(live, 403, "no live stream either");

        let sue_console = {
            app.add_user("acme", "sue", Role::Support).await;
            let sue = app.console();
            assert_eq!(location(&sue.sign_in("sue", PASSWORD, "/").await), "/", "support is not required to");
            sue
        };
        assert!(opens_pages(&sue_console).await);

        let Some((secret, _)) = enrol(&max).await else { return };
        assert!(opens_pages(&max).await, "set up: everything the role allows opens");
        let (status, body) = max.call("approvals", &[]).await;
        assert_eq!(status, 200, "{body}");
        let csrf = account_csrf(&max).await;
        let Some(code) = codes(&secret, &[now() + 30]).await else { return };
        let (status, body) = max.call("turn_off_two_factor", &[("csrf", &csrf), ("code", &code[0])]).await;
        assert_eq!(status, 422, "it stays on while the tenant requires it: {body}");
        assert!(body.contains("stays on"), "{body}");

        let csrf = ada.csrf().await;
        let (status, body) = ada.call("set_two_factor_required", &[("csrf", &csrf), ("required", "off")]).await;
        assert_eq!(status, 200, "{body}");
        let entries = audit_actions(&app, "acme").await;
        let switches: Vec<_> = entries.iter().filter(|entry| entry["action"] == "set_two_factor_required").collect();
        assert_eq!(switches.len(), 2);
        assert_eq!(switches[0]["actor"], "ada");
        assert_eq!(switches[0]["evidence"]["required"], true);

        let (status, body) = max.call("turn_off_two_factor", &[("csrf", &account_csrf(&max).await), ("code", &code[0])]).await;
        assert_eq!(status, 200, "{body}");
        assert!(entries.len() < audit_actions(&app, "acme").await.len());
        assert!(audit_actions(&app, "acme").await.iter().any(|entry| entry["action"] == "turn_off_two_factor"));
    }

    an_admin_resets_a_lost_second_factor_and_another_tenants_admin_cannot(app) {
        let ada = app.signed_in("ada", Role::Admin).await;
        let lin = app.signed_in("lin", Role::Support).await;
        let Some(_) = enrol(&lin).await else { return };
        let (status, body) = ada.call("users", &[]).await;
        assert_eq!(status, 200);
        let users: Value = serde_json::from_str(&body).unwrap();
        let shown = users.as_array().unwrap().iter().find(|user| user["name"] == "lin").unwrap();
        assert_eq!(shown["two_factor"], true, "the people page shows who has it");
        let page = ada.page("/admin", 200).await;
        assert!(page.contains("value=\"reset_two_factor\""), "and offers the reset");

        app.add_user("globex", "gail", Role::Admin).await;
        let gail = app.console();
        assert_eq!(location(&gail.sign_in("gail", PASSWORD, "/").await), "/");
        let csrf = gail.csrf().await;
        let (status, _) = gail
            .call("change_person", &[("csrf", &csrf), ("name", "lin"), ("change", "reset_two_factor"), ("reason", "lost phone")])
            .await;
        assert_eq!(status, 404, "another tenant's admin finds nobody of that name");
        assert_eq!(app.number("select count(*) from users where name = 'lin' and two_factor_secret is not null").await, 1);

        let csrf = ada.csrf().await;
        let (status, _) = ada.call("change_person", &[("csrf", &csrf), ("name", "lin"), ("change", "reset_two_factor"), ("reason", " ")]).await;
        assert_eq!(status, 422, "a reason is needed");
        let (status, answer) = ada
            .call("change_person", &[("csrf", &csrf), ("name", "lin"), ("change", "reset_two_factor"), ("reason", "lost phone")])
            .await;
        assert_eq!(status, 200, "{answer}");
        assert!(answer.contains("lin") && answer.contains("session ended"), "{answer}");
        assert!(!opens_pages(&lin).await, "their sessions end");
        assert_eq!(app.number("select count(*) from users where name = 'lin' and two_factor_secret is not null").await, 0);
        assert_eq!(app.number("select count(*) from recovery_codes").await, 0);
        let entries = audit_actions(&app, "acme").await;
        let reset = entries.iter().find(|entry| entry["action"] == "reset_two_factor").expect("audited");
        assert_eq!((reset["actor"].as_str(), reset["reason"].as_str()), (Some("ada"), Some("lost phone")));

        let back = app.console();
        assert_eq!(location(&back.sign_in("lin", PASSWORD, "/").await), "/", "the password alone again, until they set it up anew");
    }

    sso_users_are_not_offered_two_factor(app) {
        let ada = app.signed_in("ada", Role::Admin).await;
        let sam = app.signed_in("sam", Role::Manager).await;
        app.tamper("update users set source = 'sso' where name = 'sam'").await;
        let page = sam.page("/account", 200).await;
        assert!(page.contains("two-factor-sso") && !page.contains("start-two-factor"), "no set-up offered");
        let csrf = account_csrf(&sam).await;
        let (status, body) = sam.call("start_two_factor", &[("csrf", &csrf)]).await;
        assert_eq!(status, 422, "{body}");
        assert!(body.contains("company account"), "{body}");
        let csrf = ada.csrf().await;
        let (status, body) = ada
            .call("change_person", &[("csrf", &csrf), ("name", "sam"), ("change", "reset_two_factor"), ("reason", "lost phone")])
            .await;
        assert_eq!(status, 422, "nothing to reset here: {body}");
        let page = ada.page("/admin", 200).await;
        assert!(!page.contains("value=\"reset_two_factor\""), "the people page does not offer it");
    }

    the_command_line_resets_a_second_factor_and_sets_the_tenant_switch(app) {
        let lin = app.signed_in("lin", Role::Support).await;
        let Some(_) = enrol(&lin).await else { return };
        let url = app.database.url().to_owned();
        let run = |args: &[&str]| {
            let output = std::process::Command::new(env!("CARGO_BIN_EXE_opledger"))
                .args(args)
                .args(["--database-url", &url])
                .env_remove("OPLEDGER_DATABASE_URL")
                .output()
                .unwrap();
            assert!(output.status.success(), "{args:?}: {}", String::from_utf8_lossy(&output.stderr));
            String::from_utf8(output.stdout).unwrap()
        };
        let listed = run(&["user", "list", "--tenant", "acme"]);
        let line = listed.lines().find(|line| line.starts_with("lin ")).expect("lin is listed");
        assert!(line.contains(" on "), "the list shows who has it: {listed}");

        let reset = run(&["user", "reset-two-factor", "--tenant", "acme", "--name", "lin", "--reason", "lost phone"]);
        assert_eq!(reset, "Turned off lin's two-factor sign-in; 1 open session(s) ended. They set it up again after their next sign-in.\n");
        assert!(!opens_pages(&lin).await);
        assert_eq!(app.number("select count(*) from users where two_factor_secret is not null").await, 0);

        let switched = run(&["user", "require-two-factor", "--tenant", "acme", "on"]);
        assert_eq!(switched, "Tenant acme now requires two-factor sign-in of its managers and admins.\n");
        assert!(app.ledger.two_factor_required(&TenantId::parse("acme").unwrap()).await.unwrap());
        let entries = audit_actions(&app, "acme").await;
        for action in ["reset_two_factor", "set_two_factor_required"] {
            let entry = entries.iter().find(|entry| entry["action"] == action).expect(action);
            assert_eq!(entry["actor"], "cli", "{action}");
        }
    }
}
