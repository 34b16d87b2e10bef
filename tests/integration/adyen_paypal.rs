//! Shops on Adyen and PayPal, against sandboxes built from those providers' API references and
//! proven with their official Python libraries: the Adyen sandbox answers every refund
//! `received` and says the outcome in a signed `REFUND` notification that `Adyen.util` verifies;
//! the PayPal sandbox gives tokens by the client credentials, refunds under `PayPal-Request-Id`
//! and answers its 409 and 422s as `paypal-server-sdk` expects. Then, for each provider, the order
//! 1043 story over real HTTP: the answer dropped, the tool called again, the operation settled by
//! that provider's own means (Adyen: its webhook, or a re-send under the same key, since it cannot
//! be asked; PayPal: a lookup in the capture's order) and exactly one refund at the provider; an
//! asynchronous failure ends as a failure; and a key past its provider's window is never re-sent.

use chrono::Duration as ChronoDuration;
use serde_json::{json, Value};
use std::time::Duration;

use crate::support::{python, run_client, serve, Engine, TestApp};
use opledger::domain::connection::{ProviderKind, ORDERS_PROVIDER};
use opledger::domain::ids::{Actor, TenantId};
use opledger::domain::policy::Role;
use opledger::server::app::wiring::{self, ProviderSettings};
use opledger::server::demo::accounts::{adyen_orders, paypal_orders};
use opledger::server::ledger::connections::NewConnection;
use opledger::server::ledger::reconciler::Reconciler;
use opledger::server::sandbox::adyen::{AdyenConfig, AdyenSandbox};
use opledger::server::sandbox::paypal::{PayPalConfig, PayPalSandbox};
use opledger::server::sandbox::{CreatedObject, Fault, FaultKind};

const ADYEN_KEY: &str = "AQE-test-api-key";
const MERCHANT: &str = "ShopECOM";
const HMAC_KEY: &str = "44782DEF547AAA06C910C43932B1EB0C71FC68D9D0C057550C48EC2ACF6BA056";
const CLIENT_ID: &str = "AZ-test-client";
const CLIENT_SECRET: &str = "EL-test-secret";
const WEBHOOK_ID: &str = "WH-1A2B3C";
const REFUND: &str = "refund-1043-li_2";
const KEY: &str = "acme:refund-1043-li_2";

/// One of the two providers, as a sandbox on its own port.
#[derive(Clone)]
enum Account {
    Adyen(AdyenSandbox),
    PayPal(PayPalSandbox),
}

impl Account {
    fn kind(&self) -> ProviderKind {
        match self {
            Account::Adyen(_) => ProviderKind::Adyen,
            Account::PayPal(_) => ProviderKind::PayPal,
        }
    }

    fn inject(&self, fault: Fault) {
        match self {
            Account::Adyen(sandbox) => sandbox.inject(fault),
            Account::PayPal(sandbox) => sandbox.inject(fault),
        }
    }

    /// Every refund the provider really made.
    fn refunds(&self) -> Vec<CreatedObject> {
        match self {
            Account::Adyen(sandbox) => sandbox.created_objects(),
            Account::PayPal(sandbox) => sandbox.created_objects(),
        }
    }
}

/// An Adyen sandbox that keeps keys for `retention`, on its own port: the sandbox and its address.
async fn adyen_account(retention: ChronoDuration) -> (AdyenSandbox, String) {
    let config = AdyenConfig {
        api_key: ADYEN_KEY.into(),
        merchant_account: MERCHANT.into(),
        hmac_key: HMAC_KEY.into(),
        key_retention: retention,
    };
    let sandbox = AdyenSandbox::new(config, adyen_orders());
    let url = serve(sandbox.router()).await;
    (sandbox, url)
}

async fn paypal_account(retention: ChronoDuration) -> (PayPalSandbox, String) {
    let config = PayPalConfig {
        client_id: CLIENT_ID.into(),
        client_secret: CLIENT_SECRET.into(),
        key_retention: retention,
    };
    let sandbox = PayPalSandbox::new(config, paypal_orders());
    let url = serve(sandbox.router()).await;
    (sandbox, url)
}

