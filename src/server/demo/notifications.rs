//! The demo tenant's notifications, one rule for each thing a rule can do: approvals by e-mail to
//! the managers with reminders and an escalation to the admin, reviews to a Slack channel, unknown
//! results by LINE to support escalating to a Teams channel, slow settlements, finished bulk runs,
//! failing webhooks, a morning digest, and approvals to the shop's LINE group. Mail goes to an SMTP
//! server beside the demo (the mail sandbox's, or the one `OPLEDGER_DEMO_SMTP` names); Slack, Teams
//! and LINE go to their stand-ins in the mounted sandbox.

use chrono::Duration;
use std::net::SocketAddr;

use crate::domain::ids::{Actor, TenantId};
use crate::domain::notification::{Audience, Channel, NotifyEvent, NotifyRule};
use crate::domain::policy::Role;
use crate::server::ledger::notify::{LineInput, PrefsInput, SmtpInput};
use crate::server::ledger::{Ledger, LedgerError};

use super::DEMO_TENANT;

/// The demo shop's LINE group.
const SHOP_LINE_GROUP: &str = "C7f3a9e2b1d4c6a8e0f2b4d6c8a0e2f4b";

/// The people of the demo tenant, with their addresses and LINE user ids.
const PEOPLE: [(&str, &str, Option<&str>); 4] = [
    ("sam.support", "sam@shop.example", Some("U4af4980629a1b2c3d4e5f60718293a4b")),
    ("maria.manager", "maria@shop.example", None),
    ("ada.auditor", "ada@shop.example", None),
    ("alex.admin", "alex@shop.example", None),
];

/// Sets up the demo tenant's notifications once (nothing when it has rules already, or when the
/// server cannot seal secrets): `console` is the demo's own address, `smtp` the mail server's and
/// `line_token` the LINE stand-in's channel access token.
pub async fn set_up(
    ledger: &Ledger,
    console: &str,
    smtp: SocketAddr,
    line_token: &str,
) -> Result<(), LedgerError> {
    if !ledger.seals_secrets() {
        tracing::info!(
            tenant = DEMO_TENANT,
            "no demo notifications: their channels' secrets need OPLEDGER_SECRET_KEY"
        );
        return Ok(());
    }
    let tenant = TenantId::parse(DEMO_TENANT).map_err(|error| LedgerError::Invalid(error.to_string()))?;
    if !ledger.notify_rules(&tenant).await?.is_empty() {
        return Ok(());
    }
    super::add_demo_users(ledger, &tenant).await?;
    let demo = Actor::system("demo");
    let smtp = SmtpInput {
        host: smtp.ip().to_string(),
        port: smtp.port(),
        security: "none".into(),
        username: None,
        password: None,
        from: "opledger-demo@shop.example".into(),
    };
    ledger.set_notify_smtp(&tenant, &demo, Some(smtp)).await?;
    let line =
        LineInput { api_base: Some(format!("{console}/sandbox/line")), channel_token: line_token.to_owned() };
    ledger.set_notify_line(&tenant, &demo, Some(line)).await?;
    let slack = format!("{console}/sandbox/slack/services/TDEMO/BDEMO/demo-webhook");
    ledger.add_notify_destination(&tenant, &demo, "ops-slack", Channel::Slack, &slack).await?;
    let teams = format!("{console}/sandbox/teams/workflows/demo-workflow");
    ledger.add_notify_destination(&tenant, &demo, "ops-teams", Channel::Teams, &teams).await?;
    ledger.add_notify_destination(&tenant, &demo, "shop-line", Channel::Line, SHOP_LINE_GROUP).await?;
    for person in ledger.reads().tenant_users(&tenant).await? {
        let Some((_, email, line)) = PEOPLE.iter().find(|(name, _, _)| *name == person.name) else {
            continue;
        };
        let prefs = PrefsInput {
            email: (*email).to_owned(),
            line_user_id: line.unwrap_or_default().to_owned(),
            time_zone: "Asia/Taipei".into(),
            ..PrefsInput::default()
        };
        ledger.set_notify_prefs(&tenant, &person.id, prefs).await?;
    }
    let rule = |event, audience, channel, after| NotifyRule {
        event,
        audience,
        channel,
        after,
        remind_every: None,
        escalation: None,
    };
    let rules = [
        NotifyRule {
            remind_every: Some(Duration::minutes(30)),
            escalation: Some((Duration::hours(2), Audience::Role(Role::Admin))),
            ..rule(
                NotifyEvent::ApprovalRequested,
                Audience::Role(Role::Manager),
                Channel::Email,
                Duration::zero(),
            )
        },
        rule(
            NotifyEvent::ApprovalRequested,
            Audience::Destination("shop-line".into()),
            Channel::Line,
            Duration::zero(),
        ),
        rule(
            NotifyEvent::NeedsReview,
            Audience::Destination("ops-slack".into()),
            Channel::Slack,
            Duration::zero(),
        ),
        NotifyRule {
            escalation: Some((Duration::hours(1), Audience::Destination("ops-teams".into()))),
            ..rule(
                NotifyEvent::UnknownTooLong,
                Audience::Role(Role::Support),
                Channel::Line,
                Duration::minutes(15),
            )
        },
        rule(
            NotifyEvent::AcceptedTooLong,
            Audience::Destination("ops-teams".into()),
            Channel::Teams,
            Duration::days(3),
        ),
        rule(NotifyEvent::BulkRunFinished, Audience::Role(Role::Support), Channel::Email, Duration::zero()),
        rule(NotifyEvent::ConnectionFailing, Audience::Role(Role::Admin), Channel::Email, Duration::zero()),
        rule(NotifyEvent::ArchiveUntrusted, Audience::Role(Role::Admin), Channel::Email, Duration::zero()),
        rule(NotifyEvent::Mentioned, Audience::Role(Role::Support), Channel::Email, Duration::zero()),
        rule(NotifyEvent::Digest, Audience::Role(Role::Manager), Channel::Email, Duration::hours(9)),
    ];
    for rule in rules {
        ledger.add_notify_rule(&tenant, &demo, rule).await?;
    }
    tracing::info!(tenant = DEMO_TENANT, "demo notifications: e-mail, Slack, Teams and LINE rules set");
    Ok(())
}
