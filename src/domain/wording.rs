//! Plain words about an operation: what it is ("Refund of NT$380 for Headphone case"), how it
//! stands in a sentence a support agent can act on, and one sentence they can tell the customer.
//! The console's order and operation pages and the agents' tools all phrase operations here, so a
//! state reads the same wherever it is shown. Each function takes the reader's language; its words
//! are in `locales/*/wording.ftl`, whole sentences with placeables, so that Chinese orders them its
//! own way.

use crate::t;
use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};

use super::compensation::Compensation;
use super::connection::{After5xx, Capabilities, ProviderKind, Settles, REFUNDS_PROVIDER, SERVICES_PROVIDER};
use super::language::Language;
use super::machine::{CommandKind, State};
use super::money::Money;

/// What an operation is about, as far as words need it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Described<'a> {
    /// The operation's kind: `refund`, `create_aftersale`, `schedule_pickup`, `cancel_aftersale`…
    pub kind: &'a str,
    pub amount: Option<Money>,
    /// The name of the line item it concerns, when known.
    pub item: Option<&'a str>,
    /// The provider it is sent to, by its connection name.
    pub provider: &'a str,
}

/// An operation in words.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Told {
    /// What it is, starting with a capital: "Refund of NT$380 for Headphone case".
    pub what: String,
    /// How it stands and what to do about it.
    pub status: String,
    /// One sentence for the customer.
    pub for_customer: String,
}

/// The provider's name as a support agent reading `language` knows it.
pub fn provider_name(provider: &str, language: Language) -> String {
    match provider {
        REFUNDS_PROVIDER => "Stripe".to_owned(),
        SERVICES_PROVIDER => t!(language, "wording-provider-services"),
        "paypal" => "PayPal".to_owned(),
        "ecpay" => "ECPay".to_owned(),
        "linepay" => "LINE Pay".to_owned(),
        "email" => t!(language, "wording-provider-email"),
        other => capitalised(other),
    }
}

/// How long a key is remembered, in whole hours or days: "24 hours", "31 days", "90 minutes".
pub fn retention_words(retention: chrono::Duration, language: Language) -> String {
    let (minutes, hours) = (retention.num_minutes(), retention.num_hours());
    if minutes % 60 != 0 || hours == 0 {
        t!(language, "wording-retention-minutes", n = minutes)
    } else if hours < 48 || hours % 24 != 0 {
        t!(language, "wording-retention-hours", n = hours)
    } else {
        t!(language, "wording-retention-days", n = hours / 24)
    }
}

/// How an unknown or accepted result is settled at a provider of `kind` that honours
/// `capabilities`, in words: whether it can be asked, whether and how long it remembers a key,
/// what a re-send under the key gets after a server error, and what says an accepted operation's
/// outcome.
pub fn settling(
    capabilities: Capabilities,
    kind: ProviderKind,
    provider: &str,
    language: Language,
) -> String {
    let name = provider_name(provider, language);
    let window = retention_words(capabilities.key_retention, language);
    let asked = match capabilities.settles() {
        Settles::KeyAndLookup => {
            t!(language, "wording-settling-key-and-lookup", provider = &name, window = &window)
        }
        Settles::KeyOnly => t!(language, "wording-settling-key-only", provider = &name, window = &window),
        Settles::LookupOnly if matches!(kind, ProviderKind::Ecpay | ProviderKind::LinePay) => {
            t!(language, "wording-settling-lookup-by-list", provider = &name)
        }
        Settles::LookupOnly => t!(language, "wording-settling-lookup-only", provider = &name),
        Settles::AtMostOnce => t!(language, "wording-settling-at-most-once", provider = &name),
    };
    let after_5xx = match (capabilities.honours_keys(), capabilities.after_5xx) {
        (false, _) => String::new(),
        (true, After5xx::SameKey) => t!(language, "wording-settling-5xx-same-key", provider = &name),
        (true, After5xx::Retry) => t!(language, "wording-settling-5xx-retry", provider = &name),
        (true, After5xx::Unknown) => t!(language, "wording-settling-5xx-unknown", provider = &name),
    };
    let later = match kind {
        ProviderKind::Adyen => t!(language, "wording-settling-adyen"),
        ProviderKind::PayPal => t!(language, "wording-settling-paypal"),
        ProviderKind::Stripe => t!(language, "wording-settling-stripe"),
        ProviderKind::Ecpay => t!(language, "wording-settling-ecpay"),
        ProviderKind::LinePay
        | ProviderKind::Services
        | ProviderKind::Orders
        | ProviderKind::Http
        | ProviderKind::Email
        | ProviderKind::Smtp => String::new(),
    };
    let left = if capabilities.payment_read || !capabilities.outcomes_later {
        String::new()
    } else {
        t!(language, "wording-settling-no-payment-read", provider = &name)
    };
    format!("{}{after_5xx}{later}{left}", capitalised(&asked))
}

