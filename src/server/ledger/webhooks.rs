//! Webhooks: a tenant's endpoints (added with a signing secret that is shown once and sealed before
//! it is stored, removed, their deliveries sent again), and the worker that delivers the outbox.
//! The events themselves are written by the store in the transaction of the change that caused
//! them; the worker leases what is due, signs each body per the Standard Webhooks specification
//! (`webhook-id`, `webhook-timestamp`, `webhook-signature`: HMAC-SHA256 over `id.timestamp.body`
//! with the secret's bytes), sends it, and records the answer: 2xx delivers it, anything else tries
//! again later, waiting twice as long each time, until it is given up. A delivery is sent at least
//! once (a worker that stops mid-send leaves its lease to run out), and the events of one
//! operation or order reach an endpoint in the order they happened.

use base64::{engine::general_purpose::STANDARD as BASE64, Engine};
use chacha20poly1305::aead::{rand_core::RngCore, OsRng};
use chrono::Duration;
use futures::stream::{self, StreamExt};
use hmac::{Hmac, Mac};
use serde_json::json;
use sha2::Sha256;
use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Duration as StdDuration;
use tokio_util::sync::CancellationToken;

use super::secrets::SecretKeyError;
use super::{Ledger, LedgerError};
use crate::domain::ids::{Actor, TenantId};
use crate::domain::webhook::{parse_event_types, wait_after_failure};
use crate::server::clock::now;
use crate::server::egress::EgressPolicy;
use crate::server::store::records::{DeliveryAttempt, WebhookDeliveryRecord, WebhookEndpointRecord};
use crate::server::store::StoreError;

/// How long a worker holds the deliveries it leased: longer than one send may take.
const LEASE: Duration = Duration::seconds(60);

/// How long a send waits for the endpoint's answer.
const SEND_TIMEOUT: StdDuration = StdDuration::from_secs(10);

/// How many deliveries one pass sends at once.
const SENDS_AT_ONCE: usize = 16;

/// How many deliveries one pass leases.
const PASS_BATCH: u32 = 64;

/// A new endpoint and its signing secret, which is shown this once. Its `Debug` shows nothing of
/// the secret.
#[derive(Clone)]
pub struct AddedEndpoint {
    pub endpoint: WebhookEndpointRecord,
    /// `whsec_` and the secret's bytes in base64.
    pub secret: String,
}

impl std::fmt::Debug for AddedEndpoint {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("AddedEndpoint").field("endpoint", &self.endpoint.id).finish_non_exhaustive()
    }
}

/// An endpoint's URL as the audit trail keeps it: scheme, host and port only, since many endpoints
/// carry a token in their path or query.
fn shown_url(url: &str) -> String {
    match reqwest::Url::parse(url) {
        Ok(parsed) => format!("{}/…", parsed.origin().ascii_serialization()),
        Err(_) => "(not a URL)".into(),
    }
}

/// The name an endpoint's secret is sealed under: never a provider's (those have no `:`).
fn sealed_name(endpoint_id: &str) -> String {
    format!("webhook:{endpoint_id}")
}

/// The Standard Webhooks signature of `body` sent as event `id` at `timestamp` (seconds) with the
/// secret `whsec_…`: `v1,` and the HMAC-SHA256 of `id.timestamp.body` in base64.
pub fn sign(secret: &str, id: &str, timestamp: i64, body: &str) -> Result<String, String> {
    let key = BASE64
        .decode(secret.strip_prefix("whsec_").unwrap_or(secret))
        .map_err(|_| "the signing secret is not base64".to_owned())?;
    let mut mac = Hmac::<Sha256>::new_from_slice(&key).map_err(|error| error.to_string())?;
    mac.update(format!("{id}.{timestamp}.{body}").as_bytes());
    Ok(format!("v1,{}", BASE64.encode(mac.finalize().into_bytes())))
}

/// Whether `url` is one a tenant's webhook endpoint may have, as the egress policy says.
async fn check_url(url: &str, egress: &EgressPolicy) -> Result<(), LedgerError> {
    egress
        .check_url(url)
        .await
        .map_err(|why| LedgerError::Invalid(format!("The webhook URL is refused: {why}.")))
}

