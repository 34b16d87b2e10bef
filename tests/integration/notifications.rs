//! Notifications end to end inside the server: an operation entering a waiting state writes its
//! watch in the same transaction; the notifier turns it into one delivery per recipient, sends each
//! once (also with two notifiers at once), reminds and escalates while the operation still waits,
//! heeds each person's mutes and quiet hours (an escalation does not), skips what no longer waits,
//! and leaves every other channel and the operation itself alone when one channel is down. A send
//! interrupted between sending and recording is sent again only where the channel recognises the
//! retry, also when the server is killed with SIGKILL mid-send. Rules with bad input are refused
//! and change nothing.

use chrono::{Duration, Timelike, Utc};
use opledger::domain::ids::{Actor, OpId, TenantId};
use opledger::domain::notification::{Audience, Channel, NotifyEvent, NotifyRule};
use opledger::domain::params::CanonicalParams;
use opledger::domain::policy::Role;
use opledger::server::ledger::notifier::Notifier;
use opledger::server::ledger::notify::{PrefsInput, SmtpInput};
use opledger::server::ledger::LedgerError;
use opledger::server::ledger::RegisterRequest;
use opledger::server::sandbox::mail::{MailConfig, MailSandbox};
use serde_json::{json, Value};

use crate::support::TestApp;

fn acme() -> TenantId {
    TenantId::parse("acme").unwrap()
}

fn admin() -> Actor {
    Actor::human("alex", Role::Admin)
}

/// An SMTP server on a port of its own that keeps every message.
async fn mailbox() -> (MailSandbox, u16) {
    let mail = MailSandbox::new(MailConfig { api_key: "re_test".into(), key_retention: Duration::hours(24) });
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let port = listener.local_addr().unwrap().port();
    tokio::spawn(mail.clone().serve_smtp(listener));
    (mail, port)
}

fn big_refund(op_id: &str) -> Value {
    json!({
        "op_id": op_id, "kind": "refund", "subject": "order:1043", "provider": "stripe",
        "params": {"payment_intent": "pi_1043", "amount": {"minor": 120000, "currency": "TWD"},
                   "reason": "requested_by_customer", "line_item": "li_1", "order": "1043"},
        "requested_by": "agent-7"
    })
}

/// The tenant's SMTP server, its refunds over TWD 1,000 waiting for a manager, the managers maria
/// (reading zh-TW) and mei, the admin alex, each with an address; answers the mailbox.
async fn shop(app: &TestApp) -> MailSandbox {
    let (mail, port) = mailbox().await;
    let smtp = SmtpInput {
        host: "127.0.0.1".into(),
        port,
        security: "none".into(),
        username: None,
        password: None,
        from: "ops@acme.example".into(),
    };
    app.ledger.set_notify_smtp(&acme(), &admin(), Some(smtp)).await.expect("the SMTP server is set");
    let console = app.signed_in("alex", Role::Admin).await;
    let csrf = console.csrf().await;
    let (status, body) = console
        .call(
            "add_approval_rule",
            &[("csrf", &csrf), ("kind", "refund"), ("threshold", "1,000"), ("currency", "twd")],
        )
        .await;
    assert_eq!(status, 200, "{body}");
    app.add_user("acme", "maria", Role::Manager).await;
    app.add_user("acme", "mei", Role::Manager).await;
    app.tamper("update users set language = 'zh-TW' where name = 'maria'").await;
    for name in ["maria", "mei", "alex"] {
        set_prefs(app, name, PrefsInput { email: format!("{name}@acme.example"), ..PrefsInput::default() })
            .await
            .unwrap();
    }
    mail
}

async fn user_id(app: &TestApp, name: &str) -> String {
    let people = app.store.notify_recipients(&acme(), &Audience::People(vec![name.into()])).await.unwrap();
    people.first().expect("the person exists").user_id.clone()
}

/// The field a refusal names.
fn refused<T>(result: Result<T, LedgerError>) -> &'static str {
    match result {
        Err(LedgerError::InvalidField { field, .. }) => field,
        Err(other) => panic!("expected a refusal naming a field, got {other}"),
        Ok(_) => panic!("expected a refusal, it was taken"),
    }
}

