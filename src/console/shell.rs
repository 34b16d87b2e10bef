//! What every page's frame needs: who is signed in (with the session's CSRF token for forms and,
//! for those who approve, how many operations wait for approval) and the sign-in form's token.

use leptos::prelude::*;
use serde::{Deserialize, Serialize};

use super::AppError;
use crate::domain::{language::Language, policy::Role};

/// The signed-in user as the pages see them, with the session's CSRF token for their forms.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Viewer {
    pub name: String,
    pub tenant: String,
    pub role: Role,
    pub csrf: String,
    /// How many operations wait for a manager's approval, for viewers who open the approvals.
    pub approvals_waiting: Option<u64>,
    /// The language the viewer chose; `None` when their browser's decides.
    pub language: Option<Language>,
}

/// The signed-in user, or `None` when the session has nobody signed in.
#[server(prefix = "/rpc", endpoint = "who_am_i")]
pub async fn who_am_i() -> Result<Option<Viewer>, AppError> {
    ssr::current_viewer().await
}

/// The session's CSRF token for the sign-in form.
#[server(prefix = "/rpc", endpoint = "sign_in_token")]
pub async fn sign_in_token() -> Result<String, AppError> {
    ssr::sign_in_csrf().await
}

#[cfg(feature = "ssr")]
pub(crate) mod ssr {
    use super::*;
    use crate::console::guard::request_session;
    use crate::domain::{machine::State, policy::Section};
    use crate::server::http::auth::{csrf_token, new_sign_in_token, sign_in_token_in, signed_in};
    use crate::server::http::state::AppState;

    /// The viewer of the current request, for server functions and pages: the signed-in user if any,
    /// and the session's CSRF token.
    pub async fn current_viewer() -> Result<Option<Viewer>, AppError> {
        let store = expect_context::<AppState>().ledger.reads();
        let session = request_session().await?;
        let Some(user) = signed_in(&session).await else {
            return Ok(None);
        };
        let csrf = csrf_token(&session).await.map_err(|_| AppError::Unavailable)?;
        let approvals_waiting = if Section::Approvals.allows(user.role) {
            let counts =
                store.count_by_state(&user.tenant).await.map_err(crate::console::guard::unavailable)?;
            Some(counts.into_iter().find(|(state, _)| *state == State::PendingApproval).map_or(0, |(_, n)| n))
        } else {
            None
        };
        Ok(Some(Viewer {
            name: user.name,
            tenant: user.tenant.to_string(),
            role: user.role,
            csrf,
            approvals_waiting,
            language: user.language,
        }))
    }

    /// The sign-in form's CSRF token: the one the browser's sign-in cookie holds, or a new one
    /// given to it with this answer. Nothing is stored on the server.
    pub async fn sign_in_csrf() -> Result<String, AppError> {
        let held =
            use_context::<axum::http::request::Parts>().and_then(|parts| sign_in_token_in(&parts.headers));
        if let Some(token) = held {
            return Ok(token);
        }
        let (token, cookie) = new_sign_in_token(expect_context::<AppState>().secure_cookies);
        let response = expect_context::<leptos_axum::ResponseOptions>();
        let cookie = axum::http::HeaderValue::from_str(&cookie).map_err(|_| AppError::Unavailable)?;
        response.append_header(axum::http::header::SET_COOKIE, cookie);
        Ok(token)
    }
}
