//! A shop on ECPay (綠界), whose card refunds take no key: each refund is sent once with the verb
//! the payment's state allows (`R` on a closed payment, `E` then `N` for the whole of one still to
//! close), accepted, and settled at ECPay's nightly close; a lost answer is settled by finding the
//! refund in the payment's `close_data` against the list kept before the send, never by sending it
//! again, and an older refund of the same amount is never taken for it. ECPay's windows hold sends
//! back (the nightly blackout, the 30-minute wait after an HTTP 403), and what could never be sent
//! changes nothing. The connector is also driven at a stand-in written from ECPay's reference
//! alone, and ECPay's own Node client (`ecpay_aio_nodejs`) drives the sandbox.

use chrono::{Duration as ChronoDuration, TimeZone, Utc};
use serde_json::{json, Value};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use crate::support::{in_ci, serve, Engine, TestApp};
use opledger::domain::connection::ProviderKind;
use opledger::domain::ids::{Actor, OpId, TenantId};
use opledger::domain::machine::{AttemptOutcome, State};
use opledger::domain::policy::Role;
use opledger::server::app::wiring::{self, ProviderSettings};
use opledger::server::egress::EgressPolicy;
use opledger::server::ledger::connections::NewConnection;
use opledger::server::ledger::executor::{Executor, SendCheck};
use opledger::server::ledger::reconciler::Reconciler;
use opledger::server::providers::{Connector, EcpayConnector};
use opledger::server::sandbox::ecpay::{EcpayConfig, EcpaySandbox, NewPayment, TradeState};
use opledger::server::sandbox::{Fault, FaultKind};

const MERCHANT: &str = "3002607";
const HASH_KEY: &str = "pwFHCqoQZGmho4w6";
const HASH_IV: &str = "EkRm7iFT261dpevs";
const CHECK_CODE: &str = "59997889";

fn acme() -> TenantId {
    TenantId::parse("acme").unwrap()
}

/// The ids ECPay's payment notification gave a payment.
struct Paid {
    merchant_trade_no: String,
    trade_no: String,
    gwsr: String,
    amount: i64,
}

/// The application, whose tenant `acme` refunds through its own ECPay connection `ecpay` at a
/// sandbox account on its own port (ECPay's payment notifications posted to its webhook), with an
/// executor and a reconciler over its ledger that keep their connectors between runs.
struct Shop {
    app: TestApp,
    sandbox: EcpaySandbox,
    url: String,
    executor: Executor,
    reconciler: Reconciler,
}

impl Shop {
    async fn open(engine: Engine) -> Option<Shop> {
        Self::open_at(engine, None).await
    }

