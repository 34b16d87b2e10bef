//! The command line: `opledger serve`, `migrate`, `reconcile`, `sandbox`, `demo`, `token`, `user`,
//! `provider`, `webhook` and `audit`, with their options and environment variables.

use anyhow::Context;
use clap::{Args, Parser, Subcommand};
use std::net::SocketAddr;

use super::startup::{reconciler, shutdown_signal, Application, Settings};
use super::wiring::{self, ProviderSettings};
use crate::domain::audit::{AuditRecord, ChainVerifier, GENESIS_HASH};
use crate::domain::connection::ProviderKind;
use crate::domain::email::EmailTemplate;
use crate::domain::ids::Actor;
use crate::domain::ids::TenantId;
use crate::domain::policy::Role;
use crate::server::demo;
use crate::server::egress::{Allowed, EgressPolicy};
use crate::server::http::limits::LimitSettings;
use crate::server::ledger::connections::NewConnection;
use crate::server::ledger::{Ledger, LedgerError};
use crate::server::sandbox::adyen::{AdyenConfig, AdyenSandbox};
use crate::server::sandbox::mail::{MailConfig, MailSandbox};
use crate::server::sandbox::paypal::{PayPalConfig, PayPalSandbox};
use crate::server::sandbox::{new_secret_key, Sandbox, SandboxConfig};
use crate::server::store::records::AuditQuery;
use crate::server::store::{self, Store, StoreError};
use crate::server::telemetry::LogFormat;
use std::sync::Arc;

/// How many audit events `audit export` reads at a time: its memory stays flat whatever the chain's length.
const AUDIT_EXPORT_PAGE: u32 = 1000;

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
    Serve(ServeArgs),
    /// Apply pending database migrations, then exit.
    Migrate(DatabaseArgs),
    /// Run a sandbox provider alone, with fault injection (see README): Stripe's refunds subset
    /// with the after-sale and pickup services, or Adyen's or PayPal's refunds with a shop's
    /// orders endpoint (`--kind`).
    Sandbox {
        /// Address and port to listen on.
        #[arg(long, default_value = "127.0.0.1:12111")]
        addr: SocketAddr,
        /// Which provider's API it speaks: stripe, adyen, paypal, or email (an email API in Resend's
        /// shape, with an SMTP sink at --smtp-addr delivering into the same mailbox).
        #[arg(long, value_parser = ["stripe", "adyen", "paypal", "email"], default_value = "stripe")]
        kind: String,
        /// For --kind email: where the SMTP sink listens.
        #[arg(long, default_value = "127.0.0.1:2525")]
        smtp_addr: SocketAddr,
        /// The secret callers must send: Stripe's secret key, Adyen's API key (`X-API-Key`),
        /// PayPal's client secret.
        #[arg(long, default_value = "sk_test_sandbox")]
        secret_key: String,
        /// The account: Adyen's merchant account, PayPal's client id.
        #[arg(long, default_value = "SandboxECOM")]
        account: String,
        /// Adyen's webhook HMAC key (hexadecimal) that notifications are signed with.
        #[arg(long, default_value = "44782DEF547AAA06C910C43932B1EB0C71FC68D9D0C057550C48EC2ACF6BA056")]
        hmac_key: String,
        /// How long idempotency keys are remembered (default: the provider's own window).
        #[arg(long, value_parser = humantime::parse_duration)]
        key_retention: Option<std::time::Duration>,
    },
    /// Settle unknown results: look them up at the provider, re-send with the same key while it is
    /// remembered, hand the rest to a person.
    Reconcile {
        #[command(flatten)]
        database: DatabaseArgs,
        #[command(flatten)]
        provider: ProviderArgs,
        #[command(flatten)]
        secret: SecretArgs,
        #[command(flatten)]
        settle: SettleArgs,
        #[command(flatten)]
        egress: EgressArgs,
        /// One pass, then exit (for scripts and cron); without it, a pass every 10 seconds until stopped.
        #[arg(long)]
        once: bool,
    },
    /// Export a tenant's audit history, or verify an exported history offline.
    #[command(subcommand)]
    Audit(AuditCommand),
    /// Manage the API tokens that agents and tools use for the ledger API.
    #[command(subcommand)]
    Token(TokenCommand),
    /// Fill the tenant "demo" with one console user per role, an API token and operations in every
    /// state, made by real traffic against a sandbox provider with faults. Re-runnable.
    Demo(DatabaseArgs),
    /// Manage the people who sign in to the review console.
    #[command(subcommand)]
    User(UserCommand),
    /// Manage a tenant's own provider accounts (its Stripe account, its services). Tenants without
    /// one use the server's (--stripe-base-url, --services-base-url).
    #[command(subcommand)]
    Provider(ProviderCommand),
    /// Manage a tenant's webhook endpoints: where the ledger sends signed events (Standard
    /// Webhooks) when operations change state. `serve` delivers them.
    #[command(subcommand)]
    Webhook(WebhookCommand),
    /// Manage a tenant's customer email templates, which agents send with send_customer_email.
    #[command(subcommand)]
    Template(TemplateCommand),
}

