//! The language a page, a server function or an island speaks. On the server it is the one the
//! request was given (the signed-in user's choice, else the browser's `Accept-Language`, else
//! English: `crate::server::http::auth`); in the browser it is the page's own `<html lang>`, which
//! the server wrote, so an island's first render matches the server's and its later ones speak the
//! same language.

use crate::domain::language::Language;

/// The language of what is being rendered or answered now.
pub fn current_language() -> Language {
    #[cfg(feature = "ssr")]
    {
        leptos::prelude::use_context::<axum::http::request::Parts>()
            .and_then(|parts| parts.extensions.get::<Language>().copied())
            .unwrap_or_default()
    }
    #[cfg(all(feature = "hydrate", not(feature = "ssr")))]
    {
        web_sys::window()
            .and_then(|window| window.document())
            .and_then(|document| document.document_element())
            .and_then(|root| root.get_attribute("lang"))
            .and_then(|tag| Language::parse(&tag))
            .unwrap_or_default()
    }
    #[cfg(not(any(feature = "ssr", feature = "hydrate")))]
    Language::default()
}
