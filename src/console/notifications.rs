//! The notifications pages' slice. For admins (`/admin/notifications`): the tenant's SMTP server
//! and LINE account (their secrets written, never shown), its shared destinations, its rules, and
//! the newest deliveries with a "send again" for those that failed or may not have arrived. For
//! everyone (`/account/notifications`): their own e-mail address, LINE user id, time zone, quiet
//! hours and mutes, and the newest deliveries to them; the person is always the signed-in one,
//! never one a form names.

use chrono::{DateTime, Utc};
use leptos::prelude::*;
use serde::{Deserialize, Serialize};

use super::AppError;
use crate::domain::notification::{Channel, NotifyEvent, NotifyRule, Stage};

/// How many of the tenant's newest deliveries the admin page shows.
pub const TENANT_DELIVERIES_SHOWN: u32 = 100;

/// How many of a person's newest deliveries their page shows.
pub const OWN_DELIVERIES_SHOWN: u32 = 50;

/// The tenant's SMTP server, without its password.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SmtpView {
    pub host: String,
    pub port: u16,
    /// `none`, `starttls` or `tls`.
    pub security: String,
    pub username: Option<String>,
    pub password_set: bool,
    pub from: String,
}

/// The tenant's LINE account: where it pushes and the last four characters of its token.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct LineView {
    pub api_base: String,
    pub token_last4: String,
}

/// A shared destination: its name, channel and what may be shown of its target (a webhook URL's
/// origin alone; its path is a secret).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct DestinationView {
    pub name: String,
    pub channel: Channel,
    pub shown_target: String,
    pub created_by: String,
    pub created_at: DateTime<Utc>,
}

/// A rule of the tenant.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RuleView {
    pub id: String,
    pub rule: NotifyRule,
    pub created_by: String,
    pub created_at: DateTime<Utc>,
}

/// Who a delivery went to.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub enum RecipientView {
    /// A person, by name.
    Person(String),
    /// A person no longer in the tenant.
    FormerPerson,
    /// A shared destination, by name.
    Destination(String),
}

/// One delivery of the outbox.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct NotifyDeliveryView {
    pub id: String,
    pub event: NotifyEvent,
    pub stage: Stage,
    /// The operation (or run, or endpoint) it is about.
    pub subject: String,
    pub recipient: RecipientView,
    pub channel: Channel,
    /// `pending`, `delivered`, `failed`, `unknown` or `skipped`.
    pub status: String,
    pub attempts: u32,
    pub last_error: Option<String>,
    pub created_at: DateTime<Utc>,
}

impl NotifyDeliveryView {
    /// Whether it may be sent again: it failed, or it may not have arrived.
    pub fn may_resend(&self) -> bool {
        matches!(self.status.as_str(), "failed" | "unknown")
    }
}

/// The admin page's notifications.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct NotificationsView {
    pub smtp: Option<SmtpView>,
    pub line: Option<LineView>,
    pub destinations: Vec<DestinationView>,
    pub rules: Vec<RuleView>,
    pub deliveries: Vec<NotifyDeliveryView>,
    /// Whether the server can keep a secret (it seals them under its `OPLEDGER_SECRET_KEY`).
    pub seals_secrets: bool,
}

/// The signed-in person's ways to be told and choices, with the newest deliveries to them.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct MyNotificationsView {
    pub name: String,
    pub email: Option<String>,
    pub line_user_id: Option<String>,
    pub time_zone: Option<String>,
    /// `22:00-07:30`.
    pub quiet_hours: Option<String>,
    /// `event:needs_review`, `channel:line`.
    pub mutes: Vec<String>,
    pub deliveries: Vec<NotifyDeliveryView>,
}

#[server(prefix = "/rpc", endpoint = "notification_settings")]
pub async fn notification_settings() -> Result<NotificationsView, AppError> {
    use crate::domain::policy::Section;
    let admin = crate::console::guard::require(Section::Admin).await?;
    ssr::notification_settings(&admin).await.inspect_err(crate::console::guard::set_error_status)
}

