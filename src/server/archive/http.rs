//! The HTTP client a bucket's requests use: the egress policy's, which resolves the endpoint's
//! host through the policy and connects only to addresses it allows, so that a name that resolves
//! elsewhere later is still refused.

use http_body_util::BodyExt;
use object_store::client::{
    HttpClient, HttpConnector, HttpError, HttpErrorKind, HttpRequest, HttpResponse, HttpResponseBody,
    HttpService,
};
use object_store::ClientOptions;
use std::time::Duration;

use super::ArchiveError;
use crate::server::egress::EgressPolicy;

/// How long one request to the archive may take.
const REQUEST_TIMEOUT: Duration = Duration::from_secs(60);
/// How long connecting to the archive may take.
const CONNECT_TIMEOUT: Duration = Duration::from_secs(5);

/// Builds the egress policy's client for one endpoint.
#[derive(Debug)]
pub(super) struct EgressConnector {
    client: reqwest::Client,
}

impl EgressConnector {
    pub(super) fn new(egress: EgressPolicy, endpoint: &str) -> Result<Self, ArchiveError> {
        let client = egress
            .client(endpoint, REQUEST_TIMEOUT, CONNECT_TIMEOUT)
            .map_err(|why| ArchiveError::Refused(format!("the archive's endpoint is refused: {why}")))?;
        Ok(EgressConnector { client })
    }
}

impl HttpConnector for EgressConnector {
    fn connect(&self, _options: &ClientOptions) -> object_store::Result<HttpClient> {
        Ok(HttpClient::new(EgressService { client: self.client.clone() }))
    }
}

#[derive(Debug)]
struct EgressService {
    client: reqwest::Client,
}

fn failed(error: reqwest::Error) -> HttpError {
    let kind = if error.is_timeout() {
        HttpErrorKind::Timeout
    } else if error.is_connect() {
        HttpErrorKind::Connect
    } else {
        HttpErrorKind::Request
    };
    HttpError::new(kind, error)
}

#[async_trait::async_trait]
impl HttpService for EgressService {
    async fn call(&self, request: HttpRequest) -> Result<HttpResponse, HttpError> {
        let (parts, body) = request.into_parts();
        let body = body.collect().await?.to_bytes();
        let url = reqwest::Url::parse(&parts.uri.to_string())
            .map_err(|error| HttpError::new(HttpErrorKind::Request, error))?;
        let mut outgoing = reqwest::Request::new(parts.method, url);
        *outgoing.headers_mut() = parts.headers;
        *outgoing.body_mut() = Some(reqwest::Body::from(body));
        let response = self.client.execute(outgoing).await.map_err(failed)?;
        let mut answer = http::Response::builder().status(response.status());
        for (name, value) in response.headers() {
            answer = answer.header(name, value);
        }
        let bytes = response.bytes().await.map_err(failed)?;
        answer
            .body(HttpResponseBody::from(bytes))
            .map_err(|error| HttpError::new(HttpErrorKind::Decode, error))
    }
}
