//! Notification rules: which event a tenant's people hear of, who hears it (a role, named people,
//! or a shared destination such as a Slack channel), on which channel, after how long, reminded
//! how often and escalated to whom; what a person chooses for themselves (muted events and
//! channels, quiet hours); and the stages a waiting subject goes through, each of which becomes at
//! most one delivery per recipient.
//!
//! A rule's times are checked here: no delay of zero where a wait is meant, none of years.

use chrono::{DateTime, Duration, NaiveTime, Utc};
use serde::{Deserialize, Serialize};

use super::machine::State;
use super::policy::Role;

/// What a rule is about.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum NotifyEvent {
    /// An operation waits for a manager's approval.
    ApprovalRequested,
    /// An operation needs a person to review it.
    NeedsReview,
    /// An operation's result has been unknown for longer than the rule's wait.
    UnknownTooLong,
    /// A provider accepted an operation and has not settled it for longer than the rule's wait.
    AcceptedTooLong,
    /// A bulk run finished.
    BulkRunFinished,
    /// A webhook endpoint stopped taking its deliveries, or a provider refused the tenant's
    /// credentials.
    ConnectionFailing,
    /// A file of the tenant's archive was found not as the server signed it (gone, changed, its
    /// manifest gone or changed, or another tenant's): nothing of it is shown until it is mended.
    ArchiveUntrusted,
    /// A person was mentioned in an internal note: the rule's channel tells each person named,
    /// whatever its audience.
    Mentioned,
    /// Once a day, at the rule's time in each person's time zone: what waits for them.
    Digest,
}

impl NotifyEvent {
    pub const ALL: [NotifyEvent; 9] = [
        NotifyEvent::ApprovalRequested,
        NotifyEvent::NeedsReview,
        NotifyEvent::UnknownTooLong,
        NotifyEvent::AcceptedTooLong,
        NotifyEvent::BulkRunFinished,
        NotifyEvent::ConnectionFailing,
        NotifyEvent::ArchiveUntrusted,
        NotifyEvent::Mentioned,
        NotifyEvent::Digest,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            NotifyEvent::ApprovalRequested => "approval_requested",
            NotifyEvent::NeedsReview => "needs_review",
            NotifyEvent::UnknownTooLong => "unknown_too_long",
            NotifyEvent::AcceptedTooLong => "accepted_too_long",
            NotifyEvent::BulkRunFinished => "bulk_run_finished",
            NotifyEvent::ConnectionFailing => "connection_failing",
            NotifyEvent::ArchiveUntrusted => "archive_untrusted",
            NotifyEvent::Mentioned => "mentioned",
            NotifyEvent::Digest => "digest",
        }
    }

    pub fn parse(text: &str) -> Result<NotifyEvent, String> {
        NotifyEvent::ALL.into_iter().find(|event| event.as_str() == text.trim()).ok_or_else(|| {
            let known: Vec<&str> = NotifyEvent::ALL.iter().map(|event| event.as_str()).collect();
            format!("there is no event named \"{}\" (events: {})", text.trim(), known.join(", "))
        })
    }

    /// The state an operation waits in while this event still holds, for the events about an
    /// operation that waits: reminders and escalations are sent only while it stays there.
    pub fn waits_in(self) -> Option<State> {
        match self {
            NotifyEvent::ApprovalRequested => Some(State::PendingApproval),
            NotifyEvent::NeedsReview => Some(State::NeedsReview),
            NotifyEvent::UnknownTooLong => Some(State::Unknown),
            NotifyEvent::AcceptedTooLong => Some(State::Accepted),
            NotifyEvent::BulkRunFinished
            | NotifyEvent::ConnectionFailing
            | NotifyEvent::ArchiveUntrusted
            | NotifyEvent::Mentioned
            | NotifyEvent::Digest => None,
        }
    }

    /// The events an operation entering `state` starts watching for.
    pub fn watched_in(state: State) -> Vec<NotifyEvent> {
        NotifyEvent::ALL.into_iter().filter(|event| event.waits_in() == Some(state)).collect()
    }

    /// Whether the rule's first wait is a threshold the subject must stay past (as opposed to a
    /// delay before telling of something that happened).
    fn after_is_threshold(self) -> bool {
        matches!(self, NotifyEvent::UnknownTooLong | NotifyEvent::AcceptedTooLong)
    }
}

/// The channel a person is told on (a destination has its own).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Channel {
    Email,
    Slack,
    Teams,
    Line,
}