/// Sets the tenant's SMTP server; an empty password keeps the one already kept.
#[server(prefix = "/rpc", endpoint = "set_notify_smtp")]
pub async fn set_notify_smtp(
    csrf: String,
    #[server(default)] host: String,
    #[server(default)] port: String,
    #[server(default)] security: String,
    #[server(default)] username: String,
    #[server(default)] password: String,
    #[server(default)] from_address: String,
) -> Result<String, AppError> {
    use crate::domain::policy::Section;
    let admin = crate::console::guard::require_for_change(Section::Admin, &csrf).await?;
    ssr::set_smtp(&admin, host, &port, security, username, password, from_address)
        .await
        .inspect_err(crate::console::guard::set_error_status)
}

/// Sets the tenant's LINE account; an empty API base is LINE's own.
#[server(prefix = "/rpc", endpoint = "set_notify_line")]
pub async fn set_notify_line(
    csrf: String,
    #[server(default)] api_base: String,
    #[server(default)] channel_token: String,
) -> Result<String, AppError> {
    use crate::domain::policy::Section;
    let admin = crate::console::guard::require_for_change(Section::Admin, &csrf).await?;
    ssr::set_line(&admin, api_base, channel_token).await.inspect_err(crate::console::guard::set_error_status)
}

/// Removes the tenant's SMTP server (`account` = `smtp`) or LINE account (`line`), once
/// `confirmed` is `yes`.
#[server(prefix = "/rpc", endpoint = "remove_notify_account")]
pub async fn remove_notify_account(
    csrf: String,
    #[server(default)] account: String,
    #[server(default)] confirmed: String,
) -> Result<String, AppError> {
    use crate::domain::policy::Section;
    let admin = crate::console::guard::require_for_change(Section::Admin, &csrf).await?;
    ssr::confirmed(&confirmed)?;
    ssr::remove_account(&admin, &account).await.inspect_err(crate::console::guard::set_error_status)
}

#[server(prefix = "/rpc", endpoint = "add_notify_destination")]
pub async fn add_notify_destination(
    csrf: String,
    #[server(default)] name: String,
    #[server(default)] channel: String,
    #[server(default)] target: String,
) -> Result<String, AppError> {
    use crate::domain::policy::Section;
    let admin = crate::console::guard::require_for_change(Section::Admin, &csrf).await?;
    ssr::add_destination(&admin, &name, &channel, &target)
        .await
        .inspect_err(crate::console::guard::set_error_status)
}

/// Removes a destination, once `confirmed` is `yes`; refused while a rule sends to it.
#[server(prefix = "/rpc", endpoint = "remove_notify_destination")]
pub async fn remove_notify_destination(
    csrf: String,
    #[server(default)] name: String,
    #[server(default)] confirmed: String,
) -> Result<String, AppError> {
    use crate::domain::policy::Section;
    let admin = crate::console::guard::require_for_change(Section::Admin, &csrf).await?;
    ssr::confirmed(&confirmed)?;
    ssr::remove_destination(&admin, &name).await.inspect_err(crate::console::guard::set_error_status)
}

/// Adds a rule. `audience` is `role:NAME`, `destination:NAME` or `people` (then `people` names
/// them, separated by commas); the spans are typed as `0`, `15m`, `2h`, `3d` or, for a digest,
/// a time of day `09:00`; `remind_every` and `escalate_after` may be empty.
#[server(prefix = "/rpc", endpoint = "add_notify_rule")]
#[allow(clippy::too_many_arguments)]
pub async fn add_notify_rule(
    csrf: String,
    #[server(default)] event: String,
    #[server(default)] audience: String,
    #[server(default)] people: String,
    #[server(default)] channel: String,
    #[server(default)] after: String,
    #[server(default)] remind_every: String,
    #[server(default)] escalate_after: String,
    #[server(default)] escalate_to: String,
) -> Result<String, AppError> {
    use crate::domain::policy::Section;
    let admin = crate::console::guard::require_for_change(Section::Admin, &csrf).await?;
    let form =
        ssr::RuleForm { event, audience, people, channel, after, remind_every, escalate_after, escalate_to };
    ssr::add_rule(&admin, form).await.inspect_err(crate::console::guard::set_error_status)
}

/// Removes a rule, once `confirmed` is `yes`; what it was still going to send is not sent.
#[server(prefix = "/rpc", endpoint = "remove_notify_rule")]
pub async fn remove_notify_rule(
    csrf: String,
    #[server(default)] id: String,
    #[server(default)] confirmed: String,
) -> Result<String, AppError> {
    use crate::domain::policy::Section;
    let admin = crate::console::guard::require_for_change(Section::Admin, &csrf).await?;
    ssr::confirmed(&confirmed)?;
    ssr::remove_rule(&admin, &id).await.inspect_err(crate::console::guard::set_error_status)
}

