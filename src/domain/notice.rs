//! What a notification says, rendered for each channel in the reader's language: an e-mail (plain
//! text and HTML), a Slack incoming-webhook body (a `text` fallback and Block Kit blocks), a
//! Microsoft Teams workflow-webhook body (one Adaptive Card) and the `messages` of a LINE push.
//!
//! Every rendering says what waits (the operation in plain words, its amount in the reader's
//! locale, who asked, for how long), says when it is a reminder or an escalation, and links to the
//! exact console page. Approving stays in the console, behind sign-in and four-eyes: the chat
//! renderings offer a link that opens the page and never a button that acts. A [`NoticeSubject`]
//! carries no customer's address, token or secret, so no rendering can show one.
//!
//! Caller-supplied words (item names, who asked, a bulk run's name, an error) are escaped for
//! each surface: HTML entities in the e-mail, `&`, `<` and `>` in Slack's mrkdwn as Slack's
//! "Formatting text for app surfaces" reference asks (docs.slack.dev/messaging/formatting-message-text).
//! The channels' limits are kept here, so that no sender has to cut a message: Slack's Block Kit
//! reference (a section's text at most 3,000 characters, a header's 150, at most 50 blocks), the
//! ~28 KB a Teams message may weigh (learn.microsoft.com, "Create incoming webhooks": "The
//! message size limit is 28 KB"; the Teams connector's known limits) and LINE's text message (at
//! most 5,000 characters, at most 5 messages a push; developers.line.biz Messaging API reference).
//! A digest with more items than fit lists the first ones and says how many more there are.
//!
//! The words are in `locales/*/notify.ftl`.

use serde_json::{json, Value};

use super::archive::ArchiveDistrust;
use super::language::Language;
use super::money::Money;
use super::notification::{NotifyEvent, Stage};
use super::wording::{capitalised, noun};
use crate::t;

/// What a notification is about, as raw parts: the words are made here, in the reader's language,
/// so that one item renders in each recipient's own. None of them is a customer's address or a
/// secret.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum NoticeSubject {
    /// An operation: told as [`crate::domain::wording`] tells it ("refund of NT$1,200 for Clay
    /// teapot"), with its op id.
    Operation {
        op_id: String,
        /// `refund`, `create_aftersale`, `schedule_pickup`, `send_email`, `cancel_aftersale`…
        kind: String,
        amount: Option<Money>,
        /// The name of the order's line item it concerns, when known.
        item: Option<String>,
    },
    /// A bulk run that finished, with its counts.
    BulkRun { id: String, name: String, done: u64, failed: u64, total: u64 },
    /// Deliveries that keep failing, and the last error in words (never with a secret: the caller
    /// gives an admin's sentence, such as the senders' errors).
    Failing { target: FailingTarget, last_error: String },
    /// A file of the archive found not as it was signed: its path, and what was found.
    UntrustedArchive { object: String, why: ArchiveDistrust },
    /// People were mentioned in a note on an item (an op id or an order's subject): who wrote
    /// it, and its start; `to` names the people mentioned for a shared destination, and is `None`
    /// for a message to the person mentioned.
    Mention { item: String, by: String, excerpt: String, to: Option<String> },
}

/// What keeps failing.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FailingTarget {
    /// A webhook endpoint, by its URL's host only (a URL can carry a secret).
    WebhookEndpoint { host: String },
    /// A provider connection, by its name.
    Connection { name: String },
}

/// One thing a notification tells of.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NoticeItem {
    pub event: NotifyEvent,
    pub stage: Stage,
    pub subject: NoticeSubject,
    /// Who asked (the API token's or user's name), when known.
    pub asked_by: Option<String>,
    /// How long it has waited, in whole minutes (0 for a first message sent at once).
    pub waiting_minutes: i64,
    /// The absolute URL of the exact console page (`https://ops.example.com/operations/op_…`).
    pub link: String,
}

/// A notification: one item, or a digest of several with the link to their list.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Notice {
    One(NoticeItem),
    Digest { items: Vec<NoticeItem>, link: String },
}

/// An e-mail's subject and its two bodies.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EmailNotice {
    pub subject: String,
    pub text: String,
    pub html: String,
}

