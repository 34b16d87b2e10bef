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
        ProviderKind::Services
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
fn noun(kind: &str, amount: Option<Money>, item: Option<&str>, language: Language) -> String {
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
mod tests {
    use super::*;
    use crate::domain::failure::FailureClass;
    use crate::domain::money::Currency;

    #[test]
    fn each_provider_is_said_to_settle_by_its_own_means() {
        let adyen = settling(ProviderKind::Adyen.capabilities(), ProviderKind::Adyen, "adyen", Language::En);
        assert!(adyen.starts_with("Adyen cannot be asked about it"), "{adyen}");
        assert!(adyen.contains("remembers a key 31 days") && adyen.contains("REFUND webhook"), "{adyen}");
        assert!(adyen.contains("from the shop's order and this ledger's refunds"), "{adyen}");
        let paypal =
            settling(ProviderKind::PayPal.capabilities(), ProviderKind::PayPal, "paypal", Language::En);
        assert!(paypal.starts_with("A lost answer is found by asking PayPal"), "{paypal}");
        assert!(paypal.contains("PayPal remembers a key 45 days"), "{paypal}");
        assert!(!paypal.contains("shop's order"), "PayPal's capture is read: {paypal}");
        assert!(
            paypal.contains("After a server error (5xx), PayPal runs a re-send under the same key again"),
            "{paypal}"
        );
        assert!(adyen.contains("Whether Adyen runs a re-send under the same key again"), "{adyen}");
        let stripe =
            settling(ProviderKind::Stripe.capabilities(), ProviderKind::Stripe, "stripe", Language::En);
        assert!(stripe.contains("Stripe remembers a key 24 hours"), "{stripe}");
        assert!(
            stripe.contains("Stripe answers a re-send under the same key with that error again"),
            "{stripe}"
        );
        let keyless = Capabilities { key_retention: chrono::Duration::zero(), ..Capabilities::NOTHING };
        let helpdesk =
            settling(Capabilities { lookup: true, ..keyless }, ProviderKind::Http, "helpdesk", Language::En);
        assert!(
            helpdesk.starts_with("Helpdesk takes no idempotency key, so nothing is ever sent to it twice"),
            "{helpdesk}"
        );
        assert!(helpdesk.contains("a lookup that finds nothing goes to a person"), "{helpdesk}");
        let email = settling(ProviderKind::Email.capabilities(), ProviderKind::Email, "email", Language::En);
        assert!(email.starts_with("The email service cannot be asked about it"), "{email}");
        let mailer = settling(keyless, ProviderKind::Http, "mailer", Language::En);
        assert!(
            mailer.contains("it is sent at most once, and a lost answer goes straight to a person"),
            "{mailer}"
        );
        assert!(
            !mailer.contains("5xx") && !helpdesk.contains("5xx"),
            "without a key, no re-send to speak of"
        );
        assert_eq!(retention_words(chrono::Duration::days(45), Language::En), "45 days");
        assert_eq!(retention_words(chrono::Duration::hours(36), Language::En), "36 hours");
        assert_eq!(retention_words(chrono::Duration::minutes(90), Language::En), "90 minutes");
    }

    #[test]
    fn an_email_whose_answer_was_lost_where_nothing_can_be_asked_is_told_so() {
        let email = Described { kind: "send_email", amount: None, item: None, provider: "email" };
        let told = tell_unanswerable(&email, Language::En);
        assert_eq!(told.what, "Email to the customer");
        assert!(
            told.status.starts_with(
                "Email to the customer was handed to the email service, which cannot recognise a repeat"
            ),
            "{}",
            told.status
        );
        assert!(
            told.status.contains("nobody can tell whether it arrived")
                && told.status.contains("A person will check"),
            "{}",
            told.status
        );
        assert!(told.for_customer.starts_with("If our email has not reached you"), "{}", told.for_customer);
    }

    fn refund(state: State) -> Told {
        let amount = Some(Money::new(38_000, Currency::parse("TWD").unwrap()));
        tell(
            &Described { kind: "refund", amount, item: Some("Headphone case"), provider: "stripe" },
            state,
            None,
            Language::En,
        )
    }

    #[test]
    fn an_unknown_refund_says_what_was_sent_that_it_is_being_checked_and_not_to_refund_again() {
        let told = refund(State::Unknown);
        assert_eq!(told.what, "Refund of NT$380 for Headphone case");
        assert_eq!(
            told.status,
            "Refund of NT$380 for Headphone case was sent to Stripe, which did not answer in time; \
             we are checking whether it happened. Do not refund it again."
        );
        assert!(told.for_customer.contains("do not ask for it again"));
        assert!(told.for_customer.contains("your refund of NT$380"));
    }

    #[test]
    fn every_state_in_doubt_warns_against_sending_again_and_no_settled_state_promises_checking() {
        for state in State::ALL {
            let told = refund(state);
            assert_eq!(
                told.status.contains("Do not refund it again"),
                state.is_uncertain(),
                "{state:?}: {}",
                told.status
            );
            assert_eq!(
                told.for_customer.contains("do not ask for it again"),
                state.is_uncertain(),
                "{state:?}: {}",
                told.for_customer
            );
        }
    }

    #[test]
    fn an_accepted_refund_is_never_told_as_done_and_a_failed_one_says_why_and_that_nothing_moved() {
        let accepted = refund(State::Accepted);
        assert_eq!(
            accepted.status,
            "Stripe accepted the refund of NT$380 for Headphone case; the bank has not confirmed it yet. Do not refund it again."
        );
        assert!(!accepted.for_customer.contains("has been issued"), "{}", accepted.for_customer);
        assert!(accepted.for_customer.contains("being processed"));

        let amount = Some(Money::new(38_000, Currency::parse("TWD").unwrap()));
        let described =
            Described { kind: "refund", amount, item: Some("Headphone case"), provider: "stripe" };
        let failed = tell(&described, State::Rejected, Some("expired_or_canceled_card"), Language::En);
        assert_eq!(
            failed.status,
            "Stripe accepted the refund of NT$380 for Headphone case, then it failed there: the card it was going back to has expired or was cancelled. Nothing moved; it can be made again on purpose."
        );
        assert!(failed.for_customer.starts_with("We could not complete your refund of NT$380: the card"));
        assert_ne!(failed.status, refund(State::Rejected).status);
        assert_eq!(
            failure_reason_words("new_reason", Language::En),
            "for a reason the provider calls new reason"
        );
    }

    #[test]
    fn a_refund_the_provider_failed_after_it_succeeded_is_told_so_in_each_language() {
        let amount = Some(Money::new(38_000, Currency::parse("TWD").unwrap()));
        let told = |language, item| {
            let described = Described { kind: "refund", amount, item: Some(item), provider: "adyen" };
            tell(&described, State::NeedsReview, Some("declined"), language)
        };
        let english = told(Language::En, "Headphone case");
        assert_eq!(
            english.status,
            "Adyen confirmed the refund of NT$380 for Headphone case, then reported that it failed after all: \
             the customer's bank declined it. A person is checking whether anything moved and will settle it. \
             Do not refund it again."
        );
        assert_eq!(
            english.for_customer,
            "Your refund of NT$380 was reversed by the payment network after it was issued; a colleague is \
             checking it and will contact you."
        );
        assert_ne!(english.status, refund(State::NeedsReview).status);
        let taiwan = told(Language::ZhTw, "耳機保護殼");
        assert_eq!(
            taiwan.status,
            "Adyen 曾確認耳機保護殼的 NT$380 退款完成，之後卻回報失敗：銀行拒絕了這筆交易。目前由專人確認實際結果並處理。請勿再次退款。"
        );
        assert_eq!(
            taiwan.for_customer,
            "您的 NT$380 退款在完成後被支付網路退回；我們的同仁正在確認，會再與您聯繫。"
        );
        let mainland = told(Language::ZhCn, "耳机保护壳");
        assert_eq!(
            mainland.status,
            "Adyen 曾确认耳机保护壳的 NT$380 退款完成，之后却报告失败：银行拒绝了这笔交易。目前由专人核实实际结果并处理。请勿再次退款。"
        );
        assert_eq!(
            mainland.for_customer,
            "您的 NT$380 退款在完成后被支付网络退回；我们的同事正在核实，会再与您联系。"
        );
        let ticket = Described { kind: "create_aftersale", amount: None, item: None, provider: "sandbox" };
        let ticket = tell(&ticket, State::NeedsReview, Some("canceled"), Language::En);
        assert!(
            ticket
                .for_customer
                .ends_with("did not go through after all; a colleague is checking it and will contact you."),
            "{}",
            ticket.for_customer
        );
    }

    #[test]
    fn each_state_has_its_own_words() {
        let sentences: std::collections::BTreeSet<String> =
            State::ALL.iter().map(|state| refund(*state).status).collect();
        assert_eq!(sentences.len(), State::ALL.len());
    }

    #[test]
    fn kinds_and_providers_read_as_a_person_says_them() {
        let ticket = tell(
            &Described {
                kind: "create_aftersale",
                amount: None,
                item: Some("Lamp shade"),
                provider: "sandbox",
            },
            State::Rejected,
            None,
            Language::En,
        );
        assert_eq!(
            ticket.status,
            "The after-sale service declined the after-sale ticket for Lamp shade; nothing was done."
        );
        let custom = tell(
            &Described { kind: "issue_coupon", amount: None, item: None, provider: "loyalty" },
            State::Succeeded,
            None,
            Language::En,
        );
        assert_eq!(custom.status, "Loyalty confirmed the issue coupon. It is done; do not send it again.");
        let email = tell(
            &Described { kind: "send_email", amount: None, item: None, provider: "email" },
            State::Succeeded,
            None,
            Language::En,
        );
        assert_eq!(
            email.status,
            "The email service confirmed the email to the customer. It is done; do not send it again."
        );
        assert_eq!(email.for_customer, "Our email has been sent.");
    }

    #[test]
    fn actions_that_change_the_record_or_send_again_are_restated_and_safe_ones_are_not() {
        let amount = Some(Money::new(38_000, Currency::parse("TWD").unwrap()));
        let described =
            Described { kind: "refund", amount, item: Some("Headphone case"), provider: "stripe" };
        let resend = consequence(CommandKind::ResendSameKey, &described, "23 h left", Language::En).unwrap();
        assert!(
            resend.starts_with("The refund of NT$380 for Headphone case will be sent to Stripe again"),
            "{resend}"
        );
        assert!(resend.contains("23 h left"));
        for risky in [CommandKind::Cancel, CommandKind::MarkNotHappened] {
            assert!(
                consequence(risky, &described, "", Language::En).unwrap().contains("NT$380"),
                "{risky:?}"
            );
        }
        for safe in [CommandKind::ConfirmFound, CommandKind::Approve, CommandKind::Escalate] {
            assert_eq!(consequence(safe, &described, "", Language::En), None, "{safe:?}");
        }
        for kind in CommandKind::ALL {
            assert_eq!(
                consequence(kind, &described, "", Language::En).is_some(),
                needs_confirmation(kind),
                "{kind:?}"
            );
        }
        let refund = compensation_consequence(
            Compensation::RefundLineItem,
            &Described {
                kind: "create_aftersale",
                amount: None,
                item: Some("Lamp shade"),
                provider: "sandbox",
            },
            Some(Money::new(5_000, Currency::parse("CNY").unwrap())),
            Language::En,
        );
        assert!(
            refund.starts_with("A refund of CNY 50.00 for Lamp shade will be sent to Stripe"),
            "{refund}"
        );
    }

    #[test]
    fn ages_read_as_people_say_them_in_each_language() {
        let now = DateTime::parse_from_rfc3339("2026-12-02T12:00:00Z").unwrap().with_timezone(&Utc);
        let before = |seconds: i64| now - chrono::Duration::seconds(seconds);
        let ages = |language| {
            [
                ago(before(10), now, language),
                ago(before(170), now, language),
                ago(before(5 * 3_600 + 100), now, language),
                ago(before(2 * 86_400), now, language),
                ago(before(30 * 86_400), now, language),
                ago(before(-600), now, language),
            ]
        };
        assert_eq!(
            ages(Language::En),
            ["just now", "3 min ago", "5 h ago", "2 d ago", "2026-11-02", "in 10 min"]
        );
        assert_eq!(
            ages(Language::ZhTw),
            ["剛剛", "3 分鐘前", "5 小時前", "2 天前", "2026/11/02", "10 分鐘後"]
        );
        assert_eq!(
            ages(Language::ZhCn),
            ["刚刚", "3 分钟前", "5 小时前", "2 天前", "2026-11-02", "10 分钟后"]
        );
    }

    #[test]
    fn attempt_outcomes_read_as_words_and_say_when_it_may_have_happened() {
        assert_eq!(
            attempt_outcome("no_report", Language::En),
            "No outcome was reported: it may have happened"
        );
        assert!(attempt_outcome("timeout", Language::En).ends_with("it may have happened"));
        assert_eq!(attempt_outcome("something_new", Language::En), "Something new");
    }

    /// `text` without the values the code placed in it (names, amounts, a kind's words), so that
    /// what is left is the message's own words.
    fn own_words(text: &str, values: &[&str]) -> String {
        let mut values = values.to_vec();
        values.sort_by_key(|value| std::cmp::Reverse(value.len()));
        values.into_iter().fold(text.to_owned(), |text, value| text.replace(value, ""))
    }

    /// Asserts that `text`, in a Chinese language, is written and says no English of its own.
    fn chinese(text: &str, values: &[&str], what: &str) {
        assert!(!text.trim().is_empty(), "{what}: empty");
        assert!(!text.contains("wording-"), "{what}: a key, not words: {text}");
        // The glossary keeps "ID" in 操作 ID and 外部 ID.
        let own = own_words(text, values).replace("ID", "");
        assert!(
            !own.chars().any(|c| c.is_ascii_alphabetic()),
            "{what}: English left in {text:?} (after the values: {own:?})"
        );
    }

    /// The kinds the console has words for, and one it has not, each as it is usually described.
    fn kinds(item: &'static str) -> Vec<Described<'static>> {
        let amount = Some(Money::new(38_000, Currency::parse("TWD").unwrap()));
        vec![
            Described { kind: "refund", amount, item: Some(item), provider: "stripe" },
            Described { kind: "create_aftersale", amount: None, item: Some(item), provider: "sandbox" },
            Described { kind: "schedule_pickup", amount: None, item: Some(item), provider: "sandbox" },
            Described { kind: "send_email", amount: None, item: None, provider: "email" },
            Described { kind: "cancel_aftersale", amount: None, item: Some(item), provider: "sandbox" },
            Described { kind: "issue_coupon", amount, item: None, provider: "loyalty" },
        ]
    }

    /// What the code may place in a sentence about `described`: its item, amount, provider and
    /// kind's words.
    fn values(described: &Described, language: Language) -> Vec<String> {
        let mut values = vec![provider_name(described.provider, language), described.kind.replace('_', " ")];
        values.push(capitalised(&values[1]));
        values.extend(described.item.map(str::to_owned));
        values.extend(described.amount.map(|money| language.money(money)));
        values
    }

    #[test]
    fn every_state_of_every_kind_is_told_in_chinese_without_english_of_its_own() {
        for (language, item) in [(Language::ZhTw, "耳機保護殼"), (Language::ZhCn, "耳机保护壳")] {
            for described in kinds(item) {
                let values = values(&described, language);
                let values: Vec<&str> = values.iter().map(String::as_str).collect();
                let mut told: Vec<(String, Told)> = State::ALL
                    .iter()
                    .map(|state| (format!("{state:?}"), tell(&described, *state, None, language)))
                    .collect();
                told.push((
                    "failed at the provider".to_owned(),
                    tell(&described, State::Rejected, Some("expired_or_canceled_card"), language),
                ));
                told.push((
                    "failed after success".to_owned(),
                    tell(&described, State::NeedsReview, Some("expired_or_canceled_card"), language),
                ));
                told.push(("unanswerable".to_owned(), tell_unanswerable(&described, language)));
                for (case, told) in &told {
                    let what = format!("{language} {} {case}", described.kind);
                    chinese(&told.what, &values, &what);
                    chinese(&told.status, &values, &what);
                    chinese(&told.for_customer, &values, &what);
                }
                let statuses: std::collections::BTreeSet<&String> =
                    told.iter().map(|(_, told)| &told.status).collect();
                assert_eq!(
                    statuses.len(),
                    told.len(),
                    "{language} {}: each state has its own words",
                    described.kind
                );
                for action in [CommandKind::ResendSameKey, CommandKind::Cancel, CommandKind::MarkNotHappened]
                {
                    let validity = t!(language, "age-in-hours", n = 23);
                    let mut with_validity = values.clone();
                    with_validity.push(&validity);
                    let words = consequence(action, &described, &validity, language).unwrap();
                    chinese(&words, &with_validity, &format!("{language} {} {action:?}", described.kind));
                }
                chinese(&retry_consequence(&described, language), &values, &format!("{language} retry"));
                let refund = Some(Money::new(5_000, Currency::parse("TWD").unwrap()));
                let refund_words = language.money(refund.unwrap());
                let mut with_refund = values.clone();
                with_refund.extend([refund_words.as_str(), "Stripe"]);
                for compensation in Compensation::ALL {
                    let words = compensation_consequence(compensation, &described, refund, language);
                    chinese(&words, &with_refund, &format!("{language} {compensation:?}"));
                }
            }
        }
    }

    #[test]
    fn traditional_and_simplified_chinese_tell_each_state_in_their_own_script() {
        for described in kinds("Lamp shade") {
            for state in State::ALL {
                let taiwan = tell(&described, state, None, Language::ZhTw);
                let mainland = tell(&described, state, None, Language::ZhCn);
                assert_ne!(taiwan.status, mainland.status, "{} {state:?}", described.kind);
                // A short customer sentence may share every character ("您的 NT$380 退款已取消。").
                let shared = matches!(state, State::Cancelled)
                    || (state == State::Succeeded
                        && described.kind != "refund"
                        && described.kind != "send_email");
                if !shared {
                    assert_ne!(taiwan.for_customer, mainland.for_customer, "{} {state:?}", described.kind);
                }
            }
        }
        let refund = &kinds("Lamp shade")[0];
        for state in State::ALL {
            assert_ne!(
                tell(refund, state, None, Language::ZhTw).what,
                tell(refund, state, None, Language::En).what,
                "{state:?}"
            );
        }
    }

    #[test]
    fn a_refund_that_succeeded_tells_the_customer_so_in_each_language() {
        let amount = Some(Money::new(38_000, Currency::parse("TWD").unwrap()));
        let told = |language, item| {
            let described = Described { kind: "refund", amount, item: Some(item), provider: "stripe" };
            tell(&described, State::Succeeded, None, language)
        };
        let taiwan = told(Language::ZhTw, "耳機保護殼");
        assert!(
            taiwan.for_customer.contains("NT$380") && taiwan.for_customer.contains("退款"),
            "{}",
            taiwan.for_customer
        );
        assert_eq!(taiwan.for_customer, "您的 NT$380 退款已完成，款項可能需要幾天才會出現在您的銀行帳戶。");
        assert_eq!(taiwan.what, "耳機保護殼的 NT$380 退款");
        assert_eq!(
            taiwan.status,
            "Stripe 已確認耳機保護殼的 NT$380 退款完成。這項操作已經完成，請勿再次退款。"
        );
        let mainland = told(Language::ZhCn, "耳机保护壳");
        assert!(
            mainland.for_customer.contains("退款") && mainland.for_customer.contains("NT$380"),
            "{}",
            mainland.for_customer
        );
        assert_eq!(mainland.for_customer, "您的 NT$380 退款已完成，款项可能需要几天才会到达您的银行账户。");
        let english = told(Language::En, "耳機保護殼");
        assert_eq!(english.what, "Refund of NT$380 for 耳機保護殼");
        assert_eq!(
            english.status,
            "Stripe confirmed the refund of NT$380 for 耳機保護殼. It is done; do not refund it again."
        );
        assert_eq!(
            english.for_customer,
            "Your refund of NT$380 has been issued; your bank may take a few days to show it."
        );
    }

    #[test]
    fn the_words_around_operations_read_in_chinese_too() {
        for language in [Language::ZhTw, Language::ZhCn] {
            for outcome in [
                "succeeded",
                "open",
                "no_report",
                "timeout",
                "server_error",
                "not_sent",
                "invalid_params",
                "forbidden",
                "business_rejection",
                "accepted",
                "failed_at_provider",
                "transient_unavailable",
            ] {
                chinese(&attempt_outcome(outcome, language), &[], outcome);
            }
            for reason in [
                "expired_or_canceled_card",
                "lost_or_stolen_card",
                "declined",
                "insufficient_funds",
                "charge_for_pending_refund_disputed",
                "merchant_request",
                "canceled",
                "unknown",
            ] {
                chinese(&failure_reason_words(reason, language), &[], reason);
            }
            chinese(&failure_reason_words("new_reason", language), &["new reason"], "new_reason");
            for compensation in Compensation::ALL {
                chinese(&compensation.label_in(language), &[], compensation.as_str());
            }
            for class in [
                FailureClass::NotSent,
                FailureClass::InvalidParams,
                FailureClass::Forbidden,
                FailureClass::BusinessRejection,
                FailureClass::FailedAtProvider,
                FailureClass::TransientUnavailable { retry_after_s: None },
                FailureClass::Timeout,
                FailureClass::ServerError,
            ] {
                chinese(&class.explanation_in(language), &[], class.as_str());
                assert_eq!(class.explanation_in(Language::En), class.explanation());
            }
            for kind in [ProviderKind::Adyen, ProviderKind::PayPal, ProviderKind::Stripe, ProviderKind::Email]
            {
                let words = settling(kind.capabilities(), kind, kind.as_str(), language);
                let values = ["Adyen", "received", "REFUND", "Webhook", "PENDING", "PayPal", "Stripe"];
                chinese(&words, &values, &format!("{language} settling {kind:?}"));
                assert!(!words.starts_with(' '), "{words}");
            }
            assert_eq!(retention_words(chrono::Duration::days(45), language), format!("45 {}", "天"));
        }
        assert_eq!(retention_words(chrono::Duration::hours(36), Language::ZhTw), "36 小時");
        assert_eq!(retention_words(chrono::Duration::minutes(90), Language::ZhCn), "90 分钟");
        assert_eq!(retention_words(chrono::Duration::minutes(12_345), Language::En), "12345 minutes");
        for compensation in Compensation::ALL {
            assert_eq!(compensation.label_in(Language::En), compensation.label());
        }
        assert_eq!(provider_name("sandbox", Language::ZhTw), "售後服務系統");
        assert_eq!(provider_name("email", Language::ZhCn), "邮件服务");
    }

    #[test]
    fn an_operation_concerns_a_line_item_only_by_its_whole_id() {
        assert!(concerns_line_item("refund-1043-li_2", "1043", "li_2"));
        assert!(concerns_line_item("pickup-1043-li_2-2026-12-09", "1043", "li_2"));
        assert!(concerns_line_item("cancel-aftersale-1043-li_2", "1043", "li_2"));
        assert!(!concerns_line_item("refund-1043-li_20", "1043", "li_2"));
        assert!(!concerns_line_item("refund-11043-li_2", "1043", "li_2"));
        assert!(!concerns_line_item("refund-1043-li_1", "1043", "li_2"));
    }
}