/// Sends a delivery that failed, or may not have arrived, again from its first attempt.
#[server(prefix = "/rpc", endpoint = "resend_notification")]
pub async fn resend_notification(csrf: String, #[server(default)] id: String) -> Result<String, AppError> {
    use crate::domain::policy::Section;
    let admin = crate::console::guard::require_for_change(Section::Admin, &csrf).await?;
    ssr::resend(&admin, &id).await.inspect_err(crate::console::guard::set_error_status)
}

/// The signed-in person's own notification settings and the newest deliveries to them.
#[server(prefix = "/rpc", endpoint = "my_notifications")]
pub async fn my_notifications() -> Result<MyNotificationsView, AppError> {
    use crate::domain::policy::Section;
    let user = crate::console::guard::require(Section::Overview).await?;
    ssr::my_notifications(&user).await.inspect_err(crate::console::guard::set_error_status)
}

/// Sets the signed-in person's own ways to be told and choices (`mutes[0]`, `mutes[1]`, … from
/// the checkboxes): always their own, whoever the form names.
#[server(prefix = "/rpc", endpoint = "set_my_notifications")]
pub async fn set_my_notifications(
    csrf: String,
    #[server(default)] email: String,
    #[server(default)] line_user_id: String,
    #[server(default)] time_zone: String,
    #[server(default)] quiet_hours: String,
    #[server(default)] mutes: Vec<String>,
) -> Result<String, AppError> {
    use crate::domain::policy::Section;
    let user = crate::console::guard::require_for_change(Section::Overview, &csrf).await?;
    let input =
        crate::server::ledger::notify::PrefsInput { email, line_user_id, time_zone, quiet_hours, mutes };
    ssr::set_my_notifications(&user, input).await.inspect_err(crate::console::guard::set_error_status)
}

#[cfg(feature = "ssr")]
pub(crate) mod ssr {
    use std::collections::HashMap;

    use super::*;
    use crate::console::guard::{actor, unavailable, SignedIn};
    use crate::console::language::current_language;
    use crate::domain::language::Language;
    use crate::domain::notification::{parse_span, Audience};
    use crate::server::http::state::AppState;
    use crate::server::ledger::notify::{LineInput, PrefsInput, SmtpInput};
    use crate::server::ledger::LedgerError;
    use crate::server::store::notify::NotifyDeliveryRecord;
    use crate::server::store::StoreError;
    use crate::t;

    fn ledger() -> crate::server::ledger::Ledger {
        expect_context::<AppState>().ledger.clone()
    }

    /// A removal goes ahead only once its dialog was confirmed.
    pub fn confirmed(confirmed: &str) -> Result<(), AppError> {
        if confirmed.trim() == "yes" {
            return Ok(());
        }
        let refused = AppError::Invalid(t!(current_language(), "notify-remove-unconfirmed"));
        crate::console::guard::set_error_status(&refused);
        Err(refused)
    }

    /// A form field's name as its page labels it.
    fn field_label(field: &str, language: Language) -> String {
        match field {
            "smtp_host" | "host" => t!(language, "notify-smtp-host"),
            "smtp_port" | "port" => t!(language, "notify-smtp-port"),
            "smtp_security" | "security" => t!(language, "notify-smtp-security"),
            "smtp_username" | "username" => t!(language, "notify-smtp-username"),
            "smtp_password" | "password" => t!(language, "notify-smtp-password"),
            "smtp_from" | "from_address" => t!(language, "notify-smtp-from"),
            "line_api_base" | "api_base" => t!(language, "notify-line-api-base"),
            "line_token" | "channel_token" => t!(language, "notify-line-token"),
            "name" => t!(language, "notify-destination-name"),
            "target" => t!(language, "notify-destination-target"),
            "event" => t!(language, "notify-rule-event"),
            "audience" | "people" => t!(language, "notify-rule-audience"),
            "channel" => t!(language, "notify-rule-channel"),
            "after" => t!(language, "notify-rule-after"),
            "remind_every" => t!(language, "notify-rule-remind-every"),
            "escalate_after" => t!(language, "notify-rule-escalate-after"),
            "escalate_to" => t!(language, "notify-rule-escalate-to"),
            "email" => t!(language, "notify-my-email"),
            "line_user_id" => t!(language, "notify-my-line"),
            "time_zone" => t!(language, "notify-my-time-zone"),
            "quiet_hours" => t!(language, "notify-my-quiet-hours"),
            _ => t!(language, "notify-my-mutes"),
        }
    }

