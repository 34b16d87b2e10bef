//! Customer emails, at most one per intent. Through an email API that honours a key and cannot be
//! asked (Resend's shape), a lost answer is re-sent once with the same key and the API answers with
//! the first message; through SMTP, which can do neither, a message whose answer was lost after the
//! final `.` waits for a person with what was seen, is never sent again (not even by a manager),
//! and the agent is told that nobody can tell. Resend's own Python package drives the API sandbox.

use serde_json::{json, Value};
use std::time::Duration;

use crate::support::{python, run_client, Engine, TestApp};
use opledger::domain::connection::ProviderKind;
use opledger::domain::email::EmailTemplate;
use opledger::domain::ids::{Actor, OpId, TenantId};
use opledger::domain::machine::{Command, State as OpState};
use opledger::domain::operation::AttemptReport;
use opledger::domain::params::CanonicalParams;
use opledger::domain::policy::Role;
use opledger::server::app::wiring::{self, ProviderSettings};
use opledger::server::ledger::connections::NewConnection;
use opledger::server::ledger::executor::Executor;
use opledger::server::ledger::reconciler::Reconciler;
use opledger::server::ledger::{LedgerError, RegisterRequest};
use opledger::server::sandbox::mail::{MailConfig, MailSandbox};
use opledger::server::sandbox::{Fault, FaultKind};

const OP: &str = "email-1043-refund_issued";
const API_KEY: &str = "re_test_sandbox";

fn acme() -> TenantId {
    TenantId::parse("acme").unwrap()
}

/// The application with the Stripe sandbox mounted (acme's orders), a mail sandbox on its own
/// ports, acme's template `refund_issued`, and a reconciler the test runs pass by pass.
async fn app(engine: Engine) -> Option<(TestApp, MailSandbox, String, String, Reconciler)> {
    let app = TestApp::spawn_with(engine, |settings| {
        settings.sandbox = true;
        settings.provider_timeout = Duration::from_millis(800);
    })
    .await?;
    let mail =
        MailSandbox::new(MailConfig { api_key: API_KEY.into(), key_retention: chrono::Duration::hours(24) });
    let api = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let api_url = format!("http://{}", api.local_addr().unwrap());
    let router = mail.router();
    tokio::spawn(async move { axum::serve(api, router).await });
    let smtp = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let smtp_url = format!("smtp://{}", smtp.local_addr().unwrap());
    tokio::spawn(mail.clone().serve_smtp(smtp));
    let template = EmailTemplate {
        name: "refund_issued".into(),
        subject: "Your refund for order {order}".into(),
        body: "Hello,\n\n{shop} has refunded your order {order}. It reaches {customer_email} within a few days.\n".into(),
    };
    app.ledger.set_email_template(&acme(), &Actor::human("alex", Role::Admin), template).await.unwrap();
    let reconciler = Reconciler::new(executor(&app), chrono::Duration::zero());
    Some((app, mail, api_url, smtp_url, reconciler))
}

/// An executor over the application's ledger, with the mounted sandbox as acme's Stripe account.
fn executor(app: &TestApp) -> Executor {
    let providers = ProviderSettings {
        tenants: vec![acme()],
        stripe_base_url: Some(app.url("/sandbox")),
        services_base_url: None,
        secret_key: "sk_test_sandbox".into(),
        timeout: Duration::from_millis(800),
    };
    wiring::executor(app.ledger.clone(), &providers)
}

async fn connect(app: &TestApp, kind: ProviderKind, base_url: &str) {
    let connection = NewConnection {
        name: "email".into(),
        kind,
        base_url: base_url.into(),
        secret: API_KEY.into(),
        account: Some("Acme Support <support@acme.example>".into()),
        key_retention: None,
        description: None,
    };
    app.ledger
        .set_provider_connection(&acme(), &Actor::human("alex", Role::Admin), connection)
        .await
        .unwrap();
}

async fn send(app: &TestApp) -> Value {
    send_about(app, "1043").await
}

async fn send_about(app: &TestApp, order: &str) -> Value {
    let call = json!({"order_id": order, "template": "refund_issued"});
    let (status, answer) = app.post_as(&app.token, "/api/v1/tools/send_customer_email", &call).await;
    assert_eq!(status, 200, "{answer}");
    answer
}

async fn state_and_trail(app: &TestApp) -> (OpState, String) {
    let history =
        app.ledger.reads().operation_history(&acme(), &OpId::parse(OP).unwrap()).await.unwrap().unwrap();
    (history.operation.snapshot.state, serde_json::to_string(&history.audit).unwrap())
}

