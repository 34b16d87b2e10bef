//! Tenants' own provider accounts: each tenant refunds from its own account, a secret is sealed
//! and never shown again, a tenant with no provider gets a clear answer and nothing is recorded,
//! and a wrong secret key stops the server at start-up.

use opledger::domain::{
    connection::ProviderKind,
    ids::{Actor, TenantId},
    policy::Role,
};
use opledger::server::app::startup::{Application, Settings};
use opledger::server::ledger::connections::NewConnection;
use opledger::server::sandbox::{CreatedObject, Sandbox, SandboxConfig};
use serde_json::json;

use crate::support::TestApp;

/// A sandbox provider account of its own, on its own port, that accepts only `secret_key`.
async fn account(secret_key: &str) -> (Sandbox, String) {
    let sandbox =
        Sandbox::seeded(SandboxConfig { secret_key: secret_key.into(), ..SandboxConfig::default() });
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let base_url = format!("http://{}", listener.local_addr().unwrap());
    let router = sandbox.router();
    tokio::spawn(async move { axum::serve(listener, router).await });
    (sandbox, base_url)
}

async fn connect(app: &TestApp, tenant: &str, base_url: &str, secret: &str) {
    let connection = NewConnection {
        name: "stripe".into(),
        kind: ProviderKind::Stripe,
        base_url: base_url.into(),
        secret: secret.into(),
        account: None,
        key_retention: None,
        description: None,
    };
    app.ledger
        .set_provider_connection(&TenantId::parse(tenant).unwrap(), &Actor::system("test"), connection)
        .await
        .unwrap();
}

fn refunds(sandbox: &Sandbox) -> Vec<CreatedObject> {
    sandbox.created_objects().into_iter().filter(|o| o.object_type == "refund").collect()
}

