//! What notifications keep, on both engines: a tenant's settings (SMTP server, LINE account), its
//! named destinations and its rules; the watches that say which stage of a rule a subject is due
//! for; the outbox of deliveries, leased and recorded like the webhook outbox; and each person's
//! own ways to be told and their choices.

use async_trait::async_trait;
use chrono::{DateTime, Utc};

use super::StoreError;
use crate::domain::audit::AuditEntry;
use crate::domain::ids::TenantId;
use crate::domain::language::Language;
use crate::domain::notification::{Audience, Channel, Mute, NotifyEvent, NotifyRule, QuietHours, Stage};
use crate::domain::policy::Role;

/// A tenant's SMTP server for notifications, its password sealed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SmtpRecord {
    pub host: String,
    pub port: u16,
    /// `none`, `starttls` or `tls`.
    pub security: String,
    pub username: Option<String>,
    pub sealed_password: Option<String>,
    pub from: String,
}

/// A tenant's LINE official account, its channel access token sealed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LineRecord {
    pub api_base: String,
    pub sealed_token: String,
    pub token_last4: String,
}

/// A tenant's notification settings.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NotifySettingsRecord {
    pub tenant: TenantId,
    pub smtp: Option<SmtpRecord>,
    pub line: Option<LineRecord>,
    pub updated_by: String,
    pub updated_at: DateTime<Utc>,
}

/// A shared destination: its target (a webhook URL, a LINE group id, a mailbox) sealed, and shown
/// by what may be shown of it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DestinationRecord {
    pub tenant: TenantId,
    pub name: String,
    pub channel: Channel,
    pub sealed_target: String,
    pub shown_target: String,
    pub created_by: String,
    pub created_at: DateTime<Utc>,
}

/// A rule as kept.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RuleRecord {
    pub tenant: TenantId,
    pub id: String,
    pub rule: NotifyRule,
    pub created_by: String,
    pub created_at: DateTime<Utc>,
}

/// A subject a rule watches, due for `stage` at `next_at`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WatchRecord {
    pub tenant: TenantId,
    pub rule_id: String,
    /// An operation's id, `bulk:` and a bulk run's, or `webhook:` and an endpoint's.
    pub subject: String,
    pub since: DateTime<Utc>,
    /// The state the operation waits in (empty for a subject that does not wait).
    pub waits_in: String,
    pub stage: Stage,
    pub next_at: DateTime<Utc>,
}

/// Where a delivery stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NotifyStatus {
    /// Not sent yet, or to be tried again at its next attempt.
    Pending,
    Delivered,
    /// The channel refused it, or it was given up.
    Failed,
    /// It may have reached the channel (a send interrupted on a channel that cannot tell a retry).
    Unknown,
    /// Not sent, on purpose: the person muted it, left, or the subject no longer waits.
    Skipped,
}

impl NotifyStatus {
    pub fn as_str(self) -> &'static str {
        match self {
            NotifyStatus::Pending => "pending",
            NotifyStatus::Delivered => "delivered",
            NotifyStatus::Failed => "failed",
            NotifyStatus::Unknown => "unknown",
            NotifyStatus::Skipped => "skipped",
        }
    }

    pub fn parse(text: &str) -> Result<NotifyStatus, String> {
        [
            NotifyStatus::Pending,
            NotifyStatus::Delivered,
            NotifyStatus::Failed,
            NotifyStatus::Unknown,
            NotifyStatus::Skipped,
        ]
        .into_iter()
        .find(|status| status.as_str() == text)
        .ok_or_else(|| format!("no delivery status {text}"))
    }
}

/// A delivery to write: one stage of a rule about a subject, to one recipient.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NewNotifyDelivery {
    pub id: String,
    pub rule_id: String,
    pub event: NotifyEvent,
    pub subject: String,
    pub since: DateTime<Utc>,
    pub waits_in: String,
    pub stage: Stage,
    /// `u:` and a user's id, or `d:` and a destination's name.
    pub recipient: String,
    pub channel: Channel,
    /// When it is first tried.
    pub due_at: DateTime<Utc>,
}

/// A delivery of the outbox.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NotifyDeliveryRecord {
    pub tenant: TenantId,
    pub id: String,
    pub rule_id: String,
    pub event: NotifyEvent,
    pub subject: String,
    pub since: DateTime<Utc>,
    pub waits_in: String,
    pub stage: Stage,
    pub recipient: String,
    pub channel: Channel,
    pub status: NotifyStatus,
    pub attempts: u32,
    pub next_attempt_at: DateTime<Utc>,
    pub last_attempt_at: Option<DateTime<Utc>>,
    pub last_error: Option<String>,
    pub reference: Option<String>,
    pub created_at: DateTime<Utc>,
}

/// What one try of a leased delivery came to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NotifyAttempt {
    pub at: DateTime<Utc>,
    pub status: NotifyStatus,
    pub error: Option<String>,
    pub reference: Option<String>,
    /// When a pending delivery is tried next.
    pub next_attempt_at: Option<DateTime<Utc>>,
    /// Whether something was sent (a delivery held back by quiet hours was not).
    pub sent: bool,
    /// The lease it was sent under: a worker whose lease ran out records nothing.
    pub leased_until: DateTime<Utc>,
}