/// What an operation of `kind` is, for the agent, with its amount and the line item it concerns
/// where known; in lower case where the language has cases ("refund of NT$380 for Headphone
/// case"), for the sentences that place it after an article.
pub fn noun(kind: &str, amount: Option<Money>, item: Option<&str>, language: Language) -> String {
    let amount = amount.map(|money| language.money(money));
    match (kind, amount, item) {
        ("refund", None, None) => t!(language, "wording-noun-refund"),
        ("refund", Some(amount), None) => t!(language, "wording-noun-refund-amount", amount = amount),
        ("refund", None, Some(item)) => t!(language, "wording-noun-refund-item", item = item),
        ("refund", Some(amount), Some(item)) => {
            t!(language, "wording-noun-refund-amount-item", amount = amount, item = item)
        }
        ("create_aftersale", _, None) => t!(language, "wording-noun-aftersale"),
        ("create_aftersale", _, Some(item)) => t!(language, "wording-noun-aftersale-item", item = item),
        ("schedule_pickup", _, None) => t!(language, "wording-noun-pickup"),
        ("schedule_pickup", _, Some(item)) => t!(language, "wording-noun-pickup-item", item = item),
        ("send_email", _, None) => t!(language, "wording-noun-email"),
        ("send_email", _, Some(item)) => t!(language, "wording-noun-email-item", item = item),
        ("cancel_aftersale", _, None) => t!(language, "wording-noun-cancel-aftersale"),
        ("cancel_aftersale", _, Some(item)) => {
            t!(language, "wording-noun-cancel-aftersale-item", item = item)
        }
        (other, amount, item) => {
            let kind = lowercase_first(&other.replace('_', " "));
            match (amount, item) {
                (None, None) => t!(language, "wording-noun-other", kind = kind),
                (Some(amount), None) => {
                    t!(language, "wording-noun-other-amount", kind = kind, amount = amount)
                }
                (None, Some(item)) => t!(language, "wording-noun-other-item", kind = kind, item = item),
                (Some(amount), Some(item)) => {
                    t!(language, "wording-noun-other-amount-item", kind = kind, amount = amount, item = item)
                }
            }
        }
    }
}

/// The action of a kind: its noun for the agent (see [`noun`]), its verb for "do not … again",
/// and its noun for the customer.
struct Action {
    noun: String,
    verb: String,
    customer_noun: String,
}

fn action(described: &Described, language: Language) -> Action {
    let noun = noun(described.kind, described.amount, described.item, language);
    let amount = described.amount.map(|money| language.money(money));
    let (verb, customer_noun) = match described.kind {
        "refund" => (
            t!(language, "wording-verb-refund"),
            match amount {
                Some(amount) => t!(language, "wording-customer-refund-amount", amount = amount),
                None => t!(language, "wording-customer-refund"),
            },
        ),
        "create_aftersale" => {
            (t!(language, "wording-verb-aftersale"), t!(language, "wording-customer-aftersale"))
        }
        "schedule_pickup" => (t!(language, "wording-verb-pickup"), t!(language, "wording-customer-pickup")),
        "send_email" => (t!(language, "wording-verb-email"), t!(language, "wording-customer-email")),
        "cancel_aftersale" => {
            (t!(language, "wording-verb-cancel-aftersale"), t!(language, "wording-customer-cancel-aftersale"))
        }
        other => (
            t!(language, "wording-verb-other"),
            t!(language, "wording-customer-other", kind = other.replace('_', " ")),
        ),
    };
    Action { noun, verb, customer_noun }
}

/// `text` with its first letter in upper case.
pub fn capitalised(text: &str) -> String {
    let mut letters = text.chars();
    letters.next().map(|first| first.to_uppercase().chain(letters).collect()).unwrap_or_default()
}

