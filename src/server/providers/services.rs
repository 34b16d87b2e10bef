//! The connector for the sandbox's after-sale and pickup services (provider `sandbox`): opens a
//! ticket (`create_aftersale`, params `order`, `line_item`), cancels one (`cancel_aftersale`, params
//! `ticket`), schedules a pickup (`schedule_pickup`, params `ticket`, `date`), and finds each again
//! by the op id and tenant in its metadata.

use async_trait::async_trait;
use serde_json::Value;
use std::time::Duration;

use super::http::{failed, Endpoint};
use super::{metadata_fields, Checked, Connector, Lookup, Sent};
use crate::domain::connection::ProviderKind;
use crate::domain::failure::FailureClass;
use crate::domain::machine::{AttemptOutcome, ProviderStatus};
use crate::domain::operation::{AttemptReport, OperationRecord};
use crate::server::egress::EgressPolicy;

pub struct ServicesConnector {
    endpoint: Endpoint,
}

impl ServicesConnector {
    pub fn new(base_url: &str, secret_key: &str, timeout: Duration, egress: &EgressPolicy) -> Self {
        Self { endpoint: Endpoint::new(ProviderKind::Services, base_url, secret_key, timeout, egress) }
    }
}

fn param<'a>(operation: &'a OperationRecord, name: &str) -> Option<&'a str> {
    operation.params.as_value().get(name).and_then(Value::as_str)
}

fn missing(what: &str) -> Sent {
    failed(
        FailureClass::InvalidParams,
        AttemptReport { error: Some(format!("params.{what} is missing")), ..Default::default() },
    )
}

/// Ids the services put in their paths: letters, digits, `_` and `-`.
fn is_path_id(value: &str) -> bool {
    !value.is_empty()
        && value.len() <= 128
        && value.chars().all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '-'))
}

/// The services answer a creating request once it is done: the ticket, cancellation or pickup
/// in the answer exists.
fn done(object: &Value) -> AttemptOutcome {
    AttemptOutcome::Succeeded { external_id: object.get("id").and_then(Value::as_str).map(str::to_owned) }
}

#[async_trait]
impl Connector for ServicesConnector {
    fn kind(&self) -> ProviderKind {
        ProviderKind::Services
    }

    /// Tickets and pickups move no money; the one fact to check is that a ticket id stays one
    /// segment of the path it is sent to.
    async fn check(&self, operation: &OperationRecord) -> Checked {
        match param(operation, "ticket") {
            Some(ticket) if !is_path_id(ticket) => {
                Checked::Invalid { reason: format!("params.ticket {ticket:?} is not a ticket id") }
            }
            _ => Checked::Valid { amount: None },
        }
    }

    async fn send(&self, operation: &OperationRecord) -> Sent {
        let (path, mut form): (String, Vec<(String, String)>) = match operation.kind.as_str() {
            "create_aftersale" => {
                let (Some(order), Some(item)) = (param(operation, "order"), param(operation, "line_item"))
                else {
                    return missing("order or params.line_item");
                };
                (
                    "/v1/aftersale_tickets".to_owned(),
                    vec![("order".into(), order.into()), ("line_item".into(), item.into())],
                )
            }
            "cancel_aftersale" => {
                let Some(ticket) = param(operation, "ticket").filter(|t| is_path_id(t)) else {
                    return missing("ticket");
                };
                (format!("/v1/aftersale_tickets/{ticket}/cancel"), Vec::new())
            }
            "schedule_pickup" => {
                let (Some(ticket), Some(date)) = (param(operation, "ticket"), param(operation, "date"))
                else {
                    return missing("ticket or params.date");
                };
                (
                    "/v1/pickups".to_owned(),
                    vec![("ticket".into(), ticket.into()), ("date".into(), date.into())],
                )
            }
            other => {
                let report = AttemptReport {
                    error: Some(format!("the sandbox services cannot do {other:?}")),
                    ..Default::default()
                };
                return failed(FailureClass::InvalidParams, report);
            }
        };
        form.extend(metadata_fields(operation));
        self.endpoint.post_form(&path, &operation.idempotency_key, &form, done).await
    }

    async fn look_up(&self, operation: &OperationRecord) -> Lookup {
        let op_id = operation.op_id.as_str();
        let found = |object: &Value, evidence: String| Lookup::Found {
            external_id: object.get("id").and_then(Value::as_str).unwrap_or_default().to_owned(),
            status: ProviderStatus::Succeeded,
            evidence,
        };
        if operation.kind == "cancel_aftersale" {
            let Some(ticket) = param(operation, "ticket").filter(|t| is_path_id(t)) else {
                return Lookup::Unavailable {
                    reason: "params.ticket is missing or is not a ticket id".into(),
                };
            };
            return match self.endpoint.get_json(&format!("/v1/aftersale_tickets/{ticket}"), &[]).await {
                Ok(t) if t.get("cancelled_by").and_then(Value::as_str) == Some(op_id) => {
                    found(&t, format!("GET /v1/aftersale_tickets/{ticket} shows it cancelled by {op_id}"))
                }
                Ok(_) => Lookup::NotFound {
                    evidence: format!("GET /v1/aftersale_tickets/{ticket} shows no cancellation by {op_id}"),
                },
                Err(reason) => Lookup::Unavailable { reason },
            };
        }
        let path = match operation.kind.as_str() {
            "create_aftersale" => "/v1/aftersale_tickets",
            "schedule_pickup" => "/v1/pickups",
            other => {
                return Lookup::Unavailable {
                    reason: format!("the sandbox services cannot look up {other:?}"),
                }
            }
        };
        let fields = metadata_fields(operation);
        let query: Vec<(&str, &str)> =
            fields.iter().map(|(name, value)| (name.as_str(), value.as_str())).collect();
        let asked = serde_urlencoded::to_string(&query).unwrap_or_default();
        match self.endpoint.get_json(path, &query).await {
            Ok(list) => match list.get("data").and_then(Value::as_array).and_then(|data| data.first()) {
                Some(object) => {
                    found(object, format!("The after-sale service lists it (GET {path}?{asked})"))
                }
                None => Lookup::NotFound {
                    evidence: format!("The after-sale service lists nothing for it (GET {path}?{asked})"),
                },
            },
            Err(reason) => Lookup::Unavailable { reason },
        }
    }
}
