//! The people page's changes: an admin changes a person's role, deactivates or reactivates them,
//! signs them out everywhere, makes a one-time link for a new password, or resets their
//! two-factor sign-in, each with a reason
//! kept in the audit trail; the session lifetimes the access page shows; and the public password
//! page reads whether its link still works.

use leptos::prelude::*;

use super::AppError;

/// Makes `change` (`role`, `deactivate`, `reactivate`, `sign_out`, `reset_password` or
/// `reset_two_factor`) to the
/// tenant's user `name`, for `reason`; `role` names the new role of a `role` change, and
/// `tokens_to` the user who takes over a deactivated person's API tokens (empty: revoke them). Answers
/// what it did in words; a reset's answer carries the one-time link, shown this once.
#[server(prefix = "/rpc", endpoint = "change_person")]
pub async fn change_person(
    csrf: String,
    name: String,
    change: String,
    #[server(default)] role: String,
    #[server(default)] reason: String,
    #[server(default)] tokens_to: String,
) -> Result<String, AppError> {
    use crate::domain::policy::Section;
    let admin = crate::console::guard::require_for_change(Section::Admin, &csrf).await?;
    ssr::change_person(&admin, &name, &change, &role, &reason, &tokens_to)
        .await
        .inspect_err(crate::console::guard::set_error_status)
}

/// How long a console session lives, as this server was started with.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct SessionLifetimesView {
    pub idle_minutes: i64,
    pub absolute_hours: i64,
}

/// The session lifetimes this server keeps (`--session-idle`, `--session-max`).
#[server(prefix = "/rpc", endpoint = "session_settings")]
pub async fn session_settings() -> Result<SessionLifetimesView, AppError> {
    use crate::domain::policy::Section;
    use crate::server::http::state::AppState;
    crate::console::guard::require(Section::Admin).await?;
    let lifetimes = expect_context::<AppState>().session_lifetimes;
    Ok(SessionLifetimesView {
        idle_minutes: lifetimes.idle.num_minutes(),
        absolute_hours: lifetimes.absolute.num_hours(),
    })
}

/// The person a password reset link is for, while it works; `NotFound` once it is used,
/// expired, or never existed. Anyone may ask: the link's secret is the key.
#[server(prefix = "/rpc", endpoint = "password_reset_for")]
pub async fn password_reset_for(token: String) -> Result<String, AppError> {
    ssr::password_reset_for(&token).await.inspect_err(crate::console::guard::set_error_status)
}

#[cfg(feature = "ssr")]
mod ssr {
    use super::*;
    use crate::console::guard::{unavailable, SignedIn};
    use crate::console::language::current_language;
    use crate::domain::people::{PeopleChange, PeopleRefusal};
    use crate::domain::policy::Role;
    use crate::server::http::state::AppState;
    use crate::server::ledger::people::{
        ChangedBy, PeopleError, PASSWORD_RESET_PATH, PASSWORD_RESET_VALID_MINUTES,
    };
    use crate::t;

    fn change_of(
        change: &str,
        role: &str,
        language: crate::domain::language::Language,
    ) -> Result<PeopleChange, AppError> {
        match change {
            "role" => Role::parse(role)
                .map(PeopleChange::SetRole)
                .ok_or_else(|| AppError::Invalid(t!(language, "admin-user-role-unknown", role = role))),
            "deactivate" => Ok(PeopleChange::Deactivate),
            "reactivate" => Ok(PeopleChange::Reactivate),
            "sign_out" => Ok(PeopleChange::SignOutEverywhere),
            "reset_password" => Ok(PeopleChange::ResetPassword),
            "reset_two_factor" => Ok(PeopleChange::ResetTwoFactor),
            other => Err(AppError::Invalid(t!(language, "people-change-unknown", change = other))),
        }
    }