    /// The shop, its ECPay connection pointed at `base_url` instead of the sandbox when given.
    async fn open_at(engine: Engine, base_url: Option<String>) -> Option<Shop> {
        let app = TestApp::spawn_with(engine, |settings| {
            settings.provider_timeout = Duration::from_millis(2000);
        })
        .await?;
        let sandbox = EcpaySandbox::new(EcpayConfig::stage());
        let url = serve(sandbox.router()).await;
        let connection = NewConnection {
            name: "ecpay".into(),
            kind: ProviderKind::Ecpay,
            base_url: base_url.unwrap_or_else(|| url.clone()),
            secret: EcpayConfig::stage().secret(),
            account: Some(MERCHANT.into()),
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
        // A short lease, so that each pass of a test takes up again what the one before left.
        let reconciler = Reconciler::new(executor.clone(), ChronoDuration::zero())
            .with_lease(ChronoDuration::milliseconds(300));
        Some(Shop { app, sandbox, url, executor, reconciler })
    }

    /// Pays `merchant_trade_no` at ECPay, which posts its payment notification to the shop's
    /// webhook; the ids it gave.
    async fn pay(&self, merchant_trade_no: &str, amount: i64, state: &str, installments: u32) -> Paid {
        let request = json!({
            "merchant_trade_no": merchant_trade_no, "amount": amount, "state": state,
            "installments": installments, "return_url": self.app.url("/webhooks/providers/acme/ecpay"),
        });
        let response = reqwest::Client::new()
            .post(format!("{}/_sandbox/payments", self.url))
            .bearer_auth(HASH_KEY)
            .json(&request)
            .send()
            .await
            .unwrap();
        assert_eq!(response.status(), 201);
        let paid: Value = response.json().await.unwrap();
        assert_eq!(paid["notified"]["status"], 200, "{paid}");
        assert_eq!(paid["notified"]["body"], "1|OK", "ECPay's notification is answered as ECPay expects");
        Paid {
            merchant_trade_no: merchant_trade_no.into(),
            trade_no: paid["TradeNo"].as_str().unwrap().into(),
            gwsr: paid["gwsr"].as_str().unwrap().into(),
            amount,
        }
    }

    /// Records the refund `op_id` of `amount` whole dollars of `paid` at the ledger API, with the
    /// ids saved from ECPay's notification; the status and the answer.
    async fn record(&self, op_id: &str, paid: &Paid, amount: i64) -> (u16, Value) {
        let saved = self
            .app
            .ledger
            .saved_gateway_payment(&acme(), "ecpay", &paid.merchant_trade_no)
            .await
            .unwrap()
            .expect("the notification saved the payment's ids");
        let params = opledger::domain::ecpay::refund_value(&saved.payment, amount * 100, "1043", "li_1");
        self.app
            .register(&json!({
                "op_id": op_id, "kind": "refund", "subject": format!("order:{}", paid.merchant_trade_no),
                "provider": "ecpay", "params": params, "requested_by": "agent-7",
            }))
            .await
    }

    /// Records and sends the refund `op_id`; the state it reached.
    async fn refund(&self, op_id: &str, paid: &Paid, amount: i64) -> State {
        let (status, recorded) = self.record(op_id, paid, amount).await;
        assert_eq!(status, 201, "{recorded}");
        self.send(op_id).await
    }

    async fn send(&self, op_id: &str) -> State {
        let sent = self.executor.run(&acme(), &OpId::parse(op_id).unwrap()).await.unwrap();
        sent.operation.snapshot.state
    }

    async fn operation(&self, op_id: &str) -> Value {
        let (status, operation) = self.app.get_json(&format!("/api/v1/operations/{op_id}")).await;
        assert_eq!(status, 200, "{operation}");
        operation
    }

    /// Runs reconciler passes until `op_id` reaches `state` (at most 30); the operation.
    async fn settles(&self, op_id: &str, state: &str) -> Value {
        for _ in 0..30 {
            self.reconciler.reconcile_once().await.unwrap();
            let operation = self.operation(op_id).await;
            if operation["state"] == state {
                return operation;
            }
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
        panic!("{op_id} did not become {state}: {}", self.operation(op_id).await);
    }

    fn fault(&self, merchant_trade_no: &str, fault: FaultKind, ms: u64) {
        self.sandbox.inject(Fault::once(merchant_trade_no, fault, ms));
    }

    async fn nightly_close(&self) {
        let response = reqwest::Client::new()
            .post(format!("{}/_sandbox/nightly_close", self.url))
            .bearer_auth(HASH_KEY)
            .send()
            .await
            .unwrap();
        assert_eq!(response.status(), 200);
    }

    /// The refunds ECPay made, as `(sno, Action, amount in dollars)`.
    fn refunds(&self) -> Vec<(String, String, i64)> {
        self.sandbox
            .created_objects()
            .into_iter()
            .map(|made| (made.id, made.metadata["Action"].clone(), made.amount.unwrap_or_default() / 100))
            .collect()
    }

    fn do_action_calls(&self) -> Vec<String> {
        self.sandbox.calls().into_iter().filter(|path| path.ends_with("DoAction")).collect()
    }
}

fn last_reason(operation: &Value) -> String {
    let audit = operation["audit"].as_array().cloned().unwrap_or_default();
    audit.last().and_then(|entry| entry["reason"].as_str()).unwrap_or_default().to_owned()
}

fn last_attempt_error(operation: &Value) -> String {
    let attempts = operation["attempts"].as_array().cloned().unwrap_or_default();
    attempts.last().and_then(|attempt| attempt["error"].as_str()).unwrap_or_default().to_owned()
}

async fn a_partial_refund_of_a_closed_payment_is_an_r_and_succeeds_at_the_nightly_close(engine: Engine) {
    let Some(shop) = Shop::open(engine).await else { return };
    let paid = shop.pay("TW1043A", 1200, "closed", 0).await;
    assert_eq!(shop.refund("refund-1043-li_1", &paid, 380).await, State::Accepted);
    let made = shop.refunds();
    assert_eq!(made.len(), 1);
    assert_eq!((made[0].1.as_str(), made[0].2), ("R", 380));
    let operation = shop.operation("refund-1043-li_1").await;
    assert!(
        operation["external_refs"].to_string().contains(&made[0].0),
        "recorded with ECPay's sno: {operation}"
    );
    shop.reconciler.reconcile_once().await.unwrap();
    assert_eq!(
        shop.operation("refund-1043-li_1").await["state"],
        "accepted",
        "要關帳 until the nightly close"
    );
    shop.nightly_close().await;
    shop.settles("refund-1043-li_1", "succeeded").await;
    assert_eq!(shop.refunds().len(), 1, "sent once");
}

async fn a_full_refund_of_a_payment_to_close_cancels_the_close_then_abandons_it(engine: Engine) {
    let Some(shop) = Shop::open(engine).await else { return };
    let paid = shop.pay("TW1043A", 1200, "to_close", 0).await;
    assert_eq!(shop.refund("refund-1043-all", &paid, 1200).await, State::Accepted);
    assert_eq!(shop.do_action_calls().len(), 2, "E, then N");
    let made = shop.refunds();
    assert_eq!(made.len(), 1);
    assert_eq!((made[0].1.as_str(), made[0].2), ("N", 1200), "the whole authorisation abandoned");
    let operation = shop.settles("refund-1043-all", "succeeded").await;
    assert!(operation["external_refs"].to_string().contains(&made[0].0), "ECPay's sno: {operation}");
}

async fn a_lost_answer_is_found_in_close_data_against_the_list_kept_before_the_send(engine: Engine) {
    let Some(shop) = Shop::open(engine).await else { return };
    let paid = shop.pay("TW1043A", 1200, "closed", 0).await;
    assert_eq!(shop.refund("refund-1043-li_1", &paid, 100).await, State::Accepted);
    shop.fault("TW1043A", FaultKind::DropResponse, 4000);
    shop.fault("TW1043A", FaultKind::LookupLag, 5000);
    assert_eq!(
        shop.refund("refund-1043-li_2", &paid, 380).await,
        State::Unknown,
        "no answer: unknown, not failed"
    );
    let made = shop.refunds();
    assert_eq!(made.len(), 2, "ECPay made it before the answer was lost");
    shop.reconciler.reconcile_once().await.unwrap();
    assert_eq!(
        shop.operation("refund-1043-li_2").await["state"],
        "unknown",
        "ECPay does not list it yet, and its lookup lag has not passed since the list was kept"
    );
    tokio::time::sleep(Duration::from_millis(3500)).await;
    let operation = shop.settles("refund-1043-li_2", "accepted").await;
    assert!(
        operation["external_refs"].to_string().contains(&made[1].0),
        "found as ECPay's sno {}: {operation}",
        made[1].0
    );
    assert_eq!(operation["attempts"].as_array().unwrap().len(), 1, "never sent again");
    shop.nightly_close().await;
    shop.settles("refund-1043-li_2", "succeeded").await;
    assert_eq!(shop.refunds().len(), 2);

    let other = shop.pay("TW1044A", 900, "closed", 0).await;
    shop.fault("TW1044A", FaultKind::Error500After, 0);
    assert_eq!(
        shop.refund("refund-1044-li_1", &other, 900).await,
        State::Unknown,
        "a 500 is unknown, not failed"
    );
    let made = shop.refunds();
    assert_eq!(made.len(), 3, "ECPay made it, then answered 500");
    let operation = shop.settles("refund-1044-li_1", "accepted").await;
    assert!(operation["external_refs"].to_string().contains(&made[2].0), "{operation}");
    assert_eq!(operation["attempts"].as_array().unwrap().len(), 1, "never sent again");
}

async fn an_older_refund_of_the_same_amount_is_never_taken_for_this_one(engine: Engine) {
    let Some(shop) = Shop::open(engine).await else { return };
    let paid = shop.pay("TW1043A", 1200, "closed", 0).await;
    assert_eq!(shop.refund("refund-1043-li_1", &paid, 380).await, State::Accepted);
    let older = shop.refunds()[0].0.clone();
    shop.fault("TW1043A", FaultKind::Error500Before, 0);
    assert_eq!(shop.refund("refund-1043-li_2", &paid, 380).await, State::Unknown);
    assert_eq!(shop.refunds().len(), 1, "the 500 came before anything was done");

    shop.reconciler.reconcile_once().await.unwrap();
    assert_eq!(
        shop.operation("refund-1043-li_2").await["state"],
        "unknown",
        "within ECPay's lookup lag, counted from the list kept before the send, nothing new may still appear"
    );
    shop.app
        .tamper("update send_baselines set taken_at_us = taken_at_us - 660000000 where op_id = 'refund-1043-li_2'")
        .await;
    let operation = shop.settles("refund-1043-li_2", "needs_review").await;
    let reason = last_reason(&operation);
    assert!(reason.contains("no new refund of NT$380"), "{reason}");
    assert!(reason.contains("before the send it listed"), "{reason}");
    assert_eq!(reason.matches(&older).count(), 2, "both lists name the older refund: {reason}");
    assert_eq!(shop.refunds().len(), 1, "never sent again");
}

async fn two_new_refunds_of_the_amount_go_to_a_person(engine: Engine) {
    let Some(shop) = Shop::open(engine).await else { return };
    let paid = shop.pay("TW1043A", 1200, "closed", 0).await;
    shop.fault("TW1043A", FaultKind::DropResponse, 4000);
    assert_eq!(shop.refund("refund-1043-li_2", &paid, 380).await, State::Unknown);
    let by_hand = [
        ("MerchantID", MERCHANT.to_owned()),
        ("MerchantTradeNo", paid.merchant_trade_no.clone()),
        ("TradeNo", paid.trade_no.clone()),
        ("Action", "R".to_owned()),
        ("TotalAmount", "380".to_owned()),
    ];
    let mut form: Vec<(String, String)> = by_hand.iter().map(|(k, v)| ((*k).to_owned(), v.clone())).collect();
    form.push(("CheckMacValue".into(), reference_check_mac_value(&form)));
    let answer = reqwest::Client::new()
        .post(format!("{}/CreditDetail/DoAction", shop.url))
        .form(&form)
        .send()
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    assert!(answer.contains("RtnCode=1"), "someone refunds NT$380 at ECPay by hand: {answer}");
    let operation = shop.settles("refund-1043-li_2", "needs_review").await;
    let reason = last_reason(&operation);
    assert!(reason.contains("several new refunds of NT$380"), "{reason}");
    assert!(reason.contains("only a person can tell"), "{reason}");
    assert_eq!(shop.refunds().len(), 2, "never sent again");
}

async fn an_http_403_sends_nothing_and_the_next_send_waits_30_minutes(engine: Engine) {
    let Some(shop) = Shop::open(engine).await else { return };
    let paid = shop.pay("TW1043A", 1200, "closed", 0).await;
    shop.fault("TW1043A", FaultKind::RateLimit, 0);
    let state = shop.refund("refund-1043-li_1", &paid, 380).await;
    assert!(matches!(state, State::Planned), "nothing was done, so it may be sent later: {state:?}");
    let operation = shop.operation("refund-1043-li_1").await;
    let first = operation["attempts"][0].clone();
    assert_eq!(first["outcome"], "transient_unavailable", "{first}");
    assert_eq!(first["http_status"], 403);
    assert_eq!(first["retry_after_s"], 1800);
    assert!(shop.refunds().is_empty());

    let calls = shop.sandbox.calls().len();
    assert_eq!(shop.send("refund-1043-li_1").await, State::Planned);
    let operation = shop.operation("refund-1043-li_1").await;
    let words = last_attempt_error(&operation);
    assert!(words.contains("HTTP 403") && words.contains("takes none for 30 minutes"), "{words}");
    assert!(words.contains("Taiwan time"), "says until when: {words}");
    assert_eq!(shop.sandbox.calls().len(), calls, "not one call to ECPay while it waits");
    assert!(shop.refunds().is_empty());
}

async fn inside_the_nightly_blackout_nothing_is_sent_until_20_30(engine: Engine) {
    let Some(shop) = Shop::open(engine).await else { return };
    let paid = shop.pay("TW1043A", 1200, "closed", 0).await;
    let (status, recorded) = shop.record("refund-1043-li_1", &paid, 380).await;
    assert_eq!(status, 201, "{recorded}");
    let operation = shop
        .app
        .ledger
        .reads()
        .load_operation(&acme(), &OpId::parse("refund-1043-li_1").unwrap())
        .await
        .unwrap()
        .unwrap();
    let twenty_twenty_in_taipei = Utc.with_ymd_and_hms(2026, 12, 5, 12, 20, 0).unwrap();
    let connector = EcpayConnector::new(
        &shop.url,
        &EcpayConfig::stage().secret(),
        MERCHANT,
        Duration::from_secs(2),
        &EgressPolicy::unrestricted(),
    )
    .unwrap()
    .with_clock(move || twenty_twenty_in_taipei);
    let calls = shop.sandbox.calls().len();
    match shop.executor.may_send(&acme(), &operation, &connector).await.unwrap() {
        SendCheck::Unavailable(words) => {
            assert!(words.contains("from 20:15 to 20:30 Taiwan time"), "{words}");
            assert!(words.contains("2026-12-05 20:30 Taiwan time"), "{words}");
        }
        other => panic!("not sent inside the blackout: {other:?}"),
    }
    let sent = connector.send(&operation).await;
    assert!(matches!(sent.outcome, AttemptOutcome::Failed { .. }), "{sent:?}");
    assert!(sent.report.error.unwrap_or_default().contains("20:30"));
    assert_eq!(shop.sandbox.calls().len(), calls, "no call to ECPay inside the blackout");
    assert!(shop.refunds().is_empty());
}

async fn what_could_never_be_sent_changes_nothing(engine: Engine) {
    let Some(shop) = Shop::open(engine).await else { return };
    let paid = shop.pay("TW1043A", 1200, "closed", 0).await;
    assert_eq!(shop.refund("refund-1043-li_1", &paid, 1000).await, State::Accepted);
    assert_eq!(shop.refund("refund-1043-li_2", &paid, 380).await, State::Rejected, "above what is left");
    let words = last_attempt_error(&shop.operation("refund-1043-li_2").await);
    assert!(words.contains("NT$380 is more than the NT$200 left"), "{words}");
    assert_eq!(shop.refunds().len(), 1);

    let installments = shop.pay("TW1044A", 1200, "closed", 6).await;
    let saved = shop.app.ledger.saved_gateway_payment(&acme(), "ecpay", "TW1044A").await.unwrap().unwrap();
    assert!(saved.payment.full_refund_only, "stage 6 in ECPay's notification");
    let (status, refused) = shop.record("refund-1044-li_1", &installments, 380).await;
    assert_eq!(status, 422, "{refused}");
    assert_eq!(refused["error"]["field"], "params.amount", "{refused}");
    let (status, _) = shop.app.get_json("/api/v1/operations/refund-1044-li_1").await;
    assert_eq!(status, 404, "nothing recorded");
    assert_eq!(
        shop.refund("refund-1044-li_1", &installments, 1200).await,
        State::Accepted,
        "in full, it goes"
    );
    assert_eq!(shop.refunds().len(), 2);

    let mut no_gwsr =
        shop.app.ledger.saved_gateway_payment(&acme(), "ecpay", "TW1043A").await.unwrap().unwrap().payment;
    no_gwsr.ids.remove("gwsr");
    let params = opledger::domain::ecpay::refund_value(&no_gwsr, 10_000, "1043", "li_3");
    let (status, refused) = shop
        .app
        .register(&json!({
            "op_id": "refund-1043-li_3", "kind": "refund", "subject": "order:1043", "provider": "ecpay",
            "params": params, "requested_by": "agent-7",
        }))
        .await;
    assert_eq!(status, 422, "{refused}");
    assert_eq!(refused["error"]["field"], "params.gwsr", "{refused}");
}

async fn a_notification_is_saved_only_under_its_check_mac_value(engine: Engine) {
    let Some(shop) = Shop::open(engine).await else { return };
    let payment = NewPayment {
        merchant_trade_no: "TW1046A".into(),
        amount: 900,
        state: TradeState::Closed,
        installments: 0,
        red_dan: 0,
        return_url: None,
    };
    let genuine = shop.sandbox.pay(&payment);
    let mut forged = genuine.clone();
    forged.iter_mut().find(|(name, _)| name == "TradeAmt").unwrap().1 = "9000".into();
    let webhook = shop.app.url("/webhooks/providers/acme/ecpay");
    let client = reqwest::Client::new();
    let refused = client.post(&webhook).form(&forged).send().await.unwrap();
    assert_eq!(refused.status(), 400);
    let saved = shop.app.ledger.saved_gateway_payment(&acme(), "ecpay", "TW1046A").await.unwrap();
    assert!(saved.is_none(), "nothing saved");

    let taken = client.post(&webhook).form(&genuine).send().await.unwrap();
    assert_eq!(taken.status(), 200);
    assert_eq!(taken.text().await.unwrap(), "1|OK");
    let saved = shop.app.ledger.saved_gateway_payment(&acme(), "ecpay", "TW1046A").await.unwrap().unwrap();
    let sent = |name: &str| genuine.iter().find(|(key, _)| key == name).map(|(_, value)| value.clone());
    assert_eq!(saved.payment.ids.get("TradeNo").cloned(), sent("TradeNo"));
    assert_eq!(saved.payment.ids.get("gwsr").cloned(), sent("gwsr"));
    assert_eq!(saved.payment.paid_minor, 90_000);
}

/// CheckMacValue as ECPay's reference writes the rule (developers.ecpay.com.tw/?p=2902), apart
/// from the connector's: parameters sorted by name without regard to case, `k=v` joined by `&`
/// between `HashKey=…&` and `&HashIV=…`, URL-encoded with space as `+`, lower-cased, `-_.!*()`
/// left as they are, SHA-256 in upper-case hex.
fn reference_check_mac_value(fields: &[(String, String)]) -> String {
    use sha2::Digest;
    let mut sorted: Vec<&(String, String)> =
        fields.iter().filter(|(name, _)| name != "CheckMacValue").collect();
    sorted.sort_by_key(|(name, _)| name.to_lowercase());
    let joined: Vec<String> = sorted.iter().map(|(name, value)| format!("{name}={value}")).collect();
    let raw = format!("HashKey={HASH_KEY}&{}&HashIV={HASH_IV}", joined.join("&"));
    let encoded: String = raw
        .bytes()
        .map(|byte| match byte {
            b'a'..=b'z' | b'A'..=b'Z' | b'0'..=b'9' | b'-' | b'_' | b'.' | b'!' | b'*' | b'(' | b')' => {
                (byte as char).to_string()
            }
            b' ' => "+".to_owned(),
            _ => format!("%{byte:02x}"),
        })
        .collect::<String>()
        .to_lowercase();
    hex::encode_upper(sha2::Sha256::digest(encoded.as_bytes()))
}

/// What the stand-in written from ECPay's reference saw: the forms, by path, in order.
type Seen = Arc<Mutex<Vec<(String, Vec<(String, String)>)>>>;

/// A stand-in written from ECPay's reference, not from the sandbox: QueryTrade/V2 answers the
/// payment TW1043A (gwsr 11943361, NT$1200, 已關帳) with no refund before a DoAction and one
/// refund, sno 2501 of NT$380 要關帳, after; DoAction answers the URL-encoded form with RtnCode 1.
async fn reference_stand_in(seen: Seen) -> String {
    use axum::{extract::State as Shared, routing::post, Form, Router};
    async fn query_trade(
        Shared(seen): Shared<Seen>,
        Form(form): Form<Vec<(String, String)>>,
    ) -> axum::Json<Value> {
        let refunded = seen.lock().unwrap().iter().any(|(path, _)| path == "DoAction");
        seen.lock().unwrap().push(("QueryTrade/V2".into(), form));
        let close_data = if refunded {
            json!([{"status": "要關帳", "amount": "380", "sno": "2501", "datetime": "2026/12/05 13:00:00"}])
        } else {
            json!([])
        };
        axum::Json(json!({"RtnMsg": "", "RtnValue": {
            "TradeID": "11943361", "amount": "1200", "clsamt": "1200", "authtime": "2026/12/01 12:00:00",
            "status": "已關帳", "close_data": close_data,
        }}))
    }
    async fn do_action(Shared(seen): Shared<Seen>, Form(form): Form<Vec<(String, String)>>) -> String {
        seen.lock().unwrap().push(("DoAction".into(), form));
        "MerchantID=3002607&MerchantTradeNo=TW1043A&TradeNo=2601011200000001&RtnCode=1&RtnMsg=%E6%88%90%E5%8A%9F".into()
    }
    let router = Router::new()
        .route("/CreditDetail/QueryTrade/V2", post(query_trade))
        .route("/CreditDetail/DoAction", post(do_action))
        .with_state(seen);
    serve(router).await
}

async fn the_connector_sends_the_forms_ecpays_reference_describes(engine: Engine) {
    let seen = Seen::default();
    let stand_in = reference_stand_in(seen.clone()).await;
    let Some(shop) = Shop::open_at(engine, Some(stand_in)).await else { return };
    let paid = Paid {
        merchant_trade_no: "TW1043A".into(),
        trade_no: "2601011200000001".into(),
        gwsr: "11943361".into(),
        amount: 1200,
    };
    let params = json!({
        "payment": paid.merchant_trade_no, "trade_no": paid.trade_no, "gwsr": paid.gwsr,
        "amount": {"minor": 38_000, "currency": "TWD"}, "paid": {"minor": paid.amount * 100, "currency": "TWD"},
        "full_refund_only": false,
    });
    let (status, recorded) = shop
        .app
        .register(&json!({
            "op_id": "refund-1043-li_2", "kind": "refund", "subject": "order:1043", "provider": "ecpay",
            "params": params, "requested_by": "agent-7",
        }))
        .await;
    assert_eq!(status, 201, "{recorded}");
    assert_eq!(shop.send("refund-1043-li_2").await, State::Accepted);
    let operation = shop.operation("refund-1043-li_2").await;
    assert!(operation["external_refs"].to_string().contains("2501"), "ECPay's sno: {operation}");

    let seen = seen.lock().unwrap().clone();
    let paths: Vec<&str> = seen.iter().map(|(path, _)| path.as_str()).collect();
    assert_eq!(
        paths,
        ["QueryTrade/V2", "QueryTrade/V2", "DoAction", "QueryTrade/V2"],
        "read to check, read for the list kept before the send, the refund, read for its sno"
    );
    let named = |form: &[(String, String)]| form.iter().map(|(name, _)| name.clone()).collect::<Vec<_>>();
    let query = &seen[0].1;
    let mut names = named(query);
    names.sort();
    assert_eq!(names, ["CheckMacValue", "CreditAmount", "CreditCheckCode", "CreditRefundId", "MerchantID"]);
    let value = |form: &[(String, String)], name: &str| {
        form.iter().find(|(key, _)| key == name).map(|(_, value)| value.clone()).unwrap()
    };
    assert_eq!(value(query, "MerchantID"), MERCHANT);
    assert_eq!(value(query, "CreditRefundId"), "11943361", "the payment's gwsr");
    assert_eq!(value(query, "CreditAmount"), "1200", "what was paid, in whole dollars");
    assert_eq!(value(query, "CreditCheckCode"), CHECK_CODE);
    assert_eq!(value(query, "CheckMacValue"), reference_check_mac_value(query));

    let action = &seen[2].1;
    let mut names = named(action);
    names.sort();
    assert_eq!(names, ["Action", "CheckMacValue", "MerchantID", "MerchantTradeNo", "TotalAmount", "TradeNo"]);
    assert_eq!(value(action, "Action"), "R");
    assert_eq!(value(action, "TotalAmount"), "380", "the refund, not the payment");
    assert_eq!(value(action, "CheckMacValue"), reference_check_mac_value(action));
    assert_eq!(
        value(action, "CheckMacValue"),
        "7939B8C322B71A3A70E2445AC787530489E75299EB30B809D5E63C7DFB4B42AF",
        "the value Python and ECPay's Node client give for this refund"
    );
}

/// The Node with ECPay's client installed in tests/ecpay, or `None` (a failure in CI) with the
/// reason printed.
fn node_with_ecpay_client() -> Option<std::path::PathBuf> {
    let folder = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/ecpay");
    let node_runs =
        std::process::Command::new("node").arg("--version").output().is_ok_and(|out| out.status.success());
    let installed = folder.join("node_modules/ecpay_aio_nodejs/package.json").exists();
    if !node_runs || !installed {
        assert!(!in_ci(), "ECPay's Node client is needed in CI: Node on the PATH and `npm ci` in tests/ecpay (scripts/test.sh does)");
        eprintln!("SKIPPED: ECPay's Node client needs Node on the PATH and `npm ci` in tests/ecpay (scripts/test.sh does)");
        return None;
    }
    Some(folder)
}

/// Runs tests/ecpay/client.js with `input`; the JSON it printed on its last line. The client prints
/// what it signs, HashKey included: that stays out of the test's output.
async fn run_ecpay_client(folder: std::path::PathBuf, input: Value) -> Value {
    use std::io::Write;
    let output = tokio::task::spawn_blocking(move || {
        let mut child = std::process::Command::new("node")
            .arg("client.js")
            .current_dir(folder)
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        child.stdin.take().unwrap().write_all(input.to_string().as_bytes()).unwrap();
        child.wait_with_output().unwrap()
    })
    .await
    .unwrap();
    let printed = String::from_utf8_lossy(&output.stdout);
    let last = printed.lines().rev().find(|line| !line.trim().is_empty()).unwrap_or_default().to_owned();
    assert!(output.status.success(), "ECPay's Node client failed: {last}");
    serde_json::from_str(&last).unwrap_or_else(|_| panic!("ECPay's Node client printed no JSON last: {last}"))
}

#[tokio::test]
async fn ecpays_node_client_refunds_and_lists_at_the_sandbox() {
    let Some(folder) = node_with_ecpay_client() else { return };
    let sandbox = EcpaySandbox::new(EcpayConfig::stage());
    let url = serve(sandbox.router()).await;
    let payment = NewPayment {
        merchant_trade_no: "TW1043A".into(),
        amount: 1200,
        state: TradeState::Closed,
        installments: 0,
        red_dan: 0,
        return_url: None,
    };
    let notice = sandbox.pay(&payment);
    let sent =
        |name: &str| notice.iter().find(|(key, _)| key == name).map(|(_, value)| value.clone()).unwrap();
    let query = json!({"call": "query_trade", "params": {"CreditRefundId": sent("gwsr"), "CreditAmount": "1200", "CreditCheckCode": CHECK_CODE}});
    let refund = |trade_no: String, amount: &str| json!({"call": "do_action", "params": {"MerchantTradeNo": "TW1043A", "TradeNo": trade_no, "Action": "R", "TotalAmount": amount}});
    let input = json!({
        "base_url": url, "merchant_id": MERCHANT, "hash_key": HASH_KEY, "hash_iv": HASH_IV,
        "calls": [
            query,
            refund(sent("TradeNo"), "380"),
            refund(sent("TradeNo"), "1000"),
            refund("2601019999999999".into(), "380"),
            query,
        ],
    });
    let answers = run_ecpay_client(folder, input).await;
    assert_eq!(answers[0]["RtnValue"]["status"], "已關帳", "{answers}");
    assert_eq!(answers[0]["RtnValue"]["close_data"], json!([]));
    assert_eq!(answers[1]["RtnCode"], "1", "the refund is taken under the client's CheckMacValue: {answers}");
    assert_eq!(answers[1]["TradeNo"], sent("TradeNo"));
    assert_eq!(answers[2]["RtnCode"], "0", "more than is left: {answers}");
    assert_eq!(answers[2]["RtnMsg"], "更新失敗.(error_amount_R)");
    assert_eq!(answers[3]["RtnMsg"], "訂單不存在");
    let rows = answers[4]["RtnValue"]["close_data"].as_array().unwrap();
    assert_eq!(rows.len(), 1, "{answers}");
    assert_eq!((rows[0]["amount"].as_i64(), rows[0]["status"].as_str()), (Some(380), Some("要關帳")));
    assert_eq!(sandbox.created_objects().len(), 1);
}

crate::on_both_engines!(
    a_partial_refund_of_a_closed_payment_is_an_r_and_succeeds_at_the_nightly_close,
    a_full_refund_of_a_payment_to_close_cancels_the_close_then_abandons_it,
    a_lost_answer_is_found_in_close_data_against_the_list_kept_before_the_send,
    an_older_refund_of_the_same_amount_is_never_taken_for_this_one,
    two_new_refunds_of_the_amount_go_to_a_person,
    an_http_403_sends_nothing_and_the_next_send_waits_30_minutes,
    inside_the_nightly_blackout_nothing_is_sent_until_20_30,
    what_could_never_be_sent_changes_nothing,
    a_notification_is_saved_only_under_its_check_mac_value,
    the_connector_sends_the_forms_ecpays_reference_describes,
);
