//! A tenant's identity provider, as opledger (the relying party) talks to it over OpenID Connect:
//! discovery of its configuration and keys, the authorization URL (code flow with PKCE S256, a
//! state and a nonce), the exchange of a code for an ID token checked against the provider's keys
//! (issuer, audience, expiry, nonce), and the check of a Back-Channel Logout 1.0 logout token. Every
//! request goes through the egress policy (each URL checked, names resolved through it, no
//! redirect followed). What this process learnt of an issuer (configuration and keys) is kept ten
//! minutes; a signature that its keys do not verify makes it learn them again once (the provider
//! rotated its keys) before the token is refused.

use base64::Engine as _;
use openidconnect::core::{
    CoreAuthenticationFlow, CoreClient, CoreJsonWebKey, CoreJwsSigningAlgorithm, CoreProviderMetadata,
};
use openidconnect::{
    AuthorizationCode, ClaimsVerificationError, ClientId, ClientSecret, CsrfToken, EndpointMaybeSet,
    EndpointNotSet, EndpointSet, HttpRequest, HttpResponse, IssuerUrl, JsonWebKey, Nonce, PkceCodeChallenge,
    PkceCodeVerifier, RedirectUrl, Scope, TokenResponse,
};
use serde_json::{Map, Value};
use std::collections::HashMap;
use std::sync::{Arc, LazyLock, Mutex};
use std::time::{Duration, Instant};

use crate::server::egress::EgressPolicy;

/// How long a request to a provider may take.
const TIMEOUT: Duration = Duration::from_secs(10);
/// How long what was learnt of an issuer is used before it is learnt again.
const KEEP_FOR: Duration = Duration::from_secs(600);
/// The event claim a logout token carries (OpenID Connect Back-Channel Logout 1.0, section 2.4).
pub const BACKCHANNEL_LOGOUT_EVENT: &str = "http://schemas.openid.net/event/backchannel-logout";
/// How far in the future or past a logout token's `iat` may be.
const LOGOUT_TOKEN_WINDOW_SECONDS: i64 = 300;

/// Why talking to a provider failed, in a sentence an admin can act on.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum OidcError {
    /// The egress policy does not let the URL be reached.
    #[error("the URL is refused: {0}")]
    Refused(String),
    /// The provider did not answer, or not with an OpenID configuration.
    #[error("{0}")]
    Unreachable(String),
    /// The provider refused the code (used, expired, or not for this verifier).
    #[error("the provider refused the sign-in code: {0}")]
    CodeRefused(String),
    /// The ID token (or logout token) does not pass a check.
    #[error("the token is not valid: {0}")]
    InvalidToken(String),
}

/// The error of a request the egress policy refused or that failed.
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
pub struct RequestFailed(String);

/// Sends `request` with a client made for its URL by `policy`.
async fn send(policy: EgressPolicy, request: HttpRequest) -> Result<HttpResponse, RequestFailed> {
    let url = request.uri().to_string();
    let client = policy
        .client(&url, TIMEOUT, TIMEOUT)
        .map_err(|why| RequestFailed(format!("{url} is refused: {why}")))?;
    let request = reqwest::Request::try_from(request).map_err(|error| RequestFailed(error.to_string()))?;
    let response = client.execute(request).await.map_err(|error| {
        let cause = std::error::Error::source(&error).map(|cause| format!(" ({cause})")).unwrap_or_default();
        RequestFailed(format!("{url} did not answer: {error}{cause}"))
    })?;
    let mut answer = openidconnect::http::Response::builder().status(response.status());
    for (name, value) in response.headers() {
        answer = answer.header(name, value);
    }
    let body = response.bytes().await.map_err(|error| RequestFailed(error.to_string()))?;
    answer.body(body.to_vec()).map_err(|error| RequestFailed(error.to_string()))
}

/// What this process learnt of each issuer, and when.
static LEARNT: LazyLock<Mutex<HashMap<String, (Instant, Arc<CoreProviderMetadata>)>>> =
    LazyLock::new(|| Mutex::new(HashMap::new()));

