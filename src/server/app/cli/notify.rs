//! `opledger notify`: a tenant's notification channels (its SMTP server, its LINE account), its
//! shared destinations, its rules, and the delivery log. `serve` writes and sends the deliveries.

use clap::Subcommand;

use super::options::{open_ledger, open_store, parse_tenant, DatabaseArgs, EgressArgs, SecretArgs};
use crate::domain::ids::{Actor, TenantId};
use crate::domain::notification::{parse_span, span_text, Audience, Channel, NotifyEvent, NotifyRule};
use crate::server::ledger::notify::{LineInput, SmtpInput};
use crate::server::ledger::Ledger;

#[derive(Debug, Subcommand)]
pub enum NotifyCommand {
    /// Set the SMTP server notifications are e-mailed through (or --remove it):
    /// `opledger notify smtp --tenant acme --host smtp.example.com --port 587 --from ops@example.com --username ops`
    /// with the password in OPLEDGER_SMTP_PASSWORD (stored sealed under OPLEDGER_SECRET_KEY).
    Smtp {
        #[command(flatten)]
        database: DatabaseArgs,
        #[command(flatten)]
        secret: SecretArgs,
        #[command(flatten)]
        egress: EgressArgs,
        #[arg(long, value_parser = parse_tenant)]
        tenant: TenantId,
        #[arg(long, required_unless_present = "remove")]
        host: Option<String>,
        #[arg(long, default_value_t = 587)]
        port: u16,
        /// none, starttls or tls.
        #[arg(long, default_value = "starttls")]
        security: String,
        #[arg(long)]
        username: Option<String>,
        #[arg(long, env = "OPLEDGER_SMTP_PASSWORD", hide_env_values = true)]
        password: Option<String>,
        /// The sender's address, e.g. ops@example.com.
        #[arg(long, required_unless_present = "remove")]
        from: Option<String>,
        #[arg(long, conflicts_with_all = ["host", "from"])]
        remove: bool,
    },
    /// Set the LINE official account whose Messaging API pushes notifications (or --remove it),
    /// with its channel access token in OPLEDGER_LINE_TOKEN (stored sealed).
    Line {
        #[command(flatten)]
        database: DatabaseArgs,
        #[command(flatten)]
        secret: SecretArgs,
        #[command(flatten)]
        egress: EgressArgs,
        #[arg(long, value_parser = parse_tenant)]
        tenant: TenantId,
        #[arg(long, env = "OPLEDGER_LINE_TOKEN", hide_env_values = true, required_unless_present = "remove")]
        token: Option<String>,
        /// Another base than https://api.line.me (a stand-in, a proxy).
        #[arg(long)]
        api_base: Option<String>,
        #[arg(long, conflicts_with = "token")]
        remove: bool,
    },
    /// Add a shared destination: a Slack or Teams webhook URL, a LINE group id or a shared mailbox:
    /// `opledger notify destination-add --tenant acme --name ops-slack --channel slack --target https://hooks.slack.com/services/…`.
    DestinationAdd {
        #[command(flatten)]
        database: DatabaseArgs,
        #[command(flatten)]
        secret: SecretArgs,
        #[command(flatten)]
        egress: EgressArgs,
        #[arg(long, value_parser = parse_tenant)]
        tenant: TenantId,
        /// 1 to 40 lowercase letters, digits and dashes.
        #[arg(long)]
        name: String,
        /// slack, teams, line or email.
        #[arg(long, value_parser = Channel::parse)]
        channel: Channel,
        /// The webhook URL, the LINE group/room/user id, or the e-mail address.
        #[arg(long, env = "OPLEDGER_DESTINATION_TARGET", hide_env_values = true)]
        target: String,
    },
    /// Remove a destination no rule sends to.
    DestinationRemove {
        #[command(flatten)]
        database: DatabaseArgs,
        #[arg(long, value_parser = parse_tenant)]
        tenant: TenantId,
        #[arg(long)]
        name: String,
    },
    /// Add a rule: `opledger notify rule-add --tenant acme --event approval_requested --to role:manager
    /// --channel email --remind-every 30m --escalate-after 2h --escalate-to role:admin`.
    RuleAdd {
        #[command(flatten)]
        database: DatabaseArgs,
        #[arg(long, value_parser = parse_tenant)]
        tenant: TenantId,
        /// approval_requested, needs_review, unknown_too_long, accepted_too_long, bulk_run_finished,
        /// connection_failing or digest.
        #[arg(long, value_parser = NotifyEvent::parse)]
        event: NotifyEvent,
        /// role:NAME, people:NAME,NAME or destination:NAME.
        #[arg(long, value_parser = Audience::parse)]
        to: Audience,
        /// email or line for people (a destination has its own).
        #[arg(long, value_parser = Channel::parse, default_value = "email")]
        channel: Channel,
        /// The wait before the first message (0: at once), the threshold for unknown_too_long and
        /// accepted_too_long (e.g. 15m), or the time of day of a digest (e.g. 09:00).
        #[arg(long, value_parser = parse_span, default_value = "0")]
        after: chrono::Duration,
        /// While it still waits: a reminder this often (at most three).
        #[arg(long, value_parser = parse_span)]
        remind_every: Option<chrono::Duration>,
        /// While it still waits: tell --escalate-to this long after it began to wait.
        #[arg(long, value_parser = parse_span, requires = "escalate_to")]
        escalate_after: Option<chrono::Duration>,
        #[arg(long, value_parser = Audience::parse, requires = "escalate_after")]
        escalate_to: Option<Audience>,
    },
    /// List a tenant's channels, destinations and rules.
    List {
        #[command(flatten)]
        database: DatabaseArgs,
        #[arg(long, value_parser = parse_tenant)]
        tenant: TenantId,
    },
    /// Remove a rule; what it had not sent yet is skipped.
    RuleRemove {
        #[command(flatten)]
        database: DatabaseArgs,
        #[arg(long, value_parser = parse_tenant)]
        tenant: TenantId,
        /// The rule's id (nr_…), as `notify list` shows it.
        #[arg(long)]
        id: String,
    },
    /// The newest deliveries with their status, attempts and last error.
    Deliveries {
        #[command(flatten)]
        database: DatabaseArgs,
        #[arg(long, value_parser = parse_tenant)]
        tenant: TenantId,
        #[arg(long, default_value_t = 50)]
        limit: u32,
    },
    /// Send a failed or unknown delivery again.
    Resend {
        #[command(flatten)]
        database: DatabaseArgs,
        #[arg(long, value_parser = parse_tenant)]
        tenant: TenantId,
        #[arg(long)]
        id: String,
    },
}

