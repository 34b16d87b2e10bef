//! The console in support's language, over HTTP: the order page tells each line item's story in
//! words with what to tell the customer, the search finds by prefix within the tenant only, risky
//! actions wait for a confirmation even without JavaScript, and approval rules are checked before
//! they are saved.

use opledger::domain::{
    ids::{Actor, TenantId},
    policy::Role,
};
use serde_json::{json, Value};

use crate::support::{refund_1043, refund_request, PASSWORD};

fn search_results(body: &str) -> Value {
    serde_json::from_str(body).unwrap_or_else(|_| panic!("search answers JSON: {body}"))
}

mod with_a_shop {
    use super::*;

    crate::sandboxed_tests! {
        the_order_page_tells_each_line_item_in_words_with_the_money_and_what_to_tell_the_customer(app) {
            app.fault(json!({"match": "refund-1043-li_2", "fault": "drop_response", "ms": 10000})).await;
            let (_, answer) = app.post("/api/v1/tools/refund_item", &json!({"order_id": "1043", "line_item_id": "li_2"})).await;
            assert_eq!(answer["status"], "unknown", "{answer}");
            let console = app.signed_in("sam", Role::Support).await;
            let html = console.page("/orders/order:1043", 200).await;
            for expected in [
                "Order 1043",
                "Bluetooth headphones",
                "Headphone case",
                "Refund of NT$380 for Headphone case was sent to Stripe, which did not answer in time; we are checking whether it happened. Do not refund it again.",
                "Tell the customer: ",
                "is being confirmed with Stripe",
                "Nothing has been asked for this item.",
                "NT$1,580",
            ] {
                assert!(html.contains(expected), "the order page lacks {expected:?}");
            }
            let refundable = html.split("data-testid=\"refundable\">").nth(1).and_then(|rest| rest.split('<').next());
            assert_eq!(refundable, Some("NT$1,200"), "what is being confirmed is not refundable again");
            let operation = console.page("/operations/refund-1043-li_2", 200).await;
            assert!(operation.contains("did not answer in time; we are checking whether it happened"), "the operation page says it in the same words");
        }
    }
}

