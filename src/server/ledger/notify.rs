//! Notifications as the ledger keeps them: a tenant's settings (its SMTP server and LINE account,
//! their secrets sealed), its destinations (a webhook URL checked against the egress policy when it
//! is saved, then sealed: it is a secret), its rules (checked in the domain, and naming only roles,
//! people and destinations that exist), each person's own ways to be told and their choices, the
//! delivery log, and sending a delivery again. Every change is in the audit trail, no secret in it.

use chacha20poly1305::aead::{rand_core::RngCore, OsRng};
use serde_json::json;
use std::str::FromStr;

use super::secrets::SecretKeyError;
use super::{Ledger, LedgerError};
use crate::domain::ids::{Actor, TenantId};
use crate::domain::notification::{
    check_destination_name, check_email_address, check_line_id, check_rule, Audience, Channel, Mute,
    NotifyRule, QuietHours,
};
use crate::server::clock::now;
use crate::server::store::notify::{
    DestinationRecord, LineRecord, NotifyDeliveryRecord, NotifyPrefs, NotifySettingsRecord, RecipientRecord,
    RuleRecord, SmtpRecord,
};
use crate::server::store::StoreError;

/// LINE's Messaging API, where a tenant's pushes go unless its settings name another base.
pub const LINE_API_BASE: &str = "https://api.line.me";

/// A tenant's SMTP server as an admin types it; the password in the clear, sealed before it is kept.
#[derive(Clone)]
pub struct SmtpInput {
    pub host: String,
    pub port: u16,
    /// `none`, `starttls` or `tls`.
    pub security: String,
    pub username: Option<String>,
    /// `None` keeps the password already kept.
    pub password: Option<String>,
    pub from: String,
}

/// A tenant's LINE official account as an admin types it.
#[derive(Clone)]
pub struct LineInput {
    /// `None`: LINE's own API.
    pub api_base: Option<String>,
    pub channel_token: String,
}

/// A person's ways to be told and choices, as they type them.
#[derive(Debug, Clone, Default)]
pub struct PrefsInput {
    pub email: String,
    pub line_user_id: String,
    pub time_zone: String,
    pub quiet_hours: String,
    pub mutes: Vec<String>,
}

fn field(field: &'static str, problem: impl Into<String>) -> LedgerError {
    LedgerError::InvalidField { field, problem: problem.into() }
}

/// The names a tenant's notification secrets are sealed under: never a provider's (those have no `:`).
fn sealed_name(what: &str) -> String {
    format!("notify:{what}")
}

/// A value that reaches a header or a command: no control characters, at most `most` bytes.
fn check_plain(name: &'static str, value: &str, most: usize) -> Result<(), LedgerError> {
    if value.len() > most || value.chars().any(char::is_control) {
        return Err(field(name, format!("at most {most} characters, none of them control characters")));
    }
    Ok(())
}

/// The origin of `url`, which is all of a webhook URL that may be shown (its path is its secret).
fn shown_origin(url: &str) -> String {
    reqwest::Url::parse(url)
        .map(|parsed| format!("{}/…", parsed.origin().ascii_serialization()))
        .unwrap_or_default()
}

impl Ledger {
    fn secrets_or_refuse(&self) -> Result<&super::secrets::SecretBox, LedgerError> {
        self.secrets.as_ref().ok_or_else(|| LedgerError::Invalid(SecretKeyError::Missing.to_string()))
    }

    /// Opens a secret of `tenant`'s notifications sealed under `what`.
    pub fn open_notify_secret(
        &self,
        tenant: &TenantId,
        what: &str,
        sealed: &str,
    ) -> Result<String, SecretKeyError> {
        let secrets = self.secrets.as_ref().ok_or(SecretKeyError::Missing)?;
        secrets.open(tenant, &sealed_name(what), sealed)
    }

    pub async fn notify_settings(
        &self,
        tenant: &TenantId,
    ) -> Result<Option<NotifySettingsRecord>, LedgerError> {
        Ok(self.store.notify_settings(tenant).await?)
    }

