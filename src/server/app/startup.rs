//! Building and running the application: open the store, apply migrations, bind the listener
//! (port 0 in tests), wire the providers, assemble the router, serve until a shutdown signal.

use axum::Router;
use leptos::prelude::*;
use std::{future::Future, net::SocketAddr};
use tokio::net::TcpListener;
use tokio_util::sync::CancellationToken;

use super::router::router;
use super::wiring::{self, ProviderSettings};
use crate::domain::connection::ProviderKind;
use crate::domain::ids::TenantId;
use crate::domain::people::SessionLifetimes;
use crate::server::demo;
use crate::server::egress::{Allowed, EgressPolicy};
use crate::server::http::limits::{forget_idle_limits, LimitSettings, Limits};
use crate::server::http::{
    auth,
    state::{AppState, SharedState},
};
use crate::server::ledger::executor::Executor;
use crate::server::ledger::notifier::Notifier;
use crate::server::ledger::reconciler::Reconciler;
use crate::server::ledger::webhooks::WebhookDispatcher;
use crate::server::ledger::Ledger;
use crate::server::sandbox::mail::{MailConfig, MailSandbox};
use crate::server::sandbox::ChatSandboxes;
use crate::server::sandbox::{new_secret_key, Sandbox, SandboxConfig};
use crate::server::store::{self, Sessions, StoreError};
use std::sync::Arc;

/// What `serve` needs to start.
#[derive(Debug, Clone)]
pub struct Settings {
    pub database_url: String,
    pub addr: SocketAddr,
    pub site_root: String,
    /// Where the Stripe-compatible refunds API is; the mounted sandbox's when `None` and
    /// `sandbox` is set, and no refunds connector at all otherwise.
    pub stripe_base_url: Option<String>,
    pub stripe_secret_key: String,
    /// Where the after-sale and pickup services are (provider `sandbox`); the mounted sandbox's
    /// when `None` and `sandbox` is set.
    pub services_base_url: Option<String>,
    /// The tenants the server's own providers serve (`--default-tenant`); `demo` is added with
    /// `demo`. Every other tenant uses connections of its own only.
    pub default_tenants: Vec<TenantId>,
    /// What the URLs tenants set may reach besides public https addresses (`--allow-egress`); the
    /// server's own address is added while it mounts the sandbox, which tenants may point at.
    pub allow_egress: Vec<Allowed>,
    /// The folder tenants' archives on the server's disk are kept inside (`--archive-dir`); `None`
    /// keeps none there (buckets only).
    pub archive_dir: Option<std::path::PathBuf>,
    /// Mount the sandbox provider at `/sandbox`.
    pub sandbox: bool,
    /// Seed the demo tenant through the mounted sandbox (implies `sandbox`).
    pub demo: bool,
    /// How often the reconciler runs; `None` runs none in this process.
    pub reconcile_every: Option<std::time::Duration>,
    /// How long an unknown or silent submitted operation is left alone before it is looked up.
    pub settle_after: chrono::Duration,
    /// How long an operation a kind of provider accepted may stay pending before people are asked
    /// to look at it, where it differs from [`ProviderKind::pending_limit`].
    pub pending_limits: Vec<(ProviderKind, chrono::Duration)>,
    /// How long an empty lookup at a gateway without a key is taken for its lag, where it differs
    /// from the kind's own (`Capabilities::lookup_lag`).
    pub lookup_lags: Vec<(ProviderKind, chrono::Duration)>,
    /// How long the executor waits for a provider's answer before the result counts as unknown.
    pub provider_timeout: std::time::Duration,
    /// Mark the session cookie `Secure`: set when the console is served over TLS.
    pub secure_cookies: bool,
    /// How long a console session lives without a request, and at most after sign-in.
    pub session_lifetimes: SessionLifetimes,
    /// How long a manager's approval lets its operation be sent; an approval that expires unsent
    /// goes back to the approval queue.
    pub approval_valid_for: chrono::Duration,
    /// Seals and opens tenants' provider secrets (`OPLEDGER_SECRET_KEY`, 64 hexadecimal digits).
    pub secret_key: Option<String>,
    /// Sign-in attempts and API calls allowed per client address and token.
    pub limits: LimitSettings,
    /// The `Host` values `/mcp` answers (names, or `name:port`); the loopback names when empty.
    pub mcp_allowed_hosts: Vec<String>,
    /// The bearer token `/metrics` asks for on the main address; not served there without one.
    pub metrics_token: Option<String>,
    /// A second address that serves `/metrics` alone, without a token.
    pub metrics_addr: Option<SocketAddr>,
    /// How often the webhook outbox is delivered; `None` delivers nothing from this process.
    pub deliver_webhooks_every: Option<std::time::Duration>,
    /// How long a webhook delivery waits after its first failed attempt (doubled after each).
    pub webhook_retry_after: std::time::Duration,
    /// How often notifications are written and sent; `None` sends none from this process.
    pub notify_every: Option<std::time::Duration>,
    /// How often tenants' retention is swept; `None` archives nothing from this process.
    pub sweep_every: Option<std::time::Duration>,
    /// How long a notification waits after its first failed attempt (doubled after each).
    pub notify_retry_after: std::time::Duration,
    /// The console's address as people reach it, which notifications link to; `http://` and the
    /// listening address when `None`.
    pub public_url: Option<String>,
}

