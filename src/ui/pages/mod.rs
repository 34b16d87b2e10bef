//! The console's pages, one module each, and the pages with no data of their own: sections still
//! to come (checked for the viewer's role like every other page) and the page for an unknown
//! address.

pub mod admin;
pub mod approvals;
pub mod bulk;
pub mod conflicts;
pub mod login;
pub mod operation;
pub mod operations;
pub mod orders;
pub mod overview;
pub mod reconcile;

use leptos::prelude::*;
use leptos_meta::Title;

use crate::api::open_section;
use crate::domain::policy::Section;
use crate::ui::widgets::ErrorPanel;

/// A section whose tools are not built yet: says what it will hold, to those whose role opens it.
#[component]
pub fn Upcoming(section: Section, what: &'static str) -> impl IntoView {
    let access = Resource::new(move || section, open_section);
    view! {
        <Title text=section.label()/>
        <h1>{section.label()}</h1>
        <Suspense fallback=|| ()>
            {move || Suspend::new(async move {
                match access.await {
                    Ok(()) => view! {
                        <section class="empty-state">
                            <h2>"Not available yet"</h2>
                            <p>{what}</p>
                        </section>
                    }.into_any(),
                    Err(error) => view! { <ErrorPanel error/> }.into_any(),
                }
            })}
        </Suspense>
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