/// The configuration and keys of `issuer`, as learnt within [`KEEP_FOR`], or learnt now (`again`:
/// learnt now whatever was kept). The issuer must name itself exactly as given.
pub async fn discover(
    policy: &EgressPolicy,
    issuer: &str,
    again: bool,
) -> Result<Arc<CoreProviderMetadata>, OidcError> {
    if !again {
        let kept = LEARNT.lock().map(|learnt| learnt.get(issuer).cloned()).unwrap_or(None);
        if let Some((at, metadata)) = kept {
            if at.elapsed() < KEEP_FOR {
                return Ok(metadata);
            }
        }
    }
    policy.check_url(issuer).await.map_err(OidcError::Refused)?;
    let issuer_url = IssuerUrl::new(issuer.to_owned())
        .map_err(|_| OidcError::Unreachable(format!("{issuer:?} is not a URL")))?;
    let http = |request: HttpRequest| send(policy.clone(), request);
    let metadata = CoreProviderMetadata::discover_async(issuer_url, &http).await.map_err(|error| {
        let cause = std::error::Error::source(&error).map(|cause| format!(": {cause}")).unwrap_or_default();
        OidcError::Unreachable(format!(
            "the issuer {issuer} gave no usable OpenID configuration at {issuer}/.well-known/openid-configuration ({error}{cause})"
        ))
    })?;
    let metadata = Arc::new(metadata);
    if let Ok(mut learnt) = LEARNT.lock() {
        learnt.insert(issuer.to_owned(), (Instant::now(), metadata.clone()));
    }
    Ok(metadata)
}

/// The client a tenant registered at its provider.
#[derive(Clone)]
pub struct RelyingParty {
    pub issuer: String,
    pub client_id: String,
    pub client_secret: String,
    /// Where the provider sends the person back: `<console>/oidc/callback`.
    pub redirect_uri: String,
}

impl std::fmt::Debug for RelyingParty {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RelyingParty")
            .field("issuer", &self.issuer)
            .field("client_id", &self.client_id)
            .field("redirect_uri", &self.redirect_uri)
            .finish_non_exhaustive()
    }
}

/// A sign-in sent to the provider: where to send the browser, and what to keep until it comes back.
pub struct Authorization {
    pub url: String,
    pub state: String,
    pub nonce: String,
    pub pkce_verifier: String,
}

/// What a checked ID token says of the person.
#[derive(Debug, Clone)]
pub struct SignedInPerson {
    /// The issuer and the subject, as one key: `<issuer>|<sub>`.
    pub subject: String,
    pub email: Option<String>,
    /// The provider says the e-mail is not verified.
    pub email_unverified: bool,
    /// Every claim of the token, to read the groups claim the tenant names.
    pub claims: Map<String, Value>,
}

/// The key a person is known by within a tenant: the issuer and their subject there.
pub fn subject_key(issuer: &str, sub: &str) -> String {
    format!("{issuer}|{sub}")
}

/// The client discovery gives: an authorization endpoint, maybe a token and a userinfo endpoint.
type DiscoveredClient = CoreClient<
    EndpointSet,
    EndpointNotSet,
    EndpointNotSet,
    EndpointNotSet,
    EndpointMaybeSet,
    EndpointMaybeSet,
>;

fn client(metadata: &CoreProviderMetadata, party: &RelyingParty) -> Result<DiscoveredClient, OidcError> {
    let redirect = RedirectUrl::new(party.redirect_uri.clone())
        .map_err(|_| OidcError::Unreachable(format!("{:?} is not a URL", party.redirect_uri)))?;
    Ok(CoreClient::from_provider_metadata(
        metadata.clone(),
        ClientId::new(party.client_id.clone()),
        Some(ClientSecret::new(party.client_secret.clone())),
    )
    .set_redirect_uri(redirect))
}

/// The authorization request for `party`: code flow, PKCE S256, a fresh state and nonce, and the
/// scopes `openid email profile` plus `extra_scopes` the provider supports.
pub async fn authorize(
    policy: &EgressPolicy,
    party: &RelyingParty,
    extra_scopes: &[&str],
) -> Result<Authorization, OidcError> {
    let metadata = discover(policy, &party.issuer, false).await?;
    let client = client(&metadata, party)?;
    let (challenge, verifier) = PkceCodeChallenge::new_random_sha256();
    let supported: Vec<String> = metadata
        .scopes_supported()
        .map(|scopes| scopes.iter().map(|scope| scope.as_str().to_owned()).collect())
        .unwrap_or_default();
    let mut request = client
        .authorize_url(CoreAuthenticationFlow::AuthorizationCode, CsrfToken::new_random, Nonce::new_random)
        .add_scope(Scope::new("email".into()))
        .add_scope(Scope::new("profile".into()))
        .set_pkce_challenge(challenge);
    for scope in extra_scopes {
        if supported.iter().any(|known| known == scope) {
            request = request.add_scope(Scope::new((*scope).to_owned()));
        }
    }
    let (url, state, nonce) = request.url();
    Ok(Authorization {
        url: url.to_string(),
        state: state.secret().clone(),
        nonce: nonce.secret().clone(),
        pkce_verifier: verifier.secret().clone(),
    })
}

/// The claims of a compact JWT, read without any check (call it on a token already checked).
fn payload_of(token: &str) -> Result<Map<String, Value>, OidcError> {
    let part = token.split('.').nth(1).ok_or_else(|| OidcError::InvalidToken("not a JWT".into()))?;
    let bytes = base64::engine::general_purpose::URL_SAFE_NO_PAD
        .decode(part.trim_end_matches('='))
        .map_err(|_| OidcError::InvalidToken("its claims are not base64url".into()))?;
    serde_json::from_slice(&bytes)
        .map_err(|_| OidcError::InvalidToken("its claims are not a JSON object".into()))
}

