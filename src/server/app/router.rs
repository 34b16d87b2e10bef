//! The whole HTTP surface in one table: the ledger API, sign-in (with a password or through a
//! tenant's identity provider) and sign-out, the console's pages,
//! server functions, exports and live updates, health, and the sandbox provider when mounted; with
//! sessions, the signed-out redirect, the security headers, the caching of the bundle's assets,
//! gzip compression, request ids, one tracing span per request (continuing an agent's trace), and
//! every request counted by route and status for `/metrics`.

use axum::{
    extract::MatchedPath,
    http::{Method, Request},
    Router,
};
use leptos_axum::{generate_route_list, LeptosRoutes};
use std::sync::Arc;
use tower::ServiceBuilder;
use tower_http::{
    compression::CompressionLayer,
    limit::RequestBodyLimitLayer,
    request_id::{MakeRequestUuid, PropagateRequestIdLayer, RequestId, SetRequestIdLayer},
    trace::TraceLayer,
    CompressionLevel,
};

use crate::app::{shell, App};
use crate::console::{exports, live, saved_views};
use crate::server::http::assets::{self, BUILT_ASSETS};
use crate::server::http::health::healthz;
use crate::server::http::limits::{LimitSettings, Limits};
use crate::server::http::listed::ListedRouter;
use crate::server::http::state::AppState;
use crate::server::http::{
    auth, ledger_api, mcp, metrics, oidc, password_reset, provider_webhooks, security,
};
use crate::server::telemetry;

/// How hard answers are gzipped: level 4 keeps nearly all of the gain at a small fraction of the
/// time. (Brotli is not offered: its encoder takes most of a second for the bundle's wasm, which
/// is the time a first visit waits before the page is interactive.)
const COMPRESSION: CompressionLevel = CompressionLevel::Precise(4);

/// The largest request body anything here reads (forms, server function calls): 1 MiB; larger
/// ones are refused with 413 before they are read. The ledger API allows less.
const BODY_LIMIT_BYTES: usize = 1024 * 1024;

/// The console's routes, listed once per process: listing them runs the app with resource loading
/// suppressed process-wide, which would stall a page being rendered at that moment by another
/// application in the same process (tests run many).
static ROUTES: std::sync::LazyLock<Vec<leptos_axum::AxumRouteListing>> =
    std::sync::LazyLock::new(|| generate_route_list(App));

/// The whole HTTP surface, with each of `sandboxes` mounted at its path (`/sandbox`). Console pages
/// need a session (signed-out requests go to `/login`); the session cookie is `Secure` when
/// `secure_cookies`.
pub fn router(state: AppState, sandboxes: Vec<(&str, Router)>, secure_cookies: bool) -> Router {
    let routes = ROUTES.clone();
    let options = state.leptos_options.clone();
    let sessions = auth::session_layer(state.sessions.clone(), secure_cookies, state.session_lifetimes.idle);
    let request_metrics = state.ledger.metrics().clone();
    let base = sandboxes
        .into_iter()
        .fold(Router::new(), |router, (path, sandbox)| router.nest_service(path, sandbox));
    base.merge(http_routes(state.limits.clone()).into_router())
        .leptos_routes(&state, routes, move || shell(options.clone()))
        .fallback(leptos_axum::file_and_error_handler::<AppState, _>(shell))
        .layer(
            ServiceBuilder::new().layer(sessions).layer(axum::middleware::from_fn(auth::redirect_signed_out)),
        )
        .layer(RequestBodyLimitLayer::new(BODY_LIMIT_BYTES))
        .layer(axum::middleware::from_fn_with_state(secure_cookies, security::security_headers))
        .layer(axum::middleware::from_fn_with_state(BUILT_ASSETS.hashed(), assets::cache_assets))
        .layer(CompressionLayer::new().quality(COMPRESSION))
        .layer(
            ServiceBuilder::new()
                .layer(SetRequestIdLayer::x_request_id(MakeRequestUuid))
                .layer(TraceLayer::new_for_http().make_span_with(request_span))
                .layer(PropagateRequestIdLayer::x_request_id()),
        )
        .layer(axum::middleware::from_fn_with_state(request_metrics, metrics::count_requests))
        .with_state(state)
}