    /// The ledger's field names as the forms name them (the forms leave out the `smtp_` and
    /// `line_` the ledger's names carry).
    fn form_field(field: &str) -> &str {
        match field {
            "smtp_host" => "host",
            "smtp_port" => "port",
            "smtp_security" => "security",
            "smtp_username" => "username",
            "smtp_password" => "password",
            "smtp_from" => "from_address",
            "line_api_base" => "api_base",
            "line_token" => "channel_token",
            other => other,
        }
    }

    /// A refusal of `field` of the form: the sentence names it as the page labels it.
    fn field_refused(field: &str, problem: &str) -> AppError {
        let language = current_language();
        let field = form_field(field);
        let sentence =
            t!(language, "notify-field-refused", field = field_label(field, language), problem = problem);
        AppError::InvalidField { field: field.to_owned(), sentence }
    }

    /// A ledger failure as the browser sees it: bad input names its field; a database's text
    /// stays in the log.
    fn refused(error: LedgerError) -> AppError {
        match error {
            LedgerError::InvalidField { field, problem } => field_refused(field, &problem),
            LedgerError::Invalid(message) => AppError::Invalid(message),
            LedgerError::Rejected(rejection) => AppError::Invalid(rejection.message),
            LedgerError::Contended => AppError::Invalid(t!(current_language(), "notify-try-again")),
            LedgerError::NotFound => AppError::NotFound(t!(current_language(), "notify-nothing-there")),
            LedgerError::Store(StoreError::NotFound) => {
                AppError::NotFound(t!(current_language(), "notify-nothing-there"))
            }
            LedgerError::Unavailable(_) | LedgerError::Untrusted { .. } => AppError::Unavailable,
            LedgerError::Store(error) => unavailable(error),
        }
    }

    /// The names of the tenant's people by their ids.
    async fn names_by_id(admin: &SignedIn) -> Result<HashMap<String, String>, AppError> {
        let users = ledger().reads().tenant_users(&admin.tenant).await.map_err(unavailable)?;
        Ok(users.into_iter().map(|user| (user.id, user.name)).collect())
    }

    fn delivery_view(delivery: NotifyDeliveryRecord, names: &HashMap<String, String>) -> NotifyDeliveryView {
        let recipient = if let Some(id) = delivery.recipient.strip_prefix("u:") {
            names.get(id).cloned().map_or(RecipientView::FormerPerson, RecipientView::Person)
        } else {
            let name = delivery.recipient.strip_prefix("d:").unwrap_or(&delivery.recipient);
            RecipientView::Destination(name.to_owned())
        };
        NotifyDeliveryView {
            id: delivery.id,
            event: delivery.event,
            stage: delivery.stage,
            subject: delivery.subject,
            recipient,
            channel: delivery.channel,
            status: delivery.status.as_str().to_owned(),
            attempts: delivery.attempts,
            last_error: delivery.last_error,
            created_at: delivery.created_at,
        }
    }

    pub async fn notification_settings(admin: &SignedIn) -> Result<NotificationsView, AppError> {
        let ledger = ledger();
        let settings = ledger.notify_settings(&admin.tenant).await.map_err(refused)?;
        let (smtp, line) = match settings {
            Some(settings) => (
                settings.smtp.map(|smtp| SmtpView {
                    host: smtp.host,
                    port: smtp.port,
                    security: smtp.security,
                    username: smtp.username,
                    password_set: smtp.sealed_password.is_some(),
                    from: smtp.from,
                }),
                settings.line.map(|line| LineView { api_base: line.api_base, token_last4: line.token_last4 }),
            ),
            None => (None, None),
        };
        let destinations = ledger
            .notify_destinations(&admin.tenant)
            .await
            .map_err(refused)?
            .into_iter()
            .map(|destination| DestinationView {
                name: destination.name,
                channel: destination.channel,
                shown_target: destination.shown_target,
                created_by: destination.created_by,
                created_at: destination.created_at,
            })
            .collect();
        let rules = ledger
            .notify_rules(&admin.tenant)
            .await
            .map_err(refused)?
            .into_iter()
            .map(|record| RuleView {
                id: record.id,
                rule: record.rule,
                created_by: record.created_by,
                created_at: record.created_at,
            })
            .collect();
        let names = names_by_id(admin).await?;
        let deliveries = ledger
            .notify_deliveries(&admin.tenant, None, TENANT_DELIVERIES_SHOWN)
            .await
            .map_err(refused)?
            .into_iter()
            .map(|delivery| delivery_view(delivery, &names))
            .collect();
        Ok(NotificationsView {
            smtp,
            line,
            destinations,
            rules,
            deliveries,
            seals_secrets: ledger.seals_secrets(),
        })
    }

