//! The notifier: every pass turns the watches that fell due into deliveries (one per recipient of
//! the stage: the rule's audience, or its escalation's), writes each person's daily digest once
//! their day reaches the rule's time, and sends the outbox.
//!
//! A delivery is leased, sent and recorded. Before it is sent it is checked again: a subject that
//! no longer waits, a person who left or muted it is skipped (an escalation heeds no mute), and one
//! inside the person's quiet hours waits for their end (an escalation does not). A channel that
//! fails is tried again later, waiting twice as long each time, until it is given up; a refusal is
//! final and shown in words. A send interrupted between sending and recording (the worker stopped)
//! is sent again only on a channel that recognises the retry as the same message (LINE's
//! `X-Line-Retry-Key`); on the others it is recorded as unknown, since it may have arrived, and an
//! admin can send it again. Nothing here blocks anything else: an operation never waits for its
//! notification, and one channel that is down delays its own deliveries alone.

use chrono::{DateTime, Duration, TimeZone, Utc};
use futures::stream::{self, StreamExt};
use std::collections::HashMap;
use std::str::FromStr;
use std::sync::{Arc, Mutex};
use std::time::Duration as StdDuration;
use tokio_util::sync::CancellationToken;

use super::Ledger;
use crate::domain::ids::{OpId, TenantId};
use crate::domain::language::Language;
use crate::domain::machine::State;
use crate::domain::notice::{FailingTarget, Notice, NoticeItem, NoticeSubject};
use crate::domain::notification::{delivery_id, next_stage, Audience, Channel, NotifyEvent, Stage};
use crate::domain::webhook::wait_after_failure;
use crate::server::clock::now;
use crate::server::notify::channels::{
    host_of, retries_are_recognised, Destination, SendOutcome, Senders, SmtpSecurity, SmtpSettings,
};
use crate::server::store::notify::{
    NewNotifyDelivery, NotifyAttempt, NotifyDeliveryRecord, NotifyStatus, RecipientRecord, RuleRecord,
    WatchRecord,
};
use crate::server::store::StoreError;

/// How long a worker holds the deliveries it leased: longer than one send may take (a channel's
/// connection and answer give up after 15 s at most), and how long a delivery whose worker was
/// killed waits before another worker finds it interrupted.
const LEASE: Duration = Duration::seconds(30);

/// How many watches and deliveries one pass takes on.
const PASS_BATCH: u32 = 64;

/// How many deliveries one pass sends at once.
const SENDS_AT_ONCE: usize = 8;

/// How much of a note its mentions' notifications quote.
const MENTION_EXCERPT_CHARS: usize = 300;

/// How many items a digest lists at most.
const DIGEST_ITEMS: u32 = 20;

/// Turns watches into deliveries and sends them.
#[derive(Clone)]
pub struct Notifier {
    ledger: Ledger,
    senders: Senders,
    /// The console's address as people reach it (`https://ops.example.com`): every link starts so.
    public_url: String,
    /// How long a delivery waits after its first failed attempt (doubled after each further one).
    first_wait_s: i64,
    /// When this notifier last wrote the digests due: it looks once a minute.
    digests_looked_at: Arc<Mutex<Option<DateTime<Utc>>>>,
}

/// How often a notifier looks for the digests that fell due.
const DIGESTS_EVERY: Duration = Duration::minutes(1);

/// Whether a subject still waits.
enum Waiting {
    No,
    /// It does; `asker` names who asked for the operation, when it is one.
    Yes {
        asker: Option<String>,
    },
}

/// Why a delivery is not sent now, or what became of it, before any channel is asked.
enum Held {
    Skipped(String),
    Failed(String),
    /// Inside the person's quiet hours: tried again when they end.
    Until(DateTime<Utc>, String),
}

impl Notifier {
    pub fn new(ledger: Ledger, public_url: &str, first_wait: StdDuration) -> Self {
        let senders = Senders::new(ledger.egress().clone());
        let first_wait_s = i64::try_from(first_wait.as_secs()).unwrap_or(i64::MAX).max(1);
        Self {
            ledger,
            senders,
            public_url: public_url.trim_end_matches('/').to_owned(),
            first_wait_s,
            digests_looked_at: Arc::default(),
        }
    }

