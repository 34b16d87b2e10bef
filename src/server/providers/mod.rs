//! Providers: the connectors through which opledger sends an operation with its idempotency key
//! and stored parameters, looks it up again by its op id, and maps every answer onto the domain's
//! failure classes; and the order sources the tools read a tenant's orders from; and each tenant's identity provider (OpenID Connect). They know the domain, not the store.

mod adyen;
pub mod adyen_events;
mod described;
mod ecpay;
mod http;
mod linepay;
pub mod oidc;
pub mod orders;
mod paypal;
pub(crate) mod smtp;
mod stripe;
pub mod stripe_events;

use async_trait::async_trait;

pub use adyen::AdyenConnector;
pub use described::{built_in_api, services_api, DescribedConnector};
pub use ecpay::EcpayConnector;
pub use linepay::LinePayConnector;
pub use paypal::{paypal_value, PayPalConnector};
pub use smtp::{parse_smtp_url, SmtpConnector};
pub use stripe::StripeConnector;

use std::sync::Arc;
use std::time::Duration;

use crate::domain::connection::{Capabilities, ProviderKind};
use crate::domain::gateway::{Baseline, SeenRefund};
use crate::domain::http_api::HttpApi;
use crate::domain::machine::{AttemptOutcome, ProviderStatus};
use crate::domain::money::Money;
use crate::domain::operation::{AttemptReport, OperationRecord};
use crate::server::egress::EgressPolicy;

/// The operation's downstream metadata as form fields: `metadata[op_id]`, `metadata[tenant]`.
fn metadata_fields(operation: &OperationRecord) -> Vec<(String, String)> {
    operation
        .downstream_metadata()
        .into_iter()
        .map(|(name, value)| (format!("metadata[{name}]"), value))
        .collect()
}

/// The payment a refund the ledger recorded names under `field` (checked by `valid`, described as
/// `what` when it is not) and its positive amount; or why it cannot be sent as recorded to
/// `provider`, which performs refunds only.
fn refund_parts(
    operation: &OperationRecord,
    provider: &str,
    field: &str,
    valid: fn(&str) -> bool,
    what: &str,
) -> Result<(String, Money), String> {
    if operation.action.as_deref() != Some("refund") {
        return Err(format!(
            "the {provider} connection performs refunds, and {} was not recorded as one",
            operation.op_id
        ));
    }
    let payment = operation
        .params
        .as_value()
        .get(field)
        .and_then(serde_json::Value::as_str)
        .filter(|reference| valid(reference))
        .ok_or_else(|| format!("params.{field} is missing or is not {what}"))?;
    let amount = operation
        .params
        .money("amount")
        .filter(|amount| amount.minor > 0)
        .ok_or("params.amount is missing or is not a positive amount with its currency")?;
    Ok((payment.to_owned(), amount))
}

/// What a connection is built from: the kind of API, where it is, its secret, the account it
/// names besides (Adyen's merchant account, PayPal's client id), an HTTP API's description, how
/// long to wait for an answer, and what it may reach.
pub struct ConnectionSettings<'a> {
    pub kind: ProviderKind,
    pub base_url: &'a str,
    pub secret: &'a str,
    pub account: Option<&'a str>,
    pub description: Option<&'a str>,
    pub timeout: Duration,
    pub egress: &'a EgressPolicy,
}

/// The connector a connection's settings describe, or in words why there is none (a shop's
/// orders endpoint sends nothing; a description that does not read describes nothing).
pub fn connector_for(settings: &ConnectionSettings) -> Result<Arc<dyn Connector>, String> {
    let ConnectionSettings { kind, base_url, secret, account, description, timeout, egress } = *settings;
    let account = account.unwrap_or_default();
    Ok(match kind {
        ProviderKind::Stripe => Arc::new(StripeConnector::new(base_url, secret, timeout, egress)),
        ProviderKind::Adyen => Arc::new(AdyenConnector::new(base_url, secret, account, timeout, egress)),
        ProviderKind::PayPal => Arc::new(PayPalConnector::new(base_url, secret, account, timeout, egress)),
        ProviderKind::Services => Arc::new(DescribedConnector::services(base_url, secret, timeout, egress)),
        ProviderKind::Email => Arc::new(DescribedConnector::email(base_url, secret, timeout, egress)),
        ProviderKind::Smtp => Arc::new(SmtpConnector::new(base_url, secret, account, timeout, egress)?),
        ProviderKind::Http => {
            let api = HttpApi::parse(description.unwrap_or_default())
                .map_err(|error| format!("its API description does not read ({error})"))?;
            Arc::new(DescribedConnector::new(kind, api, base_url, secret, timeout, egress))
        }
        ProviderKind::Ecpay => Arc::new(EcpayConnector::new(base_url, secret, account, timeout, egress)?),
        ProviderKind::LinePay => Arc::new(LinePayConnector::new(base_url, secret, account, timeout, egress)),
        ProviderKind::Orders => return Err("it is a shop's orders endpoint".into()),
    })
}

