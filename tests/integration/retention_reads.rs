//! The archive is served only as it was signed (docs/retention.md, "Reading the archive back"), on
//! both engines, with the archive in a folder and in an S3-compatible bucket (moto's server) that
//! two tenants share. After each change an auditor or an attacker with write access to the archive
//! could make (a flipped byte, a rewritten value, a manifest edited to match it, a manifest signed
//! again with another key, a deleted manifest, a deleted file, another tenant's file and manifest in
//! its place, an older file of the same tenant put back), applied to a file of operations and to a
//! segment of the audit chain at once: the console page, the ledger API (in the caller's language),
//! the MCP tool, a registration of the same intent and the audit export refuse it and show nothing
//! of the other tenant, on the running server and on one started afterwards. The refusal is
//! recorded once, counted, and told to the admins by their notification rule. Putting the signed
//! files back serves them again.

use chrono::Duration;
use opledger::domain::archive::SignedManifest;
use opledger::domain::ids::{Actor, TenantId};
use opledger::domain::notification::{Audience, Channel, NotifyEvent, NotifyRule};
use opledger::domain::policy::Role;
use opledger::server::app::startup::{Application, Settings};
use opledger::server::archive::{file, Archive};
use opledger::server::egress::{Allowed, EgressPolicy};
use opledger::server::ledger::notifier::Notifier;
use opledger::server::ledger::notify::PrefsInput;
use opledger::server::ledger::secrets::SecretBox;
use opledger::server::sandbox::mail::MailSandbox;
use opledger::server::store::archive::ArchiveRecord;
use rmcp::model::CallToolRequestParams;
use rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig;
use rmcp::transport::StreamableHttpClientTransport;
use rmcp::ServiceExt;
use serde_json::{json, Value};
use std::net::SocketAddr;

use crate::support::{tenant_mailbox, Console, TestApp, PASSWORD, SECRET_KEY};

fn tenant(name: &str) -> TenantId {
    TenantId::parse(name).unwrap()
}

/// Where the two tenants' archive is: a folder, or a bucket of moto's server; read and written as
/// the server reads and writes it.
struct Place {
    url: String,
    archive: Archive,
    _folder: Option<tempfile::TempDir>,
    server: Option<std::process::Child>,
}

impl Place {
    async fn read(&self, object: &str) -> Vec<u8> {
        self.archive.get(object).await.unwrap_or_else(|error| panic!("{object}: {error}")).to_vec()
    }

    async fn write(&self, object: &str, bytes: &[u8]) {
        self.archive
            .put(object, bytes.to_vec().into())
            .await
            .unwrap_or_else(|error| panic!("{object}: {error}"));
    }

    async fn delete(&self, object: &str) {
        self.archive.remove(object).await.unwrap_or_else(|error| panic!("{object}: {error}"));
    }
}

impl Drop for Place {
    fn drop(&mut self) {
        if let Some(server) = &mut self.server {
            let _ = server.kill();
            let _ = server.wait();
        }
    }
}

/// A folder, or moto's server with the bucket made; `None` (a failure in CI) without moto.
async fn place(bucket: bool) -> Option<Place> {
    let egress = EgressPolicy::new(vec![Allowed::parse("127.0.0.1").unwrap()])
        .with_archive_dir(Some(std::env::temp_dir()));
    if !bucket {
        let folder = tempfile::tempdir().unwrap();
        let url = format!("file://{}", folder.path().display());
        let archive = Archive::open(&url, &egress).await.unwrap();
        return Some(Place { url, archive, _folder: Some(folder), server: None });
    }
    let python = crate::support::python("moto")?;
    let port = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
    let server = std::process::Command::new(&python)
        .args(["-m", "moto.server", "-H", "127.0.0.1", "-p", &port.to_string()])
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let endpoint = format!("http://127.0.0.1:{port}");
    std::env::set_var("AWS_ACCESS_KEY_ID", "testing");
    std::env::set_var("AWS_SECRET_ACCESS_KEY", "testing");
    let url = format!("s3://shared-archive/ledger?endpoint={endpoint}");
    let archive = Archive::open(&url, &egress).await.unwrap();
    let place = Place { url, archive, _folder: None, server: Some(server) };
    for _ in 0..100 {
        if let Ok(response) = reqwest::Client::new().put(format!("{endpoint}/shared-archive")).send().await {
            assert!(response.status().is_success(), "moto's server makes the bucket");
            return Some(place);
        }
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    }
    panic!("moto's server did not start");
}