    /// Runs a pass every `every` until `stop`; a pass that fails is logged and the next one runs.
    pub async fn run_until(self, every: StdDuration, stop: CancellationToken) {
        loop {
            if let Err(error) = self.pass().await {
                tracing::warn!(error = %crate::server::telemetry::cause_chain(&error), "a notification pass failed");
            }
            tokio::select! {
                () = stop.cancelled() => return,
                () = tokio::time::sleep(every) => {}
            }
        }
    }

    /// Expands the watches due now, writes the digests due now, and sends the deliveries due now;
    /// answers how many were delivered.
    pub async fn pass(&self) -> Result<usize, StoreError> {
        let at = now();
        self.expand_due_watches(at).await?;
        self.write_due_digests(at).await?;
        self.send_due(at).await
    }

    async fn expand_due_watches(&self, at: DateTime<Utc>) -> Result<(), StoreError> {
        let store = &self.ledger.store;
        let mut rules: HashMap<TenantId, Vec<RuleRecord>> = HashMap::new();
        for watch in store.due_notify_watches(at, PASS_BATCH).await? {
            if !rules.contains_key(&watch.tenant) {
                rules.insert(watch.tenant.clone(), store.notify_rules(&watch.tenant).await?);
            }
            let Some(rule) = rules[&watch.tenant].iter().find(|rule| rule.id == watch.rule_id).cloned()
            else {
                store.expand_notify_watch(&watch, Vec::new(), None).await?;
                continue;
            };
            let Waiting::Yes { asker } =
                self.still_waits(&watch.tenant, &watch.subject, &watch.waits_in).await?
            else {
                store.expand_notify_watch(&watch, Vec::new(), None).await?;
                continue;
            };
            let audience = match watch.stage {
                Stage::Escalation => rule.rule.escalation.as_ref().map(|(_, to)| to.clone()),
                _ => Some(rule.rule.audience.clone()),
            };
            // Four-eyes keeps the person who asked from approving it: its approval is not theirs
            // to hear of (an escalation still reaches them).
            let asker = match (rule.rule.event, watch.stage) {
                (NotifyEvent::ApprovalRequested, Stage::First | Stage::Reminder(_)) => asker,
                _ => None,
            };
            let mut deliveries = Vec::new();
            if let Some(audience) = audience {
                let recipients =
                    self.recipients_of(&watch.tenant, &audience, rule.rule.channel, asker.as_deref()).await?;
                for (recipient, channel) in recipients {
                    deliveries.push(new_delivery(&rule, &watch, recipient, channel));
                }
            }
            let next = next_stage(&rule.rule, watch.since, watch.stage);
            store.expand_notify_watch(&watch, deliveries, next).await?;
        }
        Ok(())
    }

    /// Whether `subject` still waits in the state `waits_in` (a subject that does not wait,
    /// `waits_in` empty, always does), and, for an operation that waits, who asked for it.
    async fn still_waits(
        &self,
        tenant: &TenantId,
        subject: &str,
        waits_in: &str,
    ) -> Result<Waiting, StoreError> {
        if waits_in.is_empty() {
            return Ok(Waiting::Yes { asker: None });
        }
        let Ok(op_id) = OpId::parse(subject) else { return Ok(Waiting::No) };
        let operation = self.ledger.store.load_operation(tenant, &op_id).await?;
        Ok(match operation {
            Some(operation) if operation.snapshot.state.as_str() == waits_in => {
                Waiting::Yes { asker: Some(operation.snapshot.requested_by) }
            }
            _ => Waiting::No,
        })
    }

