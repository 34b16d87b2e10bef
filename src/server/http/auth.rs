//! Signing in to the console: sessions kept in the ledger's database (so every instance shares
//! them, and a person's sessions can be ended at once) whose idle timeout counts from the last
//! request and which end anyway at an absolute deadline, the sign-in and sign-out form handlers,
//! the CSRF token every state-changing form and server function carries (the sign-in form's in a
//! cookie of its own, so an anonymous visit stores nothing), the redirect of signed-out page
//! requests to `/login`. A user with two-factor sign-in gets no session from their password alone:
//! a pending sign-in waits five minutes in the (pre-)session for the second step
//! (`/login/two-factor`), whose code starts the session. A manager or admin whom their tenant
//! requires to use it, and who has not set it up, is signed in to set it up and nothing else. The
//! console's role check (`crate::console::guard`) reads who is signed in from here.

use axum::{
    extract::{rejection::FormRejection, Request, State},
    http::{header, HeaderMap, StatusCode},
    middleware::Next,
    response::{Html, IntoResponse, Redirect, Response},
    Form,
};
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};
use std::sync::Arc;
use tower_sessions::{
    cookie::{time::Duration as CookieDuration, Cookie, SameSite},
    session::{Id, Record},
    session_store, Expiry, Session, SessionManagerLayer, SessionStore,
};

use super::limits::{ClientAddress, OverLimit};
use super::state::AppState;
use crate::domain::{ids::TenantId, language::Language, people::SessionLifetimes, policy::Role};
use crate::server::clock::now;
use crate::server::ledger::accounts::check_password;
use crate::server::ledger::two_factor::TwoFactorError;
use crate::server::store::{records::SessionOwner, Sessions};

/// The session key under which the signed-in user is kept.
const USER_KEY: &str = "user";
/// The session key of the CSRF token.
const CSRF_KEY: &str = "csrf";

/// Who is signed in to a session.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SignedIn {
    pub user_id: String,
    pub name: String,
    pub tenant: TenantId,
    pub role: Role,
    /// The language the user chose; without one, their browser's decides.
    #[serde(default)]
    pub language: Option<Language>,
    /// When the session ends whatever the activity (Unix seconds): sign-in plus the absolute
    /// lifetime.
    #[serde(default)]
    pub until: i64,
}

impl SignedIn {
    /// Whether the session's absolute lifetime is over at `at` (Unix seconds).
    pub fn is_over(&self, at: i64) -> bool {
        at >= self.until
    }
}

/// The session key of a sign-in waiting for its second factor.
const PENDING_KEY: &str = "two_factor_pending";

/// The session key that marks a user who must set up two-factor sign-in before anything else
/// (their tenant requires it of their role): every page goes to `/account`, every server function
/// but their own account's refuses.
const MUST_ENROL_KEY: &str = "must_enrol";

/// Whether the session's user must set up two-factor sign-in before anything else.
pub async fn must_enrol(session: &Session) -> bool {
    session.get::<bool>(MUST_ENROL_KEY).await.ok().flatten().unwrap_or(false)
}

/// The path of a sign-in's second step.
pub const SECOND_STEP_PATH: &str = "/login/two-factor";

/// A sign-in whose password was right, waiting for its second factor until `expires` (Unix
/// seconds). It is no session: [`signed_in`] does not read it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PendingSignIn {
    pub user: SignedIn,
    pub expires: i64,
    /// Where to go once signed in.
    pub next: String,
}

/// The sign-in of `session` waiting for its second factor, unless it expired.
pub async fn pending_sign_in(session: &Session) -> Option<PendingSignIn> {
    session
        .get::<PendingSignIn>(PENDING_KEY)
        .await
        .ok()
        .flatten()
        .filter(|pending| now().timestamp() < pending.expires)
}

