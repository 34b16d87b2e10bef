//! The `opledger` binary: help, migrate, serve, a clean stop on SIGTERM, and the OpenAPI document
//! it prints for the clients.

use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

fn opledger() -> Command {
    let mut command = Command::new(env!("CARGO_BIN_EXE_opledger"));
    command.env_remove("OPLEDGER_DATABASE_URL").env_remove("OPLEDGER_ADDR");
    command
}

/// Adds the tenant `tenant` to the database at `url`, as `opledger tenant add` does.
fn add_tenant(url: &str, tenant: &str) {
    let added = opledger().args(["tenant", "add", "--database-url", url, tenant]).output().unwrap();
    assert!(added.status.success(), "{}", String::from_utf8_lossy(&added.stderr));
}

#[test]
fn help_explains_the_subcommands_and_their_settings() {
    let output = opledger().arg("--help").output().unwrap();
    assert!(output.status.success());
    let help = String::from_utf8(output.stdout).unwrap();
    assert!(help.contains("serve") && help.contains("migrate"), "{help}");
    let serve = String::from_utf8(opledger().args(["serve", "--help"]).output().unwrap().stdout).unwrap();
    for expected in [
        "--database-url",
        "OPLEDGER_DATABASE_URL",
        "sqlite://opledger.db",
        "--addr",
        "OPLEDGER_ADDR",
        "127.0.0.1:3000",
    ] {
        assert!(serve.contains(expected), "serve --help lacks {expected}: {serve}");
    }
}

#[tokio::test]
async fn openapi_prints_the_document_the_server_serves() {
    let output = opledger().arg("openapi").output().unwrap();
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    let printed: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
    let Some(app) = crate::support::TestApp::spawn(crate::support::Engine::Sqlite).await else { return };
    let (status, served) = app.get_json("/api/v1/openapi.json").await;
    assert_eq!(status, 200);
    assert_eq!(printed, served, "the printed document is the one the server serves");
    assert!(output.stdout.ends_with(b"}\n"), "one final newline, so that a checked-in copy diffs cleanly");
}

#[test]
fn migrate_creates_the_sqlite_file_and_is_idempotent() {
    let dir = tempfile::tempdir().unwrap();
    let url = format!("sqlite://{}", dir.path().join("new.db").display());
    for _ in 0..2 {
        let output = opledger().args(["migrate", "--database-url", &url]).output().unwrap();
        assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
        assert_eq!(String::from_utf8(output.stdout).unwrap(), "The sqlite database is up to date.\n");
    }
    assert!(dir.path().join("new.db").exists());
}

#[test]
fn an_unsupported_database_url_is_refused_with_the_accepted_forms() {
    let output = opledger().args(["migrate", "--database-url", "mysql://localhost/x"]).output().unwrap();
    assert!(!output.status.success());
    let stderr = String::from_utf8(output.stderr).unwrap();
    assert!(stderr.contains("must start with sqlite:// or postgres://"), "{stderr}");
}

fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port()
}

#[test]
fn serve_answers_and_stops_cleanly_on_sigterm() {
    let dir = tempfile::tempdir().unwrap();
    let addr = format!("127.0.0.1:{}", free_port());
    let mut server = opledger()
        .args(["serve", "--addr", &addr, "--site-root", &dir.path().display().to_string()])
        .env("OPLEDGER_DATABASE_URL", format!("sqlite://{}", dir.path().join("serve.db").display()))
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let deadline = Instant::now() + Duration::from_secs(30);
    let healthy = loop {
        let answer = std::net::TcpStream::connect(&addr).ok().and_then(|mut stream| {
            use std::io::{Read, Write};
            stream.write_all(b"GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n").ok()?;
            let mut text = String::new();
            stream.read_to_string(&mut text).ok()?;
            Some(text)
        });
        if let Some(text) = answer {
            break text;
        }
        assert!(Instant::now() < deadline, "the server did not answer within 30 s");
        std::thread::sleep(Duration::from_millis(100));
    };
    assert!(healthy.starts_with("HTTP/1.1 200"), "{healthy}");
    let killed = Command::new("kill").args(["-TERM", &server.id().to_string()]).status().unwrap();
    assert!(killed.success());
    let deadline = Instant::now() + Duration::from_secs(10);
    let status = loop {
        if let Some(status) = server.try_wait().unwrap() {
            break status;
        }
        assert!(Instant::now() < deadline, "the server did not stop within 10 s of SIGTERM");
        std::thread::sleep(Duration::from_millis(50));
    };
    assert!(status.success(), "a SIGTERM stop is a clean exit: {status}");
}

