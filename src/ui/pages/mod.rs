//! The console's pages, one module each, and the page for an unknown address.

pub mod account;
pub mod admin;
pub mod approvals;
pub mod audit;
pub mod bulk;
pub mod conflicts;
pub mod email_templates;
pub mod login;
pub mod my_notifications;
pub mod operation;
pub mod operations;
pub mod orders;
pub mod overview;
pub mod password_reset;
pub mod reconcile;
pub mod search;
pub mod two_factor;

use leptos::prelude::*;
use leptos_meta::Title;

use crate::console::language::current_language;
use crate::t;

#[component]
pub fn NotFound() -> impl IntoView {
    #[cfg(feature = "ssr")]
    if let Some(response) = use_context::<leptos_axum::ResponseOptions>() {
        response.set_status(axum::http::StatusCode::NOT_FOUND);
    }
    let language = current_language();
    view! {
        <Title text=t!(language, "not-found-title")/>
        <h1>{t!(language, "not-found-title")}</h1>
        <section class="empty-state">
            <p>{t!(language, "not-found-text")}" "<a href="/">{t!(language, "error-next-overview")}</a></p>
        </section>
    }
}
