//! The state shared by every request handler and server function.

use axum::extract::FromRef;
use leptos::prelude::LeptosOptions;
use std::sync::Arc;

use super::limits::Limits;
use crate::server::ledger::executor::Executor;
use crate::server::ledger::Ledger;
use crate::server::store::Sessions;

/// An HTTP service of its own protocol mounted on one path, such as the MCP server.
pub type Endpoint = tower::util::BoxCloneSyncService<
    axum::http::Request<axum::body::Body>,
    axum::response::Response,
    std::convert::Infallible,
>;

/// The state every request shares, behind one `Arc`: a request takes it in several extractors
/// and middlewares, and each clone is one count, not a copy of every field.
#[derive(Clone)]
pub struct AppState(Arc<SharedState>);

impl AppState {
    pub fn new(shared: SharedState) -> Self {
        Self(Arc::new(shared))
    }
}

impl std::ops::Deref for AppState {
    type Target = SharedState;

    fn deref(&self) -> &SharedState {
        &self.0
    }
}

pub struct SharedState {
    /// The one service through which every change passes, and the read handle.
    pub ledger: Ledger,
    /// The console's sessions, in the ledger's database.
    pub sessions: Arc<dyn Sessions>,
    /// Sends operations to their providers (the agent tools use it).
    pub executor: Executor,
    pub leptos_options: LeptosOptions,
    /// How long a manager's approval lets its operation be sent.
    pub approval_valid_for: chrono::Duration,
    /// Sign-in attempts and API calls, per client address, name and token.
    pub limits: Arc<Limits>,
    /// Cookies are `Secure`: the console is served over HTTPS.
    pub secure_cookies: bool,
    /// How long a console session lives idle, and at most.
    pub session_lifetimes: crate::domain::people::SessionLifetimes,
    /// Each tenant's changes, polled once for all its open pages and waiting reads.
    pub live: crate::server::http::changes::LiveChanges,
    /// Cancelled when the server begins to stop, so that a read waiting for a change answers at
    /// once instead of holding the shutdown.
    pub stopping: tokio_util::sync::CancellationToken,
    /// The service that answers `/mcp` once the caller's token is checked
    /// ([`crate::server::http::mcp`]).
    pub mcp: Endpoint,
    /// The bearer token `/metrics` asks for on this address; not served here without one.
    pub metrics_token: Option<Arc<str>>,
}

impl FromRef<AppState> for LeptosOptions {
    fn from_ref(state: &AppState) -> Self {
        state.leptos_options.clone()
    }
}
