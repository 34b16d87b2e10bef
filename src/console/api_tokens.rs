//! The admin's API tokens: the tenant's tokens (name, scopes, who created each and when, last use
//! with its client address, expiry and status), creating one (name, scopes, expiry in days; its
//! secret shown once), revoking one, and rotating one with a grace period for its old secret (the
//! new secret shown once). Only admins, and only their own tenant's tokens: the server takes the
//! tenant from the session, never from the form.

use chrono::{DateTime, Utc};
use leptos::prelude::*;
use serde::{Deserialize, Serialize};

use super::AppError;

/// One of the tenant's tokens as the admin sees it (never its secret).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ApiTokenView {
    pub name: String,
    /// `tools`, `read`, `write`: those it has, in that order.
    pub scopes: Vec<String>,
    /// Who created it (or to whom an admin reassigned it); empty for tokens made before this was
    /// recorded.
    pub created_by: String,
    pub created_at: DateTime<Utc>,
    pub last_used_at: Option<DateTime<Utc>>,
    /// The client address of the last use.
    pub last_used_from: Option<String>,
    pub expires_at: Option<DateTime<Utc>>,
    /// `active`, `expired` or `revoked`, as the server saw it when it answered.
    pub status: String,
    /// Until when the secret its last rotation replaced still works, while it does.
    pub old_secret_until: Option<DateTime<Utc>>,
}

/// The API tokens section: the tokens, and what the forms offer.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ApiTokensView {
    pub tokens: Vec<ApiTokenView>,
    pub default_expiry_days: u32,
    pub max_expiry_days: u32,
    /// The grace periods a rotation offers, in hours.
    pub grace_choices_hours: Vec<u32>,
}

#[server(prefix = "/rpc", endpoint = "api_tokens")]
pub async fn api_tokens() -> Result<ApiTokensView, AppError> {
    use crate::domain::policy::Section;
    let admin = crate::console::guard::require(Section::Admin).await?;
    ssr::api_tokens(&admin).await.inspect_err(crate::console::guard::set_error_status)
}

/// Creates a token named `name` with the checked scopes (`scopes[0]`, `scopes[1]`, … from the
/// checkboxes) that expires in `expires_in_days` (blank: 90); answers with its secret, shown this
/// once.
#[server(prefix = "/rpc", endpoint = "create_api_token")]
pub async fn create_api_token(
    csrf: String,
    name: String,
    #[server(default)] scopes: Vec<String>,
    #[server(default)] expires_in_days: String,
) -> Result<String, AppError> {
    use crate::domain::policy::Section;
    let admin = crate::console::guard::require_for_change(Section::Admin, &csrf).await?;
    ssr::create_api_token(&admin, &name, &scopes, &expires_in_days)
        .await
        .inspect_err(crate::console::guard::set_error_status)
}

/// Revokes the token `name` once `confirmed` is `yes` (the form's dialog sets it, after saying
/// that agents using it are refused from then on).
#[server(prefix = "/rpc", endpoint = "revoke_api_token")]
pub async fn revoke_api_token(
    csrf: String,
    name: String,
    #[server(default)] confirmed: String,
) -> Result<String, AppError> {
    use crate::domain::policy::Section;
    let admin = crate::console::guard::require_for_change(Section::Admin, &csrf).await?;
    ssr::confirmed(&confirmed)?;
    ssr::revoke_api_token(&admin, &name).await.inspect_err(crate::console::guard::set_error_status)
}

/// Gives the token `name` a new secret, answered this once, once `confirmed` is `yes`; the old one
/// keeps working for `grace_hours` (0, 1, 24 or 168; blank: none).
#[server(prefix = "/rpc", endpoint = "rotate_api_token")]
pub async fn rotate_api_token(
    csrf: String,
    name: String,
    #[server(default)] grace_hours: String,
    #[server(default)] confirmed: String,
) -> Result<String, AppError> {
    use crate::domain::policy::Section;
    let admin = crate::console::guard::require_for_change(Section::Admin, &csrf).await?;
    ssr::confirmed(&confirmed)?;
    ssr::rotate_api_token(&admin, &name, &grace_hours)
        .await
        .inspect_err(crate::console::guard::set_error_status)
}

#[cfg(feature = "ssr")]
pub(crate) mod ssr {
    use super::*;
    use crate::console::guard::{actor, set_error_status, unavailable, SignedIn};
    use crate::console::language::current_language;
    use crate::domain::api_token::{
        expiry_days_from_form, grace_hours_from_form, Expiry, Scopes, TokenStatus, DEFAULT_EXPIRY_DAYS,
        GRACE_CHOICES_HOURS, MAX_EXPIRY_DAYS, MAX_GRACE_HOURS,
    };
    use crate::server::clock::now;
    use crate::server::http::state::AppState;
    use crate::server::ledger::tokens::TokenSpec;
    use crate::server::ledger::LedgerError;
    use crate::server::store::records::ApiTokenListing;
    use crate::server::store::StoreError;
    use crate::t;

