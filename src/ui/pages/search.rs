//! The search page: what starts with the words typed into the top bar's search box (`/` moves
//! there from anywhere), grouped into orders, operations (by op id or external id) and people.

use leptos::prelude::*;
use leptos_meta::Title;
use leptos_router::hooks::use_query_map;

use crate::console::language::current_language;
use crate::console::search::{search, FoundOperation, SearchResults};
use crate::t;
use crate::ui::components::widgets::{slot, with_views, ErrorPanel, StateBadge};

#[component]
pub fn SearchPage() -> impl IntoView {
    let query = use_query_map();
    let words = move || query.with(|q| q.get("q").unwrap_or_default());
    let results = Resource::new(words, search);
    let language = current_language();
    view! {
        <Title text=t!(language, "search-page-title")/>
        <h1>{t!(language, "search-page-title")}</h1>
        <Suspense>
            {move || Suspend::new(async move {
                match results.await {
                    Ok(results) => view! { <Results results/> }.into_any(),
                    Err(error) => view! { <ErrorPanel error/> }.into_any(),
                }
            })}
        </Suspense>
    }
}

#[component]
fn Results(results: SearchResults) -> impl IntoView {
    let language = current_language();
    if results.searched.is_empty() {
        return view! {
            <section class="empty-state" data-testid="empty">
                <p>{t!(language, "search-page-how")}</p>
            </section>
        }
        .into_any();
    }
    if results.is_empty() {
        let text = t!(language, "search-page-nothing", words = &results.searched, list = slot(0));
        let list =
            view! { <a href="/operations">{t!(language, "search-page-operations-list")}</a> }.into_any();
        return view! {
            <section class="empty-state" data-testid="empty">
                <p>{with_views(text, vec![list])}</p>
            </section>
        }
        .into_any();
    }
    let audit = results.people_link_to_audit;
    view! {
        <p class="lede" data-testid="searched">{t!(language, "search-page-searched", words = &results.searched)}</p>
        {(!results.orders.is_empty()).then(|| view! {
            <section class="panel" aria-labelledby="found-orders">
                <h2 id="found-orders">{t!(language, "section-orders")}</h2>
                <ul class="compact-list" data-testid="found-orders">
                    {results.orders.into_iter().map(|subject| view! {
                        <li><a class="mono" href=format!("/orders/{subject}")>{subject.clone()}</a></li>
                    }.into_any()).collect_view()}
                </ul>
            </section>
        })}
        {(!results.operations.is_empty()).then(|| view! {
            <section class="panel" aria-labelledby="found-operations">
                <h2 id="found-operations">{t!(language, "section-operations")}</h2>
                <ul class="compact-list" data-testid="found-operations">
                    {results.operations.into_iter().map(|found| view! { <FoundRow found/> }).collect_view()}
                </ul>
            </section>
        })}
        {(!results.people.is_empty()).then(|| view! {
            <section class="panel" aria-labelledby="found-people">
                <h2 id="found-people">{t!(language, "search-page-people")}</h2>
                <ul class="compact-list" data-testid="found-people">
                    {results.people.into_iter().map(|name| view! {
                        <li>{if audit {
                            view! { <a href=format!("/audit?actor={name}")>{name.clone()}</a>" "<span class="muted">{t!(language, "search-page-in-audit")}</span> }.into_any()
                        } else {
                            view! { <span>{name.clone()}</span> }.into_any()
                        }}</li>
                    }.into_any()).collect_view()}
                </ul>
            </section>
        })}
    }
    .into_any()
}

#[component]
fn FoundRow(found: FoundOperation) -> impl IntoView {
    let language = current_language();
    let href = format!("/operations/{}", found.op_id);
    view! {
        <li data-testid="found-operation">
            {found.state.map(|state| view! { <StateBadge state/>" " })}
            <a class="mono" href=href>{found.op_id.clone()}</a>
            {found.kind.map(|kind| view! { " "<span class="muted">{kind}</span> })}
            {found.external_id.map(|id| view! { " "<span class="muted">{t!(language, "search-page-external-id")}" "</span><code>{id}</code> })}
            {found.archived.then(|| view! { " "<span class="badge" data-testid="found-archived">{t!(language, "search-page-archived")}</span> })}
        </li>
    }
}
