//! The notifications console over HTTP: an admin adds a shared destination and a rule and finds
//! them on the page in words; bad input (a webhook URL to a private address, a role that does not
//! exist, a wait of zero or of ten years, someone who is not there) is refused naming its field
//! and changes nothing; only admins reach these forms; and each person sets where they are told,
//! for themselves alone.

use opledger::domain::policy::Role;

use crate::support::Console;

/// The admin's call of a notification form with the session's CSRF token; the status and body.
async fn call(console: &Console, function: &str, fields: &[(&str, &str)]) -> (u16, String) {
    let csrf = console.csrf().await;
    let mut form = vec![("csrf", csrf.as_str())];
    form.extend_from_slice(fields);
    console.call(function, &form).await
}

/// A rule of approvals for managers by e-mail at once, with `changes` over it.
fn rule_form<'a>(changes: &[(&'a str, &'a str)]) -> Vec<(&'a str, &'a str)> {
    let mut form = vec![
        ("event", "approval_requested"),
        ("audience", "role:manager"),
        ("people", ""),
        ("channel", "email"),
        ("after", "0"),
        ("remind_every", ""),
        ("escalate_after", ""),
        ("escalate_to", ""),
    ];
    for (name, value) in changes {
        form.retain(|(field, _)| field != name);
        form.push((name, value));
    }
    form
}

/// Asserts a refusal of `field`: 422, and the body names it.
fn refused_on(field: &str, (status, body): (u16, String)) {
    assert_eq!(status, 422, "{field}: {body}");
    assert!(
        body.contains("invalid_field") && body.contains(&format!("\"field\":\"{field}\"")),
        "names {field}: {body}"
    );
}

