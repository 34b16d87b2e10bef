//! The audit page and the exports over HTTP: the auditor reads and filters the tenant's events a
//! page at a time; exports stream CSV and JSON Lines for the page's filter, named after the tenant
//! and range, with formula cells neutralised; a whole export verifies offline and a filtered one
//! verifies event by event; every export is itself audited; other roles and tenants get nothing.

use opledger::domain::{ids::TenantId, policy::Role};
use serde_json::{json, Value};
use std::process::Command;

use crate::support::{refund_1043, Console, TestApp};

fn verify(text: &str, partial: bool) -> (bool, String) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("export.jsonl");
    std::fs::write(&path, text).unwrap();
    let mut args = vec!["audit", "verify", path.to_str().unwrap()];
    if partial {
        args.push("--partial");
    }
    let output = Command::new(env!("CARGO_BIN_EXE_opledger")).args(&args).output().unwrap();
    let said = String::from_utf8_lossy(&output.stdout).to_string() + &String::from_utf8_lossy(&output.stderr);
    (output.status.success(), said)
}

/// Downloads `path`: the status, the file name it is offered under, and the body.
async fn download(console: &Console, path: &str) -> (u16, String, String) {
    let response = console.get(path).await;
    let status = response.status().as_u16();
    let name = response
        .headers()
        .get("content-disposition")
        .map(|v| v.to_str().unwrap().to_owned())
        .unwrap_or_default();
    (status, name, response.text().await.unwrap())
}

/// Some history in tenant `acme`: two refunds, one sent and lost, one cancelled with a reason a
/// spreadsheet would run; and an operation of tenant `globex`.
async fn history(app: &TestApp) {
    app.register(&refund_1043(38000)).await;
    app.begin_attempt("refund-1043-li_2").await;
    app.report("refund-1043-li_2", 1, &json!({"outcome": "timeout"})).await;
    let mut second = refund_1043(1000);
    second["op_id"] = json!("refund-1043-li_1");
    app.register(&second).await;
    let (status, _) = app
        .post(
            "/api/v1/operations/refund-1043-li_1/cancel",
            &json!({"reason": "=HYPERLINK(\"http://x\",\"click\")"}),
        )
        .await;
    assert_eq!(status, 200);
    let mut other = refund_1043(500);
    other["op_id"] = json!("refund-9999-li_1");
    assert_eq!(app.post_as(&app.other_token, "/api/v1/operations", &other).await.0, 201);
}