#[test]
fn token_create_prints_a_token_once_and_refuses_a_duplicate_name() {
    let dir = tempfile::tempdir().unwrap();
    let url = format!("sqlite://{}", dir.path().join("tokens.db").display());
    add_tenant(&url, "acme");
    let create = || {
        opledger()
            .args(["token", "create", "--database-url", &url, "--tenant", "acme", "--name", "support-agent"])
            .output()
            .unwrap()
    };
    let first = create();
    assert!(first.status.success(), "{}", String::from_utf8_lossy(&first.stderr));
    let token = String::from_utf8(first.stdout).unwrap();
    assert!(token.trim().starts_with("opl_") && token.trim().len() > 40, "{token}");
    let second = create();
    assert!(!second.status.success());
    assert!(String::from_utf8(second.stderr).unwrap().contains("already exists"));
}

#[test]
fn a_revoked_token_is_gone_and_revoking_twice_says_so() {
    let dir = tempfile::tempdir().unwrap();
    let url = format!("sqlite://{}", dir.path().join("tokens.db").display());
    add_tenant(&url, "acme");
    let run = |verb: &str| {
        opledger()
            .args(["token", verb, "--database-url", &url, "--tenant", "acme", "--name", "bot"])
            .output()
            .unwrap()
    };
    assert!(run("create").status.success());
    let revoked = run("revoke");
    assert!(revoked.status.success(), "{}", String::from_utf8_lossy(&revoked.stderr));
    let again = run("revoke");
    assert!(!again.status.success());
    assert!(String::from_utf8(again.stderr).unwrap().contains("has no active API token named \"bot\""));
}

#[test]
fn reconcile_needs_to_know_where_the_provider_is() {
    let dir = tempfile::tempdir().unwrap();
    let url = format!("sqlite://{}", dir.path().join("r.db").display());
    let output = opledger()
        .args(["reconcile", "--once", "--database-url", &url])
        .env_remove("OPLEDGER_STRIPE_BASE_URL")
        .output()
        .unwrap();
    assert!(!output.status.success());
    assert!(String::from_utf8(output.stderr).unwrap().contains("--stripe-base-url"));
}

#[test]
fn user_add_reads_the_password_from_standard_input_and_refuses_bad_input() {
    use std::io::Write;
    let dir = tempfile::tempdir().unwrap();
    let url = format!("sqlite://{}", dir.path().join("users.db").display());
    add_tenant(&url, "acme");
    let add = |name: &str, role: &str, password: &str| {
        let mut child = opledger()
            .args(["user", "add", "--database-url", &url, "--tenant", "acme", "--name", name, "--role", role])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        writeln!(child.stdin.take().unwrap(), "{password}").unwrap();
        child.wait_with_output().unwrap()
    };
    let added = add("maria", "manager", "a long password");
    assert!(added.status.success(), "{}", String::from_utf8_lossy(&added.stderr));
    assert_eq!(String::from_utf8(added.stdout).unwrap(), "Added maria to tenant acme as manager.\n");
    let again = add("maria", "support", "another long password");
    assert!(!again.status.success());
    assert!(
        String::from_utf8_lossy(&again.stderr).contains("a user named maria exists already in this tenant")
    );
    let short = add("sam", "support", "short");
    assert!(String::from_utf8_lossy(&short.stderr).contains("at least 10 characters"));
    let role = add("sam", "owner", "a long password");
    assert!(
        String::from_utf8_lossy(&role.stderr).contains("invalid value 'owner'"),
        "{}",
        String::from_utf8_lossy(&role.stderr)
    );
}

