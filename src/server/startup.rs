//! Building and running the application: open the store, apply migrations, bind the listener
//! (port 0 in tests), assemble the router, serve until a shutdown signal.

use axum::{
    extract::MatchedPath,
    http::Request,
    routing::{get, post},
    Router,
};
use leptos::prelude::*;
use leptos_axum::{generate_route_list, LeptosRoutes};
use std::{future::Future, net::SocketAddr};
use tokio::net::TcpListener;
use tower::ServiceBuilder;
use tower_http::{
    request_id::{MakeRequestUuid, PropagateRequestIdLayer, RequestId, SetRequestIdLayer},
    trace::TraceLayer,
};

use super::auth;
use super::connectors::{ServicesConnector, StripeConnector};
use super::demo;
use super::executor::{Executor, RetryPolicy};
use super::export;
use super::health::healthz;
use super::ledger::Ledger;
use super::ledger_api;
use super::live;
use super::reconciler::Reconciler;
use super::sandbox::{Sandbox, SandboxConfig};
use super::state::AppState;
use super::store::{self, StoreError};
use crate::app::{shell, App};
use std::sync::Arc;
use tokio_util::sync::CancellationToken;

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
    /// Mount the sandbox provider at `/sandbox`.
    pub sandbox: bool,
    /// Seed the demo tenant through the mounted sandbox (implies `sandbox`).
    pub demo: bool,
    /// How often the reconciler runs; `None` runs none in this process.
    pub reconcile_every: Option<std::time::Duration>,
    /// How long an unknown or silent submitted operation is left alone before it is looked up.
    pub settle_after: chrono::Duration,
    /// How long the executor waits for a provider's answer before the result counts as unknown.
    pub provider_timeout: std::time::Duration,
    /// Mark the session cookie `Secure`: set when the console is served over TLS.
    pub secure_cookies: bool,
    /// How long a manager's approval lets its operation be sent; an approval that expires unsent
    /// goes back to the approval queue.
    pub approval_valid_for: chrono::Duration,
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
            sandbox: false,
            demo: false,
            reconcile_every: None,
            settle_after: chrono::Duration::seconds(30),
            provider_timeout: std::time::Duration::from_secs(10),
            secure_cookies: false,
            approval_valid_for: chrono::Duration::hours(24),
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
    reconciler: Option<(Reconciler, std::time::Duration)>,
    demo: Option<(Executor, Sandbox)>,
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
        let ledger = Ledger::new(store.clone());
        let sandbox = (settings.sandbox || settings.demo).then(|| {
            Sandbox::seeded(SandboxConfig {
                secret_key: settings.stripe_secret_key.clone(),
                ..SandboxConfig::default()
            })
        });
        let stripe_base_url = settings
            .stripe_base_url
            .clone()
            .or_else(|| sandbox.as_ref().map(|_| format!("http://{local_addr}/sandbox")));
        let mut executor = Executor::new(ledger.clone(), RetryPolicy::default());
        if let Some(base_url) = &stripe_base_url {
            tracing::info!(%base_url, "refunds go to a Stripe-compatible API");
            let connector =
                StripeConnector::new(base_url, &settings.stripe_secret_key, settings.provider_timeout);
            executor = executor.with_connector("stripe", Arc::new(connector));
        }
        let services_base_url = settings
            .services_base_url
            .clone()
            .or_else(|| sandbox.as_ref().map(|_| format!("http://{local_addr}/sandbox")));
        if let Some(base_url) = &services_base_url {
            let connector =
                ServicesConnector::new(base_url, &settings.stripe_secret_key, settings.provider_timeout);
            executor = executor.with_connector("sandbox", Arc::new(connector));
        }
        let reconciler = settings
            .reconcile_every
            .map(|every| (Reconciler::new(executor.clone(), settings.settle_after), every));
        let demo_seed =
            settings.demo.then(|| sandbox.clone().map(|sandbox| (executor.clone(), sandbox))).flatten();
        let state = AppState {
            ledger: ledger.clone(),
            executor,
            leptos_options: leptos_options(&settings.site_root, local_addr),
            approval_valid_for: settings.approval_valid_for,
            sign_in_limiter: auth::sign_in_limiter(),
        };
        Ok(Self {
            listener,
            router: router(state, sandbox.as_ref(), settings.secure_cookies),
            local_addr,
            ledger,
            reconciler,
            demo: demo_seed,
        })
    }

    pub fn local_addr(&self) -> SocketAddr {
        self.local_addr
    }

    /// The ledger service the application runs on.
    pub fn ledger(&self) -> &Ledger {
        &self.ledger
    }

    /// Serves (and reconciles, when configured) until `shutdown` completes, then finishes the
    /// requests in flight, waiting at most [`SHUTDOWN_GRACE`] for them.
    pub async fn run_until(self, shutdown: impl Future<Output = ()> + Send + 'static) -> std::io::Result<()> {
        let stop = CancellationToken::new();
        tokio::spawn(auth::delete_expired_sessions(
            self.ledger.store().clone(),
            std::time::Duration::from_secs(600),
            stop.clone(),
        ));
        if let Some((reconciler, every)) = self.reconciler {
            tokio::spawn(reconciler.run_until(every, stop.clone()));
        }
        if let Some((executor, sandbox)) = self.demo {
            tokio::spawn(async move {
                let progress = |step: &str| tracing::info!(step, "seeding the demo");
                match demo::seed(executor, sandbox, &progress).await {
                    Ok(Some(token)) => tracing::info!(tenant = demo::DEMO_TENANT, "demo API token: {token}"),
                    Ok(None) => {}
                    Err(error) => tracing::error!(error = %error, "could not seed the demo data"),
                }
            });
        }
        let signalled = stop.clone();
        let graceful = async move {
            shutdown.await;
            signalled.cancel();
        };
        let server =
            axum::serve(self.listener, self.router.into_make_service()).with_graceful_shutdown(graceful);
        let grace_over = async {
            stop.cancelled().await;
            tokio::time::sleep(SHUTDOWN_GRACE).await;
        };
        tokio::select! {
            result = server => result,
            () = grace_over => {
                tracing::warn!("requests were still open {SHUTDOWN_GRACE:?} after the stop signal; stopping anyway");
                Ok(())
            }
        }
    }
}