crate::engine_tests! {
    the_search_finds_orders_op_ids_external_ids_and_people_by_prefix_in_the_tenant_alone(app) {
        assert_eq!(app.register(&refund_1043(38000)).await.0, 201);
        assert_eq!(app.begin_attempt("refund-1043-li_2").await.0, 201);
        let outcome = json!({"outcome": "succeeded", "http_status": 200, "external_id": "re_00acme"});
        assert_eq!(app.report("refund-1043-li_2", 1, &outcome).await.0, 200);
        let globex = TenantId::parse("globex").unwrap();
        let mut theirs = refund_request(1043);
        theirs.op_id = opledger::domain::ids::OpId::parse("refund-1043-li_2").unwrap();
        app.ledger.register(&globex, &Actor::system("test"), theirs).await.unwrap();
        let acme = app.signed_in("sam", Role::Support).await;
        app.add_user("globex", "sam", Role::Support).await;

        for typed in ["1043", "#1043", "order:10"] {
            let (status, body) = acme.call("search", &[("q", typed)]).await;
            assert_eq!(status, 200, "{body}");
            assert_eq!(search_results(&body)["orders"], json!(["order:1043"]), "{typed}");
        }
        let (_, body) = acme.call("search", &[("q", "refund-10")]).await;
        let found = search_results(&body);
        assert_eq!(found["operations"].as_array().unwrap().len(), 1, "one tenant's operation, not both: {found}");
        assert_eq!(found["operations"][0]["op_id"], "refund-1043-li_2");
        let (_, body) = acme.call("search", &[("q", "re_00")]).await;
        let found = search_results(&body);
        assert_eq!(found["operations"][0]["external_id"], "re_00acme", "{found}");
        assert_eq!(found["operations"][0]["op_id"], "refund-1043-li_2");
        let (_, body) = acme.call("search", &[("q", "sa")]).await;
        assert_eq!(search_results(&body)["people"], json!(["sam"]), "only this tenant's people");
        let (_, body) = acme.call("search", &[("q", "re_00acmez")]).await;
        let nothing = search_results(&body);
        assert!(nothing["orders"].as_array().unwrap().is_empty() && nothing["operations"].as_array().unwrap().is_empty());

        let html = acme.page("/search?q=re_00", 200).await;
        assert!(html.contains("re_00acme") && html.contains("/operations/refund-1043-li_2"), "{html}");
        let html = acme.page("/search?q=zzz", 200).await;
        assert!(html.contains("Nothing starts with"), "an empty result says what to search by");

        let them = app.console();
        let csrf = them.login_token().await;
        let form = [("username", "sam"), ("password", PASSWORD), ("tenant", "globex"), ("csrf", csrf.as_str()), ("next", "/")];
        assert_eq!(them.post_form("/login", &form).await.headers()["location"], "/", "globex's sam signs in");
        let (_, body) = them.call("search", &[("q", "re_00")]).await;
        assert!(search_results(&body)["operations"].as_array().unwrap().is_empty(), "another tenant's external ids are not found");
    }

    a_risky_action_sent_without_its_confirmation_asks_for_it_and_changes_nothing(app) {
        assert_eq!(app.register(&refund_1043(38000)).await.0, 201);
        assert_eq!(app.begin_attempt("refund-1043-li_2").await.0, 201);
        assert_eq!(app.report("refund-1043-li_2", 1, &json!({"outcome": "timeout"})).await.0, 200);
        let support = app.signed_in("sam", Role::Support).await;
        let page = app.url("/operations/refund-1043-li_2");
        let html = support.page("/operations/refund-1043-li_2", 200).await;
        assert!(html.contains("data-confirm=\"The refund of NT$380 will be sent to Stripe again with the same idempotency key"), "the form carries its consequence");
        let csrf = support.csrf().await;
        let form = [("csrf", csrf.as_str()), ("key", "r1"), ("op_id", "refund-1043-li_2"), ("action", "cancel"), ("reason", "customer withdrew")];
        let response = support.client.post(app.url("/rpc/act")).header("accept", "text/html").header("referer", &page).form(&form).send().await.unwrap();
        assert_eq!(response.status(), 302);
        let location = response.headers()["location"].to_str().unwrap().to_owned();
        assert_eq!(location, "/operations/refund-1043-li_2?confirm=cancel&reason=customer+withdrew#confirm");
        let (_, operation) = app.get_json("/api/v1/operations/refund-1043-li_2").await;
        assert_eq!(operation["cancel_requested"], json!(false), "nothing changed before the confirmation: {operation}");
        let html = support.page(location.split('#').next().unwrap(), 200).await;
        assert!(html.contains("data-testid=\"confirm-panel\"") && html.contains("will not be sent again"), "the page restates what it will do");
        assert!(html.contains("value=\"customer withdrew\""), "what was typed is kept");
        let confirmed = [("csrf", csrf.as_str()), ("key", "r2"), ("op_id", "refund-1043-li_2"), ("action", "cancel"), ("reason", "customer withdrew"), ("confirmed", "yes")];
        let (status, body) = support.call("act", &confirmed).await;
        assert_eq!(status, 200, "{body}");
        let (_, operation) = app.get_json("/api/v1/operations/refund-1043-li_2").await;
        assert_eq!(operation["cancel_requested"], json!(true), "{operation}");
    }

    the_list_filters_by_several_states_at_once_newest_first(app) {
        assert_eq!(app.register(&refund_1043(38000)).await.0, 201);
        assert_eq!(app.begin_attempt("refund-1043-li_2").await.0, 201);
        assert_eq!(app.report("refund-1043-li_2", 1, &json!({"outcome": "timeout"})).await.0, 200);
        let mut planned = refund_1043(100);
        planned["op_id"] = json!("refund-1044-li_1");
        planned["subject"] = json!("order:1044");
        assert_eq!(app.register(&planned).await.0, 201);
        let support = app.signed_in("sam", Role::Support).await;
        let rows = |html: &str| html.matches("data-testid=\"operation-row\"").count();
        let both = support.page("/operations?state=unknown&state=planned", 200).await;
        assert_eq!(rows(&both), 2, "both states, chosen together in the form");
        assert!(both.find("refund-1044-li_1") < both.find("refund-1043-li_2"), "newest first across states");
        assert_eq!(rows(&support.page("/operations?state=unknown%2Cplanned&kind=refund", 200).await), 2, "as a shared link");
        assert_eq!(rows(&support.page("/operations?state=unknown", 200).await), 1);
        let (status, body) = support.call("operations", &[("filter[state]", "unknown,nonsense")]).await;
        assert_eq!(status, 422, "{body}");
    }

    an_approval_rule_is_checked_before_it_is_saved_and_previewed_against_recent_operations(app) {
        assert_eq!(app.register(&refund_1043(38000)).await.0, 201);
        let admin = app.signed_in("alex", Role::Admin).await;
        let csrf = admin.csrf().await;
        let rule = |kind: &'static str, threshold: &'static str, currency: &'static str, preview: &'static str| {
            vec![("csrf", csrf.clone()), ("kind", kind.to_owned()), ("threshold", threshold.to_owned()), ("currency", currency.to_owned()), ("preview", preview.to_owned())]
        };
        let send = |form: Vec<(&'static str, String)>| {
            let admin = &admin;
            async move {
                let form: Vec<(&str, &str)> = form.iter().map(|(k, v)| (*k, v.as_str())).collect();
                admin.call("add_approval_rule", &form).await
            }
        };
        let (status, body) = send(rule("refund", "500,00", "usd", "")).await;
        assert_eq!(status, 422, "{body}");
        assert!(body.contains("is not an amount in USD") && body.contains("A comma may only separate thousands"), "{body}");
        let (status, body) = send(rule("refnud", "", "", "")).await;
        assert_eq!(status, 422, "{body}");
        assert!(body.contains("No operation of kind") && body.contains("refund"), "{body}");
        let (status, body) = send(rule("refund", "300.00", "TWD", "yes")).await;
        assert_eq!(status, 200, "{body}");
        assert!(body.contains("Preview, nothing saved") && body.contains("caught 1 of the last 1 refund operations"), "{body}");
        let (_, rules) = admin.call("approval_rules", &[]).await;
        let rules: Value = serde_json::from_str(&rules).unwrap();
        assert!(rules["rules"].as_array().unwrap().is_empty(), "refused and previewed rules are not saved: {rules}");
        assert!(rules["kinds"].as_array().unwrap().contains(&json!("refund")));
        assert!(rules["currencies"].as_array().unwrap().contains(&json!("TWD")));
        let (status, body) = send(rule("refund", "1,000.00", "TWD", "")).await;
        assert_eq!(status, 200, "{body}");
        assert!(body.contains("refund operations from TWD 1000.00 up need"), "{body}");
    }
}
