//! The "Your account" page's slice (`/account`): a signed-in person's own two-factor sign-in.
//! Where it stands; start setting it up (a new secret, shown as a QR code and written out until a
//! first code confirms it); confirm with a first code (the ten recovery codes are the answer, and
//! the page shows them once); turn it off with a current code. These are the only server
//! functions a manager or admin whose tenant requires two-factor sign-in may call before they set
//! it up.

use leptos::prelude::*;
use serde::{Deserialize, Serialize};

use super::AppError;

/// A secret to scan or type into an authenticator app.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct EnrolmentView {
    /// The secret in base32, for manual entry.
    pub secret: String,
    pub uri: String,
    /// The URI's QR code, an SVG element drawn on the server.
    pub qr_svg: String,
}

/// The signed-in person's account as their page shows it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct AccountView {
    pub name: String,
    pub tenant: String,
    pub csrf: String,
    /// Whether two-factor sign-in is for them (local users; an SSO user's provider does it).
    pub offered: bool,
    pub on: bool,
    /// Whether they must set it up before anything else.
    pub must_enrol: bool,
    /// Whether their tenant requires it of their role.
    pub required: bool,
    pub may_turn_off: bool,
    /// Whether the server can keep a secret (it has an `OPLEDGER_SECRET_KEY`).
    pub seals_secrets: bool,
    pub enrolling: Option<EnrolmentView>,
    pub recovery_codes_left: u64,
    /// The recovery codes of the set-up just confirmed, shown this once.
    pub new_recovery_codes: Vec<String>,
}

/// The signed-in person's account.
#[server(prefix = "/rpc", endpoint = "my_account")]
pub async fn my_account() -> Result<AccountView, AppError> {
    let user = crate::console::guard::require_own_account(None).await?;
    ssr::my_account(&user).await.inspect_err(crate::console::guard::set_error_status)
}

/// Starts setting up two-factor sign-in: a new secret (replacing one not yet confirmed).
#[server(prefix = "/rpc", endpoint = "start_two_factor")]
pub async fn start_two_factor(csrf: String) -> Result<EnrolmentView, AppError> {
    let user = crate::console::guard::require_own_account(Some(&csrf)).await?;
    ssr::start(&user).await.inspect_err(crate::console::guard::set_error_status)
}

/// Confirms the set-up with a first code from the app; answers the ten recovery codes.
#[server(prefix = "/rpc", endpoint = "confirm_two_factor")]
pub async fn confirm_two_factor(csrf: String, code: String) -> Result<Vec<String>, AppError> {
    let user = crate::console::guard::require_own_account(Some(&csrf)).await?;
    ssr::confirm(&user, &code).await.inspect_err(crate::console::guard::set_error_status)
}

/// Turns two-factor sign-in off, with a current code (or a recovery code).
#[server(prefix = "/rpc", endpoint = "turn_off_two_factor")]
pub async fn turn_off_two_factor(csrf: String, code: String) -> Result<String, AppError> {
    let user = crate::console::guard::require_own_account(Some(&csrf)).await?;
    ssr::turn_off(&user, &code).await.inspect_err(crate::console::guard::set_error_status)
}

#[cfg(feature = "ssr")]
mod ssr {
    use super::*;
    use crate::console::guard::{request_session, unavailable, SignedIn};
    use crate::console::language::current_language;
    use crate::domain::language::Language;
    use crate::server::http::auth::{csrf_token, enrolment_done, must_enrol};
    use crate::server::http::state::AppState;
    use crate::server::ledger::two_factor::{Enrolment, Holder, TwoFactorError};
    use crate::t;

    /// The session key of recovery codes waiting to be shown once.
    const NEW_CODES_KEY: &str = "recovery_codes_to_show";

    fn holder(user: &SignedIn) -> Holder<'_> {
        Holder { tenant: &user.tenant, user_id: &user.user_id, name: &user.name, role: user.role }
    }

    fn view_of(enrolment: Enrolment) -> EnrolmentView {
        EnrolmentView { secret: enrolment.secret, uri: enrolment.uri, qr_svg: enrolment.qr_svg }
    }

    fn refused(error: TwoFactorError, language: Language) -> AppError {
        match error {
            TwoFactorError::NoSecretKey => AppError::Invalid(t!(language, "two-factor-no-key")),
            TwoFactorError::NotOffered => AppError::Invalid(t!(language, "two-factor-refused-sso")),
            TwoFactorError::AlreadyOn => AppError::Invalid(t!(language, "two-factor-already-on")),
            TwoFactorError::NotOn => AppError::Invalid(t!(language, "two-factor-not-on")),
            TwoFactorError::NotStarted => AppError::Invalid(t!(language, "two-factor-not-started")),
            TwoFactorError::WrongCode => AppError::Invalid(t!(language, "two-factor-wrong-code")),
            TwoFactorError::Required => AppError::Invalid(t!(language, "two-factor-required-stays")),
            TwoFactorError::NoSuchUser => AppError::SignedOut,
            TwoFactorError::Sealed => {
                tracing::error!("a two-factor secret does not open with this server's OPLEDGER_SECRET_KEY");
                AppError::Invalid(t!(language, "two-factor-no-key"))
            }
            TwoFactorError::Store(error) => unavailable(error),
        }
    }

    pub async fn my_account(user: &SignedIn) -> Result<AccountView, AppError> {
        let language = current_language();
        let ledger = expect_context::<AppState>().ledger.clone();
        let session = request_session().await?;
        let csrf = csrf_token(&session).await.map_err(|_| AppError::Unavailable)?;
        let state = ledger.two_factor_state(holder(user)).await.map_err(|error| refused(error, language))?;
        let new_recovery_codes: Vec<String> =
            session.remove(NEW_CODES_KEY).await.ok().flatten().unwrap_or_default();
        Ok(AccountView {
            name: user.name.clone(),
            tenant: user.tenant.to_string(),
            csrf,
            offered: state.offered,
            on: state.on,
            must_enrol: must_enrol(&session).await && !state.on,
            required: state.tenant_requires && crate::domain::two_factor::role_requires(user.role),
            may_turn_off: state.may_turn_off,
            seals_secrets: ledger.seals_secrets(),
            enrolling: state.enrolling.map(view_of),
            recovery_codes_left: state.recovery_codes_left,
            new_recovery_codes,
        })
    }

    pub async fn start(user: &SignedIn) -> Result<EnrolmentView, AppError> {
        let language = current_language();
        let ledger = expect_context::<AppState>().ledger.clone();
        ledger.start_two_factor(holder(user)).await.map(view_of).map_err(|error| refused(error, language))
    }

    pub async fn confirm(user: &SignedIn, code: &str) -> Result<Vec<String>, AppError> {
        let language = current_language();
        let ledger = expect_context::<AppState>().ledger.clone();
        let codes =
            ledger.confirm_two_factor(holder(user), code).await.map_err(|error| refused(error, language))?;
        let session = request_session().await?;
        if let Err(error) = enrolment_done(&session).await {
            tracing::error!(%error, "could not note a set-up of two-factor sign-in in its session");
        }
        if let Err(error) = session.insert(NEW_CODES_KEY, &codes).await {
            tracing::warn!(%error, "could not keep the recovery codes for the account page");
        }
        Ok(codes)
    }

    pub async fn turn_off(user: &SignedIn, code: &str) -> Result<String, AppError> {
        let language = current_language();
        let ledger = expect_context::<AppState>().ledger.clone();
        ledger.turn_off_two_factor(holder(user), code).await.map_err(|error| refused(error, language))?;
        Ok(t!(language, "two-factor-turned-off"))
    }
}
