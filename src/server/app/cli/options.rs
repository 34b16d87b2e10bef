//! The option groups several subcommands share (the database, the key that seals tenants' secrets,
//! the server's providers, egress, settling), their value parsers, and the store and ledger that
//! the database options name.

use anyhow::Context;
use clap::Args;
use std::sync::Arc;

use crate::domain::connection::ProviderKind;
use crate::domain::ids::TenantId;
use crate::server::app::wiring::{self, ProviderSettings};
use crate::server::egress::{Allowed, EgressPolicy};
use crate::server::ledger::Ledger;
use crate::server::sandbox::SandboxConfig;
use crate::server::store::{self, Store};

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
pub struct SecretArgs {
    /// The key that seals tenants' provider secrets: 64 hexadecimal digits (`openssl rand -hex 32`). Keep it out of shell history; set it in the environment.
    #[arg(long, env = "OPLEDGER_SECRET_KEY", hide_env_values = true)]
    pub secret_key: Option<String>,
}

#[derive(Debug, Args)]
pub struct ProviderArgs {
    /// Base URL of the Stripe-compatible refunds API (https://api.stripe.com, or a sandbox's address).
    #[arg(long, env = "OPLEDGER_STRIPE_BASE_URL")]
    pub stripe_base_url: Option<String>,

    /// Base URL of the after-sale and pickup services (provider "sandbox").
    #[arg(long, env = "OPLEDGER_SERVICES_BASE_URL")]
    pub services_base_url: Option<String>,

    /// Secret key for those APIs, sent as a bearer token. Needed with --stripe-base-url; `serve --sandbox` makes one for its mounted sandbox at every start and logs it; `reconcile` defaults to the standalone sandbox's sk_test_sandbox.
    #[arg(long, env = "OPLEDGER_STRIPE_SECRET_KEY", hide_env_values = true)]
    pub stripe_secret_key: Option<String>,

    /// How long to wait for a provider's answer before the result counts as unknown.
    #[arg(long, env = "OPLEDGER_PROVIDER_TIMEOUT", default_value = "10s", value_parser = humantime::parse_duration)]
    pub provider_timeout: std::time::Duration,

    /// The tenant the server's own provider settings (--stripe-base-url, --services-base-url, the
    /// mounted sandbox) belong to, e.g. a single-shop install's tenant; several separated by commas.
    /// Every other tenant uses only connections of its own. `serve --demo` adds `demo`.
    #[arg(long, env = "OPLEDGER_DEFAULT_TENANT", value_delimiter = ',', value_parser = parse_tenant)]
    pub default_tenant: Vec<TenantId>,
}

impl ProviderArgs {
    pub(super) fn settings(self) -> ProviderSettings {
        ProviderSettings {
            tenants: self.default_tenant,
            stripe_base_url: self.stripe_base_url,
            services_base_url: self.services_base_url,
            secret_key: self.stripe_secret_key.unwrap_or_else(|| SandboxConfig::default().secret_key),
            timeout: self.provider_timeout,
        }
    }
}

#[derive(Debug, Args)]
pub struct EgressArgs {
    /// Addresses the URLs tenants set (provider accounts, shops' orders, webhook endpoints) may reach
    /// besides public https ones, over http too: networks, addresses or address:port,
    /// comma-separated (e.g. 127.0.0.1:8080,10.0.0.0/8).
    #[arg(long, env = "OPLEDGER_ALLOW_EGRESS", value_delimiter = ',', value_parser = Allowed::parse)]
    pub allow_egress: Vec<Allowed>,

    /// The folder tenants' archives on this server's disk are kept inside (each tenant's retention
    /// names a folder within it, or an S3 bucket).
    #[arg(long, env = "OPLEDGER_ARCHIVE_DIR", default_value = "archive")]
    pub archive_dir: std::path::PathBuf,
}

impl EgressArgs {
    pub(super) fn policy(&self) -> EgressPolicy {
        EgressPolicy::new(self.allow_egress.clone()).with_archive_dir(Some(self.archive_dir()))
    }