impl Ledger {
    /// Adds an endpoint of `tenant` at `url` for the event types of `event_types` (see
    /// [`parse_event_types`]), with a fresh signing secret sealed under the server's key, and an
    /// audit event naming the URL and the types, never the secret.
    pub async fn add_webhook_endpoint(
        &self,
        tenant: &TenantId,
        actor: &Actor,
        url: &str,
        event_types: &str,
    ) -> Result<AddedEndpoint, LedgerError> {
        check_url(url, &self.egress).await?;
        let event_types = parse_event_types(event_types).map_err(LedgerError::Invalid)?;
        let secrets =
            self.secrets.as_ref().ok_or_else(|| LedgerError::Invalid(SecretKeyError::Missing.to_string()))?;
        let mut bytes = [0_u8; 32];
        OsRng.fill_bytes(&mut bytes);
        let secret = format!("whsec_{}", BASE64.encode(bytes));
        let mut id_bytes = [0_u8; 8];
        OsRng.fill_bytes(&mut id_bytes);
        let id = format!("wh_{}", hex::encode(id_bytes));
        let endpoint = WebhookEndpointRecord {
            tenant: tenant.clone(),
            sealed_secret: secrets.seal(tenant, &sealed_name(&id), &secret),
            id,
            url: url.trim().to_owned(),
            event_types,
            created_by: actor.name.clone(),
            created_at: now(),
        };
        let evidence =
            json!({"id": endpoint.id, "url": shown_url(&endpoint.url), "event_types": endpoint.event_types});
        let audit = Self::action_entry(tenant, actor, "add_webhook_endpoint", evidence);
        self.store.add_webhook_endpoint(endpoint.clone(), audit).await?;
        Ok(AddedEndpoint { endpoint, secret })
    }

    /// Removes `tenant`'s endpoint `id` and its deliveries; `NotFound` when it has none.
    pub async fn remove_webhook_endpoint(
        &self,
        tenant: &TenantId,
        actor: &Actor,
        id: &str,
    ) -> Result<(), StoreError> {
        let audit = Self::action_entry(tenant, actor, "remove_webhook_endpoint", json!({"id": id}));
        self.store.remove_webhook_endpoint(tenant, id, audit).await
    }

    /// Sends `tenant`'s delivery `id` again, from its first attempt; `NotFound` when it has none,
    /// `Conflict` while it is still pending (it is being sent, or will be).
    pub async fn resend_webhook_delivery(
        &self,
        tenant: &TenantId,
        actor: &Actor,
        id: &str,
    ) -> Result<(), StoreError> {
        let audit = Self::action_entry(tenant, actor, "resend_webhook", json!({"delivery": id}));
        self.store.resend_webhook_delivery(tenant, id, audit).await
    }

    fn open_webhook_secret(&self, endpoint: &WebhookEndpointRecord) -> Result<String, SecretKeyError> {
        let secrets = self.secrets.as_ref().ok_or(SecretKeyError::Missing)?;
        secrets.open(&endpoint.tenant, &sealed_name(&endpoint.id), &endpoint.sealed_secret)
    }
}

/// Delivers the outbox: every pass leases what is due and sends it, each endpoint through a client
/// of its own that reaches only what the egress policy allows.
#[derive(Clone)]
pub struct WebhookDispatcher {
    ledger: Ledger,
    clients: Arc<Mutex<HashMap<String, reqwest::Client>>>,
    /// How long a delivery waits after its first failed attempt (doubled after each further one).
    first_wait_s: i64,
}

impl WebhookDispatcher {
    pub fn new(ledger: Ledger, first_wait: StdDuration) -> Self {
        let first_wait_s = i64::try_from(first_wait.as_secs()).unwrap_or(i64::MAX).max(1);
        Self { ledger, clients: Arc::default(), first_wait_s }
    }

    /// The client for the endpoint at `url`, or why the egress policy refuses it.
    fn client_for(&self, url: &str) -> Result<reqwest::Client, String> {
        let mut clients = self.clients.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        if let Some(client) = clients.get(url) {
            return Ok(client.clone());
        }
        let client = self
            .ledger
            .egress()
            .client(url, SEND_TIMEOUT, SEND_TIMEOUT)
            .map_err(|why| format!("refused by the egress policy: {why}"))?;
        clients.insert(url.to_owned(), client.clone());
        Ok(client)
    }

    /// Runs a pass every `every` until `stop`; a pass that fails is logged and the next one runs.
    pub async fn run_until(self, every: StdDuration, stop: CancellationToken) {
        loop {
            if let Err(error) = self.pass().await {
                tracing::warn!(error = %crate::server::telemetry::cause_chain(&error), "a webhook pass failed");
            }
            tokio::select! {
                () = stop.cancelled() => return,
                () = tokio::time::sleep(every) => {}
            }
        }
    }

