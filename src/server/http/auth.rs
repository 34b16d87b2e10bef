//! Signing in to the console: sessions kept in the ledger's database (so every instance shares
//! them), the sign-in and sign-out form handlers, the CSRF token every state-changing form and
//! server function carries, the rate limit on sign-in attempts, the redirect of signed-out page
//! requests to `/login`. The console's role check (`crate::console::guard`) reads who is signed in
//! from here.

use axum::{
    extract::{Request, State},
    http::{header, StatusCode},
    middleware::Next,
    response::{IntoResponse, Redirect, Response},
    Form,
};
use governor::{DefaultKeyedRateLimiter, Quota, RateLimiter};
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};
use std::{num::NonZeroU32, sync::Arc};
use tower_sessions::{
    cookie::{time::Duration as CookieDuration, SameSite},
    session::{Id, Record},
    session_store, Expiry, Session, SessionManagerLayer, SessionStore,
};

use super::state::AppState;
use crate::domain::{ids::TenantId, policy::Role};
use crate::server::clock::now;
use crate::server::ledger::accounts::check_password;
use crate::server::store::Sessions;

/// The session key under which the signed-in user is kept.
const USER_KEY: &str = "user";
/// The session key of the CSRF token.
const CSRF_KEY: &str = "csrf";

/// How long a session lives without a request.
pub const IDLE_TIMEOUT_MINUTES: i64 = 30;

/// Who is signed in to a session.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SignedIn {
    pub user_id: String,
    pub name: String,
    pub tenant: TenantId,
    pub role: Role,
}

/// Sessions in the ledger's database, stored under a hash of the id the browser holds.
#[derive(Clone)]
pub struct LedgerSessionStore {
    store: Arc<dyn Sessions>,
}

impl std::fmt::Debug for LedgerSessionStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("LedgerSessionStore")
    }
}

fn id_hash(id: &Id) -> String {
    hex::encode(Sha256::digest(id.to_string().as_bytes()))
}

fn backend(error: impl std::fmt::Display) -> session_store::Error {
    session_store::Error::Backend(error.to_string())
}

fn expiry(record: &Record) -> chrono::DateTime<chrono::Utc> {
    chrono::DateTime::from_timestamp(record.expiry_date.unix_timestamp(), 0).unwrap_or_default()
}

fn encode(record: &Record) -> session_store::Result<String> {
    serde_json::to_string(record).map_err(|e| session_store::Error::Encode(e.to_string()))
}

#[async_trait::async_trait]
impl SessionStore for LedgerSessionStore {
    async fn create(&self, record: &mut Record) -> session_store::Result<()> {
        loop {
            let created = self
                .store
                .create_session(&id_hash(&record.id), &encode(record)?, expiry(record))
                .await
                .map_err(backend)?;
            if created {
                return Ok(());
            }
            record.id = Id::default();
        }
    }

    async fn save(&self, record: &Record) -> session_store::Result<()> {
        self.store.save_session(&id_hash(&record.id), &encode(record)?, expiry(record)).await.map_err(backend)
    }

    async fn load(&self, id: &Id) -> session_store::Result<Option<Record>> {
        let data = self.store.load_session(&id_hash(id), now()).await.map_err(backend)?;
        data.map(|text| serde_json::from_str(&text).map_err(|e| session_store::Error::Decode(e.to_string())))
            .transpose()
    }

    async fn delete(&self, id: &Id) -> session_store::Result<()> {
        self.store.delete_session(&id_hash(id)).await.map_err(backend)
    }
}

/// The session layer: cookie `opledger_session`, `HttpOnly`, `SameSite=Strict`, `Secure` when
/// `secure`, expiring after [`IDLE_TIMEOUT_MINUTES`] without a request.
pub fn session_layer(store: Arc<dyn Sessions>, secure: bool) -> SessionManagerLayer<LedgerSessionStore> {
    SessionManagerLayer::new(LedgerSessionStore { store })
        .with_name("opledger_session")
        .with_http_only(true)
        .with_same_site(SameSite::Strict)
        .with_secure(secure)
        .with_expiry(Expiry::OnInactivity(CookieDuration::minutes(IDLE_TIMEOUT_MINUTES)))
}

/// Removes expired sessions every `every` until `stop`.
pub async fn delete_expired_sessions(
    store: Arc<dyn Sessions>,
    every: std::time::Duration,
    stop: tokio_util::sync::CancellationToken,
) {
    loop {
        tokio::select! {
            () = stop.cancelled() => return,
            () = tokio::time::sleep(every) => {}
        }
        if let Err(error) = store.delete_expired_sessions(now()).await {
            tracing::warn!(%error, "could not delete expired sessions");
        }
    }
}

/// Sign-in attempts allowed per user name: a burst of 5, then one every 12 seconds.
pub fn sign_in_limiter() -> Arc<DefaultKeyedRateLimiter<String>> {
    let burst = NonZeroU32::new(5).expect("non-zero");
    Arc::new(RateLimiter::keyed(Quota::per_minute(burst).allow_burst(burst)))
}

/// The session's CSRF token, made on first use.
pub async fn csrf_token(session: &Session) -> Result<String, tower_sessions::session::Error> {
    if let Some(token) = session.get::<String>(CSRF_KEY).await? {
        return Ok(token);
    }
    let token = uuid::Uuid::new_v4().simple().to_string();
    session.insert(CSRF_KEY, &token).await?;
    Ok(token)
}

pub async fn csrf_matches(session: &Session, sent: &str) -> bool {
    matches!(session.get::<String>(CSRF_KEY).await, Ok(Some(token)) if !sent.is_empty() && token == sent)
}

