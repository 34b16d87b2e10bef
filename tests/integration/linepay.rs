//! A shop on LINE Pay, which takes no idempotency key: refunds against the LINE Pay sandbox over
//! real HTTP, sent once each, with the payment's refundList read and kept before the send. A
//! refund is done with LINE Pay's 19-digit refundTransactionId, to the last digit; an answer lost
//! or answered 1198 ("processing") is unknown until the reconciler finds the refund in the
//! refundList against the list kept before the send, and never done on the answer; an older
//! refund of the same amount is never taken for this one, and two new ones go to a person; a
//! refund over what is left is refused before anything leaves; a resent full refund answered 1165
//! makes no second refund; bad input is refused at the ledger API before anything is recorded.
//! Then the connector against a stand-in written from LINE Pay's reference (not from the sandbox),
//! which checks the headers, the signature over the exact bytes, the path and the body; the
//! sandbox's control API; and an independent client, in Python's standard library, signing its own
//! requests to the sandbox.

use chrono::Duration as ChronoDuration;
use serde_json::{json, Value};
use std::time::Duration;

use crate::support::{python, run_client, serve, Engine, TestApp};
use opledger::domain::connection::ProviderKind;
use opledger::domain::ids::{Actor, OpId, TenantId};
use opledger::domain::params::CanonicalParams;
use opledger::domain::policy::Role;
use opledger::server::app::wiring::{self, ProviderSettings};
use opledger::server::ledger::connections::NewConnection;
use opledger::server::ledger::executor::Executor;
use opledger::server::ledger::reconciler::Reconciler;
use opledger::server::ledger::RegisterRequest;
use opledger::server::sandbox::linepay::{LinePayConfig, LinePaySandbox};
use opledger::server::sandbox::{Fault, FaultKind};

const CHANNEL_ID: &str = "1234567890";
const CHANNEL_SECRET: &str = "a917ab6a2367b536f8e5a6e2977e06f4";

fn acme() -> TenantId {
    TenantId::parse("acme").unwrap()
}

/// The application, whose tenant `acme` refunds through its own LINE Pay channel at `base_url`;
/// an executor and a reconciler over its ledger.
struct Shop {
    app: TestApp,
    executor: Executor,
    reconciler: Reconciler,
}

impl Shop {
    async fn open(engine: Engine, base_url: &str) -> Option<Shop> {
        let app = TestApp::spawn_with(engine, |settings| {
            settings.provider_timeout = Duration::from_millis(2000);
        })
        .await?;
        let connection = NewConnection {
            name: "linepay".into(),
            kind: ProviderKind::LinePay,
            base_url: base_url.to_owned(),
            secret: CHANNEL_SECRET.into(),
            account: Some(CHANNEL_ID.into()),
            key_retention: None,
            description: None,
        };
        let admin = Actor::human("alex", Role::Admin);
        app.ledger.set_provider_connection(&acme(), &admin, connection).await.unwrap();
        let providers = ProviderSettings {
            tenants: vec![acme()],
            stripe_base_url: None,
            services_base_url: None,
            secret_key: String::new(),
            timeout: Duration::from_millis(2000),
        };
        let executor = wiring::executor(app.ledger.clone(), &providers);
        let reconciler = Reconciler::new(executor.clone(), ChronoDuration::zero());
        Some(Shop { app, executor, reconciler })
    }

    /// The shop's agent asks the server to refund `amount` New Taiwan dollars of the LINE Pay
    /// transaction `transaction` under `op_id`, and the server sends it; its state after the send.
    async fn refund(&self, op_id: &str, transaction: &str, amount: i64) -> Value {
        let request = RegisterRequest {
            op_id: OpId::parse(op_id).unwrap(),
            kind: "refund".into(),
            subject: "order:1043".into(),
            provider: "linepay".into(),
            params: CanonicalParams::from_value(json!({
                "transaction": transaction,
                "amount": {"minor": amount * 100, "currency": "TWD"},
                "reason": "requested_by_customer",
            }))
            .unwrap(),
            requested_by: "agent-7".into(),
            on_behalf_of: None,
            server_sends: true,
            compensates: None,
            key_retention: None,
        };
        self.app.ledger.register(&acme(), &Actor::agent("agent-7"), request).await.unwrap();
        self.executor.run(&acme(), &OpId::parse(op_id).unwrap()).await.unwrap();
        self.operation(op_id).await
    }