    /// `--archive-dir`, absolute.
    pub(super) fn archive_dir(&self) -> std::path::PathBuf {
        std::path::absolute(&self.archive_dir).unwrap_or_else(|_| self.archive_dir.clone())
    }
}

#[derive(Debug, Args)]
pub struct SettleArgs {
    /// How long an unknown result, or a submitted operation without an outcome, is left alone before it is looked up (indexes lag).
    #[arg(long, env = "OPLEDGER_SETTLE_AFTER", default_value = "30s", value_parser = humantime::parse_duration)]
    pub settle_after: std::time::Duration,

    /// How long an operation a provider accepted may stay pending there before people are asked to
    /// look at it, per kind of provider: `stripe=72h` (the default); several separated by commas.
    #[arg(long, env = "OPLEDGER_PENDING_LIMIT", value_delimiter = ',', value_parser = parse_kind_duration)]
    pub pending_limit: Vec<(ProviderKind, chrono::Duration)>,

    /// How long after a send to a gateway without a key an empty lookup is still taken for the
    /// gateway's lag, per kind: `ecpay=10m` and `linepay=5m` (the defaults); after it, a person
    /// decides.
    #[arg(long, env = "OPLEDGER_LOOKUP_LAG", value_delimiter = ',', value_parser = parse_kind_duration)]
    pub lookup_lag: Vec<(ProviderKind, chrono::Duration)>,
}

impl SettleArgs {
    /// Refuses a settle window shorter than `provider_timeout`: an unknown result would be looked
    /// up (and maybe re-sent) while its request could still be running at the provider.
    pub(super) fn at_least(&self, provider_timeout: std::time::Duration) -> anyhow::Result<()> {
        anyhow::ensure!(
            self.settle_after >= provider_timeout,
            "--settle-after ({}) must be at least --provider-timeout ({}): a send still running would be looked up and re-sent",
            humantime::format_duration(self.settle_after),
            humantime::format_duration(provider_timeout)
        );
        Ok(())
    }

    pub(super) fn duration(&self) -> anyhow::Result<chrono::Duration> {
        chrono::Duration::from_std(self.settle_after).context("--settle-after is too long")
    }
}

/// A tenant named on the command line (`--tenant`, `--default-tenant`), surrounding spaces ignored.
pub(super) fn parse_tenant(text: &str) -> Result<TenantId, String> {
    TenantId::parse(text.trim()).map_err(|e| e.to_string())
}

/// A `--pending-limit` or `--lookup-lag` value: `<provider kind>=<duration>`.
fn parse_kind_duration(text: &str) -> Result<(ProviderKind, chrono::Duration), String> {
    let (kind, limit) =
        text.split_once('=').ok_or("write it as <kind>=<duration>, for example stripe=72h")?;
    let kind =
        ProviderKind::parse(kind.trim()).ok_or_else(|| format!("{kind:?} is not a kind of provider"))?;
    let limit = humantime::parse_duration(limit.trim()).map_err(|e| e.to_string())?;
    Ok((kind, chrono::Duration::from_std(limit).map_err(|_| "the limit is too long".to_owned())?))
}

/// The store of the database that `database` names, with every migration applied.
pub(super) async fn open_store(database: &DatabaseArgs) -> anyhow::Result<Arc<dyn Store>> {
    let store = store::connect(&database.database_url).await.context("could not open the database")?;
    store.migrate().await.context("could not apply the migrations")?;
    Ok(store)
}

/// The ledger on the database that `database` names (migrated), sealing and opening provider
/// secrets with the key in `secret`, checked against what is stored.
pub(super) async fn open_ledger(database: &DatabaseArgs, secret: &SecretArgs) -> anyhow::Result<Ledger> {
    let ledger = wiring::ledger(open_store(database).await?, secret.secret_key.as_deref())?;
    ledger.check_secret_key().await?;
    Ok(ledger)
}
