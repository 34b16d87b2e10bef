//! The command line: `opledger serve`, `migrate`, `reconcile`, `sandbox`, `demo`, `tenant`,
//! `token`, `user`, `provider`, `sso`, `webhook`, `notify`, `template`, `retention`, `audit` and
//! `openapi`, with their options and environment variables. Each subcommand's file holds its
//! arguments and what it does; `options` holds the option groups several of them share. A command
//! that names a tenant (`--tenant`) runs only when the tenant exists, checked here for all of them.

mod audit;
mod demo;
mod migrate;
mod notify;
mod openapi;
mod options;
mod provider;
mod reconcile;
mod retention;
mod sandbox;
mod serve;
mod sso;
mod template;
mod tenant;
mod token;
mod user;
mod webhook;

use clap::{ArgMatches, Parser, Subcommand};

use crate::domain::ids::TenantId;
use crate::server::telemetry::LogFormat;

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
    /// Serve the review console, the ledger API and the MCP server for agents at /mcp (applies pending migrations first).
    Serve(serve::ServeArgs),
    /// Apply pending database migrations, then exit.
    Migrate(options::DatabaseArgs),
    /// Run a sandbox provider alone, with fault injection (see docs/reconcile.md): Stripe's refunds subset
    /// with the after-sale and pickup services, or Adyen's or PayPal's refunds with a shop's
    /// orders endpoint (`--kind`).
    Sandbox(sandbox::SandboxArgs),
    /// Settle unknown results: look them up at the provider, re-send with the same key while it is
    /// remembered, hand the rest to a person.
    Reconcile(reconcile::ReconcileArgs),
    /// Export a tenant's audit history, verify an exported history or an archive offline, print the
    /// archive's signing key.
    #[command(subcommand)]
    Audit(audit::AuditCommand),
    /// Keep a tenant's closed operations hot for some days, then move them to its archive (Parquet
    /// files with signed manifests, in a folder or an S3 bucket).
    #[command(subcommand)]
    Retention(retention::RetentionCommand),
    /// Add and list tenants: a tenant is added here before the other commands give it anything.
    #[command(subcommand)]
    Tenant(tenant::TenantCommand),
    /// Manage the API tokens that agents and tools use for the ledger API.
    #[command(subcommand)]
    Token(token::TokenCommand),
    /// Fill the tenant "demo" with one console user per role, an API token and operations in every
    /// state, made by real traffic against a sandbox provider with faults. Re-runnable.
    Demo(options::DatabaseArgs),
    /// Manage the people who sign in to the review console.
    #[command(subcommand)]
    User(user::UserCommand),
    /// Manage a tenant's own provider accounts (its Stripe account, its services). Tenants without
    /// one use the server's (--stripe-base-url, --services-base-url).
    #[command(subcommand)]
    Provider(provider::ProviderCommand),
    /// Manage a tenant's identity provider: its people sign in with their company account
    /// (OpenID Connect), their groups giving their role.
    #[command(subcommand)]
    Sso(sso::SsoCommand),
    /// Manage a tenant's webhook endpoints: where the ledger sends signed events (Standard
    /// Webhooks) when operations change state. `serve` delivers them.
    #[command(subcommand)]
    Webhook(webhook::WebhookCommand),
    /// Manage how a tenant's people hear of what waits for them: channels (SMTP, LINE),
    /// destinations (Slack, Teams, LINE groups, mailboxes), rules and the delivery log. `serve`
    /// sends them.
    #[command(subcommand)]
    Notify(notify::NotifyCommand),
    /// Manage a tenant's customer email templates, which agents send with send_customer_email.
    #[command(subcommand)]
    Template(template::TemplateCommand),
    /// Print the ledger API's OpenAPI document (what GET /api/v1/openapi.json serves), from which
    /// the Python and TypeScript clients in clients/ are generated.
    Openapi,
}

/// The command line as given, read: what [`run`] takes.
pub fn parse() -> (Cli, ArgMatches) {
    use clap::{CommandFactory, FromArgMatches};
    let matches = Cli::command().get_matches();
    let cli = Cli::from_arg_matches(&matches).unwrap_or_else(|error| error.exit());
    (cli, matches)
}

/// Runs the subcommand the user chose (`matches`, as given), once the tenant it names exists.
pub async fn run(cli: Cli, matches: &ArgMatches) -> anyhow::Result<()> {
    check_named_tenant(matches).await?;
    match cli.command {
        Command::Serve(args) => serve::run(args).await,
        Command::Migrate(database) => migrate::run(database).await,
        Command::Sandbox(args) => sandbox::run(args).await,
        Command::Reconcile(args) => reconcile::run(args).await,
        Command::Audit(command) => audit::run(command).await,
        Command::Retention(command) => retention::run(command).await,
        Command::Tenant(command) => tenant::run(command).await,
        Command::Token(command) => token::run(command).await,
        Command::Demo(database) => demo::run(database).await,
        Command::User(command) => user::run(command).await,
        Command::Provider(command) => provider::run(command).await,
        Command::Sso(command) => sso::run(command).await,
        Command::Webhook(command) => webhook::run(command).await,
        Command::Notify(command) => notify::run(command).await,
        Command::Template(command) => template::run(command).await,
        Command::Openapi => openapi::run(),
    }
}

/// Refuses, before anything is done, a command whose `--tenant` names a tenant that its database
/// (`--database-url`) does not hold, saying which tenants it holds; whatever command it is.
async fn check_named_tenant(matches: &ArgMatches) -> anyhow::Result<()> {
    let mut chosen = matches;
    while let Some((_, sub)) = chosen.subcommand() {
        chosen = sub;
    }
    let tenant = chosen.try_get_one::<TenantId>("tenant").ok().flatten();
    let database_url = chosen.try_get_one::<String>("database_url").ok().flatten();
    let (Some(tenant), Some(database_url)) = (tenant, database_url) else { return Ok(()) };
    let database = options::DatabaseArgs { database_url: database_url.clone() };
    let tenants = options::open_store(&database).await?.tenants().await?;
    if tenants.contains(tenant) {
        return Ok(());
    }
    let known = if tenants.is_empty() {
        "it has none".to_owned()
    } else {
        format!("it has {}", tenants.iter().map(TenantId::as_str).collect::<Vec<_>>().join(", "))
    };
    anyhow::bail!(
        "there is no tenant \"{tenant}\" in this database ({known}); nothing was done. \
         Add it first with `opledger tenant add {tenant}`, or name another with --tenant."
    )
}
