//! Plain words about an operation: what it is ("Refund of TWD 380.00 for Headphone case"), how it
//! stands in a sentence a support agent can act on, and one sentence they can tell the customer.
//! The console's order and operation pages and the agents' tools all phrase operations here, so a
//! state reads the same wherever it is shown.

use chrono::{DateTime, Utc};
use crate::t;
use serde::{Deserialize, Serialize};

use super::language::Language;
use super::compensation::Compensation;
use super::connection::{Capabilities, ProviderKind, Settles, REFUNDS_PROVIDER, SERVICES_PROVIDER};
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
    /// What it is, starting with a capital: "Refund of TWD 380.00 for Headphone case".
    pub what: String,
    /// How it stands and what to do about it.
    pub status: String,
    /// One sentence for the customer.
    pub for_customer: String,
}

/// The provider's name as a support agent knows it.
pub fn provider_name(provider: &str) -> String {
    match provider {
        REFUNDS_PROVIDER => "Stripe".to_owned(),
        SERVICES_PROVIDER => "the after-sale service".to_owned(),
        "paypal" => "PayPal".to_owned(),
        "email" => "the email service".to_owned(),
        other => capitalised(other),
    }
}

/// How long a key is remembered, in whole hours or days: "24 hours", "31 days", "90 minutes".
pub fn retention_words(retention: chrono::Duration) -> String {
    let (minutes, hours) = (retention.num_minutes(), retention.num_hours());
    if minutes % 60 != 0 || hours == 0 {
        format!("{minutes} minutes")
    } else if hours < 48 || hours % 24 != 0 {
        format!("{hours} hours")
    } else {
        format!("{} days", hours / 24)
    }
}

/// How an unknown or accepted result is settled at a provider of `kind` that honours
/// `capabilities`, in words: whether it can be asked, whether and how long it remembers a key,
/// and what says an accepted operation's outcome.
pub fn settling(capabilities: Capabilities, kind: ProviderKind, provider: &str) -> String {
    let name = provider_name(provider);
    let name_at_start = capitalised(&name);
    let window = retention_words(capabilities.key_retention);
    let asked = match capabilities.settles() {
        Settles::KeyAndLookup => format!(
            "A lost answer is found by asking {name} for the op id it was sent with; {name} remembers a key {window}, after which nothing is re-sent without a person."
        ),
        Settles::KeyOnly => format!(
            "{name_at_start} cannot be asked about it: a lost answer is settled by re-sending with the same key; {name} remembers a key {window}, after which nothing is re-sent without a person."
        ),
        Settles::LookupOnly => format!(
            "{name_at_start} takes no idempotency key, so nothing is ever sent to it twice by itself: a lost answer is looked up by the op id, and a lookup that finds nothing goes to a person."
        ),
        Settles::AtMostOnce => format!(
            "{name_at_start} takes no idempotency key and cannot be asked what it did: it is sent at most once, and a lost answer goes straight to a person with what was seen."
        ),
    };
    let later = match kind {
        ProviderKind::Adyen => " Adyen answers every refund \u{201c}received\u{201d}: its REFUND webhook says whether it was done.",
        ProviderKind::PayPal => " A PENDING refund is read again by its id until PayPal completes or fails it.",
        ProviderKind::Stripe => " A pending refund is read again by its id, or settled by Stripe's webhook, until it succeeds or fails.",
        ProviderKind::Services | ProviderKind::Orders | ProviderKind::Http | ProviderKind::Email | ProviderKind::Smtp => "",
    };
    let left = if capabilities.payment_read || !capabilities.outcomes_later {
        String::new()
    } else {
        format!(" What is left to refund comes from the shop's order and this ledger's refunds, since {name} has no read of the payment.")
    };
    format!("{asked}{later}{left}")
}

/// The action of a kind: its noun for the agent, its verb for "do not … again", and its noun for
/// the customer.
struct Action {
    noun: String,
    verb: &'static str,
    customer_noun: String,
}

