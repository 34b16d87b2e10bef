//! `GET /healthz`: whether the server and its database answer, for load balancers and scripts.

use axum::{extract::State, http::StatusCode, Json};
use serde_json::{json, Value};

use super::state::AppState;

/// 200 when a round trip to the database succeeds, 503 otherwise. The cause goes to the log, never
/// into the answer.
pub async fn healthz(State(state): State<AppState>) -> (StatusCode, Json<Value>) {
    let database = state.ledger.reads().backend().as_str();
    match state.ledger.reads().check_health().await {
        Ok(()) => (StatusCode::OK, Json(json!({"status": "ok", "database": database}))),
        Err(error) => {
            tracing::error!(error = %error, "health check failed");
            (StatusCode::SERVICE_UNAVAILABLE, Json(json!({"status": "unavailable", "database": database})))
        }
    }
}