fn is_key_problem(error: &ClaimsVerificationError) -> bool {
    matches!(error, ClaimsVerificationError::SignatureVerification(_))
}

/// Exchanges `code` (with the PKCE verifier kept since the authorization) for an ID token, and
/// checks it: signature against the provider's keys (learnt again once when they do not verify
/// it), issuer, audience, expiry and `nonce`.
pub async fn sign_in(
    policy: &EgressPolicy,
    party: &RelyingParty,
    code: &str,
    pkce_verifier: &str,
    nonce: &str,
) -> Result<SignedInPerson, OidcError> {
    let metadata = discover(policy, &party.issuer, false).await?;
    let token_client = client(&metadata, party)?;
    let http = |request: HttpRequest| send(policy.clone(), request);
    let response = token_client
        .exchange_code(AuthorizationCode::new(code.to_owned()))
        .map_err(|error| OidcError::Unreachable(format!("the provider names no token endpoint ({error})")))?
        .set_pkce_verifier(PkceCodeVerifier::new(pkce_verifier.to_owned()))
        .request_async(&http)
        .await
        .map_err(|error| match error {
            openidconnect::RequestTokenError::ServerResponse(answer) => {
                OidcError::CodeRefused(answer.to_string())
            }
            other => OidcError::Unreachable(format!("the token endpoint failed: {other}")),
        })?;
    let id_token =
        response.id_token().ok_or_else(|| OidcError::InvalidToken("the provider sent no ID token".into()))?;
    let nonce = Nonce::new(nonce.to_owned());
    let verified = match id_token.claims(&token_client.id_token_verifier(), &nonce) {
        Ok(claims) => Ok(claims.clone()),
        Err(error) if is_key_problem(&error) => {
            let metadata = discover(policy, &party.issuer, true).await?;
            let again = client(&metadata, party)?;
            let verifier = again.id_token_verifier();
            id_token.claims(&verifier, &nonce).cloned()
        }
        Err(error) => Err(error),
    };
    let claims = verified.map_err(|error| OidcError::InvalidToken(error.to_string()))?;
    let raw = payload_of(&id_token.to_string())?;
    Ok(SignedInPerson {
        subject: subject_key(&party.issuer, claims.subject().as_str()),
        email: claims.email().map(|email| email.as_str().to_owned()),
        email_unverified: claims.email_verified() == Some(false),
        claims: raw,
    })
}

/// Whom a checked logout token signs out: the subject (as [`subject_key`]) and/or the provider's
/// session id.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LoggedOut {
    pub subject: Option<String>,
    pub sid: Option<String>,
}

/// Checks a logout token (OpenID Connect Back-Channel Logout 1.0, section 2.6): a JWS signed by a
/// key of the provider (learnt again once when none verifies it), `iss` the issuer, `aud` the
/// client, `iat` within five minutes of `now_unix`, not expired, the back-channel logout event,
/// `sub` or `sid`, and no `nonce`.
pub async fn check_logout_token(
    policy: &EgressPolicy,
    party: &RelyingParty,
    token: &str,
    now_unix: i64,
) -> Result<LoggedOut, OidcError> {
    let metadata = discover(policy, &party.issuer, false).await?;
    if verify_signature(&metadata, token).is_err() {
        let metadata = discover(policy, &party.issuer, true).await?;
        verify_signature(&metadata, token)?;
    }
    let claims = payload_of(token)?;
    logout_claims(&claims, party, now_unix)
}

/// The rules of a logout token's claims, its signature already checked.
fn logout_claims(
    claims: &Map<String, Value>,
    party: &RelyingParty,
    now_unix: i64,
) -> Result<LoggedOut, OidcError> {
    let invalid = |why: &str| Err(OidcError::InvalidToken(why.to_owned()));
    if claims.get("iss").and_then(Value::as_str) != Some(party.issuer.as_str()) {
        return invalid("its issuer is not the tenant's provider");
    }
    let audience_matches = match claims.get("aud") {
        Some(Value::String(aud)) => *aud == party.client_id,
        Some(Value::Array(auds)) => auds.iter().any(|aud| aud.as_str() == Some(party.client_id.as_str())),
        _ => false,
    };
    if !audience_matches {
        return invalid("it is not meant for this client");
    }
    match claims.get("iat").and_then(Value::as_i64) {
        Some(iat) if (iat - now_unix).abs() <= LOGOUT_TOKEN_WINDOW_SECONDS => {}
        Some(_) => return invalid("it was issued too long ago, or in the future"),
        None => return invalid("it has no issue time"),
    }
    if claims.get("exp").and_then(Value::as_i64).is_some_and(|exp| exp <= now_unix) {
        return invalid("it has expired");
    }
    if !claims
        .get("events")
        .and_then(|events| events.get(BACKCHANNEL_LOGOUT_EVENT))
        .is_some_and(Value::is_object)
    {
        return invalid("it carries no back-channel logout event");
    }
    if claims.contains_key("nonce") {
        return invalid("it carries a nonce, which a logout token never does");
    }
    let subject = claims.get("sub").and_then(Value::as_str).map(|sub| subject_key(&party.issuer, sub));
    let sid = claims.get("sid").and_then(Value::as_str).map(str::to_owned);
    if subject.is_none() && sid.is_none() {
        return invalid("it names neither a subject nor a session");
    }
    Ok(LoggedOut { subject, sid })
}