    async fn operation(&self, op_id: &str) -> Value {
        let (status, operation) = self.app.get_json(&format!("/api/v1/operations/{op_id}")).await;
        assert_eq!(status, 200, "{operation}");
        operation
    }

    async fn reconcile(&self) {
        self.reconciler.reconcile_once().await.unwrap();
    }

    /// Lets `minutes` pass for `op_id`: the list kept before its send and the reconciler's lease
    /// on it move that far into the past.
    async fn minutes_pass(&self, op_id: &str, minutes: i64) {
        let moved = minutes * 60 * 1_000_000;
        self.app
            .tamper(&format!(
                "update send_baselines set taken_at_us = taken_at_us - {moved} where op_id = '{op_id}'"
            ))
            .await;
        self.app
            .tamper(&format!(
                "update operations set lease_until_us = lease_until_us - {moved} where op_id = '{op_id}'"
            ))
            .await;
    }
}

/// The reason the operation was handed to a person for.
fn escalation(operation: &Value) -> String {
    let audit = operation["audit"].as_array().expect("the audit trail");
    let escalated = audit.iter().rev().find(|entry| entry["to_state"] == "needs_review").expect("escalated");
    escalated["reason"].as_str().expect("a reason").to_owned()
}

/// A LINE Pay sandbox channel on its own port: the sandbox and its address.
async fn channel() -> (LinePaySandbox, String) {
    let sandbox = LinePaySandbox::new(LinePayConfig {
        channel_id: CHANNEL_ID.into(),
        channel_secret: CHANNEL_SECRET.into(),
    });
    let url = serve(sandbox.router()).await;
    (sandbox, url)
}

/// A shop whose payment of NT$1,000 was captured at the LINE Pay sandbox: the shop, the sandbox
/// and the payment's transaction id.
async fn paid_shop(engine: Engine) -> Option<(Shop, LinePaySandbox, String)> {
    let (sandbox, url) = channel().await;
    let shop = Shop::open(engine, &url).await?;
    let transaction = sandbox.pay("1043", 1_000);
    Some((shop, sandbox, transaction))
}

fn refunds(sandbox: &LinePaySandbox) -> Vec<String> {
    sandbox
        .created_objects()
        .into_iter()
        .filter(|object| object.object_type == "refund")
        .map(|o| o.id)
        .collect()
}

mod stories {
    use super::*;

    /// A refund is done at once, with LINE Pay's refundTransactionId to its last digit.
    async fn a_refund_succeeds_with_its_19_digit_id(engine: Engine) {
        let Some((shop, sandbox, transaction)) = paid_shop(engine).await else { return };
        let done = shop.refund("refund-1043-li_2", &transaction, 380).await;
        assert_eq!(done["state"], "succeeded", "{done}");
        let made = refunds(&sandbox);
        assert_eq!(made.len(), 1);
        assert_eq!(made[0].len(), 19, "{made:?}");
        assert!(made[0].parse::<u64>().unwrap() > 1 << 53);
        let refs: Vec<&str> =
            done["external_refs"].as_array().unwrap().iter().filter_map(Value::as_str).collect();
        assert!(refs.iter().any(|r| r.ends_with(&format!("/{}", made[0]))), "exactly {}: {refs:?}", made[0]);
    }

