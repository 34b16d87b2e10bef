//! The test harness: `TestApp` spawns the application on port 0 with a fresh database, and
//! `engine_tests!` runs one test body on both engines.

use opledger::domain::ids::{OpId, TenantId};
use opledger::domain::params::CanonicalParams;
use opledger::server::app::startup::{Application, Settings};
use opledger::server::ledger::{Ledger, RegisterRequest};
use serde_json::{json, Value};
use std::net::SocketAddr;
use tempfile::TempDir;

/// The engines every store behaviour is tested on.
#[derive(Debug, Clone, Copy)]
pub enum Engine {
    Sqlite,
    Postgres,
}

/// Where the PostgreSQL tests connect to create their databases.
pub fn postgres_admin_url() -> String {
    std::env::var("OPLEDGER_TEST_POSTGRES_URL")
        .unwrap_or_else(|_| "postgres://postgres@127.0.0.1:5432/postgres".to_owned())
}

pub fn in_ci() -> bool {
    std::env::var("CI").is_ok_and(|v| v == "true" || v == "1")
}

/// A database made for one test and removed after it.
pub enum TestDatabase {
    Sqlite { _dir: TempDir, url: String },
    Postgres { name: String, url: String },
}

impl TestDatabase {
    pub fn engine(&self) -> Engine {
        match self {
            TestDatabase::Sqlite { .. } => Engine::Sqlite,
            TestDatabase::Postgres { .. } => Engine::Postgres,
        }
    }

    /// A fresh database, or `None` when PostgreSQL is not running outside CI (in CI that fails).
    pub async fn create(engine: Engine) -> Option<TestDatabase> {
        match engine {
            Engine::Sqlite => {
                let dir = tempfile::tempdir().expect("temp dir");
                let url = format!("sqlite://{}", dir.path().join("ledger.db").display());
                Some(TestDatabase::Sqlite { _dir: dir, url })
            }
            Engine::Postgres => {
                use sqlx::Connection;
                let admin_url = postgres_admin_url();
                let mut admin = match sqlx::PgConnection::connect(&admin_url).await {
                    Ok(connection) => connection,
                    Err(error) if !in_ci() => {
                        eprintln!(
                            "SKIPPED: no PostgreSQL at {admin_url} ({error}); set OPLEDGER_TEST_POSTGRES_URL"
                        );
                        return None;
                    }
                    Err(error) => panic!("PostgreSQL is required in CI but {admin_url} failed: {error}"),
                };
                let name = format!("opledger_test_{}", uuid::Uuid::new_v4().simple());
                sqlx::query(&format!("create database {name}"))
                    .execute(&mut admin)
                    .await
                    .expect("create database");
                let base = admin_url.rsplit_once('/').map_or(admin_url.as_str(), |(base, _)| base);
                let url = format!("{base}/{name}");
                Some(TestDatabase::Postgres { name, url })
            }
        }
    }

    pub fn url(&self) -> &str {
        match self {
            TestDatabase::Sqlite { url, .. } | TestDatabase::Postgres { url, .. } => url,
        }
    }

    /// Drops a PostgreSQL test database now, cutting its connections (used to simulate an outage).
    pub async fn drop_now(&self) {
        if let TestDatabase::Postgres { name, .. } = self {
            drop_postgres_database(name).await;
        }
    }
}

async fn drop_postgres_database(name: &str) {
    use sqlx::Connection;
    let mut admin = sqlx::PgConnection::connect(&postgres_admin_url()).await.expect("admin connection");
    sqlx::query(&format!("drop database if exists {name} with (force)"))
        .execute(&mut admin)
        .await
        .expect("drop database");
}

impl Drop for TestDatabase {
    fn drop(&mut self) {
        if let TestDatabase::Postgres { name, .. } = self {
            let name = name.clone();
            std::thread::spawn(move || {
                tokio::runtime::Builder::new_current_thread()
                    .enable_all()
                    .build()
                    .expect("runtime")
                    .block_on(drop_postgres_database(&name));
            })
            .join()
            .expect("dropping the test database");
        }
    }
}