#[test]
fn provider_set_keeps_the_secret_out_of_every_output_and_list_shows_its_last_four() {
    use std::io::Write;
    const SECRET: &str = "sk_test_supersecret_9f2c";
    let dir = tempfile::tempdir().unwrap();
    let url = format!("sqlite://{}", dir.path().join("providers.db").display());
    add_tenant(&url, "acme");
    let set = |key: Option<&str>| {
        let mut command = opledger();
        command
            .args(["provider", "set", "--database-url", &url, "--tenant", "acme", "--name", "stripe"])
            .args(["--kind", "stripe", "--base-url", "https://api.stripe.com"])
            .env("RUST_LOG", "debug")
            .env_remove("OPLEDGER_SECRET_KEY")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        if let Some(key) = key {
            command.env("OPLEDGER_SECRET_KEY", key);
        }
        let mut child = command.spawn().unwrap();
        writeln!(child.stdin.take().unwrap(), "{SECRET}").unwrap();
        child.wait_with_output().unwrap()
    };
    let without_key = set(None);
    assert!(!without_key.status.success());
    assert!(String::from_utf8_lossy(&without_key.stderr).contains("no OPLEDGER_SECRET_KEY is set"));

    let key = "5e7f1c0a9b3d2e4f60718293a4b5c6d7e8f90a1b2c3d4e5f60718293a4b5c6d7";
    let added = set(Some(key));
    let printed =
        format!("{}{}", String::from_utf8_lossy(&added.stdout), String::from_utf8_lossy(&added.stderr));
    assert!(added.status.success(), "{printed}");
    assert!(!printed.contains(SECRET), "the secret is in the output or the logs: {printed}");

    let listed =
        opledger().args(["provider", "list", "--database-url", &url, "--tenant", "acme"]).output().unwrap();
    let listed = String::from_utf8(listed.stdout).unwrap();
    assert!(listed.starts_with("stripe\tstripe\thttps://api.stripe.com\t…9f2c\t"), "{listed}");
    assert!(!listed.contains(SECRET));

    let wrong_key = opledger()
        .args(["reconcile", "--once", "--database-url", &url])
        .env("OPLEDGER_SECRET_KEY", "ab".repeat(32))
        .output()
        .unwrap();
    assert!(!wrong_key.status.success());
    assert!(
        String::from_utf8_lossy(&wrong_key.stderr).contains("does not open with this OPLEDGER_SECRET_KEY")
    );

    let removed = opledger()
        .args(["provider", "remove", "--database-url", &url, "--tenant", "acme", "--name", "stripe"])
        .output()
        .unwrap();
    assert!(removed.status.success(), "{}", String::from_utf8_lossy(&removed.stderr));
    let again = opledger()
        .args(["provider", "remove", "--database-url", &url, "--tenant", "acme", "--name", "stripe"])
        .output()
        .unwrap();
    assert!(String::from_utf8_lossy(&again.stderr).contains("tenant acme has no stripe account of its own"));
}