/// `text` with its first letter in lower case.
pub fn lowercase_first(text: &str) -> String {
    let mut letters = text.chars();
    letters.next().map(|first| first.to_lowercase().chain(letters).collect()).unwrap_or_default()
}

/// Why a provider failed an operation after accepting it, in words, from the reason it gave
/// (Stripe's `failure_reason`, or `canceled`).
pub fn failure_reason_words(reason: &str, language: Language) -> String {
    match reason {
        "expired_or_canceled_card" => t!(language, "wording-reason-expired-card"),
        "lost_or_stolen_card" => t!(language, "wording-reason-lost-card"),
        "declined" => t!(language, "wording-reason-declined"),
        "insufficient_funds" => t!(language, "wording-reason-insufficient-funds"),
        "charge_for_pending_refund_disputed" => t!(language, "wording-reason-disputed"),
        "merchant_request" => t!(language, "wording-reason-merchant-request"),
        "canceled" => t!(language, "wording-reason-canceled"),
        "unknown" | "" => t!(language, "wording-reason-unknown"),
        other => t!(language, "wording-reason-other", reason = other.replace('_', " ")),
    }
}

/// The operation `described` in `state`, in words; `failure_reason` is the provider's reason when
/// it failed there after accepting it, or, in `needs_review`, after it had reported it succeeded
/// (see [`failure_reason_words`]).
pub fn tell(described: &Described, state: State, failure_reason: Option<&str>, language: Language) -> Told {
    let Action { noun, verb, customer_noun } = action(described, language);
    let provider = provider_name(described.provider, language);
    let refund = described.kind == "refund";
    let checking =
        || t!(language, "wording-checking-customer", customer_noun = &customer_noun, provider = &provider);
    let (status, for_customer) = match state {
        State::Planned => (
            t!(language, "wording-planned-status", noun = &noun, provider = &provider),
            t!(language, "wording-planned-customer", customer_noun = &customer_noun),
        ),
        State::PendingApproval => (
            t!(language, "wording-pending-approval-status", noun = &noun, provider = &provider),
            t!(language, "wording-pending-approval-customer", customer_noun = &customer_noun),
        ),
        State::Approved => (
            t!(language, "wording-approved-status", noun = &noun, provider = &provider),
            t!(language, "wording-approved-customer", customer_noun = &customer_noun),
        ),
        State::Denied => (
            t!(language, "wording-denied-status", noun = &noun, provider = &provider),
            t!(language, "wording-denied-customer", customer_noun = &customer_noun),
        ),
        State::Submitted => (
            t!(language, "wording-submitted-status", noun = &noun, provider = &provider, verb = &verb),
            checking(),
        ),
        State::Accepted if refund => (
            t!(language, "wording-accepted-refund-status", provider = &provider, noun = &noun, verb = &verb),
            t!(language, "wording-accepted-refund-customer", customer_noun = &customer_noun),
        ),
        State::Accepted => (
            t!(language, "wording-accepted-status", provider = &provider, noun = &noun, verb = &verb),
            t!(language, "wording-accepted-customer", customer_noun = &customer_noun),
        ),
        State::Succeeded => (
            t!(language, "wording-succeeded-status", provider = &provider, noun = &noun, verb = &verb),
            match described.kind {
                "refund" => t!(language, "wording-succeeded-refund-customer", customer_noun = &customer_noun),
                "send_email" => {
                    t!(language, "wording-succeeded-email-customer", customer_noun = &customer_noun)
                }
                _ => t!(language, "wording-succeeded-customer", customer_noun = &customer_noun),
            },
        ),
        State::Rejected => match failure_reason {
            Some(reason) => {
                let reason = failure_reason_words(reason, language);
                (
                    t!(
                        language,
                        "wording-failed-status",
                        provider = &provider,
                        noun = &noun,
                        reason = &reason
                    ),
                    t!(language, "wording-failed-customer", customer_noun = &customer_noun, reason = &reason),
                )
            }
            None => (
                t!(language, "wording-rejected-status", provider = &provider, noun = &noun),
                t!(language, "wording-rejected-customer", customer_noun = &customer_noun),
            ),
        },
        State::Unknown => (
            t!(language, "wording-unknown-status", noun = &noun, provider = &provider, verb = &verb),
            checking(),
        ),
        State::NeedsReview => match failure_reason {
            Some(reason) => (
                t!(
                    language,
                    "wording-failed-after-success-status",
                    provider = &provider,
                    noun = &noun,
                    reason = &failure_reason_words(reason, language),
                    verb = &verb
                ),
                if refund {
                    t!(
                        language,
                        "wording-failed-after-success-refund-customer",
                        customer_noun = &customer_noun
                    )
                } else {
                    t!(language, "wording-failed-after-success-customer", customer_noun = &customer_noun)
                },
            ),
            None => (
                t!(language, "wording-needs-review-status", noun = &noun, provider = &provider, verb = &verb),
                checking(),
            ),
        },
        State::Cancelled => (
            t!(language, "wording-cancelled-status", noun = &noun, provider = &provider),
            t!(language, "wording-cancelled-customer", customer_noun = &customer_noun),
        ),
    };
    Told { what: capitalised(&noun), status: capitalised(&status), for_customer: capitalised(&for_customer) }
}