/// Registers refund `n` with `token` and reports it succeeded as `external_id`.
async fn succeeded(app: &TestApp, token: &str, n: usize, external_id: &str) {
    let op_id = format!("refund-{n}-li_1");
    let body = json!({
        "op_id": op_id, "kind": "refund", "subject": format!("order:{n}"), "provider": "stripe",
        "params": {"payment_intent": format!("pi_{n}"), "amount": {"minor": 500, "currency": "TWD"}},
        "requested_by": "agent-7"
    });
    let (status, answer) = app.post_as(token, "/api/v1/operations", &body).await;
    assert_eq!(status, 201, "{answer}");
    let (status, answer) =
        app.post_as(token, &format!("/api/v1/operations/{op_id}/attempts"), &json!({})).await;
    assert_eq!(status, 201, "{answer}");
    let outcome = json!({"outcome": "succeeded", "http_status": 200, "external_id": external_id});
    let (status, answer) =
        app.post_as(token, &format!("/api/v1/operations/{op_id}/attempts/1/outcome"), &outcome).await;
    assert_eq!(status, 200, "{answer}");
}

/// Sweeps `tenant` as if `days` from now.
async fn sweep(app: &TestApp, tenant_name: &str, days: i64) {
    let later = opledger::server::clock::now() + Duration::days(days);
    app.ledger.sweep(&tenant(tenant_name), "test", later, 100, false, |_| {}).await.expect("the sweep ends");
}

/// Another server on `app`'s database, as one started after the change is: nothing read before.
struct Restarted {
    addr: SocketAddr,
    _stop: tokio::sync::oneshot::Sender<()>,
}

impl Restarted {
    async fn start(app: &TestApp) -> Restarted {
        let mut settings = Settings::new(app.database.url(), "127.0.0.1:0".parse().unwrap());
        settings.secret_key = Some(SECRET_KEY.into());
        settings.default_tenants = vec![tenant("acme")];
        settings.allow_egress = vec![opledger::server::egress::Allowed::parse("127.0.0.1").unwrap()];
        settings.archive_dir = Some(std::env::temp_dir());
        let site_root = tempfile::tempdir().unwrap();
        settings.site_root = site_root.path().display().to_string();
        let application = Application::build(settings).await.expect("the server starts again");
        let addr = application.local_addr();
        let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
        tokio::spawn(application.run_until(async move {
            let _ = stopped.await;
            drop(site_root);
        }));
        Restarted { addr, _stop: stop }
    }
}

/// What every surface answers for the archived refund 2 of `acme` on the server at `addr`.
struct Answers {
    api: (u16, Value),
    api_in_chinese: (u16, Value),
    page: (u16, String),
    mcp: (bool, String),
    registered: (u16, Value),
    export: (u16, String),
}

/// The support person and the auditor, signed in once: their sessions hold on every instance.
struct People {
    support: Console,
    auditor: Console,
}

