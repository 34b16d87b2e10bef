//! Retention and the archive (docs/retention.md) on both engines: an archived op id is answered as
//! before (its outcome, or a 409 with the diff); an open operation is never archived; a sweep killed
//! at any point and run again loses nothing and archives nothing twice; two sweeps at once archive
//! each operation once; a changed file or manifest fails `verify-archive`; an archive in an
//! S3-compatible bucket (moto's server) works like a folder; DuckDB reads the files; and bad input
//! (0 days, an unreachable bucket, an endpoint the egress policy refuses) changes nothing.

use chrono::Duration;
use opledger::domain::ids::{Actor, TenantId};
use opledger::domain::policy::Role;
use opledger::server::archive::{file, verify::verify_folder};
use opledger::server::egress::EgressPolicy;
use opledger::server::ledger::retention::{RetentionError, SweepReport};
use opledger::server::ledger::secrets::SecretBox;
use opledger::server::ledger::Ledger;
use serde_json::{json, Value};
use std::collections::BTreeMap;
use std::path::Path;

use crate::support::{TestApp, SECRET_KEY};

fn acme() -> TenantId {
    TenantId::parse("acme").unwrap()
}

fn admin() -> Actor {
    Actor::human("ada.admin", Role::Admin)
}

/// A refund of TWD `minor` on order `n`.
fn refund(n: usize, minor: i64) -> Value {
    json!({
        "op_id": format!("refund-{n}-li_1"),
        "kind": "refund",
        "subject": format!("order:{n}"),
        "provider": "stripe",
        "params": {"payment_intent": format!("pi_{n}"), "amount": {"minor": minor, "currency": "TWD"}},
        "requested_by": "agent-7"
    })
}

/// Registers refund `n` and reports it succeeded (as `re_<n>`); its op id.
async fn succeeded(app: &TestApp, n: usize) -> String {
    let (status, answer) = app.register(&refund(n, 500)).await;
    assert_eq!(status, 201, "{answer}");
    let op_id = format!("refund-{n}-li_1");
    let (status, answer) = app.begin_attempt(&op_id).await;
    assert_eq!(status, 201, "{answer}");
    let outcome = json!({"outcome": "succeeded", "http_status": 200, "external_id": format!("re_{n}")});
    let (status, answer) = app.report(&op_id, 1, &outcome).await;
    assert_eq!(status, 200, "{answer}");
    op_id
}

async fn keep_a_day(app: &TestApp, archive: &str) {
    app.ledger.set_retention(&acme(), &admin(), 1, archive).await.expect("the retention is set");
}

/// A sweep as if it ran two days from now.
async fn sweep_later(ledger: &Ledger, holder: &str, batch: u32) -> Result<SweepReport, RetentionError> {
    let later = opledger::server::clock::now() + Duration::days(2);
    ledger.sweep(&acme(), holder, later, batch, false, |_| {}).await
}

/// Every operation in the archive folder, by op id, with how many files hold it.
fn archived_in(folder: &Path) -> BTreeMap<String, usize> {
    let mut found = BTreeMap::new();
    let mut stack = vec![folder.to_path_buf()];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                stack.push(path);
            } else if path.extension().is_some_and(|ext| ext == "parquet")
                && !path.to_string_lossy().contains("/audit/")
            {
                for operation in file::read(std::fs::read(&path).unwrap().into()).unwrap() {
                    *found.entry(operation.op_id.to_string()).or_insert(0) += 1;
                }
            }
        }
    }
    found
}

fn folder_url(folder: &Path) -> String {
    format!("file://{}", folder.display())
}