/// What one send produced: the outcome for the state machine and what was observed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Sent {
    pub outcome: AttemptOutcome,
    pub report: AttemptReport,
}

/// What the provider's own records say of an operation's parameters, read before it is sent.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Checked {
    /// The parameters agree with the provider's facts. `amount` is the money the send moves, as
    /// the provider holds it (the payment's own currency), or none for an operation that moves
    /// no money.
    Valid { amount: Option<Money> },
    /// The parameters contradict the provider's facts (another currency than the payment's, more
    /// than is left to refund, a payment that does not exist, a field the provider would drop):
    /// sending it would do something nobody validated.
    Invalid { reason: String },
    /// The facts could not be read; nothing is known either way.
    Unavailable { reason: String },
}

/// An object the provider holds, as it says it stands: its id, the metadata it was created with
/// (where an operation wrote its op id and tenant) and its status, read from the object itself.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ProviderObject {
    pub external_id: String,
    pub metadata: serde_json::Value,
    pub status: ProviderStatus,
}

/// What a lookup downstream found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Lookup {
    /// The operation's object, in the status the provider gives it (which may be pending or
    /// failed: found is not done).
    Found { external_id: String, status: ProviderStatus, evidence: String },
    /// The provider answered and has no object for the op id (which, right after a send, proves
    /// nothing: indexes lag).
    NotFound { evidence: String },
    /// The provider could not be asked or did not answer clearly.
    Unavailable { reason: String },
    /// The provider lists several objects any of which could be the operation's (two new refunds
    /// of the same amount at a gateway without a key): only a person can tell.
    Ambiguous { evidence: String },
}

#[async_trait]
pub trait Connector: Send + Sync {
    /// The kind of API it speaks.
    fn kind(&self) -> ProviderKind;

    /// The action an operation of `kind` is bound to here, or `None` when this connector performs
    /// nothing of the sort (the server then never sends it).
    fn action_for(&self, kind: &str) -> Option<String> {
        self.kind().action_for(kind).map(str::to_owned)
    }

    /// The kinds of operation it performs.
    fn performs(&self) -> Vec<String> {
        self.kind().performs().iter().map(|kind| (*kind).to_owned()).collect()
    }

    /// What the downstream honours for operations of `kind`: its key, its lookup.
    fn capabilities(&self, _kind: &str) -> Capabilities {
        self.kind().capabilities()
    }

    /// Reads the provider's facts about what the operation would act on and checks the stored
    /// parameters against them, without sending anything.
    async fn check(&self, operation: &OperationRecord) -> Checked;

    /// Sends the operation once, with its idempotency key and every stored parameter, or refuses
    /// (as invalid, without sending) when a parameter has no place in the provider's request.
    async fn send(&self, operation: &OperationRecord) -> Sent;

    /// Looks the operation up at the provider by its op id (written into the object's metadata).
    async fn look_up(&self, operation: &OperationRecord) -> Lookup;

    /// For a gateway without a key whose lookup is a list of the payment's refunds: that list, read
    /// just before the operation is sent, which the ledger keeps before anything leaves (so that a
    /// lookup later tells this refund from an older one of the same amount). `Ok(None)` for
    /// connectors that find an operation by what it wrote; `Err` (in words) when the list could
    /// not be read, and then nothing is sent.
    async fn before_send(&self, _operation: &OperationRecord) -> Result<Option<Vec<SeenRefund>>, String> {
        Ok(None)
    }

    /// Looks the operation up against `baseline`, the list its send was preceded by (none when no
    /// list was kept, so nothing was sent after one). Without a list of its own, a lookup.
    async fn look_up_against(&self, operation: &OperationRecord, _baseline: Option<&Baseline>) -> Lookup {
        self.look_up(operation).await
    }

    /// Reads the operation's object again by the id the provider gave it, for its current status
    /// (an accepted operation followed until it settles). Without a read by id, a lookup.
    async fn follow(&self, operation: &OperationRecord, _external_id: &str) -> Lookup {
        self.look_up(operation).await
    }

    /// Asks the provider whether `event`, posted to a webhook with `headers`, is its own: PayPal's
    /// `verify-webhook-signature`, for the webhook `webhook_id`. Providers whose webhooks are
    /// verified otherwise (a signature under a shared secret) cannot be asked.
    async fn verify_webhook(
        &self,
        _headers: &[(String, String)],
        _event: &serde_json::Value,
        _webhook_id: &str,
    ) -> Result<bool, String> {
        Err(format!("{} webhooks are not verified by asking the provider", self.kind().as_str()))
    }

    /// The object the provider holds under `external_id`, as it stands now (`None` when it has
    /// none): what the provider's webhooks are checked against, since an event may be late,
    /// repeated or out of order. Providers without a read by id cannot say.
    async fn object(&self, external_id: &str) -> Result<Option<ProviderObject>, String> {
        Err(format!("this provider cannot be asked for {external_id} by its id"))
    }
}
