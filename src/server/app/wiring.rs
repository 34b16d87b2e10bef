//! The one wiring from settings to providers: which connector serves which provider name, and the
//! executor that sends through them. `serve`, `reconcile` and `demo` all build their executor
//! here, so the three can never disagree about where an operation is sent or looked up.

use std::sync::Arc;
use std::time::Duration;

use crate::server::ledger::executor::{Executor, RetryPolicy};
use crate::server::ledger::Ledger;
use crate::server::providers::{ServicesConnector, StripeConnector};

/// The provider name of the Stripe-compatible refunds API.
pub const STRIPE: &str = "stripe";
/// The provider name of the after-sale and pickup services.
pub const SERVICES: &str = "sandbox";

/// Where the providers are and how long to wait for them.
#[derive(Debug, Clone)]
pub struct ProviderSettings {
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

/// The executor of `ledger`, with a connector for every provider that `providers` gives an address.
pub fn executor(ledger: Ledger, providers: &ProviderSettings) -> Executor {
    let mut executor = Executor::new(ledger, RetryPolicy::default());
    if let Some(base_url) = &providers.stripe_base_url {
        tracing::info!(%base_url, "refunds go to a Stripe-compatible API");
        let connector = StripeConnector::new(base_url, &providers.secret_key, providers.timeout);
        executor = executor.with_connector(STRIPE, Arc::new(connector));
    }
    if let Some(base_url) = &providers.services_base_url {
        tracing::info!(%base_url, "after-sale tickets and pickups go to the services API");
        let connector = ServicesConnector::new(base_url, &providers.secret_key, providers.timeout);
        executor = executor.with_connector(SERVICES, Arc::new(connector));
    }
    executor
}