/// The application running on its own port with its own database.
pub struct TestApp {
    pub addr: SocketAddr,
    pub client: reqwest::Client,
    pub database: TestDatabase,
    pub ledger: Ledger,
    /// The same database's store, opened again, for the tests that try the store directly.
    pub store: std::sync::Arc<dyn opledger::server::store::Store>,
    /// Where `--metrics-addr` serves `/metrics`, when the settings gave one.
    pub metrics_addr: Option<SocketAddr>,
    /// An API token of tenant `acme`.
    pub token: String,
    /// An API token of tenant `globex`, which must never see `acme`'s operations.
    pub other_token: String,
    _site_root: TempDir,
    shutdown: Option<tokio::sync::oneshot::Sender<()>>,
}

impl TestApp {
    pub async fn spawn(engine: Engine) -> Option<TestApp> {
        Self::spawn_with(engine, |_| {}).await
    }

    /// The application with the sandbox provider mounted at `/sandbox` and refunds sent to it,
    /// giving up on an answer after 2 s.
    pub async fn spawn_with_sandbox(engine: Engine) -> Option<TestApp> {
        Self::spawn_with(engine, |settings| {
            settings.sandbox = true;
            settings.provider_timeout = std::time::Duration::from_millis(2000);
        })
        .await
    }

    pub async fn spawn_with(engine: Engine, adjust: impl FnOnce(&mut Settings)) -> Option<TestApp> {
        let database = TestDatabase::create(engine).await?;
        let site_root = tempfile::tempdir().expect("temp dir");
        let mut settings = Settings::new(database.url(), "127.0.0.1:0".parse().expect("address"));
        settings.site_root = site_root.path().display().to_string();
        settings.secret_key = Some(SECRET_KEY.into());
        // The server's own providers serve `acme` (as a single-shop install's do), and tenants'
        // URLs may reach the sandboxes the tests start on 127.0.0.1 (any port); the egress tests
        // take both away.
        settings.default_tenants = vec![TenantId::parse("acme").unwrap()];
        settings.allow_egress = vec![opledger::server::egress::Allowed::parse("127.0.0.1").unwrap()];
        // Tenants' archive folders: the tests' own temporary folders.
        settings.archive_dir = Some(std::env::temp_dir());
        adjust(&mut settings);
        let application = Application::build(settings).await.expect("the application starts");
        let addr = application.local_addr();
        let metrics_addr = application.metrics_addr();
        let ledger = application.ledger().clone();
        let store = opledger::server::store::connect(database.url()).await.expect("the store opens");
        let token =
            ledger.create_token(&TenantId::parse("acme").unwrap(), "agent-7", "test").await.expect("token");
        let other_token =
            ledger.create_token(&TenantId::parse("globex").unwrap(), "agent-9", "test").await.expect("token");
        let (shutdown, stopped) = tokio::sync::oneshot::channel::<()>();
        tokio::spawn(application.run_until(async move {
            let _ = stopped.await;
        }));
        let client =
            reqwest::Client::builder().redirect(reqwest::redirect::Policy::none()).build().expect("client");
        Some(TestApp {
            addr,
            client,
            database,
            ledger,
            store,
            metrics_addr,
            token,
            other_token,
            _site_root: site_root,
            shutdown: Some(shutdown),
        })
    }

    pub fn url(&self, path: &str) -> String {
        format!("http://{}{path}", self.addr)
    }

    pub async fn get(&self, path: &str) -> reqwest::Response {
        self.client.get(self.url(path)).send().await.expect("request")
    }

    /// `POST` JSON to the ledger API with `token`; the status and the JSON answer.
    pub async fn post_as(&self, token: &str, path: &str, body: &Value) -> (u16, Value) {
        let response =
            self.client.post(self.url(path)).bearer_auth(token).json(body).send().await.expect("request");
        let status = response.status().as_u16();
        (status, response.json().await.unwrap_or(Value::Null))
    }