crate::engine_tests! {
    a_gzipped_export_arrives_whole(app) {
        history(&app).await;
        let auditor = app.signed_in("ada", Role::Auditor).await;
        for path in ["/audit/export.jsonl", "/audit/export.csv", "/operations/export.csv"] {
            let url = format!("{}{path}", auditor.base());
            let gzipped = auditor.client.get(url).header("accept-encoding", "gzip").send().await.unwrap();
            assert_eq!(gzipped.headers()["content-encoding"], "gzip", "{path}");
            let body = gzipped.bytes().await;
            assert!(body.as_ref().is_ok_and(|b| b.len() > 20 && b[..2] == [0x1f, 0x8b]), "{path}: a whole gzip stream, not a cut one: {body:?}");
        }
        assert_eq!(download(&auditor, "/audit/export.jsonl").await.0, 200, "the server still answers");
    }

    the_auditor_reads_filters_and_pages_the_audit_trail(app) {
        history(&app).await;
        for n in 0..120 {
            let mut body = refund_1043(100 + n);
            body["op_id"] = json!(format!("refund-5000-li_{n}"));
            body["subject"] = json!("order:5000");
            app.register(&body).await;
        }
        let support = app.signed_in("sam", Role::Support).await;
        assert!(support.page("/audit", 403).await.contains("Your role does not allow this"));
        let auditor = app.signed_in("ada", Role::Auditor).await;
        let html = auditor.page("/audit", 200).await;
        assert_eq!(html.matches("data-testid=\"audit-event\"").count(), 100, "a page of 100, newest first");
        assert!(html.contains("refund-5000-li_119") && !html.contains("refund-9999-li_1"), "only this tenant's events");
        let older = crate::support::href_of(&html, "next-page").expect("a link to older events");
        let html = auditor.page(&older.replace("&amp;", "&"), 200).await;
        assert!(html.contains("refund-1043-li_2") && html.contains("Newest events"), "the next page holds the oldest events");

        let html = auditor.page("/audit?op_id=refund-1043-li_2", 200).await;
        assert_eq!(html.matches("data-testid=\"audit-event\"").count(), 3, "register, begin, outcome");
        let html = auditor.page("/audit?action=cancel&subject=order%3A1043", 200).await;
        assert_eq!(html.matches("data-testid=\"audit-event\"").count(), 1);
        assert!(html.contains("href=\"/operations/refund-1043-li_1\""), "each event links to its operation");
        let html = auditor.page("/audit?actor=nobody", 200).await;
        assert!(html.contains("No event matches these filters"));
        let html = auditor.page("/audit?from=yesterday", 422).await;
        assert!(html.contains("is not a time"), "a bad filter is explained");
    }

    an_audit_export_streams_verifies_and_is_itself_audited(app) {
        history(&app).await;
        let support = app.signed_in("sam", Role::Support).await;
        assert_eq!(download(&support, "/audit/export.jsonl").await.0, 403, "support does not export the audit trail");
        assert_eq!(app.console().get("/audit/export.jsonl").await.status(), 303, "signed out: sent to sign in");

        let auditor = app.signed_in("ada", Role::Auditor).await;
        let (status, name, text) = download(&auditor, "/audit/export.jsonl").await;
        assert_eq!(status, 200, "{text}");
        assert_eq!(name, "attachment; filename=\"opledger-audit-acme-all.jsonl\"");
        let lines: Vec<Value> = text.lines().map(|l| serde_json::from_str(l).unwrap()).collect();
        assert!(lines.iter().all(|l| l["tenant"] == "acme"), "only this tenant's chain");
        let last = lines.last().unwrap();
        assert_eq!((last["action"].as_str(), last["actor"].as_str(), last["role"].as_str()), (Some("export"), Some("ada"), Some("auditor")));
        assert_eq!(last["evidence"]["what"], "audit", "the export records who exported what");
        let (ok, said) = verify(&text, false);
        assert!(ok, "{said}");
        let mut edited: Vec<&str> = text.lines().collect();
        let changed = edited[3].replace("agent-7", "agent-8");
        edited[3] = &changed;
        let (ok, said) = verify(&(edited.join("\n") + "\n"), false);
        assert!(!ok && said.contains("line 4"), "{said}");

        let (status, name, csv) = download(&auditor, "/audit/export.csv?to=2100-01-01").await;
        assert_eq!(status, 200);
        assert_eq!(name, "attachment; filename=\"opledger-audit-acme-start_to_2100-01-01.csv\"");
        assert!(csv.starts_with("seq,at,tenant,actor,role,action,op_id,from_state,to_state,reason,evidence,prev_hash,hash\r\n"), "{csv}");
        assert!(csv.contains(",\"'=HYPERLINK(\"\"http://x\"\",\"\"click\"\")\","), "a formula is neutralised and quoted: {csv}");
        assert_eq!(csv.lines().count(), lines.len() + 2, "a header, the same events, and the second export's own event");

        let (status, name, filtered) = download(&auditor, "/audit/export.jsonl?actor=executor").await;
        assert_eq!(status, 200);
        assert!(name.contains("-filtered.jsonl"), "{name}");
        assert_eq!(filtered.lines().count(), 0, "no executor here; an empty export is an empty file");
        let (_, _, by_agent) = download(&auditor, "/audit/export.jsonl?actor=agent-7").await;
        let (ok, said) = verify(&by_agent, false);
        assert!(!ok && said.contains("--partial"), "a filtered export is not a whole chain: {said}");
        let (ok, said) = verify(&by_agent, true);
        assert!(ok && said.contains("each hash holds"), "{said}");

        let chain = app.ledger.audit_chain(&TenantId::parse("acme").unwrap()).await.unwrap();
        assert_eq!(chain.iter().filter(|r| r.entry.action == "export").count(), 4, "every export is recorded");
    }

    an_operations_export_carries_attempts_external_ids_and_states(app) {
        history(&app).await;
        let support = app.signed_in("sam", Role::Support).await;
        let (status, name, text) = download(&support, "/operations/export.jsonl").await;
        assert_eq!(status, 200, "{text}");
        assert_eq!(name, "attachment; filename=\"opledger-operations-acme-all.jsonl\"");
        let operations: Vec<Value> = text.lines().map(|l| serde_json::from_str(l).unwrap()).collect();
        assert_eq!(operations.len(), 2, "this tenant's two operations: {text}");
        let sent = operations.iter().find(|o| o["op_id"] == "refund-1043-li_2").unwrap();
        assert_eq!(sent["state"], "unknown");
        assert_eq!(sent["attempts"][0]["outcome"], "timeout");
        assert_eq!(sent["attempts"][0]["idempotency_key"], "acme:refund-1043-li_2");
        assert_eq!(sent["amount"], json!({"minor": 38000, "currency": "TWD"}));

        let (status, name, csv) = download(&support, "/operations/export.csv?state=cancelled").await;
        assert_eq!(status, 200);
        assert_eq!(name, "attachment; filename=\"opledger-operations-acme-all-filtered.csv\"");
        let rows: Vec<&str> = csv.lines().collect();
        assert_eq!(rows.len(), 2, "{csv}");
        assert!(rows[0].starts_with("op_id,kind,subject,provider,state,amount,currency"), "{csv}");
        assert!(rows[1].starts_with("refund-1043-li_1,refund,order:1043,stripe,cancelled,1000,TWD,"), "{csv}");
        assert_eq!(download(&support, "/operations/export.csv?state=lost").await.0, 422);
        let chain = app.ledger.audit_chain(&TenantId::parse("acme").unwrap()).await.unwrap();
        let exports: Vec<_> = chain.iter().filter(|r| r.entry.action == "export").collect();
        assert_eq!(exports.len(), 2);
        assert_eq!(exports[1].entry.evidence["filter"], "state=cancelled");
    }
}
