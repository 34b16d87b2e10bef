//! `POST /password-reset`: the form a one-time password link opens. The link's secret is the
//! key (no session is needed, and none is started): a new password of at least ten characters,
//! typed twice, replaces the old one once, ends the person's sessions, and sends them to sign in.

use axum::{
    extract::{rejection::FormRejection, State},
    response::{IntoResponse, Redirect, Response},
    Form,
};
use serde::Deserialize;

use super::state::AppState;
use crate::server::ledger::people::{PeopleError, PASSWORD_RESET_PATH};

#[derive(Debug, Default, Deserialize)]
#[serde(default)]
pub struct NewPasswordForm {
    token: String,
    password: String,
    password_again: String,
}

/// The password page again, for the link `token`, with the problem `error`.
fn back_to_form(token: &str, error: &str) -> Response {
    let query = serde_urlencoded::to_string([("token", token), ("error", error)]).unwrap_or_default();
    Redirect::to(&format!("{PASSWORD_RESET_PATH}?{query}")).into_response()
}

pub async fn set_new_password(
    State(state): State<AppState>,
    form: Result<Form<NewPasswordForm>, FormRejection>,
) -> Response {
    let Ok(Form(form)) = form else {
        return back_to_form("", "unreadable");
    };
    let token = form.token.trim();
    if form.password != form.password_again {
        return back_to_form(token, "mismatch");
    }
    match state.ledger.use_password_reset(token, &form.password).await {
        Ok(Some(user)) => {
            tracing::info!(user = %user.name, tenant = %user.tenant, "set a new password through a reset link");
            let query = serde_urlencoded::to_string([
                ("reset", "1"),
                ("username", user.name.as_str()),
                ("tenant", user.tenant.as_str()),
            ])
            .unwrap_or_default();
            Redirect::to(&format!("/login?{query}")).into_response()
        }
        Ok(None) => back_to_form("", "dead"),
        Err(PeopleError::Invalid(_)) => back_to_form(token, "weak"),
        Err(error) => {
            tracing::error!(%error, "could not set a new password");
            back_to_form(token, "unavailable")
        }
    }
}