impl Settings {
    /// Settings for `database_url` and `addr` with everything else at its default: no provider,
    /// no reconciler, the site root `target/site`.
    pub fn new(database_url: &str, addr: SocketAddr) -> Self {
        Settings {
            database_url: database_url.to_owned(),
            addr,
            site_root: "target/site".into(),
            stripe_base_url: None,
            stripe_secret_key: SandboxConfig::default().secret_key,
            services_base_url: None,
            default_tenants: Vec::new(),
            allow_egress: Vec::new(),
            archive_dir: None,
            sandbox: false,
            demo: false,
            reconcile_every: None,
            settle_after: chrono::Duration::seconds(30),
            pending_limits: Vec::new(),
            lookup_lags: Vec::new(),
            provider_timeout: std::time::Duration::from_secs(10),
            secure_cookies: false,
            session_lifetimes: SessionLifetimes::default(),
            approval_valid_for: chrono::Duration::hours(24),
            secret_key: None,
            limits: LimitSettings::default(),
            mcp_allowed_hosts: Vec::new(),
            metrics_token: None,
            metrics_addr: None,
            deliver_webhooks_every: None,
            webhook_retry_after: std::time::Duration::from_secs(5),
            notify_every: None,
            sweep_every: None,
            notify_retry_after: std::time::Duration::from_secs(5),
            public_url: None,
        }
    }
}

/// How long requests still open at shutdown (a provider that never answers) may delay the exit.
const SHUTDOWN_GRACE: std::time::Duration = std::time::Duration::from_secs(10);