/// A person's own ways to be told, and their choices.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct NotifyPrefs {
    pub email: Option<String>,
    pub line_user_id: Option<String>,
    /// An IANA time zone name; the server's UTC when none.
    pub time_zone: Option<String>,
    pub quiet_hours: Option<QuietHours>,
    pub mutes: Vec<Mute>,
}

/// A person who may be told.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RecipientRecord {
    pub user_id: String,
    pub name: String,
    pub role: Role,
    pub active: bool,
    pub language: Option<Language>,
    pub prefs: NotifyPrefs,
}

/// A delivery leased for sending; `interrupted` when an earlier lease of it ran out unrecorded (a
/// worker stopped while sending it).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LeasedNotification {
    pub tenant: TenantId,
    pub id: String,
    pub interrupted: bool,
}

#[async_trait]
pub trait NotifyStore: Send + Sync {
    async fn notify_settings(&self, tenant: &TenantId) -> Result<Option<NotifySettingsRecord>, StoreError>;

    /// Sets (or replaces) the tenant's settings, with the audit entry.
    async fn set_notify_settings(
        &self,
        settings: NotifySettingsRecord,
        audit: AuditEntry,
    ) -> Result<(), StoreError>;

    async fn notify_destinations(&self, tenant: &TenantId) -> Result<Vec<DestinationRecord>, StoreError>;

    /// Adds a destination, with the audit entry; `Conflict` when its name is taken.
    async fn add_notify_destination(
        &self,
        destination: DestinationRecord,
        audit: AuditEntry,
    ) -> Result<(), StoreError>;

    /// Removes a destination, with the audit entry; `NotFound` when there is none, `Conflict`
    /// when a rule still sends to it.
    async fn remove_notify_destination(
        &self,
        tenant: &TenantId,
        name: &str,
        audit: AuditEntry,
    ) -> Result<(), StoreError>;

    /// The tenant's rules, oldest first.
    async fn notify_rules(&self, tenant: &TenantId) -> Result<Vec<RuleRecord>, StoreError>;

    /// Every tenant's rules about `event`.
    async fn notify_rules_about(&self, event: NotifyEvent) -> Result<Vec<RuleRecord>, StoreError>;

    /// Adds a rule, with the audit entry.
    async fn add_notify_rule(&self, rule: RuleRecord, audit: AuditEntry) -> Result<(), StoreError>;

    /// Removes a rule with its watches, skipping its deliveries not yet sent, with the audit entry;
    /// `NotFound` when there is none.
    async fn remove_notify_rule(
        &self,
        tenant: &TenantId,
        id: &str,
        audit: AuditEntry,
        at: DateTime<Utc>,
    ) -> Result<(), StoreError>;

    /// Up to `limit` watches due by `now`, the longest due first.
    async fn due_notify_watches(
        &self,
        now: DateTime<Utc>,
        limit: u32,
    ) -> Result<Vec<WatchRecord>, StoreError>;

    /// Writes `deliveries` (each once: one written already is left as it is) and moves `watch` on
    /// to `next` (or ends it), in one transaction; nothing when another worker moved the watch
    /// first.
    async fn expand_notify_watch(
        &self,
        watch: &WatchRecord,
        deliveries: Vec<NewNotifyDelivery>,
        next: Option<(Stage, DateTime<Utc>)>,
    ) -> Result<(), StoreError>;

    /// Writes `deliveries` of `tenant`, each once.
    async fn add_notify_deliveries(
        &self,
        tenant: &TenantId,
        deliveries: Vec<NewNotifyDelivery>,
        at: DateTime<Utc>,
    ) -> Result<(), StoreError>;

    /// Leases until `lease_until` up to `limit` pending deliveries due by `now`.
    async fn lease_due_notifications(
        &self,
        now: DateTime<Utc>,
        lease_until: DateTime<Utc>,
        limit: u32,
    ) -> Result<Vec<LeasedNotification>, StoreError>;

    async fn notify_delivery(
        &self,
        tenant: &TenantId,
        id: &str,
    ) -> Result<Option<NotifyDeliveryRecord>, StoreError>;

    /// Records a try of a leased delivery; nothing when its lease ran out and another took it.
    async fn record_notify_attempt(
        &self,
        tenant: &TenantId,
        id: &str,
        attempt: NotifyAttempt,
    ) -> Result<(), StoreError>;

    /// The tenant's newest deliveries (to `recipient` alone, when given), newest first.
    async fn notify_deliveries(
        &self,
        tenant: &TenantId,
        recipient: Option<&str>,
        limit: u32,
    ) -> Result<Vec<NotifyDeliveryRecord>, StoreError>;

    /// Sends a delivery again from its first try, with the audit entry; `NotFound` when there is
    /// none, `Conflict` while it is pending.
    async fn resend_notification(
        &self,
        tenant: &TenantId,
        id: &str,
        audit: AuditEntry,
        at: DateTime<Utc>,
    ) -> Result<(), StoreError>;

    /// The tenant's people `audience` names (a destination names none), active or not.
    async fn notify_recipients(
        &self,
        tenant: &TenantId,
        audience: &Audience,
    ) -> Result<Vec<RecipientRecord>, StoreError>;

