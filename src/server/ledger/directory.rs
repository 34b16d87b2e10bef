//! The directory of a tenant's downstreams: which connector sends its operations at a provider,
//! which connection its refunds go through, and where its shop's orders are read. A tenant's own
//! connection comes first, built from its stored settings and secret and kept until the connection
//! changes; the server's own connections serve only the tenants it was told to serve.

use chrono::{DateTime, Utc};
use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use super::{Ledger, LedgerError};
use crate::domain::connection::{ProviderKind, ORDERS_PROVIDER, REFUNDS_PROVIDER};
use crate::domain::ids::TenantId;
use crate::server::providers::orders::{order_source_for, Order, OrderSource};
use crate::server::providers::{connector_for, ConnectionSettings, Connector};

/// What a tenant's own connection to one provider is built into: the connector that sends and looks
/// up (or why it has none), and the order source, whichever its kind offers.
struct Built {
    connector: Result<Arc<dyn Connector>, String>,
    orders: Option<Arc<dyn OrderSource>>,
}

/// A connection as built, with the time of the connection it was built from (a changed connection
/// is built again).
type BuiltAt = (DateTime<Utc>, Arc<Built>);

/// The connector that serves an operation, or in words why there is none.
pub type Reachable = Result<Arc<dyn Connector>, String>;

#[derive(Clone)]
pub struct Directory {
    ledger: Ledger,
    /// The server's own connections, for the tenants it serves ([`Directory::serving`]) that have
    /// none of their own.
    connectors: Arc<BTreeMap<String, Arc<dyn Connector>>>,
    /// The server's own order source (its Stripe account's Checkout), for the same tenants.
    orders: Option<Arc<dyn OrderSource>>,
    /// The tenants the server's own connections belong to; every other tenant has only its own.
    server_tenants: Arc<BTreeSet<TenantId>>,
    /// Tenants' own connections as built, by tenant and provider name.
    tenant_connections: Arc<Mutex<HashMap<(TenantId, String), BuiltAt>>>,
    /// How long a connector built for a tenant's own connection waits for its provider.
    provider_timeout: Duration,
}

impl Directory {
    pub fn new(ledger: Ledger) -> Self {
        Self {
            ledger,
            connectors: Arc::new(BTreeMap::new()),
            orders: None,
            server_tenants: Arc::default(),
            tenant_connections: Arc::default(),
            provider_timeout: Duration::from_secs(10),
        }
    }

    /// Sends operations of `provider` through `connector`.
    pub fn with_connector(mut self, provider: &str, connector: Arc<dyn Connector>) -> Self {
        Arc::make_mut(&mut self.connectors).insert(provider.to_owned(), connector);
        self
    }

    /// Reads the orders of tenants without an order source of their own from `orders`.
    pub fn with_orders(self, orders: Arc<dyn OrderSource>) -> Self {
        Self { orders: Some(orders), ..self }
    }

    /// Lets the server's own connections serve `tenants` (and no other tenant).
    pub fn serving(self, tenants: impl IntoIterator<Item = TenantId>) -> Self {
        Self { server_tenants: Arc::new(tenants.into_iter().collect()), ..self }
    }

    /// Waits `timeout` for providers reached through tenants' own connections.
    pub fn with_provider_timeout(self, timeout: Duration) -> Self {
        Self { provider_timeout: timeout, ..self }
    }

    /// How long a provider reached through a tenant's own connection is waited for.
    pub fn provider_timeout(&self) -> Duration {
        self.provider_timeout
    }

    /// Whether the server's own connections serve `tenant`.
    fn served_by_the_server(&self, tenant: &TenantId) -> bool {
        self.server_tenants.contains(tenant)
    }

    /// `tenant`'s own connection to `provider`, built; `None` when it has none, `Err` in words when
    /// its secret does not open.
    async fn own_connection(
        &self,
        tenant: &TenantId,
        provider: &str,
    ) -> Result<Option<Result<Arc<Built>, String>>, LedgerError> {
        let Some(connection) = self.ledger.store.provider_connection(tenant, provider).await? else {
            return Ok(None);
        };
        let key = (tenant.clone(), provider.to_owned());
        let mut cache = self.tenant_connections.lock().unwrap_or_else(PoisonError::into_inner);
        if let Some((at, built)) = cache.get(&key) {
            if *at == connection.updated_at {
                return Ok(Some(Ok(built.clone())));
            }
        }
        let secret = match self.ledger.open_secret(&connection) {
            Ok(secret) => secret,
            Err(error) => return Ok(Some(Err(error.to_string()))),
        };
        let settings = ConnectionSettings {
            kind: connection.kind,
            base_url: &connection.base_url,
            secret: &secret,
            account: connection.account.as_deref(),
            description: connection.description.as_deref(),
            timeout: self.provider_timeout,
            egress: self.ledger.egress(),
        };
        let built =
            Arc::new(Built { connector: connector_for(&settings), orders: order_source_for(&settings) });
        cache.insert(key, (connection.updated_at, built.clone()));
        Ok(Some(Ok(built)))
    }