    /// The answer never comes (LINE Pay made the refund): unknown, then the reconciler finds the
    /// refund in the refundList as the one the list kept before the send did not hold.
    async fn a_dropped_answer_is_found_in_the_refund_list(engine: Engine) {
        let Some((shop, sandbox, transaction)) = paid_shop(engine).await else { return };
        let older = sandbox.refund(&transaction, 120).unwrap();
        sandbox.inject(Fault::once(&transaction, FaultKind::DropResponse, 25_000));
        let lost = shop.refund("refund-1043-li_2", &transaction, 380).await;
        assert_eq!(lost["state"], "unknown", "{lost}");
        let waited = lost["attempts"][0]["latency_ms"].as_u64().unwrap();
        assert!(waited >= 20_000, "LINE Pay's read timeout of 20 s, not the connection's 2 s: {waited} ms");
        shop.reconcile().await;
        let found = shop.operation("refund-1043-li_2").await;
        assert_eq!(found["state"], "succeeded", "{found}");
        let made = refunds(&sandbox);
        assert_eq!(made.len(), 2, "the older refund and this one: {made:?}");
        let this = made.iter().find(|id| **id != older).unwrap();
        assert!(found["external_refs"].to_string().contains(this.as_str()), "{found}");
        assert!(!found["external_refs"].to_string().contains(older.as_str()), "{found}");
    }

    /// LINE Pay answers 1198 after it refunded: never done on that answer; unknown, then settled
    /// by the lookup.
    async fn processing_is_unknown_until_the_lookup_settles_it(engine: Engine) {
        let Some((shop, sandbox, transaction)) = paid_shop(engine).await else { return };
        sandbox.inject(Fault::once(&transaction, FaultKind::ProcessingAfter, 0));
        let answered = shop.refund("refund-1043-li_2", &transaction, 380).await;
        assert_eq!(answered["state"], "unknown", "1198 is not a success: {answered}");
        assert!(answered["external_refs"].as_array().unwrap().is_empty(), "{answered}");
        assert!(answered["attempts"][0]["error"].as_str().unwrap().contains("1198"), "{answered}");
        assert_eq!(refunds(&sandbox).len(), 1, "LINE Pay made it all the same");
        shop.reconcile().await;
        let settled = shop.operation("refund-1043-li_2").await;
        assert_eq!(settled["state"], "succeeded", "{settled}");
        assert!(settled["external_refs"].to_string().contains(&refunds(&sandbox)[0]), "{settled}");
    }

    /// An older refund of the same amount, listed before the send, is never taken for this one:
    /// LINE Pay answered 1198 and made nothing, the lookup finds nothing new, and once LINE Pay's
    /// lookup lag has passed the refund goes to a person with both lists; nothing is sent again.
    async fn an_older_refund_of_the_same_amount_is_not_this_one(engine: Engine) {
        let Some((shop, sandbox, transaction)) = paid_shop(engine).await else { return };
        let older = sandbox.refund(&transaction, 380).unwrap();
        sandbox.inject(Fault::once(&transaction, FaultKind::ProcessingBefore, 0));
        let answered = shop.refund("refund-1043-li_2", &transaction, 380).await;
        assert_eq!(answered["state"], "unknown", "{answered}");
        shop.reconcile().await;
        let waiting = shop.operation("refund-1043-li_2").await;
        assert_eq!(
            waiting["state"], "unknown",
            "within LINE Pay's lookup lag it may still appear: {waiting}"
        );
        shop.minutes_pass("refund-1043-li_2", 6).await;
        shop.reconcile().await;
        let review = shop.operation("refund-1043-li_2").await;
        assert_eq!(review["state"], "needs_review", "{review}");
        let reason = escalation(&review);
        assert!(reason.contains("listed before the send") && reason.contains("listed now"), "{reason}");
        assert_eq!(reason.matches(older.as_str()).count(), 2, "the older refund in both lists: {reason}");
        assert!(!review["external_refs"].to_string().contains(older.as_str()), "{review}");
        assert_eq!(refunds(&sandbox), [older], "nothing sent again");
        assert_eq!(review["attempts"].as_array().unwrap().len(), 1, "{review}");
    }

