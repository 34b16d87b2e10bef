//! The frame around every page: the header with the product name, the sections the viewer's role
//! opens (with the number of approvals waiting), the search, the language menu, who is signed in
//! with a sign-out button, the main area, a footer island that follows changes and speaks up only
//! when the connection is lost ([`crate::ui::components::live`]), and the island that sends the
//! page's forms in the background ([`crate::ui::components::form_helper`]).

use leptos::prelude::*;
use leptos_router::{components::A, hooks::use_location};

use crate::console::language::current_language;
use crate::console::shell::Viewer;
use crate::domain::language::Language;
use crate::domain::policy::Section;
use crate::t;
use crate::ui::components::form_helper::FormHelper;
use crate::ui::components::live::ConnectionState;
use crate::ui::components::widgets::ViewerResource;

#[component]
pub fn Layout(children: Children) -> impl IntoView {
    let viewer = expect_context::<ViewerResource>();
    let language = current_language();
    let signed_in = move || {
        Suspend::new(async move { viewer.await.ok().flatten().map(|v| view! { <SignedInBar viewer=v/> }) })
    };
    view! {
        <a class="skip-link" href="#main">{t!(language, "skip-to-content")}</a>
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
    let language = current_language();
    let sections: Vec<Section> = Section::ALL.into_iter().filter(|s| s.allows(viewer.role)).collect();
    view! {
        <nav aria-label=t!(language, "nav-label")>
            <ul class="nav">
                {sections
                    .into_iter()
                    .map(|section| {
                        let waiting = (section == Section::Approvals).then_some(viewer.approvals_waiting).flatten().filter(|n| *n > 0);
                        view! {
                            <li><A href=section.path() exact=section == Section::Overview>
                                {section.label(language)}
                                {waiting.map(|n| view! {
                                    " "<span class="nav-count" data-testid="approvals-waiting">
                                        <span aria-hidden="true">{n}</span>
                                        <span class="visually-hidden">{t!(language, "approvals-waiting", count = n)}</span>
                                    </span>
                                })}
                            </A></li>
                        }
                    })
                    .collect_view()}
            </ul>
        </nav>
        <form class="search" role="search" method="get" action="/search">
            <label class="visually-hidden" for="global-search">{t!(language, "search-label")}</label>
            <input id="global-search" type="search" name="q" placeholder=t!(language, "search-placeholder") autocomplete="off"
                aria-keyshortcuts="/" data-testid="global-search"/>
        </form>
        <LanguageMenu csrf=viewer.csrf.clone() chosen=viewer.language/>
        <form class="whoami" method="post" action="/logout">
            <a href="/account" data-testid="whoami" title=t!(language, "account-title")>
                <strong>{viewer.name.clone()}</strong>
                <span class="visually-hidden">" · "{t!(language, "account-title")}</span>
                <span class="whoami-detail">{viewer.role.label_in(language)}" · "{viewer.tenant.clone()}</span>
            </a>
            <input type="hidden" name="csrf" value=viewer.csrf.clone()/>
            <button type="submit" class="button button-on-dark">{t!(language, "sign-out")}</button>
        </form>
    }
}

/// The header's language menu: the language shown names the menu; each choice is a button of a
/// form that keeps it for the user and comes back to this page (no script needed).
#[component]
fn LanguageMenu(csrf: String, chosen: Option<Language>) -> impl IntoView {
    let language = current_language();
    let location = use_location();
    let (path, query) = (location.pathname.get_untracked(), location.search.get_untracked());
    let here = if query.is_empty() { path } else { format!("{path}?{query}") };
    view! {
        <details class="language-menu" data-testid="language-menu">
            <summary>
                <span class="visually-hidden">{t!(language, "language-label")}": "</span>
                <span lang=language.tag()>{language.own_name()}</span>
            </summary>
            <form method="post" action="/language">
                <input type="hidden" name="csrf" value=csrf/>
                <input type="hidden" name="next" value=here/>
                <ul role="list">
                    {Language::ALL
                        .into_iter()
                        .map(|option| view! {
                            <li>
                                <button type="submit" name="language" value=option.tag() class="menu-item" lang=option.tag()
                                    aria-current=(chosen == Some(option)).then_some("true")
                                    data-testid=format!("language-{}", option.tag())>
                                    {option.own_name()}
                                </button>
                            </li>
                        })
                        .collect_view()}
                    <li>
                        <button type="submit" name="language" value="" class="menu-item"
                            aria-current=chosen.is_none().then_some("true") data-testid="language-browser">
                            {t!(language, "language-follow-browser")}
                        </button>
                    </li>
                </ul>
            </form>
        </details>
    }
}