/// The application, whose tenant `acme` refunds through its own account at `kind`'s sandbox (the
/// provider keeping keys for `retention`) and reads its orders from the shop's endpoint there,
/// with the webhooks of that account verified; and a reconciler over its ledger.
struct Shop {
    app: TestApp,
    account: Account,
    reconciler: Reconciler,
}

impl Shop {
    async fn open(engine: Engine, kind: ProviderKind, retention: Option<ChronoDuration>) -> Option<Shop> {
        let app = TestApp::spawn_with(engine, |settings| {
            settings.provider_timeout = Duration::from_millis(2000);
        })
        .await?;
        let acme = TenantId::parse("acme").unwrap();
        let admin = Actor::human("alex", Role::Admin);
        let (account, base_url, secret, account_name, webhook_secret) = match kind {
            ProviderKind::Adyen => {
                let (sandbox, url) = adyen_account(retention.unwrap_or(ChronoDuration::days(31))).await;
                sandbox.notify(&app.url("/webhooks/providers/acme/adyen"));
                (Account::Adyen(sandbox), url, ADYEN_KEY, MERCHANT, HMAC_KEY)
            }
            _ => {
                let (sandbox, url) = paypal_account(retention.unwrap_or(ChronoDuration::days(45))).await;
                sandbox.send_events_to(&app.url("/webhooks/providers/acme/paypal"), WEBHOOK_ID);
                (Account::PayPal(sandbox), url, CLIENT_SECRET, CLIENT_ID, WEBHOOK_ID)
            }
        };
        let api = if kind == ProviderKind::Adyen { format!("{base_url}/v71") } else { base_url.clone() };
        let refunds = NewConnection {
            name: kind.as_str().into(),
            kind,
            base_url: api,
            secret: secret.into(),
            account: Some(account_name.into()),
            key_retention: None,
            description: None,
        };
        app.ledger.set_provider_connection(&acme, &admin, refunds).await.unwrap();
        let orders = NewConnection {
            name: ORDERS_PROVIDER.into(),
            kind: ProviderKind::Orders,
            base_url,
            secret: secret.into(),
            account: None,
            key_retention: None,
            description: None,
        };
        app.ledger.set_provider_connection(&acme, &admin, orders).await.unwrap();
        app.ledger.set_webhook_secret(&acme, &admin, kind.as_str(), webhook_secret).await.unwrap();
        let providers = ProviderSettings {
            tenants: vec![acme],
            stripe_base_url: None,
            services_base_url: None,
            secret_key: String::new(),
            timeout: Duration::from_millis(2000),
        };
        let reconciler =
            Reconciler::new(wiring::executor(app.ledger.clone(), &providers), ChronoDuration::zero());
        Some(Shop { app, account, reconciler })
    }

    /// The agent's tool: refunds line item 2 of order 1043; the tool's answer.
    async fn refund_item(&self) -> Value {
        let call = json!({"order_id": "1043", "line_item_id": "li_2"});
        let (status, answer) = self.app.post("/api/v1/tools/refund_item", &call).await;
        assert_eq!(status, 200, "{answer}");
        answer
    }

    async fn operation(&self) -> Value {
        let (status, operation) = self.app.get_json(&format!("/api/v1/operations/{REFUND}")).await;
        assert_eq!(status, 200, "{operation}");
        operation
    }