    /// Who `audience` reaches and on which channel: each active person on `channel` (or by
    /// e-mail, for a channel that reaches no person) but the one named `except`, or the destination
    /// on its own.
    async fn recipients_of(
        &self,
        tenant: &TenantId,
        audience: &Audience,
        channel: Channel,
        except: Option<&str>,
    ) -> Result<Vec<(String, Channel)>, StoreError> {
        if let Audience::Destination(name) = audience {
            let destinations = self.ledger.store.notify_destinations(tenant).await?;
            return Ok(destinations
                .into_iter()
                .filter(|destination| &destination.name == name)
                .map(|destination| (format!("d:{}", destination.name), destination.channel))
                .collect());
        }
        let channel = if channel.reaches_a_person() { channel } else { Channel::Email };
        let people = self.ledger.store.notify_recipients(tenant, audience).await?;
        Ok(people
            .into_iter()
            .filter(|person| person.active && Some(person.name.as_str()) != except)
            .map(|person| (format!("u:{}", person.user_id), channel))
            .collect())
    }

    /// Writes, for every digest rule, the digest of each of its people whose day has reached the
    /// rule's time and who has none for that day yet (looking once a minute).
    async fn write_due_digests(&self, at: DateTime<Utc>) -> Result<(), StoreError> {
        {
            let mut looked_at =
                self.digests_looked_at.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
            if looked_at.is_some_and(|looked_at| at - looked_at < DIGESTS_EVERY) {
                return Ok(());
            }
            *looked_at = Some(at);
        }
        let store = &self.ledger.store;
        for rule in store.notify_rules_about(NotifyEvent::Digest).await? {
            let mut deliveries = Vec::new();
            for person in store.notify_recipients(&rule.tenant, &rule.rule.audience).await? {
                if !person.active {
                    continue;
                }
                let zone = person_zone(&person);
                let local = at.with_timezone(&zone);
                let time_of_day = chrono::NaiveTime::MIN + rule.rule.after;
                if local.time() < time_of_day {
                    continue;
                }
                let Some(due) =
                    zone.from_local_datetime(&local.date_naive().and_time(time_of_day)).earliest()
                else {
                    continue;
                };
                let due = due.with_timezone(&Utc);
                let subject = format!("digest:{}", local.date_naive());
                let recipient = format!("u:{}", person.user_id);
                let channel =
                    if rule.rule.channel.reaches_a_person() { rule.rule.channel } else { Channel::Email };
                deliveries.push(NewNotifyDelivery {
                    id: delivery_id(&rule.id, &subject, due.timestamp_micros(), Stage::First, &recipient),
                    rule_id: rule.id.clone(),
                    event: NotifyEvent::Digest,
                    subject,
                    since: due,
                    waits_in: String::new(),
                    stage: Stage::First,
                    recipient,
                    channel,
                    due_at: due,
                });
            }
            if !deliveries.is_empty() {
                store.add_notify_deliveries(&rule.tenant, deliveries, at).await?;
            }
        }
        Ok(())
    }

    async fn send_due(&self, at: DateTime<Utc>) -> Result<usize, StoreError> {
        let leased_until = at + LEASE;
        let leased = self.ledger.store.lease_due_notifications(at, leased_until, PASS_BATCH).await?;
        let sent = stream::iter(leased)
            .map(|leased| async move {
                self.deliver(&leased.tenant, &leased.id, leased.interrupted, leased_until).await
            })
            .buffer_unordered(SENDS_AT_ONCE)
            .collect::<Vec<_>>()
            .await;
        let mut delivered = 0;
        for result in sent {
            if result? {
                delivered += 1;
            }
        }
        Ok(delivered)
    }