/// Slack's limits (Block Kit reference: blocks, header block, section block).
pub const SLACK_MAX_BLOCKS: usize = 50;
pub const SLACK_SECTION_TEXT_MAX: usize = 3000;
pub const SLACK_HEADER_TEXT_MAX: usize = 150;
/// A button's text (Block Kit button element: 75 characters).
const SLACK_BUTTON_TEXT_MAX: usize = 75;
/// What Teams takes in one message: 28 KB, with room kept for the envelope Power Automate adds.
pub const TEAMS_MAX_BYTES: usize = 27_000;
/// LINE's limits: a text message's `text` and the messages of one push.
pub const LINE_TEXT_MAX: usize = 5000;
pub const LINE_MAX_MESSAGES: usize = 5;
/// How long one caller-supplied name may be in any rendering before it is cut.
const NAME_MAX: usize = 200;
/// How long a last error may be.
const ERROR_MAX: usize = 500;

/// An item in words, the same for every channel: its headline, its details and what to do.
struct Told {
    title: String,
    facts: Vec<String>,
    hint: String,
    link: String,
}

/// `text` cut to at most `max` characters, ending in `…` when it was cut.
fn cut(text: &str, max: usize) -> String {
    if text.chars().count() <= max {
        return text.to_owned();
    }
    let mut kept: String = text.chars().take(max.saturating_sub(1)).collect();
    kept.push('…');
    kept
}

/// How long `minutes` is, in the reader's words: minutes below an hour, hours (and minutes) below
/// two days, days after.
pub fn waited_words(minutes: i64, language: Language) -> String {
    let minutes = minutes.max(0);
    let (hours, rest) = (minutes / 60, minutes % 60);
    if hours == 0 {
        t!(language, "notify-waited-minutes", n = minutes)
    } else if hours < 48 && rest == 0 {
        t!(language, "notify-waited-hours", n = hours)
    } else if hours < 48 {
        t!(language, "notify-waited-hours-minutes", hours = hours, minutes = rest)
    } else {
        t!(language, "notify-waited-days", n = hours / 24)
    }
}

/// What waits, in lower case where the language has cases.
fn what(subject: &NoticeSubject, language: Language) -> String {
    match subject {
        NoticeSubject::Operation { kind, amount, item, .. } => {
            let item = item.as_deref().map(|item| cut(item, NAME_MAX));
            noun(kind, *amount, item.as_deref(), language)
        }
        NoticeSubject::BulkRun { name, done, failed, total, .. } => t!(
            language,
            "notify-bulk-what",
            name = cut(name, NAME_MAX),
            done = language.count(*done),
            failed = language.count(*failed),
            total = language.count(*total)
        ),
        NoticeSubject::Failing { target: FailingTarget::WebhookEndpoint { host }, .. } => {
            t!(language, "notify-failing-webhook", host = cut(host, NAME_MAX))
        }
        NoticeSubject::Failing { target: FailingTarget::Connection { name }, .. } => {
            t!(language, "notify-failing-connection", name = cut(name, NAME_MAX))
        }
        NoticeSubject::UntrustedArchive { object, why } => {
            t!(language, "notify-archive-what", object = cut(object, ERROR_MAX), why = why.words(language))
        }
        NoticeSubject::Mention { item, by, to: None, .. } => {
            t!(language, "notify-mention-what", by = cut(by, NAME_MAX), item = cut(item, NAME_MAX))
        }
        NoticeSubject::Mention { item, by, to: Some(people), .. } => t!(
            language,
            "notify-mention-what-people",
            by = cut(by, NAME_MAX),
            people = cut(people, NAME_MAX),
            item = cut(item, NAME_MAX)
        ),
    }
}

fn stage_word(stage: Stage) -> &'static str {
    match stage {
        Stage::First => "first",
        Stage::Reminder(_) => "reminder",
        Stage::Escalation => "escalation",
    }
}