    pub async fn post(&self, path: &str, body: &Value) -> (u16, Value) {
        self.post_as(&self.token, path, body).await
    }

    /// `GET` from the ledger API with `token`; the status and the JSON answer.
    pub async fn get_as(&self, token: &str, path: &str) -> (u16, Value) {
        let response = self.client.get(self.url(path)).bearer_auth(token).send().await.expect("request");
        let status = response.status().as_u16();
        (status, response.json().await.unwrap_or(Value::Null))
    }

    pub async fn get_json(&self, path: &str) -> (u16, Value) {
        self.get_as(&self.token, path).await
    }

    pub async fn register(&self, body: &Value) -> (u16, Value) {
        self.post("/api/v1/operations", body).await
    }

    /// Begins an attempt whose send the agent declares to take at most `seconds`.
    pub async fn begin_attempt_within(&self, op_id: &str, seconds: u32) -> (u16, Value) {
        self.post(
            &format!("/api/v1/operations/{op_id}/attempts"),
            &serde_json::json!({"send_deadline_s": seconds}),
        )
        .await
    }

    /// Waits until a send deadline of `seconds` from now has passed.
    pub async fn wait_past(seconds: u32) {
        tokio::time::sleep(std::time::Duration::from_millis(u64::from(seconds) * 1000 + 100)).await;
    }

    pub async fn begin_attempt(&self, op_id: &str) -> (u16, Value) {
        self.post(&format!("/api/v1/operations/{op_id}/attempts"), &Value::Null).await
    }

    pub async fn report(&self, op_id: &str, attempt: u64, outcome: &Value) -> (u16, Value) {
        self.post(&format!("/api/v1/operations/{op_id}/attempts/{attempt}/outcome"), outcome).await
    }

    /// Sets a fault on the mounted sandbox provider (see the fault injection in docs/reconcile.md).
    pub async fn fault(&self, fault: Value) {
        let response = self
            .client
            .post(self.url("/sandbox/v1/_sandbox/faults"))
            .bearer_auth("sk_test_sandbox")
            .json(&fault)
            .send()
            .await
            .expect("request");
        assert_eq!(response.status(), 201, "the fault is set");
    }

    /// Reads one number directly from the test database, bypassing the ledger.
    pub async fn number(&self, sql: &str) -> i64 {
        use sqlx::Connection;
        match &self.database {
            TestDatabase::Sqlite { url, .. } => {
                let mut connection = sqlx::SqliteConnection::connect(url).await.expect("connect");
                sqlx::query_scalar(sql).fetch_one(&mut connection).await.expect("a number")
            }
            TestDatabase::Postgres { url, .. } => {
                let mut connection = sqlx::PgConnection::connect(url).await.expect("connect");
                sqlx::query_scalar(sql).fetch_one(&mut connection).await.expect("a number")
            }
        }
    }

    /// Holds `acme`'s refunds over TWD 1,000.00 for a manager's approval (a rule added by the admin
    /// `alex`).
    pub async fn hold_large_refunds(&self) {
        use opledger::domain::money::{Currency, Money};
        use opledger::domain::{ids::Actor, policy::ApprovalRule, policy::Role};
        let rule = ApprovalRule {
            kind: "refund".into(),
            provider: None,
            threshold: Some(Money::new(100_000, Currency::parse("TWD").unwrap())),
        };
        let record = opledger::server::store::records::ApprovalRuleRecord {
            id: "large-refunds".into(),
            rule,
            created_by: "alex".into(),
            created_at: chrono::Utc::now(),
        };
        let admin = Actor::human("alex", Role::Admin);
        self.ledger.add_approval_rule(&TenantId::parse("acme").unwrap(), &admin, record).await.unwrap();
    }

