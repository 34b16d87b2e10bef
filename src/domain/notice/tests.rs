//! Tests of the module above: every rendering in each language, escaped, within its channel's
//! limits, linked to its page, and with nothing of the customer in it.

use super::*;
use crate::domain::money::Currency;

const LINK: &str = "https://ops.example.com/operations/refund-1043-li_2";

fn twd(minor: i64) -> Money {
    Money::new(minor, Currency::parse("TWD").unwrap())
}

fn refund(item: &str) -> NoticeItem {
    NoticeItem {
        event: NotifyEvent::ApprovalRequested,
        stage: Stage::First,
        subject: NoticeSubject::Operation {
            op_id: "refund-1043-li_2".into(),
            kind: "refund".into(),
            amount: Some(twd(120_000)),
            item: Some(item.into()),
        },
        asked_by: Some("shop-agent".into()),
        waiting_minutes: 0,
        link: LINK.into(),
    }
}

/// Every rendering of `notice` in `language`, as text to search.
fn everywhere(notice: &Notice, language: Language) -> Vec<(&'static str, String)> {
    let mail = email(notice, language);
    vec![
        ("email subject", mail.subject),
        ("email text", mail.text),
        ("email html", mail.html),
        ("slack", slack(notice, language).to_string()),
        ("teams", teams(notice, language).to_string()),
        ("line", line(notice, language).to_string()),
    ]
}

/// Letters only Simplified Chinese writes so (their Traditional forms are used in Taiwan).
const SIMPLIFIED: [char; 10] = ['审', '这', '认', '处', '务', '开', '发', '单', '项', '书'];

#[test]
fn an_approval_request_says_what_waits_in_each_language() {
    let notice = Notice::One(refund("Clay teapot"));
    let en = email(&notice, Language::En);
    assert_eq!(en.subject, "Approval needed: refund of NT$1,200 for Clay teapot");
    assert!(en.text.contains("Asked by: shop-agent") && en.text.contains("Operation: refund-1043-li_2"));
    assert!(en.text.contains("the person who asked cannot approve it"), "{}", en.text);
    let tw = email(&notice, Language::ZhTw);
    assert!(tw.subject.starts_with("待核准：") && tw.subject.contains("NT$1,200"), "{}", tw.subject);
    assert!(tw.text.contains("申請人：shop-agent") && tw.text.contains("主控台"), "{}", tw.text);
    let cn = email(&notice, Language::ZhCn);
    assert!(cn.subject.starts_with("待审批：") && cn.subject.contains("NT$1,200"), "{}", cn.subject);
    assert!(cn.text.contains("控制台"), "{}", cn.text);
    for (place, text) in everywhere(&notice, Language::ZhTw) {
        assert!(!text.contains(SIMPLIFIED), "zh-TW {place} is in Traditional characters: {text}");
        assert!(text.contains("核准"), "{place}: {text}");
    }
    for (place, text) in everywhere(&notice, Language::ZhCn) {
        assert!(text.contains("审批"), "{place}: {text}");
    }
}

#[test]
fn reminders_and_escalations_say_how_long_it_waited() {
    let reminder = NoticeItem { stage: Stage::Reminder(1), waiting_minutes: 120, ..refund("Clay teapot") };
    let subject = email(&Notice::One(reminder.clone()), Language::En).subject;
    assert_eq!(subject, "Still waiting for approval after 2 hours: refund of NT$1,200 for Clay teapot");
    let escalation = NoticeItem { stage: Stage::Escalation, waiting_minutes: 240, ..reminder.clone() };
    let subject = email(&Notice::One(escalation.clone()), Language::En).subject;
    assert!(subject.starts_with("Escalated: nobody approved or denied it for 4 hours"), "{subject}");
    let tw = email(&Notice::One(escalation.clone()), Language::ZhTw).subject;
    assert!(tw.starts_with("已升級處理：4 小時內無人核准或駁回"), "{tw}");
    let cn = email(&Notice::One(reminder), Language::ZhCn).subject;
    assert!(cn.starts_with("已等待 2 小时，仍待审批"), "{cn}");
    for (place, text) in everywhere(&Notice::One(escalation), Language::En) {
        assert!(text.contains("Escalated") && text.contains("4 hours"), "{place}: {text}");
    }
    assert_eq!(waited_words(45, Language::En), "45 minutes");
    assert_eq!(waited_words(1, Language::En), "1 minute");
    assert_eq!(waited_words(150, Language::En), "2 h 30 min");
    assert_eq!(waited_words(60 * 72, Language::En), "3 days");
    assert_eq!(waited_words(90, Language::ZhTw), "1 小時 30 分鐘");
}