#[derive(Debug, Subcommand)]
pub enum TemplateCommand {
    /// Save a template (replacing one of the same name), its body read from standard input:
    /// `opledger template set --tenant acme --name refund_issued --subject 'Your refund for order {order}' < body.txt`.
    /// Placeholders: {order}, {shop}, {customer_email}.
    Set {
        #[command(flatten)]
        database: DatabaseArgs,
        #[arg(long)]
        tenant: String,
        /// The name agents ask for it by: lowercase letters, digits and '_'.
        #[arg(long)]
        name: String,
        #[arg(long)]
        subject: String,
    },
    /// List a tenant's templates.
    List {
        #[command(flatten)]
        database: DatabaseArgs,
        #[arg(long)]
        tenant: String,
    },
}

#[derive(Debug, Subcommand)]
pub enum WebhookCommand {
    /// Add an endpoint and print its signing secret once (it is stored sealed under OPLEDGER_SECRET_KEY):
    /// `opledger webhook add --tenant acme --url https://hooks.example.com/opledger --events operation.unknown,operation.needs_review`.
    Add {
        #[command(flatten)]
        database: DatabaseArgs,
        #[command(flatten)]
        secret: SecretArgs,
        #[command(flatten)]
        egress: EgressArgs,
        #[arg(long)]
        tenant: String,
        /// Where the events are POSTed: a public https address, or one --allow-egress allows.
        #[arg(long)]
        url: String,
        /// The event types, comma-separated, or * for all: operation.<state> (operation.pending_approval,
        /// operation.unknown, operation.needs_review, operation.succeeded, operation.rejected, …) and
        /// order.partial_success.
        #[arg(long, default_value = "*")]
        events: String,
    },
    /// List a tenant's endpoints with their event types and their deliveries' latest status.
    List {
        #[command(flatten)]
        database: DatabaseArgs,
        #[arg(long)]
        tenant: String,
    },
    /// Remove an endpoint and what was still to be delivered to it.
    Remove {
        #[command(flatten)]
        database: DatabaseArgs,
        #[arg(long)]
        tenant: String,
        /// The endpoint's id (wh_…), as `webhook list` shows it.
        #[arg(long)]
        id: String,
    },
}

#[derive(Debug, Subcommand)]
pub enum ProviderCommand {
    /// Connect a tenant to its own account at a provider, replacing an earlier one. The secret key
    /// is read from standard input (one line) and stored sealed under OPLEDGER_SECRET_KEY:
    /// `printf '%s\n' "$STRIPE_KEY" | opledger provider set --tenant acme --name stripe --kind stripe --base-url https://api.stripe.com`.
    Set {
        #[command(flatten)]
        database: DatabaseArgs,
        #[command(flatten)]
        secret: SecretArgs,
        #[command(flatten)]
        egress: EgressArgs,
        /// The tenant whose account this is.
        #[arg(long)]
        tenant: String,
        /// The provider name its operations carry: stripe, adyen or paypal (refunds), sandbox
        /// (after-sale and pickups), orders (the shop's orders endpoint).
        #[arg(long)]
        name: String,
        /// The API it speaks: stripe, adyen (Checkout API), paypal (Payments v2), services,
        /// orders (the shop's `GET /orders/{id}`), email (an API in Resend's shape), smtp (a mail
        /// server: smtp://host:587 or smtps://host:465), or http (a system of the shop's own, as
        /// --description says it works).
        #[arg(long, value_parser = ["stripe", "adyen", "paypal", "services", "orders", "email", "smtp", "http"])]
        kind: String,
        /// Where the API is: https://api.stripe.com, https://checkout-test.adyen.com/v71,
        /// https://api-m.sandbox.paypal.com, or the shop's address.
        #[arg(long)]
        base_url: String,
        /// The account the secret belongs to, where the provider names one: Adyen's merchant
        /// account, PayPal's REST app client id (its secret is the line read), the sender an email
        /// or smtp account sends as (`Shop <support@shop.example>`).
        #[arg(long)]
        account: Option<String>,
        /// How long the provider remembers an idempotency key, when the account's contract says
        /// otherwise than the provider's published window (Stripe 24h, Adyen 31 days, PayPal 45
        /// days), e.g. 7d.
        #[arg(long, value_parser = humantime::parse_duration)]
        key_retention: Option<std::time::Duration>,
        /// For --kind http: the file holding the API's description (JSON, format
        /// opledger/http-api/1): the operation kinds it serves, the request of each, the key
        /// header it honours and its lookup, if any. Checked before it is saved; the README has
        /// an example.
        #[arg(long)]
        description: Option<std::path::PathBuf>,
    },
    /// List a tenant's own provider accounts (the secrets show only their last four characters).
    List {
        #[command(flatten)]
        database: DatabaseArgs,
        #[arg(long)]
        tenant: String,
    },
    /// Set the signing secret of the provider's webhooks to a tenant's own account, read from
    /// standard input (one line) and stored sealed: `printf '%s\n' "$WHSEC" | opledger provider
    /// webhook-secret --tenant acme --name stripe`. The provider posts its events to
    /// /webhooks/providers/<tenant>/<name> on the console's address.
    WebhookSecret {
        #[command(flatten)]
        database: DatabaseArgs,
        #[command(flatten)]
        secret: SecretArgs,
        #[arg(long)]
        tenant: String,
        /// The connection's provider name, as `provider list` shows it.
        #[arg(long)]
        name: String,
    },
    /// Remove a tenant's own account at a provider; its operations go back to the server's.
    Remove {
        #[command(flatten)]
        database: DatabaseArgs,
        #[arg(long)]
        tenant: String,
        #[arg(long)]
        name: String,
    },
}

