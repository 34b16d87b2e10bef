//! Signing in through a tenant's identity provider (OpenID Connect), over HTTP:
//!
//! - `POST /login/sso`: the person typed their e-mail or their tenant's name; the server finds the
//!   tenant from it (never from a hidden field), keeps the sign-in (state, nonce, PKCE verifier,
//!   where to go next) in the database under a hash of a random id, gives the browser that id in a
//!   short-lived `HttpOnly`, `SameSite=Lax` cookie for `/oidc` alone, and sends it to the provider.
//! - `GET /oidc/callback`: takes that sign-in (once), compares `state` in constant time, exchanges
//!   the code with the verifier, checks the ID token, applies the tenant's rules (groups → role,
//!   e-mail domain, deactivated people refused), starts the console session and sends the person
//!   on with a page of our own (a redirect chain that began at the provider would not carry the
//!   `SameSite=Strict` session cookie).
//! - `POST /oidc/backchannel-logout/{tenant}`: a provider's signed logout token (Back-Channel
//!   Logout 1.0) ends that person's sessions everywhere.

use axum::{
    extract::{rejection::FormRejection, Path, Query, State},
    http::{header, HeaderMap, HeaderValue, StatusCode},
    response::{Html, IntoResponse, Redirect, Response},
    Form,
};
use serde::Deserialize;
use sha2::{Digest, Sha256};
use tower_sessions::{
    cookie::{time::Duration as CookieDuration, Cookie, SameSite},
    Session,
};

use super::auth::{browser_language, hex_cookie_in, sign_in_token_in, start_session, SignedIn};
use super::limits::ClientAddress;
use super::state::AppState;
use crate::domain::ids::TenantId;
use crate::domain::language::Language;
use crate::server::clock::now;
use crate::server::ledger::sso::SsoRefusal;
use crate::server::providers::oidc;
use crate::server::store::sso::SsoFlowRecord;
use crate::server::telemetry::cause_chain;
use crate::t;

/// The cookie that binds a sign-in on its way through the provider to this browser.
const FLOW_COOKIE: &str = "opledger_sso";
/// How long a person has to sign in at the provider.
const FLOW_MINUTES: i64 = 10;
/// The path the provider sends people back to.
pub const CALLBACK_PATH: &str = "/oidc/callback";
/// Where a tenant's provider posts logout tokens (the tenant's id follows).
pub const BACKCHANNEL_LOGOUT_PATH: &str = "/oidc/backchannel-logout/";
/// Scopes asked for besides `openid email profile`, when the provider offers them.
const EXTRA_SCOPES: [&str; 1] = ["groups"];

/// The console's own origin as the browser reached it (`https://` when cookies are `Secure`).
pub fn console_origin(headers: &HeaderMap, secure: bool) -> Option<String> {
    let host = headers.get(header::HOST)?.to_str().ok()?;
    let plausible =
        !host.is_empty() && host.chars().all(|c| c.is_ascii_alphanumeric() || "-.:[]".contains(c));
    plausible.then(|| format!("{}://{host}", if secure { "https" } else { "http" }))
}

fn flow_hash(id: &str) -> String {
    hex::encode(Sha256::digest(format!("opledger sso flow\n{id}").as_bytes()))
}

fn flow_in(headers: &HeaderMap) -> Option<String> {
    hex_cookie_in(headers, FLOW_COOKIE, 64)
}

fn flow_cookie(value: &str, secure: bool, minutes: i64) -> String {
    Cookie::build((FLOW_COOKIE, value.to_owned()))
        .path("/oidc")
        .http_only(true)
        .same_site(SameSite::Lax)
        .secure(secure)
        .max_age(CookieDuration::minutes(minutes))
        .build()
        .to_string()
}

fn to_login(problem: &str, account: &str) -> Response {
    let query = serde_urlencoded::to_string([("error", problem), ("account", account)]).unwrap_or_default();
    let mut response = Redirect::to(&format!("/login?{query}")).into_response();
    response.headers_mut().insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    response
}

/// A path on this site to go to after signing in.
fn local_next(next: &str) -> String {
    let fine = next.starts_with('/')
        && !next.starts_with("//")
        && !next.chars().any(|c| c.is_control() || c.is_whitespace() || c == '\\');
    if fine {
        next.to_owned()
    } else {
        "/".to_owned()
    }
}

#[derive(Debug, Default, Deserialize)]
#[serde(default)]
pub struct CompanySignInForm {
    /// An e-mail address, a sign-in domain or the tenant's name.
    account: String,
    csrf: String,
    next: String,
}