/// Leptos' options, built here so that `serve` needs none of cargo-leptos' environment.
fn leptos_options(site_root: &str, addr: SocketAddr) -> LeptosOptions {
    LeptosOptions::builder()
        .output_name("opledger")
        .site_root(site_root)
        .site_pkg_dir("pkg")
        .site_addr(addr)
        .build()
}

/// The console's routes, listed once per process: listing them runs the app with resource loading
/// suppressed process-wide, which would stall a page being rendered at that moment by another
/// application in the same process (tests run many).
static ROUTES: std::sync::LazyLock<Vec<leptos_axum::AxumRouteListing>> =
    std::sync::LazyLock::new(|| generate_route_list(App));

/// The whole HTTP surface, with the sandbox provider under `/sandbox` when given. Console pages
/// need a session (signed-out requests go to `/login`); the session cookie is `Secure` when
/// `secure_cookies`.
pub fn router(state: AppState, sandbox: Option<&Sandbox>, secure_cookies: bool) -> Router {
    let routes = ROUTES.clone();
    let options = state.leptos_options.clone();
    let sessions = auth::session_layer(state.ledger.store().clone(), secure_cookies);
    let base = match sandbox {
        Some(sandbox) => Router::new().nest_service("/sandbox", sandbox.router()),
        None => Router::new(),
    };
    base.route("/healthz", get(healthz))
        .nest("/api/v1", ledger_api::routes())
        .route("/login", post(auth::sign_in))
        .route("/logout", post(auth::sign_out))
        .route("/live/operations", get(live::operation_changes))
        .merge(export::routes())
        .leptos_routes(&state, routes, move || shell(options.clone()))
        .fallback(leptos_axum::file_and_error_handler::<AppState, _>(shell))
        .layer(
            ServiceBuilder::new().layer(sessions).layer(axum::middleware::from_fn(auth::redirect_signed_out)),
        )
        .layer(
            ServiceBuilder::new()
                .layer(SetRequestIdLayer::x_request_id(MakeRequestUuid))
                .layer(TraceLayer::new_for_http().make_span_with(request_span))
                .layer(PropagateRequestIdLayer::x_request_id()),
        )
        .with_state(state)
}

/// One span per request, named after the matched route and carrying the request id that is also
/// sent back in `x-request-id`.
fn request_span<B>(request: &Request<B>) -> tracing::Span {
    let route = request.extensions().get::<MatchedPath>().map_or("fallback", MatchedPath::as_str);
    let request_id =
        request.extensions().get::<RequestId>().and_then(|id| id.header_value().to_str().ok()).unwrap_or("-");
    tracing::info_span!("request", method = %request.method(), route, request_id)
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
