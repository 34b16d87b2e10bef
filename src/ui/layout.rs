//! The frame around every page: the header with the product name and the navigation, the main
//! area, and a footer that checks the connection to the server once the page is interactive.

use leptos::prelude::*;
use leptos_router::components::A;

use crate::api::check_connection;

const SECTIONS: [(&str, &str); 6] = [
    ("/", "Overview"),
    ("/operations", "Operations"),
    ("/orders", "Orders"),
    ("/approvals", "Approvals"),
    ("/reconcile", "Reconcile"),
    ("/audit", "Audit"),
];

#[component]
pub fn Layout(children: Children) -> impl IntoView {
    view! {
        <a class="skip-link" href="#main">"Skip to content"</a>
        <header class="topbar">
            <a class="brand" href="/">
                <span class="brand-mark" aria-hidden="true">"◆"</span>
                "opledger"
            </a>
            <nav aria-label="Sections">
                <ul class="nav">
                    {SECTIONS
                        .into_iter()
                        .map(|(href, label)| view! { <li><A href=href exact=true>{label}</A></li> })
                        .collect_view()}
                </ul>
            </nav>
        </header>
        <main id="main" class="page" tabindex="-1">{children()}</main>
        <footer class="footer">
            <ConnectionCheck/>
        </footer>
    }
}

/// Asks the server whether its database answers. The button only works once the page is
/// hydrated: rendered on the server it is disabled.
#[component]
fn ConnectionCheck() -> impl IntoView {
    let interactive = RwSignal::new(false);
    Effect::new(move |_| interactive.set(true));
    let check = Action::new(|_: &()| check_connection());
    let status = move || match check.value().get() {
        None if check.pending().get() => "Checking…".to_owned(),
        None => String::new(),
        Some(Ok(status)) => format!("Database {} reachable ({} ms).", status.database, status.round_trip_ms),
        Some(Err(error)) => error.to_string(),
    };
    view! {
        <div class="connection">
            <button
                type="button"
                class="button button-quiet"
                data-testid="check-connection"
                disabled=move || !interactive.get() || check.pending().get()
                on:click=move |_| {
                    check.dispatch(());
                }
            >
                "Check connection"
            </button>
            <span class="connection-status" role="status" aria-live="polite">{status}</span>
        </div>
    }
}