/// The operation `described`, sent to a downstream that takes no idempotency key and cannot be
/// asked what it did, whose answer was lost: nobody can tell whether it happened, it is never sent
/// again by itself, and a person checks.
/// An operation the server tried to send and held back, because its provider could not take it
/// then (a gateway's nightly close, its rate limit, its facts unreadable): nothing left, and it
/// is sent by itself once the provider can take it.
pub fn tell_held(described: &Described, language: Language) -> Told {
    let Action { noun, verb, customer_noun } = action(described, language);
    let provider = provider_name(described.provider, language);
    Told {
        status: capitalised(&t!(
            language,
            "wording-held-status",
            noun = &noun,
            provider = &provider,
            verb = &verb
        )),
        for_customer: capitalised(&t!(language, "wording-held-customer", customer_noun = &customer_noun)),
        what: capitalised(&noun),
    }
}

pub fn tell_unanswerable(described: &Described, language: Language) -> Told {
    let Action { noun, verb, customer_noun } = action(described, language);
    let provider = provider_name(described.provider, language);
    Told {
        status: capitalised(&t!(
            language,
            "wording-unanswerable-status",
            noun = &noun,
            provider = &provider,
            verb = &verb
        )),
        for_customer: capitalised(&t!(
            language,
            "wording-unanswerable-customer",
            customer_noun = &customer_noun
        )),
        what: capitalised(&noun),
    }
}

/// What taking `action` on the operation `described` does, restated for a confirmation step
/// before it is taken; `None` for those that need none ([`needs_confirmation`]). `key_validity` says how long the
/// provider still remembers the operation's key ("23 h left").
pub fn consequence(
    action: CommandKind,
    described: &Described,
    key_validity: &str,
    language: Language,
) -> Option<String> {
    if !needs_confirmation(action) {
        return None;
    }
    let noun = noun(described.kind, described.amount, described.item, language);
    let provider = provider_name(described.provider, language);
    let words = match action {
        CommandKind::ResendSameKey => t!(
            language,
            "wording-consequence-resend",
            noun = &noun,
            provider = &provider,
            validity = key_validity
        ),
        CommandKind::Cancel => t!(language, "wording-consequence-cancel", noun = &noun),
        CommandKind::MarkNotHappened => {
            t!(language, "wording-consequence-mark-not-happened", noun = &noun, provider = &provider)
        }
        _ => return None,
    };
    Some(capitalised(&words))
}

/// Whether a person must confirm `action` before it is taken: it sends again, stops an operation,
/// or records on a person's word that nothing happened. The server refuses these unconfirmed.
pub fn needs_confirmation(action: CommandKind) -> bool {
    match action {
        CommandKind::ResendSameKey | CommandKind::Cancel | CommandKind::MarkNotHappened => true,
        CommandKind::ConfirmFound
        | CommandKind::MarkSucceeded
        | CommandKind::Deny
        | CommandKind::Approve
        | CommandKind::Escalate
        | CommandKind::ExpireApproval
        | CommandKind::BeginAttempt
        | CommandKind::RecordOutcome
        | CommandKind::MarkUnknown => false,
    }
}

