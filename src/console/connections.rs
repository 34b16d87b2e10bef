//! The admin page's provider accounts: the tenant's own connection to each provider (its kind,
//! base URL and the last four characters of its secret, never more), setting one and removing one,
//! and the provider's webhooks to it: the URL to paste into the provider's dashboard and the signing
//! secret that verifies them. A tenant without one uses the server's connection for that provider.

use chrono::{DateTime, Utc};
use leptos::prelude::*;
use serde::{Deserialize, Serialize};

use super::AppError;

/// One of the tenant's own provider connections, as the admin page shows it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ConnectionView {
    pub name: String,
    pub kind: String,
    pub base_url: String,
    /// The last four characters of the secret.
    pub secret_last4: String,
    /// What it names besides its secret: Adyen's merchant account, PayPal's client id.
    pub account: Option<String>,
    /// How long its provider remembers a key, in words (the provider's window unless set); none
    /// for a shop's orders endpoint, which is only read.
    pub key_retention: Option<String>,
    /// For a described HTTP API, each operation kind it serves and how a lost answer is settled
    /// there (`open_ticket: key kept 1 hour, looked up`), shown where other kinds show their key
    /// window.
    pub serves: Vec<String>,
    /// Whether the provider posts webhooks about this connection (its refunds' outcomes).
    pub has_webhooks: bool,
    /// What the provider calls the secret its webhooks are verified with.
    pub webhook_secret_name: String,
    pub updated_by: String,
    pub updated_at: DateTime<Utc>,
    /// Where the provider posts its events about this connection, on the address the page was
    /// asked for.
    pub webhook_url: String,
    /// Whether a signing secret is set, without which its events are refused.
    pub webhook_secret_set: bool,
    /// Whether the provider signs its notifications with the connection's own secret (ECPay's
    /// HashKey and HashIV), so that no signing secret of its own is set.
    pub signed_by_own_secret: bool,
    /// What the gateway offers for refunds (its key, lookup, windows, outcome), each with its label.
    pub offer: Vec<(String, String)>,
}

#[server(prefix = "/rpc", endpoint = "provider_connections")]
pub async fn provider_connections() -> Result<Vec<ConnectionView>, AppError> {
    use crate::domain::policy::Section;
    let admin = crate::console::guard::require(Section::Admin).await?;
    ssr::provider_connections(&admin).await.inspect_err(crate::console::guard::set_error_status)
}

/// Connects the tenant to its own account at the provider `name` (replacing an earlier one).
#[server(prefix = "/rpc", endpoint = "set_provider_connection")]
pub async fn set_provider_connection(
    csrf: String,
    name: String,
    kind: String,
    base_url: String,
    secret: String,
    #[server(default)] account: String,
    #[server(default)] key_retention: String,
    #[server(default)] description: String,
) -> Result<String, AppError> {
    use crate::domain::policy::Section;
    let admin = crate::console::guard::require_for_change(Section::Admin, &csrf).await?;
    let settings = ssr::ConnectionForm { name, kind, base_url, secret, account, key_retention, description };
    ssr::set_provider_connection(&admin, settings).await.inspect_err(crate::console::guard::set_error_status)
}

/// Sets the signing secret that verifies the provider's webhooks to the connection `name`.
#[server(prefix = "/rpc", endpoint = "set_provider_webhook_secret")]
pub async fn set_provider_webhook_secret(
    csrf: String,
    name: String,
    secret: String,
) -> Result<String, AppError> {
    use crate::domain::policy::Section;
    let admin = crate::console::guard::require_for_change(Section::Admin, &csrf).await?;
    ssr::set_provider_webhook_secret(&admin, &name, &secret)
        .await
        .inspect_err(crate::console::guard::set_error_status)
}

#[server(prefix = "/rpc", endpoint = "remove_provider_connection")]
pub async fn remove_provider_connection(csrf: String, name: String) -> Result<String, AppError> {
    use crate::domain::policy::Section;
    let admin = crate::console::guard::require_for_change(Section::Admin, &csrf).await?;
    ssr::remove_provider_connection(&admin, &name).await.inspect_err(crate::console::guard::set_error_status)
}