/// A mail server, an HTTP API from its description file and an email template, all from the
/// command line; a wrong description is refused with where it is wrong, and nothing is saved.
#[test]
fn mail_servers_described_apis_and_templates_are_set_from_the_command_line() {
    use std::io::Write;
    let dir = tempfile::tempdir().unwrap();
    let url = format!("sqlite://{}", dir.path().join("downstreams.db").display());
    add_tenant(&url, "acme");
    let run = |args: &[&str], input: &str| {
        let mut child = opledger()
            .args(args)
            .args(["--database-url", &url, "--tenant", "acme"])
            .env("OPLEDGER_SECRET_KEY", "5e".repeat(32))
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        child.stdin.take().unwrap().write_all(input.as_bytes()).unwrap();
        let output = child.wait_with_output().unwrap();
        let printed =
            format!("{}{}", String::from_utf8_lossy(&output.stdout), String::from_utf8_lossy(&output.stderr));
        (output.status.success(), printed)
    };
    let smtp =
        ["provider", "set", "--name", "email", "--kind", "smtp", "--base-url", "smtp://127.0.0.1:2525"];
    let (saved, printed) = run(
        &[&smtp[..], &["--allow-egress", "127.0.0.1", "--account", "Acme <support@acme.example>"]].concat(),
        "pw\n",
    );
    assert!(saved, "{printed}");

    let description = dir.path().join("helpdesk.json");
    let wrong = r#"{"format": "opledger/http-api/1", "operations": {"open_ticket": {"request": {"method": "GET", "path": "/t"}}}}"#;
    std::fs::write(&description, wrong).unwrap();
    let path = description.display().to_string();
    let http = [
        "provider",
        "set",
        "--name",
        "helpdesk",
        "--kind",
        "http",
        "--base-url",
        "https://desk.example.com",
        "--description",
        &path,
    ];
    let (saved, printed) = run(&http, "desk-secret\n");
    assert!(!saved && printed.contains("operations.open_ticket.request.method: must be POST"), "{printed}");
    std::fs::write(&description, wrong.replace("GET", "POST")).unwrap();
    let (saved, printed) = run(&http, "desk-secret\n");
    assert!(saved, "{printed}");

    let (saved, printed) = run(
        &["template", "set", "--name", "shipped", "--subject", "Order {order} is on its way"],
        "Hello {name}\n",
    );
    assert!(!saved && printed.contains("The body uses {name}"), "{printed}");
    let (saved, printed) = run(
        &["template", "set", "--name", "shipped", "--subject", "Order {order} is on its way"],
        "Hello,\norder {order} left.\n",
    );
    assert!(saved, "{printed}");
    let (_, listed) = run(&["template", "list"], "");
    assert!(listed.starts_with("shipped\tOrder {order} is on its way\tset by cli"), "{listed}");
    let (_, providers) = run(&["provider", "list"], "");
    assert!(providers.contains("email\tsmtp\tsmtp://127.0.0.1:2525\t…pw\t"), "{providers}");
    assert!(providers.contains("helpdesk\thttp\thttps://desk.example.com\t"), "{providers}");
}

/// Every command line `opledger` takes that names a tenant with `--tenant`, each with a value for
/// every other argument it requires (from `samples`); the ids of required arguments without one.
fn commands_naming_a_tenant(samples: &[(&str, &str)]) -> (Vec<Vec<String>>, Vec<String>) {
    fn walk(
        command: &clap::Command,
        path: Vec<String>,
        samples: &[(&str, &str)],
        found: &mut (Vec<Vec<String>>, Vec<String>),
    ) {
        if command.has_subcommands() {
            for sub in command.get_subcommands() {
                let mut deeper = path.clone();
                deeper.push(sub.get_name().to_owned());
                walk(sub, deeper, samples, found);
            }
            return;
        }
        if !command.get_arguments().any(|arg| arg.get_id() == "tenant") {
            return;
        }
        let mut line = path.clone();
        for arg in command.get_arguments().filter(|arg| arg.is_required_set()) {
            let id = arg.get_id().as_str();
            if id == "tenant" || id == "database_url" {
                continue;
            }
            let Some((_, value)) = samples.iter().find(|(sample, _)| *sample == id) else {
                found.1.push(format!("{} --{id}", path.join(" ")));
                continue;
            };
            if let Some(long) = arg.get_long() {
                line.push(format!("--{long}"));
            }
            line.push((*value).to_owned());
        }
        // Arguments required unless another is given (`--host`, unless `--remove`) are given too.
        for _ in 0..command.get_arguments().count() {
            let full = [vec!["opledger".to_owned()], line.clone(), vec!["--tenant".into(), "nosuch".into()]]
                .concat();
            let Err(error) = <opledger::server::app::cli::Cli as clap::Parser>::try_parse_from(&full) else {
                break;
            };
            let Some(clap::error::ContextValue::Strings(wanted)) =
                error.get(clap::error::ContextKind::InvalidArg)
            else {
                break;
            };
            for wanted in wanted.clone() {
                let long = wanted.trim_start_matches("--").split(' ').next().unwrap_or_default().to_owned();
                let id = command
                    .get_arguments()
                    .find(|arg| arg.get_long() == Some(long.as_str()))
                    .map(|arg| arg.get_id().to_string());
                match samples.iter().find(|(sample, _)| Some(*sample) == id.as_deref()) {
                    Some((_, value)) => line.extend([format!("--{long}"), (*value).to_owned()]),
                    None => found.1.push(format!("{} {wanted}", path.join(" "))),
                }
            }
        }
        found.0.push(line);
    }
    let mut found = (Vec::new(), Vec::new());
    walk(
        &<opledger::server::app::cli::Cli as clap::CommandFactory>::command(),
        Vec::new(),
        samples,
        &mut found,
    );
    found
}

