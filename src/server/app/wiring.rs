//! The one wiring from settings to providers: the ledger with the key that opens tenants' provider
//! secrets, which connector serves which provider name, and the executor that sends through them. `serve`, `reconcile` and `demo` all build their executor
//! here, so the three can never disagree about where an operation is sent or looked up.

use std::sync::Arc;
use std::time::Duration;

use crate::domain::connection::{ProviderKind, REFUNDS_PROVIDER, SERVICES_PROVIDER};
use crate::domain::ids::TenantId;
use crate::server::egress::EgressPolicy;
use crate::server::ledger::executor::{Executor, RetryPolicy};
use crate::server::ledger::secrets::{SecretBox, SecretKeyError};
use crate::server::ledger::Ledger;
use crate::server::providers::orders::order_source_for;
use crate::server::providers::{connector_for, ConnectionSettings};
use crate::server::store::Store;

/// Where the server's own providers are, whom they serve, and how long to wait for them.
#[derive(Debug, Clone)]
pub struct ProviderSettings {
    /// The tenants the server's own connections serve (a single-shop install's tenant, the demo's);
    /// every other tenant reaches providers through connections of its own only.
    pub tenants: Vec<TenantId>,
    /// The Stripe-compatible refunds API; no refunds connector without it.
    pub stripe_base_url: Option<String>,
    /// The after-sale and pickup services; no services connector without it.
    pub services_base_url: Option<String>,
    /// Sent to both as a bearer token.
    pub secret_key: String,
    /// How long to wait for an answer before the result counts as unknown.
    pub timeout: Duration,
}

impl ProviderSettings {
    /// These settings, with `base_url` (a sandbox's) for every provider that has no address of its own.
    pub fn or_everything_at(self, base_url: &str) -> Self {
        ProviderSettings {
            stripe_base_url: self.stripe_base_url.or_else(|| Some(base_url.to_owned())),
            services_base_url: self.services_base_url.or_else(|| Some(base_url.to_owned())),
            ..self
        }
    }

    /// Whether any provider has an address.
    pub fn any(&self) -> bool {
        self.stripe_base_url.is_some() || self.services_base_url.is_some()
    }
}

/// The ledger on `store`, sealing and opening provider secrets with `secret_key` (64 hexadecimal
/// digits) when one is given.
pub fn ledger(store: Arc<dyn Store>, secret_key: Option<&str>) -> Result<Ledger, SecretKeyError> {
    let ledger = Ledger::new(store);
    Ok(match secret_key.filter(|key| !key.trim().is_empty()) {
        Some(key) => ledger.with_secrets(SecretBox::from_hex(key)?),
        None => ledger,
    })
}

/// The executor of `ledger`, with a connector for every provider that `providers` gives an address,
/// and the server's Stripe account's Checkout as the order source, for the tenants `providers`
/// names that have none of their own. The operator's own addresses are not held to the egress
/// policy, which is for the URLs tenants set.
pub fn executor(ledger: Ledger, providers: &ProviderSettings) -> Executor {
    let (secret, timeout) = (&providers.secret_key, providers.timeout);
    let operator = EgressPolicy::unrestricted();
    let mut executor = Executor::new(ledger, RetryPolicy::default())
        .with_provider_timeout(timeout)
        .serving(providers.tenants.iter().cloned());
    let defaults = [
        (REFUNDS_PROVIDER, ProviderKind::Stripe, &providers.stripe_base_url),
        (SERVICES_PROVIDER, ProviderKind::Services, &providers.services_base_url),
    ];
    for (name, kind, base_url) in defaults {
        let Some(base_url) = base_url else { continue };
        let tenants: Vec<&str> = providers.tenants.iter().map(TenantId::as_str).collect();
        tracing::info!(%base_url, provider = name, ?tenants, "the server's own connection, for these tenants when they have none of their own");
        let settings = ConnectionSettings {
            kind,
            base_url,
            secret,
            account: None,
            description: None,
            timeout,
            egress: &operator,
        };
        if let Ok(connector) = connector_for(&settings) {
            executor = executor.with_connector(name, connector);
        }
        if let Some(orders) = order_source_for(&settings) {
            executor = executor.with_orders(orders);
        }
    }
    executor
}
