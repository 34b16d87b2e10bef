//! A Taiwanese shop's agent refunds with the refund tool, and each refund goes to the gateway the
//! shop's order names (`"gateway"`): a card order to ECPay, carrying the TradeNo and gwsr saved
//! from ECPay's signed payment notification, a wallet order to LINE Pay. A card payment whose ids
//! were never saved is refused before anything is recorded, and once they are, the same call goes
//! through. The customer is told in the shop's language.

use axum::{extract::Path, http::HeaderMap, routing::get, Json, Router};
use serde_json::{json, Value};

use crate::support::{serve, Engine, TestApp};
use opledger::domain::connection::ProviderKind;
use opledger::domain::ids::{Actor, OpId, TenantId};
use opledger::domain::language::Language;
use opledger::domain::policy::Role;
use opledger::server::ledger::connections::NewConnection;
use opledger::server::sandbox::ecpay::{EcpayConfig, EcpaySandbox, NewPayment, TradeState};
use opledger::server::sandbox::linepay::{LinePayConfig, LinePaySandbox};

const SHOP_KEY: &str = "shop-key";

/// The shop's orders endpoint: a card order paid at ECPay as `TW1043A`, a wallet order paid at
/// LINE Pay as `transaction`.
fn shop(transaction: String) -> Router {
    let orders = move |Path(id): Path<String>, headers: HeaderMap| {
        let transaction = transaction.clone();
        async move {
            let authorised = headers.get("authorization").and_then(|v| v.to_str().ok())
                == Some(&format!("Bearer {SHOP_KEY}"));
            let order = match (authorised, id.as_str()) {
                (true, "TW1043") => json!({
                    "id": "TW1043", "currency": "TWD", "payment": "TW1043A", "gateway": "ecpay",
                    "line_items": [{"id": "li_1", "name": "耳機保護殼", "amount_minor": 38_000},
                                   {"id": "li_2", "name": "藍牙耳機", "amount_minor": 299_000}],
                }),
                (true, "TW2001") => json!({
                    "id": "TW2001", "currency": "TWD", "payment": transaction, "gateway": "linepay",
                    "line_items": [{"id": "li_1", "name": "鳳梨酥禮盒", "amount_minor": 45_000}],
                }),
                _ => return (axum::http::StatusCode::NOT_FOUND, Json(Value::Null)),
            };
            (axum::http::StatusCode::OK, Json(order))
        }
    };
    Router::new().route("/orders/{id}", get(orders))
}

async fn the_refund_tool_goes_to_the_gateway_each_order_was_paid_through(engine: Engine) {
    let Some(app) = TestApp::spawn(engine).await else { return };
    let tenant = TenantId::parse("acme").unwrap();
    let ecpay = EcpaySandbox::new(EcpayConfig::stage());
    let ecpay_url = serve(ecpay.router()).await;
    let linepay_config =
        LinePayConfig { channel_id: "1656789012".into(), channel_secret: "channel-secret".into() };
    let linepay = LinePaySandbox::new(linepay_config.clone());
    let linepay_url = serve(linepay.router()).await;
    let transaction = linepay.pay("TW2001", 450);
    let shop_url = serve(shop(transaction.clone())).await;
    let admin = Actor::human("alex", Role::Admin);
    let connections = [
        ("ecpay", ProviderKind::Ecpay, ecpay_url, EcpayConfig::stage().secret(), Some("3002607".to_owned())),
        (
            "linepay",
            ProviderKind::LinePay,
            linepay_url,
            linepay_config.channel_secret,
            Some(linepay_config.channel_id),
        ),
        ("orders", ProviderKind::Orders, shop_url, SHOP_KEY.to_owned(), None),
    ];
    for (name, kind, base_url, secret, account) in connections {
        let connection = NewConnection {
            name: name.into(),
            kind,
            base_url,
            secret,
            account,
            key_retention: None,
            description: None,
        };
        app.ledger.set_provider_connection(&tenant, &admin, connection).await.unwrap();
    }
    app.ledger.set_tenant_language(&tenant, Language::ZhTw, "alex").await.unwrap();

    let call = json!({"order_id": "TW1043", "line_item_id": "li_1"});
    let (status, answer) = app.post("/api/v1/tools/refund_item", &call).await;
    assert_eq!(status, 422, "{answer}");
    assert!(answer.to_string().contains("gwsr"), "the words say what is missing: {answer}");
    let op_id = OpId::parse("refund-TW1043-li_1").unwrap();
    assert!(app.ledger.reads().load_operation(&tenant, &op_id).await.unwrap().is_none(), "nothing recorded");
    assert!(ecpay.calls().is_empty(), "nothing asked of ECPay");

    let payment = NewPayment {
        merchant_trade_no: "TW1043A".into(),
        amount: 3_370,
        state: TradeState::Closed,
        installments: 0,
        red_dan: 0,
        return_url: None,
    };
    let notice = ecpay.pay(&payment);
    let posted = reqwest::Client::new()
        .post(app.url("/webhooks/providers/acme/ecpay"))
        .form(&notice)
        .send()
        .await
        .unwrap();
    assert_eq!(posted.text().await.unwrap(), "1|OK");

    let (status, answer) = app.post("/api/v1/tools/refund_item", &call).await;
    assert_eq!(status, 200, "{answer}");
    assert_eq!(answer["status"], "accepted", "ECPay accepts, and settles at its nightly close: {answer}");
    assert!(
        answer["for_customer"].as_str().unwrap_or_default().contains("退款"),
        "told in Chinese: {answer}"
    );
    let recorded = app.ledger.reads().load_operation(&tenant, &op_id).await.unwrap().unwrap();
    assert_eq!(recorded.provider, "ecpay");
    let params = recorded.params.as_value();
    let field = |name: &str| notice.iter().find(|(key, _)| key == name).map(|(_, value)| value.clone());
    assert_eq!(params["trade_no"].as_str().map(str::to_owned), field("TradeNo"));
    assert_eq!(params["gwsr"].as_str().map(str::to_owned), field("gwsr"));
    assert_eq!(params["paid"], json!({"minor": 337_000, "currency": "TWD"}));
    let made = ecpay.created_objects();
    assert_eq!(made.len(), 1, "one refund at ECPay");
    assert_eq!(made[0].amount, Some(38_000));

    let (status, again) = app.post("/api/v1/tools/refund_item", &call).await;
    assert_eq!((status, again["status"].clone()), (200, json!("accepted")), "{again}");
    assert_eq!(ecpay.created_objects().len(), 1, "asking again sends nothing");

    let wallet = json!({"order_id": "TW2001", "line_item_id": "li_1"});
    let (status, answer) = app.post("/api/v1/tools/refund_item", &wallet).await;
    assert_eq!(status, 200, "{answer}");
    assert_eq!(answer["status"], "succeeded", "LINE Pay's answer is final: {answer}");
    let refunded = app
        .ledger
        .reads()
        .load_operation(&tenant, &OpId::parse("refund-TW2001-li_1").unwrap())
        .await
        .unwrap()
        .unwrap();
    assert_eq!(refunded.provider, "linepay");
    assert_eq!(refunded.params.as_value()["transaction"], json!(transaction), "the id as text");
    assert_eq!(linepay.created_objects().len(), 1);
}

crate::on_both_engines!(the_refund_tool_goes_to_the_gateway_each_order_was_paid_through);