    /// Sets `tenant`'s SMTP server (`None` removes it), keeping its LINE account as it is.
    pub async fn set_notify_smtp(
        &self,
        tenant: &TenantId,
        actor: &Actor,
        smtp: Option<SmtpInput>,
    ) -> Result<(), LedgerError> {
        let kept = self.store.notify_settings(tenant).await?;
        let smtp = match smtp {
            None => None,
            Some(input) => {
                let host = input.host.trim().to_owned();
                check_plain("smtp_host", &host, 253)?;
                if host.is_empty() || host.contains(['/', ':', ' ']) {
                    return Err(field("smtp_host", "a host name or address, without a scheme or port"));
                }
                if input.port == 0 {
                    return Err(field("smtp_port", "a port from 1 to 65535"));
                }
                if !matches!(input.security.as_str(), "none" | "starttls" | "tls") {
                    return Err(field("smtp_security", "none, starttls or tls"));
                }
                let from = input.from.trim().to_owned();
                check_email_address(&from).map_err(|problem| field("smtp_from", problem))?;
                self.egress
                    .check_url(&format!("https://{host}:{}/", input.port))
                    .await
                    .map_err(|why| field("smtp_host", format!("refused by the egress policy: {why}")))?;
                let username =
                    input.username.map(|name| name.trim().to_owned()).filter(|name| !name.is_empty());
                if let Some(name) = &username {
                    check_plain("smtp_username", name, 200)?;
                }
                let sealed_password = match input.password.filter(|password| !password.is_empty()) {
                    Some(password) => {
                        check_plain("smtp_password", &password, 500)?;
                        Some(self.secrets_or_refuse()?.seal(tenant, &sealed_name("smtp"), &password))
                    }
                    None => kept
                        .as_ref()
                        .and_then(|kept| kept.smtp.as_ref())
                        .and_then(|smtp| smtp.sealed_password.clone()),
                };
                Some(SmtpRecord {
                    host,
                    port: input.port,
                    security: input.security,
                    username,
                    sealed_password,
                    from,
                })
            }
        };
        let evidence = json!({"smtp": smtp.as_ref().map(|smtp| format!("{}:{} ({}) from {}", smtp.host, smtp.port, smtp.security, smtp.from))});
        let settings = NotifySettingsRecord {
            tenant: tenant.clone(),
            smtp,
            line: kept.and_then(|kept| kept.line),
            updated_by: actor.name.clone(),
            updated_at: now(),
        };
        let audit = Self::action_entry(tenant, actor, "set_notify_smtp", evidence);
        Ok(self.store.set_notify_settings(settings, audit).await?)
    }

    /// Sets `tenant`'s LINE account (`None` removes it), keeping its SMTP server as it is. The
    /// token is not tried here: a token LINE refuses shows in the delivery log, in words.
    pub async fn set_notify_line(
        &self,
        tenant: &TenantId,
        actor: &Actor,
        line: Option<LineInput>,
    ) -> Result<(), LedgerError> {
        let kept = self.store.notify_settings(tenant).await?;
        let line = match line {
            None => None,
            Some(input) => {
                let token = input.channel_token.trim().to_owned();
                if token.len() < 8 || token.len() > 1000 || !token.chars().all(|c| c.is_ascii_graphic()) {
                    return Err(field(
                        "line_token",
                        "a LINE channel access token: 8 to 1000 printable characters",
                    ));
                }
                let api_base = input
                    .api_base
                    .map(|base| base.trim().trim_end_matches('/').to_owned())
                    .filter(|base| !base.is_empty())
                    .unwrap_or_else(|| LINE_API_BASE.to_owned());
                self.egress
                    .check_url(&api_base)
                    .await
                    .map_err(|why| field("line_api_base", format!("refused by the egress policy: {why}")))?;
                let last4 = token.chars().rev().take(4).collect::<Vec<_>>().into_iter().rev().collect();
                let sealed_token = self.secrets_or_refuse()?.seal(tenant, &sealed_name("line"), &token);
                Some(LineRecord { api_base, sealed_token, token_last4: last4 })
            }
        };
        let evidence =
            json!({"line": line.as_ref().map(|line| format!("{} …{}", line.api_base, line.token_last4))});
        let settings = NotifySettingsRecord {
            tenant: tenant.clone(),
            smtp: kept.and_then(|kept| kept.smtp),
            line,
            updated_by: actor.name.clone(),
            updated_at: now(),
        };
        let audit = Self::action_entry(tenant, actor, "set_notify_line", evidence);
        Ok(self.store.set_notify_settings(settings, audit).await?)
    }

