//! The admin page's webhooks: the tenant's endpoints with the event types they get and their
//! latest deliveries (status, attempts, the endpoint's last answer), adding one (its signing secret
//! shown once), removing one, and sending a delivery again.

use chrono::{DateTime, Utc};
use leptos::prelude::*;
use serde::{Deserialize, Serialize};

use super::AppError;

/// How many of an endpoint's latest deliveries the page shows.
pub const DELIVERIES_SHOWN: u32 = 10;

/// One delivery of an event to an endpoint, as the admin page shows it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct DeliveryView {
    pub id: String,
    pub event_type: String,
    /// The operation (or order) the event is about.
    pub about: String,
    /// `pending`, `delivered` or `failed` (given up).
    pub status: String,
    pub attempts: u32,
    /// The endpoint's last answer in words: `answered 500`, `could not connect`.
    pub last_answer: Option<String>,
    pub created_at: DateTime<Utc>,
    /// When a pending delivery is tried next.
    pub next_attempt_at: Option<DateTime<Utc>>,
}

/// One of the tenant's webhook endpoints with its latest deliveries.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct EndpointView {
    pub id: String,
    pub url: String,
    pub event_types: Vec<String>,
    pub created_by: String,
    pub created_at: DateTime<Utc>,
    pub deliveries: Vec<DeliveryView>,
}

/// The webhooks section: the endpoints, the event types one can choose, and whether the server can
/// keep a signing secret (it seals them under its `OPLEDGER_SECRET_KEY`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct WebhooksView {
    pub endpoints: Vec<EndpointView>,
    pub event_types: Vec<String>,
    pub seals_secrets: bool,
}

#[server(prefix = "/rpc", endpoint = "webhook_endpoints")]
pub async fn webhook_endpoints() -> Result<WebhooksView, AppError> {
    use crate::domain::policy::Section;
    let admin = crate::console::guard::require(Section::Admin).await?;
    ssr::webhook_endpoints(&admin).await.inspect_err(crate::console::guard::set_error_status)
}

/// Adds an endpoint at `url` for the chosen event types (`events[0]`, `events[1]`, … from the
/// checkboxes); answers with its signing secret, shown this once.
#[server(prefix = "/rpc", endpoint = "add_webhook_endpoint")]
pub async fn add_webhook_endpoint(
    csrf: String,
    url: String,
    #[server(default)] events: Vec<String>,
) -> Result<String, AppError> {
    use crate::domain::policy::Section;
    let admin = crate::console::guard::require_for_change(Section::Admin, &csrf).await?;
    ssr::add_webhook_endpoint(&admin, &url, &events)
        .await
        .inspect_err(crate::console::guard::set_error_status)
}

/// Removes an endpoint with what is still to be delivered to it, once `confirmed` is `yes` (the
/// form's dialog sets it, after restating what is lost).
#[server(prefix = "/rpc", endpoint = "remove_webhook_endpoint")]
pub async fn remove_webhook_endpoint(
    csrf: String,
    id: String,
    #[server(default)] confirmed: String,
) -> Result<String, AppError> {
    use crate::domain::policy::Section;
    let admin = crate::console::guard::require_for_change(Section::Admin, &csrf).await?;
    if confirmed.trim() != "yes" {
        let language = crate::console::language::current_language();
        let refused = AppError::Invalid(crate::t!(language, "admin-webhook-remove-unconfirmed"));
        crate::console::guard::set_error_status(&refused);
        return Err(refused);
    }
    ssr::remove_webhook_endpoint(&admin, &id).await.inspect_err(crate::console::guard::set_error_status)
}

#[server(prefix = "/rpc", endpoint = "resend_webhook")]
pub async fn resend_webhook(csrf: String, id: String) -> Result<String, AppError> {
    use crate::domain::policy::Section;
    let admin = crate::console::guard::require_for_change(Section::Admin, &csrf).await?;
    ssr::resend_webhook(&admin, &id).await.inspect_err(crate::console::guard::set_error_status)
}

