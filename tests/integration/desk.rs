//! The support desk: who holds an item. A support person claims an unheld operation or order and
//! everyone sees it; a second claim is refused with the holder's name, even when two are sent at
//! once; a manager assigns and reassigns, only to active people of the tenant who work on
//! operations; an action on an item someone else holds asks to confirm and names them; auditors
//! and admins hold nothing; another tenant's items cannot be held; a deactivated person's items
//! are released; every change is in the audit trail with its actor.
//!
//! Notes: plain text (markup shown as text, links kept, mentions of people who exist marked),
//! bounded, edited by their author alone as a new version, each version in the audit trail; a
//! mention is mailed once to the person through the tenant's rule for mentions, in their language,
//! and nobody is told of a name that does not exist. Saved views: a manager shares one as the
//! default of support, support opens it by its URL, and a view of a filter the list does not have
//! is refused.

use chrono::Duration;
use opledger::domain::desk::Item;
use opledger::domain::ids::{Actor, OpId, TenantId};
use opledger::domain::notification::{Audience, Channel, NotifyEvent, NotifyRule};
use opledger::domain::policy::Role;
use opledger::server::ledger::notifier::Notifier;
use opledger::server::ledger::notify::PrefsInput;
use opledger::server::sandbox::mail::MailSandbox;
use serde_json::json;

use crate::support::{refund_1043, tenant_mailbox, Console, TestApp, PASSWORD};

const OP: &str = "refund-1043-li_2";

fn acme() -> TenantId {
    TenantId::parse("acme").unwrap()
}

/// A holding form for `item_kind` `item_id` sent by `console`: the status and the answer.
async fn hold(console: &Console, key: &str, item_kind: &str, item_id: &str, action: &str, to: &str) -> (u16, String) {
    let csrf = console.csrf().await;
    console
        .call(
            "hold",
            &[("csrf", &csrf), ("key", key), ("item_kind", item_kind), ("item_id", item_id), ("action", action), ("to", to)],
        )
        .await
}

/// Who holds the operation `OP` in acme, by the ledger.
async fn holder(app: &TestApp, item: Item) -> Option<String> {
    app.ledger.holders_of(&acme(), &[item]).await.unwrap().pop().map(|claim| claim.holder.name)
}

fn op() -> Item {
    Item::Operation(OpId::parse(OP).unwrap())
}

/// The (actor, action) pairs of the holding changes in `OP`'s audit trail.
async fn holding_trail(app: &TestApp) -> Vec<(String, String, serde_json::Value)> {
    let history = app.ledger.reads().operation_history(&acme(), &OpId::parse(OP).unwrap()).await.unwrap().unwrap();
    history
        .audit
        .into_iter()
        .filter(|event| matches!(event.entry.action.as_str(), "claim" | "assign" | "release"))
        .map(|event| (event.entry.actor, event.entry.action, event.entry.evidence))
        .collect()
}

/// A note form sent by `console`: the status and the answer.
async fn note(console: &Console, key: &str, item_id: &str, body: &str) -> (u16, String) {
    let csrf = console.csrf().await;
    console.call("add_note", &[("csrf", &csrf), ("key", key), ("item_kind", "operation"), ("item_id", item_id), ("body", body)]).await
}

/// The tenant's SMTP server, a rule that mails the people a note mentions, and the people sam
/// (support), maria (manager, reading zh-TW) and mei (manager), each with an address.
async fn mentions_by_mail(app: &TestApp) -> MailSandbox {
    let mail = tenant_mailbox(app, "acme").await;
    let admin = Actor::human("alex", Role::Admin);
    let rule = NotifyRule {
        event: NotifyEvent::Mentioned,
        audience: Audience::Role(Role::Support),
        channel: Channel::Email,
        after: Duration::zero(),
        remind_every: None,
        escalation: None,
    };
    app.ledger.add_notify_rule(&acme(), &admin, rule).await.unwrap();
    app.add_user("acme", "maria", Role::Manager).await;
    app.add_user("acme", "mei", Role::Manager).await;
    app.tamper("update users set language = 'zh-TW' where name = 'maria'").await;
    for name in ["maria", "mei"] {
        let people = app.store.notify_recipients(&acme(), &Audience::People(vec![name.into()])).await.unwrap();
        let prefs = PrefsInput { email: format!("{name}@acme.example"), ..PrefsInput::default() };
        app.ledger.set_notify_prefs(&acme(), &people[0].user_id, prefs).await.unwrap();
    }
    mail
}