/// What recording `compensation` of the operation `described` does, restated for a confirmation
/// step; `refund` is the amount a refund of its line item would return, when known.
pub fn compensation_consequence(
    compensation: Compensation,
    described: &Described,
    refund: Option<Money>,
    language: Language,
) -> String {
    let item = described.item;
    let words = match compensation {
        Compensation::CancelTicket => t!(
            language,
            "wording-compensation-cancel-ticket",
            noun = noun("create_aftersale", None, item, language),
            provider = provider_name(SERVICES_PROVIDER, language)
        ),
        Compensation::RefundLineItem => t!(
            language,
            "wording-compensation-refund",
            noun = noun("refund", refund, item, language),
            provider = provider_name(REFUNDS_PROVIDER, language)
        ),
        Compensation::ReschedulePickup => t!(
            language,
            "wording-compensation-reschedule",
            noun = noun("schedule_pickup", None, item, language),
            provider = provider_name(SERVICES_PROVIDER, language)
        ),
    };
    capitalised(&words)
}

/// What making the operation `described` again after it failed at the provider does, restated for
/// a confirmation step.
pub fn retry_consequence(described: &Described, language: Language) -> String {
    capitalised(&t!(
        language,
        "wording-retry",
        noun = noun(described.kind, described.amount, described.item, language),
        provider = provider_name(described.provider, language)
    ))
}

/// How long ago `at` was at `now`, as people reading `language` say it: `just now`, `3 min ago`,
/// `5 h ago`, `2 d ago`, then the date; a time to come reads `in 3 min`.
pub fn ago(at: DateTime<Utc>, now: DateTime<Utc>, language: Language) -> String {
    let seconds = (now - at).num_seconds();
    let (span, future) = (seconds.unsigned_abs(), seconds < 0);
    match (span, future) {
        (0..=44, _) => t!(language, "age-just-now"),
        (45..=3_599, false) => t!(language, "age-minutes-ago", n = span.div_ceil(60)),
        (45..=3_599, true) => t!(language, "age-in-minutes", n = span.div_ceil(60)),
        (3_600..=86_399, false) => t!(language, "age-hours-ago", n = span / 3_600),
        (3_600..=86_399, true) => t!(language, "age-in-hours", n = span / 3_600),
        (86_400..=604_799, false) => t!(language, "age-days-ago", n = span / 86_400),
        (86_400..=604_799, true) => t!(language, "age-in-days", n = span / 86_400),
        _ => at.format(&t!(language, "date-format")).to_string(),
    }
}

/// A whole time in UTC as people reading `language` write it: `2026-11-30 14:05:09 UTC`.
pub fn utc_time(at: DateTime<Utc>, language: Language) -> String {
    t!(language, "time-utc", time = at.format(&t!(language, "time-format")).to_string())
}

/// How one send ended, in words (`outcome` as attempts record it: `succeeded`, `open`,
/// `no_report`, or a failure class such as `timeout`).
pub fn attempt_outcome(outcome: &str, language: Language) -> String {
    match outcome {
        "succeeded" => t!(language, "wording-outcome-succeeded"),
        "open" => t!(language, "wording-outcome-open"),
        "no_report" => t!(language, "wording-outcome-no-report"),
        "timeout" => t!(language, "wording-outcome-timeout"),
        "server_error" => t!(language, "wording-outcome-server-error"),
        "not_sent" => t!(language, "wording-outcome-not-sent"),
        "invalid_params" => t!(language, "wording-outcome-invalid-params"),
        "forbidden" => t!(language, "wording-outcome-forbidden"),
        "business_rejection" => t!(language, "wording-outcome-business-rejection"),
        "accepted" => t!(language, "wording-outcome-accepted"),
        "failed_at_provider" => t!(language, "wording-outcome-failed-at-provider"),
        "transient_unavailable" => t!(language, "wording-outcome-transient-unavailable"),
        other => capitalised(&other.replace('_', " ")),
    }
}

/// Whether the op id `op_id` concerns line item `line_item` of order `order`: the tools and the
/// compensations name such operations `<action>-<order>-<line item>`, optionally followed by
/// `-<more>` (a pickup's date), and a compensation prefixes the original's id (`cancel-…`).
pub fn concerns_line_item(op_id: &str, order: &str, line_item: &str) -> bool {
    let needle = format!("-{order}-{line_item}");
    op_id.match_indices(&needle).any(|(at, _)| {
        let rest = &op_id[at + needle.len()..];
        rest.is_empty() || rest.starts_with('-')
    })
}

#[cfg(test)]
mod tests;
