//! Abuse limits, in memory per instance: sign-in attempts per client address (which bounds the
//! password checks anyone can make, whatever names they try) and per address and name (so a
//! stranger cannot lock a known user out from elsewhere), and ledger API calls per client address
//! and per token. Over a limit the answer is `429 Too Many Requests` with `Retry-After`. The
//! client address is the TCP peer's: behind a proxy every client shares the proxy's.

use axum::{
    extract::{ConnectInfo, FromRequestParts, Request, State},
    http::{header::RETRY_AFTER, request::Parts, Extensions, HeaderValue, StatusCode},
    middleware::Next,
    response::{IntoResponse, Response},
    Json,
};
use governor::{clock::Clock, clock::DefaultClock, DefaultKeyedRateLimiter, Quota, RateLimiter};
use serde_json::json;
use std::{
    convert::Infallible,
    hash::Hash,
    net::{IpAddr, Ipv4Addr, SocketAddr},
    num::NonZeroU32,
    sync::Arc,
    time::Duration,
};

/// How many requests the limits allow.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LimitSettings {
    /// Sign-in attempts per client address per minute (also the burst).
    pub sign_ins_per_minute: NonZeroU32,
    /// Ledger API calls per second, per token and per client address (the burst is twice this).
    pub api_calls_per_second: NonZeroU32,
}

impl Default for LimitSettings {
    fn default() -> Self {
        Self {
            sign_ins_per_minute: NonZeroU32::new(20).expect("non-zero"),
            api_calls_per_second: NonZeroU32::new(200).expect("non-zero"),
        }
    }
}

/// Sign-in attempts for one name from one address: a burst of 5, then one every 12 seconds.
const SIGN_INS_PER_NAME_PER_MINUTE: u32 = 5;

/// The limiters of one instance.
pub struct Limits {
    sign_in_by_address: DefaultKeyedRateLimiter<IpAddr>,
    sign_in_by_name: DefaultKeyedRateLimiter<(IpAddr, String)>,
    api_by_address: DefaultKeyedRateLimiter<IpAddr>,
    api_by_token: DefaultKeyedRateLimiter<String>,
}

/// How long to wait before a request over a limit would be allowed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct OverLimit {
    pub retry_after: Duration,
}

impl OverLimit {
    /// Whole seconds, rounded up, as `Retry-After` wants them.
    pub fn retry_after_seconds(self) -> u64 {
        self.retry_after.as_secs() + u64::from(self.retry_after.subsec_nanos() > 0)
    }
}

fn check<K: Hash + Eq + Clone>(limiter: &DefaultKeyedRateLimiter<K>, key: &K) -> Result<(), OverLimit> {
    limiter.check_key(key).map_err(|not_until| OverLimit {
        retry_after: not_until.wait_time_from(DefaultClock::default().now()),
    })
}

impl Limits {
    pub fn new(settings: LimitSettings) -> Arc<Self> {
        let per_name = NonZeroU32::new(SIGN_INS_PER_NAME_PER_MINUTE).expect("non-zero");
        let api = Quota::per_second(settings.api_calls_per_second)
            .allow_burst(settings.api_calls_per_second.saturating_mul(NonZeroU32::new(2).expect("non-zero")));
        Arc::new(Self {
            sign_in_by_address: RateLimiter::keyed(Quota::per_minute(settings.sign_ins_per_minute)),
            sign_in_by_name: RateLimiter::keyed(Quota::per_minute(per_name)),
            api_by_address: RateLimiter::keyed(api),
            api_by_token: RateLimiter::keyed(api),
        })
    }

    /// One sign-in attempt for `name` from `address`.
    pub fn sign_in(&self, address: IpAddr, name: &str) -> Result<(), OverLimit> {
        check(&self.sign_in_by_address, &address)?;
        check(&self.sign_in_by_name, &(address, name.to_lowercase()))
    }

    /// One ledger API call by the token with `token_id`.
    pub fn api_call_by_token(&self, token_id: &str) -> Result<(), OverLimit> {
        check(&self.api_by_token, &token_id.to_owned())
    }

    /// Forgets the keys whose limits are back to full, so the maps stay small.
    pub fn forget_idle(&self) {
        self.sign_in_by_address.retain_recent();
        self.sign_in_by_name.retain_recent();
        self.api_by_address.retain_recent();
        self.api_by_token.retain_recent();
    }
}

/// Forgets idle limiter keys every `every` until `stop`.
pub async fn forget_idle_limits(
    limits: Arc<Limits>,
    every: Duration,
    stop: tokio_util::sync::CancellationToken,
) {
    loop {
        tokio::select! {
            () = stop.cancelled() => return,
            () = tokio::time::sleep(every) => limits.forget_idle(),
        }
    }
}

/// The client's address: the TCP peer, or the unspecified address when the server was not
/// started with peer addresses (a router called directly).
pub struct ClientAddress(pub IpAddr);

fn address_in(extensions: &Extensions) -> IpAddr {
    extensions
        .get::<ConnectInfo<SocketAddr>>()
        .map_or(IpAddr::V4(Ipv4Addr::UNSPECIFIED), |ConnectInfo(peer)| peer.ip())
}

impl<S: Send + Sync> FromRequestParts<S> for ClientAddress {
    type Rejection = Infallible;

    async fn from_request_parts(parts: &mut Parts, _state: &S) -> Result<Self, Self::Rejection> {
        Ok(ClientAddress(address_in(&parts.extensions)))
    }
}

/// The answer to a ledger API call over a limit: the API's error envelope, with `Retry-After`.
pub fn too_many_api_calls(over: OverLimit) -> Response {
    let seconds = over.retry_after_seconds();
    let body = json!({"error": {
        "code": "rate_limited",
        "message": format!("Too many requests; try again in {seconds} s."),
        "retry_after_s": seconds,
    }});
    let mut response = (StatusCode::TOO_MANY_REQUESTS, Json(body)).into_response();
    response.headers_mut().insert(RETRY_AFTER, HeaderValue::from(seconds));
    response
}

/// Limits ledger API calls per client address, before the token is even read.
pub async fn limit_api_by_address(
    State(limits): State<Arc<Limits>>,
    request: Request,
    next: Next,
) -> Response {
    match check(&limits.api_by_address, &address_in(request.extensions())) {
        Ok(()) => next.run(request).await,
        Err(over) => too_many_api_calls(over),
    }
}
