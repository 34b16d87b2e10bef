//! `opledger token create` and `token revoke`: the API tokens agents and tools call the ledger API
//! with.

use clap::{Args, Subcommand};

use super::options::{open_store, parse_tenant, DatabaseArgs};
use crate::domain::ids::TenantId;
use crate::server::ledger::Ledger;
use crate::server::store::StoreError;

#[derive(Debug, Subcommand)]
pub enum TokenCommand {
    /// Create a token for a tenant (created if new) and print it once; only its hash is stored.
    Create(TokenArgs),
    /// Revoke a tenant's token by name; calls with it are refused from then on.
    Revoke(TokenArgs),
}

#[derive(Debug, Args)]
pub struct TokenArgs {
    #[command(flatten)]
    pub database: DatabaseArgs,
    /// The tenant the token acts for: lowercase letters, digits, '-' and '_'.
    #[arg(long, value_parser = parse_tenant)]
    pub tenant: TenantId,
    /// The token's name, unique within the tenant, shown in the audit trail (for example support-agent).
    #[arg(long)]
    pub name: String,
}

pub(super) async fn run(command: TokenCommand) -> anyhow::Result<()> {
    match command {
        TokenCommand::Create(TokenArgs { database, tenant, name }) => {
            let name = name.trim();
            anyhow::ensure!(!name.is_empty() && name.len() <= 64, "--name must be 1 to 64 characters");
            let store = open_store(&database).await?;
            let token = Ledger::new(store).create_token(&tenant, name, "cli").await?;
            eprintln!("API token {name:?} for tenant {tenant}. It is shown only now; keep it secret:");
            println!("{token}");
            Ok(())
        }
        TokenCommand::Revoke(TokenArgs { database, tenant, name }) => {
            let store = open_store(&database).await?;
            match Ledger::new(store).revoke_token(&tenant, name.trim(), "cli").await {
                Ok(()) => {
                    println!("Revoked the API token {name:?} of tenant {tenant}.");
                    Ok(())
                }
                Err(StoreError::NotFound) => {
                    anyhow::bail!("tenant {tenant} has no active API token named {name:?}")
                }
                Err(error) => Err(error.into()),
            }
        }
    }
}