fn tell(item: &NoticeItem, language: Language) -> Told {
    let what = what(&item.subject, language);
    let waited = waited_words(item.waiting_minutes, language);
    let stage = stage_word(item.stage);
    let (title, hint) = match item.event {
        NotifyEvent::ApprovalRequested | NotifyEvent::Digest => (
            t!(language, "notify-title-approval", stage = stage, waited = &waited, what = &what),
            t!(language, "notify-hint-approval"),
        ),
        NotifyEvent::NeedsReview => (
            t!(language, "notify-title-review", stage = stage, waited = &waited, what = &what),
            t!(language, "notify-hint-review"),
        ),
        NotifyEvent::UnknownTooLong => (
            t!(language, "notify-title-unknown", stage = stage, waited = &waited, what = &what),
            t!(language, "notify-hint-unknown"),
        ),
        NotifyEvent::AcceptedTooLong => (
            t!(language, "notify-title-accepted", stage = stage, waited = &waited, what = &what),
            t!(language, "notify-hint-accepted"),
        ),
        NotifyEvent::BulkRunFinished => {
            (t!(language, "notify-title-bulk", what = &what), t!(language, "notify-hint-bulk"))
        }
        NotifyEvent::ConnectionFailing => (
            t!(language, "notify-title-failing", stage = stage, waited = &waited, what = &what),
            t!(language, "notify-hint-failing"),
        ),
        NotifyEvent::ArchiveUntrusted => {
            (t!(language, "notify-title-archive", what = &what), t!(language, "notify-hint-archive"))
        }
        NotifyEvent::Mentioned => (what.clone(), t!(language, "notify-hint-mention")),
    };
    let mut facts = Vec::new();
    if let NoticeSubject::Operation { op_id, .. } = &item.subject {
        facts.push(t!(language, "notify-fact-operation", op_id = cut(op_id, NAME_MAX)));
    }
    if let Some(who) = &item.asked_by {
        facts.push(t!(language, "notify-fact-asked-by", who = cut(who, NAME_MAX)));
    }
    if item.waiting_minutes > 0 {
        facts.push(t!(language, "notify-fact-waiting", waited = &waited));
    }
    if let NoticeSubject::Mention { excerpt, .. } = &item.subject {
        facts.push(t!(language, "notify-fact-note", excerpt = cut(excerpt, ERROR_MAX)));
    }
    if let NoticeSubject::Failing { last_error, .. } = &item.subject {
        facts.push(t!(language, "notify-fact-last-error", error = cut(last_error, ERROR_MAX)));
    }
    // A mention's title starts with a person's name, which keeps its case.
    let title = if item.event == NotifyEvent::Mentioned { title } else { capitalised(&title) };
    Told { title, facts, hint, link: item.link.clone() }
}

/// The notice's items and the link that opens them: the item's page, or the digest's list.
fn parts(notice: &Notice) -> (&[NoticeItem], &str) {
    match notice {
        Notice::One(item) => (std::slice::from_ref(item), item.link.as_str()),
        Notice::Digest { items, link } => (items.as_slice(), link.as_str()),
    }
}

/// The headline of the whole notice: the item's, or the digest's count.
fn headline(notice: &Notice, language: Language) -> String {
    match notice {
        Notice::One(item) => tell(item, language).title,
        Notice::Digest { items, .. } => t!(language, "notify-digest-title", count = items.len()),
    }
}

/// `text` with HTML's special characters as entities.
pub fn html_escaped(text: &str) -> String {
    let mut escaped = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => escaped.push_str("&amp;"),
            '<' => escaped.push_str("&lt;"),
            '>' => escaped.push_str("&gt;"),
            '"' => escaped.push_str("&quot;"),
            '\'' => escaped.push_str("&#39;"),
            c => escaped.push(c),
        }
    }
    escaped
}

/// `text` with Slack's three control characters as the entities Slack decodes.
pub fn slack_escaped(text: &str) -> String {
    text.replace('&', "&amp;").replace('<', "&lt;").replace('>', "&gt;")
}

/// The e-mail: the headline as subject, a plain-text body and the same in HTML.
pub fn email(notice: &Notice, language: Language) -> EmailNotice {
    let (items, link) = parts(notice);
    let subject = headline(notice, language).replace(['\r', '\n'], " ");
    let open = match notice {
        Notice::One(_) => t!(language, "notify-open"),
        Notice::Digest { .. } => t!(language, "notify-digest-open"),
    };
    let footer = t!(language, "notify-email-footer");
    let mut text = String::new();
    let mut html = format!(
        "<!DOCTYPE html>\n<html lang=\"{}\"><head><meta charset=\"utf-8\"><title>{}</title></head>\n<body style=\"font-family: sans-serif; line-height: 1.5\">\n",
        language.tag(),
        html_escaped(&subject)
    );
    let digest = matches!(notice, Notice::Digest { .. });
    if digest {
        text.push_str(&format!("{subject}\n\n"));
        html.push_str(&format!("<h1 style=\"font-size: 1.2em\">{}</h1>\n", html_escaped(&subject)));
    }
    for item in items {
        let told = tell(item, language);
        text.push_str(&format!("{}\n", told.title));
        html.push_str(&format!("<h2 style=\"font-size: 1.1em\">{}</h2>\n<ul>\n", html_escaped(&told.title)));
        for fact in &told.facts {
            text.push_str(&format!("- {fact}\n"));
            html.push_str(&format!("<li>{}</li>\n", html_escaped(fact)));
        }
        html.push_str("</ul>\n");
        if digest {
            text.push_str(&format!("{}\n\n", told.link));
            html.push_str(&format!(
                "<p><a href=\"{}\">{}</a></p>\n",
                html_escaped(&told.link),
                html_escaped(&t!(language, "notify-open"))
            ));
        } else {
            text.push_str(&format!("\n{}\n\n", told.hint));
            html.push_str(&format!("<p>{}</p>\n", html_escaped(&told.hint)));
        }
    }
    text.push_str(&format!(
        "{}\n\n-- \n{footer}\n",
        t!(language, "notify-open-at", open = &open, link = link)
    ));
    html.push_str(&format!(
        "<p><a href=\"{}\" style=\"font-weight: bold\">{}</a></p>\n<hr>\n<p style=\"color: #666; font-size: 0.9em\">{}</p>\n</body></html>\n",
        html_escaped(link),
        html_escaped(&open),
        html_escaped(&footer)
    ));
    EmailNotice { subject, text, html }
}

