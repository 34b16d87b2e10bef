//! The audit history leaves the database as JSON Lines and is verified offline: an untouched
//! export holds; an edited, deleted or reordered line is named.

use serde_json::json;
use std::process::Command;

use crate::support::refund_1043;

fn opledger(args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_opledger")).args(args).output().unwrap()
}

fn verify(lines: &[String]) -> (bool, String) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("audit.jsonl");
    std::fs::write(&path, lines.iter().map(|l| format!("{l}\n")).collect::<String>()).unwrap();
    let output = opledger(&["audit", "verify", path.to_str().unwrap()]);
    let text = String::from_utf8_lossy(&output.stdout).to_string() + &String::from_utf8_lossy(&output.stderr);
    (output.status.success(), text)
}

crate::engine_tests! {
    an_exported_history_verifies_and_any_change_to_it_is_named(app) {
        app.register(&refund_1043(38000)).await;
        app.register(&refund_1043(1)).await;
        app.begin_attempt("refund-1043-li_2").await;
        app.report("refund-1043-li_2", 1, &json!({"outcome": "timeout"})).await;
        let export = opledger(&["audit", "export", "--database-url", app.database.url(), "--tenant", "acme"]);
        assert!(export.status.success(), "{}", String::from_utf8_lossy(&export.stderr));
        let lines: Vec<String> = String::from_utf8(export.stdout).unwrap().lines().map(str::to_owned).collect();
        assert_eq!(lines.len(), 5);
        let first: serde_json::Value = serde_json::from_str(&lines[1]).unwrap();
        for field in ["seq", "at", "tenant", "actor", "role", "action", "op_id", "from_state", "to_state", "reason", "evidence", "prev_hash", "hash"] {
            assert!(first.get(field).is_some(), "a line lacks {field}: {first}");
        }

        let (ok, text) = verify(&lines);
        assert!(ok, "{text}");
        assert!(text.starts_with("OK: 5 events, the chain holds"), "{text}");

        let mut edited = lines.clone();
        edited[2] = edited[2].replace("the same op id was requested with other parameters", "nothing happened");
        let (ok, text) = verify(&edited);
        assert!(!ok);
        assert!(text.contains("the chain breaks at line 3"), "{text}");

        let mut deleted = lines.clone();
        deleted.remove(1);
        let (ok, text) = verify(&deleted);
        assert!(!ok && text.contains("line 2"), "{text}");

        let mut reordered = lines.clone();
        reordered.swap(3, 4);
        let (ok, text) = verify(&reordered);
        assert!(!ok && text.contains("line 4"), "{text}");

        let mut garbage = lines.clone();
        garbage[4] = "not json".into();
        let (ok, text) = verify(&garbage);
        assert!(!ok && text.contains("line 5: not an audit record"), "{text}");
    }

    an_export_longer_than_a_page_is_the_whole_chain(app) {
        use opledger::domain::{ids::{Actor, OpId, TenantId}, params::CanonicalParams};
        use opledger::server::ledger::{RegisterRequest, DEFAULT_KEY_RETENTION};
        let acme = TenantId::parse("acme").unwrap();
        for n in 0..1_100 {
            let request = RegisterRequest {
                op_id: OpId::parse(&format!("refund-{n}-li_1")).unwrap(),
                kind: "refund".into(),
                subject: format!("order:{n}"),
                provider: "stripe".into(),
                params: CanonicalParams::from_value(json!({"payment_intent": "pi_1043", "amount": {"minor": 100, "currency": "TWD"}})).unwrap(),
                requested_by: "agent-7".into(),
                on_behalf_of: None,
                server_sends: false,
                compensates: None,
                key_retention: DEFAULT_KEY_RETENTION,
            };
            app.ledger.register(&acme, &Actor::agent("agent-7"), request).await.unwrap();
        }
        let chain = app.ledger.reads().audit_chain(&acme).await.unwrap();
        let export = opledger(&["audit", "export", "--database-url", app.database.url(), "--tenant", "acme"]);
        assert!(export.status.success(), "{}", String::from_utf8_lossy(&export.stderr));
        let lines: Vec<String> = String::from_utf8(export.stdout).unwrap().lines().map(str::to_owned).collect();
        assert_eq!(lines.len(), chain.len(), "every event, across pages");
        let (ok, text) = verify(&lines);
        assert!(ok, "{text}");
    }
}