/// The plain-text part of a message as its SMTP stand-in kept it (base64 in the MIME part).
fn plain_text(message: &str) -> String {
    use base64::Engine as _;
    let part = message.split("Content-Type: text/plain").nth(1).expect("a plain-text part");
    let body = part.split("\r\n\r\n").nth(1).or_else(|| part.split("\n\n").nth(1)).expect("a body");
    let encoded: String = body.lines().take_while(|line| !line.starts_with("--")).collect::<Vec<_>>().concat();
    let bytes = base64::engine::general_purpose::STANDARD.decode(encoded.trim()).expect("base64");
    String::from_utf8(bytes).expect("UTF-8")
}

/// A view saved by `console` with `fields`: the status and the answer.
async fn save_view(console: &Console, key: &str, fields: &[(&str, &str)]) -> (u16, String) {
    let csrf = console.csrf().await;
    let mut form = vec![("csrf", csrf.as_str()), ("key", key)];
    form.extend_from_slice(fields);
    console.call("save_view", &form).await
}

/// The (actor, action, evidence) of the note changes in `OP`'s audit trail.
async fn note_trail(app: &TestApp) -> Vec<(String, String, serde_json::Value)> {
    let history = app.ledger.reads().operation_history(&acme(), &OpId::parse(OP).unwrap()).await.unwrap().unwrap();
    history
        .audit
        .into_iter()
        .filter(|event| event.entry.action.ends_with("_note"))
        .map(|event| (event.entry.actor, event.entry.action, event.entry.evidence))
        .collect()
}