    fn refusal_words(refusal: PeopleRefusal, language: crate::domain::language::Language) -> String {
        match refusal {
            PeopleRefusal::OwnRole => t!(language, "people-refused-own-role"),
            PeopleRefusal::OwnDeactivation => t!(language, "people-refused-own-deactivation"),
            PeopleRefusal::LastAdmin => t!(language, "people-refused-last-admin"),
            PeopleRefusal::PasswordElsewhere => t!(language, "people-refused-password-elsewhere"),
            PeopleRefusal::Deactivated => t!(language, "people-refused-deactivated"),
            PeopleRefusal::NoTokenHeir => t!(language, "people-refused-token-heir"),
            PeopleRefusal::RoleFromGroups => t!(language, "people-refused-role-from-groups"),
            PeopleRefusal::TwoFactorElsewhere => t!(language, "two-factor-refused-sso"),
        }
    }

    pub async fn change_person(
        admin: &SignedIn,
        name: &str,
        change: &str,
        role: &str,
        reason: &str,
        tokens_to: &str,
    ) -> Result<String, AppError> {
        let language = current_language();
        let change = change_of(change, role, language)?;
        let name = name.trim();
        let ledger = expect_context::<AppState>().ledger.clone();
        let by = ChangedBy { name: admin.name.clone(), user_id: Some(admin.user_id.clone()) };
        let tokens_to = Some(tokens_to).filter(|heir| !heir.trim().is_empty());
        let changed = match ledger.change_person(&admin.tenant, name, change, reason, tokens_to, &by).await {
            Ok(changed) => changed,
            Err(PeopleError::NoSuchUser(missing)) => {
                return Err(AppError::NotFound(t!(language, "admin-user-not-found", name = missing)))
            }
            Err(PeopleError::Refused(refusal)) => {
                return Err(AppError::Invalid(refusal_words(refusal, language)))
            }
            Err(PeopleError::Invalid(_)) => {
                return Err(AppError::Invalid(t!(language, "people-reason-needed")))
            }
            Err(PeopleError::Store(error)) => return Err(unavailable(error)),
        };
        let sessions = changed.sessions_ended;
        Ok(match change {
            PeopleChange::SetRole(role) => {
                t!(
                    language,
                    "people-role-set",
                    name = name,
                    role = role.label_in(language),
                    sessions = sessions
                )
            }
            PeopleChange::Deactivate => {
                let deactivated = t!(language, "people-deactivated", name = name, sessions = sessions);
                let tokens = if changed.tokens_reassigned > 0 {
                    t!(
                        language,
                        "people-tokens-reassigned",
                        count = changed.tokens_reassigned,
                        heir = tokens_to.unwrap_or_default()
                    )
                } else {
                    t!(language, "people-tokens-revoked", count = changed.tokens_revoked)
                };
                format!("{deactivated} {tokens}")
            }
            PeopleChange::Reactivate => t!(language, "people-reactivated", name = name),
            PeopleChange::SignOutEverywhere => {
                t!(language, "people-signed-out", name = name, sessions = sessions)
            }
            PeopleChange::ResetTwoFactor => {
                t!(language, "two-factor-reset-done", name = name, sessions = sessions)
            }
            PeopleChange::ResetPassword => {
                let secret = changed.reset_secret.unwrap_or_default();
                let link = format!("{}{PASSWORD_RESET_PATH}?token={secret}", console_origin().await);
                t!(
                    language,
                    "people-reset-made",
                    name = name,
                    link = link,
                    minutes = PASSWORD_RESET_VALID_MINUTES
                )
            }
        })
    }

    /// The console's origin as the admin's browser reached it (`https://ops.example.com`), for a
    /// link they pass on; `https` when cookies are marked `Secure`.
    async fn console_origin() -> String {
        let secure = expect_context::<AppState>().secure_cookies;
        let headers: axum::http::HeaderMap = leptos_axum::extract().await.unwrap_or_default();
        crate::server::http::oidc::console_origin(&headers, secure)
            .unwrap_or_else(|| format!("{}://localhost", if secure { "https" } else { "http" }))
    }

    pub async fn password_reset_for(token: &str) -> Result<String, AppError> {
        let language = current_language();
        let ledger = expect_context::<AppState>().ledger.clone();
        match ledger.password_reset(token.trim()).await {
            Ok(Some(reset)) => Ok(reset.user_name),
            Ok(None) => Err(AppError::NotFound(t!(language, "reset-link-dead"))),
            Err(error) => Err(unavailable(error)),
        }
    }
}
