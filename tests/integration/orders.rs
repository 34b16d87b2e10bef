//! Orders come from the tenant's own shop: another tenant's order is no such order and nothing is
//! recorded, an order added to a tenant's own account is refunded from it with the shop's amount,
//! a shop's own orders endpoint works like Stripe Checkout, and the official Stripe client reads
//! the sandbox's Checkout endpoints.

use opledger::domain::{
    connection::ProviderKind,
    ids::{Actor, TenantId},
};
use opledger::server::ledger::connections::NewConnection;
use opledger::server::sandbox::{Sandbox, SandboxConfig};
use serde_json::{json, Value};

use crate::support::TestApp;

/// A sandbox account with no orders, on its own port, that accepts only `secret_key`.
async fn empty_account(secret_key: &str) -> (Sandbox, String) {
    let sandbox = Sandbox::empty(SandboxConfig { secret_key: secret_key.into(), ..SandboxConfig::default() });
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let base_url = format!("http://{}", listener.local_addr().unwrap());
    let router = sandbox.router();
    tokio::spawn(async move { axum::serve(listener, router).await });
    (sandbox, base_url)
}

async fn connect(app: &TestApp, tenant: &str, name: &str, kind: ProviderKind, base_url: &str, secret: &str) {
    let connection = NewConnection {
        name: name.into(),
        kind,
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

/// Order G-77 of globex's shop: a lamp paid in EUR.
fn globex_order() -> Value {
    json!({"id": "G-77", "currency": "EUR", "payment_intent": "pi_G77",
           "line_items": [{"id": "li_1", "name": "Floor lamp", "amount_minor": 12900}]})
}

async fn add_order(base_url: &str, secret: &str, order: &Value) {
    let response = reqwest::Client::new()
        .post(format!("{base_url}/v1/_sandbox/orders"))
        .bearer_auth(secret)
        .json(order)
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 201);
}

crate::sandboxed_tests! {
    a_tenant_refunds_only_orders_of_its_own_shop(app) {
        let (globex_account, globex_url) = empty_account("sk_test_globex").await;
        connect(&app, "globex", "stripe", ProviderKind::Stripe, &globex_url, "sk_test_globex").await;
        add_order(&globex_url, "sk_test_globex", &globex_order()).await;

        let theirs = json!({"order_id": "1043", "line_item_id": "li_2"});
        let (status, answer) = app.post_as(&app.other_token, "/api/v1/tools/refund_item", &theirs).await;
        assert_eq!(status, 422, "{answer}");
        assert!(answer["error"]["message"].as_str().unwrap().contains("no such order \"1043\""), "{answer}");
        let (status, _) = app.get_as(&app.other_token, "/api/v1/operations/refund-1043-li_2").await;
        assert_eq!(status, 404, "nothing was recorded");

        let own = json!({"order_id": "G-77", "line_item_id": "li_1"});
        let (status, answer) = app.post_as(&app.other_token, "/api/v1/tools/refund_item", &own).await;
        assert_eq!((status, answer["status"].as_str()), (200, Some("succeeded")), "{answer}");
        assert!(answer["message"].as_str().unwrap().contains("refund of €129.00 for Floor lamp"), "{answer}");
        let refunds: Vec<_> = globex_account.created_objects().into_iter().filter(|o| o.object_type == "refund").collect();
        assert_eq!(refunds.len(), 1);
        assert_eq!((refunds[0].amount, refunds[0].currency.as_deref()), (Some(12900), Some("EUR")), "the amount comes from globex's shop");

        let (status, answer) = app.post("/api/v1/tools/refund_item", &own).await;
        assert_eq!(status, 422, "acme's shop has no order G-77: {answer}");
    }

    a_shops_own_orders_endpoint_is_read_like_checkout(app) {
        let (account, base_url) = empty_account("sk_test_globex").await;
        add_order(&base_url, "sk_test_globex", &globex_order()).await;
        connect(&app, "globex", "stripe", ProviderKind::Stripe, &base_url, "sk_test_globex").await;
        connect(&app, "globex", "orders", ProviderKind::Orders, &format!("{base_url}/v1"), "sk_test_globex").await;
        let (status, answer) = app.post_as(&app.other_token, "/api/v1/tools/refund_item", &json!({"order_id": "G-77", "line_item_id": "li_1"})).await;
        assert_eq!((status, answer["status"].as_str()), (200, Some("succeeded")), "{answer}");
        let (status, answer) = app.post_as(&app.other_token, "/api/v1/tools/refund_item", &json!({"order_id": "G-78", "line_item_id": "li_1"})).await;
        assert_eq!(status, 422, "{answer}");
        assert_eq!(account.created_objects().len(), 1);
    }
}

#[tokio::test]
async fn the_official_stripe_client_reads_the_sandboxs_checkout_endpoints() {
    let Some(python) = std::env::var_os("OPLEDGER_TEST_PYTHON") else {
        assert!(
            !crate::support::in_ci(),
            "OPLEDGER_TEST_PYTHON (a Python with the stripe package) is needed in CI"
        );
        eprintln!(
            "SKIPPED: set OPLEDGER_TEST_PYTHON to a Python with the stripe package (scripts/test.sh does)"
        );
        return;
    };
    let sandbox =
        Sandbox::seeded(SandboxConfig { secret_key: "sk_test_client".into(), ..SandboxConfig::default() });
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let base_url = format!("http://{}", listener.local_addr().unwrap());
    let router = sandbox.router();
    tokio::spawn(async move { axum::serve(listener, router).await });
    let script = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/clients/stripe_orders.py");
    let output = tokio::task::spawn_blocking(move || {
        std::process::Command::new(python).args([script, &base_url, "sk_test_client"]).output().unwrap()
    })
    .await
    .unwrap();
    assert!(
        output.status.success(),
        "{}{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
    assert!(String::from_utf8_lossy(&output.stdout).contains("read order 1043"));
}
