//! The authorization matrix: every route the router lists (`route_list`), tried signed out, as
//! each role, as another tenant's user and token, and with a CSRF token that is not the
//! session's. Each route needs a rule here; a new route without one fails the test.

use opledger::domain::policy::Role;
use opledger::server::app::router::route_list;
use reqwest::Method;

use crate::support::{refund_1043, Console, PASSWORD};

const ROLES: [Role; 4] = [Role::Support, Role::Manager, Role::Auditor, Role::Admin];
const EVERYONE: &[Role] = &ROLES;
const READERS_OF_APPROVALS_AND_AUDIT: &[Role] = &[Role::Manager, Role::Auditor, Role::Admin];
const ADMIN: &[Role] = &[Role::Admin];
const OPERATORS: &[Role] = &[Role::Support, Role::Manager];
const READERS_OF_OPERATIONS: &[Role] = &[Role::Support, Role::Manager, Role::Auditor];

/// Who may use a route.
#[derive(Debug, Clone, Copy)]
enum Rule {
    /// Anyone, signed in or not.
    Public,
    /// A console page: signed out goes to sign-in; these roles see it; the others get 403.
    Page(&'static [Role]),
    /// A server function that reads: signed out 401; these roles; the others 403.
    Reads(&'static [Role]),
    /// A server function that changes something: as [`Rule::Reads`], and a CSRF token that is not
    /// the session's is refused with 403.
    Changes(&'static [Role]),
    /// A download or stream of the console: signed out is refused; these roles; the others 403.
    Download(&'static [Role]),
    /// The ledger API: a bearer token of the tenant, nothing without one.
    Api,
    /// Signing out and choosing one's own language: each needs the session's CSRF token (signed
    /// out, it goes to sign-in) and concerns only the signed-in user, whatever their role.
    SignOut,
    /// The metrics: a bearer token of their own (not served without one); a console session is
    /// worth nothing.
    Scrape,
    /// A provider's webhook, or an identity provider's back-channel logout: its signature is the
    /// only credential; without one it is refused (404 where no signing secret is set, 400 where
    /// one is or no identity provider is), whoever posts it.
    ProviderWebhook,
}

fn rule_for(method: &Method, path: &str) -> Option<Rule> {
    use Rule::*;
    Some(match (method.as_str(), path) {
        ("GET", "/healthz" | "/login" | "/login/two-factor" | "/password-reset" | "/api/v1/openapi.json") => {
            Public
        }
        ("POST", "/login" | "/login/two-factor" | "/password-reset") => Public,
        (
            "POST",
            "/rpc/sign_in_token" | "/rpc/who_am_i" | "/rpc/password_reset_for" | "/rpc/second_step_for",
        ) => Public,
        ("POST", "/login/sso" | "/rpc/company_sign_in") | ("GET", "/oidc/callback") => Public,
        ("POST", "/oidc/backchannel-logout/{tenant}") => ProviderWebhook,
        ("POST", "/logout" | "/language") => SignOut,
        ("GET", "/metrics") => Scrape,
        ("POST", "/webhooks/providers/{tenant}/{connection}") => ProviderWebhook,
        (_, api) if api.starts_with("/api/v1/") || api == "/mcp" => Api,
        (
            "GET",
            "/"
            | "/operations"
            | "/operations/{op_id}"
            | "/orders"
            | "/orders/{subject}"
            | "/conflicts"
            | "/reconcile"
            | "/search"
            | "/bulk/{id}"
            | "/account"
            | "/account/notifications",
        ) => Page(EVERYONE),
        ("GET", "/bulk") => Page(OPERATORS),
        ("GET", "/approvals" | "/audit") => Page(READERS_OF_APPROVALS_AND_AUDIT),
        (
            "GET",
            "/admin"
            | "/admin/access"
            | "/admin/providers"
            | "/admin/policy"
            | "/admin/webhooks"
            | "/admin/notifications"
            | "/admin/retention",
        ) => Page(ADMIN),
        ("GET", "/live/operations" | "/operations/export.csv" | "/operations/export.jsonl") => {
            Download(EVERYONE)
        }
        ("GET", "/audit/export.csv" | "/audit/export.jsonl") => Download(READERS_OF_APPROVALS_AND_AUDIT),
        (
            "POST",
            "/rpc/overview"
            | "/rpc/operations"
            | "/rpc/operation"
            | "/rpc/orders"
            | "/rpc/order"
            | "/rpc/conflicts"
            | "/rpc/reconcile_queue"
            | "/rpc/bulk_run"
            | "/rpc/request_answer"
            | "/rpc/search"
            | "/rpc/operation_facets"
            | "/rpc/my_account"
            | "/rpc/my_notifications",
        ) => Reads(EVERYONE),
        ("POST", "/rpc/preview_bulk") => Reads(OPERATORS),
        ("POST", "/rpc/approvals" | "/rpc/audit_events") => Reads(READERS_OF_APPROVALS_AND_AUDIT),
        (
            "POST",
            "/rpc/users"
            | "/rpc/approval_rules"
            | "/rpc/provider_connections"
            | "/rpc/email_templates"
            | "/rpc/webhook_endpoints"
            | "/rpc/tenant_language"
            | "/rpc/session_settings"
            | "/rpc/api_tokens"
            | "/rpc/sso_settings"
            | "/rpc/two_factor_requirement"
            | "/rpc/notification_settings"
            | "/rpc/retention",
        ) => Reads(ADMIN),
        (
            "POST",
            "/rpc/act"
            | "/rpc/compensate"
            | "/rpc/start_bulk"
            | "/rpc/retry_after_failure"
            | "/rpc/hold"
            | "/rpc/add_note"
            | "/rpc/edit_note",
        ) => Changes(OPERATORS),
        ("POST", "/rpc/saved_views") => Reads(EVERYONE),
        ("GET", "/views/{id}") => Download(EVERYONE),
        ("POST", "/rpc/save_view" | "/rpc/remove_view") => Changes(READERS_OF_OPERATIONS),
        (
            "POST",
            "/rpc/start_two_factor"
            | "/rpc/confirm_two_factor"
            | "/rpc/turn_off_two_factor"
            | "/rpc/set_my_notifications",
        ) => Changes(EVERYONE),
        (
            "POST",
            "/rpc/add_user"
            | "/rpc/add_approval_rule"
            | "/rpc/remove_approval_rule"
            | "/rpc/set_provider_connection"
            | "/rpc/remove_provider_connection"
            | "/rpc/set_provider_webhook_secret"
            | "/rpc/set_email_template"
            | "/rpc/remove_email_template"
            | "/rpc/add_webhook_endpoint"
            | "/rpc/remove_webhook_endpoint"
            | "/rpc/resend_webhook"
            | "/rpc/set_tenant_language"
            | "/rpc/set_user_language"
            | "/rpc/change_person"
            | "/rpc/create_api_token"
            | "/rpc/revoke_api_token"
            | "/rpc/rotate_api_token"
            | "/rpc/set_sso_settings"
            | "/rpc/remove_sso_settings"
            | "/rpc/set_two_factor_required"
            | "/rpc/set_notify_smtp"
            | "/rpc/set_notify_line"
            | "/rpc/remove_notify_account"
            | "/rpc/add_notify_destination"
            | "/rpc/remove_notify_destination"
            | "/rpc/add_notify_rule"
            | "/rpc/remove_notify_rule"
            | "/rpc/resend_notification"
            | "/rpc/set_retention"
            | "/rpc/remove_retention"
            | "/rpc/sweep_now",
        ) => Changes(ADMIN),
        _ => return None,
    })
}

/// A concrete path for a listed one: its parameters filled with the test's own operation.
fn concrete(path: &str) -> String {
    path.replace("{op_id}", OP)
        .replace("{subject}", "order:1043")
        .replace("{id}", "no-such-run")
        .replace("{attempt}", "1")
        .replace("{tenant}", "acme")
        .replace("{connection}", "stripe")
}

const OP: &str = "refund-1043-li_2";

/// Every argument any server function takes, so that each reaches its role check.
fn arguments<'a>(csrf: &'a str) -> Vec<(&'static str, &'a str)> {
    vec![
        ("csrf", csrf),
        ("key", "k-matrix"),
        ("op_id", OP),
        ("action", "cancel"),
        ("reason", "matrix"),
        ("external_id", "x"),
        ("evidence", "x"),
        ("name", "matrix-user"),
        ("role", "support"),
        ("password", PASSWORD),
        ("kind", "refund"),
        ("provider", "stripe"),
        ("threshold", ""),
        ("currency", ""),
        ("id", "no-such-id"),
        ("base_url", "http://127.0.0.1:9"),
        ("secret", "sk_test_matrix"),
        ("compensation", "cancel_ticket"),
        ("date", "2026-12-02"),
        ("subject", "order:1043"),
        ("url", "http://127.0.0.1:9/hook"),
        ("body", "matrix"),
        ("change", "sign_out"),
        ("token", "no-such-link"),
        ("scopes[0]", "read"),
        ("expires_in_days", "30"),
        ("grace_hours", "0"),
        ("code", "000000"),
        ("required", "off"),
        ("days", "30"),
        ("archive_url", "relative/not-an-archive"),
        ("item_kind", "operation"),
        ("item_id", OP),
        ("note_id", "no-such-note"),
        ("to", ""),
        ("query", "state=unknown"),
        ("shared", ""),
        ("default_for", ""),
    ]
}

async fn status_of(console: &Console, method: &Method, path: &str, csrf: &str) -> u16 {
    let url = format!("{}{path}", console.base());
    let request = console.client.request(method.clone(), url);
    let request = if *method == Method::POST { request.form(&arguments(csrf)) } else { request };
    request.send().await.expect("request").status().as_u16()
}

crate::engine_tests! {
    every_route_checks_who_asks(app) {
        assert_eq!(app.register(&refund_1043(38_000)).await.0, 201);
        let mut consoles = Vec::new();
        for role in ROLES {
            let console = app.signed_in(&format!("matrix-{}", role.as_str()), role).await;
            let csrf = console.csrf().await;
            consoles.push((role, console, csrf));
        }
        app.add_user("globex", "gus", Role::Manager).await;
        let other_tenant = app.console();
        other_tenant.sign_in("gus", PASSWORD, "/").await;
        let signed_out = app.console();

        let routes = route_list();
        let unruled: Vec<_> = routes.iter().filter(|(method, path)| rule_for(method, path).is_none()).collect();
        assert!(unruled.is_empty(), "routes without a rule in the authorization matrix: {unruled:?}");
        assert!(routes.len() >= 45, "the whole surface is listed: {}", routes.len());

        let mut failures = Vec::new();
        let mut expect = |what: String, got: u16, ok: bool| {
            if !ok {
                failures.push(format!("{what}: {got}"));
            }
        };
        for (method, listed) in &routes {
            let rule = rule_for(method, listed).unwrap();
            let path = concrete(listed);
            let anonymous = status_of(&signed_out, method, &path, "no-session").await;
            match rule {
                Rule::Public => expect(format!("{method} {path} signed out"), anonymous, anonymous < 500 && anonymous != 401 && anonymous != 403),
                Rule::Page(_) => expect(format!("{method} {path} signed out"), anonymous, anonymous == 303),
                Rule::Reads(_) | Rule::Changes(_) => expect(format!("{method} {path} signed out"), anonymous, anonymous == 401),
                Rule::Download(_) => expect(format!("{method} {path} signed out"), anonymous, anonymous == 303 || anonymous == 401),
                Rule::Api => expect(format!("{method} {path} without a token"), anonymous, anonymous == 401),
                Rule::SignOut => expect(format!("{method} {path} signed out"), anonymous, anonymous == 303 || anonymous == 403),
                Rule::Scrape => expect(format!("{method} {path} without its token"), anonymous, anonymous == 401 || anonymous == 404),
                Rule::ProviderWebhook => expect(format!("{method} {path} unsigned"), anonymous, anonymous == 400 || anonymous == 404),
            }
            for (role, console, csrf) in &consoles {
                let allowed = match rule {
                    Rule::Page(roles) | Rule::Reads(roles) | Rule::Changes(roles) | Rule::Download(roles) => roles.contains(role),
                    Rule::Scrape => {
                        let status = status_of(console, method, &path, csrf).await;
                        expect(format!("{method} {path} as {}", role.as_str()), status, status == 401 || status == 404);
                        continue;
                    }
                    Rule::Public | Rule::Api | Rule::SignOut | Rule::ProviderWebhook => continue,
                };
                if let Rule::Changes(_) = rule {
                    let forged = status_of(console, method, &path, "forged").await;
                    expect(format!("{method} {path} as {} with a forged CSRF token", role.as_str()), forged, forged == 403);
                }
                let status = if *method == Method::GET && listed == "/live/operations" {
                    let response = console.get(&path).await;
                    response.status().as_u16()
                } else {
                    status_of(console, method, &path, csrf).await
                };
                let what = format!("{method} {path} as {}", role.as_str());
                if allowed {
                    expect(what, status, status != 401 && status != 403 && status < 500);
                } else {
                    expect(what, status, status == 403);
                }
            }
            if let Rule::Api = rule {
                let url = app.url(&path);
                let own = app.client.request(method.clone(), &url).bearer_auth(&app.token).json(&serde_json::json!({})).send().await.unwrap().status().as_u16();
                expect(format!("{method} {path} with the tenant's token"), own, own != 401 && own < 500);
            }
        }

        for path in [format!("/operations/{OP}"), "/orders/order:1043".to_owned()] {
            let html = other_tenant.page(&path, 404).await;
            assert!(!html.contains("pi_1043"), "another tenant sees nothing of {path}");
        }
        let (status, _) = other_tenant.call("operation", &[("op_id", OP)]).await;
        assert_eq!(status, 404, "another tenant's operation is not there");
        let (status, _) = app.get_as(&app.other_token, &format!("/api/v1/operations/{OP}")).await;
        assert_eq!(status, 404, "another tenant's token finds nothing");
        let export = other_tenant.get("/operations/export.csv").await.text().await.unwrap();
        assert!(!export.contains(OP), "another tenant's export holds none of acme's operations");

        assert!(failures.is_empty(), "{} refusals missing or wrong:\n{}", failures.len(), failures.join("\n"));
    }
}