async fn set_prefs(app: &TestApp, name: &str, prefs: PrefsInput) -> Result<(), LedgerError> {
    let id = user_id(app, name).await;
    app.ledger.set_notify_prefs(&acme(), &id, prefs).await.map(|_| ())
}

/// Quiet hours from an hour ago to two hours from now, in UTC (the time zone of a person who set none).
fn quiet_now() -> String {
    let now = Utc::now();
    let at = |time: chrono::DateTime<Utc>| format!("{:02}:{:02}", time.hour(), time.minute());
    format!("{}-{}", at(now - Duration::hours(1)), at(now + Duration::hours(2)))
}

fn approval_rule() -> NotifyRule {
    NotifyRule {
        event: NotifyEvent::ApprovalRequested,
        audience: Audience::Role(Role::Manager),
        channel: Channel::Email,
        after: Duration::zero(),
        remind_every: Some(Duration::minutes(30)),
        escalation: Some((Duration::hours(2), Audience::Role(Role::Admin))),
    }
}

fn notifier(app: &TestApp) -> Notifier {
    Notifier::new(app.ledger.clone(), "https://ops.acme.example", std::time::Duration::from_secs(1))
}

/// The addresses the mailbox received, in order.
fn received(mail: &MailSandbox) -> Vec<String> {
    mail.mailbox().into_iter().flat_map(|message| message.to).collect()
}

async fn statuses(app: &TestApp) -> Vec<(String, String, String)> {
    let deliveries = app.store.notify_deliveries(&acme(), None, 100).await.unwrap();
    let mut statuses: Vec<(String, String, String)> = deliveries
        .into_iter()
        .map(|delivery| {
            (
                delivery.stage.as_text(),
                delivery.status.as_str().to_owned(),
                delivery.last_error.unwrap_or_default(),
            )
        })
        .collect();
    statuses.sort();
    statuses
}

