//! The console's slice of signing in through a tenant's identity provider: the admin's section
//! (the settings as shown, with the URLs to register at the provider; forms to save them, which
//! checks the provider before anything is stored, and to remove them; admins only, for their own
//! tenant), the sign-in page's company step (the button's name for the organisation a link names),
//! and what a refused company sign-in says on the sign-in page.

use leptos::prelude::*;
use serde::{Deserialize, Serialize};

use super::AppError;
use crate::domain::language::Language;
use crate::t;

/// The tenant's identity provider as its admin sees it (never the secret, only its last four).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct SsoView {
    /// Settings are stored.
    pub configured: bool,
    pub issuer: String,
    pub client_id: String,
    pub secret_last4: String,
    pub display_name: String,
    pub groups_claim: String,
    /// One `group = role` a line.
    pub group_roles: String,
    pub allowed_domains: String,
    pub sso_only: bool,
    pub break_glass_user: String,
    pub sign_in_domains: String,
    /// What to register at the provider: where it sends people back.
    pub redirect_uri: String,
    /// Where the provider posts logout tokens for this tenant.
    pub backchannel_logout_uri: String,
}

/// What a refused company sign-in (`error=<code>` on the sign-in page) says; `account` is what the
/// sign-in page was given with it.
pub fn sign_in_problem(code: &str, account: &str, language: Language) -> Option<String> {
    Some(match code {
        "sso_unknown" => t!(language, "sso-problem-unknown", account = account),
        "sso_unavailable" => t!(language, "sso-problem-unavailable"),
        "sso_expired" => t!(language, "sso-problem-expired"),
        "sso_refused" => t!(language, "sso-problem-refused"),
        "sso_invalid" => t!(language, "sso-problem-invalid"),
        "sso_domain" => t!(language, "sso-problem-domain", account = account),
        "sso_groups_not_list" => t!(language, "sso-problem-groups", account = account),
        "sso_deactivated" => t!(language, "sso-problem-deactivated"),
        "sso_no_email" => t!(language, "sso-problem-no-email"),
        "sso_name_taken" => t!(language, "sso-problem-name-taken", account = account),
        "sso_only" => t!(language, "sso-problem-only"),
        "sso_limited" => t!(language, "sso-problem-limited"),
        _ => return None,
    })
}

/// The company sign-in the sign-in page offers: whether any organisation signs in through a
/// provider, and the button's name for the one `account` names (a link such as
/// `/login?account=acme.example`), if it does.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct CompanySignInOffer {
    pub offered: bool,
    pub display_name: Option<String>,
}

#[server(prefix = "/rpc", endpoint = "company_sign_in")]
pub async fn company_sign_in(#[server(default)] account: String) -> Result<CompanySignInOffer, AppError> {
    ssr::company_sign_in(&account).await
}

/// The tenant's identity provider settings; admins only.
#[server(prefix = "/rpc", endpoint = "sso_settings")]
pub async fn sso_settings() -> Result<SsoView, AppError> {
    use crate::domain::policy::Section;
    let admin = crate::console::guard::require(Section::Admin).await?;
    ssr::sso_settings(&admin).await.inspect_err(crate::console::guard::set_error_status)
}

/// Saves the tenant's identity provider once the provider answers and every field is right;
/// nothing is saved otherwise. An empty `client_secret` keeps the stored one.
#[allow(clippy::too_many_arguments)]
#[server(prefix = "/rpc", endpoint = "set_sso_settings")]
pub async fn set_sso_settings(
    csrf: String,
    #[server(default)] issuer: String,
    #[server(default)] client_id: String,
    #[server(default)] client_secret: String,
    #[server(default)] display_name: String,
    #[server(default)] groups_claim: String,
    #[server(default)] group_roles: String,
    #[server(default)] allowed_domains: String,
    #[server(default)] sso_only: String,
    #[server(default)] break_glass_user: String,
    #[server(default)] sign_in_domains: String,
) -> Result<String, AppError> {
    use crate::domain::policy::Section;
    let admin = crate::console::guard::require_for_change(Section::Admin, &csrf).await?;
    let input = crate::server::ledger::sso::SsoSettingsInput {
        issuer,
        client_id,
        client_secret: Some(client_secret),
        display_name,
        groups_claim,
        group_roles,
        allowed_domains,
        sso_only: matches!(sso_only.as_str(), "on" | "yes" | "true"),
        break_glass_user,
        sign_in_domains,
    };
    ssr::set_sso_settings(&admin, input).await.inspect_err(crate::console::guard::set_error_status)
}