crate::engine_tests! {
    a_claim_shows_to_everyone_and_a_second_claim_names_the_holder(app) {
        assert_eq!(app.register(&refund_1043(38000)).await.0, 201);
        let ana = app.signed_in("ana", Role::Support).await;
        let ben = app.signed_in("ben", Role::Support).await;
        let html = ben.page(&format!("/operations/{OP}"), 200).await;
        assert!(html.contains("Nobody is on this yet.") && html.contains("data-testid=\"holding-claim\""), "unheld, and ben may take it");

        let (status, answer) = hold(&ana, "c1", "operation", OP, "claim", "").await;
        assert_eq!((status, answer.contains("You are on refund-1043-li_2 now")), (200, true), "{answer}");
        assert_eq!(holder(&app, op()).await.as_deref(), Some("ana"));
        let html = ben.page(&format!("/operations/{OP}"), 200).await;
        assert!(html.contains("ana is on this, since"), "ben sees who holds it");
        assert!(!html.contains("data-testid=\"holding-claim\""), "and is not offered to take it");
        assert!(html.contains("data-confirm=\"ana is on this: act anyway?"), "every action of ben's asks first, naming ana");
        let list = ben.call("operations", &[]).await.1;
        assert!(list.contains("\"held_by\":\"ana\""), "the list shows the holder: {list}");

        let (status, answer) = hold(&ben, "c2", "operation", OP, "claim", "").await;
        assert_eq!(status, 422, "{answer}");
        assert!(answer.contains("ana is on this already; a manager can reassign it."), "{answer}");
        let (status, answer) = hold(&ben, "c3", "operation", OP, "release", "").await;
        assert_eq!(status, 422, "{answer}");
        assert!(answer.contains("You are not on this"), "{answer}");
        assert_eq!(holder(&app, op()).await.as_deref(), Some("ana"), "nothing changed");

        let (status, answer) = hold(&ana, "c1", "operation", OP, "claim", "").await;
        assert_eq!(status, 200, "the same form again is answered as before: {answer}");
        let (status, answer) = hold(&ana, "c4", "operation", OP, "release", "").await;
        assert_eq!((status, answer.contains("Nobody is on refund-1043-li_2 now")), (200, true), "{answer}");
        assert_eq!(holder(&app, op()).await, None);
        let trail = holding_trail(&app).await;
        let pairs: Vec<(&str, &str)> = trail.iter().map(|(actor, action, _)| (actor.as_str(), action.as_str())).collect();
        assert_eq!(pairs, [("ana", "claim"), ("ana", "release")], "each change audited once, refusals not at all");
        assert_eq!(trail[1].2["previous_holder"], "ana");
    }

    two_claims_at_once_make_one_holder(app) {
        assert_eq!(app.register(&refund_1043(38000)).await.0, 201);
        let ana = app.signed_in("ana", Role::Support).await;
        let ben = app.signed_in("ben", Role::Support).await;
        let (a, b) = tokio::join!(hold(&ana, "a1", "operation", OP, "claim", ""), hold(&ben, "b1", "operation", OP, "claim", ""));
        let statuses = [a.0, b.0];
        assert!(statuses.contains(&200) && statuses.contains(&422), "one wins, the other is told: {a:?} {b:?}");
        let winner = if a.0 == 200 { "ana" } else { "ben" };
        assert_eq!(holder(&app, op()).await.as_deref(), Some(winner));
        assert_eq!(holding_trail(&app).await.len(), 1, "one claim audited");
    }

    an_action_on_an_item_another_holds_is_confirmed_first(app) {
        assert_eq!(app.register(&refund_1043(38000)).await.0, 201);
        assert_eq!(app.begin_attempt(OP).await.0, 201);
        assert_eq!(app.report(OP, 1, &json!({"outcome": "timeout"})).await.0, 200);
        let ana = app.signed_in("ana", Role::Support).await;
        let ben = app.signed_in("ben", Role::Support).await;
        assert_eq!(hold(&ana, "c1", "operation", OP, "claim", "").await.0, 200);
        let csrf = ben.csrf().await;
        let page = app.url(&format!("/operations/{OP}"));
        let form = [("csrf", csrf.as_str()), ("key", "e1"), ("op_id", OP), ("action", "escalate"), ("reason", "customer called")];
        let response = ben.client.post(app.url("/rpc/act")).header("accept", "text/html").header("referer", &page).form(&form).send().await.unwrap();
        assert_eq!(response.status(), 302, "an escalation needs no confirmation, but ana holds it");
        let location = response.headers()["location"].to_str().unwrap().to_owned();
        assert!(location.starts_with(&format!("/operations/{OP}?confirm=escalate")), "{location}");
        let (_, operation) = app.get_json(&format!("/api/v1/operations/{OP}")).await;
        assert_eq!(operation["state"], "unknown", "nothing changed before the confirmation");
        let html = ben.page(location.split('#').next().unwrap(), 200).await;
        assert!(html.contains("data-testid=\"confirm-panel\"") && html.contains("ana is on this: act anyway?"), "the panel names the holder");
        let (status, body) = ben.act("e2", OP, "escalate", &[("reason", "customer called")]).await;
        assert_eq!(status, 200, "confirmed, it acts: {body}");
        let (status, body) = ana.act("e3", OP, "mark_not_happened", &[("reason", "checked"), ("evidence", "dashboard")]).await;
        assert_ne!(status, 302, "the holder is not asked: {body}");
    }

    a_manager_assigns_only_to_active_people_of_the_tenant_who_work_on_operations(app) {
        assert_eq!(app.register(&refund_1043(38000)).await.0, 201);
        let maya = app.signed_in("maya", Role::Manager).await;
        let ana = app.signed_in("ana", Role::Support).await;
        app.add_user("acme", "audrey", Role::Auditor).await;
        app.add_user("globex", "gil", Role::Support).await;
        let (status, answer) = hold(&ana, "s1", "operation", OP, "assign", "ana").await;
        assert_eq!(status, 403, "support assigns nothing: {answer}");

        let (status, answer) = hold(&maya, "m1", "operation", OP, "assign", "gil").await;
        assert_eq!((status, answer.contains("Nobody in this tenant is named “gil”")), (422, true), "{answer}");
        let (status, answer) = hold(&maya, "m2", "operation", OP, "assign", "audrey").await;
        assert_eq!((status, answer.contains("works on no operations")), (422, true), "{answer}");
        let (status, answer) = hold(&maya, "m3", "operation", OP, "assign", "").await;
        assert_eq!((status, answer.contains("Choose the person")), (422, true), "{answer}");
        let (status, answer) = hold(&maya, "m4", "operation", OP, "hand_over", "ana").await;
        assert_eq!((status, answer.contains("no change named")), (422, true), "{answer}");
        assert_eq!(holder(&app, op()).await, None, "nothing refused changed anything");
        assert!(holding_trail(&app).await.is_empty());

        let html = maya.page(&format!("/operations/{OP}"), 200).await;
        assert!(html.contains("<option value=\"ana\">") && !html.contains("<option value=\"audrey\">"), "only people who work on operations are offered");
        let (status, answer) = hold(&maya, "m5", "operation", OP, "assign", "ana").await;
        assert_eq!((status, answer.contains("ana is on refund-1043-li_2 now")), (200, true), "{answer}");
        let html = ana.page(&format!("/operations/{OP}"), 200).await;
        assert!(html.contains("You are on this, since") && html.contains("Assigned by maya."), "ana sees it is hers, and who gave it");
        let mine = ana.call("operations", &[("filter[held]", "mine")]).await.1;
        assert!(mine.contains(OP), "ana's own list holds it: {mine}");
        let nobody = ana.call("operations", &[("filter[held]", "nobody")]).await.1;
        assert!(!nobody.contains(OP), "the unheld list does not: {nobody}");
        let by_name = maya.call("operations", &[("filter[held]", "ana")]).await.1;
        assert!(by_name.contains(OP), "held by ana: {by_name}");

        let (status, answer) = hold(&maya, "m6", "operation", OP, "claim", "").await;
        assert_eq!(status, 200, "a manager takes it over: {answer}");
        assert_eq!(holder(&app, op()).await.as_deref(), Some("maya"));
        let actions: Vec<String> = holding_trail(&app).await.into_iter().map(|(actor, action, _)| format!("{actor} {action}")).collect();
        assert_eq!(actions, ["maya assign", "maya claim"]);
    }

    auditors_and_admins_read_holdings_and_change_none_and_no_tenant_holds_anothers_items(app) {
        assert_eq!(app.register(&refund_1043(38000)).await.0, 201);
        let ana = app.signed_in("ana", Role::Support).await;
        assert_eq!(hold(&ana, "c1", "operation", OP, "claim", "").await.0, 200);
        for (name, role) in [("audrey", Role::Auditor), ("ada", Role::Admin)] {
            let console = app.signed_in(name, role).await;
            if role == Role::Auditor {
                let html = console.page(&format!("/operations/{OP}"), 200).await;
                assert!(html.contains("ana is on this") && !html.contains("data-testid=\"holding-"), "{name} reads it, with no form");
            }
            for action in ["claim", "release"] {
                let (status, answer) = hold(&console, &format!("{name}-{action}"), "operation", OP, action, "").await;
                assert_eq!(status, 403, "{name} {action}: {answer}");
            }
        }
        app.add_user("globex", "gil", Role::Manager).await;
        let gil = app.console();
        assert_eq!(gil.sign_in("gil", PASSWORD, "/").await.headers()["location"], "/");
        for action in ["claim", "release"] {
            let (status, answer) = hold(&gil, &format!("g-{action}"), "operation", OP, action, "").await;
            assert_eq!(status, 404, "acme's operation is not globex's: {answer}");
        }
        let (status, _) = hold(&gil, "g-order", "order", "order:1043", "claim", "").await;
        assert_eq!(status, 404, "nor its order");
        let (status, answer) = hold(&ana, "bad", "operation", "<script>alert(1)</script>", "claim", "").await;
        assert_eq!(status, 404, "an item that is not one is not found: {answer}");
        assert_eq!(holder(&app, op()).await.as_deref(), Some("ana"), "nothing changed");
    }

    an_order_is_held_like_an_operation_and_a_deactivated_persons_items_are_released(app) {
        assert_eq!(app.register(&refund_1043(38000)).await.0, 201);
        let ada = app.signed_in("ada", Role::Admin).await;
        let ana = app.signed_in("ana", Role::Support).await;
        assert_eq!(hold(&ana, "c1", "operation", OP, "claim", "").await.0, 200);
        let (status, answer) = hold(&ana, "c2", "order", "order:1043", "claim", "").await;
        assert_eq!(status, 200, "{answer}");
        let order = Item::Order("order:1043".into());
        assert_eq!(holder(&app, order.clone()).await.as_deref(), Some("ana"));
        let (status, _) = hold(&ana, "c3", "order", "order:9999", "claim", "").await;
        assert_eq!(status, 404, "an order the tenant does not have");

        let csrf = ada.csrf().await;
        let (status, answer) = ada
            .call("change_person", &[("csrf", &csrf), ("name", "ana"), ("change", "deactivate"), ("role", ""), ("reason", "left")])
            .await;
        assert_eq!(status, 200, "{answer}");
        assert_eq!(holder(&app, op()).await, None, "her operation is unheld");
        assert_eq!(holder(&app, order).await, None, "and her order");
        let trail = holding_trail(&app).await;
        assert_eq!(trail.len(), 2, "claim, then release: {trail:?}");
        assert_eq!((trail[1].0.as_str(), trail[1].1.as_str()), ("ada", "release"));
        assert_eq!((trail[1].2["holder"].as_str(), trail[1].2["because"].as_str()), (Some("ana"), Some("deactivated")));
        let maya = app.signed_in("maya", Role::Manager).await;
        let (status, answer) = hold(&maya, "m1", "operation", OP, "assign", "ana").await;
        assert_eq!((status, answer.contains("ana is deactivated")), (422, true), "{answer}");
    }

    a_note_is_text_its_mentions_are_mailed_once_and_only_its_author_edits_it(app) {
        let mail = mentions_by_mail(&app).await;
        assert_eq!(app.register(&refund_1043(38000)).await.0, 201);
        let sam = app.signed_in("sam", Role::Support).await;
        let body = "客人來電：卡片被扣兩次 <script>alert(1)</script> @maria 請看 https://dashboard.stripe.com/refunds/re_1. @ghost";
        let (status, answer) = note(&sam, "n1", OP, body).await;
        assert_eq!(status, 200, "{answer}");
        assert!(answer.contains("maria will be told"), "{answer}");
        let html = sam.page(&format!("/operations/{OP}"), 200).await;
        let shown: Vec<String> = html.match_indices("alert(1)").map(|(at, _)| html[..at].chars().rev().take(300).collect::<String>().chars().rev().collect()).collect();
        assert!(html.contains("&lt;script&gt;alert(1)&lt;/script&gt;") && !html.contains("<script>alert(1)"), "markup is shown as text: {shown:?}");
        assert!(html.contains("href=\"https://dashboard.stripe.com/refunds/re_1\""), "the link is a link");
        assert!(html.contains("class=\"mention\""), "the mention is marked");
        assert!(html.contains("@ghost"), "a name nobody has stays plain text");

        let notifier = Notifier::new(app.ledger.clone(), "https://ops.acme.example", std::time::Duration::from_secs(1));
        notifier.pass().await.unwrap();
        notifier.pass().await.unwrap();
        let messages = mail.mailbox();
        assert_eq!(messages.iter().flat_map(|m| m.to.clone()).collect::<Vec<_>>(), ["maria@acme.example"], "maria alone, once");
        let text = plain_text(&messages[0].text);
        assert!(text.contains("https://ops.acme.example/operations/refund-1043-li_2#notes"), "{text}");
        assert!(text.contains("sam 在 refund-1043-li_2 的備註中提到了你") && text.contains("卡片被扣兩次"), "in maria's zh-TW, with the note: {text}");
        assert!(messages[0].subject.to_ascii_lowercase().contains("=?utf-8?"), "a subject in zh-TW: {}", messages[0].subject);

        let trail = note_trail(&app).await;
        assert_eq!(trail.len(), 1);
        assert_eq!((trail[0].0.as_str(), trail[0].1.as_str()), ("sam", "add_note"));
        assert_eq!(trail[0].2["body"], body.trim(), "the audit chain holds the note's text");
        assert_eq!(trail[0].2["mentions"], json!(["maria"]));
        let note_id = trail[0].2["note_id"].as_str().unwrap().to_owned();

        let ben = app.signed_in("ben", Role::Support).await;
        let csrf = ben.csrf().await;
        let (status, answer) = ben.call("edit_note", &[("csrf", &csrf), ("key", "e1"), ("note_id", &note_id), ("body", "mine now")]).await;
        assert_eq!((status, answer.contains("Only its author edits a note")), (422, true), "{answer}");
        let csrf = sam.csrf().await;
        let edited = "客人來電：卡片被扣兩次，已退一筆 @maria @mei";
        let (status, answer) = sam.call("edit_note", &[("csrf", &csrf), ("key", "e2"), ("note_id", &note_id), ("body", edited)]).await;
        assert_eq!(status, 200, "{answer}");
        notifier.pass().await.unwrap();
        let to: Vec<String> = mail.mailbox().iter().flat_map(|m| m.to.clone()).collect();
        assert_eq!(to, ["maria@acme.example", "mei@acme.example"], "the edit tells mei, newly mentioned, and not maria again");
        let html = ben.page(&format!("/operations/{OP}"), 200).await;
        assert!(html.contains("version 2") && html.contains("Earlier versions") && html.contains("&lt;script&gt;"), "the old version stays");
        let trail = note_trail(&app).await;
        let actions: Vec<&str> = trail.iter().map(|(_, action, _)| action.as_str()).collect();
        assert_eq!(actions, ["add_note", "edit_note"]);
        assert_eq!(trail[1].2["version"], 2);
    }

    bad_notes_are_refused_and_change_nothing_and_auditors_and_other_tenants_write_none(app) {
        assert_eq!(app.register(&refund_1043(38000)).await.0, 201);
        let sam = app.signed_in("sam", Role::Support).await;
        let (status, answer) = note(&sam, "b1", OP, "   ").await;
        assert_eq!((status, answer.contains("the note is empty")), (422, true), "{answer}");
        let (status, answer) = note(&sam, "b2", OP, &"字".repeat(4001)).await;
        assert_eq!((status, answer.contains("4,001 characters") || answer.contains("4001 characters")), (422, true), "{answer}");
        let (status, answer) = note(&sam, "b3", OP, "bell \u{7}").await;
        assert_eq!((status, answer.contains("control character")), (422, true), "{answer}");
        let audrey = app.signed_in("audrey", Role::Auditor).await;
        let (status, _) = note(&audrey, "b4", OP, "an auditor's word").await;
        assert_eq!(status, 403, "auditors read notes and write none");
        app.add_user("globex", "gil", Role::Manager).await;
        let gil = app.console();
        gil.sign_in("gil", PASSWORD, "/").await;
        let (status, _) = note(&gil, "b5", OP, "another tenant's word").await;
        assert_eq!(status, 404, "acme's operation is not globex's");
        assert!(note_trail(&app).await.is_empty(), "nothing was written");
        assert_eq!(note(&sam, "b6", OP, "customer called").await.0, 200);
        let html = audrey.page(&format!("/operations/{OP}"), 200).await;
        assert!(html.contains("customer called") && !html.contains("data-testid=\"note-form\""), "the auditor reads it, with no form");
    }

    a_manager_shares_a_view_as_supports_default_and_support_opens_it(app) {
        for (op, state) in [("refund-1043-li_2", "timeout"), ("refund-1043-li_3", "")] {
            let mut body = refund_1043(38000);
            body["op_id"] = json!(op);
            assert_eq!(app.register(&body).await.0, 201);
            if !state.is_empty() {
                assert_eq!(app.begin_attempt(op).await.0, 201);
                assert_eq!(app.report(op, 1, &json!({"outcome": state})).await.0, 200);
            }
        }
        let maria = app.signed_in("maria", Role::Manager).await;
        let sam = app.signed_in("sam", Role::Support).await;
        let (status, answer) = save_view(&maria, "v1", &[("name", "Unknown refunds"), ("query", "state=unknown&kind=refund"), ("shared", "yes"), ("default_for", "support")]).await;
        assert_eq!(status, 200, "{answer}");
        let (status, answer) = save_view(&sam, "v2", &[("name", "Team"), ("query", "state=unknown"), ("shared", "yes")]).await;
        assert_eq!(status, 403, "support shares nothing: {answer}");
        let (status, answer) = save_view(&sam, "v3", &[("name", "Sorted"), ("query", "state=unknown&sort=amount")]).await;
        assert_eq!((status, answer.contains("has no filter “sort”")), (422, true), "{answer}");
        let (status, answer) = save_view(&sam, "v4", &[("name", "Lost"), ("query", "state=lost")]).await;
        assert_eq!((status, answer.contains("There is no state named “lost”")), (422, true), "{answer}");
        let (status, answer) = save_view(&sam, "v5", &[("name", ""), ("query", "state=unknown")]).await;
        assert_eq!(status, 422, "{answer}");
        let (status, answer) = save_view(&sam, "v6", &[("name", "Mine"), ("query", "held=mine")]).await;
        assert_eq!(status, 200, "{answer}");

        let (_, body) = sam.call("saved_views", &[]).await;
        let list: serde_json::Value = serde_json::from_str(&body).unwrap();
        let views = list["views"].as_array().unwrap();
        assert_eq!(views.len(), 2, "the shared view and sam's own: {list}");
        assert_eq!((views[0]["name"].as_str(), views[0]["default_for_me"].as_bool()), (Some("Unknown refunds"), Some(true)), "support's default first");
        assert_eq!(views[0]["count"], 1, "one unknown refund");
        let id = views[0]["id"].as_str().unwrap().to_owned();
        let response = sam.get(&format!("/views/{id}")).await;
        assert_eq!(response.status().as_u16(), 303);
        assert_eq!(response.headers()["location"], "/operations?state=unknown&kind=refund");
        let (_, body) = maria.call("saved_views", &[]).await;
        assert!(!body.contains("\"Mine\""), "sam's own view is sam's: {body}");
        let csrf = sam.csrf().await;
        let (status, _) = sam.call("remove_view", &[("csrf", &csrf), ("key", "r1"), ("id", &id)]).await;
        assert_eq!(status, 404, "support removes no shared view");
        let html = sam.page("/", 200).await;
        assert!(html.contains("Unknown refunds") && html.contains(&format!("/views/{id}")), "the overview lists it");

        app.add_user("globex", "gil", Role::Manager).await;
        let gil = app.console();
        gil.sign_in("gil", PASSWORD, "/").await;
        assert_eq!(gil.get(&format!("/views/{id}")).await.status().as_u16(), 404, "another tenant's view is not found");
    }
}