/// Checks a compact JWS against the provider's published keys: an asymmetric algorithm, and a key
/// (of the token's `kid`, when it names one) whose signature verifies.
fn verify_signature(metadata: &CoreProviderMetadata, token: &str) -> Result<(), OidcError> {
    let invalid = |why: &str| OidcError::InvalidToken(why.to_owned());
    let mut parts = token.split('.');
    let (Some(header), Some(payload), Some(signature), None) =
        (parts.next(), parts.next(), parts.next(), parts.next())
    else {
        return Err(invalid("it is not a signed JWT"));
    };
    let decode =
        |part: &str| base64::engine::general_purpose::URL_SAFE_NO_PAD.decode(part.trim_end_matches('='));
    let header: Map<String, Value> = decode(header)
        .ok()
        .and_then(|bytes| serde_json::from_slice(&bytes).ok())
        .ok_or_else(|| invalid("its header cannot be read"))?;
    let alg: CoreJwsSigningAlgorithm = header
        .get("alg")
        .cloned()
        .and_then(|alg| serde_json::from_value(alg).ok())
        .ok_or_else(|| invalid("its signing algorithm is unknown"))?;
    if matches!(
        alg,
        CoreJwsSigningAlgorithm::HmacSha256
            | CoreJwsSigningAlgorithm::HmacSha384
            | CoreJwsSigningAlgorithm::HmacSha512
    ) {
        return Err(invalid("it is signed with a shared secret, not the provider's key"));
    }
    let kid = header.get("kid").and_then(Value::as_str);
    let signature = decode(signature).map_err(|_| invalid("its signature is not base64url"))?;
    let message = format!("{}.{payload}", token.split('.').next().unwrap_or_default());
    let keys: Vec<&CoreJsonWebKey> = metadata
        .jwks()
        .keys()
        .iter()
        .filter(|key| kid.is_none_or(|kid| key.key_id().is_some_and(|id| id.as_str() == kid)))
        .collect();
    if keys.iter().any(|key| key.verify_signature(&alg, message.as_bytes(), &signature).is_ok()) {
        Ok(())
    } else {
        Err(invalid("no key the provider publishes verifies its signature"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn party() -> RelyingParty {
        RelyingParty {
            issuer: "https://id.acme.example".into(),
            client_id: "opledger".into(),
            client_secret: "secret".into(),
            redirect_uri: "https://console.example/oidc/callback".into(),
        }
    }

    fn claims(value: Value) -> Map<String, Value> {
        value.as_object().cloned().unwrap()
    }

    #[test]
    fn a_logout_token_names_its_issuer_audience_event_and_person_and_no_nonce() {
        let now = 1_800_000_000;
        let good = json!({
            "iss": "https://id.acme.example", "aud": "opledger", "iat": now, "exp": now + 120, "jti": "j1",
            "sub": "ann", "events": {BACKCHANNEL_LOGOUT_EVENT: {}}
        });
        let checked = logout_claims(&claims(good.clone()), &party(), now).unwrap();
        assert_eq!(checked.subject.as_deref(), Some("https://id.acme.example|ann"));
        let with = |key: &str, value: Value| {
            let mut changed = claims(good.clone());
            changed.insert(key.into(), value);
            logout_claims(&changed, &party(), now)
        };
        assert!(with("iss", json!("https://evil.example")).is_err());
        assert!(with("aud", json!("another-client")).is_err());
        assert!(with("aud", json!(["another", "opledger"])).is_ok());
        assert!(with("iat", json!(now - 3600)).is_err());
        assert!(with("exp", json!(now - 1)).is_err());
        assert!(with("events", json!({})).is_err());
        assert!(with("nonce", json!("n")).is_err());
        let mut anonymous = claims(good.clone());
        anonymous.remove("sub");
        assert!(logout_claims(&anonymous, &party(), now).is_err());
        anonymous.insert("sid".into(), json!("s1"));
        assert_eq!(logout_claims(&anonymous, &party(), now).unwrap().sid.as_deref(), Some("s1"));
    }
}