/// Removes the tenant's identity provider, once `confirmed` is `yes`.
#[server(prefix = "/rpc", endpoint = "remove_sso_settings")]
pub async fn remove_sso_settings(
    csrf: String,
    #[server(default)] confirmed: String,
) -> Result<String, AppError> {
    use crate::domain::policy::Section;
    let admin = crate::console::guard::require_for_change(Section::Admin, &csrf).await?;
    ssr::remove_sso_settings(&admin, confirmed.trim() == "yes")
        .await
        .inspect_err(crate::console::guard::set_error_status)
}

#[cfg(feature = "ssr")]
pub(crate) mod ssr {
    use super::*;
    use crate::console::guard::{actor, refused, unavailable, SignedIn};
    use crate::console::language::current_language;
    use crate::domain::sso::group_roles_text;
    use crate::server::http::oidc::{console_origin, BACKCHANNEL_LOGOUT_PATH, CALLBACK_PATH};
    use crate::server::http::state::AppState;
    use crate::server::ledger::sso::SsoSettingsInput;
    use crate::server::store::StoreError;

    async fn origin() -> String {
        let state = expect_context::<AppState>();
        let headers: axum::http::HeaderMap = leptos_axum::extract().await.unwrap_or_default();
        console_origin(&headers, state.secure_cookies).unwrap_or_default()
    }

    pub async fn company_sign_in(account: &str) -> Result<CompanySignInOffer, AppError> {
        let ledger = expect_context::<AppState>().ledger.clone();
        let offered = ledger.sso_offered().await.map_err(unavailable)?;
        let display_name = match account.trim() {
            "" => None,
            account => ledger
                .sso_tenant_for(account)
                .await
                .map_err(unavailable)?
                .map(|settings| settings.display_name),
        };
        Ok(CompanySignInOffer { offered, display_name })
    }

    pub async fn sso_settings(admin: &SignedIn) -> Result<SsoView, AppError> {
        let ledger = expect_context::<AppState>().ledger.clone();
        let origin = origin().await;
        let mut view = SsoView {
            redirect_uri: format!("{origin}{CALLBACK_PATH}"),
            backchannel_logout_uri: format!("{origin}{BACKCHANNEL_LOGOUT_PATH}{}", admin.tenant),
            groups_claim: crate::domain::sso::DEFAULT_GROUPS_CLAIM.to_owned(),
            ..SsoView::default()
        };
        if let Some(settings) = ledger.sso_settings(&admin.tenant).await.map_err(unavailable)? {
            view = SsoView {
                configured: true,
                issuer: settings.issuer,
                client_id: settings.client_id,
                secret_last4: settings.secret_last4,
                display_name: settings.display_name,
                groups_claim: settings.groups_claim,
                group_roles: group_roles_text(&settings.group_roles),
                allowed_domains: settings.allowed_domains.join(", "),
                sso_only: settings.sso_only,
                break_glass_user: settings.break_glass_user.unwrap_or_default(),
                sign_in_domains: settings.sign_in_domains.join(", "),
                ..view
            };
        }
        Ok(view)
    }

    pub async fn set_sso_settings(admin: &SignedIn, input: SsoSettingsInput) -> Result<String, AppError> {
        let language = current_language();
        let ledger = expect_context::<AppState>().ledger.clone();
        let issuer = input.issuer.trim().trim_end_matches('/').to_owned();
        ledger
            .set_sso_settings(&admin.tenant, &actor(admin), input)
            .await
            .map_err(|error| refused(error, "", admin))?;
        Ok(t!(language, "sso-admin-saved", issuer = issuer))
    }

    pub async fn remove_sso_settings(admin: &SignedIn, confirmed: bool) -> Result<String, AppError> {
        let language = current_language();
        if !confirmed {
            return Err(AppError::Invalid(t!(language, "sso-admin-remove-unconfirmed")));
        }
        let ledger = expect_context::<AppState>().ledger.clone();
        match ledger.remove_sso_settings(&admin.tenant, &actor(admin)).await {
            Ok(()) => Ok(t!(language, "sso-admin-removed")),
            Err(StoreError::NotFound) => Err(AppError::NotFound(t!(language, "sso-admin-nothing-to-remove"))),
            Err(error) => Err(unavailable(error)),
        }
    }
}