#[derive(Debug, thiserror::Error)]
pub enum StartupError {
    #[error("could not open the database")]
    Database(#[source] StoreError),
    #[error("could not apply the database migrations")]
    Migrations(#[source] StoreError),
    #[error("{0}")]
    SecretKey(String),
    #[error("could not listen on {addr}")]
    Bind {
        addr: SocketAddr,
        #[source]
        source: std::io::Error,
    },
}

/// A built application, listening but not yet serving.
pub struct Application {
    listener: TcpListener,
    router: Router,
    local_addr: SocketAddr,
    ledger: Ledger,
    sessions: Arc<dyn Sessions>,
    limits: Arc<Limits>,
    reconciler: Option<(Reconciler, std::time::Duration)>,
    webhooks: Option<(WebhookDispatcher, std::time::Duration)>,
    notifier: Option<(Notifier, std::time::Duration)>,
    sweep_every: Option<std::time::Duration>,
    metrics_listener: Option<TcpListener>,
    demo: Option<DemoSeed>,
    /// Cancelled when the shutdown signal comes: background tasks and waiting requests end.
    stop: CancellationToken,
}

/// What seeds the demo: the executor, the mounted sandbox, and the second tenant's account.
struct DemoSeed {
    executor: Executor,
    sandbox: Sandbox,
    second_account_url: String,
    second_account_key: String,
    accounts: Arc<demo::accounts::DemoAccounts>,
    /// The LINE stand-in's channel access token.
    line_token: String,
    /// The SMTP server of the demo's notification e-mails.
    smtp: SocketAddr,
}

/// Where the demo's people read their e-mail: `/sandbox-notify-mail/_sandbox/mail`, with the sandbox's key.
const DEMO_MAILBOX_PATH: &str = "/sandbox-notify-mail";

/// The SMTP server the demo's notifications are e-mailed through: the one `OPLEDGER_DEMO_SMTP`
/// names (`host:port`), or the mail sandbox's sink on a port of its own.
struct DemoMail {
    addr: SocketAddr,
    /// The sink, when the demo runs its own (it serves for as long as the process runs).
    sink: Option<MailSandbox>,
}

impl DemoMail {
    async fn start(key: &str) -> Result<DemoMail, StartupError> {
        if let Some(addr) = std::env::var("OPLEDGER_DEMO_SMTP").ok().and_then(|addr| addr.parse().ok()) {
            return Ok(DemoMail { addr, sink: None });
        }
        let any: SocketAddr = ([127, 0, 0, 1], 0).into();
        let listener =
            TcpListener::bind(any).await.map_err(|source| StartupError::Bind { addr: any, source })?;
        let addr = listener.local_addr().map_err(|source| StartupError::Bind { addr: any, source })?;
        let sink = MailSandbox::new(MailConfig {
            api_key: key.to_owned(),
            key_retention: chrono::Duration::hours(24),
        });
        tokio::spawn(sink.clone().serve_smtp(listener));
        tracing::info!("the demo's notification e-mails: {DEMO_MAILBOX_PATH}/_sandbox/mail on the console, with the sandbox's key");
        Ok(DemoMail { addr, sink: Some(sink) })
    }
}

impl Application {
    pub async fn build(settings: Settings) -> Result<Self, StartupError> {
        let store = store::connect(&settings.database_url).await.map_err(StartupError::Database)?;
        store.migrate().await.map_err(StartupError::Migrations)?;
        let listener = TcpListener::bind(settings.addr)
            .await
            .map_err(|source| StartupError::Bind { addr: settings.addr, source })?;
        let local_addr =
            listener.local_addr().map_err(|source| StartupError::Bind { addr: settings.addr, source })?;
        let metrics_listener = match settings.metrics_addr {
            Some(addr) => {
                Some(TcpListener::bind(addr).await.map_err(|source| StartupError::Bind { addr, source })?)
            }
            None => None,
        };
        let sessions: Arc<dyn Sessions> = store.clone();
        let mounted = settings.sandbox || settings.demo;
        let own_address = mounted.then_some(Allowed::Address(local_addr));
        let demo_mail =
            if settings.demo { Some(DemoMail::start(&settings.stripe_secret_key).await?) } else { None };
        let egress = EgressPolicy::new(settings.allow_egress.clone())
            .with_archive_dir(settings.archive_dir.clone())
            .allowing(own_address)
            .allowing(demo_mail.as_ref().map(|mail| Allowed::Address(mail.addr)));
        let ledger = wiring::ledger(store, settings.secret_key.as_deref())
            .map_err(|error| StartupError::SecretKey(error.to_string()))?
            .with_egress(egress);
        ledger.check_secret_key().await.map_err(|error| StartupError::SecretKey(error.to_string()))?;
        let sandbox = (settings.sandbox || settings.demo).then(|| {
            Sandbox::seeded(SandboxConfig {
                secret_key: settings.stripe_secret_key.clone(),
                ..SandboxConfig::default()
            })
        });
        let mut tenants = settings.default_tenants.clone();
        if settings.demo {
            tenants.extend(TenantId::parse(demo::DEMO_TENANT).ok());
        }
        let providers = ProviderSettings {
            tenants,
            stripe_base_url: settings.stripe_base_url.clone(),
            services_base_url: settings.services_base_url.clone(),
            secret_key: settings.stripe_secret_key.clone(),
            timeout: settings.provider_timeout,
        };
        let providers = match &sandbox {
            Some(_) => providers.or_everything_at(&format!("http://{local_addr}/sandbox")),
            None => providers,
        };
        let executor = wiring::executor(ledger.clone(), &providers);
        let reconciler = settings.reconcile_every.map(|every| {
            let lags = &settings.lookup_lags;
            (reconciler(executor.clone(), settings.settle_after, &settings.pending_limits, lags), every)
        });
        if sandbox.is_some() {
            tracing::info!(
                "sandbox provider at http://{local_addr}/sandbox; its secret key is {}",
                settings.stripe_secret_key
            );
        }
        let second_account_key = new_secret_key();
        let second_account = settings.demo.then(|| demo::second_account(&second_account_key));
        let demo_seed = settings
            .demo
            .then(|| {
                sandbox.clone().map(|sandbox| DemoSeed {
                    executor: executor.clone(),
                    sandbox,
                    second_account_url: format!("http://{local_addr}{}", demo::SECOND_ACCOUNT_PATH),
                    second_account_key,
                    accounts: Arc::new(demo::accounts::DemoAccounts::new()),
                    line_token: settings.stripe_secret_key.clone(),
                    smtp: demo_mail.as_ref().map_or(local_addr, |mail| mail.addr),
                })
            })
            .flatten();
        let mut sandboxes: Vec<(&str, Router)> = Vec::new();
        if let Some(sandbox) = &sandbox {
            sandboxes.push((
                "/sandbox",
                sandbox.router().merge(ChatSandboxes::new(&settings.stripe_secret_key).router()),
            ));
        }
        if let Some(account) = &second_account {
            sandboxes.push((demo::SECOND_ACCOUNT_PATH, account.router()));
        }
        if let Some(sink) = demo_mail.as_ref().and_then(|mail| mail.sink.as_ref()) {
            sandboxes.push((DEMO_MAILBOX_PATH, sink.router()));
        }
        if let Some(seed) = &demo_seed {
            sandboxes.extend(seed.accounts.routers());
        }
        let limits = Limits::new(settings.limits);
        let stop = CancellationToken::new();
        let state = AppState::new(SharedState {
            ledger: ledger.clone(),
            sessions: sessions.clone(),
            executor,
            leptos_options: leptos_options(&settings.site_root, local_addr),
            approval_valid_for: settings.approval_valid_for,
            limits: limits.clone(),
            secure_cookies: settings.secure_cookies,
            session_lifetimes: settings.session_lifetimes,
            live: Default::default(),
            stopping: stop.clone(),
            mcp: crate::server::http::mcp::service(&settings.mcp_allowed_hosts),
            metrics_token: settings.metrics_token.as_deref().filter(|token| !token.is_empty()).map(Arc::from),
        });
        let webhooks = settings
            .deliver_webhooks_every
            .map(|every| (WebhookDispatcher::new(ledger.clone(), settings.webhook_retry_after), every));
        let public_url = settings.public_url.clone().unwrap_or_else(|| format!("http://{local_addr}"));
        let notifier = settings
            .notify_every
            .map(|every| (Notifier::new(ledger.clone(), &public_url, settings.notify_retry_after), every));
        Ok(Self {
            listener,
            router: router(state, sandboxes, settings.secure_cookies),
            local_addr,
            ledger,
            sessions,
            limits,
            reconciler,
            webhooks,
            notifier,
            sweep_every: settings.sweep_every,
            metrics_listener,
            demo: demo_seed,
            stop,
        })
    }

    pub fn local_addr(&self) -> SocketAddr {
        self.local_addr
    }

    /// Where `--metrics-addr` serves `/metrics`, when it was given.
    pub fn metrics_addr(&self) -> Option<SocketAddr> {
        self.metrics_listener.as_ref().and_then(|listener| listener.local_addr().ok())
    }

    /// The ledger service the application runs on.
    pub fn ledger(&self) -> &Ledger {
        &self.ledger
    }

    /// Serves (and reconciles, when configured) until `shutdown` completes, then finishes the
    /// requests in flight, waiting at most [`SHUTDOWN_GRACE`] for them (a read waiting for a change
    /// answers at once).
    pub async fn run_until(self, shutdown: impl Future<Output = ()> + Send + 'static) -> std::io::Result<()> {
        let stop = self.stop;
        tokio::spawn(auth::delete_expired_sessions(
            self.sessions.clone(),
            std::time::Duration::from_secs(600),
            stop.clone(),
        ));
        tokio::spawn(forget_idle_limits(
            self.limits.clone(),
            std::time::Duration::from_secs(60),
            stop.clone(),
        ));
        let sealer = tokio::spawn(self.ledger.clone().seal_until(stop.clone()));
        tokio::spawn(self.ledger.clone().relay_changes(stop.clone()));
        if let Some(every) = self.sweep_every {
            tokio::spawn(self.ledger.clone().sweep_until(every, stop.clone()));
        }
        if let Some((reconciler, every)) = self.reconciler {
            tokio::spawn(reconciler.run_until(every, stop.clone()));
        }
        if let Some((dispatcher, every)) = self.webhooks {
            tokio::spawn(dispatcher.run_until(every, stop.clone()));
        }
        if let Some((notifier, every)) = self.notifier {
            tokio::spawn(notifier.run_until(every, stop.clone()));
        }
        if let Some(listener) = self.metrics_listener {
            let stopped = stop.clone();
            let metrics = crate::server::http::metrics::open_router(self.ledger.clone());
            tokio::spawn(async move {
                let served =
                    axum::serve(listener, metrics).with_graceful_shutdown(stopped.cancelled_owned()).await;
                if let Err(error) = served {
                    tracing::error!(%error, "the metrics address stopped serving");
                }
            });
        }
        if let Some(DemoSeed {
            executor,
            sandbox,
            second_account_url,
            second_account_key,
            accounts,
            line_token,
            smtp,
        }) = self.demo
        {
            let mcp_url = format!("http://{}/mcp", self.local_addr);
            let console = format!("http://{}", self.local_addr);
            tokio::spawn(async move {
                let progress = |step: &str| tracing::info!(step, "seeding the demo");
                let receiver = format!("{}/sandbox/v1/_sandbox/webhooks", mcp_url.trim_end_matches("/mcp"));
                if let Err(error) = demo::add_demo_webhook(executor.ledger(), &receiver).await {
                    tracing::error!(error = %error, "could not add the demo's webhook endpoint");
                }
                if let Err(error) =
                    demo::notifications::set_up(executor.ledger(), &console, smtp, &line_token).await
                {
                    tracing::error!(error = %error, "could not set up the demo's notifications");
                }
                tokio::spawn(demo::sso::connect_identity_provider(executor.ledger().clone()));
                let token = match demo::seed(executor.clone(), sandbox, &progress).await {
                    Ok(Some(token)) => Some(token),
                    Ok(None) => demo::agent_token(executor.ledger()).await.inspect_err(|error| {
                        tracing::error!(error = %error, "could not make an API token for the demo's agent");
                    }).ok(),
                    Err(error) => {
                        tracing::error!(error = %error, "could not seed the demo data");
                        None
                    }
                };
                if let Some(token) = token {
                    tracing::info!(tenant = demo::DEMO_TENANT, "demo API token: {token}");
                    println!(
                        "Agents: connect an MCP client to {mcp_url} with the header \"Authorization: Bearer {token}\" \
                         (tenant {}); the same token calls the ledger API at /api/v1.",
                        demo::DEMO_TENANT
                    );
                }
                if let Err(error) =
                    demo::seed_second_tenant(&executor, &second_account_url, &second_account_key).await
                {
                    tracing::error!(error = %error, "could not seed the second demo tenant");
                }
                let console = mcp_url.trim_end_matches("/mcp");
                if let Err(error) = accounts.seed(&executor, console).await {
                    tracing::error!(error = %error, "could not seed the Adyen and PayPal demo tenants");
                }
            });
        }
        let signalled = stop.clone();
        let graceful = async move {
            shutdown.await;
            signalled.cancel();
        };
        let server =
            axum::serve(self.listener, self.router.into_make_service_with_connect_info::<SocketAddr>())
                .with_graceful_shutdown(graceful);
        let grace_over = async {
            stop.cancelled().await;
            tokio::time::sleep(SHUTDOWN_GRACE).await;
        };
        let served = tokio::select! {
            result = server => result,
            () = grace_over => {
                tracing::warn!("requests were still open {SHUTDOWN_GRACE:?} after the stop signal; stopping anyway");
                Ok(())
            }
        };
        stop.cancel();
        if sealer.await.is_err() {
            tracing::warn!("the audit sealer ended abnormally; waiting entries are sealed at the next start");
        }
        served
    }
}

/// Leptos' options, built here so that `serve` needs none of cargo-leptos' environment.
fn leptos_options(site_root: &str, addr: SocketAddr) -> LeptosOptions {
    LeptosOptions::builder()
        .output_name("opledger")
        .site_root(site_root)
        .site_pkg_dir("pkg")
        .site_addr(addr)
        .hash_files(crate::server::http::assets::BUILT_ASSETS.hashed())
        .build()
}

/// Completes on SIGINT (Ctrl-C) or SIGTERM.
pub async fn shutdown_signal() {
    let interrupt = async {
        if let Err(error) = tokio::signal::ctrl_c().await {
            tracing::error!(%error, "could not listen for Ctrl-C");
            std::future::pending::<()>().await;
        }
    };
    let terminate = async {
        match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
            Ok(mut signal) => {
                signal.recv().await;
            }
            Err(error) => {
                tracing::error!(%error, "could not listen for SIGTERM");
                std::future::pending::<()>().await;
            }
        }
    };
    tokio::select! {
        () = interrupt => tracing::info!("Ctrl-C received, shutting down"),
        () = terminate => tracing::info!("SIGTERM received, shutting down"),
    }
}

/// The reconciler of `executor`, looking unknown results up after `settle_after` and handing
/// operations accepted and still pending to people after `pending_limits`, and taking an empty
/// lookup at a gateway without a key for its lag for `lookup_lags` (each provider kind's own
/// otherwise).
pub fn reconciler(
    executor: Executor,
    settle_after: chrono::Duration,
    pending_limits: &[(ProviderKind, chrono::Duration)],
    lookup_lags: &[(ProviderKind, chrono::Duration)],
) -> Reconciler {
    let reconciler =
        pending_limits.iter().fold(Reconciler::new(executor, settle_after), |reconciler, (kind, limit)| {
            reconciler.with_pending_limit(*kind, *limit)
        });
    lookup_lags.iter().fold(reconciler, |reconciler, (kind, lag)| reconciler.with_lookup_lag(*kind, *lag))
}
