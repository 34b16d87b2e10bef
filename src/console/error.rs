//! The error type of every server function: a stable code and a sentence for people.

use leptos::server_fn::codec::JsonEncoding;
use leptos::server_fn::error::{FromServerFnError, ServerFnErrorErr};
use serde::{Deserialize, Serialize};

use crate::domain::language::Language;
use crate::t;

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, thiserror::Error)]
#[serde(rename_all = "snake_case", tag = "code", content = "detail")]
pub enum AppError {
    /// The server or its database could not answer; the cause is in the server's log.
    #[error("The server could not reach its database. Try again in a moment.")]
    Unavailable,
    /// Nobody is signed in to this session (or it has expired).
    #[error("You are signed out. Sign in again to continue.")]
    SignedOut,
    /// The signed-in user's role does not open this.
    #[error("Your role does not allow this. Ask an admin if you need it.")]
    Forbidden,
    /// The tenant requires the signed-in user to set up two-factor sign-in before anything else.
    #[error(
        "Your tenant requires two-factor sign-in for your role: set it up on Your account (/account) first."
    )]
    TwoFactorFirst,
    /// The form's CSRF token is not the session's: an old page, or a request from another site.
    #[error("This form has expired. Reload the page and try again.")]
    FormExpired,
    /// What was asked for does not exist in this tenant.
    #[error("There is nothing here: {0}.")]
    NotFound(String),
    /// The input was refused; the sentence says what to change.
    #[error("{0}")]
    Invalid(String),
    /// One field of a form was refused: the form's name of the field (a page shows the sentence
    /// beside it) and the sentence, which names the field as the page labels it.
    #[error("{sentence}")]
    InvalidField { field: String, sentence: String },
    /// What was asked for is in the archive, and its archive file is not as the server signed it:
    /// nothing of it is shown. The sentence (in the request's language) says why.
    #[error("{0}")]
    ArchiveUntrusted(String),
    /// The request did not reach the server function or its answer did not come back.
    #[error("The server could not be reached ({0}).")]
    Transport(String),
}

impl AppError {
    /// The error as a sentence in `language`. A refusal's own sentence (`Invalid`) was written in
    /// the request's language where it was made.
    pub fn words(&self, language: Language) -> String {
        match self {
            AppError::Unavailable => t!(language, "error-unavailable"),
            AppError::SignedOut => t!(language, "error-signed-out"),
            AppError::Forbidden => t!(language, "error-forbidden"),
            AppError::TwoFactorFirst => t!(language, "error-two-factor-first"),
            AppError::FormExpired => t!(language, "error-form-expired"),
            AppError::NotFound(what) => t!(language, "error-not-found", what = what),
            AppError::Invalid(sentence)
            | AppError::InvalidField { sentence, .. }
            | AppError::ArchiveUntrusted(sentence) => sentence.clone(),
            AppError::Transport(detail) => t!(language, "error-transport", detail = detail),
        }
    }
}

impl FromServerFnError for AppError {
    type Encoder = JsonEncoding;

    /// A request whose arguments the server could not read (a missing field, the CSRF token
    /// included, bad encoding, or bytes that are not text) is refused with a 4xx and words, the
    /// decoder's own text kept for the log; anything else is a call that did not come back.
    fn from_server_fn_error(value: ServerFnErrorErr) -> Self {
        match value {
            #[cfg(feature = "ssr")]
            ServerFnErrorErr::Args(_)
            | ServerFnErrorErr::MissingArg(_)
            | ServerFnErrorErr::Deserialization(_) => {
                tracing::info!(error = %value, "a server function request could not be read");
                let language = super::language::current_language();
                let error = AppError::Invalid(t!(language, "error-unreadable-request"));
                super::guard::set_error_status(&error);
                error
            }
            other => AppError::Transport(other.to_string()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn errors_travel_as_a_code_and_come_back_intact() {
        let bytes = AppError::Unavailable.ser();
        assert_eq!(std::str::from_utf8(&bytes).unwrap(), r#"{"code":"unavailable"}"#);
        assert_eq!(AppError::de(bytes), AppError::Unavailable);
        let garbage = AppError::de("<html>proxy error</html>".into());
        assert!(
            matches!(garbage, AppError::Invalid(_)),
            "on the server, what cannot be decoded is a request it could not read: {garbage:?}"
        );
    }
}