    /// Two refunds of the amount appear that the list kept before the send did not hold (this
    /// one, answered 1198, and another made meanwhile in LINE Pay's merchant center): which is
    /// this one only a person can tell.
    async fn two_new_refunds_of_the_amount_go_to_a_person(engine: Engine) {
        let Some((shop, sandbox, transaction)) = paid_shop(engine).await else { return };
        sandbox.inject(Fault::once(&transaction, FaultKind::ProcessingAfter, 0));
        assert_eq!(shop.refund("refund-1043-li_2", &transaction, 380).await["state"], "unknown");
        sandbox.refund(&transaction, 380).unwrap();
        shop.reconcile().await;
        let review = shop.operation("refund-1043-li_2").await;
        assert_eq!(review["state"], "needs_review", "{review}");
        let reason = escalation(&review);
        assert!(reason.contains("only a person can tell"), "{reason}");
        for id in refunds(&sandbox) {
            assert!(reason.contains(&id), "{id} in {reason}");
        }
        assert!(review["external_refs"].as_array().unwrap().is_empty(), "{review}");
    }

    /// More than is left to refund is refused by the check against the payment's details, before
    /// anything is sent: nothing moves at LINE Pay.
    async fn more_than_is_left_is_refused_before_it_is_sent(engine: Engine) {
        let Some((shop, sandbox, transaction)) = paid_shop(engine).await else { return };
        let older = sandbox.refund(&transaction, 380).unwrap();
        let refused = shop.refund("refund-1043-li_2", &transaction, 700).await;
        assert_eq!(refused["state"], "rejected", "{refused}");
        let attempt = refused["attempts"][0].to_string();
        assert!(attempt.contains("not sent") && attempt.contains("left to refund"), "{attempt}");
        assert_eq!(refunds(&sandbox), [older], "nothing moved at LINE Pay");
        let kept = "select count(*) from send_baselines where op_id = 'refund-1043-li_2'";
        assert_eq!(shop.app.number(kept).await, 0, "nothing was listed for a send that never happened");
    }

    /// The full refund was made and its answer lost; while LINE Pay's list still lags, the same
    /// full refund is asked for again under another op id: LINE Pay answers 1165, the list shows
    /// no new refund, and it fails as refunded before it, with no second refund.
    async fn a_resent_full_refund_answered_1165_makes_no_second_refund(engine: Engine) {
        let Some((shop, sandbox, transaction)) = paid_shop(engine).await else { return };
        sandbox.inject(Fault::once(&transaction, FaultKind::Error500After, 0));
        sandbox.inject(Fault::once(&transaction, FaultKind::LookupLag, 60_000));
        let first = shop.refund("refund-1043-all", &transaction, 1_000).await;
        assert_eq!(first["state"], "unknown", "a 500 is not a failure: {first}");
        let again = shop.refund("refund-1043-all-again", &transaction, 1_000).await;
        assert_eq!(again["state"], "rejected", "{again}");
        assert!(again["failure_reason"].as_str().unwrap().contains("already refunded"), "{again}");
        assert!(again["failure_reason"].as_str().unwrap().contains("before this operation"), "{again}");
        assert_eq!(refunds(&sandbox).len(), 1, "one refund at LINE Pay");
    }

    /// A transaction id as a JSON number (which loses LINE Pay's last digits) or an amount in
    /// fractions of a dollar is refused at the ledger API, naming the field, with nothing
    /// recorded; the corrected request under the same op id is then recorded and refunded.
    async fn bad_input_is_refused_at_the_ledger_api(engine: Engine) {
        let Some((shop, _sandbox, transaction)) = paid_shop(engine).await else { return };
        let body = |transaction: Value, minor: i64| {
            json!({
                "op_id": "refund-1043-li_2", "kind": "refund", "subject": "order:1043", "provider": "linepay",
                "params": {"transaction": transaction, "amount": {"minor": minor, "currency": "TWD"}},
            })
        };
        let number: u64 = transaction.parse().unwrap();
        let (status, answer) = shop.app.register(&body(json!(number), 38_000)).await;
        assert_eq!(status, 422, "{answer}");
        assert!(answer.to_string().contains("params.transaction"), "{answer}");
        let (status, answer) = shop.app.register(&body(json!(transaction), 38_050)).await;
        assert_eq!(status, 422, "{answer}");
        assert!(answer.to_string().contains("params.amount"), "{answer}");
        assert_eq!(shop.app.number("select count(*) from operations").await, 0, "nothing recorded");
        let (status, answer) = shop.app.register(&body(json!(transaction), 38_000)).await;
        assert_eq!(status, 201, "{answer}");
        assert_eq!(answer["params"]["transaction"], transaction.as_str());
        shop.executor.run(&acme(), &OpId::parse("refund-1043-li_2").unwrap()).await.unwrap();
        assert_eq!(shop.operation("refund-1043-li_2").await["state"], "succeeded");
    }

