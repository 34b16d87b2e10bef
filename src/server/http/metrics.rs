//! `GET /metrics` in Prometheus' text format, and the middleware that counts every HTTP request
//! by route and status. On the main address the scrape needs the bearer token of `--metrics-token`
//! (without one it is not served there); on `--metrics-addr` it is open, that address being meant
//! for the monitoring network alone. The ledger's gauges are read at each scrape from the counts
//! the store keeps and from one index range per tenant and uncertain state, never from a scan of
//! the operations.

use axum::{
    extract::{MatchedPath, Request, State},
    http::{header, HeaderMap, Method, StatusCode},
    middleware::Next,
    response::{IntoResponse, Response},
    routing::get,
    Router,
};
use sha2::{Digest, Sha256};
use std::sync::Arc;

use super::state::AppState;
use crate::domain::machine::State as OperationState;
use crate::server::clock::now;
use crate::server::ledger::Ledger;
use crate::server::metrics::{LedgerGauges, Metrics};
use crate::server::store::StoreError;

const TEXT_FORMAT: &str = "text/plain; version=0.0.4; charset=utf-8";

/// The uncertain states whose oldest operation's age is a gauge.
const AGED_STATES: [OperationState; 3] =
    [OperationState::Accepted, OperationState::Unknown, OperationState::NeedsReview];

/// The ledger's gauges as they are now.
async fn ledger_gauges(ledger: &Ledger) -> Result<LedgerGauges, StoreError> {
    let reads = ledger.reads();
    let operations = reads
        .operation_counts()
        .await?
        .into_iter()
        .map(|count| {
            (count.tenant.to_string(), count.kind, count.provider, count.state.as_str(), count.operations)
        })
        .collect();
    let at = now();
    let mut oldest_seconds = Vec::new();
    for tenant in reads.tenants().await? {
        for state in AGED_STATES {
            let oldest = reads.changed_at_in_state(&tenant, state, 1).await?.first().copied();
            let seconds =
                oldest.map_or(0.0, |changed| (at - changed).num_milliseconds().max(0) as f64 / 1000.0);
            oldest_seconds.push((tenant.to_string(), state.as_str(), seconds));
        }
    }
    let webhook_backlog = reads.pending_webhook_deliveries().await?;
    Ok(LedgerGauges { operations, oldest_seconds, webhook_backlog })
}

async fn exposition(ledger: &Ledger) -> Response {
    match ledger_gauges(ledger).await {
        Ok(gauges) => {
            ([(header::CONTENT_TYPE, TEXT_FORMAT)], ledger.metrics().render(&gauges)).into_response()
        }
        Err(error) => {
            tracing::error!(error = %crate::server::telemetry::cause_chain(&error), "the metrics could not be read");
            (StatusCode::SERVICE_UNAVAILABLE, "The ledger's database did not answer; try again.")
                .into_response()
        }
    }
}

/// Whether `headers` carry `Authorization: Bearer <token>` (compared by digest, in constant time
/// as far as the token's length goes).
fn bearer_matches(headers: &HeaderMap, token: &str) -> bool {
    let given = headers
        .get(header::AUTHORIZATION)
        .and_then(|value| value.to_str().ok())
        .and_then(|value| value.strip_prefix("Bearer "))
        .unwrap_or("");
    Sha256::digest(given.as_bytes()) == Sha256::digest(token.as_bytes())
}

/// `GET /metrics` on the main address.
pub async fn scrape(State(state): State<AppState>, headers: HeaderMap) -> Response {
    let Some(token) = state.metrics_token.as_deref() else {
        return (
            StatusCode::NOT_FOUND,
            "Metrics are not served on this address: start the server with --metrics-token (then scrape with \
             that bearer token) or --metrics-addr.",
        )
            .into_response();
    };
    if !bearer_matches(&headers, token) {
        return (
            StatusCode::UNAUTHORIZED,
            [(header::WWW_AUTHENTICATE, "Bearer realm=\"opledger metrics\"")],
            "Scraping needs the bearer token of --metrics-token.",
        )
            .into_response();
    }
    exposition(&state.ledger).await
}

/// The router of `--metrics-addr`: `/metrics`, open, and nothing else.
pub fn open_router(ledger: Ledger) -> Router {
    let ledger = Arc::new(ledger);
    Router::new().route("/metrics", get(move || async move { exposition(&ledger).await }))
}

/// Counts the request by method (`other` for any but the standard ones, which a caller could
/// otherwise invent without end), route pattern and status, with its latency.
pub async fn count_requests(State(metrics): State<Metrics>, request: Request, next: Next) -> Response {
    let route = request.extensions().get::<MatchedPath>().map_or("fallback", MatchedPath::as_str).to_owned();
    let method = match *request.method() {
        Method::GET => "GET",
        Method::POST => "POST",
        Method::PUT => "PUT",
        Method::PATCH => "PATCH",
        Method::DELETE => "DELETE",
        Method::HEAD => "HEAD",
        Method::OPTIONS => "OPTIONS",
        _ => "other",
    };
    let started = std::time::Instant::now();
    let response = next.run(request).await;
    metrics.http_request(method, &route, response.status().as_u16(), started.elapsed());
    response
}