pub async fn signed_in(session: &Session) -> Option<SignedIn> {
    session.get::<SignedIn>(USER_KEY).await.ok().flatten()
}

/// A path to return to after signing in: only paths on this site.
fn local_path(next: Option<&str>) -> &str {
    match next {
        Some(path) if path.starts_with('/') && !path.starts_with("//") && !path.starts_with("/\\") => path,
        _ => "/",
    }
}

fn login_url(problem: &str, username: &str, next: &str) -> String {
    let query = serde_urlencoded::to_string([("error", problem), ("username", username), ("next", next)])
        .unwrap_or_default();
    format!("/login?{query}")
}

#[derive(Debug, Deserialize)]
pub struct SignInForm {
    username: String,
    password: String,
    #[serde(default)]
    csrf: String,
    next: Option<String>,
}

/// `POST /login`: checks the CSRF token, the rate limit and the password; on success starts a
/// new session id (so a planted id is worth nothing) and goes to `next`.
pub async fn sign_in(
    State(state): State<AppState>,
    session: Session,
    Form(form): Form<SignInForm>,
) -> Response {
    let next = local_path(form.next.as_deref()).to_owned();
    let username = form.username.trim().to_owned();
    if !csrf_matches(&session, &form.csrf).await {
        return Redirect::to(&login_url("expired", &username, &next)).into_response();
    }
    if state.sign_in_limiter.check_key(&username.to_lowercase()).is_err() {
        tracing::warn!(user = %username, "sign-in attempts over the limit");
        return Redirect::to(&login_url("too_many", &username, &next)).into_response();
    }
    let user = match check_password(state.ledger.reads().as_ref(), &username, &form.password).await {
        Ok(Some(user)) => user,
        Ok(None) => {
            tracing::info!(user = %username, "sign-in refused");
            return Redirect::to(&login_url("invalid", &username, &next)).into_response();
        }
        Err(error) => {
            tracing::error!(%error, "sign-in could not reach the database");
            return Redirect::to(&login_url("unavailable", &username, &next)).into_response();
        }
    };
    let signed_in = SignedIn { user_id: user.id, name: user.name, tenant: user.tenant, role: user.role };
    let started = async {
        session.cycle_id().await?;
        session.insert(USER_KEY, &signed_in).await?;
        session.insert(CSRF_KEY, uuid::Uuid::new_v4().simple().to_string()).await
    };
    if let Err(error) = started.await {
        tracing::error!(%error, "could not start a session");
        return Redirect::to(&login_url("unavailable", &username, &next)).into_response();
    }
    tracing::info!(user = %signed_in.name, tenant = %signed_in.tenant, "signed in");
    Redirect::to(&next).into_response()
}

#[derive(Debug, Deserialize)]
pub struct SignOutForm {
    #[serde(default)]
    csrf: String,
}

/// `POST /logout`: ends the session (its row is deleted) and goes to the sign-in page.
pub async fn sign_out(session: Session, Form(form): Form<SignOutForm>) -> Response {
    if !csrf_matches(&session, &form.csrf).await {
        return (StatusCode::FORBIDDEN, "This form has expired. Go back, reload the page and try again.")
            .into_response();
    }
    if let Err(error) = session.flush().await {
        tracing::error!(%error, "could not end a session");
    }
    Redirect::to("/login?signed_out=1").into_response()
}

/// Paths anyone may request: the sign-in page, static files, health, the ledger API (its own
/// bearer tokens), the sandbox provider's accounts (`/sandbox/`, and `/sandbox-<name>/` for more
/// accounts; each checks its own secret key), and server functions and live updates (each checks
/// its caller).
fn is_public(path: &str) -> bool {
    path == "/login"
        || path == "/healthz"
        || path == "/favicon.ico"
        || ["/pkg/", "/api/", "/rpc/", "/sandbox/", "/sandbox-", "/live/"]
            .iter()
            .any(|prefix| path.starts_with(prefix))
}

/// Sends a signed-out request for a page to `/login?next=<where it was going>`.
pub async fn redirect_signed_out(session: Session, request: Request, next: Next) -> Response {
    let path = request.uri().path();
    if is_public(path) || signed_in(&session).await.is_some() {
        return next.run(request).await;
    }
    let target = request.uri().path_and_query().map_or("/", |pq| pq.as_str()).to_owned();
    let query = serde_urlencoded::to_string([("next", target.as_str())]).unwrap_or_default();
    let mut response = Redirect::to(&format!("/login?{query}")).into_response();
    response.headers_mut().insert(header::CACHE_CONTROL, header::HeaderValue::from_static("no-store"));
    response
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_local_paths_are_followed_after_sign_in() {
        assert_eq!(local_path(Some("/operations?state=unknown")), "/operations?state=unknown");
        assert_eq!(local_path(Some("https://evil.example/")), "/");
        assert_eq!(local_path(Some("//evil.example/")), "/");
        assert_eq!(local_path(Some("/\\evil.example")), "/");
        assert_eq!(local_path(None), "/");
    }

    #[test]
    fn pages_need_a_session_and_the_api_has_its_own_tokens() {
        for public in [
            "/login",
            "/healthz",
            "/pkg/opledger.js",
            "/api/v1/operations",
            "/rpc/x",
            "/sandbox/v1/refunds",
            "/sandbox-eu/v1/refunds",
        ] {
            assert!(is_public(public), "{public}");
        }
        for page in ["/", "/operations", "/admin", "/login/x", "/loginx", "/apix"] {
            assert!(!is_public(page), "{page}");
        }
    }
}