#[test]
fn every_event_has_its_own_headline() {
    let review = NoticeItem { event: NotifyEvent::NeedsReview, ..refund("Clay teapot") };
    assert!(email(&Notice::One(review), Language::En).subject.starts_with("Needs review: refund"));
    let unknown =
        NoticeItem { event: NotifyEvent::UnknownTooLong, waiting_minutes: 30, ..refund("Clay teapot") };
    assert!(email(&Notice::One(unknown), Language::En).subject.starts_with("Outcome unknown for 30 minutes"));
    let accepted = NoticeItem { event: NotifyEvent::AcceptedTooLong, waiting_minutes: 60, ..refund("x") };
    assert!(email(&Notice::One(accepted), Language::ZhTw).subject.starts_with("已受理 1 小時 仍未完成"));
    let bulk = NoticeItem {
        event: NotifyEvent::BulkRunFinished,
        subject: NoticeSubject::BulkRun {
            id: "bulk_1".into(),
            name: "March returns".into(),
            done: 1_200,
            failed: 3,
            total: 1_203,
        },
        asked_by: None,
        ..refund("x")
    };
    assert_eq!(
        email(&Notice::One(bulk), Language::En).subject,
        "Bulk run finished: bulk run “March returns”: 1,200 done and 3 failed of 1,203"
    );
    let failing = NoticeItem {
        event: NotifyEvent::ConnectionFailing,
        subject: NoticeSubject::Failing {
            target: FailingTarget::WebhookEndpoint { host: "hooks.shop.example".into() },
            last_error: "the endpoint answered 503".into(),
        },
        asked_by: None,
        ..refund("x")
    };
    let mail = email(&Notice::One(failing), Language::En);
    assert_eq!(mail.subject, "Failing: webhook deliveries to hooks.shop.example");
    assert!(mail.text.contains("Last error: the endpoint answered 503"), "{}", mail.text);
}

#[test]
fn caller_words_are_escaped_in_html_and_slack() {
    let mut item = refund("<script>alert(1)</script> Tea & Co");
    item.asked_by = Some("<b>eve</b>".into());
    let notice = Notice::One(item);
    let mail = email(&notice, Language::En);
    assert!(!mail.html.contains("<script>") && !mail.html.contains("<b>eve"), "{}", mail.html);
    assert!(mail.html.contains("&lt;script&gt;alert(1)&lt;/script&gt; Tea &amp; Co"), "{}", mail.html);
    assert!(mail.html.contains("&lt;b&gt;eve&lt;/b&gt;"));
    assert!(mail.text.contains("<script>"), "the plain text is plain");
    let body = slack(&notice, Language::En);
    let text = body["text"].as_str().unwrap();
    assert!(text.contains("&lt;script&gt;") && text.contains("Tea &amp; Co"), "{text}");
    let section = body["blocks"][1]["text"]["text"].as_str().unwrap();
    assert!(section.contains("&lt;b&gt;eve&lt;/b&gt;"), "{section}");
    for block in body["blocks"].as_array().unwrap() {
        if block["type"] != "header" {
            assert!(!block.to_string().contains("<script>"), "{block}");
        }
    }
}

#[test]
fn every_rendering_links_to_the_page_and_nothing_acts_from_chat() {
    let notice = Notice::One(refund("Clay teapot"));
    for language in Language::ALL {
        for (place, text) in everywhere(&notice, language) {
            if place != "email subject" {
                assert!(text.contains(LINK), "{language} {place}: {text}");
            }
        }
    }
    let body = teams(&notice, Language::En);
    let attachment = &body["attachments"][0];
    assert_eq!(body["type"], "message");
    assert_eq!(attachment["contentType"], "application/vnd.microsoft.card.adaptive");
    assert_eq!(attachment["content"]["type"], "AdaptiveCard");
    assert_eq!(attachment["content"]["version"], "1.4");
    assert_eq!(attachment["content"]["actions"][0]["type"], "Action.OpenUrl");
    assert_eq!(attachment["content"]["actions"][0]["url"], LINK);
    let everything = body.to_string();
    assert!(!everything.contains("Action.Submit") && !everything.contains("Action.Execute"));
    let slack_body = slack(&notice, Language::En).to_string();
    assert!(!slack_body.contains("action_id") && !slack_body.contains("\"value\""), "{slack_body}");
    let messages = line(&notice, Language::En);
    assert_eq!(messages.as_array().unwrap().len(), 1);
    assert_eq!(messages[0]["type"], "text");
}