/// One item as a mrkdwn section's text: the headline in bold, its details, and a link to its page
/// when `linked`.
fn slack_item_text(told: &Told, linked: bool, language: Language) -> String {
    let mut text = format!("*{}*", slack_escaped(&told.title));
    for fact in &told.facts {
        text.push('\n');
        text.push_str(&slack_escaped(fact));
    }
    if linked {
        text.push_str(&format!(
            "\n<{}|{}>",
            slack_escaped(&told.link).replace('|', "%7C"),
            slack_escaped(&t!(language, "notify-open"))
        ));
    }
    cut(&text, SLACK_SECTION_TEXT_MAX)
}

/// A button that opens `url`: it only opens the page (no action is taken from Slack).
fn slack_button(text: &str, url: &str) -> Value {
    json!({
        "type": "actions",
        "elements": [{
            "type": "button",
            "text": {"type": "plain_text", "text": cut(text, SLACK_BUTTON_TEXT_MAX)},
            "url": url,
        }],
    })
}

/// The body of a Slack incoming webhook: `text` (what notifications and old clients show) and
/// Block Kit `blocks` within Slack's limits.
pub fn slack(notice: &Notice, language: Language) -> Value {
    let (items, link) = parts(notice);
    let title = headline(notice, language);
    let mut blocks = vec![
        json!({"type": "header", "text": {"type": "plain_text", "text": cut(&title, SLACK_HEADER_TEXT_MAX)}}),
    ];
    match notice {
        Notice::One(item) => {
            let told = tell(item, language);
            let mut details =
                told.facts.iter().map(|fact| slack_escaped(fact)).collect::<Vec<_>>().join("\n");
            if details.is_empty() {
                details = slack_escaped(&told.title);
            }
            blocks.push(json!({"type": "section", "text": {"type": "mrkdwn", "text": cut(&details, SLACK_SECTION_TEXT_MAX)}}));
            blocks.push(json!({"type": "context", "elements": [{"type": "mrkdwn", "text": cut(&slack_escaped(&told.hint), SLACK_SECTION_TEXT_MAX)}]}));
            blocks.push(slack_button(&t!(language, "notify-open"), link));
        }
        Notice::Digest { .. } => {
            // The header, the items, the "and N more" line and the button.
            let room = SLACK_MAX_BLOCKS - 3;
            let shown = items.len().min(room);
            for item in &items[..shown] {
                let told = tell(item, language);
                blocks.push(json!({"type": "section", "text": {"type": "mrkdwn", "text": slack_item_text(&told, true, language)}}));
            }
            if items.len() > shown {
                let more = t!(language, "notify-digest-more", n = items.len() - shown);
                blocks.push(json!({"type": "context", "elements": [{"type": "mrkdwn", "text": slack_escaped(&more)}]}));
            }
            blocks.push(slack_button(&t!(language, "notify-digest-open"), link));
        }
    }
    json!({"text": cut(&slack_escaped(&title), SLACK_SECTION_TEXT_MAX), "blocks": blocks})
}

/// One item as Adaptive Card elements: its headline, its details as a fact set (or lines), and for
/// a digest a link under it.
fn teams_item(told: &Told, digest: bool, language: Language) -> Vec<Value> {
    let mut elements = vec![json!({
        "type": "TextBlock",
        "text": told.title,
        "weight": "Bolder",
        "size": if digest { "Default" } else { "Medium" },
        "wrap": true,
        "separator": digest,
    })];
    if !told.facts.is_empty() {
        elements.push(json!({
            "type": "TextBlock",
            "text": told.facts.join("\n\n"),
            "wrap": true,
            "spacing": "Small",
        }));
    }
    if digest {
        elements.push(json!({
            "type": "ActionSet",
            "actions": [{"type": "Action.OpenUrl", "title": t!(language, "notify-open"), "url": told.link}],
        }));
    } else {
        elements.push(json!({"type": "TextBlock", "text": told.hint, "wrap": true, "isSubtle": true}));
    }
    elements
}

