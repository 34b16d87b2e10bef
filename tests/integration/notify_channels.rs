//! The notification channels against the sandbox's stand-ins for Slack, Teams and LINE (mounted
//! in the application at `/sandbox`) and a real SMTP server (`aiosmtpd`, started by
//! `tests/clients/smtp_mailbox.py`): what each send came to, and what arrived.

use std::time::Duration;

use base64::Engine as _;
use opledger::domain::language::Language;
use opledger::domain::money::{Currency, Money};
use opledger::domain::notice::{Notice, NoticeItem, NoticeSubject};
use opledger::domain::notification::{NotifyEvent, Stage};
use opledger::server::notify::channels::{
    email::message_id, retries_are_recognised, Destination, SendOutcome, Senders, SmtpSecurity, SmtpSettings,
};
use serde_json::{json, Value};

use crate::support::{python, Engine, TestApp};

/// The mounted sandbox's secret key: its control routes' key, and LINE's channel access token.
const KEY: &str = "sk_test_sandbox";

fn notice() -> Notice {
    Notice::One(NoticeItem {
        event: NotifyEvent::ApprovalRequested,
        stage: Stage::First,
        subject: NoticeSubject::Operation {
            op_id: "refund-1043-li_2".into(),
            kind: "refund".into(),
            amount: Some(Money::new(120_000, Currency::parse("TWD").unwrap())),
            item: Some("Clay teapot".into()),
        },
        asked_by: Some("shop-agent".into()),
        waiting_minutes: 0,
        link: "https://ops.example.com/operations/refund-1043-li_2".into(),
    })
}

async fn received(app: &TestApp, channel: &str) -> Vec<Value> {
    let response = app
        .client
        .get(app.url(&format!("/sandbox/_sandbox/{channel}")))
        .bearer_auth(KEY)
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 200);
    response.json::<Value>().await.unwrap()["data"].as_array().unwrap().clone()
}

async fn fault(app: &TestApp, channel: &str, fault: Value) {
    let response = app
        .client
        .post(app.url(&format!("/sandbox/_sandbox/{channel}/faults")))
        .bearer_auth(KEY)
        .json(&fault)
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 201, "{}", response.text().await.unwrap());
}

fn senders(app: &TestApp) -> Senders {
    Senders::new(app.ledger.egress().clone())
}

#[tokio::test]
async fn slack_takes_a_notice_and_refuses_a_removed_webhook() {
    let Some(app) = TestApp::spawn_with_sandbox(Engine::Sqlite).await else { return };
    let senders = senders(&app);
    let webhook = Destination::Slack { webhook_url: app.url("/sandbox/slack/services/T0001/B0001/abcdef") };
    let outcome = senders.send(&webhook, &notice(), Language::En, "ntf_1").await;
    assert_eq!(outcome, SendOutcome::Delivered { reference: None });
    let posts = received(&app, "slack").await;
    assert_eq!(posts.len(), 1);
    assert!(posts[0]["text"].as_str().unwrap().starts_with("Approval needed: refund of NT$1,200"));
    assert_eq!(posts[0]["blocks"][0]["type"], "header");

    let removed = Destination::Slack { webhook_url: app.url("/sandbox/slack/services/T0001/B0001/removed") };
    match senders.send(&removed, &notice(), Language::En, "ntf_2").await {
        SendOutcome::Refused { error } => {
            assert!(error.contains("404 no_service") && error.contains("removed"), "{error}");
            assert!(!error.contains("/services/"), "the webhook's URL is its secret: {error}");
        }
        other => panic!("a removed webhook is refused: {other:?}"),
    }

    fault(&app, "slack", json!({"match": "*", "fault": "rate_limit"})).await;
    let limited = senders.send(&webhook, &notice(), Language::ZhTw, "ntf_3").await;
    assert!(
        matches!(&limited, SendOutcome::TryAgain { after: Some(after), .. } if *after == Duration::from_secs(2)),
        "{limited:?}"
    );
    assert_eq!(received(&app, "slack").await.len(), 1, "a rate-limited post posted nothing");
    assert!(!retries_are_recognised(&webhook));
}