    /// Waits up to `seconds` for the refund to reach `state`.
    async fn becomes(&self, state: &str, seconds: u64) -> Value {
        for _ in 0..seconds * 10 {
            let now = self.operation().await;
            if now["state"] == state {
                return now;
            }
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
        panic!("{REFUND} did not become {state}: {}", self.operation().await);
    }

    async fn reconcile(&self) {
        self.reconciler.reconcile_once().await.unwrap();
    }

    /// The agent records a refund it sends itself and reports that its send timed out: the
    /// provider never saw it.
    async fn timed_out_without_reaching_the_provider(&self) {
        let order = match self.account.kind() {
            ProviderKind::Adyen => adyen_orders().remove(0),
            _ => paypal_orders().remove(0),
        };
        let params = opledger::server::providers::orders::refund_params(
            self.account.kind(),
            &order,
            &order.line_items[1],
        );
        let body = json!({
            "op_id": REFUND, "kind": "refund", "subject": "order:1043",
            "provider": self.account.kind().as_str(), "params": params, "requested_by": "agent-7",
        });
        let (status, registered) = self.app.register(&body).await;
        assert_eq!(status, 201, "{registered}");
        assert_eq!(self.app.begin_attempt(REFUND).await.0, 201);
        assert_eq!(self.app.report(REFUND, 1, &json!({"outcome": "timeout"})).await.0, 200);
        assert_eq!(self.operation().await["state"], "unknown");
    }
}

mod stories {
    use super::*;

    /// Adyen: the answer is lost, the agent calls again (nothing is sent), and Adyen's REFUND
    /// notification, first posted while the send was still in flight and answered "send again",
    /// settles it when it comes back; the reconciler then has nothing to do.
    async fn adyen_dropped_answer_settled_by_the_webhook(engine: Engine) {
        let Some(shop) = Shop::open(engine, ProviderKind::Adyen, None).await else { return };
        shop.account.inject(Fault::once(KEY, FaultKind::DropResponse, 3000));
        assert_eq!(shop.refund_item().await["status"], "unknown");
        let again = shop.refund_item().await;
        assert_eq!(again["status"], "unknown", "the same intent, not sent again: {again}");
        let settled = shop.becomes("succeeded", 15).await;
        shop.reconcile().await;
        assert_eq!(shop.operation().await["state"], "succeeded");
        let refunds = shop.account.refunds();
        assert_eq!(refunds.len(), 1, "exactly one refund at Adyen: {refunds:?}");
        assert!(settled["external_refs"].to_string().contains(&refunds[0].id), "{settled}");
        assert_eq!(refunds[0].idempotency_key.as_deref(), Some(KEY));
    }

    /// Adyen: with no notification delivered, the reconciler cannot ask Adyen and re-sends under
    /// the same key, which Adyen answers with the first answer: accepted, the same refund. Its
    /// outcome, a failure, arrives later and ends it as a failure.
    async fn adyen_dropped_answer_resent_under_the_same_key_then_failed(engine: Engine) {
        let Some(shop) = Shop::open(engine, ProviderKind::Adyen, None).await else { return };
        let Account::Adyen(sandbox) = shop.account.clone() else { unreachable!() };
        sandbox.notify("http://127.0.0.1:9/nowhere");
        shop.account.inject(Fault::settling(KEY, 6000, "failed", Some("Insufficient balance on payment")));
        shop.account.inject(Fault::once(KEY, FaultKind::DropResponse, 2500));
        assert_eq!(shop.refund_item().await["status"], "unknown");
        tokio::time::sleep(Duration::from_millis(700)).await;
        shop.reconcile().await;
        let accepted = shop.operation().await;
        assert_eq!(accepted["state"], "accepted", "received is not done: {accepted}");
        let refunds = shop.account.refunds();
        assert_eq!(refunds.len(), 1, "the re-send was answered with the first refund: {refunds:?}");
        assert!(accepted["external_refs"].to_string().contains(&refunds[0].id), "{accepted}");
        sandbox.notify(&shop.app.url("/webhooks/providers/acme/adyen"));
        let failed = shop.becomes("rejected", 15).await;
        assert_eq!(failed["failure_reason"], "Insufficient balance on payment", "{failed}");
        shop.reconcile().await;
        assert_eq!(shop.account.refunds().len(), 1, "a failure is never re-sent by itself");
    }

