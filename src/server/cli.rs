//! The command line: `opledger serve` and `opledger migrate`, with their options and environment
//! variables.

use anyhow::Context;
use clap::{Args, Parser, Subcommand};
use std::net::SocketAddr;

use super::startup::{shutdown_signal, Application, Settings};
use super::store::{self, StoreError};
use super::telemetry::LogFormat;
use super::tokens;
use crate::domain::ids::TenantId;

/// opledger records every side-effecting operation (refunds, emails, tickets, pickups) before it is
/// sent, under an id derived from its business intent, and settles unknown results without ever
/// doing the thing twice.
#[derive(Debug, Parser)]
#[command(name = "opledger", version)]
#[command(after_help = "Examples:\n  \
    opledger serve                                   console and ledger API on http://127.0.0.1:3000, SQLite file opledger.db\n  \
    opledger serve --database-url postgres://postgres@127.0.0.1:5432/opledger\n  \
    opledger migrate --database-url sqlite://data/opledger.db\n\n\
    Logs go to standard error; RUST_LOG sets their level (for example RUST_LOG=debug).")]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,

    /// Log format on standard error.
    #[arg(long, global = true, env = "OPLEDGER_LOG_FORMAT", value_enum, default_value = "text")]
    pub log_format: LogFormat,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Serve the review console and the ledger API (applies pending migrations first).
    Serve(ServeArgs),
    /// Apply pending database migrations, then exit.
    Migrate(DatabaseArgs),
    /// Manage the API tokens that agents and tools use for the ledger API.
    #[command(subcommand)]
    Token(TokenCommand),
}

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
    #[arg(long)]
    pub tenant: String,
    /// The token's name, unique within the tenant, shown in the audit trail (for example support-agent).
    #[arg(long)]
    pub name: String,
}

#[derive(Debug, Args)]
pub struct DatabaseArgs {
    /// Where the ledger lives: `sqlite://FILE` (created if missing) or `postgres://USER@HOST:PORT/DB`.
    #[arg(
        long,
        env = "OPLEDGER_DATABASE_URL",
        default_value = "sqlite://opledger.db",
        hide_env_values = true
    )]
    pub database_url: String,
}

#[derive(Debug, Args)]
pub struct ServeArgs {
    #[command(flatten)]
    pub database: DatabaseArgs,

    /// Address and port to listen on.
    #[arg(long, env = "OPLEDGER_ADDR", default_value = "127.0.0.1:3000")]
    pub addr: SocketAddr,

    /// Folder with the built browser bundle and static files (`pkg/`, `favicon.ico`).
    #[arg(long, env = "OPLEDGER_SITE_ROOT", default_value = "target/site")]
    pub site_root: String,
}

/// Runs the subcommand the user chose.
pub async fn run(cli: Cli) -> anyhow::Result<()> {
    match cli.command {
        Command::Serve(args) => {
            let settings = Settings {
                database_url: args.database.database_url,
                addr: args.addr,
                site_root: args.site_root,
            };
            let application = Application::build(settings).await?;
            tracing::info!(addr = %application.local_addr(), "serving the console at http://{}", application.local_addr());
            application.run_until(shutdown_signal()).await.context("the server stopped with an error")?;
            tracing::info!("stopped");
            Ok(())
        }
        Command::Migrate(args) => {
            let store = store::connect(&args.database_url).await.context("could not open the database")?;
            store.migrate().await.context("could not apply the migrations")?;
            println!("The {} database is up to date.", store.backend().as_str());
            Ok(())
        }
        Command::Token(TokenCommand::Create(TokenArgs { database, tenant, name })) => {
            let tenant = TenantId::parse(&tenant)?;
            let name = name.trim();
            anyhow::ensure!(!name.is_empty() && name.len() <= 64, "--name must be 1 to 64 characters");
            let store =
                store::connect(&database.database_url).await.context("could not open the database")?;
            store.migrate().await.context("could not apply the migrations")?;
            let token = tokens::create_token(store.as_ref(), &tenant, name, "cli").await?;
            eprintln!("API token {name:?} for tenant {tenant}. It is shown only now; keep it secret:");
            println!("{token}");
            Ok(())
        }
        Command::Token(TokenCommand::Revoke(TokenArgs { database, tenant, name })) => {
            let tenant = TenantId::parse(&tenant)?;
            let store =
                store::connect(&database.database_url).await.context("could not open the database")?;
            store.migrate().await.context("could not apply the migrations")?;
            match tokens::revoke_token(store.as_ref(), &tenant, name.trim(), "cli").await {
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