async fn a_template_reaches_the_customer_once_through_the_api(engine: Engine) {
    let Some((app, mail, api_url, _, _)) = app(engine).await else { return };
    connect(&app, ProviderKind::Email, &api_url).await;
    let first = send(&app).await;
    assert_eq!(first["status"], "succeeded", "{first}");
    assert_eq!(send(&app).await["status"], "already_done");
    let mailbox = mail.mailbox();
    assert_eq!(mailbox.len(), 1);
    assert_eq!(mailbox[0].to, ["customer-1043@example.com"], "the address is the shop's, never the caller's");
    assert_eq!(mailbox[0].subject, "Your refund for order 1043");
    assert!(mailbox[0].text.contains("acme has refunded your order 1043"), "{}", mailbox[0].text);
    assert_eq!(mailbox[0].op.as_deref(), Some("acme:email-1043-refund_issued"));
}

async fn a_lost_api_answer_is_re_sent_once_with_the_same_key(engine: Engine) {
    let Some((app, mail, api_url, _, reconciler)) = app(engine).await else { return };
    connect(&app, ProviderKind::Email, &api_url).await;
    mail.inject(Fault::once("acme:email-1043-*", FaultKind::DropResponse, 3000));
    let lost = send(&app).await;
    assert_eq!(lost["status"], "unknown", "a timeout is not a failure: {lost}");
    reconciler.reconcile_once().await.unwrap();
    let (state, trail) = state_and_trail(&app).await;
    assert_eq!(state, OpState::Succeeded, "{trail}");
    assert_eq!(mail.mailbox().len(), 1, "the API answered the re-send with the first message");
}

async fn a_lost_smtp_answer_waits_for_a_person_and_is_never_sent_again(engine: Engine) {
    let Some((app, mail, _, smtp_url, reconciler)) = app(engine).await else { return };
    connect(&app, ProviderKind::Smtp, &smtp_url).await;
    mail.inject(Fault::once("acme:email-1043-*", FaultKind::DropResponse, 0));
    let lost = send(&app).await;
    assert_eq!(lost["status"], "unknown", "{lost}");
    let message = lost["message"].as_str().unwrap();
    assert!(message.contains("nobody can tell whether it arrived"), "{message}");
    assert!(message.contains("A person will check"), "{message}");
    assert!(message.contains("If our email has not reached you"), "{message}");
    let (state, trail) = state_and_trail(&app).await;
    assert_eq!(state, OpState::NeedsReview, "straight to people: {trail}");
    assert!(
        trail.contains("What was seen: the connection broke while the message was handed over"),
        "{trail}"
    );

    reconciler.reconcile_once().await.unwrap();
    assert_eq!(send(&app).await["status"], "unknown", "the same intent again sends nothing");
    let manager = Actor::human("maria", Role::Manager);
    let op_id = OpId::parse(OP).unwrap();
    let resent =
        app.ledger.execute(&acme(), &op_id, Command::ResendSameKey, &manager, AttemptReport::default()).await;
    assert!(matches!(resent, Err(LedgerError::Rejected(_))), "not even a manager re-sends it: {resent:?}");
    assert_eq!(state_and_trail(&app).await.0, OpState::NeedsReview);
    let mailbox = mail.mailbox();
    assert_eq!(mailbox.len(), 1, "at most once");
    assert_eq!(mailbox[0].via, "smtp");
    assert_eq!(mailbox[0].op.as_deref(), Some("acme:email-1043-refund_issued"));

    let support = app.signed_in("sam", Role::Support).await;
    let page = support.page(&format!("/operations/{OP}"), 200).await;
    assert!(
        page.contains("takes no idempotency key and cannot be asked what it did"),
        "the page says how it settles"
    );
    assert!(!page.contains("Query the provider now"), "a mail server cannot be asked, so it is not offered");
    let (status, body) = support.act("query-smtp", OP, "confirm_found", &[]).await;
    assert_eq!(status, 422, "and the server function refuses what the page does not offer: {body}");
    assert!(body.contains("cannot be asked what became of"), "{body}");
    let desk = support.page("/reconcile", 200).await;
    assert!(desk.contains(OP), "the email waits on the reconcile desk");
    assert!(!desk.contains("Query the provider now"), "nor is it offered on the desk");

    let not_happened = Command::MarkNotHappened {
        reason: "the mail server's log has no message with this Message-ID".into(),
        evidence: "searched the log for the X-Opledger-Op header".into(),
    };
    let settled =
        app.ledger.execute(&acme(), &op_id, not_happened, &manager, AttemptReport::default()).await.unwrap();
    assert_eq!(
        settled.operation.snapshot.state,
        OpState::Rejected,
        "a person's word with evidence settles it"
    );
    let page = support.page(&format!("/operations/{OP}"), 200).await;
    assert!(page.contains("Make it again"), "only after that can it be sent again, on purpose");
}

