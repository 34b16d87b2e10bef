//! `opledger tenant add` and `tenant list`: the tenants of the database. A tenant is added once,
//! here; every other command that names one with `--tenant` refuses a tenant that does not exist
//! (see [`super::check_named_tenant`]), so that a mistyped name never starts a tenant of its own.

use clap::Subcommand;

use super::options::{open_store, parse_tenant, DatabaseArgs};
use crate::domain::ids::{Actor, TenantId};
use crate::server::ledger::Ledger;

#[derive(Debug, Subcommand)]
pub enum TenantCommand {
    /// Add a tenant, to give it people, tokens, providers and rules with the other commands:
    /// `opledger tenant add acme`. Adding one that exists changes nothing.
    Add {
        #[command(flatten)]
        database: DatabaseArgs,
        /// The tenant's id: lowercase letters, digits, '-' and '_'.
        #[arg(value_parser = parse_tenant)]
        id: TenantId,
    },
    /// List the tenants.
    List {
        #[command(flatten)]
        database: DatabaseArgs,
    },
}

pub(super) async fn run(command: TenantCommand) -> anyhow::Result<()> {
    match command {
        TenantCommand::Add { database, id } => {
            if Ledger::new(open_store(&database).await?).add_tenant(&id, &Actor::system("cli")).await? {
                println!(
                    "Added the tenant {id}. Next: `opledger user add --tenant {id} --name … --role admin`."
                );
            } else {
                println!("The tenant {id} exists already; nothing changed.");
            }
            Ok(())
        }
        TenantCommand::List { database } => {
            let tenants = open_store(&database).await?.tenants().await?;
            if tenants.is_empty() {
                println!("There is no tenant yet. Add one with `opledger tenant add <id>`.");
            }
            for tenant in tenants {
                println!("{tenant}");
            }
            Ok(())
        }
    }
}