/// A rule in one line.
fn rule_words(rule: &NotifyRule) -> String {
    let mut words = format!(
        "{} → {} by {}, after {}",
        rule.event.as_str(),
        rule.audience.as_text(),
        rule.channel.as_str(),
        span_text(rule.after)
    );
    if let Some(every) = rule.remind_every {
        words.push_str(&format!(", reminded every {}", span_text(every)));
    }
    if let Some((after, to)) = &rule.escalation {
        words.push_str(&format!(", escalated to {} after {}", to.as_text(), span_text(*after)));
    }
    words
}

pub(super) async fn run(command: NotifyCommand) -> anyhow::Result<()> {
    let cli = Actor::system("cli");
    match command {
        NotifyCommand::Smtp {
            database,
            secret,
            egress,
            tenant,
            host,
            port,
            security,
            username,
            password,
            from,
            remove,
        } => {
            let ledger = open_ledger(&database, &secret).await?.with_egress(egress.policy());
            let smtp = (!remove).then(|| SmtpInput {
                host: host.unwrap_or_default(),
                port,
                security,
                username,
                password,
                from: from.unwrap_or_default(),
            });
            ledger.set_notify_smtp(&tenant, &cli, smtp).await?;
            println!("{}", if remove { "Removed the SMTP server." } else { "Set the SMTP server." });
        }
        NotifyCommand::Line { database, secret, egress, tenant, token, api_base, remove } => {
            let ledger = open_ledger(&database, &secret).await?.with_egress(egress.policy());
            let line = token.filter(|_| !remove).map(|channel_token| LineInput { api_base, channel_token });
            ledger.set_notify_line(&tenant, &cli, line).await?;
            println!("{}", if remove { "Removed the LINE account." } else { "Set the LINE account." });
        }
        NotifyCommand::DestinationAdd { database, secret, egress, tenant, name, channel, target } => {
            let ledger = open_ledger(&database, &secret).await?.with_egress(egress.policy());
            let added = ledger.add_notify_destination(&tenant, &cli, &name, channel, &target).await?;
            println!(
                "Added destination {} ({}, {}).",
                added.name,
                added.channel.as_str(),
                added.shown_target
            );
        }
        NotifyCommand::DestinationRemove { database, tenant, name } => {
            Ledger::new(open_store(&database).await?)
                .remove_notify_destination(&tenant, &cli, name.trim())
                .await?;
            println!("Removed destination {}.", name.trim());
        }
        NotifyCommand::RuleAdd {
            database,
            tenant,
            event,
            to,
            channel,
            after,
            remind_every,
            escalate_after,
            escalate_to,
        } => {
            let rule = NotifyRule {
                event,
                audience: to,
                channel,
                after,
                remind_every,
                escalation: escalate_after.zip(escalate_to),
            };
            let added =
                Ledger::new(open_store(&database).await?).add_notify_rule(&tenant, &cli, rule).await?;
            println!("Added rule {}: {}", added.id, rule_words(&added.rule));
        }
        NotifyCommand::List { database, tenant } => {
            let ledger = Ledger::new(open_store(&database).await?);
            match ledger.notify_settings(&tenant).await? {
                Some(settings) => {
                    match settings.smtp {
                        Some(smtp) => println!("SMTP\t{}:{} ({}) from {}", smtp.host, smtp.port, smtp.security, smtp.from),
                        None => println!("SMTP\tnone: set one with `opledger notify smtp`"),
                    }
                    match settings.line {
                        Some(line) => println!("LINE\t{} token …{}", line.api_base, line.token_last4),
                        None => println!("LINE\tnone: set one with `opledger notify line`"),
                    }
                }
                None => println!("Tenant {tenant} has no notification channel; set one with `opledger notify smtp` or `notify line`."),
            }
            for destination in ledger.notify_destinations(&tenant).await? {
                println!(
                    "destination\t{}\t{}\t{}",
                    destination.name,
                    destination.channel.as_str(),
                    destination.shown_target
                );
            }
            let rules = ledger.notify_rules(&tenant).await?;
            if rules.is_empty() {
                println!("No rule: add one with `opledger notify rule-add`.");
            }
            for rule in rules {
                println!("rule\t{}\t{}", rule.id, rule_words(&rule.rule));
            }
        }
        NotifyCommand::RuleRemove { database, tenant, id } => {
            Ledger::new(open_store(&database).await?).remove_notify_rule(&tenant, &cli, id.trim()).await?;
            println!("Removed rule {}.", id.trim());
        }
        NotifyCommand::Deliveries { database, tenant, limit } => {
            let deliveries =
                Ledger::new(open_store(&database).await?).notify_deliveries(&tenant, None, limit).await?;
            if deliveries.is_empty() {
                println!("Nothing was sent to tenant {tenant}'s people yet.");
            }
            for delivery in deliveries {
                println!(
                    "{}\t{}\t{}\t{}\t{}\t{}\tattempts {}\t{}",
                    delivery.created_at.to_rfc3339(),
                    delivery.status.as_str(),
                    delivery.event.as_str(),
                    delivery.stage.as_text(),
                    delivery.recipient,
                    delivery.channel.as_str(),
                    delivery.attempts,
                    delivery.last_error.unwrap_or_default()
                );
                println!("\t{}", delivery.id);
            }
        }
        NotifyCommand::Resend { database, tenant, id } => {
            Ledger::new(open_store(&database).await?).resend_notification(&tenant, &cli, id.trim()).await?;
            println!("It will be sent again shortly.");
        }
    }
    Ok(())
}
