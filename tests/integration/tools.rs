//! The agent tools over the ledger API, against the sandbox mounted inside the application: the
//! model is told done, already done, or unknown and not to send again, and never refunds twice.

use serde_json::json;

use crate::support::sandbox_refunds;

crate::sandboxed_tests! {
    the_customer_is_told_in_the_locale_asked_for_and_the_model_in_english(app) {
        let call = json!({"order_id": "1043", "line_item_id": "li_2", "locale": "zh-TW"});
        let (status, done) = app.post("/api/v1/tools/refund_item", &call).await;
        assert_eq!(status, 200, "{done}");
        assert_eq!(done["status"], "succeeded");
        assert_eq!(done["locale"], "zh-TW");
        let traditional = "您的 NT$380 退款已完成，款項可能需要幾天才會出現在您的銀行帳戶。";
        assert_eq!(done["for_customer"], traditional);
        let message = done["message"].as_str().unwrap();
        assert!(message.starts_with("Stripe confirmed the refund of NT$380 for Headphone case. It is done"), "{message}");
        assert!(message.ends_with(&format!("Tell the customer: \u{201c}{traditional}\u{201d}")), "{message}");

        let again = json!({"order_id": "1043", "line_item_id": "li_2"});
        let asked = app.client.post(app.url("/api/v1/tools/refund_item")).bearer_auth(&app.token)
            .header("accept-language", "zh-CN,zh;q=0.9,en;q=0.5").json(&again).send().await.unwrap();
        let asked: serde_json::Value = asked.json().await.unwrap();
        assert_eq!(asked["status"], "already_done", "{asked}");
        assert_eq!(asked["locale"], "zh-CN");
        assert_eq!(asked["for_customer"], "您的 NT$380 退款已完成，款项可能需要几天才会到达您的银行账户。");

        let (status, refused) = app.post("/api/v1/tools/refund_item",
            &json!({"order_id": "1043", "line_item_id": "li_1", "locale": "ja"})).await;
        assert_eq!(status, 422, "{refused}");
        assert!(refused["error"]["message"].as_str().unwrap().contains("en, zh-TW, zh-CN"), "{refused}");
        let (status, _) = app.get_json("/api/v1/operations/refund-1043-li_1").await;
        assert_eq!(status, 404, "a refused locale records nothing");
        assert_eq!(sandbox_refunds(&app).await.len(), 1, "and sends nothing");

        let tenant = opledger::domain::ids::TenantId::parse("acme").unwrap();
        let (_, english) = app.post("/api/v1/tools/create_aftersale", &json!({"order_id": "1043", "line_item_id": "li_1"})).await;
        assert_eq!(english["locale"], "en", "without a locale, a header or a tenant language: English");
        app.ledger.set_tenant_language(&tenant, opledger::domain::language::Language::ZhTw, "admin").await.unwrap();
        let (_, shop) = app.post("/api/v1/tools/create_aftersale", &json!({"order_id": "1043", "line_item_id": "li_1"})).await;
        assert_eq!(shop["status"], "already_done", "{shop}");
        assert_eq!(shop["locale"], "zh-TW", "the tenant's own language: {shop}");
        assert!(shop["for_customer"].as_str().unwrap().contains("售後"), "{shop}");
    }

    refund_item_refunds_once_and_then_says_already_done(app) {
        let call = json!({"order_id": "1043", "line_item_id": "li_2"});
        let (status, done) = app.post("/api/v1/tools/refund_item", &call).await;
        assert_eq!(status, 200, "{done}");
        assert_eq!(done["status"], "succeeded");
        assert_eq!(done["op_id"], "refund-1043-li_2");
        let refund_id = done["external_id"].as_str().unwrap().to_owned();
        assert_eq!(
            done["message"],
            format!(
                "Stripe confirmed the refund of NT$380 for Headphone case. It is done; do not refund it again. \
                 Order 1043 ({refund_id}). Tell the customer: \u{201c}Your refund of NT$380 has been issued; \
                 your bank may take a few days to show it.\u{201d}"
            )
        );
        let (_, again) = app.post("/api/v1/tools/refund_item", &call).await;
        assert_eq!(again["status"], "already_done");
        assert!(again["message"].as_str().unwrap().starts_with("Already done earlier. Stripe confirmed"), "{again}");
        assert_eq!(again["external_id"], refund_id.as_str());
        let refunds = sandbox_refunds(&app).await;
        assert_eq!(refunds.len(), 1);
        assert_eq!(refunds[0]["amount"], 38000, "the amount comes from the order, not from the caller");
    }

    a_timeout_tells_the_model_not_to_send_again_and_nothing_is_sent_twice(app) {
        app.fault(json!({"match": "refund-1043-li_2", "fault": "drop_response", "ms": 10000})).await;
        let call = json!({"order_id": "1043", "line_item_id": "li_2"});
        let (_, first) = app.post("/api/v1/tools/refund_item", &call).await;
        assert_eq!(first["status"], "unknown", "{first}");
        let told = first["message"].as_str().unwrap();
        assert!(told.contains("did not answer in time; we are checking whether it happened. Do not refund it again."), "{told}");
        assert!(told.contains("Tell the customer: \u{201c}Please do not ask for it again"), "{told}");
        let (_, second) = app.post("/api/v1/tools/refund_item", &call).await;
        assert_eq!(second["status"], "unknown");
        let (_, operation) = app.get_json("/api/v1/operations/refund-1043-li_2").await;
        assert_eq!(operation["attempts"].as_array().unwrap().len(), 1, "the second call sent nothing");
        assert_eq!(sandbox_refunds(&app).await.len(), 1, "the provider refunded once");
    }

    an_aftersale_ticket_then_its_pickup(app) {
        let item = json!({"order_id": "1043", "line_item_id": "li_2"});
        let pickup = json!({"order_id": "1043", "line_item_id": "li_2", "date": "2026-12-02"});
        let (status, early) = app.post("/api/v1/tools/schedule_pickup", &pickup).await;
        assert_eq!(status, 422);
        assert!(early["error"]["message"].as_str().unwrap().ends_with("has no after-sale ticket yet; create it first"), "{early}");
        let (_, ticket) = app.post("/api/v1/tools/create_aftersale", &item).await;
        assert_eq!(ticket["status"], "succeeded", "{ticket}");
        assert_eq!(ticket["op_id"], "aftersale-1043-li_2");
        assert!(ticket["external_id"].as_str().unwrap().starts_with("as_"));
        let (_, scheduled) = app.post("/api/v1/tools/schedule_pickup", &pickup).await;
        assert_eq!(scheduled["status"], "succeeded", "{scheduled}");
        assert_eq!(scheduled["op_id"], "pickup-1043-li_2-2026-12-02");
        let (_, again) = app.post("/api/v1/tools/schedule_pickup", &pickup).await;
        assert_eq!(again["status"], "already_done");
        let (status, _) = app.post("/api/v1/tools/schedule_pickup", &json!({"order_id": "1043", "line_item_id": "li_2", "date": "next tuesday"})).await;
        assert_eq!(status, 422);
        let (_, order) = app.get_json("/api/v1/subjects/order:1043/operations").await;
        assert_eq!(order["status"], "complete");
    }

    a_tool_call_without_a_valid_token_is_refused_and_sends_nothing(app) {
        let call = json!({"order_id": "1043", "line_item_id": "li_2"});
        let anonymous = app.client.post(app.url("/api/v1/tools/refund_item")).json(&call).send().await.unwrap();
        assert_eq!(anonymous.status(), 401);
        let (status, _) = app.post_as("opl_forged_token", "/api/v1/tools/refund_item", &call).await;
        assert_eq!(status, 401);
        assert!(sandbox_refunds(&app).await.is_empty());
    }

    an_unknown_order_or_line_item_is_named(app) {
        let (status, answer) = app.post("/api/v1/tools/refund_item", &json!({"order_id": "9999", "line_item_id": "li_1"})).await;
        assert_eq!(status, 422);
        assert_eq!(answer["error"]["message"], "order_id: no such order \"9999\" in this tenant's shop");
        let (status, answer) = app.post("/api/v1/tools/refund_item", &json!({"order_id": "1043", "line_item_id": "li_9"})).await;
        assert_eq!(status, 422);
        assert!(answer["error"]["message"].as_str().unwrap().starts_with("line_item_id"));
    }
}

