//! The audit history leaves the database as JSON Lines and is verified offline: an untouched
//! export holds; an edited, deleted or reordered line is named. Entries are recorded with their
//! change and sealed into the chain afterwards: changes made at once all take their place, each
//! operation's in the order they happened, and the running server seals what another process left.

use serde_json::json;
use std::process::Command;

use crate::support::refund_1043;
use crate::support::refund_request;
use opledger::domain::{
    audit::{AuditRecord, ChainVerifier},
    ids::{Actor, OpId, TenantId},
    machine::Command as LedgerCommand,
    operation::AttemptReport,
};
use opledger::server::ledger::Ledger;

/// Checks `chain` link by link, as `opledger audit verify` does with an export.
fn assert_chain_holds(chain: &[AuditRecord]) {
    let mut verifier = ChainVerifier::whole();
    for record in chain {
        verifier.push(record).unwrap();
    }
}

/// Runs the binary off the test's runtime, so that the application's own tasks (the sealer holding
/// a tenant's lock among them) go on while it runs.
async fn opledger(args: &[&str]) -> std::process::Output {
    let args: Vec<String> = args.iter().map(|arg| (*arg).to_owned()).collect();
    let run = move || Command::new(env!("CARGO_BIN_EXE_opledger")).args(args).output().unwrap();
    tokio::task::spawn_blocking(run).await.unwrap()
}

async fn verify(lines: &[String]) -> (bool, String) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("audit.jsonl");
    std::fs::write(&path, lines.iter().map(|l| format!("{l}\n")).collect::<String>()).unwrap();
    let output = opledger(&["audit", "verify", path.to_str().unwrap()]).await;
    let text = String::from_utf8_lossy(&output.stdout).to_string() + &String::from_utf8_lossy(&output.stderr);
    (output.status.success(), text)
}