async fn a_mail_server_that_cannot_be_reached_was_not_sent_to(engine: Engine) {
    let Some((app, mail, _, _, _)) = app(engine).await else { return };
    let closed = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("smtp://{}", closed.local_addr().unwrap());
    drop(closed);
    connect(&app, ProviderKind::Smtp, &url).await;
    let answer = send(&app).await;
    assert_eq!(answer["status"], "not_sent", "a refused connection proves nothing left: {answer}");
    assert!(mail.mailbox().is_empty());
}

async fn an_email_account_names_a_sender_and_a_reachable_server(engine: Engine) {
    let Some((app, ..)) = app(engine).await else { return };
    let admin = Actor::human("alex", Role::Admin);
    let refused = |account: Option<&str>, base_url: &str| NewConnection {
        name: "email".into(),
        kind: ProviderKind::Smtp,
        base_url: base_url.into(),
        secret: "pw".into(),
        account: account.map(str::to_owned),
        key_retention: None,
        description: None,
    };
    for (connection, expected) in [
        (refused(None, "smtp://127.0.0.1:2525"), "names the sender"),
        (refused(Some("not an address"), "smtp://127.0.0.1:2525"), "is not an email address"),
        (refused(Some("support@acme.example"), "https://mail.example.com"), "smtp://host:587"),
    ] {
        let error =
            app.ledger.set_provider_connection(&acme(), &admin, connection).await.unwrap_err().to_string();
        assert!(error.contains(expected), "{error}");
    }
}

/// Resend's own Python package sends through the API sandbox, gets the same id for the same key,
/// a 409 for the same key with another message, and reads the message back.
#[tokio::test]
async fn resends_own_package_drives_the_api_sandbox() {
    let Some(python) = python("resend") else { return };
    let mail =
        MailSandbox::new(MailConfig { api_key: API_KEY.into(), key_retention: chrono::Duration::hours(24) });
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let base_url = format!("http://{}", listener.local_addr().unwrap());
    let router = mail.router();
    tokio::spawn(async move { axum::serve(listener, router).await });
    let printed = run_client(python, "resend_sdk.py", vec![base_url, API_KEY.into()], String::new()).await;
    let report: Value = serde_json::from_str(printed.trim()).unwrap();
    assert_eq!(report["first"], report["replayed"], "the same key, the same email: {report}");
    assert_eq!(report["conflict"], "invalid_idempotent_request", "{report}");
    assert_eq!(report["read_subject"], "Your refund for order 1043");
    assert_eq!(mail.mailbox().len(), 1, "one message for one key");
}

/// Order 2001 of acme's shop, whose customer the shop writes to at `customer_email`.
async fn shop_order(app: &TestApp, customer_email: &str) {
    let order = json!({"id": "2001", "currency": "TWD", "payment_intent": "pi_2001",
                       "line_items": [{"id": "li_1", "name": "Tea tin", "amount_minor": 45_000}],
                       "customer_email": customer_email});
    let response = app
        .client
        .post(app.url("/sandbox/v1/_sandbox/orders"))
        .bearer_auth("sk_test_sandbox")
        .json(&order)
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 201);
}

/// What the shop may hand over as a customer's address and is never one address to send to:
/// header injections (CRLF, a bare LF or CR, CRLF percent-decoded, Unicode's line and paragraph
/// separators), a half address, two recipients in one field, one over RFC 5321's length, none.
fn never_an_address() -> Vec<String> {
    let decoded = percent_encoding::percent_decode_str("mei@example.com%0d%0aBcc: x@evil.example")
        .decode_utf8()
        .unwrap()
        .into_owned();
    vec![
        "mei@example.com\r\nBcc: x@evil.example".into(),
        "mei@example.com\nBcc: x@evil.example".into(),
        "mei@example.com\rBcc: x@evil.example".into(),
        decoded,
        "mei@example.com\u{2028}Bcc: x@evil.example".into(),
        "mei@example.com\u{2029}".into(),
        "mei@".into(),
        "a@x.example, b@y.example".into(),
        format!("{}@{}.example", "a".repeat(60), vec!["b".repeat(60); 4].join(".")),
        String::new(),
    ]
}