    /// The manager `maria` approves `acme`'s operation `op_id`.
    pub async fn approve(&self, op_id: &str) {
        use opledger::domain::{ids::Actor, machine::Command, operation::AttemptReport, policy::Role};
        let approve =
            Command::Approve { reason: "receipt checked".into(), valid_for: chrono::Duration::hours(1) };
        let manager = Actor::human("maria", Role::Manager);
        let (tenant, op_id) = (TenantId::parse("acme").unwrap(), OpId::parse(op_id).unwrap());
        self.ledger
            .execute(&tenant, &op_id, approve, &manager, AttemptReport::default())
            .await
            .expect("approved");
    }

    /// Sends the shutdown signal, as SIGTERM does: the server stops taking connections and
    /// finishes the requests in flight.
    pub fn stop(&mut self) {
        if let Some(shutdown) = self.shutdown.take() {
            let _ = shutdown.send(());
        }
    }

    /// Runs one SQL statement directly on the test database, bypassing the ledger (to tamper).
    pub async fn tamper(&self, sql: &str) {
        use sqlx::Connection;
        match &self.database {
            TestDatabase::Sqlite { url, .. } => {
                let mut connection = sqlx::SqliteConnection::connect(url).await.expect("connect");
                sqlx::query(sql).execute(&mut connection).await.expect("tamper");
            }
            TestDatabase::Postgres { url, .. } => {
                let mut connection = sqlx::PgConnection::connect(url).await.expect("connect");
                sqlx::query(sql).execute(&mut connection).await.expect("tamper");
            }
        }
    }
}

/// A browser-like client with its own cookie jar, signed in (or not) to the console.
pub struct Console {
    pub client: reqwest::Client,
    base: String,
}

/// The value of the first `name="<field>" value="…"` in `html`.
pub fn hidden_field(html: &str, field: &str) -> Option<String> {
    let marker = format!("name=\"{field}\" value=\"");
    let start = html.find(&marker)? + marker.len();
    Some(html[start..].split('"').next()?.to_owned())
}

/// The `href` of the element with `data-testid="<testid>"` in `html`.
pub fn href_of(html: &str, testid: &str) -> Option<String> {
    let marker = format!("data-testid=\"{testid}\"");
    let tag_start = html[..html.find(&marker)?].rfind('<')?;
    let tag = &html[tag_start..];
    let start = tag.find("href=\"")? + 6;
    Some(tag[start..].split('"').next()?.to_owned())
}

impl Console {
    /// The application's address, `http://host:port`.
    pub fn base(&self) -> &str {
        &self.base
    }

    pub async fn get(&self, path: &str) -> reqwest::Response {
        let started = std::time::Instant::now();
        let response = self.client.get(format!("{}{path}", self.base)).send().await;
        response.unwrap_or_else(|e| panic!("GET {path} failed after {:?}: {e}", started.elapsed()))
    }

    /// The page's HTML, asserting its status.
    pub async fn page(&self, path: &str, status: u16) -> String {
        let response = self.get(path).await;
        assert_eq!(response.status().as_u16(), status, "GET {path}");
        response.text().await.expect("body")
    }

    pub async fn post_form(&self, path: &str, form: &[(&str, &str)]) -> reqwest::Response {
        self.client.post(format!("{}{path}", self.base)).form(form).send().await.expect("request")
    }

    /// Calls a server function; the status and the body.
    pub async fn call(&self, function: &str, form: &[(&str, &str)]) -> (u16, String) {
        let response = self.post_form(&format!("/rpc/{function}"), form).await;
        (response.status().as_u16(), response.text().await.expect("body"))
    }

    /// Takes `action` on `op_id` through the console's `act` server function, with the session's
    /// CSRF token, the idempotency `key` and any `fields` the action needs, confirmed (as after
    /// its confirmation step); the status and body.
    pub async fn act(&self, key: &str, op_id: &str, action: &str, fields: &[(&str, &str)]) -> (u16, String) {
        let csrf = self.csrf().await;
        let mut form = vec![
            ("csrf", csrf.as_str()),
            ("key", key),
            ("op_id", op_id),
            ("action", action),
            ("confirmed", "yes"),
        ];
        form.extend_from_slice(fields);
        self.call("act", &form).await
    }

