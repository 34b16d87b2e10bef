//! The console's pages, one module each, and the page for an unknown address.

pub mod admin;
pub mod approvals;
pub mod audit;
pub mod bulk;
pub mod conflicts;
pub mod email_templates;
pub mod login;
pub mod operation;
pub mod operations;
pub mod orders;
pub mod overview;
pub mod reconcile;
pub mod search;

use leptos::prelude::*;
use leptos_meta::Title;

#[component]
pub fn NotFound() -> impl IntoView {
    #[cfg(feature = "ssr")]
    if let Some(response) = use_context::<leptos_axum::ResponseOptions>() {
        response.set_status(axum::http::StatusCode::NOT_FOUND);
    }
    view! {
        <Title text="Page not found"/>
        <h1>"Page not found"</h1>
        <section class="empty-state">
            <p>"There is no page at this address. Use the navigation above, or go back to the "<a href="/">"overview"</a>"."</p>
        </section>
    }
}