crate::engine_tests! {
    each_tenant_refunds_from_its_own_account(app) {
        let (acme_account, acme_url) = account("sk_test_acme_1111").await;
        let (globex_account, globex_url) = account("sk_test_globex_2222").await;
        connect(&app, "acme", &acme_url, "sk_test_acme_1111").await;
        connect(&app, "globex", &globex_url, "sk_test_globex_2222").await;

        let call = json!({"order_id": "1043", "line_item_id": "li_2"});
        for token in [&app.token, &app.other_token] {
            let (status, answer) = app.post_as(token, "/api/v1/tools/refund_item", &call).await;
            assert_eq!((status, answer["status"].as_str()), (200, Some("succeeded")), "{answer}");
        }
        for (sandbox, tenant) in [(&acme_account, "acme"), (&globex_account, "globex")] {
            let made = refunds(sandbox);
            assert_eq!(made.len(), 1, "{tenant}'s account holds {tenant}'s refund only");
            assert_eq!(made[0].metadata.get("tenant").map(String::as_str), Some(tenant));
            assert_eq!(made[0].idempotency_key.as_deref(), Some(format!("{tenant}:refund-1043-li_2").as_str()));
        }
    }

    a_secret_is_sealed_and_never_shown_again(app) {
        const SECRET: &str = "sk_test_supersecret_9f2c";
        let admin = app.signed_in("alex", Role::Admin).await;
        let csrf = admin.csrf().await;
        let (status, body) = admin.call("set_provider_connection", &[("csrf", &csrf), ("name", "stripe"), ("kind", "stripe"), ("base_url", "https://api.stripe.com/"), ("secret", SECRET)]).await;
        assert_eq!(status, 200, "{body}");

        let html = admin.page("/admin/providers", 200).await;
        assert!(html.contains("9f2c") && html.contains("https://api.stripe.com"), "the last four characters and the URL");
        let (_, listed) = admin.call("provider_connections", &[]).await;
        let export = admin.get("/audit/export.jsonl").await.text().await.unwrap();
        assert!(export.contains("set_provider_connection"), "every change is an audit event: {export}");
        let chain = serde_json::to_string(&app.ledger.audit_chain(&TenantId::parse("acme").unwrap()).await.unwrap()).unwrap();
        for (place, text) in [("page", &html), ("server function", &listed), ("export", &export), ("audit chain", &chain)] {
            assert!(!text.contains(SECRET), "the secret is in the {place}");
        }
        let stored = app.ledger.reads().provider_connection(&TenantId::parse("acme").unwrap(), "stripe").await.unwrap().unwrap();
        assert!(!stored.sealed_secret.contains("supersecret"), "sealed at rest");

        let (status, body) = admin.call("set_provider_connection", &[("csrf", &csrf), ("name", "Stripe!"), ("kind", "stripe"), ("base_url", "https://x"), ("secret", "s")]).await;
        assert_eq!(status, 422, "{body}");
        let support = app.signed_in("sam", Role::Support).await;
        let csrf = support.csrf().await;
        let (status, _) = support.call("set_provider_connection", &[("csrf", &csrf), ("name", "stripe"), ("kind", "stripe"), ("base_url", "https://evil.example"), ("secret", "s")]).await;
        assert_eq!(status, 403, "only admins connect accounts");
        let (status, _) = support.call("provider_connections", &[]).await;
        assert_eq!(status, 403);

        app.add_user("globex", "gina", Role::Admin).await;
        let globex = app.console();
        globex.sign_in("gina", crate::support::PASSWORD, "/").await;
        let (_, theirs) = globex.call("provider_connections", &[]).await;
        assert_eq!(theirs, "[]", "another tenant sees none of acme's accounts");
        let csrf = globex.csrf().await;
        let (status, _) = globex.call("remove_provider_connection", &[("csrf", &csrf), ("name", "stripe")]).await;
        assert_eq!(status, 404, "nor removes them");
        assert!(app.ledger.reads().provider_connection(&TenantId::parse("acme").unwrap(), "stripe").await.unwrap().is_some());
    }

    an_adyen_account_names_its_merchant_account_and_its_window(app) {
        let admin = app.signed_in("alex", Role::Admin).await;
        let csrf = admin.csrf().await;
        let adyen = [("csrf", csrf.as_str()), ("name", "adyen"), ("kind", "adyen"), ("base_url", "https://checkout-test.adyen.com/v71"), ("secret", "AQE_key_7e1d")];
        let (status, body) = admin.call("set_provider_connection", &adyen).await;
        assert_eq!(status, 422, "an Adyen account without its merchant account is refused: {body}");
        assert!(body.contains("merchant account"), "{body}");
        let with_account = [&adyen[..], &[("account", "ShopECOM")]].concat();
        let (status, body) = admin.call("set_provider_connection", &with_account).await;
        assert_eq!(status, 200, "{body}");
        let too_long = [&with_account[..], &[("key_retention", "two weeks")]].concat();
        let (status, body) = admin.call("set_provider_connection", &too_long).await;
        assert_eq!(status, 422, "{body}");
        assert!(body.contains("is not a length of time"), "{body}");
        let orders = [("csrf", csrf.as_str()), ("name", "orders"), ("kind", "orders"), ("base_url", "https://shop.example/api"), ("secret", "shop_token")];
        assert_eq!(admin.call("set_provider_connection", &orders).await.0, 200);
        let (_, listed) = admin.call("provider_connections", &[]).await;
        let listed: serde_json::Value = serde_json::from_str(&listed).unwrap();
        let adyen = listed.as_array().unwrap().iter().find(|c| c["name"] == "adyen").unwrap();
        assert_eq!(adyen["account"], "ShopECOM");
        assert_eq!(adyen["key_retention"], "31 days (the provider's window)");
        assert_eq!(adyen["webhook_secret_name"], "HMAC key");
        assert_eq!(adyen["has_webhooks"], true);
        let orders = listed.as_array().unwrap().iter().find(|c| c["name"] == "orders").unwrap();
        assert_eq!((orders["key_retention"].clone(), orders["has_webhooks"].clone()), (serde_json::Value::Null, false.into()));
        let kept = [&with_account[..], &[("key_retention", "7d")]].concat();
        assert_eq!(admin.call("set_provider_connection", &kept).await.0, 200);
        let html = admin.page("/admin/providers", 200).await;
        assert!(html.contains(">7 days<"), "the operator's window is shown");
        assert!(html.contains("ShopECOM"), "the merchant account is shown");
    }

    a_tenant_with_no_provider_is_told_so_and_nothing_is_recorded(app) {
        let call = json!({"order_id": "1043", "line_item_id": "li_2"});
        let (status, answer) = app.post_as(&app.other_token, "/api/v1/tools/refund_item", &call).await;
        assert_eq!(status, 503, "{answer}");
        assert_eq!(answer["error"]["code"], "provider_not_connected");
        assert!(answer["error"]["message"].as_str().unwrap().contains("no refund provider is connected for tenant globex"), "{answer}");
        let (status, _) = app.get_as(&app.other_token, "/api/v1/operations/refund-1043-li_2").await;
        assert_eq!(status, 404, "nothing was recorded as sent");
    }

    a_wrong_secret_key_stops_the_server_at_start_up_with_a_clear_error(app) {
        connect(&app, "acme", "https://api.stripe.com", "sk_test_acme_1111").await;
        let start = |key: &str| {
            let mut settings = Settings::new(app.database.url(), "127.0.0.1:0".parse().unwrap());
            settings.secret_key = Some(key.to_owned());
            Application::build(settings)
        };
        let wrong = start(&"ab".repeat(32)).await.err().expect("a wrong key is refused");
        assert!(wrong.to_string().contains("does not open with this OPLEDGER_SECRET_KEY"), "{wrong}");
        let malformed = start("not-a-key").await.err().expect("a malformed key is refused");
        assert!(malformed.to_string().contains("64 hexadecimal digits"), "{malformed}");
        assert!(start(crate::support::SECRET_KEY).await.is_ok(), "the right key starts");
    }
}