crate::engine_tests! {
    an_admin_adds_a_destination_and_a_rule_and_sees_them_in_words(app) {
        let admin = app.signed_in("ada", Role::Admin).await;
        let html = admin.page("/admin/notifications", 200).await;
        assert!(html.contains("No rules: nobody is told of anything"), "the empty page says what to do");
        assert!(html.contains("Nothing sent yet"), "and so does the empty log");

        let (status, body) = call(&admin, "add_notify_destination", &[("name", "ops-mail"), ("channel", "email"), ("target", "ops@shop.example")]).await;
        assert_eq!(status, 200, "{body}");
        let (status, body) = call(&admin, "add_notify_rule", &rule_form(&[("remind_every", "30m"), ("escalate_after", "2h"), ("escalate_to", "destination:ops-mail")])).await;
        assert_eq!(status, 200, "{body}");
        let (status, body) = call(&admin, "add_notify_rule", &rule_form(&[("event", "needs_review"), ("audience", "destination:ops-mail"), ("after", "15m")])).await;
        assert_eq!(status, 200, "{body}");
        assert_eq!(app.number("select count(*) from notify_rules").await, 2);

        let html = admin.page("/admin/notifications", 200).await;
        for words in [
            "ops@shop.example",
            "data-testid=\"notify-rule\"",
            "Approval requested",
            "everyone who is manager",
            "at once",
            "every 30m, at most 3 times",
            "after 2h, to the destination ops-mail",
            "Needs review",
            "15m after the event",
        ] {
            assert!(html.contains(words), "the page shows {words:?}");
        }

        let (status, body) = call(&admin, "remove_notify_destination", &[("name", "ops-mail"), ("confirmed", "yes")]).await;
        assert_eq!(status, 422, "a destination a rule sends to stays: {body}");
        let id = html.split("data-testid=\"notify-rule\" data-id=\"").nth(1).and_then(|rest| rest.split('"').next()).unwrap().to_owned();
        let (status, body) = call(&admin, "remove_notify_rule", &[("id", &id)]).await;
        assert_eq!(status, 422, "a removal waits for its confirmation: {body}");
        let (status, body) = call(&admin, "remove_notify_rule", &[("id", &id), ("confirmed", "yes")]).await;
        assert_eq!(status, 200, "{body}");
        assert_eq!(app.number("select count(*) from notify_rules").await, 1);

        let (status, body) = call(&admin, "set_notify_smtp", &[("host", "smtp.shop.example"), ("port", "587"), ("security", "starttls"), ("username", "ops"), ("password", "a mail password"), ("from_address", "ops@shop.example")]).await;
        assert_eq!(status, 200, "{body}");
        let (status, body) = call(&admin, "set_notify_line", &[("api_base", ""), ("channel_token", "line-token-abcd1234")]).await;
        assert_eq!(status, 200, "{body}");
        let html = admin.page("/admin/notifications", 200).await;
        assert!(html.contains("Password: set.") && html.contains("smtp.shop.example"), "the SMTP server, its password only as set");
        assert!(html.contains("1234") && !html.contains("line-token-abcd1234") && !html.contains("a mail password"), "secrets are never shown");
    }

    bad_input_is_refused_naming_its_field_and_changes_nothing(app) {
        let admin = app.signed_in("ada", Role::Admin).await;
        refused_on("target", call(&admin, "add_notify_destination", &[("name", "ops-slack"), ("channel", "slack"), ("target", "http://10.0.0.5/hook")]).await);
        refused_on("name", call(&admin, "add_notify_destination", &[("name", "Ops Slack"), ("channel", "email"), ("target", "ops@shop.example")]).await);
        assert_eq!(app.number("select count(*) from notify_destinations").await, 0);

        refused_on("audience", call(&admin, "add_notify_rule", &rule_form(&[("audience", "role:boss")])).await);
        refused_on("remind_every", call(&admin, "add_notify_rule", &rule_form(&[("remind_every", "0")])).await);
        refused_on("remind_every", call(&admin, "add_notify_rule", &rule_form(&[("remind_every", "3650d")])).await);
        refused_on("people", call(&admin, "add_notify_rule", &rule_form(&[("audience", "people"), ("people", "nobody-here")])).await);
        refused_on("audience", call(&admin, "add_notify_rule", &rule_form(&[("audience", "destination:not-there")])).await);
        refused_on("after", call(&admin, "add_notify_rule", &rule_form(&[("after", "soon")])).await);
        refused_on("escalate_to", call(&admin, "add_notify_rule", &rule_form(&[("escalate_after", "1h")])).await);
        refused_on("port", call(&admin, "set_notify_smtp", &[("host", "smtp.shop.example"), ("port", "99999"), ("security", "tls"), ("from_address", "ops@shop.example")]).await);
        refused_on("from_address", call(&admin, "set_notify_smtp", &[("host", "smtp.shop.example"), ("port", "465"), ("security", "tls"), ("from_address", "not an address")]).await);
        assert_eq!(app.number("select count(*) from notify_rules").await, 0, "nothing was kept");
        assert_eq!(app.number("select count(*) from notify_settings").await, 0);

        let (status, body) = admin
            .client
            .post(format!("{}/rpc/add_notify_rule", admin.base()))
            .header("accept-language", "zh-TW")
            .form(&[("csrf", admin.csrf().await.as_str()), ("event", "approval_requested"), ("audience", "role:manager"), ("channel", "email"), ("after", "0"), ("remind_every", "0")])
            .send()
            .await
            .map(|response| (response.status().as_u16(), response))
            .unwrap();
        assert_eq!(status, 422);
        let body = body.text().await.unwrap();
        assert!(body.contains("提醒間隔"), "the field is named as the page labels it: {body}");
    }

    only_admins_reach_the_notification_forms(app) {
        let support = app.signed_in("sam", Role::Support).await;
        let (status, _) = support.call("notification_settings", &[]).await;
        assert_eq!(status, 403);
        for (function, fields) in [
            ("add_notify_destination", vec![("name", "ops-mail"), ("channel", "email"), ("target", "ops@shop.example")]),
            ("add_notify_rule", rule_form(&[])),
            ("set_notify_smtp", vec![("host", "smtp.shop.example"), ("port", "587"), ("security", "starttls"), ("from_address", "ops@shop.example")]),
            ("remove_notify_rule", vec![("id", "nr_000000000000"), ("confirmed", "yes")]),
            ("resend_notification", vec![("id", "x")]),
        ] {
            let (status, body) = call(&support, function, &fields).await;
            assert_eq!(status, 403, "{function}: {body}");
        }
        assert_eq!(app.number("select count(*) from notify_rules").await, 0);
        assert_eq!(app.number("select count(*) from notify_destinations").await, 0);
        support.page("/admin/notifications", 403).await;
        let own = support.page("/account/notifications", 200).await;
        assert!(own.contains("Your notifications") && own.contains("Escalations still reach you"), "their own page is theirs");
    }

    each_person_sets_where_they_are_told_for_themselves_alone(app) {
        let sam = app.signed_in("sam", Role::Support).await;
        let _maria = app.signed_in("maria", Role::Manager).await;
        let line_id = format!("U{}", "0a".repeat(16));
        let (status, body) = call(&sam, "set_my_notifications", &[
            ("email", "sam@shop.example"),
            ("line_user_id", &line_id),
            ("time_zone", "Asia/Taipei"),
            ("quiet_hours", "22:00-07:30"),
            ("mutes[0]", "event:digest"),
            ("mutes[1]", "channel:line"),
        ]).await;
        assert_eq!(status, 200, "{body}");
        let html = sam.page("/account/notifications", 200).await;
        assert!(html.contains("sam@shop.example") && html.contains("Asia/Taipei") && html.contains("22:00-07:30"), "their settings show");
        let line_box = html.split("value=\"channel:line\"").nth(1).and_then(|rest| rest.split('>').next()).unwrap_or_default();
        assert!(line_box.contains("checked"), "and their mutes: {line_box}");
        assert!(html.contains("Nothing sent to you yet"));

        refused_on("time_zone", call(&sam, "set_my_notifications", &[("time_zone", "Mars/Olympus")]).await);
        refused_on("quiet_hours", call(&sam, "set_my_notifications", &[("time_zone", "UTC"), ("quiet_hours", "late")]).await);
        refused_on("email", call(&sam, "set_my_notifications", &[("email", "sam")]).await);
        assert_eq!(app.number("select count(*) from users where time_zone = 'Asia/Taipei'").await, 1, "nothing changed");

        let (status, body) = call(&sam, "set_my_notifications", &[("user_id", "maria"), ("name", "maria"), ("email", "sam-as-maria@shop.example")]).await;
        assert_eq!(status, 200, "{body}");
        assert_eq!(app.number("select count(*) from users where name = 'maria' and email is not null").await, 0, "maria's stay hers");
        assert_eq!(app.number("select count(*) from users where name = 'sam' and email = 'sam-as-maria@shop.example'").await, 1, "the form changed sam's own");

        let signed_out = app.console();
        let (status, _) = signed_out.call("set_my_notifications", &[("csrf", "x"), ("email", "x@shop.example")]).await;
        assert_eq!(status, 401);
    }
}