    /// Leases the deliveries due now and sends them; answers how many were delivered.
    pub async fn pass(&self) -> Result<usize, StoreError> {
        let at = now();
        let leased_until = at + LEASE;
        let leased = self.ledger.store.lease_due_webhook_deliveries(at, leased_until, PASS_BATCH).await?;
        let delivered = stream::iter(leased)
            .map(|(tenant, id)| async move { self.deliver(&tenant, &id, leased_until).await })
            .buffer_unordered(SENDS_AT_ONCE)
            .collect::<Vec<_>>()
            .await;
        let mut count = 0;
        for result in delivered {
            if result? {
                count += 1;
            }
        }
        Ok(count)
    }

    /// Sends one delivery leased until `leased_until` and records the answer (unless the lease
    /// ran out meanwhile and another worker took it); `true` when it was delivered.
    async fn deliver(
        &self,
        tenant: &TenantId,
        id: &str,
        leased_until: chrono::DateTime<chrono::Utc>,
    ) -> Result<bool, StoreError> {
        let Some((delivery, endpoint)) = self.ledger.reads().webhook_delivery(tenant, id).await? else {
            return Ok(false);
        };
        let Some(endpoint) = endpoint else {
            let attempt = DeliveryAttempt {
                at: now(),
                http_status: None,
                error: Some("the endpoint was removed".into()),
                delivered: false,
                next_attempt_at: None,
                leased_until,
            };
            self.ledger.store.record_delivery_attempt(tenant, id, attempt).await?;
            return Ok(false);
        };
        let started = std::time::Instant::now();
        let answer = self.send(&delivery, &endpoint).await;
        let at = now();
        let (http_status, error) = match &answer {
            Ok(status) if (200..300).contains(status) => (Some(*status), None),
            Ok(status) => (Some(*status), Some(format!("answered {status}"))),
            Err(error) => (None, Some(error.clone())),
        };
        let delivered = error.is_none();
        self.ledger.metrics().webhook_attempt(tenant.as_str(), delivered, started.elapsed());
        let next_attempt_at = if delivered {
            None
        } else {
            wait_after_failure(self.first_wait_s, delivery.attempts + 1).map(|wait| at + wait)
        };
        if let Some(error) = &error {
            let host =
                reqwest::Url::parse(&endpoint.url).ok().and_then(|url| url.host_str().map(str::to_owned));
            tracing::info!(tenant = %tenant, delivery = id, host, error, given_up = next_attempt_at.is_none(), "a webhook was not delivered");
        }
        let attempt = DeliveryAttempt { at, http_status, error, delivered, next_attempt_at, leased_until };
        self.ledger.store.record_delivery_attempt(tenant, id, attempt).await?;
        Ok(delivered)
    }

    /// Signs and sends `delivery`: the answer's status, or why there was none. The answer's body
    /// is not read (an endpoint's answer is not for the admin page to show), and a redirect is not
    /// followed.
    async fn send(
        &self,
        delivery: &WebhookDeliveryRecord,
        endpoint: &WebhookEndpointRecord,
    ) -> Result<u16, String> {
        let secret = self.ledger.open_webhook_secret(endpoint).map_err(|error| error.to_string())?;
        let timestamp = now().timestamp();
        let signature = sign(&secret, &delivery.message_id, timestamp, &delivery.payload)?;
        let client = self.client_for(&endpoint.url)?;
        let response = client
            .post(&endpoint.url)
            .header("content-type", "application/json")
            .header("webhook-id", &delivery.message_id)
            .header("webhook-timestamp", timestamp.to_string())
            .header("webhook-signature", signature)
            .body(delivery.payload.clone())
            .send()
            .await
            .map_err(|error| {
                let chain = crate::server::telemetry::cause_chain(&error);
                if error.is_timeout() {
                    format!("no answer within {}s", SEND_TIMEOUT.as_secs())
                } else if let Some(at) = chain.find("refused by the egress policy") {
                    chain[at..].to_owned()
                } else {
                    "could not connect".to_owned()
                }
            })?;
        Ok(response.status().as_u16())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_signature_is_the_one_the_specification_gives() {
        let signature = sign(
            "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw",
            "msg_p5jXN8AQM9LWM0D4loKWxJek",
            1_614_265_330,
            r#"{"test": 2432232314}"#,
        )
        .unwrap();
        assert_eq!(signature, "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=");
        assert!(sign("whsec_not base64!", "msg_1", 1, "{}").is_err());
    }
}
