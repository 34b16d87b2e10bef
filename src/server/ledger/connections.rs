//! A tenant's own provider accounts: setting one (its secret sealed before it is stored, never
//! logged or shown again but for its last four characters), setting the signing secret of the
//! provider's webhooks to it (sealed the same way), removing one, opening a secret for the
//! executor and the webhook intake, and the start-up check that the server's key opens what is
//! stored.

use serde_json::json;

use super::secrets::SecretKeyError;
use super::{Ledger, LedgerError};
use crate::domain::{
    connection::{last_four, valid_provider_name, ProviderKind},
    email::check_sender,
    http_api::HttpApi,
    ids::{Actor, TenantId},
};
use crate::server::clock::now;
use crate::server::egress::EgressPolicy;
use crate::server::providers::parse_smtp_url;
use crate::server::store::records::ProviderConnectionRecord;
use crate::server::store::StoreError;

/// What the provider's webhooks to one of a tenant's connections are checked against.
pub struct WebhookSigning {
    pub kind: ProviderKind,
    /// The signing secret of the provider's webhooks to the connection, opened.
    pub secret: String,
    /// The account the connection names (Adyen's merchant account): an event about another is
    /// not about this connection.
    pub account: Option<String>,
}

/// What a person or the command line asks to connect.
#[derive(Clone)]
pub struct NewConnection {
    /// The provider name operations carry (`stripe`, `sandbox`).
    pub name: String,
    pub kind: ProviderKind,
    pub base_url: String,
    pub secret: String,
    /// What the connection names besides its secret: Adyen's merchant account, PayPal's client id.
    pub account: Option<String>,
    /// How long the provider remembers an idempotency key, where it is not the provider's
    /// published window.
    pub key_retention: Option<chrono::Duration>,
    /// For a tenant's own HTTP API (`http`), its description (`domain::http_api`).
    pub description: Option<String>,
}

impl std::fmt::Debug for NewConnection {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("NewConnection")
            .field("name", &self.name)
            .field("kind", &self.kind)
            .field("base_url", &self.base_url)
            .field("account", &self.account)
            .field("key_retention", &self.key_retention)
            .field("description", &self.description)
            .finish_non_exhaustive()
    }
}

async fn check(connection: &NewConnection, egress: &EgressPolicy) -> Result<(), LedgerError> {
    if !valid_provider_name(&connection.name) {
        return Err(LedgerError::Invalid(
            "A provider name is 1 to 32 lowercase letters, digits, '-' or '_', for example stripe.".into(),
        ));
    }
    let reachable = match connection.kind {
        ProviderKind::Smtp => match parse_smtp_url(&connection.base_url) {
            Ok((host, port, _)) => egress.allowed_addresses(&host, port, true).await.map(|_| ()),
            Err(why) => Err(why),
        },
        _ => egress.check_url(&connection.base_url).await,
    };
    reachable.map_err(|why| LedgerError::Invalid(format!("The base URL is refused: {why}.")))?;
    if connection.secret.trim().is_empty() {
        return Err(LedgerError::Invalid("The secret key is empty.".into()));
    }
    let account = connection.account.as_deref().map(str::trim).filter(|account| !account.is_empty());
    match (connection.kind, account) {
        (ProviderKind::Adyen, None) => {
            return Err(LedgerError::Invalid("An Adyen account names its merchant account.".into()))
        }
        (ProviderKind::PayPal, None) => {
            return Err(LedgerError::Invalid("A PayPal account names its REST app's client id.".into()))
        }
        (ProviderKind::Email | ProviderKind::Smtp, None) => {
            return Err(LedgerError::Invalid(
                "An email account names the sender its messages go out as, for example Shop <support@shop.example>."
                    .into(),
            ))
        }
        (ProviderKind::Email | ProviderKind::Smtp, Some(sender))
            if check_sender(sender).is_err() || sender.parse::<lettre::message::Mailbox>().is_err() =>
        {
            return Err(LedgerError::Invalid(format!(
                "The sender {sender:?} is not an email address: write it as support@shop.example or Shop <support@shop.example>."
            )))
        }
        (ProviderKind::Ecpay, None) => {
            return Err(LedgerError::Invalid("An ECPay account names its MerchantID, for example 3002607.".into()))
        }
        (ProviderKind::LinePay, None) => {
            return Err(LedgerError::Invalid("A LINE Pay account names its Channel ID, for example 1234567890.".into()))
        }
        (ProviderKind::Ecpay | ProviderKind::LinePay, Some(id)) if !id.chars().all(|c| c.is_ascii_digit()) => {
            return Err(LedgerError::Invalid(format!(
                "The account {id:?} is not a {} id: it is digits only.",
                if connection.kind == ProviderKind::Ecpay { "MerchantID" } else { "Channel ID" }
            )))
        }
        (kind, Some(_)) if !kind.needs_account() => {
            return Err(LedgerError::Invalid(format!(
                "A {} account names no account besides its secret.",
                kind.as_str()
            )))
        }
        _ => {}
    }
    if connection.kind == ProviderKind::Ecpay {
        crate::domain::ecpay::Credentials::parse(&connection.secret)
            .map_err(|problem| LedgerError::Invalid(format!("The secret does not read: {problem}.")))?;
    }
    if connection.key_retention.is_some()
        && matches!(connection.kind, ProviderKind::Ecpay | ProviderKind::LinePay)
    {
        return Err(LedgerError::Invalid(format!(
            "{} takes no idempotency key, so it remembers none: leave how long keys are remembered out.",
            connection.kind.as_str()
        )));
    }
    if connection.key_retention.is_some_and(|retention| retention <= chrono::Duration::zero()) {
        return Err(LedgerError::Invalid("How long keys are remembered must be more than nothing.".into()));
    }
    let description = connection.description.as_deref().map(str::trim).filter(|text| !text.is_empty());
    match (connection.kind, description) {
        (ProviderKind::Http, None) => Err(LedgerError::Invalid(
            "An HTTP API connection needs its API's description (format opledger/http-api/1).".into(),
        )),
        (ProviderKind::Http, Some(text)) => HttpApi::parse(text)
            .map(|_| ())
            .map_err(|error| LedgerError::Invalid(format!("The API description is refused at {error}."))),
        (_, Some(_)) => Err(LedgerError::Invalid(format!(
            "A {} account is not described: only an HTTP API connection takes a description.",
            connection.kind.as_str()
        ))),
        (_, None) => Ok(()),
    }
}