    crate::on_both_engines!(
        a_refund_succeeds_with_its_19_digit_id,
        a_dropped_answer_is_found_in_the_refund_list,
        processing_is_unknown_until_the_lookup_settles_it,
        an_older_refund_of_the_same_amount_is_not_this_one,
        two_new_refunds_of_the_amount_go_to_a_person,
        more_than_is_left_is_refused_before_it_is_sent,
        a_resent_full_refund_answered_1165_makes_no_second_refund,
        bad_input_is_refused_at_the_ledger_api,
    );
}

/// A stand-in written from LINE Pay's reference pages (developers-pay.line.me/online-api-v3
/// `refund` and `retrieve-payment-details`, /online/pre-requisites for the headers and the
/// signature), not from the sandbox: it checks every request it gets and answers as the
/// reference's examples do.
mod reference {
    use super::*;
    use axum::{
        body::Bytes, extract::State, http::HeaderMap, http::Uri, routing::get, routing::post, Router,
    };
    use base64::Engine as _;
    use hmac::Mac;
    use std::sync::{Arc, Mutex};

    const TRANSACTION: &str = "2021121300698360310";
    const REFUND_ID: &str = "2021121600698710312";

    /// What the stand-in got, in order: the method, the path and query, and the body.
    #[derive(Clone, Default)]
    struct Seen {
        requests: Arc<Mutex<Vec<(String, String, String)>>>,
        /// Whether a refund was made: the payment's details list it from then on.
        refunded: Arc<Mutex<bool>>,
        /// The refund's answer: `0000`, or `1165` (someone else refunded it in full first).
        refund_code: &'static str,
    }

    /// The signature as the reference defines it, computed here with the HMAC crate directly.
    fn expected_signature(path: &str, content: &str, nonce: &str) -> String {
        let mut mac = hmac::Hmac::<sha2::Sha256>::new_from_slice(CHANNEL_SECRET.as_bytes()).unwrap();
        mac.update(format!("{CHANNEL_SECRET}{path}{content}{nonce}").as_bytes());
        base64::engine::general_purpose::STANDARD.encode(mac.finalize().into_bytes())
    }

    /// Asserts the headers every request carries and the signature over `content`.
    fn check_headers(headers: &HeaderMap, path: &str, content: &str) {
        let header = |name: &str| headers.get(name).map(|v| v.to_str().unwrap().to_owned());
        assert_eq!(header("content-type").as_deref(), Some("application/json"));
        assert_eq!(header("x-line-channelid").as_deref(), Some(CHANNEL_ID));
        let nonce = header("x-line-authorization-nonce").expect("a nonce");
        let parsed = uuid::Uuid::parse_str(&nonce).expect("the nonce is a UUID");
        assert_eq!(parsed.get_version_num(), 4, "{nonce}");
        assert_eq!(header("x-line-authorization"), Some(expected_signature(path, content, &nonce)));
    }