crate::engine_tests! {
    an_approval_request_reaches_each_manager_once_then_reminds_and_escalates_while_it_waits(app) {
        let mail = shop(&app).await;
        app.ledger.add_notify_rule(&acme(), &admin(), approval_rule()).await.expect("the rule is kept");
        let (status, body) = app.register(&big_refund("refund-1043-li_1")).await;
        assert_eq!((status, body["state"].as_str()), (201, Some("pending_approval")), "{body}");
        assert_eq!(
            app.number("select count(*) from notify_watches where subject = 'refund-1043-li_1' and stage = 'first'").await,
            1,
            "the watch is written with the operation"
        );

        let first = notifier(&app);
        let second = notifier(&app);
        let (a, b) = tokio::join!(first.pass(), second.pass());
        a.unwrap();
        b.unwrap();
        first.pass().await.unwrap();
        let mut to = received(&mail);
        to.sort();
        assert_eq!(to, ["maria@acme.example", "mei@acme.example"], "each manager once, with two notifiers at once");
        let own = RegisterRequest {
            op_id: OpId::parse("refund-1043-li_9").unwrap(),
            kind: "refund".into(),
            subject: "order:1043".into(),
            provider: "stripe".into(),
            params: CanonicalParams::from_value(big_refund("refund-1043-li_9")["params"].clone()).unwrap(),
            requested_by: "maria".into(),
            on_behalf_of: None,
            server_sends: true,
            compensates: None,
            key_retention: None,
        };
        app.ledger.register(&acme(), &Actor::human("maria", Role::Manager), own).await.unwrap();
        first.pass().await.unwrap();
        first.pass().await.unwrap();
        assert_eq!(received(&mail).last().map(String::as_str), Some("mei@acme.example"), "maria asked for it herself: four-eyes leaves it to mei");
        assert_eq!(received(&mail).len(), 3);
        app.tamper("delete from notify_watches where subject = 'refund-1043-li_9'").await;
        let message = mail.mailbox().into_iter().find(|message| message.to == ["mei@acme.example"]).unwrap();
        assert!(message.text.contains("https://ops.acme.example/operations/refund-1043-li_1"), "{}", message.text);
        let in_chinese = mail.mailbox().into_iter().find(|message| message.to == ["maria@acme.example"]).unwrap();
        assert!(in_chinese.subject.to_ascii_lowercase().starts_with("=?utf-8?"), "maria reads zh-TW: {}", in_chinese.subject);

        app.tamper("update notify_watches set next_at_us = 0").await;
        first.pass().await.unwrap();
        first.pass().await.unwrap();
        assert_eq!(received(&mail).len(), 5, "one reminder to each manager");
        app.tamper("update notify_watches set next_at_us = 0").await;
        first.pass().await.unwrap();
        first.pass().await.unwrap();
        assert_eq!(received(&mail).len(), 7, "the second reminder");
        app.tamper("update notify_watches set next_at_us = 0, stage = 'escalation'").await;
        first.pass().await.unwrap();
        first.pass().await.unwrap();
        assert_eq!(received(&mail).last().map(String::as_str), Some("alex@acme.example"), "the escalation reaches the admin");
        assert_eq!(app.number("select count(*) from notify_watches").await, 0, "nothing is left to escalate to");
        first.pass().await.unwrap();
        assert_eq!(received(&mail).len(), 8, "nothing is sent twice");
    }

    what_no_longer_waits_is_not_sent_and_its_watch_ends_with_the_wait(app) {
        let mail = shop(&app).await;
        app.ledger.add_notify_rule(&acme(), &admin(), approval_rule()).await.unwrap();
        for name in ["maria", "mei"] {
            let quiet = PrefsInput { email: format!("{name}@acme.example"), quiet_hours: quiet_now(), ..PrefsInput::default() };
            set_prefs(&app, name, quiet).await.unwrap();
        }
        app.register(&big_refund("refund-1043-li_1")).await;
        notifier(&app).pass().await.unwrap();
        notifier(&app).pass().await.unwrap();
        assert_eq!(app.number("select count(*) from notify_deliveries where status = 'pending'").await, 2, "held by quiet hours");
        let manager = app.signed_in("mia", Role::Manager).await;
        let (status, body) = manager.act("a1", "refund-1043-li_1", "deny", &[("reason", "already refunded")]).await;
        assert_eq!(status, 200, "{body}");
        assert_eq!(app.number("select count(*) from notify_watches").await, 0, "leaving the state ends the watch");
        app.tamper("update users set quiet_hours = null").await;
        app.tamper("update notify_deliveries set next_attempt_at_us = 0").await;
        notifier(&app).pass().await.unwrap();
        assert!(received(&mail).is_empty());
        let statuses = statuses(&app).await;
        assert!(statuses.iter().all(|(_, status, why)| status == "skipped" && why == "it no longer waits"), "{statuses:?}");
    }

    mutes_and_quiet_hours_hold_messages_back_but_not_an_escalation(app) {
        let mail = shop(&app).await;
        app.ledger.add_notify_rule(&acme(), &admin(), approval_rule()).await.unwrap();
        set_prefs(&app, "mei", PrefsInput { email: "mei@acme.example".into(), mutes: vec!["event:approval_requested".into()], ..PrefsInput::default() }).await.unwrap();
        set_prefs(&app, "maria", PrefsInput { email: "maria@acme.example".into(), quiet_hours: quiet_now(), ..PrefsInput::default() }).await.unwrap();
        set_prefs(&app, "alex", PrefsInput { email: "alex@acme.example".into(), mutes: vec!["channel:email".into()], ..PrefsInput::default() }).await.unwrap();
        app.register(&big_refund("refund-1043-li_1")).await;
        let notifier = notifier(&app);
        notifier.pass().await.unwrap();
        notifier.pass().await.unwrap();
        assert!(received(&mail).is_empty(), "mei muted it, maria is in her quiet hours");
        let statuses = statuses(&app).await;
        assert!(statuses.contains(&("first".into(), "skipped".into(), "mei muted it".into())), "{statuses:?}");
        assert!(statuses.contains(&("first".into(), "pending".into(), "held until maria's quiet hours end".into())), "{statuses:?}");
        assert_eq!(app.number("select count(*) from notify_deliveries where status = 'pending' and next_attempt_at_us > 0 and attempts = 0").await, 1, "held back, not tried");

        app.tamper("update notify_watches set next_at_us = 0, stage = 'escalation'").await;
        notifier.pass().await.unwrap();
        notifier.pass().await.unwrap();
        assert_eq!(received(&mail), ["alex@acme.example"], "an escalation reaches alex, who muted e-mail");
    }

    a_person_who_left_is_not_told(app) {
        let mail = shop(&app).await;
        app.ledger.add_notify_rule(&acme(), &admin(), approval_rule()).await.unwrap();
        app.tamper("update users set status = 'deactivated' where name = 'mei'").await;
        app.register(&big_refund("refund-1043-li_1")).await;
        let notifier = notifier(&app);
        notifier.pass().await.unwrap();
        notifier.pass().await.unwrap();
        assert_eq!(received(&mail), ["maria@acme.example"]);
    }

    a_channel_that_is_down_delays_its_own_messages_alone(app) {
        let mail = shop(&app).await;
        let dead = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let dead_url = format!("http://127.0.0.1:{}/services/T1/B1/x", dead.local_addr().unwrap().port());
        drop(dead);
        app.ledger.add_notify_destination(&acme(), &admin(), "ops-slack", Channel::Slack, &dead_url).await.unwrap();
        app.ledger.add_notify_rule(&acme(), &admin(), approval_rule()).await.unwrap();
        let slack = NotifyRule { audience: Audience::Destination("ops-slack".into()), channel: Channel::Slack, remind_every: None, escalation: None, ..approval_rule() };
        app.ledger.add_notify_rule(&acme(), &admin(), slack).await.unwrap();
        let (status, body) = app.register(&big_refund("refund-1043-li_1")).await;
        assert_eq!((status, body["state"].as_str()), (201, Some("pending_approval")), "the operation does not wait for its notification");
        let notifier = notifier(&app);
        notifier.pass().await.unwrap();
        notifier.pass().await.unwrap();
        assert_eq!(received(&mail).len(), 2, "e-mail goes out while Slack is down");
        let slack_row = app
            .store
            .notify_deliveries(&acme(), Some("d:ops-slack"), 10)
            .await
            .unwrap()
            .pop()
            .expect("the Slack delivery");
        assert_eq!((slack_row.status.as_str(), slack_row.attempts), ("pending", 1), "{slack_row:?}");
        assert!(slack_row.next_attempt_at > Utc::now(), "tried again later");
        assert!(slack_row.last_error.as_deref().is_some_and(|error| !error.contains("/services/")), "the webhook's secret path is never shown: {slack_row:?}");
    }

    a_send_interrupted_between_sending_and_recording_is_not_sent_twice(app) {
        let mail = shop(&app).await;
        app.ledger.add_notify_rule(&acme(), &admin(), approval_rule()).await.unwrap();
        app.register(&big_refund("refund-1043-li_1")).await;
        let notifier = notifier(&app);
        notifier.pass().await.unwrap();
        assert_eq!(received(&mail).len(), 2);
        // What a worker killed after sending and before recording leaves: its lease, run out.
        app.tamper("update notify_deliveries set status = 'pending', lease_until_us = 1, next_attempt_at_us = 0").await;
        notifier.pass().await.unwrap();
        assert_eq!(received(&mail).len(), 2, "e-mail cannot tell a retry from a second message, so it is not sent again");
        let statuses = statuses(&app).await;
        assert!(statuses.iter().all(|(_, status, why)| status == "unknown" && why.contains("may have arrived")), "{statuses:?}");
        let id = app.store.notify_deliveries(&acme(), None, 1).await.unwrap().remove(0).id;
        app.ledger.resend_notification(&acme(), &admin(), &id).await.expect("an admin sends it again");
        notifier.pass().await.unwrap();
        assert_eq!(received(&mail).len(), 3, "sent again once, on an admin's word");
    }

    bad_rules_and_destinations_are_refused_and_change_nothing(app) {
        shop(&app).await;
        let mut zero = approval_rule();
        zero.remind_every = Some(Duration::zero());
        assert_eq!(refused(app.ledger.add_notify_rule(&acme(), &admin(), zero).await), "remind_every");
        let mut years = approval_rule();
        years.escalation = Some((Duration::days(3650), Audience::Role(Role::Admin)));
        assert_eq!(refused(app.ledger.add_notify_rule(&acme(), &admin(), years).await), "escalate_after");
        let nobody = NotifyRule { audience: Audience::People(vec!["nobody".into()]), ..approval_rule() };
        assert_eq!(refused(app.ledger.add_notify_rule(&acme(), &admin(), nobody).await), "audience");
        let nowhere = NotifyRule { audience: Audience::Destination("nowhere".into()), ..approval_rule() };
        assert_eq!(refused(app.ledger.add_notify_rule(&acme(), &admin(), nowhere).await), "audience");
        assert!(Audience::parse("role:boss").unwrap_err().contains("no role named \"boss\""));
        let private = app.ledger.add_notify_destination(&acme(), &admin(), "ops", Channel::Slack, "https://10.0.0.5/hook").await;
        assert_eq!(refused(private), "target");
        let header = app.ledger.add_notify_destination(&acme(), &admin(), "ops", Channel::Email, "ops@acme.example\r\nBcc: x@evil.example").await;
        assert_eq!(refused(header), "target");
        assert_eq!(refused(set_prefs(&app, "maria", PrefsInput { time_zone: "Mars/Olympus".into(), ..PrefsInput::default() }).await), "time_zone");
        assert_eq!(refused(set_prefs(&app, "maria", PrefsInput { quiet_hours: "22-7".into(), ..PrefsInput::default() }).await), "quiet_hours");
        assert_eq!(app.number("select count(*) from notify_rules").await, 0);
        assert_eq!(app.number("select count(*) from notify_destinations").await, 0);
        assert_eq!(app.number("select count(*) from users where email = 'maria@acme.example'").await, 1, "a refused change keeps what was there");
    }

    a_provider_that_refuses_the_credentials_and_a_finished_bulk_run_are_told(app) {
        let mail = shop(&app).await;
        let to_admin = |event| NotifyRule { event, audience: Audience::Role(Role::Admin), remind_every: None, escalation: None, ..approval_rule() };
        app.ledger.add_notify_rule(&acme(), &admin(), to_admin(NotifyEvent::ConnectionFailing)).await.unwrap();
        app.ledger.add_notify_rule(&acme(), &admin(), to_admin(NotifyEvent::BulkRunFinished)).await.unwrap();
        for op_id in ["refund-1043-li_3", "refund-1043-li_4"] {
            let mut refund = crate::support::refund_1043(38000);
            refund["op_id"] = json!(op_id);
            app.register(&refund).await;
            app.begin_attempt(op_id).await;
            let (status, body) = app.report(op_id, 1, &json!({"outcome": "forbidden", "http_status": 401})).await;
            assert_eq!(status, 200, "{body}");
        }
        app.tamper(
            "insert into bulk_runs (tenant, id, action, filter, requested_by, created_at_us) \
             values ('acme', 'bulk_7', 'lookup', 'state:unknown', 'sam', 1)",
        )
        .await;
        app.store.finish_bulk_run(&acme(), "bulk_7", Utc::now()).await.unwrap();
        app.store.finish_bulk_run(&acme(), "bulk_7", Utc::now()).await.unwrap();
        let notifier = notifier(&app);
        notifier.pass().await.unwrap();
        notifier.pass().await.unwrap();
        assert_eq!(received(&mail), ["alex@acme.example", "alex@acme.example"], "one for the connection (two refusals within the hour), one for the run");
        let texts: Vec<String> = mail.mailbox().into_iter().map(|message| message.text).collect();
        assert!(texts.iter().any(|text| text.contains("/admin/providers")), "{texts:?}");
        assert!(texts.iter().any(|text| text.contains("/bulk/bulk_7")), "{texts:?}");
    }

    a_digest_tells_each_person_once_a_day_what_waits_for_them(app) {
        let mail = shop(&app).await;
        app.add_user("acme", "sam", Role::Support).await;
        set_prefs(&app, "sam", PrefsInput { email: "sam@acme.example".into(), ..PrefsInput::default() }).await.unwrap();
        let at_midnight = |audience| NotifyRule {
            event: NotifyEvent::Digest,
            audience,
            channel: Channel::Email,
            after: Duration::zero(),
            remind_every: None,
            escalation: None,
        };
        app.ledger.add_notify_rule(&acme(), &admin(), at_midnight(Audience::Role(Role::Manager))).await.unwrap();
        app.ledger.add_notify_rule(&acme(), &admin(), at_midnight(Audience::People(vec!["sam".into()]))).await.unwrap();
        app.register(&big_refund("refund-1043-li_1")).await;
        let (first, second) = (notifier(&app), notifier(&app));
        let (a, b) = tokio::join!(first.pass(), second.pass());
        a.unwrap();
        b.unwrap();
        first.pass().await.unwrap();
        let mut to = received(&mail);
        to.sort();
        assert_eq!(to, ["maria@acme.example", "mei@acme.example"], "one digest for each manager, from two notifiers");
        let digest = mail.mailbox().into_iter().find(|message| message.to == ["mei@acme.example"]).unwrap();
        assert!(digest.text.contains("refund-1043-li_1"), "{}", digest.text);
        let skipped = app.number("select count(*) from notify_deliveries where event = 'digest' and status = 'skipped'").await;
        assert_eq!(skipped, 1, "nothing waits for sam: no message");
        assert_eq!(app.number("select count(*) from notify_deliveries where event = 'digest'").await, 3, "one per person and day");
    }

    another_tenants_rules_never_reach_this_tenants_operations(app) {
        let mail = shop(&app).await;
        let globex = TenantId::parse("globex").unwrap();
        app.add_user("globex", "gus", Role::Manager).await;
        let rule = NotifyRule { audience: Audience::Role(Role::Manager), ..approval_rule() };
        app.ledger.add_notify_rule(&globex, &admin(), rule).await.unwrap();
        app.register(&big_refund("refund-1043-li_1")).await;
        notifier(&app).pass().await.unwrap();
        assert!(received(&mail).is_empty());
        assert_eq!(app.number("select count(*) from notify_watches").await, 0, "acme has no rule, globex's rule watches globex alone");
    }
}