/// `POST /login/sso`: finds the tenant from what was typed and sends the browser to its provider.
pub async fn start(
    State(state): State<AppState>,
    ClientAddress(address): ClientAddress,
    headers: HeaderMap,
    form: Result<Form<CompanySignInForm>, FormRejection>,
) -> Response {
    let Ok(Form(form)) = form else {
        return (
            StatusCode::BAD_REQUEST,
            "The sign-in form could not be read. Go back, reload the page and try again.",
        )
            .into_response();
    };
    let account = form.account.trim().to_owned();
    if form.csrf.is_empty() || sign_in_token_in(&headers).as_deref() != Some(form.csrf.as_str()) {
        return to_login("expired", &account);
    }
    if state.limits.sign_in(address, &account).is_err() {
        tracing::warn!(%address, "company sign-ins over the limit");
        return to_login("sso_limited", &account);
    }
    let settings = match state.ledger.sso_tenant_for(&account).await {
        Ok(Some(settings)) => settings,
        Ok(None) => return to_login("sso_unknown", &account),
        Err(error) => {
            tracing::error!(error = %cause_chain(&error), "company sign-in could not reach the database");
            return to_login("unavailable", &account);
        }
    };
    let Some(origin) = console_origin(&headers, state.secure_cookies) else {
        return (StatusCode::BAD_REQUEST, "The request names no host.").into_response();
    };
    let party = match state.ledger.relying_party(&settings, &format!("{origin}{CALLBACK_PATH}")) {
        Ok(party) => party,
        Err(error) => {
            tracing::error!(tenant = %settings.tenant, %error, "the tenant's identity provider secret does not open");
            return to_login("sso_unavailable", &account);
        }
    };
    let authorization = match oidc::authorize(state.ledger.egress(), &party, &EXTRA_SCOPES).await {
        Ok(authorization) => authorization,
        Err(error) => {
            tracing::warn!(tenant = %settings.tenant, %error, "the tenant's identity provider does not answer");
            return to_login("sso_unavailable", &account);
        }
    };
    let id = format!("{}{}", uuid::Uuid::new_v4().simple(), uuid::Uuid::new_v4().simple());
    let flow = SsoFlowRecord {
        id_hash: flow_hash(&id),
        tenant: settings.tenant.clone(),
        state: authorization.state,
        nonce: authorization.nonce,
        pkce_verifier: authorization.pkce_verifier,
        next: local_next(&form.next),
        expires_at: now() + chrono::Duration::minutes(FLOW_MINUTES),
    };
    if let Err(error) = state.ledger.start_sso_flow(flow).await {
        tracing::error!(error = %cause_chain(&error), "could not keep a company sign-in");
        return to_login("unavailable", &account);
    }
    let mut response = to_provider(&authorization.url, &settings.display_name);
    if let Ok(cookie) = HeaderValue::from_str(&flow_cookie(&id, state.secure_cookies, FLOW_MINUTES)) {
        response.headers_mut().append(header::SET_COOKIE, cookie);
    }
    response.headers_mut().insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    response
}

/// The answer that takes the browser to the provider's `url`: a page that goes there at once by
/// its `Refresh` header, with a link for a browser that does not. A redirect would not do: the
/// sign-in page's Content-Security-Policy (`form-action 'self'`) also governs where a form's
/// redirects may lead, and the provider is another site.
fn to_provider(url: &str, provider: &str) -> Response {
    let Ok(refresh) = HeaderValue::from_str(&format!("0;url={url}")) else {
        return (StatusCode::BAD_GATEWAY, "The identity provider's address cannot be followed.")
            .into_response();
    };
    let page = format!(
        "<!DOCTYPE html><html lang=\"en\"><head><meta charset=\"utf-8\"><title>Signing in · opledger</title></head>\
         <body><p>Continuing to <a href=\"{href}\">{name}</a>…</p></body></html>",
        href = html_escape::encode_double_quoted_attribute(url),
        name = html_escape::encode_text(provider),
    );
    let mut response = Html(page).into_response();
    response.headers_mut().insert(header::REFRESH, refresh);
    response
}

#[derive(Debug, Default, Deserialize)]
#[serde(default)]
pub struct CallbackQuery {
    code: String,
    state: String,
    error: String,
}

/// A page of our own: the person goes on to `next` from here (a navigation this site starts, so
/// the new session's `SameSite=Strict` cookie goes with it).
fn continue_page(language: Language, next: &str) -> Response {
    let next = html_escape::encode_double_quoted_attribute(next);
    let words = html_escape::encode_text(&t!(language, "sso-signed-in-continue")).into_owned();
    let page = format!(
        "<!DOCTYPE html><html lang=\"{}\"><head><meta charset=\"utf-8\"><meta http-equiv=\"refresh\" content=\"0;url={next}\">\
         <title>opledger</title></head><body><p><a href=\"{next}\" data-testid=\"sso-continue\">{words}</a></p></body></html>",
        language.tag()
    );
    let mut response = Html(page).into_response();
    response.headers_mut().insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    response
}

