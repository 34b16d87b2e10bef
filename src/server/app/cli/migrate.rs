//! `opledger migrate`: applies the database's pending migrations, then exits.

use super::options::{open_store, DatabaseArgs};

/// Migrates the database that `database` names and says which engine is now up to date.
pub(super) async fn run(database: DatabaseArgs) -> anyhow::Result<()> {
    let store = open_store(&database).await?;
    println!("The {} database is up to date.", store.backend().as_str());
    Ok(())
}
