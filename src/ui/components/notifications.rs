//! What the two notifications pages share: the words for events, channels, stages and delivery
//! statuses, a rule's parts in words, and the table of deliveries (the admin's log of the tenant's,
//! a person's own), each status a badge with words.

use chrono::Duration;
use leptos::prelude::*;

use crate::console::notifications::{NotifyDeliveryView, RecipientView, ResendNotification};
use crate::domain::language::Language;
use crate::domain::notification::{
    span_text, Audience, Channel, NotifyEvent, NotifyRule, Stage, MOST_REMINDERS,
};
use crate::t;
use crate::ui::components::widgets::Time;

pub fn event_words(event: NotifyEvent, language: Language) -> String {
    match event {
        NotifyEvent::ApprovalRequested => t!(language, "notify-event-approval-requested"),
        NotifyEvent::NeedsReview => t!(language, "notify-event-needs-review"),
        NotifyEvent::UnknownTooLong => t!(language, "notify-event-unknown-too-long"),
        NotifyEvent::AcceptedTooLong => t!(language, "notify-event-accepted-too-long"),
        NotifyEvent::BulkRunFinished => t!(language, "notify-event-bulk-run-finished"),
        NotifyEvent::ConnectionFailing => t!(language, "notify-event-connection-failing"),
        NotifyEvent::ArchiveUntrusted => t!(language, "notify-event-archive-untrusted"),
        NotifyEvent::Mentioned => t!(language, "notify-event-mentioned"),
        NotifyEvent::Digest => t!(language, "notify-event-digest"),
    }
}

pub fn channel_words(channel: Channel, language: Language) -> String {
    match channel {
        Channel::Email => t!(language, "notify-channel-email"),
        Channel::Slack => t!(language, "notify-channel-slack"),
        Channel::Teams => t!(language, "notify-channel-teams"),
        Channel::Line => t!(language, "notify-channel-line"),
    }
}

pub fn stage_words(stage: Stage, language: Language) -> String {
    match stage {
        Stage::First => t!(language, "notify-stage-first"),
        Stage::Reminder(n) => t!(language, "notify-stage-reminder", n = u32::from(n)),
        Stage::Escalation => t!(language, "notify-stage-escalation"),
    }
}

/// A delivery's status in words, and the badge colour that goes with it.
pub fn status_words(status: &str, language: Language) -> (String, &'static str) {
    match status {
        "pending" => (t!(language, "notify-status-pending"), "badge state-submitted"),
        "delivered" => (t!(language, "notify-status-delivered"), "badge state-succeeded"),
        "failed" => (t!(language, "notify-status-failed"), "badge state-rejected"),
        "unknown" => (t!(language, "notify-status-unknown"), "badge state-unknown"),
        "skipped" => (t!(language, "notify-status-skipped"), "badge state-cancelled"),
        other => (other.to_owned(), "badge state-planned"),
    }
}

/// Who an audience is, in words.
pub fn audience_words(audience: &Audience, language: Language) -> String {
    match audience {
        Audience::Role(role) => t!(language, "notify-audience-role", role = role.label_in(language)),
        Audience::People(names) => names.join(", "),
        Audience::Destination(name) => t!(language, "notify-audience-destination", name = name.as_str()),
    }
}

/// When a rule's first message goes, in words: a digest's time of day, a threshold the operation
/// must stay past, or a wait after the event (at once for none).
pub fn first_message_words(rule: &NotifyRule, language: Language) -> String {
    let span = span_text(rule.after);
    match rule.event {
        NotifyEvent::Digest => {
            let minutes = rule.after.num_minutes();
            let time = format!("{:02}:{:02}", minutes / 60, minutes % 60);
            t!(language, "notify-when-daily", time = time)
        }
        NotifyEvent::UnknownTooLong | NotifyEvent::AcceptedTooLong => {
            t!(language, "notify-when-waited", span = span)
        }
        _ if rule.after == Duration::zero() => t!(language, "notify-when-at-once"),
        _ => t!(language, "notify-when-after", span = span),
    }
}

pub fn reminder_words(rule: &NotifyRule, language: Language) -> String {
    match rule.remind_every {
        Some(every) => {
            t!(language, "notify-remind-every", span = span_text(every), most = u32::from(MOST_REMINDERS))
        }
        None => t!(language, "notify-none"),
    }
}