    /// The CSRF token the sign-in page carries.
    pub async fn login_token(&self) -> String {
        let html = self.page("/login", 200).await;
        hidden_field(&html, "csrf").expect("the sign-in form carries a CSRF token")
    }

    /// Signs in; the response (a redirect).
    pub async fn sign_in(&self, name: &str, password: &str, next: &str) -> reqwest::Response {
        let csrf = self.login_token().await;
        self.post_form(
            "/login",
            &[("username", name), ("password", password), ("csrf", &csrf), ("next", next)],
        )
        .await
    }

    /// The CSRF token of the signed-in session, from the sign-out form every page carries.
    pub async fn csrf(&self) -> String {
        hidden_field(&self.page("/conflicts", 200).await, "csrf").expect("a sign-out form")
    }
}

pub const PASSWORD: &str = "a long test password";

/// The key that seals provider secrets in every test application.
pub const SECRET_KEY: &str = "5e7f1c0a9b3d2e4f60718293a4b5c6d7e8f90a1b2c3d4e5f60718293a4b5c6d7";

impl TestApp {
    /// A client with an empty cookie jar that does not follow redirects.
    pub fn console(&self) -> Console {
        self.console_at(self.addr)
    }

    /// [`TestApp::console`] for the instance at `addr` (another server on the same database).
    pub fn console_at(&self, addr: SocketAddr) -> Console {
        let client = reqwest::Client::builder()
            .redirect(reqwest::redirect::Policy::none())
            .cookie_store(true)
            .timeout(std::time::Duration::from_secs(30))
            .build()
            .expect("client");
        Console { client, base: format!("http://{addr}") }
    }

    /// Adds the user `name` with `role` to `tenant` (password [`PASSWORD`]).
    pub async fn add_user(&self, tenant: &str, name: &str, role: opledger::domain::policy::Role) {
        self.ledger
            .add_user(&TenantId::parse(tenant).unwrap(), name, role, PASSWORD, "test")
            .await
            .expect("user added");
    }

    /// A console signed in as a new user `name` of tenant `acme` with `role`.
    pub async fn signed_in(&self, name: &str, role: opledger::domain::policy::Role) -> Console {
        self.add_user("acme", name, role).await;
        let console = self.console();
        let response = console.sign_in(name, PASSWORD, "/").await;
        assert_eq!(response.headers()["location"], "/", "{name} signs in");
        console
    }
}

/// An SMTP server on a port of its own that keeps every message, set as `tenant`'s mail server
/// for notifications (by the admin alex); answers its mailbox.
pub async fn tenant_mailbox(app: &TestApp, tenant: &str) -> opledger::server::sandbox::mail::MailSandbox {
    use opledger::server::sandbox::mail::{MailConfig, MailSandbox};
    let mail = MailSandbox::new(MailConfig { api_key: "re_test".into(), key_retention: chrono::Duration::hours(24) });
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let port = listener.local_addr().unwrap().port();
    tokio::spawn(mail.clone().serve_smtp(listener));
    let smtp = opledger::server::ledger::notify::SmtpInput {
        host: "127.0.0.1".into(),
        port,
        security: "none".into(),
        username: None,
        password: None,
        from: format!("ops@{tenant}.example"),
    };
    let admin = opledger::domain::ids::Actor::human("alex", opledger::domain::policy::Role::Admin);
    app.ledger.set_notify_smtp(&TenantId::parse(tenant).unwrap(), &admin, Some(smtp)).await.unwrap();
    mail
}

/// The refund of line item 2 of order 1043: TWD 380.00 on payment intent pi_1043.
pub fn refund_1043(amount_minor: i64) -> Value {
    serde_json::json!({
        "op_id": "refund-1043-li_2",
        "kind": "refund",
        "subject": "order:1043",
        "provider": "stripe",
        "params": {
            "payment_intent": "pi_1043",
            "amount": {"minor": amount_minor, "currency": "TWD"},
            "reason": "requested_by_customer",
            "line_item": "li_2"
        },
        "requested_by": "agent-7"
    })
}