/// The routes served by handlers of their own: health, the ledger API, providers' webhooks, sign-in
/// and sign-out, live updates and exports.
fn http_routes(limits: Arc<Limits>) -> ListedRouter<AppState> {
    ListedRouter::default()
        .get("/healthz", healthz)
        .get("/metrics", metrics::scrape)
        .nest("/api/v1", ledger_api::routes(limits))
        .any("/mcp", mcp::endpoint)
        .post("/webhooks/providers/{tenant}/{connection}", provider_webhooks::receive)
        .post("/login", auth::sign_in)
        .post("/login/sso", oidc::start)
        .get(oidc::CALLBACK_PATH, oidc::callback)
        .post("/oidc/backchannel-logout/{tenant}", oidc::backchannel_logout)
        .post(auth::SECOND_STEP_PATH, auth::second_step)
        .post("/logout", auth::sign_out)
        .post("/password-reset", password_reset::set_new_password)
        .post("/language", auth::choose_language)
        .get("/live/operations", live::operation_changes)
        .merge(exports::routes())
        .merge(saved_views::ssr::routes())
}

/// Every route of the HTTP surface but the sandbox's: those of [`http_routes`], the console's
/// pages (`GET`, paths with `:param`) and its server functions (`POST /rpc/<name>`), each with its
/// method, as the router serves them.
pub fn route_list() -> Vec<(Method, String)> {
    let mut routes = http_routes(Limits::new(LimitSettings::default())).routes().to_vec();
    for listing in ROUTES.iter() {
        for method in listing.methods() {
            let method = match method {
                leptos_router::Method::Get => Method::GET,
                leptos_router::Method::Post => Method::POST,
                leptos_router::Method::Put => Method::PUT,
                leptos_router::Method::Delete => Method::DELETE,
                leptos_router::Method::Patch => Method::PATCH,
            };
            routes.push((method, listing.path().to_owned()));
        }
    }
    let server_functions = leptos::server_fn::axum::server_fn_paths();
    routes.extend(server_functions.map(|(path, method)| (method, path.to_owned())));
    routes
}

/// One span per request, named after the matched route and carrying the request id that is also
/// sent back in `x-request-id`. An agent's request (the ledger API and its tools, `/mcp`) with a
/// W3C `traceparent` header continues the agent's trace when spans are exported; the console's
/// requests start traces of their own.
fn request_span<B>(request: &Request<B>) -> tracing::Span {
    let route = request.extensions().get::<MatchedPath>().map_or("fallback", MatchedPath::as_str);
    let request_id =
        request.extensions().get::<RequestId>().and_then(|id| id.header_value().to_str().ok()).unwrap_or("-");
    let span = tracing::info_span!("request", method = %request.method(), route, request_id);
    if is_for_agents(route) {
        telemetry::continue_remote_trace(&span, request.headers());
    }
    span
}

/// Whether `route` is one that agents call: the ledger API (tools included) or the MCP server.
fn is_for_agents(route: &str) -> bool {
    route.starts_with("/api/") || route == "/mcp"
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::server::http::ledger_api::scopes::{is_for_tokens, need_of, ROUTE_SCOPES};

    /// Every route an agent calls with a token has a scope rule, and every rule is for a route
    /// that exists: the table and the router cannot drift apart.
    #[test]
    fn every_route_for_tokens_has_a_scope_rule() {
        let routes = http_routes(Limits::new(LimitSettings::default())).routes().to_vec();
        let for_tokens: Vec<_> = routes.iter().filter(|(_, path)| is_for_tokens(path)).collect();
        assert!(for_tokens.len() >= 14, "the ledger API, its tools and /mcp are listed: {for_tokens:?}");
        for (method, path) in &for_tokens {
            assert!(need_of(method, path).is_some(), "{method} {path} has no scope rule");
        }
        for (method, path, _) in ROUTE_SCOPES {
            assert!(
                routes.iter().any(|(m, p)| m.as_str() == *method && p == path),
                "the scope rule for {method} {path} names no route"
            );
        }
    }
}