    pub async fn notify_destinations(
        &self,
        tenant: &TenantId,
    ) -> Result<Vec<DestinationRecord>, LedgerError> {
        Ok(self.store.notify_destinations(tenant).await?)
    }

    /// Adds a destination `name` of `tenant` on `channel` reaching `target`: a Slack or Teams
    /// webhook URL (https, allowed by the egress policy), a LINE group, room or user id, or an
    /// e-mail address.
    pub async fn add_notify_destination(
        &self,
        tenant: &TenantId,
        actor: &Actor,
        name: &str,
        channel: Channel,
        target: &str,
    ) -> Result<DestinationRecord, LedgerError> {
        let name = name.trim();
        check_destination_name(name).map_err(|problem| field("name", problem))?;
        let target = target.trim();
        let shown_target = match channel {
            Channel::Slack | Channel::Teams => {
                reqwest::Url::parse(target).map_err(|_| field("target", "a webhook URL (https://…)"))?;
                check_plain("target", target, 2000)?;
                self.egress
                    .check_url(target)
                    .await
                    .map_err(|why| field("target", format!("the webhook URL is refused: {why}")))?;
                shown_origin(target)
            }
            Channel::Line => {
                check_line_id(target).map_err(|problem| field("target", problem))?;
                target.to_owned()
            }
            Channel::Email => {
                check_email_address(target).map_err(|problem| field("target", problem))?;
                target.to_owned()
            }
        };
        let destination = DestinationRecord {
            tenant: tenant.clone(),
            name: name.to_owned(),
            channel,
            sealed_target: self.secrets_or_refuse()?.seal(
                tenant,
                &sealed_name(&format!("destination:{name}")),
                target,
            ),
            shown_target,
            created_by: actor.name.clone(),
            created_at: now(),
        };
        let evidence = json!({"name": name, "channel": channel.as_str(), "target": destination.shown_target});
        let audit = Self::action_entry(tenant, actor, "add_notify_destination", evidence);
        self.store.add_notify_destination(destination.clone(), audit).await?;
        Ok(destination)
    }

    /// Opens what `destination` reaches.
    pub fn open_destination(&self, destination: &DestinationRecord) -> Result<String, SecretKeyError> {
        self.open_notify_secret(
            &destination.tenant,
            &format!("destination:{}", destination.name),
            &destination.sealed_target,
        )
    }

    pub async fn remove_notify_destination(
        &self,
        tenant: &TenantId,
        actor: &Actor,
        name: &str,
    ) -> Result<(), LedgerError> {
        let audit = Self::action_entry(tenant, actor, "remove_notify_destination", json!({"name": name}));
        Ok(self.store.remove_notify_destination(tenant, name, audit).await?)
    }

    pub async fn notify_rules(&self, tenant: &TenantId) -> Result<Vec<RuleRecord>, LedgerError> {
        Ok(self.store.notify_rules(tenant).await?)
    }