impl Channel {
    pub const ALL: [Channel; 4] = [Channel::Email, Channel::Slack, Channel::Teams, Channel::Line];

    pub fn as_str(self) -> &'static str {
        match self {
            Channel::Email => "email",
            Channel::Slack => "slack",
            Channel::Teams => "teams",
            Channel::Line => "line",
        }
    }

    pub fn parse(text: &str) -> Result<Channel, String> {
        Channel::ALL.into_iter().find(|channel| channel.as_str() == text.trim()).ok_or_else(|| {
            format!("there is no channel named \"{}\" (channels: email, slack, teams, line)", text.trim())
        })
    }

    /// Whether a person can be told on this channel directly: by their e-mail address or their
    /// LINE user id. Slack and Teams reach a shared destination only.
    pub fn reaches_a_person(self) -> bool {
        matches!(self, Channel::Email | Channel::Line)
    }
}

/// Who hears a rule.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", content = "value", rename_all = "snake_case")]
pub enum Audience {
    /// Every active person of the tenant with this role.
    Role(Role),
    /// These people, by name.
    People(Vec<String>),
    /// A shared destination of the tenant, by name (a Slack or Teams channel, a LINE group, a
    /// shared mailbox).
    Destination(String),
}

impl Audience {
    /// `role:manager`, `people:maria,sam` or `destination:ops-slack`, as stored and as typed on the
    /// command line.
    pub fn as_text(&self) -> String {
        match self {
            Audience::Role(role) => format!("role:{}", role.as_str()),
            Audience::People(names) => format!("people:{}", names.join(",")),
            Audience::Destination(name) => format!("destination:{name}"),
        }
    }

    pub fn parse(text: &str) -> Result<Audience, String> {
        let text = text.trim();
        let (kind, value) = text
            .split_once(':')
            .ok_or_else(|| format!("\"{text}\" is not role:NAME, people:NAME,NAME or destination:NAME"))?;
        let value = value.trim();
        match kind.trim() {
            "role" => Role::parse(value).map(Audience::Role).ok_or_else(|| {
                format!("there is no role named \"{value}\" (roles: support, manager, auditor, admin)")
            }),
            "people" => {
                let mut names: Vec<String> = value
                    .split(',')
                    .map(str::trim)
                    .filter(|name| !name.is_empty())
                    .map(str::to_owned)
                    .collect();
                names.sort();
                names.dedup();
                if names.is_empty() {
                    return Err("people: names no one".into());
                }
                if names.iter().any(|name| name.len() > 200 || name.chars().any(char::is_control)) {
                    return Err("a person's name is too long or has control characters".into());
                }
                Ok(Audience::People(names))
            }
            "destination" => check_destination_name(value).map(|()| Audience::Destination(value.to_owned())),
            other => Err(format!("\"{other}\" is not role, people or destination")),
        }
    }
}

/// Whether `name` can name a destination: 1 to 40 lowercase letters, digits and dashes.
pub fn check_destination_name(name: &str) -> Result<(), String> {
    let fits = !name.is_empty()
        && name.len() <= 40
        && name.chars().all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-');
    if fits {
        Ok(())
    } else {
        Err(format!("\"{name}\" is not a destination name (1 to 40 lowercase letters, digits and dashes)"))
    }
}

/// How many reminders a subject gets at most while it waits.
pub const MOST_REMINDERS: u8 = 3;

/// The shortest wait a reminder or an escalation may have.
pub const SHORTEST_WAIT: Duration = Duration::minutes(1);

/// The longest wait any of a rule's times may have.
pub const LONGEST_WAIT: Duration = Duration::days(30);

/// A rule as an admin sets it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct NotifyRule {
    pub event: NotifyEvent,
    pub audience: Audience,
    /// The channel the audience's people are told on; a destination's own kind when the audience
    /// is one.
    pub channel: Channel,
    /// For `unknown_too_long` and `accepted_too_long`: how long the operation must stay so; for
    /// `digest`: the time of day (in each person's time zone) as a span after midnight; for the
    /// others: how long to wait before the first message (zero: at once).
    pub after: Duration,
    /// While the subject still waits: how long between reminders (at most [`MOST_REMINDERS`]).
    pub remind_every: Option<Duration>,
    /// While the subject still waits: after how long (from when it began to wait) the rule's
    /// escalation audience is told, mutes and quiet hours notwithstanding.
    pub escalation: Option<(Duration, Audience)>,
}