    /// PayPal: the answer is lost, the agent calls again, and the reconciler finds the refund in
    /// the capture's order by its custom_id; a refund PayPal holds PENDING is followed by its id
    /// until PayPal fails it, which ends it as a failure.
    async fn paypal_dropped_answer_found_then_failed(engine: Engine) {
        let Some(shop) = Shop::open(engine, ProviderKind::PayPal, None).await else { return };
        shop.account.inject(Fault::settling(KEY, 4000, "failed", None));
        shop.account.inject(Fault::once(KEY, FaultKind::DropResponse, 2500));
        assert_eq!(shop.refund_item().await["status"], "unknown");
        assert_eq!(shop.refund_item().await["status"], "unknown", "the same intent, not sent again");
        shop.reconcile().await;
        let found = shop.operation().await;
        assert_eq!(found["state"], "accepted", "found PENDING at PayPal: {found}");
        tokio::time::sleep(Duration::from_millis(2200)).await;
        shop.reconcile().await;
        let failed = shop.operation().await;
        assert_eq!(failed["state"], "rejected", "{failed}");
        assert_eq!(failed["failure_reason"], "failed");
        assert_eq!(shop.account.refunds().len(), 1, "exactly one refund at PayPal");
    }

    /// PayPal: a refund COMPLETED at once is done at once, and the PAYMENT.CAPTURE.REFUNDED event
    /// (confirmed by asking PayPal) changes nothing more.
    async fn paypal_completed_at_once(engine: Engine) {
        let Some(shop) = Shop::open(engine, ProviderKind::PayPal, None).await else { return };
        let answer = shop.refund_item().await;
        assert_eq!(answer["status"], "succeeded", "{answer}");
        let refunds = shop.account.refunds();
        assert_eq!(refunds.len(), 1);
        assert_eq!(refunds[0].amount, Some(152_000), "TWD 1,520 sent as PayPal's whole units");
        for _ in 0..50 {
            if shop.app.number("select count(*) from provider_events where outcome is not null").await == 1 {
                break;
            }
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
        assert_eq!(
            shop.app.number("select count(*) from provider_events where outcome is not null").await,
            1
        );
        assert_eq!(shop.operation().await["state"], "succeeded");
    }

    /// On each provider, a key past its window is never re-sent: the result goes to a person.
    /// Within the window the same reconciler re-sends under the same key (Adyen at once, since it
    /// cannot be asked; PayPal once its lookup found nothing).
    async fn a_key_past_its_window_is_never_resent(engine: Engine, kind: ProviderKind) {
        let window_days = kind.capabilities().key_retention.num_days();
        let Some(shop) = Shop::open(engine, kind, Some(ChronoDuration::seconds(1))).await else { return };
        shop.timed_out_without_reaching_the_provider().await;
        let moved = (window_days + 1) * 86_400 * 1_000_000;
        shop.app
            .tamper(&format!(
                "update operations set key_first_sent_at_us = key_first_sent_at_us - {moved} where op_id = '{REFUND}'"
            ))
            .await;
        shop.reconcile().await;
        let escalated = shop.operation().await;
        assert_eq!(escalated["state"], "needs_review", "{escalated}");
        assert!(shop.account.refunds().is_empty(), "nothing was re-sent past {window_days} days");

        let Some(within) = Shop::open(engine, kind, None).await else { return };
        within.timed_out_without_reaching_the_provider().await;
        within.reconcile().await;
        let settled = within.operation().await;
        match kind {
            ProviderKind::Adyen => {
                assert_eq!(settled["state"], "accepted", "re-sent under the same key: {settled}");
                assert_eq!(within.account.refunds().len(), 1);
            }
            _ => {
                assert_eq!(settled["state"], "succeeded", "not found, re-sent under the same key: {settled}");
                assert_eq!(within.account.refunds().len(), 1);
            }
        }
    }

    async fn adyen_key_past_its_window(engine: Engine) {
        a_key_past_its_window_is_never_resent(engine, ProviderKind::Adyen).await;
    }

    async fn paypal_key_past_its_window(engine: Engine) {
        a_key_past_its_window_is_never_resent(engine, ProviderKind::PayPal).await;
    }

    /// A notification whose HMAC does not match, or one for another tenant's key, changes nothing.
    async fn forged_or_foreign_adyen_notifications_change_nothing(engine: Engine) {
        let Some(shop) = Shop::open(engine, ProviderKind::Adyen, None).await else { return };
        let Account::Adyen(sandbox) = shop.account.clone() else { unreachable!() };
        sandbox.notify("http://127.0.0.1:9/nowhere");
        assert_eq!(shop.refund_item().await["status"], "accepted");
        let refund = &shop.account.refunds()[0];
        let mut item = json!({
            "amount": {"currency": "EUR", "value": 8_900}, "eventCode": "REFUND", "eventDate": "2026-12-03T10:00:00Z",
            "merchantAccountCode": MERCHANT, "merchantReference": KEY, "originalReference": adyen_orders()[0].payment_intent,
            "pspReference": refund.id, "reason": "", "success": "true",
        });
        let post = |item: &Value| {
            let body = json!({"live": "false", "notificationItems": [{"NotificationRequestItem": item}]});
            shop.app.client.post(shop.app.url("/webhooks/providers/acme/adyen")).json(&body).send()
        };
        let signature = opledger::server::providers::adyen_events::sign(&item, HMAC_KEY).unwrap();
        item["additionalData"] = json!({"hmacSignature": signature});
        let mut forged = item.clone();
        forged["success"] = json!("false");
        assert_eq!(post(&forged).await.unwrap().status(), 400);
        let mut foreign = item.clone();
        foreign["merchantReference"] = json!("globex:refund-1043-li_2");
        foreign["pspReference"] = json!("8800000000000001");
        foreign["additionalData"]["hmacSignature"] =
            json!(opledger::server::providers::adyen_events::sign(&foreign, HMAC_KEY).unwrap());
        assert_eq!(post(&foreign).await.unwrap().status(), 200, "received, about nothing of this tenant");
        assert_eq!(shop.operation().await["state"], "accepted");
        let answer = post(&item).await.unwrap();
        assert_eq!(answer.status(), 200);
        assert_eq!(answer.text().await.unwrap(), "[accepted]");
        assert_eq!(shop.operation().await["state"], "succeeded");
        assert_eq!(post(&item).await.unwrap().status(), 200, "a repeated item is answered");
        assert_eq!(shop.app.number("select count(*) from provider_events").await, 2, "each item stored once");
    }

    /// A notification item as Adyen signs it under the webhook's HMAC key, about the refund Adyen
    /// made for the operation: `eventCode` `event_code`, `success` "true".
    fn signed_item(refund: &CreatedObject, event_code: &str, merchant: &str, reason: &str) -> Value {
        let mut item = json!({
            "amount": {"currency": "EUR", "value": 8_900}, "eventCode": event_code, "eventDate": "2026-12-03T10:00:00Z",
            "merchantAccountCode": merchant, "merchantReference": KEY, "originalReference": adyen_orders()[0].payment_intent,
            "pspReference": refund.id, "reason": reason, "success": "true",
        });
        let signature = opledger::server::providers::adyen_events::sign(&item, HMAC_KEY).unwrap();
        item["additionalData"] = json!({"hmacSignature": signature});
        item
    }

    /// Posts a notification of `item` to the shop's Adyen webhook; the answer's status and text.
    async fn notify(shop: &Shop, item: &Value) -> (u16, String) {
        let body = json!({"live": "false", "notificationItems": [{"NotificationRequestItem": item}]});
        let url = shop.app.url("/webhooks/providers/acme/adyen");
        let answer = shop.app.client.post(url).json(&body).send().await.unwrap();
        (answer.status().as_u16(), answer.text().await.unwrap())
    }

    /// The operation's audit trail, each entry as its action and when it happened (its place in
    /// the tenant's chain is added once the entry is sealed).
    fn trail(operation: &Value) -> Vec<(Value, Value)> {
        let entries = operation["audit"].as_array().unwrap();
        entries.iter().map(|entry| (entry["action"].clone(), entry["at"].clone())).collect()
    }

    /// A shop on Adyen whose refund Adyen received and whose own notifications go nowhere, so
    /// that the test posts them: the shop and Adyen's refund.
    async fn adyen_refund_received(engine: Engine) -> Option<(Shop, CreatedObject)> {
        let shop = Shop::open(engine, ProviderKind::Adyen, None).await?;
        let Account::Adyen(sandbox) = shop.account.clone() else { unreachable!() };
        sandbox.notify("http://127.0.0.1:9/nowhere");
        assert_eq!(shop.refund_item().await["status"], "accepted");
        let refund = shop.account.refunds().remove(0);
        Some((shop, refund))
    }

    /// Adyen's REFUND_FAILED after its successful REFUND wins: the refund leaves `succeeded` for a
    /// person's review, with an audit entry naming the notification, the `operation.needs_review`
    /// webhook event, and words for the customer; the same notification again changes nothing.
    async fn adyen_refund_failed_after_success_goes_to_a_person(engine: Engine) {
        let Some((shop, refund)) = adyen_refund_received(engine).await else { return };
        let acme = TenantId::parse("acme").unwrap();
        let admin = Actor::human("alex", Role::Admin);
        let hook = shop.app.url("/hooks/opledger");
        let endpoint = shop
            .app
            .ledger
            .add_webhook_endpoint(&acme, &admin, &hook, "operation.needs_review")
            .await
            .unwrap();
        assert_eq!(
            notify(&shop, &signed_item(&refund, "REFUND", MERCHANT, "")).await,
            (200, "[accepted]".into())
        );
        assert_eq!(shop.operation().await["state"], "succeeded");

        let reason = "The refund was returned by the issuer";
        let refused_later = signed_item(&refund, "REFUND_FAILED", MERCHANT, reason);
        assert_eq!(notify(&shop, &refused_later).await, (200, "[accepted]".into()));
        let review = shop.operation().await;
        assert_eq!(review["state"], "needs_review", "the later refusal wins: {review}");
        assert_eq!(review["failure_reason"], reason);
        assert_eq!(
            review["message"],
            "The provider reported that it failed after it had succeeded; a person is checking it; do not send it again."
        );
        let trail = review["audit"].as_array().unwrap();
        let last = trail.last().unwrap();
        assert_eq!(
            (&last["from_state"], &last["to_state"]),
            (&json!("succeeded"), &json!("needs_review")),
            "{last}"
        );
        assert_eq!(last["actor"], "adyen-webhook");
        let evidence = last["evidence"].to_string();
        assert!(
            evidence.contains("REFUND_FAILED") && evidence.contains(&refund.id) && evidence.contains(reason),
            "{evidence}"
        );
        let stored = format!(
            "select count(*) from provider_events where event_type = 'REFUND_FAILED' and object_id = '{}' \
             and op_id = '{REFUND}' and outcome like '%had succeeded%needs review%'",
            refund.id
        );
        assert_eq!(shop.app.number(&stored).await, 1);
        let deliveries =
            shop.app.ledger.reads().webhook_deliveries(&acme, &endpoint.endpoint.id, 10).await.unwrap();
        let told: Vec<Value> = deliveries
            .iter()
            .filter(|delivery| delivery.event_type == "operation.needs_review")
            .map(|delivery| serde_json::from_str(&delivery.payload).unwrap())
            .collect();
        assert_eq!(told.len(), 1, "{deliveries:#?}");
        assert_eq!(told[0]["data"]["previous_state"], "succeeded");

        let answer = shop.refund_item().await;
        assert_eq!(answer["status"], "unknown", "never done, never made again by itself: {answer}");
        assert_eq!(answer["locale"], "en", "{answer}");
        assert_eq!(
            answer["for_customer"],
            "Your refund of €89.00 was reversed by the payment network after it was issued; a colleague is \
             checking it and will contact you.",
        );
        let message = answer["message"].as_str().unwrap();
        assert!(
            message.contains("then reported that it failed after all")
                && message.contains("Do not refund it again"),
            "{message}"
        );

        assert_eq!(
            notify(&shop, &refused_later).await,
            (200, "[accepted]".into()),
            "a repeated item is answered"
        );
        let mut another_report = signed_item(&refund, "REFUND_FAILED", MERCHANT, reason);
        another_report["success"] = json!("false");
        another_report["additionalData"]["hmacSignature"] =
            json!(opledger::server::providers::adyen_events::sign(&another_report, HMAC_KEY).unwrap());
        assert_eq!(notify(&shop, &another_report).await, (200, "[accepted]".into()));
        let after = shop.operation().await;
        assert_eq!(
            after["state"], "needs_review",
            "another failure report waits for the person too: {after}"
        );
        assert_eq!(after["audit"].as_array().unwrap().len(), trail.len(), "neither changes anything");
        assert_eq!(after["version"], review["version"]);
        assert_eq!(
            shop.app.number("select count(*) from provider_events where event_type = 'REFUND_FAILED'").await,
            2,
            "each item stored once"
        );
        assert_eq!(shop.account.refunds().len(), 1, "nothing is sent again");
    }

    /// An item validly signed with the connection's HMAC key, naming this refund's pspReference and
    /// key but another merchant account, is answered `[accepted]` and changes nothing: neither its
    /// success while the refund is accepted nor its failure once the refund succeeded.
    async fn an_adyen_item_for_another_merchant_account_changes_nothing(engine: Engine) {
        let Some((shop, refund)) = adyen_refund_received(engine).await else { return };
        let before = shop.operation().await;
        let other_merchant = "OtherShopECOM";
        let foreign_success = signed_item(&refund, "REFUND", other_merchant, "");
        assert_eq!(notify(&shop, &foreign_success).await, (200, "[accepted]".into()));
        let after = shop.operation().await;
        assert_eq!(after["state"], "accepted", "{after}");
        assert_eq!((&after["version"], trail(&after)), (&before["version"], trail(&before)));
        let refused = "select count(*) from provider_events where op_id is null \
                       and outcome like 'refused: the item is about merchant account \"OtherShopECOM\"%'";
        assert_eq!(shop.app.number(refused).await, 1);

        assert_eq!(notify(&shop, &signed_item(&refund, "REFUND", MERCHANT, "")).await.0, 200);
        let succeeded = shop.operation().await;
        assert_eq!(succeeded["state"], "succeeded");
        let foreign_failure = signed_item(&refund, "REFUND_FAILED", other_merchant, "Refused");
        assert_eq!(notify(&shop, &foreign_failure).await, (200, "[accepted]".into()));
        let after = shop.operation().await;
        assert_eq!(after["state"], "succeeded", "{after}");
        assert_eq!((&after["version"], trail(&after)), (&succeeded["version"], trail(&succeeded)));
        assert_eq!(shop.app.number(refused).await, 2);
    }

    crate::on_both_engines!(
        adyen_refund_failed_after_success_goes_to_a_person,
        an_adyen_item_for_another_merchant_account_changes_nothing,
        adyen_dropped_answer_settled_by_the_webhook,
        adyen_dropped_answer_resent_under_the_same_key_then_failed,
        paypal_dropped_answer_found_then_failed,
        paypal_completed_at_once,
        adyen_key_past_its_window,
        paypal_key_past_its_window,
        forged_or_foreign_adyen_notifications_change_nothing,
    );
}

/// Adyen's own Python library drives the Adyen sandbox: a refund answered `received`, the same
/// key replayed, its error classes, and notifications its HMAC check accepts.
#[tokio::test]
async fn adyens_own_library_drives_the_sandbox() {
    let Some(python) = python("Adyen") else { return };
    let (_sandbox, url) = adyen_account(ChronoDuration::days(31)).await;
    let order = &adyen_orders()[0];
    let given = json!({
        "base_url": url, "api_key": ADYEN_KEY, "merchant_account": MERCHANT, "payment": order.payment_intent,
        "paid": order.paid_minor(), "currency": order.currency, "hmac_key": HMAC_KEY,
    });
    let printed = run_client(python, "adyen_sdk.py", vec![], given.to_string()).await;
    let observed: Value = serde_json::from_str(printed.trim()).unwrap();
    assert_eq!(observed["refund"]["status_code"], 201, "{observed}");
    assert_eq!(observed["refund"]["body"]["status"], "received");
    let psp = observed["refund"]["psp"].as_str().unwrap();
    assert_eq!(observed["replay"]["body"]["pspReference"], psp, "the same key, the first answer");
    assert_eq!(observed["same_key_other_body"]["class"], "AdyenAPIUnprocessableEntity", "{observed}");
    assert_eq!(observed["same_key_other_body"]["error_code"], "704");
    assert_eq!(observed["too_much"]["status"], "received", "Adyen refuses it later, in the notification");
    assert_eq!(observed["other_merchant"]["class"], "AdyenAPIUnprocessableEntity");
    assert_eq!(observed["other_merchant"]["error_code"], "901");
    assert_eq!(observed["wrong_api_key"]["class"], "AdyenAPIAuthenticationError");
    assert_eq!(observed["long_key"]["class"], "AdyenAPIValidationError", "a 65-character key is refused");
    assert_eq!(observed["notifications"], 2, "{observed}");
    assert_eq!(observed["hmac_valid"], json!([true, true]), "Adyen's library accepts the sandbox's HMAC");
    assert_eq!(observed["altered_valid"], false);
    let items = observed["notification_items"].as_array().unwrap();
    let success = |reference: &str| {
        items.iter().find(|item| item["merchantReference"] == reference).map(|item| item["success"].clone())
    };
    assert_eq!(success("sdk-refund-1"), Some(json!("true")));
    assert_eq!(success("sdk-refund-2"), Some(json!("false")), "more than was paid fails in the notification");
}

/// PayPal's own server SDK drives the PayPal sandbox: a token, a refund under a request id and
/// its replay, `get_refund`, a 409 while the first request runs, and the 422s by their issue.
#[tokio::test]
async fn paypals_own_sdk_drives_the_sandbox() {
    let Some(python) = python("paypal-server-sdk") else { return };
    let (sandbox, url) = paypal_account(ChronoDuration::days(45)).await;
    let order = &paypal_orders()[0];
    let given = json!({
        "base_url": url, "client_id": CLIENT_ID, "client_secret": CLIENT_SECRET,
        "capture": order.payment_intent, "currency": order.currency,
    });
    let printed = run_client(python, "paypal_sdk.py", vec![], given.to_string()).await;
    let observed: Value = serde_json::from_str(printed.trim()).unwrap();
    assert_eq!(observed["refund"]["status_code"], 201, "{observed}");
    assert_eq!(observed["refund"]["status"], "COMPLETED");
    assert_eq!(observed["replay"]["id"], observed["refund"]["id"], "the same request id, the first refund");
    assert_eq!(observed["get_refund"]["id"], observed["refund"]["id"]);
    assert_eq!(observed["get_refund"]["value"], "100", "TWD in whole units");
    assert_eq!(observed["get_refund"]["custom_id"], "sdk-invoice-1");
    assert_eq!(
        observed["too_much"],
        json!({"status": 422, "name": "UNPROCESSABLE_ENTITY", "issue": "REFUND_AMOUNT_EXCEEDED"})
    );
    assert_eq!(observed["invoice_used"]["issue"], "DUPLICATE_INVOICE_ID");
    assert_eq!(observed["cents_in_twd"]["issue"], "DECIMAL_PRECISION");
    assert_eq!(observed["in_flight"]["status"], 409, "{observed}");
    assert_eq!(observed["in_flight"]["issue"], "PREVIOUS_REQUEST_IN_PROGRESS");
    assert_eq!(observed["slow"]["status"], "COMPLETED");
    assert_eq!(sandbox.created_objects().len(), 2, "the replay and the refused requests made nothing");
}