#[test]
fn no_rendering_carries_a_customers_address() {
    let item = NoticeItem {
        subject: NoticeSubject::Operation {
            op_id: "email-refund_issued-1043".into(),
            kind: "send_email".into(),
            amount: None,
            item: None,
        },
        ..refund("x")
    };
    for language in Language::ALL {
        for (place, text) in everywhere(&Notice::One(item.clone()), language) {
            assert!(!text.contains('@'), "{language} {place}: {text}");
        }
    }
}

fn many(count: usize, name_length: usize) -> Notice {
    let items = (0..count)
        .map(|n| NoticeItem {
            subject: NoticeSubject::Operation {
                op_id: format!("refund-{n}"),
                kind: "refund".into(),
                amount: Some(twd(38_000)),
                item: Some(format!("{n} {}", "茶".repeat(name_length))),
            },
            link: format!("https://ops.example.com/operations/refund-{n}"),
            ..refund("x")
        })
        .collect();
    Notice::Digest { items, link: "https://ops.example.com/operations?state=pending_approval".into() }
}

#[test]
fn a_long_digest_keeps_within_slacks_limits_and_says_how_many_more() {
    let body = slack(&many(80, 20), Language::En);
    let blocks = body["blocks"].as_array().unwrap();
    assert!(blocks.len() <= SLACK_MAX_BLOCKS, "{}", blocks.len());
    assert_eq!(blocks[0]["text"]["text"], "80 items wait for you");
    assert!(body.to_string().contains("…and 33 more"), "47 are listed");
    assert_eq!(
        blocks.last().unwrap()["elements"][0]["url"],
        "https://ops.example.com/operations?state=pending_approval"
    );
    let long = slack(&Notice::One(refund(&"x".repeat(10_000))), Language::En);
    for block in long["blocks"].as_array().unwrap() {
        let text = block["text"]["text"].as_str().or(block["elements"][0]["text"].as_str()).unwrap_or("");
        let max = if block["type"] == "header" { SLACK_HEADER_TEXT_MAX } else { SLACK_SECTION_TEXT_MAX };
        assert!(text.chars().count() <= max, "{} of {}", text.chars().count(), block["type"]);
    }
    assert!(long["text"].as_str().unwrap().chars().count() <= SLACK_SECTION_TEXT_MAX);
}

#[test]
fn a_long_digest_keeps_within_teams_and_line_limits() {
    let notice = many(300, 60);
    for language in Language::ALL {
        let card = teams(&notice, language);
        assert!(card.to_string().len() <= TEAMS_MAX_BYTES, "{language}: {}", card.to_string().len());
        assert!(card.to_string().contains(match language {
            Language::En => "more",
            Language::ZhTw => "還有",
            Language::ZhCn => "还有",
        }));
        let messages = line(&notice, language);
        let messages = messages.as_array().unwrap();
        assert!((1..=LINE_MAX_MESSAGES).contains(&messages.len()));
        for message in messages {
            let text = message["text"].as_str().unwrap();
            assert!(text.encode_utf16().count() <= LINE_TEXT_MAX, "{language}: {}", text.len());
            assert!(text.ends_with("https://ops.example.com/operations?state=pending_approval"), "{text}");
        }
    }
    let one = line(&Notice::One(refund(&"😀".repeat(6_000))), Language::En);
    assert!(one[0]["text"].as_str().unwrap().encode_utf16().count() <= LINE_TEXT_MAX);
}

#[test]
fn a_digest_lists_each_item_with_its_link() {
    let notice = many(3, 1);
    let mail = email(&notice, Language::En);
    assert_eq!(mail.subject, "3 items wait for you");
    for n in 0..3 {
        let link = format!("https://ops.example.com/operations/refund-{n}");
        assert!(mail.text.contains(&link) && mail.html.contains(&link));
        assert!(slack(&notice, Language::En).to_string().contains(&link));
        assert!(teams(&notice, Language::En).to_string().contains(&link));
        assert!(line(&notice, Language::En).to_string().contains(&link));
    }
    assert_eq!(email(&notice, Language::ZhTw).subject, "有 3 件事項等您處理");
}