#[derive(Debug, Args)]
pub struct SecretArgs {
    /// The key that seals tenants' provider secrets: 64 hexadecimal digits (`openssl rand -hex 32`). Keep it out of shell history; set it in the environment.
    #[arg(long, env = "OPLEDGER_SECRET_KEY", hide_env_values = true)]
    pub secret_key: Option<String>,
}

#[derive(Debug, Subcommand)]
pub enum UserCommand {
    /// Add a user to a tenant (created if new). The password is read from standard input (one
    /// line), so it stays out of the shell history: `printf '%s\n' "$PASSWORD" | opledger user add …`.
    Add {
        #[command(flatten)]
        database: DatabaseArgs,
        /// The tenant the user works in: lowercase letters, digits, '-' and '_'.
        #[arg(long)]
        tenant: String,
        /// The name to sign in with, unique across tenants: letters, digits, '.', '-', '_', '@'.
        #[arg(long)]
        name: String,
        /// support: sees everything, settles unknowns; manager: also approves; auditor: reads and
        /// exports only; admin: manages users and policies.
        #[arg(long, value_parser = ["support", "manager", "auditor", "admin"])]
        role: String,
    },
}

#[derive(Debug, Subcommand)]
pub enum TokenCommand {
    /// Create a token for a tenant (created if new) and print it once; only its hash is stored.
    Create(TokenArgs),
    /// Revoke a tenant's token by name; calls with it are refused from then on.
    Revoke(TokenArgs),
}

#[derive(Debug, Subcommand)]
pub enum AuditCommand {
    /// Write a tenant's whole audit chain as JSON Lines on standard output, a page at a time.
    Export {
        #[command(flatten)]
        database: DatabaseArgs,
        #[arg(long)]
        tenant: String,
    },
    /// Check an exported JSON Lines history: sequence, links and hashes. Exits 0 when the chain
    /// holds, 1 naming the first line where it breaks. Needs no database.
    Verify {
        /// The exported file (`-` for standard input).
        file: std::path::PathBuf,
        /// The file is a filtered export that leaves events out: check each event's hash and the
        /// links between consecutive events, not the whole chain from its first event.
        #[arg(long)]
        partial: bool,
    },
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

    #[command(flatten)]
    pub secret: SecretArgs,

    #[command(flatten)]
    pub egress: EgressArgs,

    /// Address and port to listen on.
    #[arg(long, env = "OPLEDGER_ADDR", default_value = "127.0.0.1:3000")]
    pub addr: SocketAddr,

    /// Folder with the built browser bundle and static files (`pkg/`, `favicon.ico`).
    #[arg(long, env = "OPLEDGER_SITE_ROOT", default_value = "target/site")]
    pub site_root: String,

    #[command(flatten)]
    pub provider: ProviderArgs,

    /// Mount the sandbox provider at /sandbox and send refunds to it (unless --stripe-base-url says otherwise).
    #[arg(long, env = "OPLEDGER_SANDBOX")]
    pub sandbox: bool,

    /// Seed the tenant "demo" with operations in every state, through the mounted sandbox (implies --sandbox); its API token is logged.
    #[arg(long, env = "OPLEDGER_DEMO")]
    pub demo: bool,

    /// How often the reconciler looks for unknown results (for example 10s); 0s runs no reconciler here.
    #[arg(long, env = "OPLEDGER_RECONCILE_EVERY", default_value = "10s", value_parser = humantime::parse_duration)]
    pub reconcile_every: std::time::Duration,

    #[command(flatten)]
    pub settle: SettleArgs,

    /// Mark the session cookie Secure; set it when the console is reached over HTTPS (for example behind a TLS proxy).
    #[arg(long, env = "OPLEDGER_SECURE_COOKIES")]
    pub secure_cookies: bool,

    /// How long a manager's approval lets its operation be sent (for example 24h); one that expires unsent goes back to the approval queue.
    #[arg(long, env = "OPLEDGER_APPROVAL_VALID_FOR", default_value = "24h", value_parser = humantime::parse_duration)]
    pub approval_valid_for: std::time::Duration,

