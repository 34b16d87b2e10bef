//! The frame around every page: the header with the product name, the sections the viewer's role
//! opens (with the number of approvals waiting), who is signed in with a sign-out button, the main
//! area, a footer island that follows changes and speaks up only when the connection is lost
//! ([`crate::ui::components::live`]), and the island that sends the page's forms in the
//! background ([`crate::ui::components::form_helper`]).

use leptos::prelude::*;
use leptos_router::components::A;

use crate::console::shell::Viewer;
use crate::domain::policy::Section;
use crate::ui::components::form_helper::FormHelper;
use crate::ui::components::live::ConnectionState;
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
                {move || Suspend::new(async move { viewer.await.ok().flatten().map(|_| view! { <ConnectionState/> }) })}
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
                    .map(|section| {
                        let waiting = (section == Section::Approvals).then_some(viewer.approvals_waiting).flatten().filter(|n| *n > 0);
                        view! {
                            <li><A href=section.path() exact=section == Section::Overview>
                                {section.label()}
                                {waiting.map(|n| view! { " "<span class="nav-count" data-testid="approvals-waiting">{n}<span class="visually-hidden">" waiting"</span></span> })}
                            </A></li>
                        }
                    })
                    .collect_view()}
            </ul>
        </nav>
        <form class="search" role="search" method="get" action="/search">
            <label class="visually-hidden" for="global-search">"Search orders, operations, external ids and people"</label>
            <input id="global-search" type="search" name="q" placeholder="Search (press /)" autocomplete="off"
                aria-keyshortcuts="/" data-testid="global-search"/>
        </form>
        <form class="whoami" method="post" action="/logout">
            <span data-testid="whoami">
                <strong>{viewer.name.clone()}</strong>
                <span class="whoami-detail">" · "{viewer.role.as_str()}" · "{viewer.tenant.clone()}</span>
            </span>
            <input type="hidden" name="csrf" value=viewer.csrf.clone()/>
            <button type="submit" class="button button-on-dark">"Sign out"</button>
        </form>
    }
}
