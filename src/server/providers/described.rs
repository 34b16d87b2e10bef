//! The connector for an HTTP API its description declares (`domain::http_api`): a tenant's own
//! systems (`http` connections), and the after-sale and pickup services, whose description is
//! built in (`services.json`). It sends each operation as the description's request built from
//! its stored parameters, under the key header it declares if any, reads the answer's id and
//! status where the description says, and looks an operation up only where the description
//! declares how.

use async_trait::async_trait;
use serde_json::Value;
use std::sync::LazyLock;
use std::time::Duration;

use super::http::{failed, Answers, Body, Endpoint, Request};
use super::{Checked, Connector, Lookup, Sent};
use crate::domain::connection::{Capabilities, ProviderKind};
use crate::domain::failure::FailureClass;
use crate::domain::http_api::{Encoding, Fill, HttpApi, ObjectRead, OperationSpec};
use crate::domain::machine::{AttemptOutcome, ProviderStatus};
use crate::domain::operation::{AttemptReport, OperationRecord};
use crate::server::egress::EgressPolicy;

/// The after-sale and pickup services' description.
const SERVICES: &str = include_str!("services.json");

/// The description of an email API in Resend's shape.
const RESEND: &str = include_str!("resend.json");

pub struct DescribedConnector {
    kind: ProviderKind,
    endpoint: Endpoint,
    api: HttpApi,
}

impl DescribedConnector {
    /// A connector for the API `api` describes, at `base_url`.
    pub fn new(
        kind: ProviderKind,
        api: HttpApi,
        base_url: &str,
        secret: &str,
        timeout: Duration,
        egress: &EgressPolicy,
    ) -> Self {
        Self { kind, endpoint: Endpoint::new(kind, base_url, secret, timeout, egress), api }
    }

    /// The after-sale and pickup services, by their built-in description.
    pub fn services(base_url: &str, secret: &str, timeout: Duration, egress: &EgressPolicy) -> Self {
        Self::new(ProviderKind::Services, services_api().clone(), base_url, secret, timeout, egress)
    }

    /// An email API in Resend's shape, by its built-in description.
    pub fn email(base_url: &str, secret: &str, timeout: Duration, egress: &EgressPolicy) -> Self {
        Self::new(ProviderKind::Email, email_api().clone(), base_url, secret, timeout, egress)
    }

    fn spec(&self, kind: &str) -> Option<&OperationSpec> {
        self.api.operation(kind)
    }
}

/// The after-sale and pickup services' description, which this build carries.
pub fn services_api() -> &'static HttpApi {
    static API: LazyLock<HttpApi> = LazyLock::new(|| built_in(SERVICES));
    &API
}

/// The email API's description, which this build carries.
fn email_api() -> &'static HttpApi {
    static API: LazyLock<HttpApi> = LazyLock::new(|| built_in(RESEND));
    &API
}

/// The description this build carries for a kind of connection that is one: the after-sale
/// services, the email API.
pub fn built_in_api(kind: ProviderKind) -> Option<&'static HttpApi> {
    match kind {
        ProviderKind::Services => Some(services_api()),
        ProviderKind::Email => Some(email_api()),
        _ => None,
    }
}

fn built_in(text: &str) -> HttpApi {
    HttpApi::parse(text).unwrap_or_else(|error| panic!("a built-in description does not read: {error}"))
}

fn fill(operation: &OperationRecord) -> Fill<'_> {
    Fill {
        params: &operation.params,
        op_id: operation.op_id.as_str(),
        tenant: operation.tenant.as_str(),
        key: &operation.idempotency_key,
    }
}

fn not_sent(class: FailureClass, why: String) -> Sent {
    failed(class, AttemptReport { error: Some(why), ..Default::default() })
}

/// The outcome an answer's object stands for: its status as the description maps it; a status it
/// does not name is taken as accepted (the object exists, its result is not known to be done).
fn outcome_of(read: ObjectRead) -> AttemptOutcome {
    let external_id = read.external_id;
    match read.status {
        Some(ProviderStatus::Succeeded) => AttemptOutcome::Succeeded { external_id },
        Some(ProviderStatus::Failed { reason }) => AttemptOutcome::FailedAtProvider { external_id, reason },
        Some(ProviderStatus::Pending { .. }) | None => AttemptOutcome::Accepted { external_id },
    }
}

/// How one operation kind's answers are read.
struct Reading<'a> {
    api: &'a HttpApi,
    spec: &'a OperationSpec,
}