/// LINE through its stand-in in the mounted sandbox, whose one valid channel access token is the
/// sandbox's key.
mod line {
    use super::*;
    use opledger::server::ledger::notify::LineInput;

    const KEY: &str = "sk_test_line_stand_in";

    async fn spawn(engine: crate::support::Engine) -> Option<TestApp> {
        TestApp::spawn_with(engine, |settings| {
            settings.sandbox = true;
            settings.stripe_secret_key = KEY.into();
        })
        .await
    }

    /// The pushes the stand-in took.
    async fn pushes(app: &TestApp) -> Vec<Value> {
        let listed: Value = app
            .client
            .get(app.url("/sandbox/_sandbox/line"))
            .bearer_auth(KEY)
            .send()
            .await
            .unwrap()
            .json()
            .await
            .unwrap();
        listed.as_array().cloned().or_else(|| listed["data"].as_array().cloned()).unwrap_or_default()
    }

    /// Maria's LINE id, the tenant's LINE account with `token`, and a rule telling her of approvals.
    async fn maria_on_line(app: &TestApp, token: &str) {
        shop(app).await;
        let line = LineInput { api_base: Some(app.url("/sandbox/line")), channel_token: token.into() };
        app.ledger.set_notify_line(&acme(), &admin(), Some(line)).await.expect("the LINE account is set");
        let prefs = PrefsInput { line_user_id: format!("U{}", "4a".repeat(16)), ..PrefsInput::default() };
        set_prefs(app, "maria", prefs).await.unwrap();
        let rule = NotifyRule {
            audience: Audience::People(vec!["maria".into()]),
            channel: Channel::Line,
            remind_every: None,
            escalation: None,
            ..approval_rule()
        };
        app.ledger.add_notify_rule(&acme(), &admin(), rule).await.expect("the rule is kept");
    }