async fn answers(app: &TestApp, people: &People, addr: SocketAddr) -> Answers {
    let client = reqwest::Client::new();
    let read = |language: &'static str| {
        let request = client
            .get(format!("http://{addr}/api/v1/operations/refund-2-li_1"))
            .bearer_auth(&app.token)
            .header("accept-language", language);
        async move {
            let response = request.send().await.unwrap();
            (response.status().as_u16(), response.json::<Value>().await.unwrap())
        }
    };
    let api = read("en").await;
    let api_in_chinese = read("zh-TW").await;
    let page =
        people.support.client.get(format!("http://{addr}/operations/refund-2-li_1")).send().await.unwrap();
    let page = (page.status().as_u16(), page.text().await.unwrap());
    let config = StreamableHttpClientTransportConfig::with_uri(format!("http://{addr}/mcp"))
        .auth_header(app.token.clone());
    let mcp_client =
        ().serve(StreamableHttpClientTransport::from_config(config)).await.expect("the MCP client connects");
    let arguments = json!({"op_id": "refund-2-li_1"}).as_object().cloned().unwrap();
    let read = mcp_client
        .call_tool(CallToolRequestParams::new("get_operation").with_arguments(arguments))
        .await
        .unwrap();
    let mcp = (read.is_error == Some(true), serde_json::to_value(&read).unwrap().to_string());
    mcp_client.cancel().await.unwrap();
    let again = json!({
        "op_id": "refund-2-li_1", "kind": "refund", "subject": "order:2", "provider": "stripe",
        "params": {"payment_intent": "pi_2", "amount": {"minor": 500, "currency": "TWD"}},
        "requested_by": "agent-7"
    });
    let response = client
        .post(format!("http://{addr}/api/v1/operations"))
        .bearer_auth(&app.token)
        .json(&again)
        .send()
        .await
        .unwrap();
    let registered = (response.status().as_u16(), response.json::<Value>().await.unwrap());
    let export = people.auditor.client.get(format!("http://{addr}/audit/export.jsonl")).send().await.unwrap();
    let export = (export.status().as_u16(), export.text().await.unwrap());
    Answers { api, api_in_chinese, page, mcp, registered, export }
}

/// Asserts that every surface serves acme's refund 2 and a whole audit export.
fn served(answers: &Answers, when: &str) {
    let (status, read) = &answers.api;
    assert_eq!(*status, 200, "{when}: {read}");
    assert_eq!(read["external_refs"], json!(["stripe/refund/re_acme_2"]), "{when}");
    assert_eq!(answers.page.0, 200, "{when}");
    assert!(answers.page.1.contains("re_acme_2"), "{when}: the page shows its external id");
    assert!(!answers.mcp.0 && answers.mcp.1.contains("re_acme_2"), "{when}: {}", answers.mcp.1);
    assert_eq!(answers.registered.0, 200, "{when}: {}", answers.registered.1);
    assert_eq!(answers.registered.1["state"], "succeeded", "{when}");
    assert_eq!(answers.export.0, 200, "{when}: {}", answers.export.1);
    let records: Vec<opledger::domain::audit::AuditRecord> =
        answers.export.1.lines().map(|line| serde_json::from_str(line).unwrap()).collect();
    let verified = opledger::domain::audit::verify_chain(&records).map_err(|broken| broken.problem);
    assert_eq!(verified, Ok(records.len()), "{when}: the export is whole from seq 1");
}

/// Asserts that every surface refuses, saying why, and shows nothing of the file nor of globex.
fn refused(answers: &Answers, when: &str) {
    let everything = format!(
        "{} {} {} {} {} {}",
        answers.api.1,
        answers.api_in_chinese.1,
        answers.page.1,
        answers.mcp.1,
        answers.registered.1,
        answers.export.1
    );
    for shown in ["re_acme_2", "re_globex", "globex", "re_forged", "pi_2\""] {
        assert!(!everything.contains(shown), "{when}: {shown} is shown: {everything}");
    }
    let (status, read) = &answers.api;
    assert_eq!((*status, read["error"]["code"].as_str()), (502, Some("archive_untrusted")), "{when}: {read}");
    assert!(read["error"]["message"].as_str().unwrap().contains("cannot be trusted"), "{when}: {read}");
    let (status, chinese) = &answers.api_in_chinese;
    assert_eq!(*status, 502, "{when}");
    assert!(chinese["error"]["message"].as_str().unwrap().contains("無法信任"), "{when}: {chinese}");
    assert_eq!(answers.page.0, 502, "{when}: {}", answers.page.1);
    assert!(
        answers.page.1.contains("cannot be trusted") && answers.page.1.contains("Nothing of it is shown"),
        "{when}"
    );
    assert!(answers.mcp.0 && answers.mcp.1.contains("archive_untrusted"), "{when}: {}", answers.mcp.1);
    let (status, registered) = &answers.registered;
    assert_eq!(
        (*status, registered["error"]["code"].as_str()),
        (502, Some("archive_untrusted")),
        "{when}: {registered}"
    );
    assert_eq!(answers.export.0, 502, "{when}: {}", answers.export.1);
    assert!(answers.export.1.contains("The export did not start"), "{when}: {}", answers.export.1);
}