/// The page that tells a person their groups give them no role, and whom to ask.
fn no_role_page(language: Language, tenant: &TenantId, admins: &[String]) -> Response {
    let escape = |text: String| html_escape::encode_text(&text).into_owned();
    let heading = escape(t!(language, "sso-no-role-heading"));
    let body = escape(t!(language, "sso-no-role-body", tenant = tenant.as_str()));
    let ask = if admins.is_empty() {
        escape(t!(language, "sso-no-role-no-admin"))
    } else {
        escape(t!(language, "sso-no-role-ask", admins = admins.join(", ")))
    };
    let back = escape(t!(language, "sso-back-to-sign-in"));
    let page = format!(
        "<!DOCTYPE html><html lang=\"{}\"><head><meta charset=\"utf-8\"><title>{heading} · opledger</title></head>\
         <body><main class=\"login-card\"><h1>{heading}</h1><p data-testid=\"sso-no-role\">{body}</p><p>{ask}</p>\
         <p><a href=\"/login\">{back}</a></p></main></body></html>",
        language.tag()
    );
    let mut response = (StatusCode::FORBIDDEN, Html(page)).into_response();
    response.headers_mut().insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    response
}

/// `GET /oidc/callback`: finishes a sign-in the provider sends back.
pub async fn callback(
    State(state): State<AppState>,
    session: Session,
    headers: HeaderMap,
    Query(query): Query<CallbackQuery>,
) -> Response {
    let language = browser_language(&headers);
    let Some(id) = flow_in(&headers) else {
        return to_login("sso_expired", "");
    };
    let flow = match state.ledger.take_sso_flow(&flow_hash(&id)).await {
        Ok(Some(flow)) => flow,
        Ok(None) => return to_login("sso_expired", ""),
        Err(error) => {
            tracing::error!(error = %cause_chain(&error), "company sign-in could not reach the database");
            return to_login("unavailable", "");
        }
    };
    let mut done = finish(&state, &session, &headers, language, flow, &query).await;
    if let Ok(cookie) = HeaderValue::from_str(&flow_cookie("", state.secure_cookies, 0)) {
        done.headers_mut().append(header::SET_COOKIE, cookie);
    }
    done
}

async fn finish(
    state: &AppState,
    session: &Session,
    headers: &HeaderMap,
    language: Language,
    flow: SsoFlowRecord,
    query: &CallbackQuery,
) -> Response {
    let tenant = flow.tenant.clone();
    if !query.error.is_empty() {
        tracing::info!(%tenant, error = %query.error, "the identity provider refused a sign-in");
        return to_login("sso_refused", "");
    }
    let state_matches = !query.state.is_empty()
        && openidconnect::CsrfToken::new(query.state.clone())
            == openidconnect::CsrfToken::new(flow.state.clone());
    if !state_matches {
        tracing::warn!(%tenant, "a company sign-in came back with another state");
        return to_login("sso_expired", "");
    }
    let settings = match state.ledger.sso_settings(&tenant).await {
        Ok(Some(settings)) => settings,
        Ok(None) => return to_login("sso_unknown", ""),
        Err(error) => {
            tracing::error!(error = %cause_chain(&error), "company sign-in could not reach the database");
            return to_login("unavailable", "");
        }
    };
    let Some(origin) = console_origin(headers, state.secure_cookies) else {
        return (StatusCode::BAD_REQUEST, "The request names no host.").into_response();
    };
    let party = match state.ledger.relying_party(&settings, &format!("{origin}{CALLBACK_PATH}")) {
        Ok(party) => party,
        Err(error) => {
            tracing::error!(%tenant, %error, "the tenant's identity provider secret does not open");
            return to_login("sso_unavailable", "");
        }
    };
    let person =
        match oidc::sign_in(state.ledger.egress(), &party, &query.code, &flow.pkce_verifier, &flow.nonce)
            .await
        {
            Ok(person) => person,
            Err(error @ (oidc::OidcError::Refused(_) | oidc::OidcError::Unreachable(_))) => {
                tracing::warn!(%tenant, %error, "the tenant's identity provider does not answer");
                return to_login("sso_unavailable", "");
            }
            Err(error) => {
                tracing::warn!(%tenant, %error, "a company sign-in is refused");
                return to_login("sso_invalid", "");
            }
        };
    let signed = match state.ledger.sso_sign_in(&settings, &person).await {
        Ok(Ok(signed)) => signed,
        Ok(Err(SsoRefusal::NoRole { admins })) => return no_role_page(language, &tenant, &admins),
        Ok(Err(refusal)) => {
            tracing::info!(%tenant, ?refusal, "a company sign-in is refused");
            let (code, account) = match refusal {
                SsoRefusal::NoEmail => ("sso_no_email", String::new()),
                SsoRefusal::EmailUnverified => ("sso_no_email", String::new()),
                SsoRefusal::DomainNotAllowed(email) => ("sso_domain", email),
                SsoRefusal::GroupsNotAList(claim) => ("sso_groups_not_list", claim),
                SsoRefusal::Deactivated => ("sso_deactivated", String::new()),
                SsoRefusal::NameTaken(email) => ("sso_name_taken", email),
                SsoRefusal::NoRole { .. } => ("sso_refused", String::new()),
            };
            return to_login(code, &account);
        }
        Err(error) => {
            tracing::error!(error = %cause_chain(&error), "company sign-in could not reach the database");
            return to_login("unavailable", "");
        }
    };
    let user = SignedIn {
        user_id: signed.user_id,
        name: signed.name,
        tenant: tenant.clone(),
        role: signed.role,
        language: signed.language,
        until: 0,
    };
    if let Err(error) = start_session(session, user.clone(), state.session_lifetimes).await {
        tracing::error!(%error, "could not start a session");
        return to_login("unavailable", "");
    }
    if let Err(error) = state.ledger.record_sign_in(&tenant, &user.user_id).await {
        tracing::warn!(%error, "could not note a sign-in");
    }
    tracing::info!(user = ?user.name, %tenant, role = user.role.as_str(), "signed in through the identity provider");
    continue_page(user.language.unwrap_or(language), &flow.next)
}