impl Ledger {
    /// Connects `tenant` to its own account at the provider `connection.name` (replacing an
    /// earlier one), sealing the secret, with an audit event that names the provider, its kind,
    /// its base URL and the secret's last four characters, never the secret.
    pub async fn set_provider_connection(
        &self,
        tenant: &TenantId,
        actor: &Actor,
        connection: NewConnection,
    ) -> Result<(), LedgerError> {
        check(&connection, &self.egress).await?;
        let secrets =
            self.secrets.as_ref().ok_or_else(|| LedgerError::Invalid(SecretKeyError::Missing.to_string()))?;
        let secret = connection.secret.trim();
        let record = ProviderConnectionRecord {
            tenant: tenant.clone(),
            sealed_secret: secrets.seal(tenant, &connection.name, secret),
            secret_last4: last_four(secret),
            name: connection.name,
            kind: connection.kind,
            base_url: connection.base_url.trim_end_matches('/').to_owned(),
            updated_by: actor.name.clone(),
            updated_at: now(),
            account: connection
                .account
                .map(|account| account.trim().to_owned())
                .filter(|account| !account.is_empty()),
            key_retention: connection.key_retention,
            sealed_webhook_secret: None,
            description: connection
                .description
                .map(|text| text.trim().to_owned())
                .filter(|text| !text.is_empty()),
        };
        let evidence = json!({
            "name": record.name,
            "kind": record.kind.as_str(),
            "base_url": record.base_url,
            "secret": format!("…{}", record.secret_last4),
            "description": record.description.as_deref().and_then(|text| serde_json::from_str::<serde_json::Value>(text).ok()),
        });
        let audit = Self::action_entry(tenant, actor, "set_provider_connection", evidence);
        let name = record.name.clone();
        self.store.set_provider_connection(record, audit).await?;
        self.forget_connection(tenant, &name);
        Ok(())
    }

    /// Forgets what this process keeps of `tenant`'s connection `name`, after a change to it.
    fn forget_connection(&self, tenant: &TenantId, name: &str) {
        self.recent
            .connections
            .forget_where(|(kept_tenant, kept_name), _| kept_tenant == tenant && kept_name == name);
    }