/// The sealed files of `tenant_name` that hold `holds` (`operations` or `audit`), oldest first.
async fn files(app: &TestApp, tenant_name: &str, holds_audit: bool) -> Vec<ArchiveRecord> {
    let all = app.store.archives(&tenant(tenant_name)).await.unwrap();
    all.into_iter().filter(|record| record.sealed && record.audit_span.is_some() == holds_audit).collect()
}

/// `bytes` of a file of operations with `value` rewritten in place of each external id, or of a
/// segment with every actor rewritten: a file as a writer with the archive's format would make it.
fn rewritten(bytes: &[u8], segment: bool) -> Vec<u8> {
    if segment {
        let mut records = file::read_audit(bytes.to_vec().into()).unwrap();
        for record in &mut records {
            record.entry.actor = "re_forged".into();
        }
        return file::write_audit(&records).unwrap().to_vec();
    }
    let mut operations = file::read(bytes.to_vec().into()).unwrap();
    for operation in &mut operations {
        for reference in &mut operation.external_refs {
            reference.external_id = "re_forged".into();
        }
    }
    file::write(&operations).unwrap().to_vec()
}

/// The manifest `text` describing `bytes` instead: its SHA-256 changed, signed again with `key`
/// (the attacker's own), or left with the old signature.
fn manifest_for(text: &[u8], bytes: &[u8], key: Option<&str>) -> Vec<u8> {
    use sha2::Digest;
    let mut signed: SignedManifest = serde_json::from_slice(text).unwrap();
    signed.manifest.sha256 = hex::encode(sha2::Sha256::digest(bytes));
    if let Some(key) = key {
        signed = SecretBox::from_hex(key).unwrap().archive_signer().sign(signed.manifest);
    }
    serde_json::to_vec_pretty(&signed).unwrap()
}

/// The notification rule that tells the admins by e-mail of an untrusted archive file, with the
/// tenant's SMTP server and its admin alex's address; answers the mailbox.
async fn admins_told(app: &TestApp) -> MailSandbox {
    let mail = tenant_mailbox(app, "acme").await;
    let admin = Actor::human("alex", Role::Admin);
    app.add_user("acme", "alex", Role::Admin).await;
    let people =
        app.store.notify_recipients(&tenant("acme"), &Audience::People(vec!["alex".into()])).await.unwrap();
    let prefs = PrefsInput { email: "alex@acme.example".into(), ..PrefsInput::default() };
    app.ledger.set_notify_prefs(&tenant("acme"), &people[0].user_id, prefs).await.unwrap();
    let rule = NotifyRule {
        event: NotifyEvent::ArchiveUntrusted,
        audience: Audience::Role(Role::Admin),
        channel: Channel::Email,
        after: Duration::zero(),
        remind_every: None,
        escalation: None,
    };
    app.ledger.add_notify_rule(&tenant("acme"), &admin, rule).await.unwrap();
    mail
}

