//! Languages, set on the admin page: the tenant's customer language (what the tools tell customers
//! in when a call names no `locale`) and each user's console language, which shows from their next
//! sign-in. Only an admin may set either; the pages and the sign-in page otherwise speak the
//! language the browser asks for.

use opledger::domain::ids::TenantId;
use opledger::domain::language::Language;
use opledger::domain::policy::Role;

use crate::support::{Console, Engine, TestApp, PASSWORD};

fn acme() -> TenantId {
    TenantId::parse("acme").unwrap()
}

/// A page as a browser asking for `accept_language` gets it.
async fn page_in(console: &Console, path: &str, accept_language: &str) -> String {
    let response = console
        .client
        .get(format!("{}{path}", console.base()))
        .header("accept-language", accept_language)
        .send()
        .await
        .expect("request");
    assert_eq!(response.status().as_u16(), 200, "GET {path}");
    response.text().await.expect("body")
}

/// The stored console language of the tenant's user `name`.
async fn language_of(app: &TestApp, name: &str) -> Option<Language> {
    let users = app.ledger.reads().users_named(name, Some(&acme())).await.expect("users");
    users.first().unwrap_or_else(|| panic!("no user {name}")).language
}

/// The opening tag of the first `<option value="<value>"` in `html` from the byte `from` on.
fn option_tag<'a>(html: &'a str, from: usize, value: &str) -> &'a str {
    let marker = format!("<option value=\"{value}\"");
    let start = from + html[from..].find(&marker).unwrap_or_else(|| panic!("no option {value}"));
    &html[start..start + html[start..].find('>').unwrap()]
}

async fn an_admin_sets_the_customers_language_and_it_reads_back(engine: Engine) {
    let Some(app) = TestApp::spawn(engine).await else { return };
    let admin = app.signed_in("alex", Role::Admin).await;
    let csrf = admin.csrf().await;
    let (status, body) = admin.call("tenant_language", &[]).await;
    assert_eq!((status, body.as_str()), (200, "\"en\""), "English until an admin chooses another");

    let html = admin.page("/admin/policy", 200).await;
    let form = html.find("data-testid=\"tenant-language-form\"").expect("the customers' language form");
    assert!(html[form..].contains("data-testid=\"tenant-language\""), "its select");
    assert!(option_tag(&html, form, "en").contains("selected"), "English is chosen to begin with");

    let (status, body) = admin.call("set_tenant_language", &[("csrf", &csrf), ("language", "zh-TW")]).await;
    assert_eq!(status, 200, "{body}");
    assert!(body.contains("繁體中文"), "the answer names the language: {body}");
    assert_eq!(app.ledger.reads().tenant_language(&acme()).await.unwrap(), Some(Language::ZhTw));
    let (_, body) = admin.call("tenant_language", &[]).await;
    assert_eq!(body, "\"zh-TW\"");
    let html = admin.page("/admin/policy", 200).await;
    let form = html.find("data-testid=\"tenant-language-form\"").unwrap();
    assert!(option_tag(&html, form, "zh-TW").contains("selected"), "the page shows the choice");
    assert!(!option_tag(&html, form, "en").contains("selected"));

    for refused in ["fr", ""] {
        let (status, body) =
            admin.call("set_tenant_language", &[("csrf", &csrf), ("language", refused)]).await;
        assert_eq!(status, 422, "{refused:?}: {body}");
    }
    let (status, body) = admin.call("set_tenant_language", &[("csrf", "stale"), ("language", "zh-CN")]).await;
    assert_eq!(status, 403, "{body}");
    assert_eq!(app.ledger.reads().tenant_language(&acme()).await.unwrap(), Some(Language::ZhTw), "unchanged");
    let globex = app.ledger.reads().tenant_language(&TenantId::parse("globex").unwrap()).await.unwrap();
    assert_eq!(globex, None, "another tenant keeps its own");
}