    /// Sends one leased delivery and records what became of it; `true` when it was delivered.
    async fn deliver(
        &self,
        tenant: &TenantId,
        id: &str,
        interrupted: bool,
        leased_until: DateTime<Utc>,
    ) -> Result<bool, StoreError> {
        let Some(delivery) = self.ledger.store.notify_delivery(tenant, id).await? else {
            return Ok(false);
        };
        let record = |status: NotifyStatus,
                      error: Option<String>,
                      next: Option<DateTime<Utc>>,
                      sent: bool,
                      reference: Option<String>| NotifyAttempt {
            at: now(),
            status,
            error,
            reference,
            next_attempt_at: next,
            sent,
            leased_until,
        };
        let (destination, language) = match self.destination_of(&delivery).await? {
            Ok(found) => found,
            Err(Held::Skipped(why)) => {
                self.ledger
                    .store
                    .record_notify_attempt(
                        tenant,
                        id,
                        record(NotifyStatus::Skipped, Some(why), None, false, None),
                    )
                    .await?;
                return Ok(false);
            }
            Err(Held::Failed(why)) => {
                self.ledger
                    .store
                    .record_notify_attempt(
                        tenant,
                        id,
                        record(NotifyStatus::Failed, Some(why), None, false, None),
                    )
                    .await?;
                return Ok(false);
            }
            Err(Held::Until(until, why)) => {
                let attempt = record(NotifyStatus::Pending, Some(why), Some(until), false, None);
                self.ledger.store.record_notify_attempt(tenant, id, attempt).await?;
                return Ok(false);
            }
        };
        if interrupted && !retries_are_recognised(&destination) {
            let why = "the server stopped while sending it, so it may have arrived; it is not sent again on its own";
            let attempt = record(NotifyStatus::Unknown, Some(why.into()), None, true, None);
            self.ledger.store.record_notify_attempt(tenant, id, attempt).await?;
            return Ok(false);
        }
        let Some(notice) = self.notice_of(&delivery, language).await? else {
            let attempt = record(NotifyStatus::Skipped, Some("nothing waits".into()), None, false, None);
            self.ledger.store.record_notify_attempt(tenant, id, attempt).await?;
            return Ok(false);
        };
        let started = std::time::Instant::now();
        let outcome = self.senders.send(&destination, &notice, language, &delivery.id).await;
        let at = now();
        let backoff = |error: String, after: Option<StdDuration>| match wait_after_failure(
            self.first_wait_s,
            delivery.attempts + 1,
        ) {
            Some(wait) => {
                let asked = after.and_then(|after| Duration::from_std(after).ok()).unwrap_or_default();
                (NotifyStatus::Pending, Some(error), Some(at + wait.max(asked)))
            }
            None => (
                NotifyStatus::Failed,
                Some(format!("given up after {} attempts: {error}", delivery.attempts + 1)),
                None,
            ),
        };
        let (status, error, next, reference) = match outcome {
            SendOutcome::Delivered { reference } => (NotifyStatus::Delivered, None, None, reference),
            SendOutcome::TryAgain { after, error } => {
                let (status, error, next) = backoff(error, after);
                (status, error, next, None)
            }
            SendOutcome::Refused { error } => (NotifyStatus::Failed, Some(error), None, None),
            SendOutcome::Unknown { error } if retries_are_recognised(&destination) => {
                let (status, error, next) = backoff(error, None);
                (status, error, next, None)
            }
            SendOutcome::Unknown { error } => (
                NotifyStatus::Unknown,
                Some(format!("{error}; it may have arrived, so it is not sent again on its own")),
                None,
                None,
            ),
        };
        let delivered = status == NotifyStatus::Delivered;
        self.ledger.metrics().notification_attempt(
            tenant.as_str(),
            delivery.channel.as_str(),
            delivered,
            started.elapsed(),
        );
        if let Some(error) = &error {
            tracing::info!(tenant = %tenant, delivery = id, channel = delivery.channel.as_str(), error, "a notification was not delivered");
        }
        self.ledger
            .store
            .record_notify_attempt(tenant, id, record(status, error, next, true, reference))
            .await?;
        Ok(delivered)
    }

