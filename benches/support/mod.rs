//! What the benchmarks share: running one measurement on a fresh SQLite file and, when it answers
//! at OPLEDGER_TEST_POSTGRES_URL (default postgres://postgres@127.0.0.1:5432/postgres), on a fresh
//! PostgreSQL database that is dropped afterwards; a console client signed in (`console`), the
//! rows they fill straight into a database (`fill`) and the write path's three ways (`writes`).

use std::future::Future;

// Each benchmark is a program of its own that uses some of these.
#[allow(dead_code)]
pub mod console;
#[allow(dead_code)]
pub mod fill;
#[allow(dead_code)]
pub mod writes;

/// Runs `bench(engine, database_url)` on each engine available.
pub async fn on_each_engine<F, Fut>(bench: F)
where
    F: Fn(&'static str, String) -> Fut,
    Fut: Future<Output = ()>,
{
    let dir = tempfile::tempdir().unwrap();
    bench("sqlite", format!("sqlite://{}", dir.path().join("bench.db").display())).await;

    let admin_url = std::env::var("OPLEDGER_TEST_POSTGRES_URL")
        .unwrap_or_else(|_| "postgres://postgres@127.0.0.1:5432/postgres".to_owned());
    use sqlx::Connection;
    match sqlx::PgConnection::connect(&admin_url).await {
        Ok(mut admin) => {
            let name = format!("opledger_bench_{}", std::process::id());
            sqlx::query(&format!("create database {name}")).execute(&mut admin).await.unwrap();
            let base = admin_url.rsplit_once('/').map_or(admin_url.as_str(), |(base, _)| base);
            bench("postgres", format!("{base}/{name}")).await;
            sqlx::query(&format!("drop database {name} with (force)")).execute(&mut admin).await.unwrap();
        }
        Err(error) => eprintln!("PostgreSQL not measured: {error}"),
    }
}