/// A message that could never be sent is refused at the door, through either kind of account:
/// 422 naming the field, nothing recorded, nothing sent. Once the shop has the address right, the
/// same call goes through under the same op id, and an international address is sent as written.
async fn an_address_that_could_never_be_sent_to_is_refused_before_anything_is_recorded(engine: Engine) {
    let Some((app, mail, api_url, smtp_url, _)) = app(engine).await else { return };
    let call = json!({"order_id": "2001", "template": "refund_issued"});
    let op_id = OpId::parse("email-2001-refund_issued").unwrap();
    for (kind, url) in [(ProviderKind::Smtp, &smtp_url), (ProviderKind::Email, &api_url)] {
        connect(&app, kind, url).await;
        for address in never_an_address() {
            shop_order(&app, &address).await;
            let (status, refused) = app.post_as(&app.token, "/api/v1/tools/send_customer_email", &call).await;
            assert_eq!(status, 422, "{kind:?} {address:?}: {refused}");
            assert_eq!(refused["error"]["field"], "order_id", "{refused}");
            let message = refused["error"]["message"].as_str().unwrap();
            assert!(message.contains("nothing was recorded or sent"), "{message}");
            assert!(
                !message.contains('\n') && !message.contains('\r'),
                "the answer repeats no line break: {message:?}"
            );
            let recorded = app.ledger.reads().load_operation(&acme(), &op_id).await.unwrap();
            assert!(recorded.is_none(), "{address:?} recorded nothing");
        }
    }
    assert!(mail.mailbox().is_empty(), "nothing was sent");
    assert_eq!(app.number("select count(*) from operations").await, 0);

    shop_order(&app, "mei@bücher.example").await;
    let sent = send_about(&app, "2001").await;
    assert_eq!(sent["status"], "succeeded", "the corrected call goes through: {sent}");
    assert_eq!(sent["op_id"], "email-2001-refund_issued");
    let mailbox = mail.mailbox();
    assert_eq!(mailbox.len(), 1);
    assert_eq!(mailbox[0].to, ["mei@bücher.example"], "taken as written, not mangled");
    assert_eq!(mailbox[0].subject, "Your refund for order 2001");
}

/// A message recorded before its address was checked (or by anything else that writes an
/// operation's parameters) is checked again before it is sent: one whose recipient or subject
/// would add a header is refused as invalid, and nothing reaches the mail server.
async fn a_recorded_message_that_would_add_a_header_is_never_sent(engine: Engine) {
    let Some((app, mail, api_url, _, _)) = app(engine).await else { return };
    connect(&app, ProviderKind::Email, &api_url).await;
    let executor = executor(&app);
    let sender = "Acme Support <support@acme.example>";
    let messages = [
        (
            "email-3001-to",
            json!({"to": "mei@example.com\r\nBcc: x@evil.example", "from": sender, "subject": "Refund", "text": "x"}),
        ),
        (
            "email-3002-subject",
            json!({"to": "mei@example.com", "from": sender, "subject": "Refund\nBcc: x@evil.example", "text": "x"}),
        ),
    ];
    for (op_id, params) in messages {
        let op_id = OpId::parse(op_id).unwrap();
        let request = RegisterRequest {
            op_id: op_id.clone(),
            kind: "send_email".into(),
            subject: "order:1043".into(),
            provider: "email".into(),
            params: CanonicalParams::from_value(params).unwrap(),
            requested_by: "shop-agent".into(),
            on_behalf_of: None,
            server_sends: true,
            compensates: None,
            key_retention: None,
        };
        app.ledger.register(&acme(), &Actor::agent("shop-agent"), request).await.unwrap();
        let after = executor.run(&acme(), &op_id).await.unwrap();
        assert_eq!(after.operation.snapshot.state, OpState::Rejected, "{op_id}");
        let error = after.attempts[0].error.clone().unwrap_or_default();
        assert!(error.contains("the message cannot be sent as recorded"), "{error}");
    }
    assert!(mail.mailbox().is_empty(), "nothing reached the mail server");
}

crate::on_both_engines!(
    an_address_that_could_never_be_sent_to_is_refused_before_anything_is_recorded,
    a_recorded_message_that_would_add_a_header_is_never_sent,
    a_template_reaches_the_customer_once_through_the_api,
    a_lost_api_answer_is_re_sent_once_with_the_same_key,
    a_lost_smtp_answer_waits_for_a_person_and_is_never_sent_again,
    a_mail_server_that_cannot_be_reached_was_not_sent_to,
    an_email_account_names_a_sender_and_a_reachable_server,
);
