//! `opledger user add`: the people who sign in to the review console, their passwords read from
//! standard input.

use anyhow::Context;
use clap::Subcommand;

use super::options::{open_store, parse_tenant, DatabaseArgs};
use crate::domain::ids::TenantId;
use crate::domain::policy::Role;
use crate::server::ledger::Ledger;

#[derive(Debug, Subcommand)]
pub enum UserCommand {
    /// Add a user to a tenant (created if new). The password is read from standard input (one
    /// line), so it stays out of the shell history: `printf '%s\n' "$PASSWORD" | opledger user add …`.
    Add {
        #[command(flatten)]
        database: DatabaseArgs,
        /// The tenant the user works in: lowercase letters, digits, '-' and '_'.
        #[arg(long, value_parser = parse_tenant)]
        tenant: TenantId,
        /// The name to sign in with, unique across tenants: letters, digits, '.', '-', '_', '@'.
        #[arg(long)]
        name: String,
        /// support: sees everything, settles unknowns; manager: also approves; auditor: reads and
        /// exports only; admin: manages users and policies.
        #[arg(long, value_parser = ["support", "manager", "auditor", "admin"])]
        role: String,
    },
}

pub(super) async fn run(command: UserCommand) -> anyhow::Result<()> {
    match command {
        UserCommand::Add { database, tenant, name, role } => {
            let role = Role::parse(&role).context("unknown role")?;
            let mut password = String::new();
            std::io::stdin()
                .read_line(&mut password)
                .context("could not read the password from standard input")?;
            let password = password.trim_end_matches(['\n', '\r']);
            let store = open_store(&database).await?;
            let ledger = Ledger::new(store);
            ledger.add_user(&tenant, name.trim(), role, password, "cli").await?;
            ledger.seal_audit(Some(&tenant)).await?;
            println!("Added {} to tenant {tenant} as {}.", name.trim(), role.as_str());
            Ok(())
        }
    }
}
