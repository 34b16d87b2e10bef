//! People leave: an admin deactivates, re-roles, signs out and resets the password of the people
//! of their tenant, each with a reason in the audit trail. Taking access away ends the person's
//! sessions at once (their next request is a sign-in page, their live stream closes); the rules
//! keep a tenant's last admin and stop an admin from changing themselves, even when two admins act
//! at once; a password link works once, for 30 minutes; a session ends at its absolute deadline.

use std::time::{Duration, Instant};

use opledger::domain::ids::TenantId;
use opledger::domain::people::SessionLifetimes;
use opledger::domain::policy::Role;

use crate::support::{Console, TestApp, PASSWORD};

/// The admin's change to `name` through the console; the status and the answer.
async fn change(admin: &Console, name: &str, what: &str, role: &str, reason: &str) -> (u16, String) {
    change_with(admin, &admin.csrf().await, name, what, role, reason).await
}

/// [`change`] with a CSRF token read before.
async fn change_with(
    admin: &Console,
    csrf: &str,
    name: &str,
    what: &str,
    role: &str,
    reason: &str,
) -> (u16, String) {
    admin
        .call(
            "change_person",
            &[("csrf", csrf), ("name", name), ("change", what), ("role", role), ("reason", reason)],
        )
        .await
}

/// Whether the console's session still opens a page (303 to sign-in when it does not).
async fn still_in(console: &Console) -> bool {
    let status = console.get("/conflicts").await.status().as_u16();
    assert!(status == 200 || status == 303, "a page or the sign-in: {status}");
    status == 200
}

/// The link a reset's answer carries, as a path.
fn reset_path(answer: &str) -> String {
    let start = answer.find("/password-reset?token=").expect("the answer carries the link");
    answer[start..].split(|c: char| c.is_whitespace() || c == '"').next().unwrap().to_owned()
}