#[tokio::test]
async fn teams_takes_a_card_and_refuses_a_removed_workflow() {
    let Some(app) = TestApp::spawn_with_sandbox(Engine::Sqlite).await else { return };
    let senders = senders(&app);
    let workflow = Destination::Teams { webhook_url: app.url("/sandbox/teams/workflows/wf-ops") };
    let outcome = senders.send(&workflow, &notice(), Language::ZhCn, "ntf_1").await;
    assert_eq!(outcome, SendOutcome::Delivered { reference: None });
    let posts = received(&app, "teams").await;
    assert_eq!(posts.len(), 1);
    assert_eq!(posts[0]["card"]["type"], "AdaptiveCard");
    assert!(posts[0]["card"].to_string().contains("待审批"), "{}", posts[0]["card"]);

    let removed = Destination::Teams { webhook_url: app.url("/sandbox/teams/workflows/removed") };
    assert!(matches!(
        senders.send(&removed, &notice(), Language::En, "ntf_2").await,
        SendOutcome::Refused { .. }
    ));
    fault(&app, "teams", json!({"match": "wf-ops", "fault": "error_500_before"})).await;
    assert!(matches!(
        senders.send(&workflow, &notice(), Language::En, "ntf_3").await,
        SendOutcome::TryAgain { .. }
    ));
    assert_eq!(received(&app, "teams").await.len(), 1);
}

fn line(app: &TestApp, token: &str) -> Destination {
    Destination::Line {
        api_base: app.url("/sandbox/line"),
        channel_token: token.into(),
        to: "U4af4980629ee3b2a8f6a1d1f2f1a1c3e".into(),
    }
}

#[tokio::test]
async fn line_sends_once_per_delivery_however_often_it_is_asked() {
    let Some(app) = TestApp::spawn_with_sandbox(Engine::Sqlite).await else { return };
    let senders = senders(&app);
    let destination = line(&app, KEY);
    assert!(retries_are_recognised(&destination));
    let first = senders.send(&destination, &notice(), Language::ZhTw, "ntf_1").await;
    let SendOutcome::Delivered { reference: Some(message_id) } = &first else { panic!("{first:?}") };
    let pushes = received(&app, "line").await;
    assert_eq!(pushes.len(), 1);
    assert_eq!(pushes[0]["sent_messages"][0]["id"], message_id.as_str());
    assert!(pushes[0]["messages"][0]["text"].as_str().unwrap().starts_with("待核准："));

    let again = senders.send(&destination, &notice(), Language::ZhTw, "ntf_1").await;
    assert_eq!(
        again,
        SendOutcome::Delivered { reference: Some(pushes[0]["request_id"].as_str().unwrap().into()) }
    );
    assert_eq!(received(&app, "line").await.len(), 1, "the same delivery sent twice is one message");

    match senders.send(&line(&app, "revoked-token"), &notice(), Language::En, "ntf_2").await {
        SendOutcome::Refused { error } => {
            assert!(error.starts_with("LINE refused the channel access token"), "{error}");
            assert!(!error.contains("revoked-token"), "{error}");
        }
        other => panic!("a revoked token is refused: {other:?}"),
    }
}

#[tokio::test]
async fn a_lost_line_answer_is_retried_into_exactly_one_message() {
    let Some(app) = TestApp::spawn_with_sandbox(Engine::Sqlite).await else { return };
    let senders = senders(&app);
    let destination = line(&app, KEY);
    fault(&app, "line", json!({"match": "*", "fault": "drop_response", "ms": 15_000})).await;
    let lost = senders.send(&destination, &notice(), Language::En, "ntf_9").await;
    assert!(matches!(&lost, SendOutcome::Unknown { error } if error.contains("may have taken")), "{lost:?}");
    let retried = senders.send(&destination, &notice(), Language::En, "ntf_9").await;
    assert!(matches!(retried, SendOutcome::Delivered { reference: Some(_) }), "{retried:?}");
    assert_eq!(received(&app, "line").await.len(), 1);
}

