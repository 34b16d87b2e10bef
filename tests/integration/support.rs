//! The test harness: `TestApp` spawns the application on port 0 with a fresh database, and
//! `engine_tests!` runs one test body on both engines.

use opledger::server::startup::{Application, Settings};
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

fn in_ci() -> bool {
    std::env::var("CI").is_ok_and(|v| v == "true" || v == "1")
}

/// A database made for one test and removed after it.
pub enum TestDatabase {
    Sqlite { _dir: TempDir, url: String },
    Postgres { name: String, url: String },
}

impl TestDatabase {
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
    _site_root: TempDir,
    shutdown: Option<tokio::sync::oneshot::Sender<()>>,
}

impl TestApp {
    pub async fn spawn(engine: Engine) -> Option<TestApp> {
        let database = TestDatabase::create(engine).await?;
        let site_root = tempfile::tempdir().expect("temp dir");
        let settings = Settings {
            database_url: database.url().to_owned(),
            addr: "127.0.0.1:0".parse().expect("address"),
            site_root: site_root.path().display().to_string(),
        };
        let application = Application::build(settings).await.expect("the application starts");
        let addr = application.local_addr();
        let (shutdown, stopped) = tokio::sync::oneshot::channel::<()>();
        tokio::spawn(application.run_until(async move {
            let _ = stopped.await;
        }));
        let client =
            reqwest::Client::builder().redirect(reqwest::redirect::Policy::none()).build().expect("client");
        Some(TestApp { addr, client, database, _site_root: site_root, shutdown: Some(shutdown) })
    }

    pub fn url(&self, path: &str) -> String {
        format!("http://{}{path}", self.addr)
    }

    pub async fn get(&self, path: &str) -> reqwest::Response {
        self.client.get(self.url(path)).send().await.expect("request")
    }
}

impl Drop for TestApp {
    fn drop(&mut self) {
        if let Some(shutdown) = self.shutdown.take() {
            let _ = shutdown.send(());
        }
    }
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