impl Drop for TestApp {
    fn drop(&mut self) {
        if let Some(shutdown) = self.shutdown.take() {
            let _ = shutdown.send(());
        }
    }
}

/// Defines `mod sqlite` and `mod postgres`, each with a test per named function, which is given the
/// engine.
#[macro_export]
macro_rules! on_both_engines {
    ($($name:ident),* $(,)?) => {
        mod sqlite { $(#[tokio::test] async fn $name() { super::$name($crate::support::Engine::Sqlite).await })* }
        mod postgres { $(#[tokio::test] async fn $name() { super::$name($crate::support::Engine::Postgres).await })* }
    };
}

/// Defines `mod sqlite` and `mod postgres`, each with one `#[tokio::test]` per body, given a
/// spawned `TestApp`.
#[macro_export]
macro_rules! engine_tests {
    ($($name:ident($app:ident) $body:block)*) => {
        mod sqlite {
            #[allow(unused_imports)]
            use super::*;
            $(
                #[tokio::test]
                async fn $name() {
                    let Some($app) = $crate::support::TestApp::spawn($crate::support::Engine::Sqlite).await else { return };
                    $body
                }
            )*
        }
        mod postgres {
            #[allow(unused_imports)]
            use super::*;
            $(
                #[tokio::test]
                async fn $name() {
                    let Some($app) = $crate::support::TestApp::spawn($crate::support::Engine::Postgres).await else { return };
                    $body
                }
            )*
        }
    };
}

/// Like [`engine_tests!`], with the sandbox provider mounted in the application
/// (`TestApp::spawn_with_sandbox`).
#[macro_export]
macro_rules! sandboxed_tests {
    ($($name:ident($app:ident) $body:block)*) => {
        mod sqlite {
            use super::*;
            $(#[tokio::test] async fn $name() {
                let Some($app) = $crate::support::TestApp::spawn_with_sandbox($crate::support::Engine::Sqlite).await else { return };
                $body
            })*
        }
        mod postgres {
            use super::*;
            $(#[tokio::test] async fn $name() {
                let Some($app) = $crate::support::TestApp::spawn_with_sandbox($crate::support::Engine::Postgres).await else { return };
                $body
            })*
        }
    };
}

/// The sandbox provider on its own port, with an executor and a reconciler of `app`'s ledger
/// pointed at it through the Stripe connector (which gives up waiting after 2 s): the server's
/// own account, which serves the tenants `acme` and `globex`.
pub struct ProviderHarness {
    pub sandbox: opledger::server::sandbox::Sandbox,
    pub base_url: String,
    pub executor: opledger::server::ledger::executor::Executor,
    pub reconciler: opledger::server::ledger::reconciler::Reconciler,
}

impl ProviderHarness {
    pub async fn start(ledger: &Ledger) -> ProviderHarness {
        use opledger::server::ledger::{
            executor::{Executor, RetryPolicy},
            reconciler::Reconciler,
        };
        use opledger::server::providers::StripeConnector;
        use opledger::server::sandbox::{Sandbox, SandboxConfig};
        let sandbox =
            Sandbox::seeded(SandboxConfig { secret_key: "sk_test_x".into(), ..SandboxConfig::default() });
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.expect("bind");
        let base_url = format!("http://{}", listener.local_addr().expect("address"));
        let router = sandbox.router();
        tokio::spawn(async move { axum::serve(listener, router).await });
        let operator = opledger::server::egress::EgressPolicy::unrestricted();
        let connector =
            StripeConnector::new(&base_url, "sk_test_x", std::time::Duration::from_millis(2000), &operator);
        let retry = RetryPolicy {
            max_sends: 3,
            base_delay: std::time::Duration::from_millis(10),
            max_delay: std::time::Duration::from_millis(50),
            deadline: std::time::Duration::from_secs(10),
        };
        let services = opledger::server::providers::DescribedConnector::services(
            &base_url,
            "sk_test_x",
            std::time::Duration::from_millis(2000),
            &operator,
        );
        let executor = Executor::new(ledger.clone(), retry)
            .with_connector("stripe", std::sync::Arc::new(connector))
            .with_connector("sandbox", std::sync::Arc::new(services))
            .serving([TenantId::parse("acme").unwrap(), TenantId::parse("globex").unwrap()]);
        let reconciler = Reconciler::new(executor.clone(), chrono::Duration::zero());
        ProviderHarness { sandbox, base_url, executor, reconciler }
    }

    pub async fn fault(&self, fault: Value) {
        let response = reqwest::Client::new()
            .post(format!("{}/v1/_sandbox/faults", self.base_url))
            .bearer_auth("sk_test_x")
            .json(&fault)
            .send()
            .await
            .expect("fault");
        assert_eq!(response.status(), 201);
    }

    /// The refunds the provider really made.
    pub fn refunds(&self) -> Vec<opledger::server::sandbox::CreatedObject> {
        self.sandbox.created_objects().into_iter().filter(|o| o.object_type == "refund").collect()
    }
}

/// A refund of TWD 1.00 on line item 1 of order `n`, requested by agent-7.
pub fn refund_request(n: usize) -> RegisterRequest {
    RegisterRequest {
        op_id: OpId::parse(&format!("refund-{n}-li_1")).unwrap(),
        kind: "refund".into(),
        subject: format!("order:{n}"),
        provider: "stripe".into(),
        params: CanonicalParams::from_value(
            json!({"payment_intent": "pi_1043", "amount": {"minor": 100, "currency": "TWD"}}),
        )
        .unwrap(),
        requested_by: "agent-7".into(),
        on_behalf_of: None,
        server_sends: false,
        compensates: None,
        key_retention: None,
    }
}

/// Serves `router` on a free loopback port until the test ends; its address.
pub async fn serve(router: axum::Router) -> String {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}", listener.local_addr().unwrap());
    tokio::spawn(async move { axum::serve(listener, router).await });
    url
}

/// The refunds the sandbox mounted in `app` has made.
pub async fn sandbox_refunds(app: &TestApp) -> Vec<Value> {
    let response = app
        .client
        .get(app.url("/sandbox/v1/_sandbox/ledger"))
        .bearer_auth("sk_test_sandbox")
        .send()
        .await
        .unwrap();
    let ledger: Value = response.json().await.unwrap();
    ledger["data"].as_array().unwrap().iter().filter(|o| o["type"] == "refund").cloned().collect()
}

/// The Python with the test clients, or `None` (a failure in CI) with the reason printed.
pub fn python(package: &str) -> Option<std::ffi::OsString> {
    let python = std::env::var_os("OPLEDGER_TEST_PYTHON");
    if python.is_none() {
        assert!(!in_ci(), "OPLEDGER_TEST_PYTHON (a Python with the {package} package) is needed in CI");
        eprintln!(
            "SKIPPED: set OPLEDGER_TEST_PYTHON to a Python with the {package} package (scripts/test.sh does)"
        );
    }
    python
}

/// Runs `tests/clients/<script>` with `args`, feeding it `input`; its standard output.
pub async fn run_client(
    python: std::ffi::OsString,
    script: &str,
    args: Vec<String>,
    input: String,
) -> String {
    use std::io::Write;
    let script = format!("{}/tests/clients/{script}", env!("CARGO_MANIFEST_DIR"));
    let output = tokio::task::spawn_blocking(move || {
        let mut child = std::process::Command::new(python)
            .arg(script)
            .args(args)
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        child.stdin.take().unwrap().write_all(input.as_bytes()).unwrap();
        child.wait_with_output().unwrap()
    })
    .await
    .unwrap();
    let printed = String::from_utf8_lossy(&output.stdout).into_owned();
    assert!(output.status.success(), "{printed}{}", String::from_utf8_lossy(&output.stderr));
    printed
}