    /// The connector that serves `tenant`'s operations at `provider`: the tenant's own connection
    /// when it has one, otherwise the server's when it serves the tenant; when there is none, or
    /// the tenant's secret does not open, the reason in words.
    pub async fn connector(&self, tenant: &TenantId, provider: &str) -> Result<Reachable, LedgerError> {
        Ok(match self.own_connection(tenant, provider).await? {
            Some(Ok(built)) => built
                .connector
                .clone()
                .map_err(|why| format!("the {provider} connection of tenant {tenant} sends nothing: {why}")),
            Some(Err(reason)) => Err(reason),
            None => self
                .connectors
                .get(provider)
                .filter(|_| self.served_by_the_server(tenant))
                .cloned()
                .ok_or_else(|| format!("no {provider} provider is connected for tenant {tenant}")),
        })
    }

    /// The connection `tenant`'s refunds go through, with the kind of provider it is: its own
    /// `stripe` connection, else another of its own that performs refunds (`adyen`, `paypal`),
    /// else the server's `stripe` when it serves the tenant; `None` when it has none.
    pub async fn refund_provider(
        &self,
        tenant: &TenantId,
    ) -> Result<Option<(String, ProviderKind)>, LedgerError> {
        let mut own: Vec<(String, ProviderKind)> = self
            .ledger
            .store
            .provider_connections(tenant)
            .await?
            .into_iter()
            .filter(|connection| connection.kind.action_for("refund").is_some())
            .map(|connection| (connection.name, connection.kind))
            .collect();
        own.sort_by_key(|(name, _)| name != REFUNDS_PROVIDER);
        if let Some(first) = own.into_iter().next() {
            return Ok(Some(first));
        }
        let served = self.served_by_the_server(tenant) && self.connectors.contains_key(REFUNDS_PROVIDER);
        Ok(served.then(|| (REFUNDS_PROVIDER.to_owned(), ProviderKind::Stripe)))
    }

    /// The connection the refunds of `order` go through: the one the shop says it was paid through
    /// (`gateway`), when the tenant has that connection and it performs refunds; otherwise
    /// [`Directory::refund_provider`].
    pub async fn refund_provider_for(
        &self,
        tenant: &TenantId,
        order: &Order,
    ) -> Result<Option<(String, ProviderKind)>, LedgerError> {
        if let Some(gateway) = &order.gateway {
            let connection = self.ledger.store.provider_connection(tenant, gateway).await?;
            if let Some(connection) = connection.filter(|c| c.kind.action_for("refund").is_some()) {
                return Ok(Some((connection.name, connection.kind)));
            }
        }
        self.refund_provider(tenant).await
    }

    /// Where `tenant`'s orders are read: its own `orders` connection, else the Stripe account that
    /// serves its refunds (its own, else the server's when it serves the tenant); when there is
    /// none, the reason in words.
    pub async fn orders(
        &self,
        tenant: &TenantId,
    ) -> Result<Result<Arc<dyn OrderSource>, String>, LedgerError> {
        for provider in [ORDERS_PROVIDER, REFUNDS_PROVIDER] {
            match self.own_connection(tenant, provider).await? {
                Some(Ok(built)) => {
                    if let Some(orders) = built.orders.clone() {
                        return Ok(Ok(orders));
                    }
                }
                Some(Err(reason)) => return Ok(Err(reason)),
                None => {}
            }
        }
        let server_orders = self.orders.clone().filter(|_| self.served_by_the_server(tenant));
        Ok(server_orders.ok_or_else(|| format!("no shop's orders are connected for tenant {tenant}")))
    }

    /// The order `subject` names (`order:1043`) as `tenant`'s shop has it, waiting at most `wait`
    /// for the shop; when it cannot be read, why in words.
    pub async fn order_of_subject(
        &self,
        tenant: &TenantId,
        subject: &str,
        wait: Duration,
    ) -> Result<Order, String> {
        let order_id = subject.strip_prefix("order:").ok_or("this subject is not an order of the shop")?;
        let source = self.orders(tenant).await.map_err(|_| "the ledger could not be read".to_owned())??;
        match tokio::time::timeout(wait, source.order(order_id)).await {
            Err(_) => Err(format!("the shop did not answer within {} s", wait.as_secs())),
            Ok(Err(reason)) => Err(format!("the shop could not be asked ({reason})")),
            Ok(Ok(None)) => Err(format!("the shop has no order {order_id}")),
            Ok(Ok(Some(order))) => Ok(order),
        }
    }
}