crate::engine_tests! {
    an_archived_op_id_is_answered_as_before_archiving(app) {
        let op_id = succeeded(&app, 1043).await;
        let (_, before) = app.get_json(&format!("/api/v1/operations/{op_id}")).await;
        let archive = tempfile::tempdir().unwrap();
        keep_a_day(&app, &folder_url(archive.path())).await;

        let now = opledger::server::clock::now();
        let report = app.ledger.sweep(&acme(), "test", now, 100, false, |_| {}).await.unwrap();
        assert_eq!(report.archived, 0, "closed a moment ago: not due for a day");
        let report = sweep_later(&app.ledger, "test", 100).await.unwrap();
        assert_eq!((report.archived, report.files), (1, 1));
        assert_eq!(app.number("select count(*) from operations where op_id = 'refund-1043-li_1'").await, 0, "the hot row left");
        assert_eq!(app.number("select count(*) from attempts where op_id = 'refund-1043-li_1'").await, 0);
        assert_eq!(app.number("select count(*) from archived_operations where op_id = 'refund-1043-li_1'").await, 1);

        let (status, again) = app.register(&refund(1043, 500)).await;
        assert_eq!(status, 200, "the same intent is answered with its outcome: {again}");
        for field in ["state", "fingerprint", "idempotency_key", "external_refs", "attempts", "created_at", "version", "amount"] {
            assert_eq!(again[field], before[field], "{field}");
        }
        assert_eq!(again["state"], "succeeded");
        let (status, read) = app.get_json(&format!("/api/v1/operations/{op_id}")).await;
        assert_eq!(status, 200, "{read}");
        assert_eq!(read["external_refs"], json!(["stripe/refund/re_1043"]));

        let (status, refused) = app.register(&refund(1043, 900)).await;
        assert_eq!(status, 409, "{refused}");
        assert_eq!(refused["error"]["code"], "idempotency_conflict");
        assert_eq!(refused["error"]["diff"][0]["field"], "amount");
        assert_eq!(refused["error"]["diff"][0]["stored"]["minor"], 500);
        assert_eq!(app.number("select count(*) from operations").await, 0, "no new operation under the archived op id");
        assert_eq!(app.number("select count(*) from conflicts where op_id = 'refund-1043-li_1'").await, 1, "kept for review");
        let (status, _) = app.begin_attempt(&op_id).await;
        assert_ne!(status, 200, "nothing is sent for an archived operation");

        let (status, other) = app.get_as(&app.other_token, &format!("/api/v1/operations/{op_id}")).await;
        assert_eq!(status, 404, "another tenant sees nothing: {other}");
    }

    an_open_operation_is_never_archived(app) {
        let closed = succeeded(&app, 1).await;
        app.register(&refund(2, 500)).await;
        app.register(&refund(3, 500)).await;
        app.begin_attempt("refund-3-li_1").await;
        app.register(&refund(4, 500)).await;
        app.begin_attempt("refund-4-li_1").await;
        app.report("refund-4-li_1", 1, &json!({"outcome": "timeout"})).await;
        app.hold_large_refunds().await;
        app.register(&refund(5, 500_000)).await;
        app.register(&refund(6, 500)).await;
        app.begin_attempt("refund-6-li_1").await;
        app.report("refund-6-li_1", 1, &json!({"outcome": "accepted", "external_id": "re_6"})).await;
        let open = ["refund-2-li_1", "refund-3-li_1", "refund-4-li_1", "refund-5-li_1", "refund-6-li_1"];
        let archive = tempfile::tempdir().unwrap();
        keep_a_day(&app, &folder_url(archive.path())).await;
        app.tamper("update operations set updated_at_us = updated_at_us - 86400000000000").await;
        let report = sweep_later(&app.ledger, "test", 100).await.unwrap();
        assert_eq!(report.archived, 1);
        assert_eq!(archived_in(archive.path()).into_keys().collect::<Vec<_>>(), [closed]);
        for op_id in open {
            let (status, read) = app.get_json(&format!("/api/v1/operations/{op_id}")).await;
            assert_eq!(status, 200, "{op_id}: {read}");
            assert!(["planned", "submitted", "unknown", "pending_approval", "accepted"].contains(&read["state"].as_str().unwrap()), "{read}");
            let hot = app.number(&format!("select count(*) from operations where op_id = '{op_id}'")).await;
            assert_eq!(hot, 1, "{op_id} stays hot");
        }
    }

    a_sweep_killed_at_any_point_and_run_again_loses_nothing_and_duplicates_nothing(app) {
        const OPERATIONS: usize = 60;
        let mut closed = Vec::new();
        for n in 0..OPERATIONS {
            closed.push(succeeded(&app, 100 + n).await);
        }
        let archive = tempfile::tempdir().unwrap();
        keep_a_day(&app, &folder_url(archive.path())).await;
        app.tamper("update operations set updated_at_us = updated_at_us - 172800000000").await;
        let sweep = |take_over: bool| {
            let mut command = std::process::Command::new(env!("CARGO_BIN_EXE_opledger"));
            command
                .args(["retention", "sweep", "--tenant", "acme", "--batch", "1"])
                .env("OPLEDGER_DATABASE_URL", app.database.url())
                .env("OPLEDGER_SECRET_KEY", SECRET_KEY)
                .env("OPLEDGER_ARCHIVE_DIR", std::env::temp_dir())
                .stdout(std::process::Stdio::null())
                .stderr(std::process::Stdio::null());
            if take_over {
                command.arg("--take-over");
            }
            command
        };
        for delay_ms in [110, 140, 170, 200, 230] {
            let mut child = sweep(true).spawn().unwrap();
            tokio::time::sleep(std::time::Duration::from_millis(delay_ms)).await;
            child.kill().unwrap();
            child.wait().unwrap();
        }
        let refused = sweep(false).output().unwrap();
        let finished = if refused.status.success() { refused } else { sweep(true).output().unwrap() };
        assert!(finished.status.success(), "{}", String::from_utf8_lossy(&finished.stderr));

        let found = archived_in(archive.path());
        assert_eq!(found.len(), OPERATIONS, "every operation is archived");
        assert!(found.values().all(|&files| files == 1), "each in one file only: {found:?}");
        assert_eq!(found.into_keys().collect::<Vec<_>>(), { let mut sorted = closed.clone(); sorted.sort(); sorted });
        assert_eq!(app.number("select count(*) from operations").await, 0);
        assert_eq!(app.number("select count(*) from archived_operations").await, OPERATIONS as i64);
        assert_eq!(app.number("select count(*) from archives where status <> 'sealed'").await, 0);
        let check = verify_folder(archive.path(), None).expect("the archive holds, with no file left unsealed");
        assert_eq!(check.operations, OPERATIONS as u64);
        for op_id in closed {
            let (status, again) = app.register(&refund(op_id[7..].split('-').next().unwrap().parse().unwrap(), 500)).await;
            assert_eq!((status, again["state"].as_str()), (200, Some("succeeded")), "{op_id}");
        }
    }

    a_sweep_stopped_after_sealing_leaves_hot_rows_that_the_next_one_deletes(app) {
        let op_id = succeeded(&app, 2001).await;
        let archive = tempfile::tempdir().unwrap();
        keep_a_day(&app, &folder_url(archive.path())).await;
        let sqlite = app.database.url().starts_with("sqlite:");
        if sqlite {
            app.tamper("create trigger stop_deleting before delete on attempts begin select raise(abort, 'stopped'); end").await;
        } else {
            app.tamper("create function stop_deleting() returns trigger language plpgsql as $$ begin raise exception 'stopped'; end $$").await;
            app.tamper("create trigger stop_deleting before delete on attempts for each row execute function stop_deleting()").await;
        }
        let stopped = sweep_later(&app.ledger, "test", 100).await;
        assert!(stopped.is_err(), "the sweep stops between sealing and deleting: {stopped:?}");
        let left = "select count(*) from archives where status = 'sealed' and holds = 'operations' and hot_rows_removed_at_us is null";
        assert_eq!(app.number(left).await, 1, "sealed, its hot rows still there");
        assert_eq!(app.number(&format!("select count(*) from operations where op_id = '{op_id}'")).await, 1);
        let (status, again) = app.register(&refund(2001, 500)).await;
        assert_eq!((status, again["state"].as_str()), (200, Some("succeeded")), "{again}");

        app.tamper(if sqlite { "drop trigger stop_deleting" } else { "drop trigger stop_deleting on attempts" }).await;
        let report = sweep_later(&app.ledger, "test", 100).await.unwrap();
        assert_eq!(report.archived, 0, "nothing is archived twice");
        for table in ["operations", "attempts", "external_refs"] {
            let hot = app.number(&format!("select count(*) from {table} where op_id = '{op_id}'")).await;
            assert_eq!(hot, 0, "{table}");
        }
        assert_eq!(app.number(left).await, 0, "the file is marked done");
        assert_eq!(archived_in(archive.path()).len(), 1);
        let (status, again) = app.register(&refund(2001, 500)).await;
        assert_eq!((status, again["state"].as_str()), (200, Some("succeeded")), "{again}");
    }

    two_sweeps_at_once_archive_each_operation_once(app) {
        const OPERATIONS: usize = 30;
        for n in 0..OPERATIONS {
            succeeded(&app, 200 + n).await;
        }
        let archive = tempfile::tempdir().unwrap();
        keep_a_day(&app, &folder_url(archive.path())).await;
        let other = Ledger::new(opledger::server::store::connect(app.database.url()).await.unwrap())
            .with_secrets(SecretBox::from_hex(SECRET_KEY).unwrap())
            .with_egress(EgressPolicy::new(Vec::new()).with_archive_dir(Some(std::env::temp_dir())));
        let (first, second) = tokio::join!(sweep_later(&app.ledger, "instance-a", 2), sweep_later(&other, "instance-b", 2));
        let archived: u64 = [&first, &second].iter().filter_map(|result| result.as_ref().ok()).map(|report| report.archived).sum();
        for result in [&first, &second] {
            assert!(matches!(result, Ok(_) | Err(RetentionError::Busy(_))), "{result:?}");
        }
        assert_eq!(archived, OPERATIONS as u64);
        let found = archived_in(archive.path());
        assert_eq!(found.len(), OPERATIONS);
        assert!(found.values().all(|&files| files == 1), "{found:?}");

        // Even a sweep that took the lease over while another ran seals each operation once.
        for n in 0..OPERATIONS {
            succeeded(&app, 300 + n).await;
        }
        let later = opledger::server::clock::now() + Duration::days(2);
        let tenant = acme();
        let (first, second) = tokio::join!(
            app.ledger.sweep(&tenant, "instance-a", later, 1, true, |_| {}),
            other.sweep(&tenant, "instance-b", later, 1, true, |_| {}),
        );
        for result in [first, second] {
            assert!(matches!(result, Ok(_) | Err(RetentionError::Busy(_)) | Err(RetentionError::Store(_))), "{result:?}");
        }
        sweep_later(&app.ledger, "instance-c", 100).await.unwrap();
        let found = archived_in(archive.path());
        assert_eq!(found.len(), 2 * OPERATIONS);
        assert!(found.values().all(|&files| files == 1), "{found:?}");
        assert_eq!(app.number("select count(*) from operations").await, 0);
        verify_folder(archive.path(), None).expect("the archive holds");
    }

    a_changed_archive_file_or_manifest_fails_verify_archive(app) {
        for n in 0..3 {
            succeeded(&app, 400 + n).await;
        }
        let archive = tempfile::tempdir().unwrap();
        keep_a_day(&app, &folder_url(archive.path())).await;
        sweep_later(&app.ledger, "test", 100).await.unwrap();
        let key = SecretBox::from_hex(SECRET_KEY).unwrap().archive_signer().public_key();
        let check = verify_folder(archive.path(), Some(&key)).unwrap();
        assert_eq!((check.files, check.operations, check.segments), (2, 3, 1), "a file of operations, a segment of the chain");
        assert!(check.audit_records >= 9, "register, begin and outcome of each: {check:?}");

        let verify = |folder: &Path, key: Option<&str>| {
            let mut command = std::process::Command::new(env!("CARGO_BIN_EXE_opledger"));
            command.args(["audit", "verify-archive"]).arg(folder);
            if let Some(key) = key {
                command.args(["--public-key", key]);
            }
            command.output().unwrap()
        };
        let passed = verify(archive.path(), Some(&key));
        assert!(passed.status.success(), "{}", String::from_utf8_lossy(&passed.stderr));
        assert!(String::from_utf8_lossy(&passed.stdout).starts_with("OK: 2 files, 3 operations"));

        let parquet = walk(&archive.path().join("acme/operations"), ".parquet");
        let manifest = walk(&archive.path().join("acme/operations"), ".manifest.json");
        let original = std::fs::read(&parquet).unwrap();
        let mut changed = original.clone();
        let middle = changed.len() / 2;
        changed[middle] ^= 0x01;
        std::fs::write(&parquet, &changed).unwrap();
        let failed = verify(archive.path(), None);
        assert_eq!(failed.status.code(), Some(1));
        assert!(String::from_utf8_lossy(&failed.stderr).contains("the file was changed"), "{}", String::from_utf8_lossy(&failed.stderr));
        std::fs::write(&parquet, &original).unwrap();

        let text = std::fs::read_to_string(&manifest).unwrap();
        let mut signed: Value = serde_json::from_str(&text).unwrap();
        signed["manifest"]["operations"] = json!(2);
        std::fs::write(&manifest, serde_json::to_string(&signed).unwrap()).unwrap();
        assert!(verify_folder(archive.path(), None).unwrap_err().contains("signature does not match"));
        std::fs::write(&manifest, &text).unwrap();

        let other_key = SecretBox::from_hex(&"ab".repeat(32)).unwrap().archive_signer().public_key();
        assert!(verify_folder(archive.path(), Some(&other_key)).unwrap_err().contains("not by the pinned key"));
        std::fs::remove_file(&manifest).unwrap();
        assert!(verify_folder(archive.path(), None).unwrap_err().contains("no manifest"));
    }

    the_audit_chain_is_archived_in_segments_that_join_and_export_whole(app) {
        for n in 0..3 {
            succeeded(&app, 3000 + n).await;
        }
        app.register(&refund(3100, 500)).await;
        app.begin_attempt("refund-3100-li_1").await;
        let archive = tempfile::tempdir().unwrap();
        keep_a_day(&app, &folder_url(archive.path())).await;
        app.ledger.seal_audit(Some(&acme())).await.unwrap();
        let (_, open_before) = app.get_json("/api/v1/operations/refund-3100-li_1").await;
        let open_trail = open_before["audit"].as_array().unwrap().len();
        assert!(open_trail >= 2 && open_before["audit"][0]["seq"].is_u64(), "{open_before}");
        let chain_before = app.ledger.audit_chain(&acme()).await.unwrap();

        let report = sweep_later(&app.ledger, "test", 100).await.unwrap();
        assert_eq!((report.archived, report.audit_files), (3, 1), "{report:?}");
        let segment_end = app.number("select max(last_seq) from archives where holds = 'audit'").await;
        assert_eq!(report.audit_records, segment_end as u64, "from the chain's start");
        assert_eq!(segment_end, chain_before.len() as i64 - 1, "everything made before the cutoff but the head");
        let head = app.number("select max(seq) from audit_events where tenant = 'acme'").await;
        assert!(head > segment_end, "the head stays: the next record links to it");
        // Only acme's chain is swept; globex's records join its own chain whenever the sealer runs.
        let left = format!("select count(*) from audit_events where tenant = 'acme' and seq <= {segment_end}");
        let about_open = format!("{left} and op_id = 'refund-3100-li_1'");
        assert_eq!(app.number(&about_open).await, open_trail as i64, "the open operation's records stay");
        assert_eq!(app.number(&left).await, open_trail as i64, "nothing else of the segment stays");
        let (_, open_after) = app.get_json("/api/v1/operations/refund-3100-li_1").await;
        assert_eq!(open_after["audit"], open_before["audit"], "its trail is whole");

        let export = |archive: &Path| {
            std::process::Command::new(env!("CARGO_BIN_EXE_opledger"))
                .args(["audit", "export", "--tenant", "acme", "--database-url", app.database.url()])
                .env("OPLEDGER_ARCHIVE_DIR", archive)
                .output()
                .unwrap()
        };
        let exported = export(archive.path());
        assert!(exported.status.success(), "{}", String::from_utf8_lossy(&exported.stderr));
        let records: Vec<opledger::domain::audit::AuditRecord> =
            String::from_utf8(exported.stdout).unwrap().lines().map(|line| serde_json::from_str(line).unwrap()).collect();
        assert_eq!(opledger::domain::audit::verify_chain(&records).map_err(|broken| broken.problem), Ok(records.len()), "whole from seq 1");
        assert_eq!(&records[..chain_before.len()], &chain_before[..], "the same records as before the sweep");
        assert_eq!(records.last().unwrap().seq as i64, app.number("select max(seq) from audit_events where tenant = 'acme'").await);
        let auditor = app.signed_in("ada", Role::Auditor).await;
        let downloaded = auditor.get("/audit/export.jsonl").await.text().await.unwrap();
        let console_records: Vec<opledger::domain::audit::AuditRecord> =
            downloaded.lines().map(|line| serde_json::from_str(line).unwrap()).collect();
        assert_eq!(opledger::domain::audit::verify_chain(&console_records).map_err(|broken| broken.problem), Ok(console_records.len()), "the console's export is whole too");
        assert_eq!(&console_records[..records.len()], &records[..], "the same records, then the export's own");
        let registered = auditor.get("/audit/export.jsonl?action=register").await.text().await.unwrap();
        let registered_ops: Vec<String> = registered.lines().map(|line| serde_json::from_str::<Value>(line).unwrap()["op_id"].as_str().unwrap().to_owned()).collect();
        assert_eq!(registered_ops, ["refund-3000-li_1", "refund-3001-li_1", "refund-3002-li_1", "refund-3100-li_1"], "a filtered export finds archived records, each once");

        // The open operation closes; the next sweep archives it, seals the next segment, and its
        // records in the first segment leave the hot table.
        app.report("refund-3100-li_1", 1, &json!({"outcome": "succeeded", "http_status": 200, "external_id": "re_3100"})).await;
        succeeded(&app, 3200).await;
        let report = sweep_later(&app.ledger, "test", 100).await.unwrap();
        // A second segment too when the sealer sealed the sweep's own records meanwhile.
        assert!(report.archived == 2 && (1..=2).contains(&report.audit_files), "{report:?}");
        let segment_end = app.number("select max(last_seq) from archives where holds = 'audit'").await;
        assert_eq!(app.number(&format!("select count(*) from audit_events where tenant = 'acme' and seq <= {segment_end}")).await, 0);
        let check = verify_folder(archive.path(), None).expect("the segments join");
        assert_eq!((check.segments, check.segment_records), (1 + report.audit_files, segment_end as u64));
        let exported = export(archive.path());
        let records: Vec<opledger::domain::audit::AuditRecord> =
            String::from_utf8(exported.stdout).unwrap().lines().map(|line| serde_json::from_str(line).unwrap()).collect();
        assert_eq!(opledger::domain::audit::verify_chain(&records).map_err(|broken| broken.problem), Ok(records.len()));
        assert_eq!(&records[..chain_before.len()], &chain_before[..]);

        // A missing segment, or a changed one, is named.
        let mut segments: Vec<_> = std::fs::read_dir(archive.path().join("acme/audit")).unwrap().map(|entry| entry.unwrap().path()).collect();
        segments.sort();
        let (first_file, first_manifest) = (segments[0].clone(), segments[1].clone());
        assert!(first_manifest.to_string_lossy().ends_with(".parquet.manifest.json") && first_file.to_string_lossy().ends_with(".parquet"), "{segments:?}");
        let original = std::fs::read(&first_file).unwrap();
        let mut changed = original.clone();
        let middle = changed.len() / 2;
        changed[middle] ^= 0x01;
        std::fs::write(&first_file, &changed).unwrap();
        assert!(verify_folder(archive.path(), None).unwrap_err().contains("the file was changed"));
        let refused = export(archive.path());
        assert!(!refused.status.success(), "an export never passes a changed segment on");
        assert!(String::from_utf8_lossy(&refused.stderr).contains("the file was changed"), "{}", String::from_utf8_lossy(&refused.stderr));
        std::fs::write(&first_file, &original).unwrap();
        let moved = tempfile::tempdir().unwrap();
        std::fs::rename(&first_file, moved.path().join("segment.parquet")).unwrap();
        std::fs::rename(&first_manifest, moved.path().join("segment.parquet.manifest.json")).unwrap();
        let missing = verify_folder(archive.path(), None).unwrap_err();
        assert!(missing.contains("the segments of acme do not join") && missing.contains("not at the start of the chain"), "{missing}");
    }

    bad_input_is_refused_and_changes_nothing(app) {
        succeeded(&app, 500).await;
        let archive = tempfile::tempdir().unwrap();
        let url = folder_url(archive.path());
        for (days, field) in [(0, "days"), (-1, "days"), (36_501, "days")] {
            let refused = app.ledger.set_retention(&acme(), &admin(), days, &url).await.unwrap_err();
            assert!(matches!(&refused, RetentionError::Invalid { field: f, .. } if *f == field), "{refused}");
        }
        for bad in ["relative/folder", "/etc/opledger-archive", "file:///var/lib/elsewhere", "https://example.com/archive", "s3://shop?endpoint=http://10.1.2.3:9000", "s3://shop?endpoint=http://169.254.169.254"] {
            let refused = app.ledger.set_retention(&acme(), &admin(), 30, bad).await.unwrap_err();
            assert!(matches!(&refused, RetentionError::Invalid { field: "archive_url", .. }), "{bad}: {refused}");
        }
        assert_eq!(app.ledger.retention(&acme()).await.unwrap(), None, "nothing was set");
        assert!(matches!(sweep_later(&app.ledger, "test", 10).await, Err(RetentionError::NoPolicy)));

        let closed_port = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
        std::env::set_var("AWS_ACCESS_KEY_ID", "testing");
        std::env::set_var("AWS_SECRET_ACCESS_KEY", "testing");
        let unreachable = format!("s3://shop-archive/ledger?endpoint=http://127.0.0.1:{closed_port}");
        app.ledger.set_retention(&acme(), &admin(), 1, &unreachable).await.expect("a bucket is not reached when it is set");
        let stopped = sweep_later(&app.ledger, "test", 10).await.unwrap_err();
        assert!(matches!(stopped, RetentionError::Archive(_)), "{stopped}");
        assert_eq!(app.number("select count(*) from operations").await, 1, "nothing is deleted");
        assert_eq!(app.number("select count(*) from archived_operations").await, 0);
        assert_eq!(app.number("select count(*) from archives where status = 'sealed'").await, 0);
        let (status, read) = app.get_json("/api/v1/operations/refund-500-li_1").await;
        assert_eq!((status, read["state"].as_str()), (200, Some("succeeded")));
    }

    the_console_sets_retention_and_opens_archived_operations_read_only(app) {
        let op_id = succeeded(&app, 900).await;
        let admin = app.signed_in("ada.admin", Role::Admin).await;
        let csrf = admin.csrf().await;
        let empty = admin.page("/admin/retention", 200).await;
        assert!(empty.contains("Every operation stays in the hot tables"), "{empty}");
        let (status, refused) = admin.call("set_retention", &[("csrf", &csrf), ("days", "0"), ("archive_url", "/tmp/x")]).await;
        assert_eq!(status, 422, "{refused}");
        assert!(refused.contains("Days after closing"), "{refused}");
        let (status, refused) = admin.call("set_retention", &[("csrf", &csrf), ("days", "30"), ("archive_url", "s3://shop?endpoint=http://10.1.2.3")]).await;
        assert_eq!(status, 422, "{refused}");
        assert!(refused.contains("Archive:") && !refused.contains("sqlx"), "{refused}");
        assert_eq!(app.ledger.retention(&acme()).await.unwrap(), None, "nothing was set");
        let archive = tempfile::tempdir().unwrap();
        let url = folder_url(archive.path());
        let (status, saved) = admin.call("set_retention", &[("csrf", &csrf), ("days", "1"), ("archive_url", &url)]).await;
        assert_eq!(status, 200, "{saved}");
        let support = app.signed_in("sam.support", Role::Support).await;
        let (status, _) = support.call("set_retention", &[("csrf", &support.csrf().await), ("days", "1"), ("archive_url", &url)]).await;
        assert_eq!(status, 403, "only an admin sets it");

        sweep_later(&app.ledger, "test", 100).await.unwrap();
        let page = admin.page("/admin/retention", 200).await;
        assert!(page.contains("archived 1 day after they closed"), "{page}");
        assert!(page.contains("data-testid=\"archive-files\""), "{page}");
        assert!(page.contains(".parquet"), "{page}");
        assert!(page.contains("1 operation<") && page.contains("Audit records 1–"), "a file of operations and a segment of the chain: {page}");
        assert!(page.contains("The last sweep archived 1 operation and ended"), "{page}");

        let operation = support.page(&format!("/operations/{op_id}"), 200).await;
        assert!(operation.contains("data-testid=\"archived\""), "{operation}");
        assert!(operation.contains("re_900"), "its external id, from the archive: {operation}");
        assert!(!operation.contains("name=\"action\"") && !operation.contains("name=\"compensation\""), "nothing can be done to it: {operation}");
        assert!(operation.contains("None: in this state your role has nothing to do here."), "{operation}");
        let search = support.page(&format!("/search?q={op_id}"), 200).await;
        assert!(search.contains("data-testid=\"found-archived\""), "{search}");
        let by_order = support.page("/search?q=900", 200).await;
        assert!(by_order.contains(&op_id) && by_order.contains("found-archived"), "{by_order}");
        let by_refund = support.page("/search?q=re_900", 200).await;
        assert!(by_refund.contains(&op_id), "{by_refund}");
        app.add_user("globex", "gus", Role::Admin).await;
        let other = app.console();
        other.sign_in("gus", crate::support::PASSWORD, "/").await;
        let hidden = other.page(&format!("/search?q={op_id}"), 200).await;
        assert!(!hidden.contains("found-archived"), "another tenant finds nothing: {hidden}");

        let (status, refused) = admin.call("remove_retention", &[("csrf", &csrf)]).await;
        assert_eq!(status, 422, "unconfirmed: {refused}");
        let (status, _) = admin.call("remove_retention", &[("csrf", &csrf), ("confirmed", "yes")]).await;
        assert_eq!(status, 200);
        assert_eq!(app.ledger.retention(&acme()).await.unwrap(), None);
        let (status, again) = app.register(&refund(900, 500)).await;
        assert_eq!((status, again["state"].as_str()), (200, Some("succeeded")), "its key outlives the retention");
    }

    a_bucket_archive_works_like_a_folder_and_duckdb_reads_the_files(app) {
        let Some(python) = crate::support::python("moto") else { return };
        for n in 0..4 {
            succeeded(&app, 600 + n).await;
        }
        let port = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
        let mut moto = std::process::Command::new(&python)
            .args(["-m", "moto.server", "-H", "127.0.0.1", "-p", &port.to_string()])
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .spawn()
            .unwrap();
        let endpoint = format!("http://127.0.0.1:{port}");
        let client = reqwest::Client::new();
        let mut created = false;
        for _ in 0..100 {
            if let Ok(response) = client.put(format!("{endpoint}/shop-archive")).send().await {
                created = response.status().is_success();
                break;
            }
            tokio::time::sleep(std::time::Duration::from_millis(100)).await;
        }
        assert!(created, "moto's server makes the bucket");
        std::env::set_var("AWS_ACCESS_KEY_ID", "testing");
        std::env::set_var("AWS_SECRET_ACCESS_KEY", "testing");
        keep_a_day(&app, &format!("s3://shop-archive/ledger?endpoint={endpoint}")).await;
        let report = sweep_later(&app.ledger, "test", 3).await.unwrap();
        assert_eq!((report.archived, report.files), (4, 2));
        let listing = client.get(format!("{endpoint}/shop-archive?list-type=2&prefix=ledger/acme/operations/")).send().await.unwrap().text().await.unwrap();
        assert_eq!(listing.matches(".parquet.manifest.json</Key>").count(), 2, "{listing}");
        let (status, read) = app.get_json("/api/v1/operations/refund-601-li_1").await;
        assert_eq!((status, read["state"].as_str()), (200, Some("succeeded")), "read back from the bucket: {read}");
        let (status, again) = app.register(&refund(602, 500)).await;
        assert_eq!((status, again["state"].as_str()), (200, Some("succeeded")));
        moto.kill().unwrap();
        moto.wait().unwrap();
        let (status, away) = app.get_json("/api/v1/operations/refund-601-li_1").await;
        assert_eq!(status, 503, "the archive is away: try again, not gone: {away}");

        let folder = tempfile::tempdir().unwrap();
        for n in 0..3 {
            succeeded(&app, 700 + n).await;
        }
        keep_a_day(&app, &folder_url(folder.path())).await;
        sweep_later(&app.ledger, "test", 100).await.unwrap();
        let printed = crate::support::run_client(python, "duckdb_archive.py", vec![folder.path().display().to_string()], String::new()).await;
        let read: Value = serde_json::from_str(printed.trim()).unwrap();
        assert_eq!(read["operations"], 3, "{read}");
        assert_eq!(read["states"], json!({"succeeded": 3}));
        assert_eq!(read["op_ids"], json!(["refund-700-li_1", "refund-701-li_1", "refund-702-li_1"]));
        assert_eq!(read["amounts"], json!([500, 500, 500]));
        let chain = app.number("select max(seq) from audit_events").await;
        assert!(read["audit_records"].as_i64().unwrap() >= 9 && read["audit_records"].as_i64().unwrap() < chain, "{read}");
        let first_here = app.number(&format!("select min(first_seq) from archives where holds = 'audit' and location = '{}'", folder_url(folder.path()))).await;
        assert_eq!(read["audit_first_seq"], first_here, "the chain's segments go on where those in the bucket ended: {read}");
        assert!(first_here > 1, "{read}");
    }
}