/// Notes in `session` that its user set up two-factor sign-in, so they may do everything their
/// role allows again.
pub async fn enrolment_done(session: &Session) -> Result<(), tower_sessions::session::Error> {
    session.remove_value(MUST_ENROL_KEY).await.map(|_| ())
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

/// The signed-in user a session belongs to, if any.
fn owner(record: &Record) -> Option<SessionOwner> {
    let user = serde_json::from_value::<SignedIn>(record.data.get(USER_KEY)?.clone()).ok()?;
    Some(SessionOwner { tenant: user.tenant, user_id: user.user_id })
}

#[async_trait::async_trait]
impl SessionStore for LedgerSessionStore {
    async fn create(&self, record: &mut Record) -> session_store::Result<()> {
        loop {
            let created = self
                .store
                .create_session(
                    &id_hash(&record.id),
                    &encode(record)?,
                    expiry(record),
                    owner(record).as_ref(),
                )
                .await
                .map_err(backend)?;
            if created {
                return Ok(());
            }
            record.id = Id::default();
        }
    }

    async fn save(&self, record: &Record) -> session_store::Result<()> {
        let owner = owner(record);
        self.store
            .save_session(&id_hash(&record.id), &encode(record)?, expiry(record), owner.as_ref())
            .await
            .map_err(backend)
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
/// `secure`, expiring after `idle` without a request.
pub fn session_layer(
    store: Arc<dyn Sessions>,
    secure: bool,
    idle: chrono::Duration,
) -> SessionManagerLayer<LedgerSessionStore> {
    SessionManagerLayer::new(LedgerSessionStore { store })
        .with_name("opledger_session")
        .with_http_only(true)
        .with_same_site(SameSite::Strict)
        .with_secure(secure)
        .with_expiry(Expiry::OnInactivity(CookieDuration::seconds(idle.num_seconds())))
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

/// Who is signed in to `session`, unless its absolute lifetime is over.
pub async fn signed_in(session: &Session) -> Option<SignedIn> {
    session.get::<SignedIn>(USER_KEY).await.ok().flatten().filter(|user| !user.is_over(now().timestamp()))
}

/// Starts a new session for `user` (a new id, so that a planted one is worth nothing, and a new
/// CSRF token), which ends `lifetimes.absolute` from now whatever the activity.
pub async fn start_session(
    session: &Session,
    mut user: SignedIn,
    lifetimes: SessionLifetimes,
) -> Result<(), tower_sessions::session::Error> {
    user.until = (now() + lifetimes.absolute).timestamp();
    session.cycle_id().await?;
    session.remove_value(PENDING_KEY).await?;
    session.remove_value(MUST_ENROL_KEY).await?;
    session.insert(USER_KEY, &user).await?;
    session.insert(CSRF_KEY, uuid::Uuid::new_v4().simple().to_string()).await
}

/// A path to return to after signing in: only paths on this site, as a browser reads them.
/// Browsers drop tabs and line breaks anywhere in a URL and read a backslash as `/`, so
/// `/<tab>/evil.example` means `//evil.example`, another site: a path with a control character,
/// white space or a backslash is refused, and so is one that starts with `//`.
fn local_path(next: Option<&str>) -> &str {
    match next {
        Some(path)
            if path.starts_with('/')
                && !path.starts_with("//")
                && !path.chars().any(|c| c.is_control() || c.is_whitespace() || c == '\\') =>
        {
            path
        }
        _ => "/",
    }
}

/// The language a browser asks for in `Accept-Language`, English when it names none of ours.
pub fn browser_language(headers: &HeaderMap) -> Language {
    headers
        .get(header::ACCEPT_LANGUAGE)
        .and_then(|value| value.to_str().ok())
        .and_then(Language::from_accept_language)
        .unwrap_or_default()
}

fn login_url(problem: &str, username: &str, tenant: &str, next: &str) -> String {
    let mut fields = vec![("error", problem), ("username", username)];
    if !tenant.is_empty() {
        fields.push(("tenant", tenant));
    }
    fields.push(("next", next));
    let query = serde_urlencoded::to_string(fields).unwrap_or_default();
    format!("/login?{query}")
}

#[derive(Debug, Default, Deserialize)]
#[serde(default)]
pub struct SignInForm {
    /// The tenant, needed only when the name is used in more than one.
    tenant: String,
    username: String,
    password: String,
    csrf: String,
    next: Option<String>,
}

/// The cookie that holds the sign-in form's CSRF token. The form sends it back as a field (a
/// double submit), so a visit to the sign-in page stores nothing on the server.
const SIGN_IN_COOKIE: &str = "opledger_sign_in";

/// The value of the cookie `name` the browser sends, if it is `len` hexadecimal digits.
pub fn hex_cookie_in(headers: &HeaderMap, name: &str, len: usize) -> Option<String> {
    headers
        .get_all(header::COOKIE)
        .iter()
        .filter_map(|value| value.to_str().ok())
        .flat_map(Cookie::split_parse)
        .filter_map(Result::ok)
        .find(|cookie| cookie.name() == name)
        .map(|cookie| cookie.value().to_owned())
        .filter(|value| value.len() == len && value.chars().all(|c| c.is_ascii_hexdigit()))
}

/// The sign-in token the browser holds, if it holds a well-formed one.
pub fn sign_in_token_in(headers: &HeaderMap) -> Option<String> {
    hex_cookie_in(headers, SIGN_IN_COOKIE, 32)
}

/// A new sign-in token and the `Set-Cookie` value that gives it to the browser (`HttpOnly`,
/// `SameSite=Strict`, for `/login` only, `Secure` when `secure`).
pub fn new_sign_in_token(secure: bool) -> (String, String) {
    let token = uuid::Uuid::new_v4().simple().to_string();
    let cookie = Cookie::build((SIGN_IN_COOKIE, token.clone()))
        .path("/login")
        .http_only(true)
        .same_site(SameSite::Strict)
        .secure(secure)
        .build();
    (token, cookie.to_string())
}

/// The answer to a sign-in over the limits: 429 with `Retry-After`, in words.
fn too_many_sign_ins(over: OverLimit) -> Response {
    let seconds = over.retry_after_seconds();
    let page = format!(
        "<!DOCTYPE html><html lang=\"en\"><head><meta charset=\"utf-8\"><title>Too many sign-in attempts · opledger</title></head>\
         <body><h1>Too many sign-in attempts</h1><p>Wait {seconds} seconds, then <a href=\"/login\">try again</a>.</p></body></html>"
    );
    let mut response = (StatusCode::TOO_MANY_REQUESTS, Html(page)).into_response();
    response.headers_mut().insert(header::RETRY_AFTER, header::HeaderValue::from(seconds));
    response
}

/// `POST /login`: checks the form's CSRF token against the sign-in cookie, the limits per client
/// address and per address and name, and the password; on success starts a new session (so a
/// planted id is worth nothing) and goes to `next`.
pub async fn sign_in(
    State(state): State<AppState>,
    ClientAddress(address): ClientAddress,
    session: Session,
    headers: HeaderMap,
    form: Result<Form<SignInForm>, FormRejection>,
) -> Response {
    let Ok(Form(form)) = form else {
        return (
            StatusCode::BAD_REQUEST,
            "The sign-in form could not be read. Go back, reload the page and try again.",
        )
            .into_response();
    };
    let next = local_path(form.next.as_deref()).to_owned();
    let username = form.username.trim().to_owned();
    let tenant_text = form.tenant.trim().to_owned();
    if form.csrf.is_empty() || sign_in_token_in(&headers).as_deref() != Some(form.csrf.as_str()) {
        state.ledger.metrics().sign_in_failed("expired_form");
        return Redirect::to(&login_url("expired", &username, &tenant_text, &next)).into_response();
    }
    if let Err(over) = state.limits.sign_in(address, &username) {
        state.ledger.metrics().sign_in_failed("rate_limited");
        tracing::warn!(user = ?username, %address, "sign-in attempts over the limit");
        return too_many_sign_ins(over);
    }
    let tenant = match tenant_text.as_str() {
        "" => None,
        given => match TenantId::parse(given) {
            Ok(tenant) => Some(tenant),
            Err(_) => {
                state.ledger.metrics().sign_in_failed("wrong_credentials");
                return Redirect::to(&login_url("invalid", &username, &tenant_text, &next)).into_response();
            }
        },
    };
    let reads = state.ledger.reads();
    let user = match check_password(reads.as_ref(), tenant.as_ref(), &username, &form.password).await {
        Ok(Some(user)) => user,
        Ok(None) => {
            state.ledger.metrics().sign_in_failed("wrong_credentials");
            tracing::info!(user = ?username, %address, "sign-in refused");
            return Redirect::to(&login_url("invalid", &username, &tenant_text, &next)).into_response();
        }
        Err(error) => {
            tracing::error!(%error, "sign-in could not reach the database");
            return Redirect::to(&login_url("unavailable", &username, &tenant_text, &next)).into_response();
        }
    };
    match state.ledger.local_password_allowed(&user.tenant, &user.name).await {
        Ok(true) => {}
        Ok(false) => {
            state.ledger.metrics().sign_in_failed("sso_only");
            tracing::info!(user = ?username, tenant = %user.tenant, "password sign-in refused: the tenant signs in through its identity provider");
            return Redirect::to(&login_url("sso_only", &username, &tenant_text, &next)).into_response();
        }
        Err(error) => {
            tracing::error!(%error, "sign-in could not reach the database");
            return Redirect::to(&login_url("unavailable", &username, &tenant_text, &next)).into_response();
        }
    }
    let must_enrol = match state.ledger.must_enrol(&user).await {
        Ok(must) => must,
        Err(error) => {
            tracing::error!(%error, "sign-in could not read the tenant's two-factor requirement");
            return Redirect::to(&login_url("unavailable", &username, &tenant_text, &next)).into_response();
        }
    };
    let has_two_factor = user.has_two_factor();
    let signed_in = SignedIn {
        user_id: user.id,
        name: user.name,
        tenant: user.tenant,
        role: user.role,
        language: user.language,
        until: 0,
    };
    if has_two_factor {
        return await_second_factor(&session, signed_in, next).await;
    }
    let next = if must_enrol { ACCOUNT_PATH.to_owned() } else { next };
    signed_in_to(&state, &session, signed_in, &next, must_enrol).await
}

/// The page where a person sets up their own two-factor sign-in.
pub const ACCOUNT_PATH: &str = "/account";

/// Keeps `user`'s sign-in waiting for its second factor (a new session id, a new CSRF token for
/// the second step's form, no session yet) and goes to the second step.
async fn await_second_factor(session: &Session, user: SignedIn, next: String) -> Response {
    let expires =
        (now() + chrono::Duration::seconds(crate::domain::two_factor::SECOND_STEP_SECONDS)).timestamp();
    let name = user.name.clone();
    let pending = PendingSignIn { user, expires, next: next.clone() };
    let kept = async {
        session.cycle_id().await?;
        session.insert(PENDING_KEY, &pending).await?;
        session.insert(CSRF_KEY, uuid::Uuid::new_v4().simple().to_string()).await
    };
    if let Err(error) = kept.await {
        tracing::error!(%error, "could not keep a sign-in waiting for its second factor");
        return Redirect::to(&login_url("unavailable", &name, "", &next)).into_response();
    }
    tracing::info!(user = ?name, "password right; waiting for the second factor");
    let mut response = Redirect::to(SECOND_STEP_PATH).into_response();
    response.headers_mut().insert(header::CACHE_CONTROL, header::HeaderValue::from_static("no-store"));
    response
}

/// Starts the session of `signed_in` (marked when they must set up two-factor sign-in first),
/// notes the sign-in and goes to `next`.
async fn signed_in_to(
    state: &AppState,
    session: &Session,
    signed_in: SignedIn,
    next: &str,
    must_enrol: bool,
) -> Response {
    let started = async {
        start_session(session, signed_in.clone(), state.session_lifetimes).await?;
        if must_enrol {
            session.insert(MUST_ENROL_KEY, true).await?;
        }
        Ok::<_, tower_sessions::session::Error>(())
    };
    if let Err(error) = started.await {
        tracing::error!(%error, "could not start a session");
        return Redirect::to(&login_url("unavailable", &signed_in.name, signed_in.tenant.as_str(), next))
            .into_response();
    }
    if let Err(error) = state.ledger.record_sign_in(&signed_in.tenant, &signed_in.user_id).await {
        tracing::warn!(%error, "could not note a sign-in");
    }
    tracing::info!(user = ?signed_in.name, tenant = %signed_in.tenant, must_enrol, "signed in");
    Redirect::to(next).into_response()
}

#[derive(Debug, Default, Deserialize)]
#[serde(default)]
pub struct SecondStepForm {
    csrf: String,
    code: String,
}

/// The second step's page again with the problem `error`.
fn second_step_again(error: &str) -> Response {
    let query = serde_urlencoded::to_string([("error", error)]).unwrap_or_default();
    Redirect::to(&format!("{SECOND_STEP_PATH}?{query}")).into_response()
}

/// `POST /login/two-factor`: the second step of a sign-in. With the pending sign-in of this
/// session (five minutes after the password), its CSRF token, within the sign-in limits (every
/// attempt counts, as a password's does: 429 with `Retry-After` beyond them), a current TOTP code
/// not used before or an unused recovery code starts the session and goes where the sign-in was
/// going. Anything else starts nothing.
pub async fn second_step(
    State(state): State<AppState>,
    ClientAddress(address): ClientAddress,
    session: Session,
    form: Result<Form<SecondStepForm>, FormRejection>,
) -> Response {
    let Ok(Form(form)) = form else { return second_step_again("unreadable") };
    let Some(pending) = pending_sign_in(&session).await else {
        state.ledger.metrics().sign_in_failed("expired_form");
        return Redirect::to("/login?error=two_factor_expired").into_response();
    };
    if !csrf_matches(&session, &form.csrf).await {
        state.ledger.metrics().sign_in_failed("expired_form");
        return second_step_again("expired");
    }
    let user = pending.user;
    if let Err(over) = state.limits.sign_in(address, &user.name) {
        state.ledger.metrics().sign_in_failed("rate_limited");
        tracing::warn!(user = ?user.name, %address, "second-factor attempts over the limit");
        return too_many_sign_ins(over);
    }
    match state.ledger.second_factor(&user.tenant, &user.user_id, &user.name, &form.code).await {
        Ok(Some(_)) => signed_in_to(&state, &session, user, local_path(Some(&pending.next)), false).await,
        Ok(None) | Err(TwoFactorError::NotOn | TwoFactorError::NoSuchUser) => {
            state.ledger.metrics().sign_in_failed("wrong_second_factor");
            tracing::info!(user = ?user.name, %address, "second factor refused");
            second_step_again("invalid")
        }
        Err(error) => {
            tracing::error!(%error, "could not check a second factor");
            second_step_again("unavailable")
        }
    }
}

#[derive(Debug, Deserialize)]
pub struct SignOutForm {
    #[serde(default)]
    csrf: String,
}

/// `POST /logout`: ends the session (its row is deleted) and goes to the sign-in page.
pub async fn sign_out(session: Session, form: Result<Form<SignOutForm>, FormRejection>) -> Response {
    let csrf = form.map(|Form(form)| form.csrf).unwrap_or_default();
    if !csrf_matches(&session, &csrf).await {
        return (StatusCode::FORBIDDEN, "This form has expired. Go back, reload the page and try again.")
            .into_response();
    }
    if let Err(error) = session.flush().await {
        tracing::error!(%error, "could not end a session");
    }
    Redirect::to("/login?signed_out=1").into_response()
}

/// The language form in the page header: a language's tag, or nothing to follow the browser.
#[derive(Debug, Deserialize)]
pub struct LanguageForm {
    #[serde(default)]
    csrf: String,
    #[serde(default)]
    language: String,
    #[serde(default)]
    next: Option<String>,
}

/// `POST /language`: keeps the signed-in user's choice of language (on their user, so every
/// session and instance has it, and in this session) and goes back to the page they were on.
pub async fn choose_language(
    State(state): State<AppState>,
    session: Session,
    form: Result<Form<LanguageForm>, FormRejection>,
) -> Response {
    let Ok(Form(form)) = form else {
        return (
            StatusCode::BAD_REQUEST,
            "The language form could not be read. Reload the page and try again.",
        )
            .into_response();
    };
    if !csrf_matches(&session, &form.csrf).await {
        return (StatusCode::FORBIDDEN, "This form has expired. Go back, reload the page and try again.")
            .into_response();
    }
    let Some(mut user) = signed_in(&session).await else {
        return Redirect::to("/login").into_response();
    };
    let language = match form.language.as_str() {
        "" => None,
        tag => match Language::parse(tag) {
            Some(language) => Some(language),
            None => {
                return (StatusCode::BAD_REQUEST, "This language is not one of the console's.")
                    .into_response()
            }
        },
    };
    let stored =
        state.ledger.set_user_language(&user.tenant, &user.user_id, language, &user.name, user.role).await;
    if let Err(error) = stored {
        tracing::error!(%error, "could not keep a user's language");
        return (
            StatusCode::SERVICE_UNAVAILABLE,
            "The server could not reach its database. Try again in a moment.",
        )
            .into_response();
    }
    user.language = language;
    if let Err(error) = session.insert(USER_KEY, &user).await {
        tracing::error!(%error, "could not keep a user's language in their session");
    }
    let mut response = Redirect::to(local_path(form.next.as_deref())).into_response();
    response.headers_mut().insert(header::CACHE_CONTROL, header::HeaderValue::from_static("no-store"));
    response
}

/// Paths that never read a console session: static files, health, metrics (their own token), the
/// ledger API (its own bearer tokens), the sandbox provider's accounts (`/sandbox/`, and
/// `/sandbox-<name>/` for more accounts; each checks its own secret key) and identity providers'
/// back-channel logouts (a signed token).
fn is_sessionless(path: &str) -> bool {
    path == "/healthz"
        || path == "/metrics"
        || path == "/favicon.ico"
        || path == "/mcp"
        || ["/pkg/", "/api/", "/webhooks/", "/sandbox/", "/sandbox-", "/oidc/backchannel-logout/"]
            .iter()
            .any(|prefix| path.starts_with(prefix))
}

/// Paths anyone may request: the sessionless ones, the sign-in page, the company sign-in and the
/// identity provider's return (`/oidc/`), the page a password reset link opens (its secret is the
/// key), and server functions and live updates (each checks its caller).
fn is_public(path: &str) -> bool {
    is_sessionless(path)
        || path == "/login"
        || path == "/login/sso"
        || path == SECOND_STEP_PATH
        || path == "/password-reset"
        || ["/rpc/", "/live/", "/oidc/"].iter().any(|prefix| path.starts_with(prefix))
}

/// What a user who must set up two-factor sign-in may still open: their account page, signing
/// out, the public pages and the server functions (each of which refuses them but the set-up's,
/// in [`crate::console::guard`]).
fn open_before_enrolment(path: &str) -> bool {
    path == ACCOUNT_PATH || path == "/logout" || path == "/language" || is_public(path)
}

/// The session key of the time (Unix seconds) a signed-in session was last seen.
const SEEN_KEY: &str = "seen";

/// How often a session in use is saved again, which moves its expiry: at most once a minute.
const SEEN_EVERY_SECONDS: i64 = 60;

/// Keeps a signed-in session alive: the idle timeout counts from the last request, not from
/// sign-in. The session is written again only when it was last seen a minute ago or more.
async fn keep_alive(session: &Session) {
    let at = now().timestamp();
    let seen = session.get::<i64>(SEEN_KEY).await.ok().flatten().unwrap_or(0);
    if at - seen >= SEEN_EVERY_SECONDS {
        if let Err(error) = session.insert(SEEN_KEY, at).await {
            tracing::warn!(%error, "could not keep a session alive");
        }
    }
}

/// Whether the session with `id` is still signed in, read again from the store (a long-lived
/// request, such as live updates, outlives what it read at its start).
pub async fn still_signed_in(sessions: &dyn Sessions, id: Option<Id>) -> bool {
    let Some(id) = id else { return false };
    match sessions.load_session(&id_hash(&id), now()).await {
        Ok(Some(text)) => {
            let at = now().timestamp();
            serde_json::from_str::<Record>(&text).is_ok_and(|record| {
                record
                    .data
                    .get(USER_KEY)
                    .cloned()
                    .and_then(|user| serde_json::from_value::<SignedIn>(user).ok())
                    .is_some_and(|user| !user.is_over(at))
            })
        }
        Ok(None) => false,
        Err(error) => {
            tracing::warn!(%error, "could not read a session again; keeping the stream open");
            true
        }
    }
}

/// Keeps signed-in sessions alive, gives each console request its language (the user's choice,
/// else the browser's `Accept-Language`, else English), and sends a signed-out request for a page
/// to `/login?next=<where it was going>`.
pub async fn redirect_signed_out(session: Session, mut request: Request, next: Next) -> Response {
    let path = request.uri().path();
    if is_sessionless(path) {
        return next.run(request).await;
    }
    let user = signed_in(&session).await;
    let is_signed_in = user.is_some();
    let must_enrol = is_signed_in && must_enrol(&session).await;
    if is_signed_in {
        keep_alive(&session).await;
    } else if session.get::<SignedIn>(USER_KEY).await.ok().flatten().is_some() {
        if let Err(error) = session.flush().await {
            tracing::warn!(%error, "could not end a session past its absolute lifetime");
        }
    }
    let language = user.and_then(|user| user.language).unwrap_or_else(|| browser_language(request.headers()));
    request.extensions_mut().insert(language);
    let path = request.uri().path();
    if must_enrol && !open_before_enrolment(path) {
        let mut response = Redirect::to(ACCOUNT_PATH).into_response();
        response.headers_mut().insert(header::CACHE_CONTROL, header::HeaderValue::from_static("no-store"));
        return response;
    }
    if is_signed_in || is_public(path) {
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
        assert_eq!(local_path(Some("/\t/evil.example/")), "/");
        assert_eq!(local_path(Some("/\r\n/evil.example/")), "/");
        assert_eq!(local_path(Some("/ops\r\nSet-Cookie: x=1")), "/");
        assert_eq!(local_path(Some("/a\\\\evil.example")), "/");
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
        for page in ["/", "/operations", "/admin", "/login/x", "/loginx", "/apix", "/account"] {
            assert!(!is_public(page), "{page}");
        }
        assert!(is_public(SECOND_STEP_PATH));
    }

    #[test]
    fn a_user_who_must_enrol_reaches_their_account_page_and_nothing_else() {
        for open in [ACCOUNT_PATH, "/logout", "/login", "/rpc/start_two_factor", "/pkg/opledger.js"] {
            assert!(open_before_enrolment(open), "{open}");
        }
        for closed in ["/", "/operations", "/admin", "/approvals", "/export/audit.csv", "/account/x"] {
            assert!(!open_before_enrolment(closed), "{closed}");
        }
    }
}