    /// Adds `rule` to `tenant`'s, once it is checked and the people and destinations it names
    /// exist; a destination's rule is told on the destination's own channel.
    pub async fn add_notify_rule(
        &self,
        tenant: &TenantId,
        actor: &Actor,
        mut rule: NotifyRule,
    ) -> Result<RuleRecord, LedgerError> {
        let destinations = self.store.notify_destinations(tenant).await?;
        for (name, audience) in
            [("audience", Some(&rule.audience)), ("escalate_to", rule.escalation.as_ref().map(|(_, to)| to))]
        {
            match audience {
                Some(Audience::Destination(destination)) => {
                    let Some(found) = destinations.iter().find(|each| &each.name == destination) else {
                        return Err(field(name, format!("there is no destination named \"{destination}\"")));
                    };
                    if name == "audience" {
                        rule.channel = found.channel;
                    }
                }
                Some(people @ Audience::People(names)) => {
                    let found = self.store.notify_recipients(tenant, people).await?;
                    if let Some(missing) =
                        names.iter().find(|name| !found.iter().any(|person| &person.name == *name))
                    {
                        return Err(field(name, format!("there is no one named \"{missing}\" here")));
                    }
                }
                Some(Audience::Role(_)) | None => {}
            }
        }
        check_rule(&rule).map_err(|problem| field(problem.field, problem.message))?;
        let mut id_bytes = [0_u8; 6];
        OsRng.fill_bytes(&mut id_bytes);
        let record = RuleRecord {
            tenant: tenant.clone(),
            id: format!("nr_{}", hex::encode(id_bytes)),
            rule,
            created_by: actor.name.clone(),
            created_at: now(),
        };
        let evidence = json!({"id": record.id, "rule": record.rule});
        let audit = Self::action_entry(tenant, actor, "add_notify_rule", evidence);
        self.store.add_notify_rule(record.clone(), audit).await?;
        Ok(record)
    }

    pub async fn remove_notify_rule(
        &self,
        tenant: &TenantId,
        actor: &Actor,
        id: &str,
    ) -> Result<(), LedgerError> {
        let audit = Self::action_entry(tenant, actor, "remove_notify_rule", json!({"id": id}));
        Ok(self.store.remove_notify_rule(tenant, id, audit, now()).await?)
    }

    /// The tenant's newest deliveries, to `recipient` alone when given (`u:` and a user's id).
    pub async fn notify_deliveries(
        &self,
        tenant: &TenantId,
        recipient: Option<&str>,
        limit: u32,
    ) -> Result<Vec<NotifyDeliveryRecord>, LedgerError> {
        Ok(self.store.notify_deliveries(tenant, recipient, limit).await?)
    }

    pub async fn resend_notification(
        &self,
        tenant: &TenantId,
        actor: &Actor,
        id: &str,
    ) -> Result<(), StoreError> {
        let audit = Self::action_entry(tenant, actor, "resend_notification", json!({"delivery": id}));
        self.store.resend_notification(tenant, id, audit, now()).await
    }

    /// The tenant's person `user_id`, with their ways to be told and their choices.
    pub async fn notify_recipient(
        &self,
        tenant: &TenantId,
        user_id: &str,
    ) -> Result<RecipientRecord, LedgerError> {
        self.store.notify_recipient(tenant, user_id).await?.ok_or(LedgerError::Store(StoreError::NotFound))
    }

    /// Sets the ways `user_id` of `tenant` is told and their choices, as they typed them; each
    /// field is checked, and nothing is kept unless all are right.
    pub async fn set_notify_prefs(
        &self,
        tenant: &TenantId,
        user_id: &str,
        input: PrefsInput,
    ) -> Result<NotifyPrefs, LedgerError> {
        let optional = |text: &str| Some(text.trim().to_owned()).filter(|text| !text.is_empty());
        let email = optional(&input.email);
        if let Some(email) = &email {
            check_email_address(email).map_err(|problem| field("email", problem))?;
        }
        let line_user_id = optional(&input.line_user_id);
        if let Some(id) = &line_user_id {
            check_line_id(id).map_err(|problem| field("line_user_id", problem))?;
        }
        let time_zone = optional(&input.time_zone);
        if let Some(zone) = &time_zone {
            chrono_tz::Tz::from_str(zone).map_err(|_| {
                field("time_zone", format!("\"{zone}\" is not a time zone such as Asia/Taipei"))
            })?;
        }
        let quiet_hours = optional(&input.quiet_hours)
            .map(|text| QuietHours::parse(&text))
            .transpose()
            .map_err(|problem| field("quiet_hours", problem))?;
        let mut mutes = input
            .mutes
            .iter()
            .map(|text| Mute::parse(text))
            .collect::<Result<Vec<_>, _>>()
            .map_err(|problem| field("mutes", problem))?;
        mutes.dedup();
        let prefs = NotifyPrefs { email, line_user_id, time_zone, quiet_hours, mutes };
        self.store.set_notify_prefs(tenant, user_id, prefs.clone()).await?;
        Ok(prefs)
    }
}
