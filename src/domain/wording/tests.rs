//! Tests of the module above: the words for every state, failure and kind, in each language.

use super::*;
use crate::domain::failure::FailureClass;
use crate::domain::money::Currency;

#[test]
fn each_provider_is_said_to_settle_by_its_own_means() {
    let adyen = settling(ProviderKind::Adyen.capabilities(), ProviderKind::Adyen, "adyen", Language::En);
    assert!(adyen.starts_with("Adyen cannot be asked about it"), "{adyen}");
    assert!(adyen.contains("remembers a key 31 days") && adyen.contains("REFUND webhook"), "{adyen}");
    assert!(adyen.contains("from the shop's order and this ledger's refunds"), "{adyen}");
    let paypal = settling(ProviderKind::PayPal.capabilities(), ProviderKind::PayPal, "paypal", Language::En);
    assert!(paypal.starts_with("A lost answer is found by asking PayPal"), "{paypal}");
    assert!(paypal.contains("PayPal remembers a key 45 days"), "{paypal}");
    assert!(!paypal.contains("shop's order"), "PayPal's capture is read: {paypal}");
    assert!(
        paypal.contains("After a server error (5xx), PayPal runs a re-send under the same key again"),
        "{paypal}"
    );
    assert!(adyen.contains("Whether Adyen runs a re-send under the same key again"), "{adyen}");
    let stripe = settling(ProviderKind::Stripe.capabilities(), ProviderKind::Stripe, "stripe", Language::En);
    assert!(stripe.contains("Stripe remembers a key 24 hours"), "{stripe}");
    assert!(stripe.contains("Stripe answers a re-send under the same key with that error again"), "{stripe}");
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
    assert!(!mailer.contains("5xx") && !helpdesk.contains("5xx"), "without a key, no re-send to speak of");
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
    let described = Described { kind: "refund", amount, item: Some("Headphone case"), provider: "stripe" };
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
        &Described { kind: "create_aftersale", amount: None, item: Some("Lamp shade"), provider: "sandbox" },
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
    let described = Described { kind: "refund", amount, item: Some("Headphone case"), provider: "stripe" };
    let resend = consequence(CommandKind::ResendSameKey, &described, "23 h left", Language::En).unwrap();
    assert!(
        resend.starts_with("The refund of NT$380 for Headphone case will be sent to Stripe again"),
        "{resend}"
    );
    assert!(resend.contains("23 h left"));
    for risky in [CommandKind::Cancel, CommandKind::MarkNotHappened] {
        assert!(consequence(risky, &described, "", Language::En).unwrap().contains("NT$380"), "{risky:?}");
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
        &Described { kind: "create_aftersale", amount: None, item: Some("Lamp shade"), provider: "sandbox" },
        Some(Money::new(5_000, Currency::parse("CNY").unwrap())),
        Language::En,
    );
    assert!(refund.starts_with("A refund of CNY 50.00 for Lamp shade will be sent to Stripe"), "{refund}");
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
    assert_eq!(ages(Language::ZhTw), ["剛剛", "3 分鐘前", "5 小時前", "2 天前", "2026/11/02", "10 分鐘後"]);
    assert_eq!(ages(Language::ZhCn), ["刚刚", "3 分钟前", "5 小时前", "2 天前", "2026-11-02", "10 分钟后"]);
}

#[test]
fn attempt_outcomes_read_as_words_and_say_when_it_may_have_happened() {
    assert_eq!(attempt_outcome("no_report", Language::En), "No outcome was reported: it may have happened");
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
            for action in [CommandKind::ResendSameKey, CommandKind::Cancel, CommandKind::MarkNotHappened] {
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
    assert_eq!(taiwan.status, "Stripe 已確認耳機保護殼的 NT$380 退款完成。這項操作已經完成，請勿再次退款。");
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
        for kind in [ProviderKind::Adyen, ProviderKind::PayPal, ProviderKind::Stripe, ProviderKind::Email] {
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

#[test]
fn a_refund_held_back_by_its_gateway_says_nothing_left_and_not_to_refund_again() {
    let described = Described {
        kind: "refund",
        amount: Some(Money::new(38_000, Currency::parse("TWD").unwrap())),
        item: Some("Headphone case"),
        provider: "ecpay",
    };
    let english = tell_held(&described, Language::En);
    assert!(
        english.status.contains("was not sent") && english.status.contains("ECPay"),
        "{}",
        english.status
    );
    assert!(english.status.contains("Do not refund it again"), "{}", english.status);
    let taiwanese = tell_held(&described, Language::ZhTw);
    assert!(
        taiwanese.status.contains("尚未送出") && taiwanese.status.contains("請勿再次退款"),
        "{}",
        taiwanese.status
    );
}
