//! `opledger serve`: the review console, the ledger API and the MCP server, with the reconciler
//! and the webhook deliveries and notifications running beside them until a shutdown signal.

use anyhow::Context;
use clap::Args;
use std::net::SocketAddr;

use super::options::{DatabaseArgs, EgressArgs, ProviderArgs, SecretArgs, SettleArgs};
use crate::domain::people::SessionLifetimes;
use crate::server::app::startup::{shutdown_signal, Application, Settings};
use crate::server::http::limits::LimitSettings;
use crate::server::sandbox::new_secret_key;

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

    /// How long a console session lives without a request (for example 30m); then its user signs in again.
    #[arg(long, env = "OPLEDGER_SESSION_IDLE", default_value = "30m", value_parser = humantime::parse_duration)]
    pub session_idle: std::time::Duration,

    /// How long a console session lives at most after sign-in, however active (for example 12h).
    #[arg(long, env = "OPLEDGER_SESSION_MAX", default_value = "12h", value_parser = humantime::parse_duration)]
    pub session_max: std::time::Duration,

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

    /// How often closed operations due under their tenant's retention are archived (the first pass
    /// a minute after start, or sooner when this is shorter); 0s archives nothing from this instance.
    #[arg(long, env = "OPLEDGER_SWEEP_EVERY", default_value = "1h", value_parser = humantime::parse_duration)]
    pub sweep_every: std::time::Duration,

    /// How often notifications are written and sent (for example 1s); 0s sends none from this instance.
    #[arg(long, env = "OPLEDGER_NOTIFY_EVERY", default_value = "1s", value_parser = humantime::parse_duration)]
    pub notify_every: std::time::Duration,

    /// How long a notification that was not delivered waits before its second attempt; each further wait doubles, up to an hour, 12 attempts in all.
    #[arg(long, env = "OPLEDGER_NOTIFY_RETRY_AFTER", default_value = "5s", value_parser = humantime::parse_duration)]
    pub notify_retry_after: std::time::Duration,

    /// The console's address as people reach it, e.g. https://ops.example.com: every link in a notification starts with it. Default: http:// and --addr.
    #[arg(long, env = "OPLEDGER_PUBLIC_URL", value_parser = parse_public_url)]
    pub public_url: Option<String>,

    /// The host names (or host:port) agents reach /mcp by, comma-separated, e.g. ledger.example.com; requests for any other Host are refused (against DNS rebinding). Default: localhost, 127.0.0.1 and ::1 only.
    #[arg(long, env = "OPLEDGER_MCP_ALLOWED_HOSTS", value_delimiter = ',')]
    pub mcp_allowed_hosts: Vec<String>,
}

/// Builds the application from `args` and serves it until SIGINT or SIGTERM.
pub(super) async fn run(args: ServeArgs) -> anyhow::Result<()> {
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
        archive_dir: Some(args.egress.archive_dir()),
        allow_egress: args.egress.allow_egress,
        sandbox: args.sandbox,
        demo: args.demo,
        reconcile_every: (!args.reconcile_every.is_zero()).then_some(args.reconcile_every),
        settle_after: args.settle.duration()?,
        pending_limits: args.settle.pending_limit.clone(),
        lookup_lags: args.settle.lookup_lag.clone(),
        secure_cookies: args.secure_cookies,
        session_lifetimes: session_lifetimes(args.session_idle, args.session_max)?,
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
        notify_every: (!args.notify_every.is_zero()).then_some(args.notify_every),
        sweep_every: (!args.sweep_every.is_zero()).then_some(args.sweep_every),
        notify_retry_after: args.notify_retry_after,
        public_url: args.public_url,
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

/// The session lifetimes `--session-idle` and `--session-max` set: each at least a minute, and
/// the idle one no longer than the absolute one.
fn session_lifetimes(
    idle: std::time::Duration,
    max: std::time::Duration,
) -> anyhow::Result<SessionLifetimes> {
    let minute = std::time::Duration::from_secs(60);
    anyhow::ensure!(idle >= minute, "--session-idle must be at least a minute");
    anyhow::ensure!(max >= idle, "--session-max must be at least as long as --session-idle");
    Ok(SessionLifetimes {
        idle: chrono::Duration::from_std(idle).context("--session-idle is too long")?,
        absolute: chrono::Duration::from_std(max).context("--session-max is too long")?,
    })
}

/// `--public-url`: an http(s) URL with a host and nothing after its path, without a trailing slash.
fn parse_public_url(text: &str) -> Result<String, String> {
    let url = reqwest::Url::parse(text.trim())
        .map_err(|_| format!("{text:?} is not a URL such as https://ops.example.com"))?;
    if !matches!(url.scheme(), "http" | "https")
        || url.host().is_none()
        || url.query().is_some()
        || url.fragment().is_some()
    {
        return Err(format!("{text:?} is not a URL such as https://ops.example.com"));
    }
    Ok(url.as_str().trim_end_matches('/').to_owned())
}