    async fn details(State(seen): State<Seen>, uri: Uri, headers: HeaderMap) -> String {
        let query = uri.query().unwrap_or_default().to_owned();
        check_headers(&headers, "/v3/payments", &query);
        assert_eq!(query, format!("transactionId={TRANSACTION}"));
        seen.requests.lock().unwrap().push(("GET".into(), uri.to_string(), String::new()));
        let refund_list = if *seen.refunded.lock().unwrap() {
            format!(
                r#","refundList":[{{"refundTransactionId":{REFUND_ID},"transactionType":"PAYMENT_REFUND","refundAmount":-1000,"refundTransactionDate":"2021-12-16T00:50:15Z"}}]"#
            )
        } else {
            String::new()
        };
        format!(
            r#"{{"returnCode":"0000","returnMessage":"Success.","info":[{{"transactionId":{TRANSACTION},"transactionDate":"2021-12-16T00:27:40Z","transactionType":"PAYMENT","productName":"Demo Product","currency":"TWD","payInfo":[{{"method":"CREDIT_CARD","amount":1000}}]{refund_list},"orderId":"20211216002","payStatus":"CAPTURE"}}]}}"#
        )
    }

    async fn refund(State(seen): State<Seen>, uri: Uri, headers: HeaderMap, body: Bytes) -> String {
        let body = String::from_utf8(body.to_vec()).unwrap();
        let path = format!("/v3/payments/{TRANSACTION}/refund");
        assert_eq!(uri.path(), path);
        check_headers(&headers, &path, &body);
        assert_eq!(serde_json::from_str::<Value>(&body).unwrap(), json!({"refundAmount": 1000}));
        seen.requests.lock().unwrap().push(("POST".into(), uri.to_string(), body));
        *seen.refunded.lock().unwrap() = true;
        if seen.refund_code == "1165" {
            return r#"{"returnCode":"1165","returnMessage":"A transaction already been refunded."}"#.into();
        }
        format!(
            r#"{{"returnCode":"0000","returnMessage":"Success.","info":{{"refundTransactionId":{REFUND_ID},"refundTransactionDate":"2021-12-16T00:50:15Z"}}}}"#
        )
    }

    async fn stand_in(refund_code: &'static str) -> (Seen, String) {
        let seen = Seen { refund_code, ..Seen::default() };
        let router = Router::new()
            .route("/v3/payments", get(details))
            .route("/v3/payments/{transaction}/refund", post(refund))
            .with_state(seen.clone());
        (seen, serve(router).await)
    }