/// The one file under `folder` whose name ends with `suffix`.
fn walk(folder: &Path, suffix: &str) -> std::path::PathBuf {
    let mut stack = vec![folder.to_path_buf()];
    let mut found = Vec::new();
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                stack.push(path);
            } else if path.to_string_lossy().ends_with(suffix) {
                found.push(path);
            }
        }
    }
    assert_eq!(found.len(), 1, "{found:?}");
    found.pop().unwrap()
}

/// `serve --sweep-every` archives what is due for every tenant with a retention, by itself.
#[tokio::test]
async fn the_server_sweeps_by_itself() {
    let Some(app) = TestApp::spawn_with(crate::support::Engine::Sqlite, |settings| {
        settings.sweep_every = Some(std::time::Duration::from_millis(300));
    })
    .await
    else {
        return;
    };
    succeeded(&app, 800).await;
    let archive = tempfile::tempdir().unwrap();
    keep_a_day(&app, &folder_url(archive.path())).await;
    app.tamper("update operations set updated_at_us = updated_at_us - 172800000000").await;
    for _ in 0..100 {
        if app.number("select count(*) from archived_operations").await == 1 {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    }
    assert_eq!(archived_in(archive.path()).into_keys().collect::<Vec<_>>(), ["refund-800-li_1"]);
    assert_eq!(app.number("select count(*) from operations").await, 0);
}

/// On SQLite the sweep gives the pages the archived rows left back to the file system: nothing is
/// left on the free list of a database made by this version.
#[tokio::test]
async fn a_sqlite_sweep_gives_the_space_back() {
    let Some(app) = TestApp::spawn(crate::support::Engine::Sqlite).await else { return };
    for n in 0..120 {
        succeeded(&app, 1000 + n).await;
    }
    assert_eq!(app.number("select auto_vacuum from pragma_auto_vacuum").await, 2, "incremental");
    let archive = tempfile::tempdir().unwrap();
    keep_a_day(&app, &folder_url(archive.path())).await;
    let report = sweep_later(&app.ledger, "test", 50).await.unwrap();
    assert_eq!(report.archived, 120);
    assert_eq!(app.number("select count(*) from operations").await, 0);
    assert_eq!(
        app.number("select freelist_count from pragma_freelist_count").await,
        0,
        "no page left unused"
    );
}

/// The command line: a retention of 0 days is refused naming the field and sets nothing; one in
/// a folder outside `--archive-dir` is refused; a good one is shown, and the sweep counts what it did.
#[tokio::test]
async fn the_command_line_sets_shows_and_sweeps() {
    let Some(app) = TestApp::spawn(crate::support::Engine::Sqlite).await else { return };
    succeeded(&app, 1200).await;
    let archive = tempfile::tempdir().unwrap();
    let url = folder_url(archive.path());
    let run = |args: &[&str]| {
        std::process::Command::new(env!("CARGO_BIN_EXE_opledger"))
            .args(["retention"])
            .args(args)
            .args(["--database-url", app.database.url()])
            .env("OPLEDGER_SECRET_KEY", SECRET_KEY)
            .env("OPLEDGER_ARCHIVE_DIR", archive.path())
            .output()
            .unwrap()
    };
    let refused = run(&["set", "--tenant", "acme", "--days", "0", "--archive", &url]);
    assert!(!refused.status.success());
    assert!(
        String::from_utf8_lossy(&refused.stderr).contains("days: retention must be 1 to 36500 days"),
        "{refused:?}"
    );
    let outside = run(&["set", "--tenant", "acme", "--days", "1", "--archive", "file:///var/tmp/elsewhere"]);
    assert!(
        String::from_utf8_lossy(&outside.stderr).contains("outside the server's archive folder"),
        "{outside:?}"
    );
    let shown = run(&["show", "--tenant", "acme"]);
    assert!(String::from_utf8_lossy(&shown.stdout).contains("keeps every operation hot"), "{shown:?}");
    assert_eq!(app.ledger.retention(&acme()).await.unwrap(), None, "nothing was set");

    let set = run(&["set", "--tenant", "acme", "--days", "1", "--archive", &url]);
    assert!(
        String::from_utf8_lossy(&set.stdout).contains("archives operations 1 day after they closed"),
        "{set:?}"
    );
    app.tamper("update operations set updated_at_us = updated_at_us - 172800000000").await;
    let swept = run(&["sweep", "--tenant", "acme"]);
    assert!(swept.status.success(), "{swept:?}");
    assert!(
        String::from_utf8_lossy(&swept.stdout).contains("Archived 1 operation of tenant acme in 1 file."),
        "{swept:?}"
    );
    let shown = String::from_utf8(run(&["show", "--tenant", "acme"]).stdout).unwrap();
    assert!(
        shown.contains("archived 1 day after closing") && shown.contains("1 operation\tsealed"),
        "{shown}"
    );
}

/// PostgreSQL keeps the audit chain in monthly partitions: a sweep detaches and drops a month whose
/// records are all archived, keeps one that holds a record of an operation still open until that
/// operation is archived too, and the chain still exports whole from seq 1.
#[tokio::test]
async fn postgres_detaches_the_months_whose_records_are_all_archived() {
    let Some(app) = TestApp::spawn(crate::support::Engine::Postgres).await else { return };
    app.register(&refund(1, 500)).await;
    app.begin_attempt("refund-1-li_1").await;
    let january = 1_577_836_800_000_000_i64;
    let february = 1_580_515_200_000_000_i64;
    app.tamper(&format!(
        "insert into audit_pending (tenant, at_us, actor, role, action, op_id, from_state, to_state, reason, evidence) values \
         ('acme', {}, 'ada', 'admin', 'export', null, null, null, null, '{{}}'), \
         ('acme', {}, 'ada', 'admin', 'export', null, null, null, null, '{{}}'), \
         ('acme', {}, 'agent-7', 'agent', 'note', 'refund-1-li_1', null, null, null, '{{}}')",
        january + 1,
        january + 2,
        february + 1
    ))
    .await;
    app.ledger.seal_audit(Some(&acme())).await.unwrap();
    let month = |name: &str| format!("select count(*) from pg_inherits i join pg_class c on c.oid = i.inhrelid where c.relname = '{name}'");
    assert_eq!(app.number(&month("audit_events_202001")).await, 1, "the sealer made January 2020 for its records");
    assert_eq!(app.number(&month("audit_events_202002")).await, 1);
    let archive = tempfile::tempdir().unwrap();
    keep_a_day(&app, &folder_url(archive.path())).await;

    let report = sweep_later(&app.ledger, "test", 100).await.unwrap();
    assert_eq!(report.audit_months_detached, 1, "{report:?}");
    assert_eq!(app.number(&month("audit_events_202001")).await, 0, "January is archived whole: detached");
    assert_eq!(app.number("select count(*) from pg_class where relname = 'audit_events_202001'").await, 0, "and dropped");
    assert_eq!(app.number(&month("audit_events_202002")).await, 1, "February holds a record of an open operation");
    assert_eq!(app.number(&format!("select count(*) from audit_events where at_us = {}", february + 1)).await, 1);

    let exported = std::process::Command::new(env!("CARGO_BIN_EXE_opledger"))
        .args(["audit", "export", "--tenant", "acme", "--database-url", app.database.url()])
        .env("OPLEDGER_ARCHIVE_DIR", archive.path())
        .output()
        .unwrap();
    assert!(exported.status.success(), "{}", String::from_utf8_lossy(&exported.stderr));
    let records: Vec<opledger::domain::audit::AuditRecord> =
        String::from_utf8(exported.stdout).unwrap().lines().map(|line| serde_json::from_str(line).unwrap()).collect();
    assert_eq!(opledger::domain::audit::verify_chain(&records).map_err(|broken| broken.problem), Ok(records.len()));
    assert_eq!(records.iter().filter(|record| record.entry.at.timestamp_micros() < february).count(), 2, "January's records, from the archive");

    app.report("refund-1-li_1", 1, &json!({"outcome": "succeeded", "http_status": 200, "external_id": "re_1"})).await;
    let report = sweep_later(&app.ledger, "test", 100).await.unwrap();
    assert_eq!((report.archived, report.audit_months_detached), (1, 1), "{report:?}");
    assert_eq!(app.number(&month("audit_events_202002")).await, 0, "its operation archived, February goes too");
    assert_eq!(
        app.number("select cast(reltuples as bigint) from pg_class where relname = 'archived_operations'").await,
        1,
        "the planner has counted the keys the sweep added: a lookup by key is planned on the index"
    );
    verify_folder(archive.path(), None).expect("the archive holds");
}