    /// The tenant's person `user_id`.
    async fn notify_recipient(
        &self,
        tenant: &TenantId,
        user_id: &str,
    ) -> Result<Option<RecipientRecord>, StoreError>;

    /// Sets a person's own ways to be told and their choices.
    async fn set_notify_prefs(
        &self,
        tenant: &TenantId,
        user_id: &str,
        prefs: NotifyPrefs,
    ) -> Result<(), StoreError>;

    /// How many operations of the tenant are in `state`, and since when the oldest is.
    async fn waiting_in(
        &self,
        tenant: &TenantId,
        state: &str,
    ) -> Result<(i64, Option<DateTime<Utc>>), StoreError>;
}

pub(super) fn time(us: i64) -> Result<DateTime<Utc>, StoreError> {
    DateTime::from_timestamp_micros(us).ok_or_else(|| StoreError::Corrupt(format!("time {us} out of range")))
}

fn corrupt(what: &str, problem: impl std::fmt::Display) -> StoreError {
    StoreError::Corrupt(format!("{what}: {problem}"))
}

pub(super) fn tenant_of(text: &str) -> Result<TenantId, StoreError> {
    TenantId::parse(text).map_err(|e| corrupt("tenant", e))
}

pub(super) const RULE_COLUMNS: &str =
    "tenant, id, event, audience, channel, after_s, remind_every_s, escalate_after_s, escalate_to, created_by, created_at_us";

#[derive(sqlx::FromRow)]
pub(super) struct RuleRow {
    tenant: String,
    id: String,
    event: String,
    audience: String,
    channel: String,
    after_s: i64,
    remind_every_s: Option<i64>,
    escalate_after_s: Option<i64>,
    escalate_to: Option<String>,
    created_by: String,
    created_at_us: i64,
}

impl RuleRow {
    pub(super) fn into_record(self) -> Result<RuleRecord, StoreError> {
        let escalation = match (self.escalate_after_s, self.escalate_to) {
            (Some(after), Some(to)) => Some((
                chrono::Duration::seconds(after),
                Audience::parse(&to).map_err(|e| corrupt("escalate_to", e))?,
            )),
            _ => None,
        };
        Ok(RuleRecord {
            tenant: tenant_of(&self.tenant)?,
            rule: NotifyRule {
                event: NotifyEvent::parse(&self.event).map_err(|e| corrupt("event", e))?,
                audience: Audience::parse(&self.audience).map_err(|e| corrupt("audience", e))?,
                channel: Channel::parse(&self.channel).map_err(|e| corrupt("channel", e))?,
                after: chrono::Duration::seconds(self.after_s),
                remind_every: self.remind_every_s.map(chrono::Duration::seconds),
                escalation,
            },
            id: self.id,
            created_by: self.created_by,
            created_at: time(self.created_at_us)?,
        })
    }
}

pub(super) const DELIVERY_COLUMNS: &str =
    "tenant, id, rule_id, event, subject, since_us, waits_in, stage, recipient, \
     channel, status, attempts, next_attempt_at_us, last_attempt_at_us, last_error, reference, created_at_us";

#[derive(sqlx::FromRow)]
pub(super) struct DeliveryRow {
    tenant: String,
    id: String,
    rule_id: String,
    event: String,
    subject: String,
    since_us: i64,
    waits_in: String,
    stage: String,
    recipient: String,
    channel: String,
    status: String,
    attempts: i32,
    next_attempt_at_us: i64,
    last_attempt_at_us: Option<i64>,
    last_error: Option<String>,
    reference: Option<String>,
    created_at_us: i64,
}

impl DeliveryRow {
    pub(super) fn into_record(self) -> Result<NotifyDeliveryRecord, StoreError> {
        Ok(NotifyDeliveryRecord {
            tenant: tenant_of(&self.tenant)?,
            event: NotifyEvent::parse(&self.event).map_err(|e| corrupt("event", e))?,
            since: time(self.since_us)?,
            stage: Stage::parse(&self.stage).map_err(|e| corrupt("stage", e))?,
            channel: Channel::parse(&self.channel).map_err(|e| corrupt("channel", e))?,
            status: NotifyStatus::parse(&self.status).map_err(|e| corrupt("status", e))?,
            attempts: u32::try_from(self.attempts).unwrap_or(0),
            next_attempt_at: time(self.next_attempt_at_us)?,
            last_attempt_at: self.last_attempt_at_us.map(time).transpose()?,
            created_at: time(self.created_at_us)?,
            id: self.id,
            rule_id: self.rule_id,
            subject: self.subject,
            waits_in: self.waits_in,
            recipient: self.recipient,
            last_error: self.last_error,
            reference: self.reference,
        })
    }
}

pub(super) const RECIPIENT_COLUMNS: &str =
    "id, name, role, status, language, email, line_user_id, time_zone, quiet_hours";

#[derive(sqlx::FromRow)]
pub(super) struct RecipientRow {
    id: String,
    name: String,
    role: String,
    status: String,
    language: Option<String>,
    email: Option<String>,
    line_user_id: Option<String>,
    time_zone: Option<String>,
    quiet_hours: Option<String>,
}

