//! The language a tool call's `Accept-Language` asks the customer be told things in, when it names
//! one offered. The tools weigh it after the call's own `locale` and before the tenant's language
//! (`ledger::tools`).

use axum::http::{header::ACCEPT_LANGUAGE, HeaderMap};

use crate::domain::language::Language;

/// The language offered that `headers`' `Accept-Language` asks for first, if any.
pub fn accepted_language(headers: &HeaderMap) -> Option<Language> {
    let asked = headers.get(ACCEPT_LANGUAGE).and_then(|value| value.to_str().ok());
    asked.and_then(Language::from_accept_language)
}