    async fn an_interrupted_push_is_sent_again_under_its_retry_key_and_arrives_once(
        engine: crate::support::Engine,
    ) {
        let Some(app) = spawn(engine).await else { return };
        maria_on_line(&app, KEY).await;
        app.register(&big_refund("refund-1043-li_1")).await;
        let notifier = notifier(&app);
        notifier.pass().await.unwrap();
        assert_eq!(pushes(&app).await.len(), 1);
        app.tamper(
            "update notify_deliveries set status = 'pending', lease_until_us = 1, next_attempt_at_us = 0",
        )
        .await;
        notifier.pass().await.unwrap();
        assert_eq!(pushes(&app).await.len(), 1, "LINE took the retry as the same push");
        let statuses = statuses(&app).await;
        assert_eq!(
            statuses,
            [("first".into(), "delivered".into(), String::new())],
            "the retry is recorded as delivered"
        );
    }

    async fn a_token_line_refuses_keeps_the_rule_and_shows_the_refusal_in_words(
        engine: crate::support::Engine,
    ) {
        let Some(app) = spawn(engine).await else { return };
        maria_on_line(&app, "revoked-channel-token").await;
        assert_eq!(app.number("select count(*) from notify_rules").await, 1, "the rule is saved");
        app.register(&big_refund("refund-1043-li_1")).await;
        notifier(&app).pass().await.unwrap();
        assert!(pushes(&app).await.is_empty());
        let delivery = app.store.notify_deliveries(&acme(), None, 1).await.unwrap().remove(0);
        assert_eq!(delivery.status.as_str(), "failed", "a refusal is not tried again: {delivery:?}");
        let error = delivery.last_error.unwrap_or_default();
        assert!(error.contains("LINE") && error.contains("token"), "{error}");
        assert!(!error.contains("revoked-channel-token"), "the token itself is never shown: {error}");
    }