crate::engine_tests! {
    a_deactivated_person_is_out_at_once_and_their_audit_entries_stay_theirs(app) {
        let admin = app.signed_in("ada", Role::Admin).await;
        let manager = app.signed_in("max", Role::Manager).await;
        let csrf = manager.csrf().await;
        let (status, _) = manager.call("set_tenant_language", &[("csrf", &csrf), ("language", "en")]).await;
        assert_eq!(status, 403, "a manager is not an admin");
        assert!(still_in(&manager).await);

        let (status, answer) = change(&admin, "max", "deactivate", "", "left the company").await;
        assert_eq!(status, 200, "{answer}");
        assert!(answer.contains("max") && answer.contains("open session ended"), "one session ended: {answer}");
        assert!(!still_in(&manager).await, "the manager's next click is the sign-in page");
        let (status, _) = manager.call("approvals", &[]).await;
        assert_eq!(status, 401, "and their server functions refuse them");
        let again = app.console();
        let response = again.sign_in("max", PASSWORD, "/").await;
        assert!(response.headers()["location"].to_str().unwrap().starts_with("/login?error=invalid"), "cannot sign in again");

        let acme = TenantId::parse("acme").unwrap();
        let chain = app.ledger.audit_chain(&acme).await.unwrap();
        let entry = chain.iter().find(|record| record.entry.action == "deactivate_user").expect("audited").entry.clone();
        assert_eq!((entry.actor.as_str(), entry.reason.as_deref()), ("ada", Some("left the company")));
        assert_eq!(entry.evidence["name"], "max");
        let users = app.ledger.reads().tenant_users(&acme).await.unwrap();
        assert!(users.iter().any(|user| user.name == "max"), "the person's row stays, so their entries stay theirs");

        let (status, answer) = change(&admin, "max", "reactivate", "", "came back").await;
        assert_eq!(status, 200, "{answer}");
        let back = app.console();
        assert_eq!(back.sign_in("max", PASSWORD, "/").await.headers()["location"], "/", "signs in again");
        assert_eq!(back.page("/approvals", 200).await.is_empty(), false);
    }

    a_deactivated_persons_api_tokens_are_revoked_unless_an_admin_hands_them_over(app) {
        let ada = app.signed_in("ada", Role::Admin).await;
        let bea = app.signed_in("bea", Role::Admin).await;
        let created = |name: &'static str| {
            let bea = &bea;
            async move {
                let csrf = bea.csrf().await;
                let (status, body) = bea
                    .call("create_api_token", &[("csrf", csrf.as_str()), ("name", name), ("scopes[0]", "read")])
                    .await;
                assert_eq!(status, 200, "{body}");
                let answer: String = serde_json::from_str(&body).unwrap();
                answer.split_whitespace().find(|word| word.starts_with("opl_")).expect("the secret").to_owned()
            }
        };
        let kept = created("kept-agent").await;
        let app = &app;
        let reads = |token: String| async move { app.get_as(&token, "/api/v1/operations/no-such-op").await.0 };
        assert_eq!(reads(kept.clone()).await, 404, "the token works");

        let (status, answer) = change(&ada, "bea", "deactivate", "", "left").await;
        assert_eq!(status, 200, "{answer}");
        assert!(answer.contains("API token they made is revoked"), "{answer}");
        assert_eq!(reads(kept.clone()).await, 401, "the token of a person who left is refused at once");
        let acme = TenantId::parse("acme").unwrap();
        let chain = app.ledger.audit_chain(&acme).await.unwrap();
        let revoked = chain.iter().find(|record| record.entry.action == "revoke_api_token").expect("audited").entry.clone();
        assert_eq!((revoked.actor.as_str(), revoked.evidence["name"].as_str()), ("ada", Some("kept-agent")));

        change(&ada, "bea", "reactivate", "", "back for a week").await;
        let bea_again = app.console();
        bea_again.sign_in("bea", PASSWORD, "/").await;
        let csrf = bea_again.csrf().await;
        let (_, body) = bea_again
            .call("create_api_token", &[("csrf", csrf.as_str()), ("name", "handed-over"), ("scopes[0]", "read")])
            .await;
        let answer: String = serde_json::from_str(&body).unwrap();
        let handed = answer.split_whitespace().find(|word| word.starts_with("opl_")).expect("the secret").to_owned();
        let csrf = ada.csrf().await;
        let (status, answer) = ada
            .call("change_person", &[("csrf", &csrf), ("name", "bea"), ("change", "deactivate"), ("reason", "left again"), ("tokens_to", "bea")])
            .await;
        assert_eq!(status, 422, "not to the person who leaves: {answer}");
        let (status, answer) = ada
            .call("change_person", &[("csrf", &csrf), ("name", "bea"), ("change", "deactivate"), ("reason", "left again"), ("tokens_to", "ada")])
            .await;
        assert_eq!(status, 200, "{answer}");
        assert!(answer.contains("now belongs to ada"), "{answer}");
        assert_eq!(reads(handed).await, 404, "a handed-over token keeps working");
        let listed = app.ledger.tokens(&acme).await.unwrap();
        let token = listed.iter().find(|token| token.name == "handed-over").unwrap();
        assert_eq!(token.created_by, "ada");
    }

    the_live_stream_of_a_deactivated_person_closes_within_a_second_or_two(app) {
        let admin = app.signed_in("ada", Role::Admin).await;
        let support = app.signed_in("sue", Role::Support).await;
        let mut stream = support.get("/live/operations").await;
        assert_eq!(stream.status().as_u16(), 200);
        let (status, answer) = change(&admin, "sue", "deactivate", "", "left").await;
        assert_eq!(status, 200, "{answer}");
        let started = Instant::now();
        let closed = tokio::time::timeout(Duration::from_secs(5), async {
            while let Ok(Some(_)) = stream.chunk().await {}
        })
        .await;
        assert!(closed.is_ok(), "the stream is still open after 5 s");
        assert!(started.elapsed() < Duration::from_millis(2500), "closed after {:?}", started.elapsed());
    }

    a_new_role_takes_effect_at_the_persons_next_click(app) {
        let admin = app.signed_in("ada", Role::Admin).await;
        let manager = app.signed_in("max", Role::Manager).await;
        manager.page("/approvals", 200).await;
        let (status, answer) = change(&admin, "max", "role", "support", "moved to support").await;
        assert_eq!(status, 200, "{answer}");
        assert!(!still_in(&manager).await, "the old role's session ended");
        let again = app.console();
        again.sign_in("max", PASSWORD, "/").await;
        again.page("/approvals", 403).await;
        let acme = TenantId::parse("acme").unwrap();
        let chain = app.ledger.audit_chain(&acme).await.unwrap();
        let entry = &chain.iter().find(|record| record.entry.action == "set_user_role").expect("audited").entry;
        assert_eq!((entry.evidence["role"].as_str(), entry.evidence["previous_role"].as_str()), (Some("support"), Some("manager")));

        let (status, answer) = change(&admin, "max", "role", "owner", "promotion").await;
        assert_eq!(status, 422, "a role that does not exist: {answer}");
        let (status, answer) = change(&admin, "max", "role", "manager", "   ").await;
        assert_eq!(status, 422, "a change needs a reason: {answer}");
        let (status, answer) = change(&admin, "nobody", "deactivate", "", "gone").await;
        assert_eq!(status, 404, "{answer}");
        let (status, answer) = change(&admin, "max", "promote", "", "why not").await;
        assert_eq!(status, 422, "{answer}");
        assert_eq!(app.number("select count(*) from users where name = 'max' and role = 'support'").await, 1, "nothing changed");
    }

    an_admin_cannot_change_themselves_nor_remove_the_last_admin(app) {
        let ada = app.signed_in("ada", Role::Admin).await;
        let (status, answer) = change(&ada, "ada", "role", "support", "trying").await;
        assert_eq!(status, 422, "{answer}");
        assert!(answer.contains("own role"), "{answer}");
        let (status, answer) = change(&ada, "ada", "deactivate", "", "trying").await;
        assert_eq!(status, 422, "{answer}");

        let bea = app.signed_in("bea", Role::Admin).await;
        let (status, answer) = change(&bea, "ada", "role", "auditor", "now audits").await;
        assert_eq!(status, 200, "{answer}");
        let (status, answer) = change(&bea, "bea", "role", "support", "trying").await;
        assert_eq!(status, 422, "{answer}");

        let cid = app.signed_in("cid", Role::Admin).await;
        let (bea_csrf, cid_csrf) = (bea.csrf().await, cid.csrf().await);
        let (a, b) = tokio::join!(
            change_with(&bea, &bea_csrf, "cid", "deactivate", "", "at once"),
            change_with(&cid, &cid_csrf, "bea", "deactivate", "", "at once"),
        );
        let successes = [a.0, b.0].iter().filter(|status| **status == 200).count();
        assert_eq!(successes, 1, "two admins deactivating each other at once leave one admin: {a:?} {b:?}");
        for (status, body) in [&a, &b] {
            assert!(matches!(status, 200 | 401 | 422), "the other is refused (its session ended, or the last admin): {body}");
        }
        assert_eq!(
            app.number("select count(*) from users where tenant = 'acme' and role = 'admin' and status = 'active'").await,
            1
        );
    }

    sign_out_everywhere_ends_every_session_of_that_person_only(app) {
        let admin = app.signed_in("ada", Role::Admin).await;
        let first = app.signed_in("sue", Role::Support).await;
        let second = app.console();
        second.sign_in("sue", PASSWORD, "/").await;
        let other = app.signed_in("sam", Role::Support).await;
        let (status, answer) = change(&admin, "sue", "sign_out", "", "lost her laptop").await;
        assert_eq!(status, 200, "{answer}");
        assert!(answer.contains('2'), "two sessions ended: {answer}");
        assert!(!still_in(&first).await && !still_in(&second).await);
        assert!(still_in(&other).await && still_in(&admin).await, "nobody else is signed out");
        let again = app.console();
        assert_eq!(again.sign_in("sue", PASSWORD, "/").await.headers()["location"], "/", "she may sign in again");
    }

    a_password_link_works_once_and_only_for_half_an_hour(app) {
        let admin = app.signed_in("ada", Role::Admin).await;
        let support = app.signed_in("sue", Role::Support).await;
        let (status, answer) = change(&admin, "sue", "reset_password", "", "forgot it").await;
        assert_eq!(status, 200, "{answer}");
        let path = reset_path(&answer);
        let token = path.split("token=").nth(1).unwrap().to_owned();
        assert!(token.len() >= 64, "a long secret");
        let stored = app.number(&format!("select count(*) from password_resets where secret_hash = '{token}'")).await;
        assert_eq!(stored, 0, "only a hash of the secret is stored");
        let acme = TenantId::parse("acme").unwrap();
        let chain = app.ledger.audit_chain(&acme).await.unwrap();
        let audited = serde_json::to_string(&chain).unwrap();
        assert!(audited.contains("reset_password") && !audited.contains(&token), "audited without the secret");

        let visitor = app.console();
        let page = visitor.page(&path, 200).await;
        assert!(page.contains("sue"), "the page says whose password it sets");
        let post = |password: &'static str, again: &'static str| {
            let (visitor, token) = (&visitor, token.clone());
            async move {
                let response = visitor
                    .post_form("/password-reset", &[("token", &token), ("password", password), ("password_again", again)])
                    .await;
                response.headers()["location"].to_str().unwrap().to_owned()
            }
        };
        assert!(post("a new long password", "a new long passw0rd").await.contains("error=mismatch"));
        assert!(post("short", "short").await.contains("error=weak"));
        assert!(still_in(&support).await, "nothing changed yet");
        let done = post("a new long password", "a new long password").await;
        assert!(done.starts_with("/login?reset=1"), "{done}");
        assert!(!still_in(&support).await, "her open session ended");
        assert!(post("another long password", "another long password").await.contains("error=dead"), "once only");
        let old = app.console();
        assert!(old.sign_in("sue", PASSWORD, "/").await.headers()["location"].to_str().unwrap().contains("error=invalid"));
        let new = app.console();
        assert_eq!(new.sign_in("sue", "a new long password", "/").await.headers()["location"], "/");

        let (_, answer) = change(&admin, "sue", "reset_password", "", "again").await;
        let late = reset_path(&answer);
        app.tamper("update password_resets set expires_at_us = expires_at_us - 1800000001 where used_at_us is null").await;
        let page = visitor.page(&late, 404).await;
        assert!(page.contains("no longer works"), "an expired link says so");

        app.tamper("update users set source = 'sso' where name = 'sue'").await;
        let (status, answer) = change(&admin, "sue", "reset_password", "", "forgot it").await;
        assert_eq!(status, 422, "a company account's password is kept by the company: {answer}");
        let (status, answer) = change(&admin, "sue", "role", "manager", "promotion").await;
        assert_eq!(status, 422, "a company account's role comes from its groups: {answer}");
        assert!(answer.contains("groups"), "{answer}");
    }

    another_tenants_admin_changes_nobody_here(app) {
        app.signed_in("sue", Role::Support).await;
        app.add_user("globex", "gia", Role::Admin).await;
        let globex = app.console();
        globex.sign_in("gia", PASSWORD, "/").await;
        let (status, answer) = change(&globex, "sue", "deactivate", "", "not mine").await;
        assert_eq!(status, 404, "{answer}");
        assert_eq!(app.number("select count(*) from users where name = 'sue' and status = 'active'").await, 1);
    }

    the_people_page_shows_status_source_and_last_sign_in(app) {
        let admin = app.signed_in("ada", Role::Admin).await;
        app.add_user("acme", "nel", Role::Auditor).await;
        let html = admin.page("/admin", 200).await;
        for expected in ["ada", "(you)", "nel", "never", "Active", "Password", "Sign-in and access"] {
            assert!(html.contains(expected), "the people page lacks {expected}");
        }
        change(&admin, "nel", "deactivate", "", "left").await;
        assert!(admin.page("/admin", 200).await.contains("Deactivated"));
        let access = admin.page("/admin/access", 200).await;
        assert!(access.contains("30 minutes") && access.contains("12 hours"), "the session lifetimes");
    }

    a_session_ends_at_its_absolute_deadline_however_busy(app) {
        let short = TestApp::spawn_with(app.database.engine(), |settings| {
            settings.session_lifetimes =
                SessionLifetimes { idle: chrono::Duration::minutes(30), absolute: chrono::Duration::seconds(3) };
        })
        .await
        .expect("a second application");
        let support = short.signed_in("sue", Role::Support).await;
        assert!(still_in(&support).await);
        tokio::time::sleep(Duration::from_millis(1200)).await;
        assert!(still_in(&support).await, "busy within its lifetime");
        tokio::time::sleep(Duration::from_millis(2300)).await;
        assert!(!still_in(&support).await, "over after three seconds however busy");
    }
}