/// Why a rule cannot be kept, naming the field.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RuleProblem {
    pub field: &'static str,
    pub message: String,
}

fn problem(field: &'static str, message: impl Into<String>) -> RuleProblem {
    RuleProblem { field, message: message.into() }
}

/// Checks `rule` on its own (whether its people and destinations exist is for the caller).
pub fn check_rule(rule: &NotifyRule) -> Result<(), RuleProblem> {
    let is_destination = matches!(rule.audience, Audience::Destination(_));
    if !is_destination && !rule.channel.reaches_a_person() {
        return Err(problem(
            "channel",
            format!("{} reaches a shared destination only: send to destination:NAME", rule.channel.as_str()),
        ));
    }
    match rule.event {
        NotifyEvent::Digest => {
            if rule.after < Duration::zero() || rule.after >= Duration::days(1) {
                return Err(problem("after", "a digest's time is a time of day, 00:00 to 23:59"));
            }
            if is_destination {
                return Err(problem("audience", "a digest is for people: what waits for each of them"));
            }
        }
        event if event.after_is_threshold() => check_wait("after", rule.after)?,
        _ => {
            if rule.after < Duration::zero() || rule.after > LONGEST_WAIT {
                return Err(problem("after", "the first message waits between 0 (at once) and 30 days"));
            }
        }
    }
    let waits = rule.event.waits_in().is_some();
    if let Some(every) = rule.remind_every {
        if !waits {
            return Err(problem("remind_every", "only what waits for someone is reminded of"));
        }
        check_wait("remind_every", every)?;
    }
    if let Some((after, audience)) = &rule.escalation {
        if !waits {
            return Err(problem("escalate_after", "only what waits for someone is escalated"));
        }
        check_wait("escalate_after", *after)?;
        if *after <= rule.after {
            return Err(problem("escalate_after", "the escalation comes after the first message"));
        }
        if matches!(audience, Audience::People(_) | Audience::Role(_)) && !rule.channel.reaches_a_person() {
            return Err(problem("escalate_to", "people are told by e-mail or LINE"));
        }
    }
    Ok(())
}

fn check_wait(field: &'static str, wait: Duration) -> Result<(), RuleProblem> {
    if wait < SHORTEST_WAIT {
        return Err(problem(field, "waits at least one minute"));
    }
    if wait > LONGEST_WAIT {
        return Err(problem(field, "waits at most 30 days"));
    }
    Ok(())
}

/// A span typed by a person: `0`, `90s`, `15m`, `2h`, `3d`, or a time of day `09:30` (for a
/// digest).
pub fn parse_span(text: &str) -> Result<Duration, String> {
    let text = text.trim();
    if let Ok(time) = NaiveTime::parse_from_str(text, "%H:%M") {
        return Ok(time.signed_duration_since(NaiveTime::MIN));
    }
    if text == "0" {
        return Ok(Duration::zero());
    }
    let split = text.find(|c: char| !c.is_ascii_digit()).unwrap_or(text.len());
    let (number, unit) = text.split_at(split);
    let number: i64 = number.parse().map_err(|_| format!("\"{text}\" is not a span like 15m, 2h or 3d"))?;
    let seconds = match unit {
        "s" => 1,
        "m" => 60,
        "h" => 3_600,
        "d" => 86_400,
        _ => return Err(format!("\"{text}\" is not a span like 15m, 2h or 3d")),
    };
    number
        .checked_mul(seconds)
        .filter(|total| *total <= 100 * 365 * 86_400)
        .map(Duration::seconds)
        .ok_or_else(|| format!("\"{text}\" is too long"))
}

/// A span as [`parse_span`] reads it back: the largest whole unit.
pub fn span_text(span: Duration) -> String {
    let seconds = span.num_seconds();
    match seconds {
        0 => "0".into(),
        s if s % 86_400 == 0 => format!("{}d", s / 86_400),
        s if s % 3_600 == 0 => format!("{}h", s / 3_600),
        s if s % 60 == 0 => format!("{}m", s / 60),
        s => format!("{s}s"),
    }
}

/// One message of a rule's sequence for one subject.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Stage {
    First,
    Reminder(u8),
    Escalation,
}

impl Stage {
    pub fn as_text(self) -> String {
        match self {
            Stage::First => "first".into(),
            Stage::Reminder(n) => format!("reminder-{n}"),
            Stage::Escalation => "escalation".into(),
        }
    }