crate::engine_tests! {
    every_exported_line_is_the_record_as_serde_writes_it(app) {
        use opledger::server::store::records::AuditQuery;
        let acme = TenantId::parse("acme").unwrap();
        let tricky = "quote \" backslash \\ newline \n tab \t bell \u{7} escape \u{1b} del \u{7f} é 中文 😀 </script> \u{2028}";
        app.register(&refund_1043(38000)).await;
        let deny = LedgerCommand::Cancel { reason: tricky.to_owned() };
        let op_id = OpId::parse("refund-1043-li_2").unwrap();
        app.ledger.execute(&acme, &op_id, deny, &Actor::agent(tricky), AttemptReport::default()).await.unwrap();
        let evidence = json!({"note": tricky, "n": 12, "big": 9_007_199_254_740_993_u64, "ratio": 1.5, "nested": {"b": [1, null, true], "a": ""}});
        app.ledger.record_action(&acme, &Actor::agent("auditor"), "export", evidence).await.unwrap();
        let page = AuditQuery { oldest_first: true, after_seq: Some(0), limit: 1000, ..AuditQuery::default() };
        let records = app.ledger.reads().list_audit(&acme, &page).await.unwrap();
        assert_eq!(records.len(), 4, "the token, the registration, the cancel and the export");
        let mut expected = Vec::new();
        for record in &records {
            serde_json::to_writer(&mut expected, record).unwrap();
            expected.push(b'\n');
        }
        let (lines, last) = app.ledger.reads().audit_json_lines(&acme, &page).await.unwrap().expect("a page");
        assert_eq!(String::from_utf8(lines).unwrap(), String::from_utf8(expected).unwrap());
        assert_eq!(last, records.last().unwrap().seq);
        let filtered = AuditQuery { actions: vec!["cancel".into()], ..page.clone() };
        let (lines, _) = app.ledger.reads().audit_json_lines(&acme, &filtered).await.unwrap().expect("the cancel");
        assert_eq!(String::from_utf8(lines).unwrap().lines().count(), 1);
        let after = AuditQuery { after_seq: Some(last), ..page };
        assert!(app.ledger.reads().audit_json_lines(&acme, &after).await.unwrap().is_none(), "nothing after the last");
    }

    an_exported_history_verifies_and_any_change_to_it_is_named(app) {
        app.register(&refund_1043(38000)).await;
        app.register(&refund_1043(1)).await;
        app.begin_attempt("refund-1043-li_2").await;
        app.report("refund-1043-li_2", 1, &json!({"outcome": "timeout"})).await;
        let export = opledger(&["audit", "export", "--database-url", app.database.url(), "--tenant", "acme"]).await;
        assert!(export.status.success(), "{}", String::from_utf8_lossy(&export.stderr));
        let lines: Vec<String> = String::from_utf8(export.stdout).unwrap().lines().map(str::to_owned).collect();
        assert_eq!(lines.len(), 5);
        let first: serde_json::Value = serde_json::from_str(&lines[1]).unwrap();
        for field in ["seq", "at", "tenant", "actor", "role", "action", "op_id", "from_state", "to_state", "reason", "evidence", "prev_hash", "hash"] {
            assert!(first.get(field).is_some(), "a line lacks {field}: {first}");
        }

        let (ok, text) = verify(&lines).await;
        assert!(ok, "{text}");
        assert!(text.starts_with("OK: 5 events, the chain holds"), "{text}");

        let mut edited = lines.clone();
        edited[2] = edited[2].replace("the same op id was requested with other parameters", "nothing happened");
        let (ok, text) = verify(&edited).await;
        assert!(!ok);
        assert!(text.contains("the chain breaks at line 3"), "{text}");

        let mut deleted = lines.clone();
        deleted.remove(1);
        let (ok, text) = verify(&deleted).await;
        assert!(!ok && text.contains("line 2"), "{text}");

        let mut reordered = lines.clone();
        reordered.swap(3, 4);
        let (ok, text) = verify(&reordered).await;
        assert!(!ok && text.contains("line 4"), "{text}");

        let mut garbage = lines.clone();
        garbage[4] = "not json".into();
        let (ok, text) = verify(&garbage).await;
        assert!(!ok && text.contains("line 5: not an audit record"), "{text}");
    }

    a_pass_sealing_more_entries_than_one_insert_carries_keeps_them_in_order_in_the_chain(app) {
        let acme = TenantId::parse("acme").unwrap();
        let before = app.ledger.audit_chain(&acme).await.unwrap().len();
        app.tamper(
            "with recursive n(i) as (select 1 union all select i + 1 from n where i < 1201) \
             insert into audit_pending (tenant, at_us, actor, role, action, op_id, from_state, to_state, reason, evidence) \
             select 'acme', 1800000000000000 + i, 'agent-' || i, 'agent', 'export', null, null, null, null, '{}' from n",
        )
        .await;
        let chain = app.ledger.audit_chain(&acme).await.unwrap();
        assert_eq!(chain.len(), before + 1201, "every waiting entry is sealed in one pass");
        assert_chain_holds(&chain);
        let actors: Vec<&str> = chain[before..].iter().map(|record| record.entry.actor.as_str()).collect();
        let recorded: Vec<String> = (1..=1201).map(|i| format!("agent-{i}")).collect();
        assert_eq!(actors, recorded, "sealed in the order they were recorded");
    }

    changes_of_one_tenant_made_at_once_all_take_their_place_in_one_chain(app) {
        let acme = TenantId::parse("acme").unwrap();
        let agent = Actor::agent("agent-7");
        let writers: Vec<_> = (0..24)
            .map(|n| {
                let (ledger, acme, agent) = (app.ledger.clone(), acme.clone(), agent.clone());
                tokio::spawn(async move {
                    let request = refund_request(n);
                    let op_id = request.op_id.clone();
                    ledger.register(&acme, &agent, request).await.unwrap();
                    ledger.execute(&acme, &op_id, LedgerCommand::BeginAttempt, &agent, AttemptReport::default()).await.unwrap();
                })
            })
            .collect();
        for writer in writers {
            writer.await.unwrap();
        }
        let chain = app.ledger.audit_chain(&acme).await.unwrap();
        let of_operations = chain.iter().filter(|record| record.entry.op_id.is_some()).count();
        assert_eq!(of_operations, 48, "two entries for each of 24 operations, none lost, none twice");
        assert_chain_holds(&chain);
        for n in 0..24 {
            let op_id = format!("refund-{n}-li_1");
            let actions: Vec<&str> = chain
                .iter()
                .filter(|record| record.entry.op_id.as_deref() == Some(op_id.as_str()))
                .map(|record| record.entry.action.as_str())
                .collect();
            assert_eq!(actions, ["register", "begin_attempt"], "{op_id}'s entries in the order they happened");
            let history = app.ledger.reads().operation_history(&acme, &OpId::parse(&op_id).unwrap()).await.unwrap().unwrap();
            let sealed: Vec<(Option<u64>, Option<String>)> = chain
                .iter()
                .filter(|record| record.entry.op_id.as_deref() == Some(op_id.as_str()))
                .map(|record| (Some(record.seq), Some(record.hash.clone())))
                .collect();
            let trail: Vec<(Option<u64>, Option<String>)> = history.audit.iter().map(|event| (event.seq, event.hash.clone())).collect();
            assert_eq!(trail, sealed, "the operation's trail shows its places in the chain");
        }
    }

    an_entry_another_process_left_waiting_is_sealed_by_the_running_server(app) {
        let acme = TenantId::parse("acme").unwrap();
        let other_process = Ledger::new(opledger::server::store::connect(app.database.url()).await.unwrap());
        other_process.register(&acme, &Actor::agent("agent-7"), refund_request(1)).await.unwrap();
        drop(other_process);
        let reads = app.ledger.reads();
        let mut waited = std::time::Duration::ZERO;
        loop {
            let chain = reads.audit_chain(&acme).await.unwrap();
            if chain.iter().any(|record| record.entry.op_id.as_deref() == Some("refund-1-li_1")) {
                assert_chain_holds(&chain);
                break;
            }
            assert!(waited < std::time::Duration::from_secs(20), "the server's sealer never sealed the entry");
            tokio::time::sleep(std::time::Duration::from_millis(100)).await;
            waited += std::time::Duration::from_millis(100);
        }
    }

    an_export_longer_than_a_page_is_the_whole_chain(app) {
        let acme = TenantId::parse("acme").unwrap();
        for n in 0..1_100 {
            app.ledger.register(&acme, &Actor::agent("agent-7"), refund_request(n)).await.unwrap();
        }
        let chain = app.ledger.audit_chain(&acme).await.unwrap();
        let export = opledger(&["audit", "export", "--database-url", app.database.url(), "--tenant", "acme"]).await;
        assert!(export.status.success(), "{}", String::from_utf8_lossy(&export.stderr));
        let lines: Vec<String> = String::from_utf8(export.stdout).unwrap().lines().map(str::to_owned).collect();
        assert_eq!(lines.len(), chain.len(), "every event, across pages");
        let (ok, text) = verify(&lines).await;
        assert!(ok, "{text}");
    }
}