    /// Where `delivery` goes and in which language, or why it is not sent now.
    async fn destination_of(
        &self,
        delivery: &NotifyDeliveryRecord,
    ) -> Result<Result<(Destination, Language), Held>, StoreError> {
        let tenant = &delivery.tenant;
        if matches!(self.still_waits(tenant, &delivery.subject, &delivery.waits_in).await?, Waiting::No) {
            return Ok(Err(Held::Skipped("it no longer waits".into())));
        }
        let store = &self.ledger.store;
        let tenant_language = store.tenant_language(tenant).await?.unwrap_or(Language::En);
        let settings = store.notify_settings(tenant).await?;
        let smtp = || -> Result<SmtpSettings, Held> {
            let smtp = settings
                .as_ref()
                .and_then(|settings| settings.smtp.clone())
                .ok_or_else(|| Held::Failed("no SMTP server is set for notifications".into()))?;
            let password = smtp
                .sealed_password
                .as_ref()
                .map(|sealed| self.ledger.open_notify_secret(tenant, "smtp", sealed))
                .transpose()
                .map_err(|error| Held::Failed(format!("the SMTP password cannot be opened: {error}")))?;
            let security = match smtp.security.as_str() {
                "none" => SmtpSecurity::None,
                "tls" => SmtpSecurity::Tls,
                _ => SmtpSecurity::StartTls,
            };
            Ok(SmtpSettings {
                host: smtp.host,
                port: smtp.port,
                security,
                username: smtp.username,
                password,
                from: smtp.from,
            })
        };
        let line = |to: String| -> Result<Destination, Held> {
            let line = settings
                .as_ref()
                .and_then(|settings| settings.line.clone())
                .ok_or_else(|| Held::Failed("no LINE account is set for notifications".into()))?;
            let channel_token = self
                .ledger
                .open_notify_secret(tenant, "line", &line.sealed_token)
                .map_err(|error| Held::Failed(format!("the LINE token cannot be opened: {error}")))?;
            Ok(Destination::Line { api_base: line.api_base, channel_token, to })
        };
        if let Some(name) = delivery.recipient.strip_prefix("d:") {
            let destinations = store.notify_destinations(tenant).await?;
            let Some(destination) = destinations.into_iter().find(|destination| destination.name == name)
            else {
                return Ok(Err(Held::Failed(format!("the destination {name} was removed"))));
            };
            let target = match self.ledger.open_destination(&destination) {
                Ok(target) => target,
                Err(error) => {
                    return Ok(Err(Held::Failed(format!("the destination cannot be opened: {error}"))))
                }
            };
            let found = match destination.channel {
                Channel::Email => smtp().map(|smtp| Destination::Email { smtp, to: target }),
                Channel::Slack => Ok(Destination::Slack { webhook_url: target }),
                Channel::Teams => Ok(Destination::Teams { webhook_url: target }),
                Channel::Line => line(target),
            };
            return Ok(found.map(|found| (found, tenant_language)));
        }
        let user_id = delivery.recipient.strip_prefix("u:").unwrap_or(&delivery.recipient);
        let Some(person) = store.notify_recipient(tenant, user_id).await? else {
            return Ok(Err(Held::Skipped("the person was removed".into())));
        };
        if !person.active {
            return Ok(Err(Held::Skipped(format!("{} is no longer active", person.name))));
        }
        if delivery.stage.heeds_choices() {
            if person.prefs.mutes.iter().any(|mute| mute.silences(delivery.event, delivery.channel)) {
                return Ok(Err(Held::Skipped(format!("{} muted it", person.name))));
            }
            if let Some(quiet) = person.prefs.quiet_hours {
                let local = now().with_timezone(&person_zone(&person)).time();
                if let Some(left) = quiet.left_at(local) {
                    let why = format!("held until {}'s quiet hours end", person.name);
                    return Ok(Err(Held::Until(now() + left, why)));
                }
            }
        }
        let language = person.language.unwrap_or(tenant_language);
        let found = match delivery.channel {
            Channel::Email => match person.prefs.email.clone() {
                Some(to) => smtp().map(|smtp| Destination::Email { smtp, to }),
                None => Err(Held::Failed(format!("{} has no e-mail address", person.name))),
            },
            Channel::Line => match person.prefs.line_user_id.clone() {
                Some(to) => line(to),
                None => Err(Held::Failed(format!("{} has no LINE user id", person.name))),
            },
            Channel::Slack | Channel::Teams => {
                Err(Held::Failed("Slack and Teams reach destinations only".into()))
            }
        };
        Ok(found.map(|found| (found, language)))
    }