    pub fn parse(text: &str) -> Result<Stage, String> {
        match text {
            "first" => Ok(Stage::First),
            "escalation" => Ok(Stage::Escalation),
            _ => text
                .strip_prefix("reminder-")
                .and_then(|n| n.parse().ok())
                .filter(|n| (1..=MOST_REMINDERS).contains(n))
                .map(Stage::Reminder)
                .ok_or_else(|| format!("\"{text}\" is not a stage")),
        }
    }

    /// Whether a person's mutes and quiet hours hold it back: an escalation reaches the next
    /// person regardless.
    pub fn heeds_choices(self) -> bool {
        self != Stage::Escalation
    }
}

/// The stages of `rule` for a subject that began to wait at `since`, each with when it is due, in
/// the order they fall due (a subject that does not wait has its first stage alone).
pub fn stages(rule: &NotifyRule, since: DateTime<Utc>) -> Vec<(Stage, DateTime<Utc>)> {
    let first = since + rule.after;
    let mut stages = vec![(Stage::First, first)];
    if rule.event.waits_in().is_none() {
        return stages;
    }
    if let Some(every) = rule.remind_every {
        let escalates_at = rule.escalation.as_ref().map(|(after, _)| since + *after);
        for n in 1..=MOST_REMINDERS {
            let at = first + every * i32::from(n);
            if escalates_at.is_some_and(|escalates_at| at >= escalates_at) {
                break;
            }
            stages.push((Stage::Reminder(n), at));
        }
    }
    if let Some((after, _)) = &rule.escalation {
        stages.push((Stage::Escalation, since + *after));
    }
    stages.sort_by_key(|(_, at)| *at);
    stages
}

/// The stage after `stage` in `rule`'s sequence for a subject that began to wait at `since`, and
/// when it is due.
pub fn next_stage(rule: &NotifyRule, since: DateTime<Utc>, stage: Stage) -> Option<(Stage, DateTime<Utc>)> {
    let all = stages(rule, since);
    let at = all.iter().position(|(each, _)| *each == stage)?;
    all.get(at + 1).copied()
}

/// A person's quiet hours: a window of their day (which may run past midnight) when only
/// escalations reach them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct QuietHours {
    pub from: NaiveTime,
    pub until: NaiveTime,
}

impl QuietHours {
    /// `22:00-07:30`.
    pub fn parse(text: &str) -> Result<QuietHours, String> {
        let bad = || format!("\"{}\" is not a window like 22:00-07:30", text.trim());
        let (from, until) = text.trim().split_once('-').ok_or_else(bad)?;
        let from = NaiveTime::parse_from_str(from.trim(), "%H:%M").map_err(|_| bad())?;
        let until = NaiveTime::parse_from_str(until.trim(), "%H:%M").map_err(|_| bad())?;
        if from == until {
            return Err("quiet hours begin and end at different times".into());
        }
        Ok(QuietHours { from, until })
    }

    pub fn as_text(self) -> String {
        format!("{}-{}", self.from.format("%H:%M"), self.until.format("%H:%M"))
    }

    /// How long from the local time `now` until the window ends, when `now` is inside it.
    pub fn left_at(self, now: NaiveTime) -> Option<Duration> {
        let inside = if self.from < self.until {
            self.from <= now && now < self.until
        } else {
            now >= self.from || now < self.until
        };
        if !inside {
            return None;
        }
        let left = self.until.signed_duration_since(now);
        Some(if left <= Duration::zero() { left + Duration::days(1) } else { left })
    }
}

/// What a person mutes for themselves: an event, or a channel.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Mute {
    Event(NotifyEvent),
    Channel(Channel),
}

impl Mute {
    /// `event:needs_review` or `channel:line`.
    pub fn as_text(self) -> String {
        match self {
            Mute::Event(event) => format!("event:{}", event.as_str()),
            Mute::Channel(channel) => format!("channel:{}", channel.as_str()),
        }
    }

    pub fn parse(text: &str) -> Result<Mute, String> {
        match text.trim().split_once(':') {
            Some(("event", event)) => NotifyEvent::parse(event).map(Mute::Event),
            Some(("channel", channel)) => Channel::parse(channel).map(Mute::Channel),
            _ => Err(format!("\"{}\" is not event:NAME or channel:NAME", text.trim())),
        }
    }

    /// Whether this mute holds back `event` sent on `channel`.
    pub fn silences(self, event: NotifyEvent, channel: Channel) -> bool {
        match self {
            Mute::Event(muted) => muted == event,
            Mute::Channel(muted) => muted == channel,
        }
    }
}