#[cfg(feature = "ssr")]
pub(crate) mod ssr {
    use super::*;
    use crate::console::guard::{actor, reads, refused, unavailable, SignedIn};
    use crate::console::language::current_language;
    use crate::domain::connection::{After5xx, Capabilities, ProviderKind, Settles};
    use crate::domain::gateway::offer_lines;
    use crate::domain::http_api::HttpApi;
    use crate::domain::language::Language;
    use crate::domain::wording::retention_words;
    use crate::server::http::state::AppState;
    use crate::server::ledger::connections::NewConnection;
    use crate::server::ledger::LedgerError;
    use crate::server::store::StoreError;
    use crate::t;

    pub async fn provider_connections(admin: &SignedIn) -> Result<Vec<ConnectionView>, AppError> {
        let language = current_language();
        // Everything read from the request's context is read before the wait: a page's render
        // can be dropped while its resources are still waiting.
        let origin = console_origin();
        let connections = reads().provider_connections(&admin.tenant).await.map_err(unavailable)?;
        Ok(connections
            .into_iter()
            .map(|c| ConnectionView {
                webhook_url: format!("{origin}/webhooks/providers/{}/{}", admin.tenant, c.name),
                webhook_secret_set: c.sealed_webhook_secret.is_some() || c.kind == ProviderKind::Ecpay,
                signed_by_own_secret: c.kind == ProviderKind::Ecpay,
                offer: offer_lines(c.kind, c.key_retention, language),
                name: c.name,
                kind: c.kind.as_str().to_owned(),
                base_url: c.base_url,
                secret_last4: c.secret_last4,
                account: c.account,
                serves: c.description.as_deref().and_then(|text| HttpApi::parse(text).ok()).map_or_else(
                    Vec::new,
                    |api| {
                        api.kinds()
                            .iter()
                            .map(|kind| served(kind, api.capabilities(kind), language))
                            .collect()
                    },
                ),
                key_retention: match (c.kind, c.key_retention) {
                    (ProviderKind::Orders | ProviderKind::Ecpay | ProviderKind::LinePay, _) => None,
                    (ProviderKind::Http, _) => Some(t!(language, "admin-accounts-retention-per-kind")),
                    (_, Some(retention)) => Some(retention_words(retention, language)),
                    (kind, None) => Some(t!(
                        language,
                        "admin-accounts-retention-window",
                        window = retention_words(kind.capabilities().key_retention, language),
                    )),
                },
                has_webhooks: matches!(
                    c.kind,
                    ProviderKind::Stripe | ProviderKind::Adyen | ProviderKind::PayPal | ProviderKind::Ecpay
                ),
                webhook_secret_name: match c.kind {
                    ProviderKind::Adyen => t!(language, "admin-accounts-secret-hmac"),
                    ProviderKind::PayPal => t!(language, "admin-accounts-secret-webhook-id"),
                    _ => t!(language, "admin-accounts-secret-signing"),
                },
                updated_by: c.updated_by,
                updated_at: c.updated_at,
            })
            .collect())
    }

    /// An operation kind a described API serves, with how a lost answer is settled there.
    fn served(kind: &str, capabilities: Capabilities, language: Language) -> String {
        let window = retention_words(capabilities.key_retention, language);
        let after_5xx = match capabilities.after_5xx {
            After5xx::SameKey => t!(language, "admin-serves-5xx-same-key"),
            After5xx::Retry => t!(language, "admin-serves-5xx-retry"),
            After5xx::Unknown => t!(language, "admin-serves-5xx-unknown"),
        };
        match capabilities.settles() {
            Settles::KeyAndLookup => t!(
                language,
                "admin-serves-key-and-lookup",
                kind = kind,
                window = window,
                after_5xx = after_5xx
            ),
            Settles::KeyOnly => {
                t!(language, "admin-serves-key-only", kind = kind, window = window, after_5xx = after_5xx)
            }
            Settles::LookupOnly => t!(language, "admin-serves-lookup-only", kind = kind),
            Settles::AtMostOnce => t!(language, "admin-serves-at-most-once", kind = kind),
        }
    }

