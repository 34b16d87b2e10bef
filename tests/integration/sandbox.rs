//! The sandbox provider speaks Stripe's refund semantics: replays, parameter checks, retention,
//! limits, and every fault it can inject; every sandbox's control API needs the account's key.

use chrono::Duration;
use opledger::server::sandbox::adyen::{AdyenConfig, AdyenSandbox};
use opledger::server::sandbox::mail::{MailConfig, MailSandbox};
use opledger::server::sandbox::paypal::{PayPalConfig, PayPalSandbox};
use opledger::server::sandbox::{Sandbox, SandboxConfig};
use serde_json::{json, Value};

struct RunningSandbox {
    base: String,
    sandbox: Sandbox,
    client: reqwest::Client,
}

async fn start(key_retention: Duration) -> RunningSandbox {
    let sandbox = Sandbox::seeded(SandboxConfig { secret_key: "sk_test_x".into(), key_retention });
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let base = format!("http://{}", listener.local_addr().unwrap());
    let router = sandbox.router();
    tokio::spawn(async move { axum::serve(listener, router).await });
    let client = reqwest::Client::builder().timeout(std::time::Duration::from_millis(2500)).build().unwrap();
    RunningSandbox { base, sandbox, client }
}

impl RunningSandbox {
    async fn refund(&self, key: &str, amount: i64) -> Result<(u16, Value, bool), reqwest::Error> {
        let form = [
            ("payment_intent", "pi_1043".to_owned()),
            ("amount", amount.to_string()),
            ("metadata[op_id]", key.to_owned()),
        ];
        let response = self
            .client
            .post(format!("{}/v1/refunds", self.base))
            .bearer_auth("sk_test_x")
            .header("Idempotency-Key", key)
            .form(&form)
            .send()
            .await?;
        let replayed = response.headers().contains_key("idempotent-replayed");
        Ok((response.status().as_u16(), response.json().await.unwrap_or(Value::Null), replayed))
    }

    async fn fault(&self, fault: Value) {
        let response = self
            .client
            .post(format!("{}/v1/_sandbox/faults", self.base))
            .bearer_auth("sk_test_x")
            .json(&fault)
            .send()
            .await
            .unwrap();
        assert_eq!(response.status(), 201);
    }

    async fn listed(&self) -> Vec<Value> {
        let response = self
            .client
            .get(format!("{}/v1/refunds?payment_intent=pi_1043", self.base))
            .bearer_auth("sk_test_x")
            .send()
            .await
            .unwrap();
        response.json::<Value>().await.unwrap()["data"].as_array().unwrap().clone()
    }

    fn refunds_created(&self) -> usize {
        self.sandbox.created_objects().iter().filter(|o| o.object_type == "refund").count()
    }
}

#[tokio::test]
async fn a_key_replays_its_first_result_and_refuses_other_parameters() {
    let sandbox = start(Duration::hours(24)).await;
    let (status, first, replayed) = sandbox.refund("refund-1043-li_2", 38000).await.unwrap();
    assert_eq!((status, replayed), (200, false));
    assert_eq!(first["metadata"]["op_id"], "refund-1043-li_2");
    assert_eq!(first["currency"], "twd");
    let (status, again, replayed) = sandbox.refund("refund-1043-li_2", 38000).await.unwrap();
    assert_eq!((status, replayed), (200, true));
    assert_eq!(again["id"], first["id"]);
    let (status, conflict, _) = sandbox.refund("refund-1043-li_2", 76000).await.unwrap();
    assert_eq!((status, conflict["error"]["type"].as_str()), (400, Some("idempotency_error")));
    assert_eq!(sandbox.refunds_created(), 1);
}

#[tokio::test]
async fn a_new_key_per_call_refunds_twice_and_never_beyond_the_payment() {
    let sandbox = start(Duration::hours(24)).await;
    assert_eq!(sandbox.refund("call-1", 38000).await.unwrap().0, 200);
    assert_eq!(sandbox.refund("call-2", 38000).await.unwrap().0, 200);
    assert_eq!(sandbox.refunds_created(), 2, "the naive retry doubles the refund");
    let (status, too_much, _) = sandbox.refund("call-3", 100_000).await.unwrap();
    assert_eq!((status, too_much["error"]["code"].as_str()), (400, Some("amount_too_large")));
}

#[tokio::test]
async fn a_forgotten_key_makes_a_new_request() {
    let sandbox = start(Duration::milliseconds(200)).await;
    sandbox.refund("refund-1043-li_2", 38000).await.unwrap();
    tokio::time::sleep(std::time::Duration::from_millis(300)).await;
    let (status, _, replayed) = sandbox.refund("refund-1043-li_2", 38000).await.unwrap();
    assert_eq!((status, replayed), (200, false));
    assert_eq!(sandbox.refunds_created(), 2, "after retention the same key refunds again");
}

#[tokio::test]
async fn a_dropped_response_commits_and_the_caller_times_out() {
    let sandbox = start(Duration::hours(24)).await;
    sandbox.fault(json!({"match": "refund-1043-*", "fault": "drop_response", "ms": 10000})).await;
    let error = sandbox.refund("refund-1043-li_2", 38000).await.unwrap_err();
    assert!(error.is_timeout(), "{error}");
    assert_eq!(sandbox.refunds_created(), 1, "the refund exists although nobody heard of it");
    let (status, replay, replayed) = sandbox.refund("refund-1043-li_2", 38000).await.unwrap();
    assert_eq!((status, replayed), (200, true), "the same key learns the first result");
    assert_eq!(replay["metadata"]["op_id"], "refund-1043-li_2");
    assert_eq!(sandbox.refunds_created(), 1);
}

