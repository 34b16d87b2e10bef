//! Server functions: thin adapters between the console and the server. Each one checks what the
//! caller may do, calls the server, and maps failures to [`AppError`], so that no internal error
//! text ever reaches the browser.

mod audit;
mod console;
mod error;
mod workflows;

pub use audit::*;
pub use console::*;
pub use error::AppError;
pub use workflows::*;

use leptos::prelude::*;
use serde::{Deserialize, Serialize};

/// What the connection check reports.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ConnectionStatus {
    /// The database engine: `sqlite` or `postgres`.
    pub database: String,
    pub round_trip_ms: u64,
}

/// Checks that the server and its database answer, for any signed-in user.
#[server(prefix = "/rpc", endpoint = "check_connection")]
pub async fn check_connection() -> Result<ConnectionStatus, AppError> {
    use crate::server::state::AppState;
    crate::server::auth::require(crate::domain::policy::Section::Overview).await?;
    let state = expect_context::<AppState>();
    let started = std::time::Instant::now();
    state.ledger.store().check_health().await.map_err(|error| {
        tracing::error!(error = %error, "connection check failed");
        AppError::Unavailable
    })?;
    Ok(ConnectionStatus {
        database: state.ledger.store().backend().as_str().to_owned(),
        round_trip_ms: u64::try_from(started.elapsed().as_millis()).unwrap_or(u64::MAX),
    })
}