impl RecipientRow {
    pub(super) fn into_record(self, mutes: Vec<String>) -> Result<RecipientRecord, StoreError> {
        Ok(RecipientRecord {
            role: Role::parse(&self.role).ok_or_else(|| corrupt("role", &self.role))?,
            active: self.status == "active",
            language: self.language.as_deref().and_then(Language::parse),
            prefs: NotifyPrefs {
                email: self.email,
                line_user_id: self.line_user_id,
                time_zone: self.time_zone,
                quiet_hours: self
                    .quiet_hours
                    .as_deref()
                    .map(QuietHours::parse)
                    .transpose()
                    .map_err(|e| corrupt("quiet_hours", e))?,
                mutes: mutes
                    .iter()
                    .map(|text| Mute::parse(text))
                    .collect::<Result<_, _>>()
                    .map_err(|e| corrupt("muted", e))?,
            },
            user_id: self.id,
            name: self.name,
        })
    }
}

/// Writes the [`NotifyStore`] implementation for one engine, inside [`super::sql::sql_store!`].
macro_rules! store_notify {
    ($store:ty, $begin:path) => {
        #[async_trait::async_trait]
        impl $crate::server::store::notify::NotifyStore for $store {
            async fn notify_settings(
                &self,
                tenant: &TenantId,
            ) -> Result<Option<$crate::server::store::notify::NotifySettingsRecord>, StoreError> {
                use $crate::server::store::notify::{LineRecord, NotifySettingsRecord, SmtpRecord};
                type Row = (
                    Option<String>, Option<i32>, Option<String>, Option<String>, Option<String>, Option<String>,
                    Option<String>, Option<String>, Option<String>, String, i64,
                );
                let row: Option<Row> = sqlx::query_as(
                    "select smtp_host, smtp_port, smtp_security, smtp_username, sealed_smtp_password, smtp_from, \
                     line_api_base, sealed_line_token, line_token_last4, updated_by, updated_at_us \
                     from notify_settings where tenant = $1",
                )
                .bind(tenant.as_str())
                .fetch_optional(&self.pool)
                .await?;
                let Some((host, port, security, username, sealed_password, from, api_base, sealed_token, last4, by, at)) = row else {
                    return Ok(None);
                };
                let smtp = match (host, port, from) {
                    (Some(host), Some(port), Some(from)) => Some(SmtpRecord {
                        host,
                        port: u16::try_from(port).unwrap_or(25),
                        security: security.unwrap_or_else(|| "starttls".into()),
                        username,
                        sealed_password,
                        from,
                    }),
                    _ => None,
                };
                let line = match (api_base, sealed_token) {
                    (Some(api_base), Some(sealed_token)) => {
                        Some(LineRecord { api_base, sealed_token, token_last4: last4.unwrap_or_default() })
                    }
                    _ => None,
                };
                Ok(Some(NotifySettingsRecord {
                    tenant: tenant.clone(),
                    smtp,
                    line,
                    updated_by: by,
                    updated_at: $crate::server::store::notify::time(at)?,
                }))
            }

            async fn set_notify_settings(
                &self,
                settings: $crate::server::store::notify::NotifySettingsRecord,
                audit: AuditEntry,
            ) -> Result<(), StoreError> {
                let tenant = &settings.tenant;
                let mut tx = $begin(self).await?;
                let smtp = settings.smtp.as_ref();
                let line = settings.line.as_ref();
                sqlx::query(
                    "insert into notify_settings (tenant, smtp_host, smtp_port, smtp_security, smtp_username, \
                     sealed_smtp_password, smtp_from, line_api_base, sealed_line_token, line_token_last4, updated_by, updated_at_us) \
                     values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12) \
                     on conflict (tenant) do update set smtp_host = excluded.smtp_host, smtp_port = excluded.smtp_port, \
                     smtp_security = excluded.smtp_security, smtp_username = excluded.smtp_username, \
                     sealed_smtp_password = excluded.sealed_smtp_password, smtp_from = excluded.smtp_from, \
                     line_api_base = excluded.line_api_base, sealed_line_token = excluded.sealed_line_token, \
                     line_token_last4 = excluded.line_token_last4, updated_by = excluded.updated_by, \
                     updated_at_us = excluded.updated_at_us",
                )
                .bind(tenant.as_str())
                .bind(smtp.map(|smtp| smtp.host.clone()))
                .bind(smtp.map(|smtp| i32::from(smtp.port)))
                .bind(smtp.map(|smtp| smtp.security.clone()))
                .bind(smtp.and_then(|smtp| smtp.username.clone()))
                .bind(smtp.and_then(|smtp| smtp.sealed_password.clone()))
                .bind(smtp.map(|smtp| smtp.from.clone()))
                .bind(line.map(|line| line.api_base.clone()))
                .bind(line.map(|line| line.sealed_token.clone()))
                .bind(line.map(|line| line.token_last4.clone()))
                .bind(&settings.updated_by)
                .bind(micros(settings.updated_at))
                .execute(&mut *tx)
                .await?;
                append_audit(&mut tx, tenant, vec![audit]).await?;
                tx.commit().await?;
                Ok(())
            }

            async fn notify_destinations(
                &self,
                tenant: &TenantId,
            ) -> Result<Vec<$crate::server::store::notify::DestinationRecord>, StoreError> {
                let rows: Vec<(String, String, String, String, String, i64)> = sqlx::query_as(
                    "select name, channel, sealed_target, shown_target, created_by, created_at_us \
                     from notify_destinations where tenant = $1 order by name",
                )
                .bind(tenant.as_str())
                .fetch_all(&self.pool)
                .await?;
                rows.into_iter()
                    .map(|(name, channel, sealed_target, shown_target, created_by, at)| {
                        Ok($crate::server::store::notify::DestinationRecord {
                            tenant: tenant.clone(),
                            name,
                            channel: $crate::domain::notification::Channel::parse(&channel)
                                .map_err(|e| StoreError::Corrupt(format!("channel: {e}")))?,
                            sealed_target,
                            shown_target,
                            created_by,
                            created_at: $crate::server::store::notify::time(at)?,
                        })
                    })
                    .collect()
            }

            async fn add_notify_destination(
                &self,
                destination: $crate::server::store::notify::DestinationRecord,
                audit: AuditEntry,
            ) -> Result<(), StoreError> {
                let mut tx = $begin(self).await?;
                sqlx::query(
                    "insert into notify_destinations (tenant, name, channel, sealed_target, shown_target, created_by, created_at_us) \
                     values ($1, $2, $3, $4, $5, $6, $7)",
                )
                .bind(destination.tenant.as_str())
                .bind(&destination.name)
                .bind(destination.channel.as_str())
                .bind(&destination.sealed_target)
                .bind(&destination.shown_target)
                .bind(&destination.created_by)
                .bind(micros(destination.created_at))
                .execute(&mut *tx)
                .await
                .map_err(|e| StoreError::from_unique(e, &format!("a destination named {} exists already", destination.name)))?;
                append_audit(&mut tx, &destination.tenant, vec![audit]).await?;
                tx.commit().await?;
                Ok(())
            }

            async fn remove_notify_destination(&self, tenant: &TenantId, name: &str, audit: AuditEntry) -> Result<(), StoreError> {
                let mut tx = $begin(self).await?;
                let target = format!("destination:{name}");
                let used: Option<(String,)> = sqlx::query_as(
                    "select id from notify_rules where tenant = $1 and (audience = $2 or escalate_to = $2) limit 1",
                )
                .bind(tenant.as_str())
                .bind(&target)
                .fetch_optional(&mut *tx)
                .await?;
                if let Some((rule,)) = used {
                    return Err(StoreError::Conflict(format!("the rule {rule} sends to {name}: remove it first")));
                }
                let removed = sqlx::query("delete from notify_destinations where tenant = $1 and name = $2")
                    .bind(tenant.as_str())
                    .bind(name)
                    .execute(&mut *tx)
                    .await?
                    .rows_affected();
                if removed == 0 {
                    return Err(StoreError::NotFound);
                }
                append_audit(&mut tx, tenant, vec![audit]).await?;
                tx.commit().await?;
                Ok(())
            }

            async fn notify_rules(&self, tenant: &TenantId) -> Result<Vec<$crate::server::store::notify::RuleRecord>, StoreError> {
                use $crate::server::store::notify::{RuleRow, RULE_COLUMNS};
                let rows: Vec<RuleRow> =
                    sqlx::query_as(&format!("select {RULE_COLUMNS} from notify_rules where tenant = $1 order by created_at_us, id"))
                        .bind(tenant.as_str())
                        .fetch_all(&self.pool)
                        .await?;
                rows.into_iter().map(RuleRow::into_record).collect()
            }

            async fn notify_rules_about(
                &self,
                event: $crate::domain::notification::NotifyEvent,
            ) -> Result<Vec<$crate::server::store::notify::RuleRecord>, StoreError> {
                use $crate::server::store::notify::{RuleRow, RULE_COLUMNS};
                let rows: Vec<RuleRow> =
                    sqlx::query_as(&format!("select {RULE_COLUMNS} from notify_rules where event = $1 order by tenant, id"))
                        .bind(event.as_str())
                        .fetch_all(&self.pool)
                        .await?;
                rows.into_iter().map(RuleRow::into_record).collect()
            }

            async fn add_notify_rule(&self, record: $crate::server::store::notify::RuleRecord, audit: AuditEntry) -> Result<(), StoreError> {
                use $crate::server::store::notify::RULE_COLUMNS;
                let mut tx = $begin(self).await?;
                let rule = &record.rule;
                sqlx::query(&format!(
                    "insert into notify_rules ({RULE_COLUMNS}) values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)"
                ))
                .bind(record.tenant.as_str())
                .bind(&record.id)
                .bind(rule.event.as_str())
                .bind(rule.audience.as_text())
                .bind(rule.channel.as_str())
                .bind(rule.after.num_seconds())
                .bind(rule.remind_every.map(|every| every.num_seconds()))
                .bind(rule.escalation.as_ref().map(|(after, _)| after.num_seconds()))
                .bind(rule.escalation.as_ref().map(|(_, to)| to.as_text()))
                .bind(&record.created_by)
                .bind(micros(record.created_at))
                .execute(&mut *tx)
                .await
                .map_err(|e| StoreError::from_unique(e, &format!("a rule {} exists already", record.id)))?;
                append_audit(&mut tx, &record.tenant, vec![audit]).await?;
                tx.commit().await?;
                Ok(())
            }

            async fn remove_notify_rule(
                &self,
                tenant: &TenantId,
                id: &str,
                audit: AuditEntry,
                at: chrono::DateTime<chrono::Utc>,
            ) -> Result<(), StoreError> {
                let mut tx = $begin(self).await?;
                let removed = sqlx::query("delete from notify_rules where tenant = $1 and id = $2")
                    .bind(tenant.as_str())
                    .bind(id)
                    .execute(&mut *tx)
                    .await?
                    .rows_affected();
                if removed == 0 {
                    return Err(StoreError::NotFound);
                }
                sqlx::query("delete from notify_watches where tenant = $1 and rule_id = $2")
                    .bind(tenant.as_str())
                    .bind(id)
                    .execute(&mut *tx)
                    .await?;
                sqlx::query(
                    "update notify_deliveries set status = 'skipped', last_error = 'its rule was removed', \
                     last_attempt_at_us = $3, lease_until_us = null where tenant = $1 and rule_id = $2 and status = 'pending'",
                )
                .bind(tenant.as_str())
                .bind(id)
                .bind(micros(at))
                .execute(&mut *tx)
                .await?;
                append_audit(&mut tx, tenant, vec![audit]).await?;
                tx.commit().await?;
                Ok(())
            }

            async fn due_notify_watches(
                &self,
                now: chrono::DateTime<chrono::Utc>,
                limit: u32,
            ) -> Result<Vec<$crate::server::store::notify::WatchRecord>, StoreError> {
                let rows: Vec<(String, String, String, i64, String, String, i64)> = sqlx::query_as(
                    "select tenant, rule_id, subject, since_us, waits_in, stage, next_at_us from notify_watches \
                     where next_at_us <= $1 order by next_at_us limit $2",
                )
                .bind(micros(now))
                .bind(i64::from(limit))
                .fetch_all(&self.pool)
                .await?;
                rows.into_iter()
                    .map(|(tenant, rule_id, subject, since, waits_in, stage, next_at)| {
                        Ok($crate::server::store::notify::WatchRecord {
                            tenant: $crate::server::store::notify::tenant_of(&tenant)?,
                            rule_id,
                            subject,
                            since: $crate::server::store::notify::time(since)?,
                            waits_in,
                            stage: $crate::domain::notification::Stage::parse(&stage)
                                .map_err(|e| StoreError::Corrupt(format!("stage: {e}")))?,
                            next_at: $crate::server::store::notify::time(next_at)?,
                        })
                    })
                    .collect()
            }

            async fn expand_notify_watch(
                &self,
                watch: &$crate::server::store::notify::WatchRecord,
                deliveries: Vec<$crate::server::store::notify::NewNotifyDelivery>,
                next: Option<($crate::domain::notification::Stage, chrono::DateTime<chrono::Utc>)>,
            ) -> Result<(), StoreError> {
                let mut tx = $begin(self).await?;
                let tenant = watch.tenant.as_str();
                let moved = match next {
                    Some((stage, at)) => sqlx::query(
                        "update notify_watches set stage = $1, next_at_us = $2 \
                         where tenant = $3 and rule_id = $4 and subject = $5 and since_us = $6 and stage = $7",
                    )
                    .bind(stage.as_text())
                    .bind(micros(at)),
                    None => sqlx::query(
                        "delete from notify_watches \
                         where tenant = $1 and rule_id = $2 and subject = $3 and since_us = $4 and stage = $5",
                    ),
                }
                .bind(tenant)
                .bind(&watch.rule_id)
                .bind(&watch.subject)
                .bind(micros(watch.since))
                .bind(watch.stage.as_text())
                .execute(&mut *tx)
                .await?
                .rows_affected();
                if moved == 0 {
                    return Ok(());
                }
                insert_notify_deliveries(&mut tx, tenant, deliveries, micros(watch.next_at)).await?;
                tx.commit().await?;
                Ok(())
            }

            async fn add_notify_deliveries(
                &self,
                tenant: &TenantId,
                deliveries: Vec<$crate::server::store::notify::NewNotifyDelivery>,
                at: chrono::DateTime<chrono::Utc>,
            ) -> Result<(), StoreError> {
                let mut tx = $begin(self).await?;
                insert_notify_deliveries(&mut tx, tenant.as_str(), deliveries, micros(at)).await?;
                tx.commit().await?;
                Ok(())
            }

            async fn lease_due_notifications(
                &self,
                now: chrono::DateTime<chrono::Utc>,
                lease_until: chrono::DateTime<chrono::Utc>,
                limit: u32,
            ) -> Result<Vec<$crate::server::store::notify::LeasedNotification>, StoreError> {
                let due: Vec<(String, String, Option<i64>)> = sqlx::query_as(
                    "select tenant, id, lease_until_us from notify_deliveries where status = 'pending' \
                     and next_attempt_at_us <= $1 and (lease_until_us is null or lease_until_us <= $1) \
                     order by next_attempt_at_us limit $2",
                )
                .bind(micros(now))
                .bind(i64::from(limit))
                .fetch_all(&self.pool)
                .await?;
                let mut leased = Vec::new();
                for (tenant, id, earlier) in due {
                    let mut tx = $begin(self).await?;
                    let taken = sqlx::query(
                        "update notify_deliveries set lease_until_us = $1 where tenant = $2 and id = $3 \
                         and status = 'pending' and coalesce(lease_until_us, 0) = $4",
                    )
                    .bind(micros(lease_until))
                    .bind(&tenant)
                    .bind(&id)
                    .bind(earlier.unwrap_or(0))
                    .execute(&mut *tx)
                    .await?
                    .rows_affected();
                    tx.commit().await?;
                    if taken == 1 {
                        leased.push($crate::server::store::notify::LeasedNotification {
                            tenant: $crate::server::store::notify::tenant_of(&tenant)?,
                            id,
                            interrupted: earlier.is_some(),
                        });
                    }
                }
                Ok(leased)
            }

            async fn notify_delivery(
                &self,
                tenant: &TenantId,
                id: &str,
            ) -> Result<Option<$crate::server::store::notify::NotifyDeliveryRecord>, StoreError> {
                use $crate::server::store::notify::{DeliveryRow, DELIVERY_COLUMNS};
                let row: Option<DeliveryRow> =
                    sqlx::query_as(&format!("select {DELIVERY_COLUMNS} from notify_deliveries where tenant = $1 and id = $2"))
                        .bind(tenant.as_str())
                        .bind(id)
                        .fetch_optional(&self.pool)
                        .await?;
                row.map(DeliveryRow::into_record).transpose()
            }

            async fn record_notify_attempt(
                &self,
                tenant: &TenantId,
                id: &str,
                attempt: $crate::server::store::notify::NotifyAttempt,
            ) -> Result<(), StoreError> {
                let mut tx = $begin(self).await?;
                sqlx::query(
                    "update notify_deliveries set status = $1, attempts = attempts + $2, \
                     last_attempt_at_us = case when $2 = 1 then $3 else last_attempt_at_us end, \
                     last_error = $4, reference = coalesce($5, reference), next_attempt_at_us = $6, lease_until_us = null \
                     where tenant = $7 and id = $8 and lease_until_us = $9",
                )
                .bind(attempt.status.as_str())
                .bind(i32::from(attempt.sent))
                .bind(micros(attempt.at))
                .bind(&attempt.error)
                .bind(&attempt.reference)
                .bind(micros(attempt.next_attempt_at.unwrap_or(attempt.at)))
                .bind(tenant.as_str())
                .bind(id)
                .bind(micros(attempt.leased_until))
                .execute(&mut *tx)
                .await?;
                tx.commit().await?;
                Ok(())
            }

            async fn notify_deliveries(
                &self,
                tenant: &TenantId,
                recipient: Option<&str>,
                limit: u32,
            ) -> Result<Vec<$crate::server::store::notify::NotifyDeliveryRecord>, StoreError> {
                use $crate::server::store::notify::{DeliveryRow, DELIVERY_COLUMNS};
                let rows: Vec<DeliveryRow> = sqlx::query_as(&format!(
                    "select {DELIVERY_COLUMNS} from notify_deliveries where tenant = $1 \
                     and ($2 = '' or recipient = $2) order by created_at_us desc, id limit $3"
                ))
                .bind(tenant.as_str())
                .bind(recipient.unwrap_or(""))
                .bind(i64::from(limit))
                .fetch_all(&self.pool)
                .await?;
                rows.into_iter().map(DeliveryRow::into_record).collect()
            }

            async fn resend_notification(
                &self,
                tenant: &TenantId,
                id: &str,
                audit: AuditEntry,
                at: chrono::DateTime<chrono::Utc>,
            ) -> Result<(), StoreError> {
                let mut tx = $begin(self).await?;
                let status: Option<(String,)> =
                    sqlx::query_as("select status from notify_deliveries where tenant = $1 and id = $2")
                        .bind(tenant.as_str())
                        .bind(id)
                        .fetch_optional(&mut *tx)
                        .await?;
                match status {
                    None => return Err(StoreError::NotFound),
                    Some((status,)) if status == "pending" => {
                        return Err(StoreError::Conflict("it is still being sent".into()))
                    }
                    Some(_) => {}
                }
                sqlx::query(
                    "update notify_deliveries set status = 'pending', attempts = 0, next_attempt_at_us = $1, \
                     lease_until_us = null, last_error = null where tenant = $2 and id = $3",
                )
                .bind(micros(at))
                .bind(tenant.as_str())
                .bind(id)
                .execute(&mut *tx)
                .await?;
                append_audit(&mut tx, tenant, vec![audit]).await?;
                tx.commit().await?;
                Ok(())
            }

            async fn notify_recipients(
                &self,
                tenant: &TenantId,
                audience: &$crate::domain::notification::Audience,
            ) -> Result<Vec<$crate::server::store::notify::RecipientRecord>, StoreError> {
                use $crate::domain::notification::Audience;
                use $crate::server::store::notify::{RecipientRow, RECIPIENT_COLUMNS};
                let rows: Vec<RecipientRow> = match audience {
                    Audience::Destination(_) => Vec::new(),
                    Audience::Role(role) => sqlx::query_as(&format!(
                        "select {RECIPIENT_COLUMNS} from users where tenant = $1 and role = $2 order by name"
                    ))
                    .bind(tenant.as_str())
                    .bind(role.as_str())
                    .fetch_all(&self.pool)
                    .await?,
                    Audience::People(names) => {
                        let mut rows = Vec::new();
                        for name in names {
                            let row: Option<RecipientRow> = sqlx::query_as(&format!(
                                "select {RECIPIENT_COLUMNS} from users where tenant = $1 and name = $2"
                            ))
                            .bind(tenant.as_str())
                            .bind(name)
                            .fetch_optional(&self.pool)
                            .await?;
                            rows.extend(row);
                        }
                        rows
                    }
                };
                let mut recipients = Vec::with_capacity(rows.len());
                for row in rows {
                    recipients.push(row.into_record(Vec::new())?);
                }
                Ok(recipients)
            }

            async fn notify_recipient(
                &self,
                tenant: &TenantId,
                user_id: &str,
            ) -> Result<Option<$crate::server::store::notify::RecipientRecord>, StoreError> {
                use $crate::server::store::notify::{RecipientRow, RECIPIENT_COLUMNS};
                let row: Option<RecipientRow> =
                    sqlx::query_as(&format!("select {RECIPIENT_COLUMNS} from users where tenant = $1 and id = $2"))
                        .bind(tenant.as_str())
                        .bind(user_id)
                        .fetch_optional(&self.pool)
                        .await?;
                let Some(row) = row else { return Ok(None) };
                let mutes: Vec<(String,)> =
                    sqlx::query_as("select muted from notify_mutes where tenant = $1 and user_id = $2 order by muted")
                        .bind(tenant.as_str())
                        .bind(user_id)
                        .fetch_all(&self.pool)
                        .await?;
                row.into_record(mutes.into_iter().map(|(muted,)| muted).collect()).map(Some)
            }

            async fn set_notify_prefs(
                &self,
                tenant: &TenantId,
                user_id: &str,
                prefs: $crate::server::store::notify::NotifyPrefs,
            ) -> Result<(), StoreError> {
                let mut tx = $begin(self).await?;
                let changed = sqlx::query(
                    "update users set email = $1, line_user_id = $2, time_zone = $3, quiet_hours = $4 \
                     where tenant = $5 and id = $6",
                )
                .bind(&prefs.email)
                .bind(&prefs.line_user_id)
                .bind(&prefs.time_zone)
                .bind(prefs.quiet_hours.map(|quiet| quiet.as_text()))
                .bind(tenant.as_str())
                .bind(user_id)
                .execute(&mut *tx)
                .await?
                .rows_affected();
                if changed == 0 {
                    return Err(StoreError::NotFound);
                }
                sqlx::query("delete from notify_mutes where tenant = $1 and user_id = $2")
                    .bind(tenant.as_str())
                    .bind(user_id)
                    .execute(&mut *tx)
                    .await?;
                for mute in &prefs.mutes {
                    sqlx::query("insert into notify_mutes (tenant, user_id, muted) values ($1, $2, $3) on conflict do nothing")
                        .bind(tenant.as_str())
                        .bind(user_id)
                        .bind(mute.as_text())
                        .execute(&mut *tx)
                        .await?;
                }
                tx.commit().await?;
                Ok(())
            }

            async fn waiting_in(
                &self,
                tenant: &TenantId,
                state: &str,
            ) -> Result<(i64, Option<chrono::DateTime<chrono::Utc>>), StoreError> {
                let (count, oldest): (i64, Option<i64>) = sqlx::query_as(
                    "select count(*), min(updated_at_us) from operations where tenant = $1 and state = $2",
                )
                .bind(tenant.as_str())
                .bind(state)
                .fetch_one(&self.pool)
                .await?;
                Ok((count, oldest.map($crate::server::store::notify::time).transpose()?))
            }
        }

        /// Writes `deliveries` of `tenant` created at `at_us`, each once.
        async fn insert_notify_deliveries(
            tx: &mut Tx,
            tenant: &str,
            deliveries: Vec<$crate::server::store::notify::NewNotifyDelivery>,
            at_us: i64,
        ) -> Result<(), StoreError> {
            for delivery in deliveries {
                sqlx::query(
                    "insert into notify_deliveries (tenant, id, rule_id, event, subject, since_us, waits_in, stage, \
                     recipient, channel, next_attempt_at_us, created_at_us) \
                     values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12) on conflict (tenant, id) do nothing",
                )
                .bind(tenant)
                .bind(&delivery.id)
                .bind(&delivery.rule_id)
                .bind(delivery.event.as_str())
                .bind(&delivery.subject)
                .bind(micros(delivery.since))
                .bind(&delivery.waits_in)
                .bind(delivery.stage.as_text())
                .bind(&delivery.recipient)
                .bind(delivery.channel.as_str())
                .bind(micros(delivery.due_at))
                .bind(at_us)
                .execute(&mut **tx)
                .await?;
            }
            Ok(())
        }
    };
}

pub(super) use store_notify;