async fn served_only_as_signed(app: TestApp, bucket: bool) {
    let Some(place) = place(bucket).await else { return };
    let admin = Actor::human("ada.admin", Role::Admin);
    for name in ["acme", "globex"] {
        app.ledger.set_retention(&tenant(name), &admin, 1, &place.url).await.expect("the retention is set");
    }
    // Both tenants refund an order 1 (the same op id); acme's second refund is archived later,
    // in a file and a segment of their own.
    succeeded(&app, &app.token, 1, "re_acme_1").await;
    succeeded(&app, &app.other_token, 1, "re_globex_1").await;
    sweep(&app, "acme", 2).await;
    sweep(&app, "globex", 2).await;
    succeeded(&app, &app.token, 2, "re_acme_2").await;
    sweep(&app, "acme", 4).await;
    let people = People {
        support: app.signed_in("sam", Role::Support).await,
        auditor: app.signed_in("ada", Role::Auditor).await,
    };
    let mail = admins_told(&app).await;
    let admin = app.console();
    admin.sign_in("alex", PASSWORD, "/").await;
    served(&answers(&app, &people, app.addr).await, "as sealed");

    let (acme_files, acme_segments) = (files(&app, "acme", false).await, files(&app, "acme", true).await);
    let (globex_files, globex_segments) =
        (files(&app, "globex", false).await, files(&app, "globex", true).await);
    // A sweep seals the chain up to its head, and a second segment when the sweep's own records
    // were sealed meanwhile: at least one segment each sweep.
    let counted =
        (acme_files.len(), acme_segments.len() >= 2, globex_files.len(), globex_segments.is_empty());
    assert_eq!(counted, (2, true, 1, false), "{acme_segments:?}");
    // The files changed: the newer file of operations (refund 2's) and the last segment.
    let newest_segment = acme_segments.last().unwrap();
    let targets = [
        (&acme_files[1], &acme_files[0], &globex_files[0], false),
        (newest_segment, &acme_segments[0], &globex_segments[0], true),
    ];
    let mut originals = Vec::new();
    for (target, _, _, _) in &targets {
        let manifest = format!("{}.manifest.json", target.object_path);
        originals.push((
            target.object_path.clone(),
            place.read(&target.object_path).await,
            manifest.clone(),
            place.read(&manifest).await,
        ));
    }
    let attacker_key = "ab".repeat(32);
    let changes = [
        "a flipped byte",
        "a rewritten value",
        "a rewritten value with the manifest's SHA-256 edited to match",
        "a rewritten value with its manifest signed again by another key",
        "a deleted manifest",
        "a deleted file",
        "another tenant's file and manifest in its place",
        "an older file of the tenant and its manifest put back",
    ];
    for change in changes {
        for ((_, older, other_tenant, segment), (object, bytes, manifest, manifest_text)) in
            targets.iter().zip(&originals)
        {
            match change {
                "a flipped byte" => {
                    let mut flipped = bytes.clone();
                    let middle = flipped.len() / 2;
                    flipped[middle] ^= 0x01;
                    place.write(object, &flipped).await;
                }
                "a rewritten value" => place.write(object, &rewritten(bytes, *segment)).await,
                "a rewritten value with the manifest's SHA-256 edited to match" => {
                    let forged = rewritten(bytes, *segment);
                    place.write(manifest, &manifest_for(manifest_text, &forged, None)).await;
                    place.write(object, &forged).await;
                }
                "a rewritten value with its manifest signed again by another key" => {
                    let forged = rewritten(bytes, *segment);
                    place.write(manifest, &manifest_for(manifest_text, &forged, Some(&attacker_key))).await;
                    place.write(object, &forged).await;
                }
                "a deleted manifest" => place.delete(manifest).await,
                "a deleted file" => place.delete(object).await,
                "another tenant's file and manifest in its place"
                | "an older file of the tenant and its manifest put back" => {
                    let from = if change.starts_with("another") { other_tenant } else { older };
                    let from_manifest = format!("{}.manifest.json", from.object_path);
                    place.write(object, &place.read(&from.object_path).await).await;
                    place.write(manifest, &place.read(&from_manifest).await).await;
                }
                other => unreachable!("{other}"),
            }
        }
        refused(&answers(&app, &people, app.addr).await, &format!("{change}, on the running server"));
        if change == changes[0] {
            let notifier = Notifier::new(
                app.ledger.clone(),
                "https://ops.acme.example",
                std::time::Duration::from_secs(1),
            );
            notifier.pass().await.unwrap();
            let told: Vec<String> = mail
                .mailbox()
                .into_iter()
                .filter(|message| message.to.contains(&"alex@acme.example".to_owned()))
                .map(|message| format!("{message:?}"))
                .collect();
            assert!(!told.is_empty(), "the admin is told by e-mail");
            assert!(
                told[0].contains("Not as signed")
                    && told[0].contains("acme/")
                    && told[0].contains("/admin/retention"),
                "{}",
                told[0]
            );
            assert!(!told[0].contains("globex"), "{}", told[0]);
            let files = admin.page("/admin/retention", 200).await;
            assert_eq!(files.matches("data-testid=\"archive-file-untrusted\"").count(), 2, "{files}");
            assert!(files.contains("not as signed: the file is not the one that was signed"), "{files}");
        }
        let restarted = Restarted::start(&app).await;
        refused(
            &answers(&app, &people, restarted.addr).await,
            &format!("{change}, on a server started afterwards"),
        );
        assert_eq!(
            app.number("select count(*) from operations").await,
            0,
            "{change}: a registration records nothing"
        );
        let untrusted = app.number("select count(*) from archives where distrust is not null").await;
        assert_eq!(untrusted, 2, "{change}: the two files are recorded as not as signed");
        for (object, bytes, manifest, manifest_text) in &originals {
            place.write(object, bytes).await;
            place.write(manifest, manifest_text).await;
        }
        served(
            &answers(&app, &people, app.addr).await,
            &format!("{change}, put back, on the running server"),
        );
        served(
            &answers(&app, &people, Restarted::start(&app).await.addr).await,
            &format!("{change}, put back, on a server started afterwards"),
        );
        assert_eq!(
            app.number("select count(*) from archives where distrust is not null").await,
            0,
            "{change}: trusted again"
        );
        if change == changes[0] {
            let files = admin.page("/admin/retention", 200).await;
            assert!(!files.contains("archive-file-untrusted"), "{change}: trusted again on the page: {files}");
        }
    }

    app.ledger.seal_audit(Some(&tenant("acme"))).await.unwrap();
    let chain = app.ledger.audit_chain(&tenant("acme")).await.unwrap();
    let count = |action: &str| chain.iter().filter(|record| record.entry.action == action).count();
    assert_eq!(
        count("distrust_archive"),
        2 * changes.len(),
        "each file refused is in the audit trail once for each change"
    );
    assert_eq!(count("trust_archive_again"), 2 * changes.len(), "and each file put back");
    let metrics = app.ledger.metrics().render(&Default::default());
    assert!(
        metrics.contains("opledger_archive_files_refused_total{tenant=\"acme\",why=\"file_changed\"}"),
        "{metrics}"
    );
    assert!(metrics.contains("why=\"other_tenant\""), "another tenant's file is told apart: {metrics}");
}

crate::on_both_engines!(
    a_folder_archive_is_served_only_as_it_was_signed,
    a_bucket_archive_is_served_only_as_it_was_signed
);

async fn a_folder_archive_is_served_only_as_it_was_signed(engine: crate::support::Engine) {
    let Some(app) = TestApp::spawn(engine).await else { return };
    served_only_as_signed(app, false).await;
}

async fn a_bucket_archive_is_served_only_as_it_was_signed(engine: crate::support::Engine) {
    let Some(app) = TestApp::spawn(engine).await else { return };
    served_only_as_signed(app, true).await;
}