pub fn escalation_words(rule: &NotifyRule, language: Language) -> String {
    match &rule.escalation {
        Some((after, to)) => {
            t!(language, "notify-escalate", span = span_text(*after), audience = audience_words(to, language))
        }
        None => t!(language, "notify-none"),
    }
}

fn recipient_words(recipient: &RecipientView, language: Language) -> String {
    match recipient {
        RecipientView::Person(name) => name.clone(),
        RecipientView::FormerPerson => t!(language, "notify-recipient-gone"),
        RecipientView::Destination(name) => t!(language, "notify-audience-destination", name = name.as_str()),
    }
}

/// The deliveries, newest first: when, what, to whom, on which channel, where each stands, and
/// (with `resend`) a "send again" for those that failed or may not have arrived.
#[component]
pub fn DeliveryTable(
    deliveries: Vec<NotifyDeliveryView>,
    language: Language,
    /// The admin's resend, with the session's CSRF token; `None` on a person's own page.
    resend: Option<(ServerAction<ResendNotification>, String)>,
    /// The id of the element a resend's answer shows in.
    answer_to: &'static str,
    caption: String,
) -> impl IntoView {
    let labels = [
        t!(language, "notify-log-when"),
        t!(language, "notify-log-event"),
        t!(language, "notify-log-stage"),
        t!(language, "notify-log-recipient"),
        t!(language, "notify-log-channel"),
        t!(language, "notify-log-status"),
        t!(language, "notify-log-attempts"),
        t!(language, "notify-log-last-error"),
    ];
    let actions = resend.is_some().then(|| t!(language, "notify-log-actions"));
    let [when, event, stage, recipient, channel, status, attempts, last_error] = labels.clone();
    view! {
        <div class="table-wrap">
        <table class="table" data-testid="notify-deliveries">
            <caption class="visually-hidden">{caption}</caption>
            <thead><tr>
                {labels.into_iter().map(|label| view! { <th scope="col">{label}</th> }).collect_view()}
                {actions.clone().map(|label| view! { <th scope="col">{label}</th> })}
            </tr></thead>
            <tbody>
                {deliveries.into_iter().map(|delivery| {
                    let (status_text, badge) = status_words(&delivery.status, language);
                    let may_resend = delivery.may_resend();
                    let confirm = (delivery.status == "unknown").then(|| t!(language, "notify-resend-unknown-consequence"));
                    let asks_first = confirm.is_some();
                    let id = delivery.id.clone();
                    let resend_cell = resend.clone().zip(actions.clone()).map(|((action, csrf), label)| view! {
                        <td data-label=label>
                            {may_resend.then(|| view! {
                                <ActionForm action attr:class="inline-form" attr:data-answer-to=answer_to
                                    attr:data-confirm=confirm>
                                    <input type="hidden" name="csrf" value=csrf/>
                                    <input type="hidden" name="id" value=id/>
                                    {asks_first.then(|| view! { <input type="hidden" name="confirmed" value=""/> })}
                                    <button type="submit" class="button button-quiet">{t!(language, "notify-resend")}</button>
                                </ActionForm>
                            })}
                        </td>
                    });
                    view! {
                        <tr data-status=delivery.status.clone() data-testid="notify-delivery">
                            <td data-label=when.clone()><Time at=delivery.created_at/></td>
                            <td data-label=event.clone()>{event_words(delivery.event, language)}<br/><span class="muted small">{delivery.subject.clone()}</span></td>
                            <td data-label=stage.clone()>{stage_words(delivery.stage, language)}</td>
                            <td data-label=recipient.clone()>{recipient_words(&delivery.recipient, language)}</td>
                            <td data-label=channel.clone()>{channel_words(delivery.channel, language)}</td>
                            <td data-label=status.clone()><span class=badge data-status=delivery.status.clone()>{status_text}</span></td>
                            <td data-label=attempts.clone()>{delivery.attempts}</td>
                            <td data-label=last_error.clone()>{delivery.last_error.clone().unwrap_or_default()}</td>
                            {resend_cell}
                        </tr>
                    }
                    .into_any()
                }).collect_view()}
            </tbody>
        </table>
        </div>
    }
}