#[derive(Debug, Default, Deserialize)]
#[serde(default)]
pub struct LogoutForm {
    logout_token: String,
}

/// An answer to a back-channel logout that failed (section 2.8: 400, with an OAuth error).
fn logout_refused(description: &str) -> Response {
    let body = serde_json::json!({"error": "invalid_request", "error_description": description});
    let mut response = (StatusCode::BAD_REQUEST, axum::Json(body)).into_response();
    response.headers_mut().insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    response
}

/// `POST /oidc/backchannel-logout/{tenant}`: checks the logout token against the tenant's provider
/// and ends every session of the person it names.
pub async fn backchannel_logout(
    State(state): State<AppState>,
    Path(tenant): Path<String>,
    headers: HeaderMap,
    form: Result<Form<LogoutForm>, FormRejection>,
) -> Response {
    let Ok(Form(form)) = form else { return logout_refused("the request is not a form with a logout_token") };
    if form.logout_token.is_empty() {
        return logout_refused("no logout_token");
    }
    let Ok(tenant) = TenantId::parse(&tenant) else { return logout_refused("no such tenant") };
    let settings = match state.ledger.sso_settings(&tenant).await {
        Ok(Some(settings)) => settings,
        Ok(None) => return logout_refused("this tenant signs in through no identity provider"),
        Err(error) => {
            tracing::error!(error = %cause_chain(&error), "a back-channel logout could not reach the database");
            return StatusCode::SERVICE_UNAVAILABLE.into_response();
        }
    };
    let origin = console_origin(&headers, state.secure_cookies).unwrap_or_default();
    let party = match state.ledger.relying_party(&settings, &format!("{origin}{CALLBACK_PATH}")) {
        Ok(party) => party,
        Err(error) => {
            tracing::error!(%tenant, %error, "the tenant's identity provider secret does not open");
            return StatusCode::SERVICE_UNAVAILABLE.into_response();
        }
    };
    let logged_out =
        match oidc::check_logout_token(state.ledger.egress(), &party, &form.logout_token, now().timestamp())
            .await
        {
            Ok(logged_out) => logged_out,
            Err(error) => {
                tracing::warn!(%tenant, %error, "a logout token is refused");
                return logout_refused(&error.to_string());
            }
        };
    let Some(subject) = logged_out.subject else {
        // Sessions are not kept per provider session: a token naming only `sid` ends nothing here.
        tracing::warn!(%tenant, "a logout token names a provider session only; nothing to end");
        return logout_refused("the logout token names no subject; this client needs sub");
    };
    let user_id = match state.ledger.sso_user_id(&tenant, &subject).await {
        Ok(Some(user_id)) => user_id,
        Ok(None) => {
            let mut response = StatusCode::OK.into_response();
            response.headers_mut().insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
            return response;
        }
        Err(error) => {
            tracing::error!(error = %cause_chain(&error), "a back-channel logout could not reach the database");
            return StatusCode::SERVICE_UNAVAILABLE.into_response();
        }
    };
    match state.ledger.end_sessions_of(&tenant, &user_id).await {
        Ok(ended) => {
            tracing::info!(%tenant, %user_id, ended, "the identity provider signed a person out");
            let mut response = StatusCode::OK.into_response();
            response.headers_mut().insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
            response
        }
        Err(error) => {
            tracing::error!(error = %cause_chain(&error), "a back-channel logout could not end sessions");
            StatusCode::SERVICE_UNAVAILABLE.into_response()
        }
    }
}
