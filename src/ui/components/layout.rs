//! The frame around every page: the header with the product name, the sections the viewer's role
//! opens, who is signed in with a sign-out button, the main area, a footer that checks the
//! connection to the server once the page is interactive, and the island that sends the page's
//! forms in the background ([`crate::ui::components::form_helper`]).

use leptos::prelude::*;
use leptos_router::components::A;

use crate::console::shell::{check_connection, Viewer};
use crate::domain::policy::Section;
use crate::ui::components::form_helper::FormHelper;
use crate::ui::components::widgets::ViewerResource;

#[component]
pub fn Layout(children: Children) -> impl IntoView {
    let viewer = expect_context::<ViewerResource>();
    let signed_in = move || {
        Suspend::new(async move { viewer.await.ok().flatten().map(|v| view! { <SignedInBar viewer=v/> }) })
    };
    view! {
        <a class="skip-link" href="#main">"Skip to content"</a>
        <header class="topbar">
            <a class="brand" href="/">
                <span class="brand-mark" aria-hidden="true">"◆"</span>
                "opledger"
            </a>
            <Suspense fallback=|| ()>{signed_in}</Suspense>
        </header>
        <main id="main" class="page" tabindex="-1">{children()}</main>
        <FormHelper/>
        <footer class="footer">
            <Suspense fallback=|| ()>
                {move || Suspend::new(async move { viewer.await.ok().flatten().map(|_| view! { <ConnectionCheck/> }) })}
            </Suspense>
        </footer>
    }
}

#[component]
fn SignedInBar(viewer: Viewer) -> impl IntoView {
    let sections: Vec<Section> = Section::ALL.into_iter().filter(|s| s.allows(viewer.role)).collect();
    view! {
        <nav aria-label="Sections">
            <ul class="nav">
                {sections
                    .into_iter()
                    .map(|section| view! { <li><A href=section.path() exact=section == Section::Overview>{section.label()}</A></li> })
                    .collect_view()}
            </ul>
        </nav>
        <form class="whoami" method="post" action="/logout">
            <span data-testid="whoami">
                <strong>{viewer.name.clone()}</strong>
                " · "{viewer.role.as_str()}" · "{viewer.tenant.clone()}
            </span>
            <input type="hidden" name="csrf" value=viewer.csrf.clone()/>
            <button type="submit" class="button button-on-dark">"Sign out"</button>
        </form>
    }
}

/// Asks the server whether its database answers. An island: the button only works once the page
/// is hydrated, and rendered on the server it is disabled.
#[island]
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