    pub async fn set_smtp(
        admin: &SignedIn,
        host: String,
        port: &str,
        security: String,
        username: String,
        password: String,
        from: String,
    ) -> Result<String, AppError> {
        let language = current_language();
        let port = match port.trim() {
            "" => match security.as_str() {
                "tls" => 465,
                "none" => 25,
                _ => 587,
            },
            typed => typed
                .parse::<u16>()
                .map_err(|_| field_refused("port", &t!(language, "notify-port-problem")))?,
        };
        let input = SmtpInput {
            host,
            port,
            security,
            username: Some(username),
            password: Some(password).filter(|password| !password.is_empty()),
            from,
        };
        ledger().set_notify_smtp(&admin.tenant, &actor(admin), Some(input)).await.map_err(refused)?;
        Ok(t!(language, "notify-smtp-saved"))
    }

    pub async fn set_line(
        admin: &SignedIn,
        api_base: String,
        channel_token: String,
    ) -> Result<String, AppError> {
        let input =
            LineInput { api_base: Some(api_base).filter(|base| !base.trim().is_empty()), channel_token };
        ledger().set_notify_line(&admin.tenant, &actor(admin), Some(input)).await.map_err(refused)?;
        Ok(t!(current_language(), "notify-line-saved"))
    }

    pub async fn remove_account(admin: &SignedIn, account: &str) -> Result<String, AppError> {
        let language = current_language();
        let ledger = ledger();
        match account.trim() {
            "smtp" => {
                ledger.set_notify_smtp(&admin.tenant, &actor(admin), None).await.map_err(refused)?;
                Ok(t!(language, "notify-smtp-removed"))
            }
            "line" => {
                ledger.set_notify_line(&admin.tenant, &actor(admin), None).await.map_err(refused)?;
                Ok(t!(language, "notify-line-removed"))
            }
            _ => Err(AppError::Invalid(t!(language, "notify-account-unknown"))),
        }
    }

    pub async fn add_destination(
        admin: &SignedIn,
        name: &str,
        channel: &str,
        target: &str,
    ) -> Result<String, AppError> {
        let language = current_language();
        let channel = Channel::parse(channel).map_err(|problem| field_refused("channel", &problem))?;
        let added = ledger()
            .add_notify_destination(&admin.tenant, &actor(admin), name, channel, target)
            .await
            .map_err(refused)?;
        Ok(t!(language, "notify-destination-added", name = added.name))
    }

    pub async fn remove_destination(admin: &SignedIn, name: &str) -> Result<String, AppError> {
        let language = current_language();
        let name = name.trim();
        match ledger().remove_notify_destination(&admin.tenant, &actor(admin), name).await {
            Ok(()) => Ok(t!(language, "notify-destination-removed", name = name)),
            Err(LedgerError::Store(StoreError::Conflict(_))) => {
                Err(AppError::Invalid(t!(language, "notify-destination-in-use", name = name)))
            }
            Err(error) => Err(refused(error)),
        }
    }

    /// A rule as its form sends it.
    pub struct RuleForm {
        pub event: String,
        pub audience: String,
        pub people: String,
        pub channel: String,
        pub after: String,
        pub remind_every: String,
        pub escalate_after: String,
        pub escalate_to: String,
    }

    /// A span the form may leave empty.
    fn optional_span(field: &str, text: &str) -> Result<Option<chrono::Duration>, AppError> {
        let text = text.trim();
        if text.is_empty() {
            return Ok(None);
        }
        parse_span(text).map(Some).map_err(|problem| field_refused(field, &problem))
    }