    /// What `delivery` says (a provider's refusal in `language`); `None` for a digest when nothing
    /// waits, or when its subject is gone.
    async fn notice_of(
        &self,
        delivery: &NotifyDeliveryRecord,
        language: Language,
    ) -> Result<Option<Notice>, StoreError> {
        let at = now();
        if delivery.event == NotifyEvent::Digest {
            let mut items = Vec::new();
            let user_id = delivery.recipient.strip_prefix("u:").unwrap_or(&delivery.recipient);
            let role = self
                .ledger
                .store
                .notify_recipient(&delivery.tenant, user_id)
                .await?
                .map(|person| person.role);
            for (event, state) in digest_states(role) {
                let waiting =
                    self.ledger.store.operations_in_states(&delivery.tenant, &[state], DIGEST_ITEMS).await?;
                for operation in waiting {
                    items.push(self.operation_item(event, Stage::First, operation.into(), at));
                }
            }
            if items.is_empty() {
                return Ok(None);
            }
            return Ok(Some(Notice::Digest { items, link: format!("{}/", self.public_url) }));
        }
        let item = match delivery.subject.split_once(':') {
            Some(("bulk", id)) => {
                let Some(run) = self.ledger.store.bulk_run(&delivery.tenant, id).await? else {
                    return Ok(None);
                };
                let done = run.items.iter().filter(|item| item.outcome.is_some()).count() as u64;
                let failed = run
                    .items
                    .iter()
                    .filter(|item| item.outcome.as_deref().is_some_and(|outcome| outcome != "done"))
                    .count() as u64;
                NoticeItem {
                    event: delivery.event,
                    stage: delivery.stage,
                    subject: NoticeSubject::BulkRun {
                        id: run.id.clone(),
                        name: run.action.clone(),
                        done,
                        failed,
                        total: run.items.len() as u64,
                    },
                    asked_by: Some(run.requested_by),
                    waiting_minutes: 0,
                    link: format!("{}/bulk/{id}", self.public_url),
                }
            }
            Some(("webhook", id)) => {
                let endpoints = self.ledger.store.webhook_endpoints(&delivery.tenant).await?;
                let Some(endpoint) = endpoints.into_iter().find(|endpoint| endpoint.id == id) else {
                    return Ok(None);
                };
                let last = self.ledger.store.webhook_deliveries(&delivery.tenant, id, 1).await?;
                NoticeItem {
                    event: delivery.event,
                    stage: delivery.stage,
                    subject: NoticeSubject::Failing {
                        target: FailingTarget::WebhookEndpoint { host: host_of(&endpoint.url) },
                        last_error: last
                            .into_iter()
                            .next()
                            .and_then(|delivery| delivery.last_error)
                            .unwrap_or_default(),
                    },
                    asked_by: None,
                    waiting_minutes: 0,
                    link: format!("{}/admin/webhooks", self.public_url),
                }
            }
            Some(("archive", id)) => {
                let archives = self.ledger.store.archives(&delivery.tenant).await?;
                let untrusted = archives.into_iter().find(|record| record.id == id).and_then(|record| {
                    record
                        .distrust
                        .map(|why| NoticeSubject::UntrustedArchive { object: record.object_path, why })
                });
                let Some(subject) = untrusted else { return Ok(None) };
                NoticeItem {
                    event: delivery.event,
                    stage: delivery.stage,
                    subject,
                    asked_by: None,
                    waiting_minutes: 0,
                    link: format!("{}/admin/retention", self.public_url),
                }
            }
            Some(("note", version_of)) => {
                let Some((note_id, version)) = version_of.rsplit_once(':') else { return Ok(None) };
                let versions = self.ledger.store.note_versions(&delivery.tenant, note_id).await?;
                let Some(note) = versions.into_iter().find(|note| note.version.to_string() == version) else {
                    return Ok(None);
                };
                NoticeItem {
                    event: delivery.event,
                    stage: delivery.stage,
                    subject: NoticeSubject::Mention {
                        item: note.item.id().to_owned(),
                        by: note.author.clone(),
                        excerpt: crate::domain::note::excerpt(&note.body, MENTION_EXCERPT_CHARS),
                        to: delivery.recipient.starts_with("d:").then(|| note.mentions.join(", ")),
                    },
                    asked_by: None,
                    waiting_minutes: 0,
                    link: format!("{}{}#notes", self.public_url, note.item.page()),
                }
            }
            Some(("connection", provider)) => NoticeItem {
                event: delivery.event,
                stage: delivery.stage,
                subject: NoticeSubject::Failing {
                    target: FailingTarget::Connection { name: provider.to_owned() },
                    last_error: crate::domain::failure::FailureClass::Forbidden.explanation_in(language),
                },
                asked_by: None,
                waiting_minutes: 0,
                link: format!("{}/admin/providers", self.public_url),
            },
            _ => {
                let operation = match OpId::parse(&delivery.subject) {
                    Ok(op_id) => self.ledger.store.load_operation(&delivery.tenant, &op_id).await?,
                    Err(_) => None,
                };
                let Some(operation) = operation else { return Ok(None) };
                let mut parts = OperationParts::from(&operation);
                parts.since = delivery.since;
                self.operation_item(delivery.event, delivery.stage, parts, at)
            }
        };
        Ok(Some(Notice::One(item)))
    }