#[cfg(feature = "ssr")]
pub(crate) mod ssr {
    use super::*;
    use crate::console::guard::{actor, refused, unavailable, SignedIn};
    use crate::console::language::current_language;
    use crate::domain::language::Language;
    use crate::domain::webhook::event_types;
    use crate::server::http::state::AppState;
    use crate::server::store::records::{DeliveryStatus, WebhookDeliveryRecord};
    use crate::server::store::StoreError;
    use crate::t;

    /// What an event is about, read from its payload: the operation, or the order.
    fn about(delivery: &WebhookDeliveryRecord) -> String {
        let payload: serde_json::Value = serde_json::from_str(&delivery.payload).unwrap_or_default();
        let data = &payload["data"];
        data["op_id"].as_str().or_else(|| data["subject"].as_str()).unwrap_or_default().to_owned()
    }

    fn delivery_view(delivery: WebhookDeliveryRecord, language: Language) -> DeliveryView {
        let last_answer = match (delivery.last_status, &delivery.last_error) {
            (_, Some(error)) => Some(error.clone()),
            (Some(status), None) => {
                Some(t!(language, "admin-delivery-answered", status = status.to_string()))
            }
            (None, None) => None,
        };
        DeliveryView {
            about: about(&delivery),
            id: delivery.id,
            event_type: delivery.event_type,
            status: delivery.status.as_str().to_owned(),
            attempts: delivery.attempts,
            last_answer,
            created_at: delivery.created_at,
            next_attempt_at: (delivery.status == DeliveryStatus::Pending).then_some(delivery.next_attempt_at),
        }
    }

    pub async fn webhook_endpoints(admin: &SignedIn) -> Result<WebhooksView, AppError> {
        let language = current_language();
        let ledger = expect_context::<AppState>().ledger.clone();
        let reads = ledger.reads();
        let mut endpoints = Vec::new();
        for endpoint in reads.webhook_endpoints(&admin.tenant).await.map_err(unavailable)? {
            let deliveries = reads
                .webhook_deliveries(&admin.tenant, &endpoint.id, DELIVERIES_SHOWN)
                .await
                .map_err(unavailable)?;
            endpoints.push(EndpointView {
                id: endpoint.id,
                url: endpoint.url,
                event_types: endpoint.event_types,
                created_by: endpoint.created_by,
                created_at: endpoint.created_at,
                deliveries: deliveries
                    .into_iter()
                    .map(|delivery| delivery_view(delivery, language))
                    .collect(),
            });
        }
        Ok(WebhooksView { endpoints, event_types: event_types(), seals_secrets: ledger.seals_secrets() })
    }

    pub async fn add_webhook_endpoint(
        admin: &SignedIn,
        url: &str,
        events: &[String],
    ) -> Result<String, AppError> {
        let language = current_language();
        let ledger = expect_context::<AppState>().ledger.clone();
        let added = ledger
            .add_webhook_endpoint(&admin.tenant, &actor(admin), url, &events.join(","))
            .await
            .map_err(|error| refused(error, url, admin))?;
        Ok(t!(language, "admin-webhook-added", secret = added.secret))
    }

    pub async fn remove_webhook_endpoint(admin: &SignedIn, id: &str) -> Result<String, AppError> {
        let language = current_language();
        let ledger = expect_context::<AppState>().ledger.clone();
        match ledger.remove_webhook_endpoint(&admin.tenant, &actor(admin), id.trim()).await {
            Ok(()) => Ok(t!(language, "admin-webhook-removed")),
            Err(StoreError::NotFound) => {
                Err(AppError::NotFound(t!(language, "admin-webhook-not-found", id = id)))
            }
            Err(error) => Err(unavailable(error)),
        }
    }

    pub async fn resend_webhook(admin: &SignedIn, id: &str) -> Result<String, AppError> {
        let language = current_language();
        let ledger = expect_context::<AppState>().ledger.clone();
        match ledger.resend_webhook_delivery(&admin.tenant, &actor(admin), id.trim()).await {
            Ok(()) => Ok(t!(language, "admin-delivery-resent")),
            Err(StoreError::NotFound) => {
                Err(AppError::NotFound(t!(language, "admin-delivery-not-found", id = id)))
            }
            Err(StoreError::Conflict(_)) => {
                Err(AppError::Invalid(t!(language, "admin-delivery-still-sending")))
            }
            Err(error) => Err(unavailable(error)),
        }
    }
}
