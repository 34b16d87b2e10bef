//! Two-factor sign-in beyond a person's own account: the second step of a sign-in (its page reads
//! whom it is for and the form's token; the code goes to `POST /login/two-factor`), and the
//! tenant's switch that requires it of managers and admins, on the sign-in and access page.

use leptos::prelude::*;
use serde::{Deserialize, Serialize};

use super::AppError;

/// The sign-in waiting for its second factor in this browser.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SecondStepView {
    pub name: String,
    pub csrf: String,
}

/// Whom the second step is for, and its form's token; `NotFound` when no sign-in waits (none
/// started, or its five minutes are over). Anyone may ask: it reads only this browser's session.
#[server(prefix = "/rpc", endpoint = "second_step_for")]
pub async fn second_step_for() -> Result<SecondStepView, AppError> {
    ssr::second_step_for().await.inspect_err(crate::console::guard::set_error_status)
}

/// Whether the admin's tenant requires two-factor sign-in of managers and admins.
#[server(prefix = "/rpc", endpoint = "two_factor_requirement")]
pub async fn two_factor_requirement() -> Result<bool, AppError> {
    use crate::domain::policy::Section;
    let admin = crate::console::guard::require(Section::Admin).await?;
    ssr::requirement(&admin).await.inspect_err(crate::console::guard::set_error_status)
}

/// Requires two-factor sign-in of the tenant's managers and admins (`required` = `on`) or not.
#[server(prefix = "/rpc", endpoint = "set_two_factor_required")]
pub async fn set_two_factor_required(csrf: String, required: String) -> Result<String, AppError> {
    use crate::domain::policy::Section;
    let admin = crate::console::guard::require_for_change(Section::Admin, &csrf).await?;
    ssr::set_required(&admin, &required).await.inspect_err(crate::console::guard::set_error_status)
}

#[cfg(feature = "ssr")]
mod ssr {
    use super::*;
    use crate::console::guard::{reads, request_session, unavailable, SignedIn};
    use crate::console::language::current_language;
    use crate::server::http::auth::{csrf_token, pending_sign_in};
    use crate::server::http::state::AppState;
    use crate::t;

    pub async fn second_step_for() -> Result<SecondStepView, AppError> {
        let language = current_language();
        let session = request_session().await?;
        let pending = pending_sign_in(&session)
            .await
            .ok_or_else(|| AppError::NotFound(t!(language, "two-factor-step-expired")))?;
        let csrf = csrf_token(&session).await.map_err(|_| AppError::Unavailable)?;
        Ok(SecondStepView { name: pending.user.name, csrf })
    }

    pub async fn requirement(admin: &SignedIn) -> Result<bool, AppError> {
        reads().two_factor_required(&admin.tenant).await.map_err(unavailable)
    }

    pub async fn set_required(admin: &SignedIn, required: &str) -> Result<String, AppError> {
        let language = current_language();
        let required = match required {
            "on" => true,
            "off" => false,
            _ => return Err(AppError::Invalid(t!(language, "two-factor-switch-unknown"))),
        };
        let ledger = expect_context::<AppState>().ledger.clone();
        ledger.set_two_factor_required(&admin.tenant, required, &admin.name).await.map_err(unavailable)?;
        Ok(if required {
            t!(language, "two-factor-required-on")
        } else {
            t!(language, "two-factor-required-off")
        })
    }
}