    /// Sign-in attempts allowed per client address per minute (five per name); more get 429 with Retry-After.
    #[arg(long, env = "OPLEDGER_SIGN_INS_PER_MINUTE", default_value = "20")]
    pub sign_ins_per_minute: std::num::NonZeroU32,

    /// Ledger API calls allowed per second, per token and per client address (bursts of twice as many); more get 429 with Retry-After.
    #[arg(long, env = "OPLEDGER_API_CALLS_PER_SECOND", default_value = "200")]
    pub api_calls_per_second: std::num::NonZeroU32,

    /// The bearer token that GET /metrics asks for on --addr (Prometheus' `authorization` setting); without it (or --metrics-addr) no metrics are served there.
    #[arg(long, env = "OPLEDGER_METRICS_TOKEN", hide_env_values = true)]
    pub metrics_token: Option<String>,

    /// A second address serving GET /metrics alone, without a token (for a monitoring network), for example 127.0.0.1:9464.
    #[arg(long, env = "OPLEDGER_METRICS_ADDR")]
    pub metrics_addr: Option<SocketAddr>,

    /// How often the webhook outbox is delivered (for example 1s); 0s delivers none from this instance.
    #[arg(long, env = "OPLEDGER_DELIVER_WEBHOOKS_EVERY", default_value = "1s", value_parser = humantime::parse_duration)]
    pub deliver_webhooks_every: std::time::Duration,

    /// How long a webhook that was not delivered waits before its second attempt; each further wait doubles, up to an hour, 12 attempts in all.
    #[arg(long, env = "OPLEDGER_WEBHOOK_RETRY_AFTER", default_value = "5s", value_parser = humantime::parse_duration)]
    pub webhook_retry_after: std::time::Duration,

    /// The host names (or host:port) agents reach /mcp by, comma-separated, e.g. ledger.example.com; requests for any other Host are refused (against DNS rebinding). Default: localhost, 127.0.0.1 and ::1 only.
    #[arg(long, env = "OPLEDGER_MCP_ALLOWED_HOSTS", value_delimiter = ',')]
    pub mcp_allowed_hosts: Vec<String>,
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

#[derive(Debug, Args)]
pub struct EgressArgs {
    /// Addresses the URLs tenants set (provider accounts, shops' orders, webhook endpoints) may reach
    /// besides public https ones, over http too: networks, addresses or address:port,
    /// comma-separated (e.g. 127.0.0.1:8080,10.0.0.0/8).
    #[arg(long, env = "OPLEDGER_ALLOW_EGRESS", value_delimiter = ',', value_parser = Allowed::parse)]
    pub allow_egress: Vec<Allowed>,
}

impl EgressArgs {
    fn policy(&self) -> EgressPolicy {
        EgressPolicy::new(self.allow_egress.clone())
    }
}

fn parse_tenant(text: &str) -> Result<TenantId, String> {
    TenantId::parse(text.trim()).map_err(|e| e.to_string())
}

#[derive(Debug, Args)]
pub struct SettleArgs {
    /// How long an unknown result, or a submitted operation without an outcome, is left alone before it is looked up (indexes lag).
    #[arg(long, env = "OPLEDGER_SETTLE_AFTER", default_value = "30s", value_parser = humantime::parse_duration)]
    pub settle_after: std::time::Duration,

    /// How long an operation a provider accepted may stay pending there before people are asked to
    /// look at it, per kind of provider: `stripe=72h` (the default); several separated by commas.
    #[arg(long, env = "OPLEDGER_PENDING_LIMIT", value_delimiter = ',', value_parser = parse_pending_limit)]
    pub pending_limit: Vec<(ProviderKind, chrono::Duration)>,
}

/// A `--pending-limit` value: `<provider kind>=<duration>`.
fn parse_pending_limit(text: &str) -> Result<(ProviderKind, chrono::Duration), String> {
    let (kind, limit) =
        text.split_once('=').ok_or("write it as <kind>=<duration>, for example stripe=72h")?;
    let kind =
        ProviderKind::parse(kind.trim()).ok_or_else(|| format!("{kind:?} is not a kind of provider"))?;
    let limit = humantime::parse_duration(limit.trim()).map_err(|e| e.to_string())?;
    Ok((kind, chrono::Duration::from_std(limit).map_err(|_| "the limit is too long".to_owned())?))
}

impl ProviderArgs {
    fn settings(self) -> ProviderSettings {
        ProviderSettings {
            tenants: self.default_tenant,
            stripe_base_url: self.stripe_base_url,
            services_base_url: self.services_base_url,
            secret_key: self.stripe_secret_key.unwrap_or_else(|| SandboxConfig::default().secret_key),
            timeout: self.provider_timeout,
        }
    }
}

impl SettleArgs {
    /// Refuses a settle window shorter than `provider_timeout`: an unknown result would be looked
    /// up (and maybe re-sent) while its request could still be running at the provider.
    fn at_least(&self, provider_timeout: std::time::Duration) -> anyhow::Result<()> {
        anyhow::ensure!(
            self.settle_after >= provider_timeout,
            "--settle-after ({}) must be at least --provider-timeout ({}): a send still running would be looked up and re-sent",
            humantime::format_duration(self.settle_after),
            humantime::format_duration(provider_timeout)
        );
        Ok(())
    }