/// The body of a Teams workflow webhook ("When a Teams webhook request is received"): a message
/// with one Adaptive Card (1.4), whose only action opens the console page.
pub fn teams(notice: &Notice, language: Language) -> Value {
    let (items, link) = parts(notice);
    let title = headline(notice, language);
    let envelope = |body: Vec<Value>, open: String| {
        json!({
            "type": "message",
            "attachments": [{
                "contentType": "application/vnd.microsoft.card.adaptive",
                "contentUrl": null,
                "content": {
                    "$schema": "http://adaptivecards.io/schemas/adaptive-card.json",
                    "type": "AdaptiveCard",
                    "version": "1.4",
                    "msteams": {"width": "Full"},
                    "body": body,
                    "actions": [{"type": "Action.OpenUrl", "title": open, "url": link}],
                },
            }],
        })
    };
    match notice {
        Notice::One(item) => {
            envelope(teams_item(&tell(item, language), false, language), t!(language, "notify-open"))
        }
        Notice::Digest { .. } => {
            let heading = json!({"type": "TextBlock", "text": title, "weight": "Bolder", "size": "Medium", "wrap": true});
            let told: Vec<Vec<Value>> =
                items.iter().map(|item| teams_item(&tell(item, language), true, language)).collect();
            let mut shown = told.len();
            loop {
                let mut body = vec![heading.clone()];
                body.extend(told[..shown].iter().flatten().cloned());
                if shown < told.len() {
                    let more = t!(language, "notify-digest-more", n = told.len() - shown);
                    body.push(json!({"type": "TextBlock", "text": more, "wrap": true, "isSubtle": true}));
                }
                let card = envelope(body, t!(language, "notify-digest-open"));
                if shown == 0 || card.to_string().len() <= TEAMS_MAX_BYTES {
                    return card;
                }
                shown -= 1;
            }
        }
    }
}

/// `text` cut so that LINE counts at most `max` characters in it (LINE counts UTF-16 code units).
fn cut_utf16(text: &str, max: usize) -> String {
    if text.encode_utf16().count() <= max {
        return text.to_owned();
    }
    let mut kept = String::new();
    let mut used = 1; // the ellipsis
    for c in text.chars() {
        used += c.len_utf16();
        if used > max {
            break;
        }
        kept.push(c);
    }
    kept.push('…');
    kept
}

/// One item as lines of a LINE text: its headline, details, what to do and its page.
fn line_item(told: &Told, digest: bool) -> String {
    let mut text = told.title.clone();
    for fact in &told.facts {
        text.push('\n');
        text.push_str(fact);
    }
    if !digest {
        text.push_str(&format!("\n\n{}", told.hint));
    }
    text.push_str(&format!("\n{}", told.link));
    text
}

/// The `messages` of a LINE push: one text message (LINE makes its URLs links) within LINE's
/// limits; a digest lists what fits in it and says how many more wait.
pub fn line(notice: &Notice, language: Language) -> Value {
    let (items, link) = parts(notice);
    let text = match notice {
        Notice::One(item) => cut_utf16(&line_item(&tell(item, language), false), LINE_TEXT_MAX),
        Notice::Digest { .. } => {
            let head = headline(notice, language);
            let open = t!(language, "notify-open-at", open = t!(language, "notify-digest-open"), link = link);
            let mut text = head;
            let mut shown = 0;
            for item in items {
                let entry = line_item(&tell(item, language), true);
                let more = t!(language, "notify-digest-more", n = items.len() - shown - 1);
                let needed = text.encode_utf16().count()
                    + entry.encode_utf16().count()
                    + more.encode_utf16().count()
                    + open.encode_utf16().count()
                    + 6;
                if needed > LINE_TEXT_MAX {
                    break;
                }
                text.push_str("\n\n");
                text.push_str(&entry);
                shown += 1;
            }
            if shown < items.len() {
                text.push_str(&format!(
                    "\n\n{}",
                    t!(language, "notify-digest-more", n = items.len() - shown)
                ));
            }
            text.push_str(&format!("\n\n{open}"));
            cut_utf16(&text, LINE_TEXT_MAX)
        }
    };
    json!([{"type": "text", "text": text}])
}

#[cfg(test)]
mod tests;