/// The id of the delivery of `stage` of `rule_id` about `subject` (as it began to wait at
/// `since_us`) to `recipient` (`u:` and a user id, or `d:` and a destination's name): the same for
/// every instance that writes it, so that it is written once.
pub fn delivery_id(rule_id: &str, subject: &str, since_us: i64, stage: Stage, recipient: &str) -> String {
    format!("{rule_id}/{subject}@{since_us}/{}/{recipient}", stage.as_text())
}

/// Whether `address` looks like an e-mail address a message can be sent to: one `@`, a dot in the
/// domain, no spaces or control characters, at most 254 characters.
pub fn check_email_address(address: &str) -> Result<(), String> {
    let fits = address.len() <= 254
        && !address
            .chars()
            .any(|c| c.is_whitespace() || c.is_control() || matches!(c, '<' | '>' | ',' | ';' | '"'))
        && address.split_once('@').is_some_and(|(local, domain)| {
            !local.is_empty()
                && domain.contains('.')
                && !domain.contains('@')
                && !domain.starts_with('.')
                && !domain.ends_with('.')
        });
    if fits {
        Ok(())
    } else {
        Err(format!("\"{address}\" is not an e-mail address"))
    }
}

/// Whether `id` is a LINE user, group or room id: `U`, `C` or `R` and 32 hexadecimal digits.
pub fn check_line_id(id: &str) -> Result<(), String> {
    let fits = id.len() == 33
        && matches!(id.as_bytes()[0], b'U' | b'C' | b'R')
        && id[1..].chars().all(|c| c.is_ascii_hexdigit() && !c.is_ascii_uppercase());
    if fits {
        Ok(())
    } else {
        Err(format!("\"{id}\" is not a LINE user, group or room id (U, C or R and 32 hexadecimal digits)"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rule(event: NotifyEvent) -> NotifyRule {
        NotifyRule {
            event,
            audience: Audience::Role(Role::Manager),
            channel: Channel::Email,
            after: Duration::zero(),
            remind_every: None,
            escalation: None,
        }
    }

    #[test]
    fn delays_of_zero_or_of_years_are_refused_where_a_wait_is_meant() {
        let mut reminded = rule(NotifyEvent::ApprovalRequested);
        reminded.remind_every = Some(Duration::zero());
        assert_eq!(check_rule(&reminded).unwrap_err().field, "remind_every");
        reminded.remind_every = Some(parse_span("3650d").unwrap());
        assert_eq!(check_rule(&reminded).unwrap_err().field, "remind_every");
        reminded.remind_every = Some(parse_span("30m").unwrap());
        assert_eq!(check_rule(&reminded), Ok(()));
        let mut unknown = rule(NotifyEvent::UnknownTooLong);
        assert_eq!(check_rule(&unknown).unwrap_err().field, "after", "a threshold of zero is no threshold");
        unknown.after = parse_span("15m").unwrap();
        assert_eq!(check_rule(&unknown), Ok(()));
        assert!(parse_span("1000000000d").is_err());
        assert!(parse_span("15 minutes").is_err());
        assert!(parse_span("-5m").is_err());
    }

    #[test]
    fn an_escalation_comes_after_the_first_message_and_only_for_what_waits() {
        let mut approval = rule(NotifyEvent::ApprovalRequested);
        approval.after = Duration::hours(1);
        approval.escalation = Some((Duration::minutes(30), Audience::Role(Role::Admin)));
        assert_eq!(check_rule(&approval).unwrap_err().field, "escalate_after");
        let mut finished = rule(NotifyEvent::BulkRunFinished);
        finished.escalation = Some((Duration::hours(1), Audience::Role(Role::Admin)));
        assert_eq!(check_rule(&finished).unwrap_err().field, "escalate_after");
        finished.escalation = None;
        finished.remind_every = Some(Duration::hours(1));
        assert_eq!(check_rule(&finished).unwrap_err().field, "remind_every");
    }

    #[test]
    fn slack_and_teams_reach_destinations_only() {
        let mut slack = rule(NotifyEvent::NeedsReview);
        slack.channel = Channel::Slack;
        assert_eq!(check_rule(&slack).unwrap_err().field, "channel");
        slack.audience = Audience::Destination("ops".into());
        assert_eq!(check_rule(&slack), Ok(()));
    }

    #[test]
    fn audiences_read_back_and_unknown_roles_are_named() {
        for text in ["role:manager", "people:maria,sam", "destination:ops-slack"] {
            assert_eq!(Audience::parse(text).unwrap().as_text(), text);
        }
        assert_eq!(
            Audience::parse("people: sam , maria,sam").unwrap(),
            Audience::People(vec!["maria".into(), "sam".into()])
        );
        assert!(Audience::parse("role:boss").unwrap_err().contains("no role named \"boss\""));
        assert!(Audience::parse("destination:Ops Slack").is_err());
        assert!(Audience::parse("manager").is_err());
    }

    #[test]
    fn stages_stop_reminding_once_the_escalation_is_due() {
        let mut approval = rule(NotifyEvent::ApprovalRequested);
        approval.remind_every = Some(Duration::minutes(30));
        approval.escalation = Some((Duration::minutes(75), Audience::Role(Role::Admin)));
        let since = DateTime::from_timestamp(1_000_000, 0).unwrap();
        let got: Vec<(Stage, i64)> = stages(&approval, since)
            .into_iter()
            .map(|(stage, at)| (stage, (at - since).num_minutes()))
            .collect();
        assert_eq!(
            got,
            [(Stage::First, 0), (Stage::Reminder(1), 30), (Stage::Reminder(2), 60), (Stage::Escalation, 75)]
        );
        assert_eq!(
            next_stage(&approval, since, Stage::Reminder(2)).map(|(stage, _)| stage),
            Some(Stage::Escalation)
        );
        assert_eq!(next_stage(&approval, since, Stage::Escalation), None);
        approval.escalation = None;
        assert_eq!(stages(&approval, since).len(), 1 + usize::from(MOST_REMINDERS), "reminders are bounded");
        let finished = rule(NotifyEvent::BulkRunFinished);
        assert_eq!(stages(&finished, since), [(Stage::First, since)]);
    }

    #[test]
    fn quiet_hours_that_run_past_midnight_end_the_next_morning() {
        let quiet = QuietHours::parse("22:00-07:30").unwrap();
        let at = |text: &str| NaiveTime::parse_from_str(text, "%H:%M").unwrap();
        assert_eq!(quiet.left_at(at("23:00")), Some(Duration::minutes(510)));
        assert_eq!(quiet.left_at(at("06:30")), Some(Duration::minutes(60)));
        assert_eq!(quiet.left_at(at("07:30")), None);
        assert_eq!(quiet.left_at(at("12:00")), None);
        let lunch = QuietHours::parse("12:00-13:00").unwrap();
        assert_eq!(lunch.left_at(at("12:15")), Some(Duration::minutes(45)));
        assert_eq!(lunch.left_at(at("13:00")), None);
        assert!(QuietHours::parse("22:00-22:00").is_err());
        assert!(QuietHours::parse("25:00-07:00").is_err());
        assert_eq!(quiet.as_text(), "22:00-07:30");
    }

    #[test]
    fn mutes_silence_their_event_or_their_channel() {
        let mute = Mute::parse("channel:line").unwrap();
        assert!(mute.silences(NotifyEvent::NeedsReview, Channel::Line));
        assert!(!mute.silences(NotifyEvent::NeedsReview, Channel::Email));
        assert_eq!(Mute::parse("event:digest").unwrap(), Mute::Event(NotifyEvent::Digest));
        assert!(Mute::parse("event:lunch").is_err());
        assert!(!Stage::Escalation.heeds_choices());
        assert_eq!(Stage::parse(&Stage::Reminder(2).as_text()), Ok(Stage::Reminder(2)));
        assert!(Stage::parse("reminder-9").is_err());
    }

    #[test]
    fn addresses_and_line_ids_are_checked() {
        assert!(check_email_address("maria@shop.example").is_ok());
        for bad in
            ["maria", "maria@shop", "a b@shop.example", "x@shop.example\r\nBcc: y@z.example", "<a@b.example>"]
        {
            assert!(check_email_address(bad).is_err(), "{bad}");
        }
        assert!(check_line_id(&format!("U{}", "0a".repeat(16))).is_ok());
        assert!(check_line_id(&format!("X{}", "0a".repeat(16))).is_err());
        assert!(check_line_id("U123").is_err());
    }

    #[test]
    fn spans_read_back() {
        for text in ["0", "45s", "15m", "2h", "3d"] {
            assert_eq!(span_text(parse_span(text).unwrap()), text);
        }
        assert_eq!(parse_span("09:30").unwrap(), Duration::minutes(570));
    }
}