/// How many rows each table of the SQLite database at `path` holds.
async fn rows_of_every_table(path: &std::path::Path) -> Vec<(String, i64)> {
    use sqlx::Connection;
    let mut connection =
        sqlx::SqliteConnection::connect(&format!("sqlite://{}", path.display())).await.unwrap();
    let tables: Vec<(String,)> =
        sqlx::query_as("select name from sqlite_master where type = 'table' order by name")
            .fetch_all(&mut connection)
            .await
            .unwrap();
    let mut counts = Vec::new();
    for (table,) in tables {
        let (count,): (i64,) = sqlx::query_as(&format!("select count(*) from \"{table}\""))
            .fetch_one(&mut connection)
            .await
            .unwrap();
        counts.push((table, count));
    }
    counts
}

#[tokio::test]
async fn every_command_that_names_a_tenant_refuses_one_that_does_not_exist_and_changes_nothing() {
    let samples = [
        ("name", "x"),
        ("days", "30"),
        ("archive", "file:///tmp/opledger-archive"),
        ("event", "approval_requested"),
        ("to", "role:manager"),
        ("channel", "email"),
        ("kind", "stripe"),
        ("role", "admin"),
        ("url", "https://hooks.example.com/opledger"),
        ("events", "operation.planned"),
        ("subject", "Your refund"),
        ("host", "smtp.example.com"),
        ("port", "587"),
        ("from", "ops@example.com"),
        ("issuer", "https://id.example.com"),
        ("client_id", "opledger"),
        ("target", "https://hooks.slack.com/services/x"),
        ("payment", "TW1043A"),
        ("trade_no", "2601011200000001"),
        ("id", "x"),
        ("reason", "left the company"),
        ("base_url", "https://api.stripe.com"),
        ("token", "x"),
        ("grace_hours", "24"),
        ("switch", "on"),
        ("gwsr", "11943361"),
        ("paid", "1200"),
    ];
    let (lines, missing) = commands_naming_a_tenant(&samples);
    assert!(missing.is_empty(), "give these required arguments a sample value: {missing:?}");
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("tenants.db");
    let url = format!("sqlite://{}", file.display());
    add_tenant(&url, "acme");
    let before = rows_of_every_table(&file).await;
    let mut refused = Vec::new();
    for line in &lines {
        let output = opledger()
            .args(line)
            .args(["--tenant", "nosuch", "--database-url", &url])
            .env("OPLEDGER_SECRET_KEY", "5e".repeat(32))
            .stdin(Stdio::null())
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert!(!output.status.success(), "{line:?} with a tenant that does not exist is refused");
        assert!(
            stderr.contains("there is no tenant \"nosuch\" in this database (it has acme); nothing was done")
                && stderr.contains("opledger tenant add nosuch"),
            "{line:?}: {stderr}"
        );
        refused.push(line[..2.min(line.len())].join(" "));
    }
    for expected in
        ["retention set", "retention show", "notify rule-add", "token create", "user add", "audit export"]
    {
        assert!(refused.iter().any(|line| line == expected), "{expected} is among {refused:?}");
    }
    assert_eq!(rows_of_every_table(&file).await, before, "nothing was written");
    let listed = opledger().args(["tenant", "list", "--database-url", &url]).output().unwrap();
    assert_eq!(String::from_utf8_lossy(&listed.stdout), "acme\n");
}