    fn rule_of(form: &RuleForm) -> Result<NotifyRule, AppError> {
        let language = current_language();
        let event = NotifyEvent::parse(&form.event).map_err(|problem| field_refused("event", &problem))?;
        let audience = match form.audience.trim() {
            "people" => Audience::parse(&format!("people:{}", form.people))
                .map_err(|problem| field_refused("people", &problem))?,
            other => Audience::parse(other).map_err(|problem| field_refused("audience", &problem))?,
        };
        let channel = match (&audience, form.channel.trim()) {
            // A destination is told on its own channel, whatever the form chose.
            (Audience::Destination(_), "") => Channel::Email,
            (_, channel) => Channel::parse(channel).map_err(|problem| field_refused("channel", &problem))?,
        };
        let after = if form.after.trim().is_empty() {
            chrono::Duration::zero()
        } else {
            parse_span(&form.after).map_err(|problem| field_refused("after", &problem))?
        };
        let remind_every = optional_span("remind_every", &form.remind_every)?;
        let escalate_after = optional_span("escalate_after", &form.escalate_after)?;
        let escalate_to = Some(form.escalate_to.trim()).filter(|to| !to.is_empty());
        let escalation = match (escalate_after, escalate_to) {
            (None, None) => None,
            (Some(after), Some(to)) => {
                Some((after, Audience::parse(to).map_err(|problem| field_refused("escalate_to", &problem))?))
            }
            (Some(_), None) => {
                return Err(field_refused("escalate_to", &t!(language, "notify-escalate-to-missing")))
            }
            (None, Some(_)) => {
                return Err(field_refused("escalate_after", &t!(language, "notify-escalate-after-missing")))
            }
        };
        Ok(NotifyRule { event, audience, channel, after, remind_every, escalation })
    }

    pub async fn add_rule(admin: &SignedIn, form: RuleForm) -> Result<String, AppError> {
        let rule = rule_of(&form)?;
        let named_people = form.audience.trim() == "people";
        let added =
            ledger().add_notify_rule(&admin.tenant, &actor(admin), rule).await.map_err(
                |error| match error {
                    // The people the rule names are typed in a field of their own.
                    LedgerError::InvalidField { field: "audience", problem } if named_people => {
                        field_refused("people", &problem)
                    }
                    error => refused(error),
                },
            )?;
        Ok(t!(current_language(), "notify-rule-added", id = added.id))
    }

    pub async fn remove_rule(admin: &SignedIn, id: &str) -> Result<String, AppError> {
        ledger().remove_notify_rule(&admin.tenant, &actor(admin), id.trim()).await.map_err(refused)?;
        Ok(t!(current_language(), "notify-rule-removed"))
    }

    pub async fn resend(admin: &SignedIn, id: &str) -> Result<String, AppError> {
        let language = current_language();
        match ledger().resend_notification(&admin.tenant, &actor(admin), id.trim()).await {
            Ok(()) => Ok(t!(language, "notify-resent")),
            Err(StoreError::NotFound) => Err(AppError::NotFound(t!(language, "notify-nothing-there"))),
            Err(StoreError::Conflict(_)) => Err(AppError::Invalid(t!(language, "notify-still-sending"))),
            Err(error) => Err(unavailable(error)),
        }
    }

    pub async fn my_notifications(user: &SignedIn) -> Result<MyNotificationsView, AppError> {
        let ledger = ledger();
        let me = ledger.notify_recipient(&user.tenant, &user.user_id).await.map_err(refused)?;
        let names = HashMap::from([(user.user_id.clone(), user.name.clone())]);
        let deliveries = ledger
            .notify_deliveries(&user.tenant, Some(&format!("u:{}", user.user_id)), OWN_DELIVERIES_SHOWN)
            .await
            .map_err(refused)?
            .into_iter()
            .map(|delivery| delivery_view(delivery, &names))
            .collect();
        Ok(MyNotificationsView {
            name: me.name,
            email: me.prefs.email,
            line_user_id: me.prefs.line_user_id,
            time_zone: me.prefs.time_zone,
            quiet_hours: me.prefs.quiet_hours.map(|quiet| quiet.as_text()),
            mutes: me.prefs.mutes.into_iter().map(|mute| mute.as_text()).collect(),
            deliveries,
        })
    }

    pub async fn set_my_notifications(user: &SignedIn, input: PrefsInput) -> Result<String, AppError> {
        ledger().set_notify_prefs(&user.tenant, &user.user_id, input).await.map_err(refused)?;
        Ok(t!(current_language(), "notify-my-saved"))
    }
}