    /// Removes `tenant`'s own connection to the provider `name`; its operations go back to the
    /// server's connection for that provider, if any. `NotFound` when it has none.
    pub async fn remove_provider_connection(
        &self,
        tenant: &TenantId,
        actor: &Actor,
        name: &str,
    ) -> Result<(), StoreError> {
        let audit = Self::action_entry(tenant, actor, "remove_provider_connection", json!({"name": name}));
        let removed = self.store.remove_provider_connection(tenant, name, audit).await;
        self.forget_connection(tenant, name);
        removed
    }

    /// Sets the signing secret of the provider's webhooks to `tenant`'s connection `name`
    /// (`whsec_…` for Stripe), sealed, with an audit event that names the connection and the
    /// secret's last four characters; `NotFound` when the tenant has no such connection.
    pub async fn set_webhook_secret(
        &self,
        tenant: &TenantId,
        actor: &Actor,
        name: &str,
        secret: &str,
    ) -> Result<(), LedgerError> {
        let secret = secret.trim();
        if secret.is_empty() {
            return Err(LedgerError::Invalid("The signing secret is empty.".into()));
        }
        let secrets =
            self.secrets.as_ref().ok_or_else(|| LedgerError::Invalid(SecretKeyError::Missing.to_string()))?;
        let sealed = secrets.seal(tenant, &webhook_secret_name(name), secret);
        let evidence = json!({"name": name, "webhook_secret": format!("…{}", last_four(secret))});
        let audit = Self::action_entry(tenant, actor, "set_provider_webhook_secret", evidence);
        match self.store.set_provider_webhook_secret(tenant, name, &sealed, audit).await {
            Err(StoreError::NotFound) => Err(LedgerError::NotFound),
            other => Ok(other?),
        }
    }

    /// What the provider's webhooks to `tenant`'s connection `name` are checked against: its kind,
    /// the signing secret, opened, and the account it names; `None` when the tenant has no such
    /// connection or no secret is set for it. ECPay signs its notifications with the connection's
    /// own HashKey and HashIV, so an ECPay connection's secret is its signing secret.
    pub async fn webhook_signing(
        &self,
        tenant: &TenantId,
        name: &str,
    ) -> Result<Option<WebhookSigning>, LedgerError> {
        let Some(connection) = self.store.provider_connection(tenant, name).await? else { return Ok(None) };
        if connection.kind == ProviderKind::Ecpay {
            let secret =
                self.open_secret(&connection).map_err(|error| LedgerError::Invalid(error.to_string()))?;
            return Ok(Some(WebhookSigning { kind: connection.kind, secret, account: connection.account }));
        }
        let Some(sealed) = &connection.sealed_webhook_secret else { return Ok(None) };
        let secrets =
            self.secrets.as_ref().ok_or_else(|| LedgerError::Invalid(SecretKeyError::Missing.to_string()))?;
        let secret = secrets
            .open(tenant, &webhook_secret_name(name), sealed)
            .map_err(|error| LedgerError::Invalid(error.to_string()))?;
        Ok(Some(WebhookSigning { kind: connection.kind, secret, account: connection.account }))
    }

    /// Whether this ledger can seal provider secrets (the server has an `OPLEDGER_SECRET_KEY`).
    pub fn seals_secrets(&self) -> bool {
        self.secrets.is_some()
    }

    /// The secret of a stored connection, opened.
    pub(super) fn open_secret(
        &self,
        connection: &ProviderConnectionRecord,
    ) -> Result<String, SecretKeyError> {
        let secrets = self.secrets.as_ref().ok_or(SecretKeyError::Missing)?;
        secrets.open(&connection.tenant, &connection.name, &connection.sealed_secret)
    }

    /// Proves at start-up that the server's key opens the stored secrets (one of them is opened):
    /// a wrong or missing `OPLEDGER_SECRET_KEY` is a clear error then, not a failed send later.
    pub async fn check_secret_key(&self) -> Result<(), LedgerError> {
        match self.store.any_provider_connection().await? {
            Some(connection) => {
                self.open_secret(&connection).map_err(|error| LedgerError::Invalid(error.to_string()))?;
                Ok(())
            }
            None => Ok(()),
        }
    }
}

/// The name a connection's webhook signing secret is sealed under: its own, apart from the API
/// secret's, so that one sealed value can never be opened as the other.
fn webhook_secret_name(connection: &str) -> String {
    format!("{connection}#webhook")
}