impl Answers for Reading<'_> {
    fn classify(&self, status: u16, body: &Value, retry_after_s: Option<u32>) -> Option<FailureClass> {
        self.api.classify(status, body, retry_after_s)
    }

    fn outcome(&self, body: &Value) -> AttemptOutcome {
        outcome_of(self.spec.read_answer(body))
    }

    fn error_words(&self, body: &Value) -> Option<String> {
        self.api.error_message(body).or_else(|| self.api.error_code(body))
    }
}

#[async_trait]
impl Connector for DescribedConnector {
    fn kind(&self) -> ProviderKind {
        self.kind
    }

    fn action_for(&self, kind: &str) -> Option<String> {
        self.spec(kind).map(|_| kind.to_owned())
    }

    fn performs(&self) -> Vec<String> {
        self.api.kinds()
    }

    fn capabilities(&self, kind: &str) -> Capabilities {
        self.api.capabilities(kind)
    }

    /// The one fact a description can check before sending: that every parameter its request
    /// names is stored. The money an operation moves is its own `amount`, which the approval
    /// policy reads.
    async fn check(&self, operation: &OperationRecord) -> Checked {
        let Some(spec) = self.spec(&operation.kind) else {
            return Checked::Invalid {
                reason: format!("the API's description serves no {:?}", operation.kind),
            };
        };
        match spec.render(&fill(operation)) {
            Ok(_) => Checked::Valid { amount: operation.params.money("amount") },
            Err(missing) => Checked::Invalid { reason: missing },
        }
    }

    async fn send(&self, operation: &OperationRecord) -> Sent {
        let Some(spec) = self.spec(&operation.kind) else {
            return not_sent(
                FailureClass::InvalidParams,
                format!("the API's description serves no {:?}", operation.kind),
            );
        };
        let rendered = match spec.render(&fill(operation)) {
            Ok(rendered) => rendered,
            Err(missing) => return not_sent(FailureClass::InvalidParams, missing),
        };
        let Ok(method) = reqwest::Method::from_bytes(rendered.method.as_bytes()) else {
            return not_sent(FailureClass::InvalidParams, format!("{} is not a method", rendered.method));
        };
        let form: Vec<(String, String)> = match (&rendered.body, rendered.encoding) {
            (Some(Value::Object(fields)), Encoding::Form) => fields
                .iter()
                .map(|(name, value)| {
                    (name.clone(), value.as_str().map_or_else(|| value.to_string(), str::to_owned))
                })
                .collect(),
            _ => Vec::new(),
        };
        let body = match (&rendered.body, rendered.encoding) {
            (None, _) => None,
            (Some(_), Encoding::Form) => Some(Body::Form(&form)),
            (Some(json), Encoding::Json) => Some(Body::Json(json)),
        };
        let key = spec.key.as_ref().map(|key| (key.header.as_str(), operation.idempotency_key.as_str()));
        let request = Request { method, path: &rendered.path, key, body };
        let reading = Reading { api: &self.api, spec };
        self.endpoint.send(request, self.endpoint.bearer(), &[], &reading).await
    }

    async fn look_up(&self, operation: &OperationRecord) -> Lookup {
        let Some(spec) = self.spec(&operation.kind) else {
            return Lookup::Unavailable {
                reason: format!("the API's description serves no {:?}", operation.kind),
            };
        };
        let lookup = match spec.render_lookup(&fill(operation)) {
            None => return Lookup::Unavailable { reason: "the API's description declares no lookup".into() },
            Some(Err(missing)) => return Lookup::Unavailable { reason: missing },
            Some(Ok(lookup)) => lookup,
        };
        let query: Vec<(&str, &str)> =
            lookup.query.iter().map(|(name, value)| (name.as_str(), value.as_str())).collect();
        let asked = match serde_urlencoded::to_string(&query).unwrap_or_default() {
            query if query.is_empty() => format!("GET {}", lookup.path),
            query => format!("GET {}?{query}", lookup.path),
        };
        match self.endpoint.fetch_json(&lookup.path, &query, self.endpoint.bearer()).await {
            Ok(answer) => match answer.and_then(|answer| spec.found_in(&answer, &fill(operation))) {
                Some(read) => {
                    let shown =
                        read.raw_status.as_deref().map(|raw| format!(", status {raw}")).unwrap_or_default();
                    let evidence = format!(
                        "{asked} finds it as {}{shown}",
                        read.external_id.as_deref().unwrap_or("an object without an id")
                    );
                    Lookup::Found {
                        external_id: read.external_id.unwrap_or_default(),
                        status: read.status.unwrap_or(ProviderStatus::Pending { needs_action: false }),
                        evidence,
                    }
                }
                None => Lookup::NotFound { evidence: format!("{asked} finds nothing of it") },
            },
            Err(reason) => Lookup::Unavailable { reason },
        }
    }
}