mod two_tenants {
    use super::*;

    crate::sandboxed_tests! {
        two_tenants_refunding_the_same_op_id_at_one_account_make_two_refunds_under_two_keys(app) {
            let globex_account = opledger::server::ledger::connections::NewConnection {
                name: "stripe".into(),
                kind: opledger::domain::connection::ProviderKind::Stripe,
                base_url: app.url("/sandbox"),
                secret: "sk_test_sandbox".into(),
                account: None,
                key_retention: None,
                description: None,
            };
            let globex = opledger::domain::ids::TenantId::parse("globex").unwrap();
            let admin = opledger::domain::ids::Actor::system("test");
            app.ledger.set_provider_connection(&globex, &admin, globex_account).await.unwrap();
            let call = json!({"order_id": "1043", "line_item_id": "li_2"});
            let (_, acme) = app.post_as(&app.token, "/api/v1/tools/refund_item", &call).await;
            let (_, globex) = app.post_as(&app.other_token, "/api/v1/tools/refund_item", &call).await;
            assert_eq!(acme["status"], "succeeded", "{acme}");
            assert_eq!(globex["status"], "succeeded", "another tenant's refund is not this one's: {globex}");
            assert_eq!(acme["op_id"], globex["op_id"], "the same intent, the same op id");
            assert_ne!(acme["external_id"], globex["external_id"], "each tenant's ledger names its own refund");

            let refunds = sandbox_refunds(&app).await;
            assert_eq!(refunds.len(), 2, "{refunds:?}");
            let mut keys: Vec<&str> = refunds.iter().map(|r| r["idempotency_key"].as_str().unwrap()).collect();
            keys.sort();
            assert_eq!(keys, ["acme:refund-1043-li_2", "globex:refund-1043-li_2"]);
            for (tenant, answer) in [("acme", &acme), ("globex", &globex)] {
                let refund = refunds.iter().find(|r| r["id"] == answer["external_id"]).unwrap();
                assert_eq!(refund["metadata"]["tenant"], tenant);
                assert_eq!(refund["metadata"]["op_id"], "refund-1043-li_2");
            }
            let (_, read) = app.get_as(&app.other_token, "/api/v1/operations/refund-1043-li_2").await;
            assert_eq!(read["idempotency_key"], "globex:refund-1043-li_2");
            assert_eq!(read["attempts"][0]["idempotency_key"], "globex:refund-1043-li_2", "the key is recorded on the attempt");
        }
    }
}