#[tokio::test]
async fn a_500_after_committing_is_replayed_for_the_key() {
    let sandbox = start(Duration::hours(24)).await;
    sandbox.fault(json!({"match": "*", "fault": "error_500_after"})).await;
    assert_eq!(sandbox.refund("refund-1043-li_2", 38000).await.unwrap().0, 500);
    let (status, _, replayed) = sandbox.refund("refund-1043-li_2", 38000).await.unwrap();
    assert_eq!((status, replayed), (500, true), "a cached 500 replays under the same key");
    assert_eq!(sandbox.refunds_created(), 1);
    assert_eq!(sandbox.listed().await.len(), 1, "only a lookup tells that it happened");
}

#[tokio::test]
async fn rate_limits_and_business_rejections_do_nothing() {
    let sandbox = start(Duration::hours(24)).await;
    sandbox.fault(json!({"match": "refund-1043-li_2", "fault": "rate_limit"})).await;
    let response = sandbox
        .client
        .post(format!("{}/v1/refunds", sandbox.base))
        .bearer_auth("sk_test_x")
        .header("Idempotency-Key", "refund-1043-li_2")
        .form(&[("payment_intent", "pi_1043"), ("amount", "38000")])
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 429);
    assert_eq!(response.headers()["retry-after"], "1");
    assert_eq!(sandbox.refund("refund-1043-li_2", 38000).await.unwrap().0, 200, "a 429 is not remembered");
    sandbox.fault(json!({"match": "refund-1043-li_1", "fault": "business_reject"})).await;
    assert_eq!(sandbox.refund("refund-1043-li_1", 12000).await.unwrap().0, 402);
    assert_eq!(sandbox.refunds_created(), 1);
}

#[tokio::test]
async fn a_lookup_lag_hides_a_new_refund_for_a_while() {
    let sandbox = start(Duration::hours(24)).await;
    sandbox.fault(json!({"match": "refund-1043-li_2", "fault": "lookup_lag", "ms": 2000})).await;
    sandbox.refund("refund-1043-li_2", 38000).await.unwrap();
    assert!(sandbox.listed().await.is_empty(), "an empty lookup right after the send proves nothing");
    tokio::time::sleep(std::time::Duration::from_millis(2100)).await;
    assert_eq!(sandbox.listed().await.len(), 1);
}

#[tokio::test]
async fn the_secret_key_is_required() {
    let sandbox = start(Duration::hours(24)).await;
    let response = sandbox.client.get(format!("{}/v1/refunds", sandbox.base)).send().await.unwrap();
    assert_eq!(response.status(), 401);
    let body: Value = response.json().await.unwrap();
    assert_eq!(body["error"]["code"], "api_key_invalid");
}

/// Each sandbox's router, its control API's path and the header that carries its key.
fn every_sandbox() -> [(&'static str, axum::Router, &'static str, (&'static str, &'static str)); 4] {
    let stripe =
        Sandbox::seeded(SandboxConfig { secret_key: "sk_test_x".into(), ..SandboxConfig::default() });
    let adyen = AdyenSandbox::new(
        AdyenConfig {
            api_key: "AQE_x".into(),
            merchant_account: "SandboxECOM".into(),
            hmac_key: "00".repeat(32),
            key_retention: Duration::days(31),
        },
        Vec::new(),
    );
    let paypal = PayPalSandbox::new(
        PayPalConfig {
            client_id: "AZ_x".into(),
            client_secret: "paypal_x".into(),
            key_retention: Duration::days(45),
        },
        Vec::new(),
    );
    let mail = MailSandbox::new(MailConfig { api_key: "re_x".into(), key_retention: Duration::hours(24) });
    [
        ("stripe", stripe.router(), "/v1/_sandbox", ("authorization", "Bearer sk_test_x")),
        ("adyen", adyen.router(), "/_sandbox", ("x-api-key", "AQE_x")),
        ("paypal", paypal.router(), "/_sandbox", ("authorization", "Bearer paypal_x")),
        ("mail", mail.router(), "/_sandbox", ("authorization", "Bearer re_x")),
    ]
}

#[tokio::test]
async fn every_sandboxs_control_api_refuses_a_call_without_its_key_and_answers_one_shape() {
    let client = reqwest::Client::new();
    let fault = json!({"match": "refund-1043-*", "fault": "drop_response", "ms": 10});
    for (kind, router, control, (header, key)) in every_sandbox() {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let base = format!("http://{}{control}", listener.local_addr().unwrap());
        tokio::spawn(async move { axum::serve(listener, router).await });
        let refused = [
            client.post(format!("{base}/faults")).json(&fault),
            client.delete(format!("{base}/faults")),
            client.get(format!("{base}/ledger")),
            client.post(format!("{base}/faults")).header(header, "wrong").json(&fault),
        ];
        for request in refused {
            let status = request.send().await.unwrap().status().as_u16();
            assert!(
                matches!(status, 401 | 403),
                "{kind}: a control call without the key is refused, not {status}"
            );
        }
        let set =
            client.post(format!("{base}/faults")).header(header, key).json(&fault).send().await.unwrap();
        assert_eq!(set.status(), 201, "{kind}");
        let answer: Value = set.json().await.unwrap();
        assert_eq!(
            answer,
            json!({"match": "refund-1043-*", "fault": "drop_response", "times": 1, "ms": 10}),
            "{kind}: one shape for a fault set"
        );
        let ledger = client.get(format!("{base}/ledger")).header(header, key).send().await.unwrap();
        assert_eq!(ledger.status(), 200, "{kind}");
    }
}