async fn an_admin_sets_a_users_console_language_which_shows_from_their_next_sign_in(engine: Engine) {
    let Some(app) = TestApp::spawn(engine).await else { return };
    let admin = app.signed_in("alex", Role::Admin).await;
    let csrf = admin.csrf().await;
    app.add_user("acme", "sam", Role::Support).await;

    let html = admin.page("/admin", 200).await;
    let users = html.find("data-testid=\"users\"").expect("the users list");
    assert!(html[users..].contains("data-testid=\"user-language-form\""), "a language form per user");
    assert!(html[users..].contains("name=\"language\""));

    let (status, body) =
        admin.call("set_user_language", &[("csrf", &csrf), ("name", "sam"), ("language", "zh-TW")]).await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(language_of(&app, "sam").await, Some(Language::ZhTw));
    let html = admin.page("/admin", 200).await;
    let sam_row = html.find("value=\"sam\"").expect("sam's form");
    assert!(option_tag(&html, sam_row, "zh-TW").contains("selected"), "the list shows sam's language");

    let sam = app.console();
    assert_eq!(sam.sign_in("sam", PASSWORD, "/").await.headers()["location"], "/");
    let home = sam.page("/", 200).await;
    assert!(home.contains("<html lang=\"zh-TW\""), "sam's pages are in Traditional Chinese");
    for section in ["總覽", "操作", "訂單", "衝突", "對帳"] {
        assert!(home.contains(section), "the navigation names {section}");
    }
    assert!(!home.contains(">Orders<"), "and not in English");
    let html = page_in(&sam, "/orders", "en-US,en;q=0.9").await;
    assert!(html.contains("<html lang=\"zh-TW\""), "a user's choice outranks the browser's");

    let (status, body) =
        admin.call("set_user_language", &[("csrf", &csrf), ("name", "sam"), ("language", "")]).await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(language_of(&app, "sam").await, None, "back to the browser's");
    let again = app.console();
    assert_eq!(again.sign_in("sam", PASSWORD, "/").await.headers()["location"], "/");
    assert!(
        page_in(&again, "/", "zh-CN").await.contains("<html lang=\"zh-CN\""),
        "the browser decides again"
    );

    let (status, body) =
        admin.call("set_user_language", &[("csrf", &csrf), ("name", "nobody"), ("language", "zh-CN")]).await;
    assert_eq!(status, 404, "{body}");
    let (status, body) =
        admin.call("set_user_language", &[("csrf", &csrf), ("name", "sam"), ("language", "klingon")]).await;
    assert_eq!(status, 422, "{body}");

    let added = [
        ("csrf", csrf.as_str()),
        ("name", "eve"),
        ("role", "support"),
        ("password", PASSWORD),
        ("language", "zh-CN"),
    ];
    let (status, body) = admin.call("add_user", &added).await;
    assert_eq!(status, 200, "{body}");
    assert!(body.contains("can now sign in"), "{body}");
    assert_eq!(language_of(&app, "eve").await, Some(Language::ZhCn), "added with a language");
    let plain = [("csrf", csrf.as_str()), ("name", "ida"), ("role", "auditor"), ("password", PASSWORD)];
    assert_eq!(admin.call("add_user", &plain).await.0, 200, "the language is optional");
    assert_eq!(language_of(&app, "ida").await, None);
}

async fn a_support_user_cannot_set_languages(engine: Engine) {
    let Some(app) = TestApp::spawn(engine).await else { return };
    app.add_user("acme", "alex", Role::Admin).await;
    let support = app.signed_in("sam", Role::Support).await;
    let csrf = support.csrf().await;
    let (status, body) = support.call("tenant_language", &[]).await;
    assert_eq!(status, 403, "{body}");
    let (status, body) = support.call("set_tenant_language", &[("csrf", &csrf), ("language", "zh-TW")]).await;
    assert_eq!(status, 403, "{body}");
    let (status, body) =
        support.call("set_user_language", &[("csrf", &csrf), ("name", "alex"), ("language", "zh-CN")]).await;
    assert_eq!(status, 403, "{body}");
    let (status, body) =
        support.call("set_user_language", &[("csrf", &csrf), ("name", "sam"), ("language", "zh-CN")]).await;
    assert_eq!(status, 403, "not even their own, here (the header's menu is theirs): {body}");
    assert_eq!(app.ledger.reads().tenant_language(&acme()).await.unwrap(), None, "nothing changed");
    assert_eq!(language_of(&app, "alex").await, None);
    assert_eq!(language_of(&app, "sam").await, None);
}

async fn the_admin_and_sign_in_pages_speak_the_browsers_language(engine: Engine) {
    let Some(app) = TestApp::spawn(engine).await else { return };
    let visitor = app.console();
    let login = page_in(&visitor, "/login", "zh-CN,zh;q=0.9").await;
    assert!(login.contains("<html lang=\"zh-CN\"") && login.contains("登录 opledger"), "{login}");
    assert!(page_in(&visitor, "/login", "en").await.contains("Sign in to opledger"));

    let admin = app.signed_in("alex", Role::Admin).await;
    let mut html = String::new();
    for page in [
        "/admin",
        "/admin/access",
        "/admin/providers",
        "/admin/policy",
        "/admin/webhooks",
        "/admin/notifications",
        "/admin/retention",
    ] {
        html.push_str(&page_in(&admin, page, "zh-TW").await);
    }
    for words in [
        "核准政策",
        "服務商帳戶",
        "顧客 Email",
        "Webhook",
        "顧客語言",
        "此租戶的使用者",
        "新增使用者",
        "依瀏覽器設定",
        "登入與存取",
        "主控台工作階段",
        "保存期限與封存",
    ] {
        assert!(html.contains(words), "the admin page in Traditional Chinese has {words}");
    }
    for english in
        ["Approval policy", "Provider accounts", "Customers' language", "Add a user", "Sign-in and access", "Retention and the archive"]
    {
        assert!(!html.contains(english), "and not {english}");
    }
    let csrf = admin.csrf().await;
    let response = admin
        .client
        .post(format!("{}/rpc/add_approval_rule", admin.base()))
        .header("accept-language", "zh-TW")
        .form(&[("csrf", csrf.as_str()), ("kind", "refund"), ("threshold", "500"), ("currency", "")])
        .send()
        .await
        .unwrap();
    assert_eq!(response.status().as_u16(), 422);
    let body = response.text().await.unwrap();
    assert!(body.contains("金額門檻需要指定幣別"), "a refusal in the browser's language: {body}");
}

crate::on_both_engines!(
    an_admin_sets_the_customers_language_and_it_reads_back,
    an_admin_sets_a_users_console_language_which_shows_from_their_next_sign_in,
    a_support_user_cannot_set_languages,
    the_admin_and_sign_in_pages_speak_the_browsers_language,
);