    crate::on_both_engines!(
        an_interrupted_push_is_sent_again_under_its_retry_key_and_arrives_once,
        a_token_line_refuses_keeps_the_rule_and_shows_the_refusal_in_words,
    );
}

/// The real thing: `opledger serve` killed with SIGKILL while an SMTP server holds its answer to a
/// notification it has taken, then started again on the same database.
mod killed {
    use std::process::{Child, Command, Stdio};
    use std::time::{Duration as StdDuration, Instant};

    fn opledger(database_url: &str) -> Command {
        let mut command = Command::new(env!("CARGO_BIN_EXE_opledger"));
        command
            .env("OPLEDGER_SECRET_KEY", crate::support::SECRET_KEY)
            .env("OPLEDGER_DATABASE_URL", database_url)
            .env("OPLEDGER_ALLOW_EGRESS", "127.0.0.1")
            .env("OPLEDGER_DEFAULT_TENANT", "acme")
            .env_remove("OPLEDGER_ADDR");
        command
    }

    fn run(database_url: &str, args: &[&str]) -> String {
        let output = opledger(database_url).args(args).output().unwrap();
        assert!(output.status.success(), "{args:?}: {}", String::from_utf8_lossy(&output.stderr));
        String::from_utf8(output.stdout).unwrap()
    }