    fn duration(&self) -> anyhow::Result<chrono::Duration> {
        chrono::Duration::from_std(self.settle_after).context("--settle-after is too long")
    }
}

/// Runs the subcommand the user chose.
pub async fn run(cli: Cli) -> anyhow::Result<()> {
    match cli.command {
        Command::Serve(args) => {
            args.settle.at_least(args.provider.provider_timeout)?;
            anyhow::ensure!(
                args.provider.stripe_secret_key.is_some() || (args.provider.stripe_base_url.is_none() && args.provider.services_base_url.is_none()),
                "--stripe-secret-key (or OPLEDGER_STRIPE_SECRET_KEY) is needed with --stripe-base-url or --services-base-url"
            );
            let settings = Settings {
                site_root: args.site_root,
                stripe_base_url: args.provider.stripe_base_url,
                stripe_secret_key: args.provider.stripe_secret_key.unwrap_or_else(new_secret_key),
                services_base_url: args.provider.services_base_url,
                default_tenants: args.provider.default_tenant,
                allow_egress: args.egress.allow_egress,
                sandbox: args.sandbox,
                demo: args.demo,
                reconcile_every: (!args.reconcile_every.is_zero()).then_some(args.reconcile_every),
                settle_after: args.settle.duration()?,
                pending_limits: args.settle.pending_limit.clone(),
                secure_cookies: args.secure_cookies,
                provider_timeout: args.provider.provider_timeout,
                approval_valid_for: chrono::Duration::from_std(args.approval_valid_for)
                    .context("--approval-valid-for is too long")?,
                secret_key: args.secret.secret_key,
                limits: LimitSettings {
                    sign_ins_per_minute: args.sign_ins_per_minute,
                    api_calls_per_second: args.api_calls_per_second,
                },
                mcp_allowed_hosts: args.mcp_allowed_hosts,
                metrics_token: args.metrics_token,
                metrics_addr: args.metrics_addr,
                deliver_webhooks_every: (!args.deliver_webhooks_every.is_zero())
                    .then_some(args.deliver_webhooks_every),
                webhook_retry_after: args.webhook_retry_after,
                ..Settings::new(&args.database.database_url, args.addr)
            };
            let application = Application::build(settings).await?;
            tracing::info!(addr = %application.local_addr(), "serving the console at http://{}", application.local_addr());
            if let Some(addr) = application.metrics_addr() {
                tracing::info!(%addr, "serving the metrics at http://{addr}/metrics");
            }
            application.run_until(shutdown_signal()).await.context("the server stopped with an error")?;
            tracing::info!("stopped");
            Ok(())
        }
        Command::Sandbox { addr, kind, smtp_addr, secret_key, account, hmac_key, key_retention } => {
            let retention = |default: chrono::Duration| {
                key_retention
                    .map(chrono::Duration::from_std)
                    .transpose()
                    .map(|retention| retention.unwrap_or(default))
                    .context("--key-retention is too long")
            };
            let router = match kind.as_str() {
                "adyen" => {
                    let config = AdyenConfig {
                        api_key: secret_key,
                        merchant_account: account,
                        hmac_key,
                        key_retention: retention(chrono::Duration::days(31))?,
                    };
                    AdyenSandbox::new(config, demo::accounts::adyen_orders()).router()
                }
                "paypal" => {
                    let config = PayPalConfig {
                        client_id: account,
                        client_secret: secret_key,
                        key_retention: retention(chrono::Duration::days(45))?,
                    };
                    PayPalSandbox::new(config, demo::accounts::paypal_orders()).router()
                }
                "email" => {
                    let config = MailConfig {
                        api_key: secret_key,
                        key_retention: retention(chrono::Duration::hours(24))?,
                    };
                    let mail = MailSandbox::new(config);
                    let smtp = tokio::net::TcpListener::bind(smtp_addr)
                        .await
                        .with_context(|| format!("could not listen on {smtp_addr}"))?;
                    tracing::info!(%smtp_addr, "SMTP sink at smtp://{smtp_addr}");
                    tokio::spawn(mail.clone().serve_smtp(smtp));
                    mail.router()
                }
                _ => Sandbox::seeded(SandboxConfig {
                    secret_key,
                    key_retention: retention(chrono::Duration::hours(24))?,
                })
                .router(),
            };
            let listener = tokio::net::TcpListener::bind(addr)
                .await
                .with_context(|| format!("could not listen on {addr}"))?;
            tracing::info!(%addr, kind, "sandbox provider at http://{addr}");
            axum::serve(listener, router).with_graceful_shutdown(shutdown_signal()).await?;
            Ok(())
        }
        Command::Reconcile { database, provider, secret, settle, egress, once } => {
            settle.at_least(provider.provider_timeout)?;
            let ledger = open_ledger(&database, &secret).await?.with_egress(egress.policy());
            let providers = provider.settings();
            let own_connections = ledger.reads().any_provider_connection().await?.is_some();
            anyhow::ensure!(
                providers.any() || own_connections,
                "--stripe-base-url or --services-base-url (or OPLEDGER_STRIPE_BASE_URL, OPLEDGER_SERVICES_BASE_URL) is needed to look operations up"
            );
            let executor = wiring::executor(ledger.clone(), &providers);
            let reconciler = reconciler(executor, settle.duration()?, &settle.pending_limit);
            if once {
                let pass = reconciler.reconcile_once().await?;
                ledger.seal_audit(None).await?;
                for (op_id, state) in &pass.settled {
                    println!("{op_id}\t{}", state.as_str());
                }
                println!("{} operation(s) examined.", pass.settled.len());
            } else {
                let stop = tokio_util::sync::CancellationToken::new();
                let worker =
                    tokio::spawn(reconciler.run_until(std::time::Duration::from_secs(10), stop.clone()));
                let sealer = tokio::spawn(ledger.seal_until(stop.clone()));
                shutdown_signal().await;
                stop.cancel();
                worker.await?;
                sealer.await?;
            }
            Ok(())
        }
        Command::Audit(AuditCommand::Export { database, tenant }) => {
            use std::io::Write;
            let tenant = TenantId::parse(&tenant)?;
            let ledger = Ledger::new(open_store(&database).await?);
            ledger.seal_audit(Some(&tenant)).await?;
            let reads = ledger.reads();
            let mut out = std::io::BufWriter::new(std::io::stdout());
            let mut page = AuditQuery {
                oldest_first: true,
                after_seq: Some(0),
                limit: AUDIT_EXPORT_PAGE,
                ..AuditQuery::default()
            };
            while let Some((lines, last)) = reads.audit_json_lines(&tenant, &page).await? {
                page.after_seq = Some(last);
                out.write_all(&lines)?;
            }
            out.flush()?;
            Ok(())
        }
        Command::Audit(AuditCommand::Verify { file, partial }) => {
            use std::io::BufRead;
            let input: Box<dyn BufRead> = if file.as_os_str() == "-" {
                Box::new(std::io::stdin().lock())
            } else {
                let opened = std::fs::File::open(&file)
                    .with_context(|| format!("could not read {}", file.display()))?;
                Box::new(std::io::BufReader::new(opened))
            };
            let mut verifier = if partial { ChainVerifier::partial() } else { ChainVerifier::whole() };
            let mut last_hash = GENESIS_HASH.to_owned();
            for (index, line) in input.lines().enumerate() {
                let line = line.with_context(|| format!("line {}: could not be read", index + 1))?;
                let record = serde_json::from_str::<AuditRecord>(&line)
                    .with_context(|| format!("line {}: not an audit record", index + 1))?;
                if let Err(broken) = verifier.push(&record) {
                    let hint = if partial { "" } else { " (for a filtered export, use --partial)" };
                    anyhow::bail!("the chain breaks at line {}: {}{hint}", broken.position, broken.problem);
                }
                last_hash = record.hash;
            }
            let check = verifier.finish();
            if partial {
                println!(
                    "OK: {} events, each hash holds; {} links checked, {} gaps where the export leaves events out",
                    check.events, check.links, check.gaps
                );
            } else {
                println!("OK: {} events, the chain holds; last hash {last_hash}", check.events);
            }
            Ok(())
        }
        Command::Migrate(args) => {
            let store = open_store(&args).await?;
            println!("The {} database is up to date.", store.backend().as_str());
            Ok(())
        }
        Command::Token(TokenCommand::Create(TokenArgs { database, tenant, name })) => {
            let tenant = TenantId::parse(&tenant)?;
            let name = name.trim();
            anyhow::ensure!(!name.is_empty() && name.len() <= 64, "--name must be 1 to 64 characters");
            let store = open_store(&database).await?;
            let token = Ledger::new(store).create_token(&tenant, name, "cli").await?;
            eprintln!("API token {name:?} for tenant {tenant}. It is shown only now; keep it secret:");
            println!("{token}");
            Ok(())
        }
        Command::Token(TokenCommand::Revoke(TokenArgs { database, tenant, name })) => {
            let tenant = TenantId::parse(&tenant)?;
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
        Command::Demo(database) => run_demo(&database).await,
        Command::Provider(command) => run_provider(command).await,
        Command::Webhook(command) => run_webhook(command).await,
        Command::Template(command) => run_template(command).await,
        Command::User(UserCommand::Add { database, tenant, name, role }) => {
            let tenant = TenantId::parse(&tenant)?;
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

/// `opledger demo`: seeds the demo tenant in the database `database` names through a sandbox
/// provider of its own (on a free local port, gone when the command ends), showing a progress
/// bar, then prints how to sign in.
async fn run_demo(database: &DatabaseArgs) -> anyhow::Result<()> {
    let store = open_store(database).await?;
    let config = SandboxConfig::default();
    let secret_key = config.secret_key.clone();
    let sandbox = Sandbox::seeded(config);
    let listener =
        tokio::net::TcpListener::bind("127.0.0.1:0").await.context("could not start the sandbox")?;
    let base_url = format!("http://{}", listener.local_addr()?);
    let router = sandbox.router();
    tokio::spawn(async move { axum::serve(listener, router).await });
    let providers = ProviderSettings {
        tenants: vec![TenantId::parse(demo::DEMO_TENANT)?],
        stripe_base_url: Some(base_url.clone()),
        services_base_url: Some(base_url),
        secret_key,
        timeout: std::time::Duration::from_secs(2),
    };
    let ledger = Ledger::new(store);
    let executor = wiring::executor(ledger.clone(), &providers);
    let bar = indicatif::ProgressBar::new(demo::SEED_STEPS).with_style(
        indicatif::ProgressStyle::with_template("{bar:32.cyan/blue} {pos:>2}/{len} {wide_msg}")
            .expect("a valid template"),
    );
    let token = demo::seed(executor, sandbox, &|step: &str| {
        bar.inc(1);
        bar.set_message(step.to_owned());
    })
    .await
    .context("the demo traffic failed")?;
    ledger.seal_audit(None).await?;
    bar.finish_and_clear();
    match token {
        Some(token) => {
            println!("Seeded tenant {}. API token of demo-agent (shown once): {token}", demo::DEMO_TENANT)
        }
        None => println!("Tenant {} already has its demo operations; users checked.", demo::DEMO_TENANT),
    }
    println!("Sign in with the password {} as:", demo::DEMO_PASSWORD);
    for (name, role) in demo::DEMO_USERS {
        println!("  {name:<14} {}", role.as_str());
    }
    println!(
        "Then run `opledger serve --sandbox` on the same database. This command's sandbox is gone, so the\n\
         reconciler settles the unknown results against a fresh one (a lookup finds nothing; a re-send\n\
         with the same key does it once there)."
    );
    Ok(())
}

/// The store of the database that `database` names, with every migration applied.
async fn open_store(database: &DatabaseArgs) -> anyhow::Result<Arc<dyn Store>> {
    let store = store::connect(&database.database_url).await.context("could not open the database")?;
    store.migrate().await.context("could not apply the migrations")?;
    Ok(store)
}

/// The ledger on the database that `database` names (migrated), sealing and opening provider
/// secrets with the key in `secret`, checked against what is stored.
async fn open_ledger(database: &DatabaseArgs, secret: &SecretArgs) -> anyhow::Result<Ledger> {
    let ledger = wiring::ledger(open_store(database).await?, secret.secret_key.as_deref())?;
    ledger.check_secret_key().await?;
    Ok(ledger)
}

async fn run_provider(command: ProviderCommand) -> anyhow::Result<()> {
    match command {
        ProviderCommand::Set {
            database,
            secret,
            egress,
            tenant,
            name,
            kind,
            base_url,
            account,
            key_retention,
            description,
        } => {
            let tenant = TenantId::parse(&tenant)?;
            let kind = ProviderKind::parse(&kind)
                .context("--kind is stripe, adyen, paypal, services, orders, email, smtp or http")?;
            let description = description
                .map(|path| {
                    std::fs::read_to_string(&path)
                        .with_context(|| format!("could not read the description {}", path.display()))
                })
                .transpose()?;
            let key_retention = key_retention
                .map(chrono::Duration::from_std)
                .transpose()
                .context("--key-retention is too long")?;
            let mut line = String::new();
            std::io::stdin()
                .read_line(&mut line)
                .context("could not read the secret key from standard input")?;
            let connection = NewConnection {
                name: name.trim().to_owned(),
                kind,
                base_url,
                secret: line.trim().to_owned(),
                account,
                key_retention,
                description,
            };
            let ledger = open_ledger(&database, &secret).await?.with_egress(egress.policy());
            ledger.set_provider_connection(&tenant, &Actor::system("cli"), connection).await?;
            println!(
                "Tenant {tenant} now uses its own {} account ({kind}).",
                name.trim(),
                kind = kind.as_str()
            );
            Ok(())
        }
        ProviderCommand::WebhookSecret { database, secret, tenant, name } => {
            let tenant = TenantId::parse(&tenant)?;
            let name = name.trim();
            let mut line = String::new();
            std::io::stdin()
                .read_line(&mut line)
                .context("could not read the signing secret from standard input")?;
            let ledger = open_ledger(&database, &secret).await?;
            match ledger.set_webhook_secret(&tenant, &Actor::system("cli"), name, &line).await {
                Ok(()) => {
                    println!(
                        "The {name} webhooks of tenant {tenant} are verified with the new signing secret; \
                         the provider posts them to /webhooks/providers/{tenant}/{name}."
                    );
                    Ok(())
                }
                Err(LedgerError::NotFound) => {
                    anyhow::bail!(
                        "tenant {tenant} has no {name} account of its own; set it first (provider set)"
                    )
                }
                Err(error) => Err(error.into()),
            }
        }
        ProviderCommand::List { database, tenant } => {
            let tenant = TenantId::parse(&tenant)?;
            let connections = open_store(&database).await?.provider_connections(&tenant).await?;
            if connections.is_empty() {
                println!("Tenant {tenant} has no provider account of its own; it uses the server's.");
            }
            for connection in connections {
                println!(
                    "{}\t{}\t{}\t…{}\tset by {} at {}\t{}",
                    connection.name,
                    connection.kind.as_str(),
                    connection.base_url,
                    connection.secret_last4,
                    connection.updated_by,
                    connection.updated_at.to_rfc3339(),
                    if connection.sealed_webhook_secret.is_some() {
                        "webhook signing secret set"
                    } else {
                        "no webhook signing secret"
                    }
                );
            }
            Ok(())
        }
        ProviderCommand::Remove { database, tenant, name } => {
            let tenant = TenantId::parse(&tenant)?;
            match Ledger::new(open_store(&database).await?)
                .remove_provider_connection(&tenant, &Actor::system("cli"), name.trim())
                .await
            {
                Ok(()) => {
                    println!(
                        "Tenant {tenant} no longer has its own {} account; it uses the server's.",
                        name.trim()
                    );
                    Ok(())
                }
                Err(StoreError::NotFound) => {
                    anyhow::bail!("tenant {tenant} has no {} account of its own", name.trim())
                }
                Err(error) => Err(error.into()),
            }
        }
    }
}

async fn run_template(command: TemplateCommand) -> anyhow::Result<()> {
    match command {
        TemplateCommand::Set { database, tenant, name, subject } => {
            let tenant = TenantId::parse(&tenant)?;
            let mut body = String::new();
            std::io::Read::read_to_string(&mut std::io::stdin(), &mut body)
                .context("could not read the template's body from standard input")?;
            let template = EmailTemplate { name: name.trim().to_owned(), subject, body };
            Ledger::new(open_store(&database).await?)
                .set_email_template(&tenant, &Actor::system("cli"), template)
                .await?;
            println!("Tenant {tenant} can now send the template {}.", name.trim());
            Ok(())
        }
        TemplateCommand::List { database, tenant } => {
            let tenant = TenantId::parse(&tenant)?;
            let templates = open_store(&database).await?.email_templates(&tenant).await?;
            if templates.is_empty() {
                println!("Tenant {tenant} has no email templates.");
            }
            for record in templates {
                println!(
                    "{}\t{}\tset by {} at {}",
                    record.template.name,
                    record.template.subject,
                    record.updated_by,
                    record.updated_at.to_rfc3339()
                );
            }
            Ok(())
        }
    }
}

async fn run_webhook(command: WebhookCommand) -> anyhow::Result<()> {
    match command {
        WebhookCommand::Add { database, secret, egress, tenant, url, events } => {
            let tenant = TenantId::parse(&tenant)?;
            let ledger = open_ledger(&database, &secret).await?.with_egress(egress.policy());
            let added = ledger.add_webhook_endpoint(&tenant, &Actor::system("cli"), &url, &events).await?;
            println!("Added endpoint {} of tenant {tenant}: {}", added.endpoint.id, added.endpoint.url);
            println!("Events: {}", added.endpoint.event_types.join(", "));
            println!(
                "Signing secret (shown once; verify the webhook-signature header with it): {}",
                added.secret
            );
            Ok(())
        }
        WebhookCommand::List { database, tenant } => {
            let tenant = TenantId::parse(&tenant)?;
            let store = open_store(&database).await?;
            let endpoints = store.webhook_endpoints(&tenant).await?;
            if endpoints.is_empty() {
                println!("Tenant {tenant} has no webhook endpoint; add one with `opledger webhook add`.");
            }
            for endpoint in endpoints {
                let latest = store.webhook_deliveries(&tenant, &endpoint.id, 1).await?;
                let latest = latest.first().map_or("nothing sent yet".to_owned(), |delivery| {
                    format!("latest {} {}", delivery.event_type, delivery.status.as_str())
                });
                println!(
                    "{}\t{}\t{}\tadded by {} at {}\t{latest}",
                    endpoint.id,
                    endpoint.url,
                    endpoint.event_types.join(","),
                    endpoint.created_by,
                    endpoint.created_at.to_rfc3339()
                );
            }
            Ok(())
        }
        WebhookCommand::Remove { database, tenant, id } => {
            let tenant = TenantId::parse(&tenant)?;
            match Ledger::new(open_store(&database).await?)
                .remove_webhook_endpoint(&tenant, &Actor::system("cli"), id.trim())
                .await
            {
                Ok(()) => {
                    println!(
                        "Removed endpoint {} of tenant {tenant}; nothing more is sent to it.",
                        id.trim()
                    );
                    Ok(())
                }
                Err(StoreError::NotFound) => {
                    anyhow::bail!("tenant {tenant} has no webhook endpoint {}", id.trim())
                }
                Err(error) => Err(error.into()),
            }
        }
    }
}