    /// The console's address as the browser asked for it: `https://` when the console is served
    /// over TLS (`--secure-cookies`), and the request's `Host`.
    fn console_origin() -> String {
        let scheme = if expect_context::<AppState>().secure_cookies { "https" } else { "http" };
        let host = use_context::<axum::http::request::Parts>()
            .and_then(|parts| parts.headers.get(axum::http::header::HOST)?.to_str().ok().map(str::to_owned))
            .filter(|host| {
                host.chars().all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '-' | ':' | '[' | ']'))
            })
            .unwrap_or_else(|| "<console address>".to_owned());
        format!("{scheme}://{host}")
    }

    pub async fn set_provider_webhook_secret(
        admin: &SignedIn,
        name: &str,
        secret: &str,
    ) -> Result<String, AppError> {
        let language = current_language();
        let ledger = expect_context::<AppState>().ledger.clone();
        let name = name.trim();
        match ledger.set_webhook_secret(&admin.tenant, &actor(admin), name, secret).await {
            Ok(()) => Ok(t!(language, "admin-accounts-webhook-secret-saved", name = name)),
            Err(LedgerError::NotFound) => {
                Err(AppError::NotFound(t!(language, "admin-accounts-not-found", name = name)))
            }
            Err(error) => Err(refused(error, name, admin)),
        }
    }

    /// The admin page's form for a connection, as posted.
    pub struct ConnectionForm {
        pub name: String,
        pub kind: String,
        pub base_url: String,
        pub secret: String,
        /// Empty when the provider names no account besides the secret.
        pub account: String,
        /// Empty for the provider's published window; otherwise `7d`, `48h`.
        pub key_retention: String,
        /// A described HTTP API's description (JSON); empty for every other kind.
        pub description: String,
    }

    pub async fn set_provider_connection(admin: &SignedIn, form: ConnectionForm) -> Result<String, AppError> {
        let language = current_language();
        let kind = ProviderKind::parse(form.kind.trim()).ok_or_else(|| {
            AppError::Invalid(t!(language, "admin-accounts-kind-unknown", kind = form.kind.as_str()))
        })?;
        let key_retention = match form.key_retention.trim() {
            "" => None,
            text => Some(
                humantime::parse_duration(text)
                    .ok()
                    .and_then(|retention| chrono::Duration::from_std(retention).ok())
                    .ok_or_else(|| {
                        AppError::Invalid(t!(language, "admin-accounts-retention-invalid", text = text))
                    })?,
            ),
        };
        let account = Some(form.account.trim().to_owned()).filter(|account| !account.is_empty());
        let name = form.name.trim().to_owned();
        let connection = NewConnection {
            name: name.clone(),
            kind,
            base_url: form.base_url.trim().to_owned(),
            secret: form.secret,
            account,
            key_retention,
            description: Some(form.description).filter(|text| !text.trim().is_empty()),
        };
        let ledger = expect_context::<AppState>().ledger.clone();
        ledger
            .set_provider_connection(&admin.tenant, &actor(admin), connection)
            .await
            .map_err(|error| refused(error, &name, admin))?;
        Ok(t!(language, "admin-accounts-saved", name = name))
    }

    pub async fn remove_provider_connection(admin: &SignedIn, name: &str) -> Result<String, AppError> {
        let language = current_language();
        let ledger = expect_context::<AppState>().ledger.clone();
        match ledger.remove_provider_connection(&admin.tenant, &actor(admin), name).await {
            Ok(()) => Ok(t!(language, "admin-accounts-removed", name = name)),
            Err(StoreError::NotFound) => {
                Err(AppError::NotFound(t!(language, "admin-accounts-not-found", name = name)))
            }
            Err(error) => Err(unavailable(error)),
        }
    }
}
