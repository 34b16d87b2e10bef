//! The console's pages that need no data of their own yet: the overview, sections still to come,
//! and the page for an unknown address.

use leptos::prelude::*;
use leptos_meta::Title;

#[component]
pub fn Overview() -> impl IntoView {
    view! {
        <Title text="Overview"/>
        <h1>"Overview"</h1>
        <p class="lede">
            "opledger records every side-effecting operation before it is sent, under an id derived from its business intent, and settles unknown results without ever doing the thing twice."
        </p>
        <section class="empty-state">
            <h2>"Operations are recorded through the ledger API"</h2>
            <p>
                "Agents and tools register each operation at "<code>"/api/v1/operations"</code>
                " before sending it, or call the tools at "<code>"/api/v1/tools"</code>". The API is described at "
                <a href="/api/v1/openapi.json">"/api/v1/openapi.json"</a>"."
            </p>
        </section>
    }
}

/// A section of the console that is not built yet, saying what it will show.
#[component]
pub fn Upcoming(title: &'static str, what: &'static str) -> impl IntoView {
    view! {
        <Title text=title/>
        <h1>{title}</h1>
        <section class="empty-state">
            <h2>"Not available yet"</h2>
            <p>{what}</p>
        </section>
    }
}

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