/// A real SMTP server writing what it receives into a folder.
struct Mailbox {
    child: std::process::Child,
    folder: tempfile::TempDir,
    port: u16,
}

impl Mailbox {
    fn start(python: std::ffi::OsString) -> Mailbox {
        use std::io::BufRead;
        let folder = tempfile::tempdir().unwrap();
        let script = format!("{}/tests/clients/smtp_mailbox.py", env!("CARGO_MANIFEST_DIR"));
        let mut child = std::process::Command::new(python)
            .arg(script)
            .arg(folder.path())
            .stdout(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        let mut line = String::new();
        std::io::BufReader::new(child.stdout.take().unwrap()).read_line(&mut line).unwrap();
        let port = line.trim().parse().unwrap_or_else(|_| panic!("the mailbox printed its port: {line:?}"));
        Mailbox { child, folder, port }
    }

    /// The raw messages received, oldest first.
    fn messages(&self) -> Vec<String> {
        let mut files: Vec<_> = std::fs::read_dir(self.folder.path())
            .unwrap()
            .map(|entry| entry.unwrap().path())
            .filter(|path| path.extension().is_some_and(|ext| ext == "eml"))
            .collect();
        files.sort();
        files.into_iter().map(|path| String::from_utf8(std::fs::read(path).unwrap()).unwrap()).collect()
    }
}

impl Drop for Mailbox {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// The header `name` of `message`, unfolded.
fn header(message: &str, name: &str) -> Option<String> {
    let head =
        message.split("\r\n\r\n").next().unwrap_or_default().replace("\r\n ", " ").replace("\r\n\t", " ");
    head.lines().find_map(|line| {
        let (field, value) = line.split_once(':')?;
        field.eq_ignore_ascii_case(name).then(|| value.trim().to_owned())
    })
}

/// `value` with its RFC 2047 encoded words (`=?utf-8?b?…?=`, `=?utf-8?q?…?=`) decoded; the space
/// between two encoded words is not part of the text, the one beside a plain word is.
fn decoded_words(value: &str) -> String {
    let mut decoded = String::new();
    let mut after_encoded = false;
    for (n, word) in value.split_whitespace().enumerate() {
        let inner = word.strip_prefix("=?").and_then(|word| word.strip_suffix("?="));
        if n > 0 && !(after_encoded && inner.is_some()) {
            decoded.push(' ');
        }
        let Some(inner) = inner else {
            decoded.push_str(word);
            after_encoded = false;
            continue;
        };
        let mut parts = inner.splitn(3, '?');
        let (_charset, encoding, text) =
            (parts.next().unwrap(), parts.next().unwrap(), parts.next().unwrap());
        let bytes = if encoding.eq_ignore_ascii_case("b") {
            base64::engine::general_purpose::STANDARD.decode(text).unwrap()
        } else {
            quoted_printable(&text.replace('_', " ")).into_bytes()
        };
        decoded.push_str(&String::from_utf8(bytes).unwrap());
        after_encoded = true;
    }
    decoded
}

/// Quoted-printable text decoded (soft line breaks joined).
fn quoted_printable(text: &str) -> String {
    let joined = text.replace("=\r\n", "");
    let bytes = joined.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'=' && i + 2 < bytes.len() {
            if let Ok(byte) = u8::from_str_radix(&joined[i + 1..i + 3], 16) {
                out.push(byte);
                i += 3;
                continue;
            }
        }
        out.push(bytes[i]);
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// The decoded bodies of `message`'s parts, by content type.
fn parts(message: &str) -> Vec<(String, String)> {
    let boundary = header(message, "Content-Type")
        .and_then(|value| value.split("boundary=").nth(1).map(|b| b.trim_matches('"').to_owned()))
        .expect("a multipart message");
    message
        .split(&format!("--{boundary}"))
        .skip(1)
        .filter(|part| !part.starts_with("--"))
        .map(|part| {
            let part = part.trim_start_matches("\r\n");
            let (head, body) = part.split_once("\r\n\r\n").unwrap_or((part, ""));
            let head = format!("{head}\r\n\r\n");
            let kind = header(&head, "Content-Type").unwrap_or_default();
            let encoding =
                header(&head, "Content-Transfer-Encoding").unwrap_or_default().to_ascii_lowercase();
            let body = match encoding.as_str() {
                "base64" => {
                    let joined: String = body.split_whitespace().collect();
                    String::from_utf8(base64::engine::general_purpose::STANDARD.decode(joined).unwrap())
                        .unwrap()
                }
                "quoted-printable" => quoted_printable(body),
                _ => body.to_owned(),
            };
            (kind, body)
        })
        .collect()
}

#[tokio::test]
async fn an_email_notice_reaches_a_real_mail_server_once_per_send_with_its_deliverys_message_id() {
    let Some(python) = python("aiosmtpd") else { return };
    let mailbox = tokio::task::spawn_blocking(move || Mailbox::start(python)).await.unwrap();
    let egress = opledger::server::egress::EgressPolicy::new(vec![opledger::server::egress::Allowed::parse(
        "127.0.0.1",
    )
    .unwrap()]);
    let senders = Senders::new(egress);
    let smtp = SmtpSettings {
        host: "127.0.0.1".into(),
        port: mailbox.port,
        security: SmtpSecurity::None,
        username: None,
        password: None,
        from: "Opledger <ops@shop.example>".into(),
    };
    let to = "manager@shop.example";
    let destination = Destination::Email { smtp: smtp.clone(), to: to.into() };
    let outcome = senders.send(&destination, &notice(), Language::ZhTw, "ntf_mail_1").await;
    assert!(
        matches!(&outcome, SendOutcome::Delivered { reference: Some(reference) } if reference.contains("queued as")),
        "{outcome:?}"
    );
    let messages = mailbox.messages();
    assert_eq!(messages.len(), 1);
    let message = &messages[0];
    assert_eq!(header(message, "To").as_deref(), Some(to));
    let subject = decoded_words(&header(message, "Subject").unwrap());
    assert_eq!(subject, "待核准：Clay teapot的 NT$1,200 退款");
    assert_eq!(header(message, "Message-ID"), Some(message_id("ntf_mail_1")));
    assert!(header(message, "Content-Type").unwrap().starts_with("multipart/alternative"));
    let parts = parts(message);
    let text = parts.iter().find(|(kind, _)| kind.starts_with("text/plain")).expect("a text part");
    let html = parts.iter().find(|(kind, _)| kind.starts_with("text/html")).expect("an HTML part");
    for (_, body) in [text, html] {
        assert!(body.contains("https://ops.example.com/operations/refund-1043-li_2"), "{body}");
        assert!(body.contains("申請人"), "{body}");
    }

    let again = senders.send(&destination, &notice(), Language::ZhTw, "ntf_mail_1").await;
    assert!(matches!(again, SendOutcome::Delivered { .. }));
    let messages = mailbox.messages();
    assert_eq!(messages.len(), 2, "a mail server does not recognise a re-send");
    assert_eq!(header(&messages[1], "Message-ID"), Some(message_id("ntf_mail_1")));

    for to in ["manager@shop.example\r\nBcc: eve@evil.example", "not an address"] {
        let destination = Destination::Email { smtp: smtp.clone(), to: to.into() };
        let outcome = senders.send(&destination, &notice(), Language::En, "ntf_mail_2").await;
        assert!(matches!(outcome, SendOutcome::Refused { .. }), "{to:?}: {outcome:?}");
    }
    assert_eq!(mailbox.messages().len(), 2, "nothing reached the mailbox");
}