    /// The connector reads the payment (its check and the list kept before the send), then sends
    /// the refund once, each request signed over exactly what it carries; the answer's id is kept
    /// to its last digit.
    async fn the_connector_speaks_line_pays_reference(engine: Engine) {
        let (seen, url) = stand_in("0000").await;
        let Some(shop) = Shop::open(engine, &url).await else { return };
        let done = shop.refund("refund-1043-all", TRANSACTION, 1_000).await;
        assert_eq!(done["state"], "succeeded", "{done}");
        assert!(done["external_refs"].to_string().contains(REFUND_ID), "{done}");
        let requests = seen.requests.lock().unwrap().clone();
        let methods: Vec<&str> = requests.iter().map(|(method, _, _)| method.as_str()).collect();
        assert_eq!(methods, ["GET", "GET", "POST"], "the check, the list before the send, the send once");
        assert_eq!(requests[2].2, r#"{"refundAmount":1000}"#, "the exact bytes signed");
    }

    /// Answered 1165, with a full refund listed now that the list before the send did not hold:
    /// that refund is this one.
    async fn answered_1165_with_a_new_full_refund_listed_is_this_refund(engine: Engine) {
        let (seen, url) = stand_in("1165").await;
        let Some(shop) = Shop::open(engine, &url).await else { return };
        let done = shop.refund("refund-1043-all", TRANSACTION, 1_000).await;
        assert_eq!(done["state"], "succeeded", "{done}");
        assert!(done["external_refs"].to_string().contains(REFUND_ID), "{done}");
        let methods: Vec<String> = seen.requests.lock().unwrap().iter().map(|(m, _, _)| m.clone()).collect();
        assert_eq!(methods, ["GET", "GET", "POST", "GET"], "listed again after 1165, never sent again");
    }

    crate::on_both_engines!(
        the_connector_speaks_line_pays_reference,
        answered_1165_with_a_new_full_refund_listed_is_this_refund,
    );
}

/// The sandbox's control API, behind the channel secret as a bearer token: a payment made there
/// is answered with its transaction id as a string, and LINE Pay's own faults are taken.
#[tokio::test]
async fn payments_and_faults_are_set_through_the_control_api() {
    let (sandbox, url) = channel().await;
    let client = reqwest::Client::new();
    let payment = json!({"orderId": "1043", "amount": 1_000});
    let control = |path: &str| format!("{url}/_sandbox/{path}");
    let refused = client.post(control("payments")).json(&payment).send().await.unwrap();
    assert_eq!(refused.status(), 401);
    let made =
        client.post(control("payments")).bearer_auth(CHANNEL_SECRET).json(&payment).send().await.unwrap();
    assert_eq!(made.status(), 201);
    let made: Value = made.json().await.unwrap();
    let transaction = made["transactionId"].as_str().expect("the id as a string").to_owned();
    assert_eq!(transaction.len(), 19, "{made}");
    for fault in ["processing_before", "processing_after", "lookup_lag", "drop_response"] {
        let set = client
            .post(control("faults"))
            .bearer_auth(CHANNEL_SECRET)
            .json(&json!({"match": transaction, "fault": fault, "ms": 10}))
            .send()
            .await
            .unwrap();
        assert_eq!(set.status(), 201, "{fault}");
    }
    let pending = json!({"match": transaction, "fault": "pending"});
    let set = client.post(control("faults")).bearer_auth(CHANNEL_SECRET).json(&pending).send().await.unwrap();
    assert_eq!(set.status(), 400, "LINE Pay holds no refund pending");
    let refund = sandbox.refund(&transaction, 1_000).unwrap();
    let ledger: Value =
        client.get(control("ledger")).bearer_auth(CHANNEL_SECRET).send().await.unwrap().json().await.unwrap();
    assert_eq!(ledger["data"][0]["id"], refund.as_str(), "{ledger}");
    assert_eq!(ledger["data"][0]["metadata"]["transactionId"], transaction.as_str());
}

/// A client written from LINE Pay's reference in Python's standard library (hmac, hashlib,
/// base64, urllib) signs its own requests to the sandbox: the sandbox accepts its signature,
/// refuses a wrong one with 1106, refuses more than is left with 1164, and LINE Pay's ids, read
/// by Python as exact integers, are the sandbox's to the last digit.
#[tokio::test]
async fn an_independent_client_signs_and_reads_the_sandbox() {
    let Some(python) = python("hmac") else { return };
    let (sandbox, url) = channel().await;
    let transaction = sandbox.pay("1043", 1_000);
    let given = json!({
        "base_url": url, "channel_id": CHANNEL_ID, "channel_secret": CHANNEL_SECRET, "transaction": transaction,
    });
    let printed = run_client(python, "linepay_client.py", vec![], given.to_string()).await;
    let observed: Value = serde_json::from_str(printed.trim()).unwrap();
    let made = refunds(&sandbox);
    assert_eq!(made.len(), 1, "{observed}");
    assert_eq!(observed["refund"]["returnCode"], "0000", "{observed}");
    assert_eq!(observed["refund"]["refundTransactionId"], made[0].as_str(), "to the last digit");
    assert_eq!(observed["details"]["returnCode"], "0000");
    assert_eq!(observed["details"]["transactionId"], transaction.as_str());
    assert_eq!(observed["details"]["refundTransactionIds"], json!([made[0]]));
    assert_eq!(observed["details"]["ids_were_numbers"], true, "sent as JSON numbers, as LINE Pay does");
    assert_eq!(observed["details"]["left"], 620);
    assert_eq!(observed["too_much"]["returnCode"], "1164");
    assert_eq!(observed["wrong_secret"]["returnCode"], "1106");
}