fn action(described: &Described) -> Action {
    let amount = described.amount.map(|money| format!(" of {money}")).unwrap_or_default();
    let (noun, verb, customer_noun) = match described.kind {
        "refund" => (format!("Refund{amount}"), "refund it", format!("your refund{amount}")),
        "create_aftersale" => {
            ("After-sale ticket".to_owned(), "open a ticket", "your after-sale request".to_owned())
        }
        "schedule_pickup" => ("Pickup".to_owned(), "schedule it", "the pickup of your item".to_owned()),
        "send_email" => ("Email to the customer".to_owned(), "send it", "our email".to_owned()),
        "cancel_aftersale" => (
            "Cancellation of the after-sale ticket".to_owned(),
            "cancel it",
            "the cancellation of your after-sale request".to_owned(),
        ),
        other => {
            let noun = capitalised(&other.replace('_', " "));
            (format!("{noun}{amount}"), "send it", format!("your request ({})", other.replace('_', " ")))
        }
    };
    let noun = match described.item {
        Some(item) => format!("{noun} for {item}"),
        None => noun,
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
pub fn failure_reason_words(reason: &str) -> String {
    match reason {
        "expired_or_canceled_card" => "the card it was going back to has expired or was cancelled".to_owned(),
        "lost_or_stolen_card" => "the card it was going back to was reported lost or stolen".to_owned(),
        "declined" => "the customer's bank declined it".to_owned(),
        "insufficient_funds" => "the shop's balance at the provider could not cover it".to_owned(),
        "charge_for_pending_refund_disputed" => "the payment was disputed while it was pending".to_owned(),
        "merchant_request" => "it was cancelled at the shop's request".to_owned(),
        "canceled" => "it was cancelled there".to_owned(),
        "unknown" | "" => "for a reason the provider did not give".to_owned(),
        other => format!("for a reason the provider calls {}", other.replace('_', " ")),
    }
}

/// The operation `described` in `state`, in words; `failure_reason` is the provider's reason when
/// it failed there after accepting it (see [`failure_reason_words`]).
pub fn tell(described: &Described, state: State, failure_reason: Option<&str>) -> Told {
    let Action { noun, verb, customer_noun } = action(described);
    let provider = provider_name(described.provider);
    let the_noun = format!("the {}", lowercase_first(&noun));
    let provider_at_start = capitalised(&provider);
    let checking = format!("Please do not ask for it again: {customer_noun} is being confirmed with {provider}, and we will tell you as soon as it is.");
    let (status, for_customer) = match state {
        State::Planned => (
            format!("{noun} is recorded and not yet sent to {provider}; nothing has happened yet."),
            format!("We are processing {customer_noun} now and will confirm it shortly."),
        ),
        State::PendingApproval => (
            format!("{noun} waits for a manager's approval; nothing has been sent to {provider}."),
            format!("{} is being reviewed by our team; we will let you know once it is approved.", capitalised(&customer_noun)),
        ),
        State::Approved => (
            format!("{noun} was approved and is waiting to be sent to {provider}."),
            format!("{} was approved and is being processed.", capitalised(&customer_noun)),
        ),
        State::Denied => (
            format!("{noun} was denied by a manager; nothing was sent to {provider}."),
            format!("We are sorry: {customer_noun} was not approved. A colleague will explain why."),
        ),
        State::Submitted => (
            format!("{noun} was sent to {provider}, which has not answered yet. Do not {verb} again."),
            checking,
        ),
        State::Accepted => (
            match described.kind {
                "refund" => format!(
                    "{provider_at_start} accepted {the_noun}; the bank has not confirmed it yet. Do not {verb} again."
                ),
                _ => format!(
                    "{provider_at_start} accepted {the_noun} and has not confirmed it is done yet. Do not {verb} again."
                ),
            },
            match described.kind {
                "refund" => format!(
                    "{} is being processed by the bank; we will confirm as soon as it is complete, so please do not ask for it again.",
                    capitalised(&customer_noun)
                ),
                _ => format!(
                    "{} is being processed; we will confirm as soon as it is complete, so please do not ask for it again.",
                    capitalised(&customer_noun)
                ),
            },
        ),
        State::Succeeded => (
            format!("{provider_at_start} confirmed {the_noun}. It is done; do not {verb} again."),
            match described.kind {
                "refund" => format!(
                    "{} has been issued; your bank may take a few days to show it.",
                    capitalised(&customer_noun)
                ),
                "send_email" => format!("{} has been sent.", capitalised(&customer_noun)),
                _ => format!("{} is done.", capitalised(&customer_noun)),
            },
        ),
        State::Rejected => match failure_reason {
            Some(reason) => (
                format!(
                    "{provider_at_start} accepted {the_noun}, then it failed there: {}. Nothing moved; it can be made again on purpose.",
                    failure_reason_words(reason)
                ),
                format!(
                    "We could not complete {customer_noun}: {}. We will arrange it again and let you know.",
                    failure_reason_words(reason)
                ),
            ),
            None => (
                format!("{provider_at_start} declined {the_noun}; nothing was done."),
                format!("We could not complete {customer_noun}; we are looking into it and will get back to you."),
            ),
        },
        State::Unknown => (
            format!("{noun} was sent to {provider}, which did not answer in time; we are checking whether it happened. Do not {verb} again."),
            checking,
        ),
        State::NeedsReview => (
            format!("{noun} was sent to {provider}, and checking has not settled whether it happened; a reconciler is reviewing it. Do not {verb} again."),
            checking,
        ),
        State::Cancelled => (
            format!("{noun} was cancelled; nothing more will be sent to {provider}."),
            format!("{} was cancelled.", capitalised(&customer_noun)),
        ),
    };
    Told { what: noun, status, for_customer }
}

/// The operation `described`, sent to a downstream that takes no idempotency key and cannot be
/// asked what it did, whose answer was lost: nobody can tell whether it happened, it is never sent
/// again by itself, and a person checks.
pub fn tell_unanswerable(described: &Described) -> Told {
    let Action { noun, verb, customer_noun } = action(described);
    let provider = provider_name(described.provider);
    Told {
        status: format!(
            "{noun} was handed to {provider}, which cannot recognise a repeat or be asked what it did: nobody can tell whether it arrived, and it is never sent again by itself. A person will check; do not {verb} again."
        ),
        for_customer: format!(
            "If {customer_noun} has not reached you, please let us know: a colleague is checking it and will get back to you."
        ),
        what: noun,
    }
}

/// What taking `action` on the operation `described` does, restated for a confirmation step
/// before it is taken; `None` for those that need none ([`needs_confirmation`]). `key_validity` says how long the
/// provider still remembers the operation's key ("23 h left").
pub fn consequence(action: CommandKind, described: &Described, key_validity: &str) -> Option<String> {
    if !needs_confirmation(action) {
        return None;
    }
    let what = action_noun(described);
    let provider = provider_name(described.provider);
    Some(match action {
        CommandKind::ResendSameKey => format!(
            "{what} will be sent to {provider} again with the same idempotency key ({key_validity}). \
             If the first send went through, {provider} answers with it and nothing happens twice; \
             once the key has expired, a re-send could do it a second time."
        ),
        CommandKind::Cancel => {
            format!("{what} will not be sent again. If it was already sent, cancelling does not undo it.")
        }
        CommandKind::MarkNotHappened => format!(
            "{what} will be recorded as not done, on your word and evidence, and nothing is sent. \
             If {provider} did it after all, the ledger will say otherwise than the customer's account."
        ),
        _ => return None,
    })
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
) -> String {
    let item = described.item.map(|item| format!(" for {item}")).unwrap_or_default();
    match compensation {
        Compensation::CancelTicket => format!(
            "The after-sale ticket{item} will be cancelled at {}. It is recorded as a new operation, sent at once.",
            provider_name(SERVICES_PROVIDER)
        ),
        Compensation::RefundLineItem => format!(
            "A refund{}{item} will be sent to {}: the customer gets the money back. It is recorded as a new operation, sent at once.",
            refund.map(|money| format!(" of {money}")).unwrap_or_default(),
            provider_name(REFUNDS_PROVIDER)
        ),
        Compensation::ReschedulePickup => format!(
            "A new pickup{item} will be scheduled at {} on the date you give. It is recorded as a new operation, sent at once.",
            provider_name(SERVICES_PROVIDER)
        ),
    }
}

/// What making the operation `described` again after it failed at the provider does, restated for
/// a confirmation step.
pub fn retry_consequence(described: &Described) -> String {
    let what = lowercase_first(&action(described).noun);
    format!(
        "A new {what} will be sent to {} under an op id and key of its own, linked to this one, \
         and checked against the approval policy like any other. Make it again only once you know why the first failed.",
        provider_name(described.provider)
    )
}

/// An operation's noun for a confirmation: "The refund of TWD 380.00 for Headphone case".
fn action_noun(described: &Described) -> String {
    format!("The {}", lowercase_first(&action(described).noun))
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
pub fn attempt_outcome(outcome: &str) -> String {
    match outcome {
        "succeeded" => "Succeeded".to_owned(),
        "open" => "In flight: no answer yet".to_owned(),
        "no_report" => "No outcome was reported: it may have happened".to_owned(),
        "timeout" => "No answer in time: it may have happened".to_owned(),
        "server_error" => "The provider failed after receiving it: it may have happened".to_owned(),
        "not_sent" => "Never reached the provider".to_owned(),
        "invalid_params" => "Refused by the provider: invalid parameters".to_owned(),
        "forbidden" => "Refused by the provider: not permitted".to_owned(),
        "business_rejection" => "Declined by the provider".to_owned(),
        "accepted" => "Accepted: the provider has it, its result pending".to_owned(),
        "failed_at_provider" => "Accepted, then failed at the provider: nothing moved".to_owned(),
        "transient_unavailable" => "The provider was busy and did not process it".to_owned(),
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
    use crate::domain::money::Currency;

    #[test]
    fn each_provider_is_said_to_settle_by_its_own_means() {
        let adyen = settling(ProviderKind::Adyen.capabilities(), ProviderKind::Adyen, "adyen");
        assert!(adyen.starts_with("Adyen cannot be asked about it"), "{adyen}");
        assert!(adyen.contains("remembers a key 31 days") && adyen.contains("REFUND webhook"), "{adyen}");
        assert!(adyen.contains("from the shop's order and this ledger's refunds"), "{adyen}");
        let paypal = settling(ProviderKind::PayPal.capabilities(), ProviderKind::PayPal, "paypal");
        assert!(paypal.starts_with("A lost answer is found by asking PayPal"), "{paypal}");
        assert!(paypal.contains("PayPal remembers a key 45 days"), "{paypal}");
        assert!(!paypal.contains("shop's order"), "PayPal's capture is read: {paypal}");
        let stripe = settling(ProviderKind::Stripe.capabilities(), ProviderKind::Stripe, "stripe");
        assert!(stripe.contains("Stripe remembers a key 24 hours"), "{stripe}");
        let keyless = Capabilities { key_retention: chrono::Duration::zero(), ..Capabilities::NOTHING };
        let helpdesk = settling(Capabilities { lookup: true, ..keyless }, ProviderKind::Http, "helpdesk");
        assert!(
            helpdesk.starts_with("Helpdesk takes no idempotency key, so nothing is ever sent to it twice"),
            "{helpdesk}"
        );
        assert!(helpdesk.contains("a lookup that finds nothing goes to a person"), "{helpdesk}");
        let email = settling(ProviderKind::Email.capabilities(), ProviderKind::Email, "email");
        assert!(email.starts_with("The email service cannot be asked about it"), "{email}");
        let mailer = settling(keyless, ProviderKind::Http, "mailer");
        assert!(
            mailer.contains("it is sent at most once, and a lost answer goes straight to a person"),
            "{mailer}"
        );
        assert_eq!(retention_words(chrono::Duration::days(45)), "45 days");
        assert_eq!(retention_words(chrono::Duration::hours(36)), "36 hours");
        assert_eq!(retention_words(chrono::Duration::minutes(90)), "90 minutes");
    }

    #[test]
    fn an_email_whose_answer_was_lost_where_nothing_can_be_asked_is_told_so() {
        let email = Described { kind: "send_email", amount: None, item: None, provider: "email" };
        let told = tell_unanswerable(&email);
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
        )
    }

    #[test]
    fn an_unknown_refund_says_what_was_sent_that_it_is_being_checked_and_not_to_refund_again() {
        let told = refund(State::Unknown);
        assert_eq!(told.what, "Refund of TWD 380.00 for Headphone case");
        assert_eq!(
            told.status,
            "Refund of TWD 380.00 for Headphone case was sent to Stripe, which did not answer in time; \
             we are checking whether it happened. Do not refund it again."
        );
        assert!(told.for_customer.contains("do not ask for it again"));
        assert!(told.for_customer.contains("your refund of TWD 380.00"));
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
            "Stripe accepted the refund of TWD 380.00 for Headphone case; the bank has not confirmed it yet. Do not refund it again."
        );
        assert!(!accepted.for_customer.contains("has been issued"), "{}", accepted.for_customer);
        assert!(accepted.for_customer.contains("being processed"));

        let amount = Some(Money::new(38_000, Currency::parse("TWD").unwrap()));
        let described =
            Described { kind: "refund", amount, item: Some("Headphone case"), provider: "stripe" };
        let failed = tell(&described, State::Rejected, Some("expired_or_canceled_card"));
        assert_eq!(
            failed.status,
            "Stripe accepted the refund of TWD 380.00 for Headphone case, then it failed there: the card it was going back to has expired or was cancelled. Nothing moved; it can be made again on purpose."
        );
        assert!(failed.for_customer.starts_with("We could not complete your refund of TWD 380.00: the card"));
        assert_ne!(failed.status, refund(State::Rejected).status);
        assert_eq!(failure_reason_words("new_reason"), "for a reason the provider calls new reason");
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
        );
        assert_eq!(
            ticket.status,
            "The after-sale service declined the after-sale ticket for Lamp shade; nothing was done."
        );
        let custom = tell(
            &Described { kind: "issue_coupon", amount: None, item: None, provider: "loyalty" },
            State::Succeeded,
            None,
        );
        assert_eq!(custom.status, "Loyalty confirmed the issue coupon. It is done; do not send it again.");
        let email = tell(
            &Described { kind: "send_email", amount: None, item: None, provider: "email" },
            State::Succeeded,
            None,
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
        let resend = consequence(CommandKind::ResendSameKey, &described, "23 h left").unwrap();
        assert!(
            resend.starts_with("The refund of TWD 380.00 for Headphone case will be sent to Stripe again"),
            "{resend}"
        );
        assert!(resend.contains("23 h left"));
        for risky in [CommandKind::Cancel, CommandKind::MarkNotHappened] {
            assert!(consequence(risky, &described, "").unwrap().contains("TWD 380.00"), "{risky:?}");
        }
        for safe in [CommandKind::ConfirmFound, CommandKind::Approve, CommandKind::Escalate] {
            assert_eq!(consequence(safe, &described, ""), None, "{safe:?}");
        }
        for kind in CommandKind::ALL {
            assert_eq!(consequence(kind, &described, "").is_some(), needs_confirmation(kind), "{kind:?}");
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
        );
        assert!(
            refund.starts_with("A refund of CNY 50.00 for Lamp shade will be sent to Stripe"),
            "{refund}"
        );
    }

    #[test]
    fn ages_read_as_people_say_them() {
        let now = DateTime::parse_from_rfc3339("2026-12-02T12:00:00Z").unwrap().with_timezone(&Utc);
        let before = |seconds: i64| now - chrono::Duration::seconds(seconds);
        assert_eq!(ago(before(10), now), "just now");
        assert_eq!(ago(before(170), now), "3 min ago");
        assert_eq!(ago(before(5 * 3_600 + 100), now), "5 h ago");
        assert_eq!(ago(before(2 * 86_400), now), "2 d ago");
        assert_eq!(ago(before(30 * 86_400), now), "2026-11-02");
        assert_eq!(ago(before(-600), now), "in 10 min");
    }

    #[test]
    fn attempt_outcomes_read_as_words_and_say_when_it_may_have_happened() {
        assert_eq!(attempt_outcome("no_report"), "No outcome was reported: it may have happened");
        assert!(attempt_outcome("timeout").ends_with("it may have happened"));
        assert_eq!(attempt_outcome("something_new"), "Something new");
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