    fn serve(database_url: &str, port: u16, site: &std::path::Path) -> Child {
        opledger(database_url)
            .args([
                "serve",
                "--addr",
                &format!("127.0.0.1:{port}"),
                "--reconcile-every",
                "0s",
                "--notify-every",
                "200ms",
            ])
            .args(["--site-root", &site.display().to_string()])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap()
    }

    fn messages(folder: &std::path::Path) -> usize {
        std::fs::read_dir(folder)
            .unwrap()
            .filter(|entry| entry.as_ref().unwrap().path().extension().is_some_and(|ext| ext == "eml"))
            .count()
    }

    async fn until<T>(what: &str, seconds: u64, mut check: impl FnMut() -> Option<T>) -> T {
        let deadline = Instant::now() + StdDuration::from_secs(seconds);
        loop {
            if let Some(found) = check() {
                return found;
            }
            assert!(Instant::now() < deadline, "{what} within {seconds} s");
            tokio::time::sleep(StdDuration::from_millis(200)).await;
        }
    }

    #[tokio::test]
    async fn a_notification_the_server_was_killed_sending_is_not_sent_again_after_the_restart() {
        let Some(python) = crate::support::python("aiosmtpd") else { return };
        let work = tempfile::tempdir().unwrap();
        let mail = work.path().join("mail");
        let script = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/clients/smtp_mailbox.py");
        let mut mailbox = Command::new(python)
            .args([script, &mail.display().to_string()])
            .env("SMTP_MAILBOX_ANSWER_AFTER", "60")
            .stdout(Stdio::piped())
            .spawn()
            .unwrap();
        let mut line = String::new();
        std::io::BufRead::read_line(&mut std::io::BufReader::new(mailbox.stdout.take().unwrap()), &mut line)
            .unwrap();
        let smtp_port = line.trim().to_owned();

        let database_url = format!("sqlite://{}/opledger.db", work.path().display());
        run(&database_url, &["migrate"]);
        run(&database_url, &["tenant", "add", "acme"]);
        let token = run(&database_url, &["token", "create", "--tenant", "acme", "--name", "agent-7"])
            .trim()
            .to_owned();
        run(
            &database_url,
            &[
                "notify",
                "smtp",
                "--tenant",
                "acme",
                "--host",
                "127.0.0.1",
                "--port",
                &smtp_port,
                "--security",
                "none",
                "--from",
                "ops@acme.example",
            ],
        );
        run(
            &database_url,
            &[
                "notify",
                "destination-add",
                "--tenant",
                "acme",
                "--name",
                "ops-mail",
                "--channel",
                "email",
                "--target",
                "ops@acme.example",
            ],
        );
        run(
            &database_url,
            &[
                "notify",
                "rule-add",
                "--tenant",
                "acme",
                "--event",
                "connection_failing",
                "--to",
                "destination:ops-mail",
            ],
        );

        let port = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
        let mut server = serve(&database_url, port, work.path());
        let client = reqwest::Client::new();
        let api = |path: &str| format!("http://127.0.0.1:{port}/api/v1{path}");
        let mut refund = crate::support::refund_1043(38000);
        refund["requested_by"] = serde_json::json!("agent-7");
        let deadline = Instant::now() + StdDuration::from_secs(30);
        while client.post(api("/operations")).bearer_auth(&token).json(&refund).send().await.is_err() {
            assert!(Instant::now() < deadline, "the server answers");
            tokio::time::sleep(StdDuration::from_millis(200)).await;
        }
        let begun = client
            .post(api("/operations/refund-1043-li_2/attempts"))
            .bearer_auth(&token)
            .json(&serde_json::json!({}))
            .send()
            .await
            .unwrap();
        assert!(begun.status().is_success(), "{}", begun.text().await.unwrap());
        let reported = client
            .post(api("/operations/refund-1043-li_2/attempts/1/outcome"))
            .bearer_auth(&token)
            .json(&serde_json::json!({"outcome": "forbidden", "http_status": 401}))
            .send()
            .await
            .unwrap();
        assert!(reported.status().is_success(), "{}", reported.text().await.unwrap());

        until("the SMTP server takes the message", 20, || (messages(&mail) == 1).then_some(())).await;
        server.kill().unwrap();
        server.wait().unwrap();
        let mut server = serve(&database_url, port, work.path());
        let deliveries = until("the restarted server finds the send it was killed in", 60, || {
            let listed = run(&database_url, &["notify", "deliveries", "--tenant", "acme"]);
            listed.contains("\tunknown\t").then_some(listed)
        })
        .await;
        assert!(deliveries.contains("may have arrived"), "{deliveries}");
        tokio::time::sleep(StdDuration::from_secs(1)).await;
        assert_eq!(messages(&mail), 1, "sent once, though the server never heard the answer");
        server.kill().unwrap();
        server.wait().unwrap();
        mailbox.kill().unwrap();
        mailbox.wait().unwrap();
    }
}
