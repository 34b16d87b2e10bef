//! Building and running the application: open the store, apply migrations, bind the listener
//! (port 0 in tests), assemble the router, serve until a shutdown signal.

use axum::{extract::MatchedPath, http::Request, routing::get, Router};
use leptos::prelude::*;
use leptos_axum::{generate_route_list, LeptosRoutes};
use std::{future::Future, net::SocketAddr};
use tokio::net::TcpListener;
use tower::ServiceBuilder;
use tower_http::{
    request_id::{MakeRequestUuid, PropagateRequestIdLayer, RequestId, SetRequestIdLayer},
    trace::TraceLayer,
};

use super::health::healthz;
use super::ledger::Ledger;
use super::ledger_api;
use super::state::AppState;
use super::store::{self, StoreError};
use crate::app::{shell, App};

/// What `serve` needs to start.
#[derive(Debug, Clone)]
pub struct Settings {
    pub database_url: String,
    pub addr: SocketAddr,
    pub site_root: String,
}

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
        let ledger = Ledger::new(store.clone(), Vec::new());
        let state = AppState {
            store,
            ledger: ledger.clone(),
            leptos_options: leptos_options(&settings.site_root, local_addr),
        };
        Ok(Self { listener, router: router(state), local_addr, ledger })
    }

    pub fn local_addr(&self) -> SocketAddr {
        self.local_addr
    }

    /// The ledger service the application runs on.
    pub fn ledger(&self) -> &Ledger {
        &self.ledger
    }

    /// Serves until `shutdown` completes, then finishes the requests in flight.
    pub async fn run_until(self, shutdown: impl Future<Output = ()> + Send + 'static) -> std::io::Result<()> {
        axum::serve(self.listener, self.router.into_make_service()).with_graceful_shutdown(shutdown).await
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

/// The whole HTTP surface; tests drive it without a socket.
pub fn router(state: AppState) -> Router {
    let routes = generate_route_list(App);
    let options = state.leptos_options.clone();
    Router::new()
        .route("/healthz", get(healthz))
        .nest("/api/v1", ledger_api::routes())
        .leptos_routes(&state, routes, move || shell(options.clone()))
        .fallback(leptos_axum::file_and_error_handler::<AppState, _>(shell))
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
