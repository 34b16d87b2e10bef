//! The headers that tell a browser what an answer may do: a Content-Security-Policy (pages get one
//! with the nonce of their own scripts, every other answer one that allows nothing), no framing,
//! no content sniffing, no referrer to other sites, no caching of pages, and HSTS when the
//! console is served over HTTPS.

use axum::{
    extract::{Request, State},
    http::{
        header::{
            CACHE_CONTROL, CONTENT_SECURITY_POLICY, CONTENT_TYPE, REFERRER_POLICY, STRICT_TRANSPORT_SECURITY,
            X_CONTENT_TYPE_OPTIONS, X_FRAME_OPTIONS,
        },
        HeaderValue,
    },
    middleware::Next,
    response::Response,
};

/// The policy of an answer that is not a page (JSON, CSV, files): it runs nothing and is framed
/// nowhere.
const NOTHING_POLICY: &str =
    "default-src 'none'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'";

/// The policy of a console page whose scripts carry `nonce`: its own scripts, the bundle's wasm,
/// styles and images from this site, server functions and live updates to this site, forms that
/// post here, and no framing.
pub fn page_policy(nonce: &str) -> String {
    format!(
        "default-src 'self'; script-src 'self' 'nonce-{nonce}' 'wasm-unsafe-eval'; style-src 'self'; \
         img-src 'self' data:; connect-src 'self'; object-src 'none'; base-uri 'none'; form-action 'self'; \
         frame-ancestors 'none'"
    )
}

/// Sets the page's policy, with the nonce of this response, on the response being rendered.
pub fn protect_page() {
    let Some(nonce) = leptos::nonce::use_nonce() else { return };
    let Some(response) = leptos::prelude::use_context::<leptos_axum::ResponseOptions>() else { return };
    if let Ok(policy) = HeaderValue::from_str(&page_policy(&nonce)) {
        response.insert_header(CONTENT_SECURITY_POLICY, policy);
    }
}

/// Adds the headers every answer carries; `hsts` when the console is served over HTTPS (the same
/// switch as secure cookies).
pub async fn security_headers(State(hsts): State<bool>, request: Request, next: Next) -> Response {
    let mut response = next.run(request).await;
    let is_html = response
        .headers()
        .get(CONTENT_TYPE)
        .and_then(|value| value.to_str().ok())
        .is_some_and(|value| value.starts_with("text/html"));
    let headers = response.headers_mut();
    if !headers.contains_key(CONTENT_SECURITY_POLICY) {
        headers.insert(CONTENT_SECURITY_POLICY, HeaderValue::from_static(NOTHING_POLICY));
    }
    if is_html && !headers.contains_key(CACHE_CONTROL) {
        headers.insert(CACHE_CONTROL, HeaderValue::from_static("no-store"));
    }
    headers.insert(X_CONTENT_TYPE_OPTIONS, HeaderValue::from_static("nosniff"));
    headers.insert(X_FRAME_OPTIONS, HeaderValue::from_static("DENY"));
    headers.insert(REFERRER_POLICY, HeaderValue::from_static("same-origin"));
    if hsts {
        headers.insert(STRICT_TRANSPORT_SECURITY, HeaderValue::from_static("max-age=31536000"));
    }
    response
}