    /// Refuses (422) a revocation or rotation that the form's dialog did not confirm.
    pub fn confirmed(confirmed: &str) -> Result<(), AppError> {
        if confirmed.trim() == "yes" {
            return Ok(());
        }
        let refused = AppError::Invalid(t!(current_language(), "tokens-unconfirmed"));
        set_error_status(&refused);
        Err(refused)
    }

    fn view_of(token: ApiTokenListing, now: DateTime<Utc>) -> ApiTokenView {
        let status = TokenStatus::at(now, token.revoked_at, token.expires_at);
        ApiTokenView {
            scopes: token.scopes.list().iter().map(|scope| scope.as_str().to_owned()).collect(),
            created_by: token.created_by,
            created_at: token.created_at,
            last_used_at: token.last_used_at,
            last_used_from: token.last_used_from,
            expires_at: token.expires_at,
            status: status.as_str().to_owned(),
            old_secret_until: token
                .previous_valid_until
                .filter(|until| *until > now && status == TokenStatus::Active),
            name: token.name,
        }
    }

    pub async fn api_tokens(admin: &SignedIn) -> Result<ApiTokensView, AppError> {
        let ledger = expect_context::<AppState>().ledger.clone();
        let tokens = ledger.tokens(&admin.tenant).await.map_err(unavailable)?;
        let now = now();
        Ok(ApiTokensView {
            tokens: tokens.into_iter().map(|token| view_of(token, now)).collect(),
            default_expiry_days: DEFAULT_EXPIRY_DAYS,
            max_expiry_days: MAX_EXPIRY_DAYS,
            grace_choices_hours: GRACE_CHOICES_HOURS.to_vec(),
        })
    }

    pub async fn create_api_token(
        admin: &SignedIn,
        name: &str,
        scopes: &[String],
        expires_in_days: &str,
    ) -> Result<String, AppError> {
        let language = current_language();
        let scopes = Scopes::from_names(scopes)
            .map_err(|_| AppError::Invalid(t!(language, "tokens-scopes-needed")))?;
        let days = expiry_days_from_form(expires_in_days)
            .map_err(|_| AppError::Invalid(t!(language, "tokens-expiry-invalid", max = MAX_EXPIRY_DAYS)))?;
        let spec = TokenSpec { name: name.trim().to_owned(), scopes, expiry: Expiry::Days(days) };
        let ledger = expect_context::<AppState>().ledger.clone();
        match ledger.create_token_with(&admin.tenant, &spec, &actor(admin), Some(&admin.user_id)).await {
            Ok(created) => {
                Ok(t!(language, "tokens-created", name = spec.name.as_str(), secret = created.token))
            }
            Err(LedgerError::InvalidField { field: "name", .. }) => {
                Err(AppError::Invalid(t!(language, "tokens-name-invalid")))
            }
            Err(LedgerError::Store(StoreError::Conflict(_))) => {
                Err(AppError::Invalid(t!(language, "tokens-name-taken", name = spec.name.as_str())))
            }
            Err(LedgerError::Store(error)) => Err(unavailable(error)),
            Err(other) => Err(AppError::Invalid(other.to_string())),
        }
    }

    pub async fn revoke_api_token(admin: &SignedIn, name: &str) -> Result<String, AppError> {
        let language = current_language();
        let ledger = expect_context::<AppState>().ledger.clone();
        match ledger.revoke_token(&admin.tenant, name.trim(), &admin.name).await {
            Ok(()) => Ok(t!(language, "tokens-revoked", name = name.trim())),
            Err(StoreError::NotFound) => {
                Err(AppError::NotFound(t!(language, "tokens-not-found", name = name.trim())))
            }
            Err(error) => Err(unavailable(error)),
        }
    }

    pub async fn rotate_api_token(
        admin: &SignedIn,
        name: &str,
        grace_hours: &str,
    ) -> Result<String, AppError> {
        let language = current_language();
        let hours = grace_hours_from_form(grace_hours)
            .map_err(|_| AppError::Invalid(t!(language, "tokens-grace-invalid", max = MAX_GRACE_HOURS)))?;
        let ledger = expect_context::<AppState>().ledger.clone();
        match ledger.rotate_token(&admin.tenant, name.trim(), hours, &actor(admin)).await {
            Ok(secret) if hours == 0 => {
                Ok(t!(language, "tokens-rotated-at-once", name = name.trim(), secret = secret))
            }
            Ok(secret) => {
                Ok(t!(language, "tokens-rotated", name = name.trim(), hours = hours, secret = secret))
            }
            Err(LedgerError::Store(StoreError::NotFound)) => {
                Err(AppError::NotFound(t!(language, "tokens-not-found", name = name.trim())))
            }
            Err(LedgerError::Store(error)) => Err(unavailable(error)),
            Err(other) => Err(AppError::Invalid(other.to_string())),
        }
    }
}