    /// The item of an operation: what it is, who asked, since when it waits, its page.
    fn operation_item(
        &self,
        event: NotifyEvent,
        stage: Stage,
        operation: OperationParts,
        at: DateTime<Utc>,
    ) -> NoticeItem {
        NoticeItem {
            event,
            stage,
            link: format!("{}/operations/{}", self.public_url, operation.op_id),
            subject: NoticeSubject::Operation {
                op_id: operation.op_id,
                kind: operation.kind,
                amount: operation.amount,
                item: operation.item,
            },
            asked_by: operation.asked_by,
            waiting_minutes: (at - operation.since).num_minutes().max(0),
        }
    }
}

/// What a notice says of an operation.
struct OperationParts {
    op_id: String,
    kind: String,
    amount: Option<crate::domain::money::Money>,
    item: Option<String>,
    asked_by: Option<String>,
    since: DateTime<Utc>,
}

impl From<&crate::domain::operation::OperationRecord> for OperationParts {
    fn from(operation: &crate::domain::operation::OperationRecord) -> Self {
        OperationParts {
            op_id: operation.op_id.to_string(),
            kind: operation.kind.clone(),
            amount: operation.params.money("amount"),
            item: None,
            asked_by: Some(operation.snapshot.requested_by.clone()),
            since: operation.updated_at,
        }
    }
}

impl From<crate::server::store::records::OperationListItem> for OperationParts {
    fn from(item: crate::server::store::records::OperationListItem) -> Self {
        OperationParts {
            op_id: item.op_id.to_string(),
            kind: item.kind,
            amount: item.amount,
            item: None,
            asked_by: None,
            since: item.updated_at,
        }
    }
}

/// The delivery of `watch`'s stage of `rule` to `recipient` on `channel`.
fn new_delivery(
    rule: &RuleRecord,
    watch: &WatchRecord,
    recipient: String,
    channel: Channel,
) -> NewNotifyDelivery {
    NewNotifyDelivery {
        id: delivery_id(&rule.id, &watch.subject, watch.since.timestamp_micros(), watch.stage, &recipient),
        rule_id: rule.id.clone(),
        event: rule.rule.event,
        subject: watch.subject.clone(),
        since: watch.since,
        waits_in: watch.waits_in.clone(),
        stage: watch.stage,
        recipient,
        channel,
        due_at: watch.next_at,
    }
}

/// The time zone `person` chose, or UTC.
fn person_zone(person: &RecipientRecord) -> chrono_tz::Tz {
    person
        .prefs
        .time_zone
        .as_deref()
        .and_then(|zone| chrono_tz::Tz::from_str(zone).ok())
        .unwrap_or(chrono_tz::UTC)
}

/// What waits for a person of `role`, for their digest: approvals for managers, reviews and
/// unknown results for support, all of them for admins.
fn digest_states(role: Option<crate::domain::policy::Role>) -> Vec<(NotifyEvent, State)> {
    use crate::domain::policy::Role;
    let approvals = (NotifyEvent::ApprovalRequested, State::PendingApproval);
    let reviews = (NotifyEvent::NeedsReview, State::NeedsReview);
    let unknown = (NotifyEvent::UnknownTooLong, State::Unknown);
    match role {
        Some(Role::Manager) => vec![approvals, reviews],
        Some(Role::Support) => vec![reviews, unknown],
        Some(Role::Admin) => vec![approvals, reviews, unknown],
        Some(Role::Auditor) | None => Vec::new(),
    }
}
