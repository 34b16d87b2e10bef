//! The operations list: every operation of the tenant, newest first, fifty to a page (keyset
//! pagination), with filters kept in the URL so that a view can be shared and the back button
//! works, and links to a bulk query and to the CSV and JSON Lines exports of the same filter. The
//! list itself is an island: once the page is interactive it follows `/live/operations` and
//! shows changes as they happen. Above it, the viewer's saved views, and the form that saves the
//! filters as one.

use leptos::prelude::*;
use leptos_meta::Title;
use leptos_router::{components::Form, hooks::use_query_map};

use crate::console::language::current_language;
use crate::console::operations::{
    operation_facets, operations, Facets, OperationFilter, OperationPage, HELD_MINE, HELD_NOBODY,
};
use crate::domain::machine::State;
use crate::t;
use crate::ui::components::actions::ActionResult;
use crate::ui::components::live::follow_changes;
use crate::ui::components::saved_views::SavedViewsPanel;
use crate::ui::components::widgets::{
    chosen_in, joined_or, EmptyState, ErrorPanel, LocalTime, MultiChoice, Pager, StateBadge,
};

/// The operations list's filter from a page's URL query. A filter of a closed set may come as
/// several `name=value` (the form's checkboxes) or as one comma-separated value (a shared link).
pub fn filter_from(query: &leptos_router::params::ParamsMap) -> OperationFilter {
    let get = |name: &str| query.get(name).filter(|v| !v.trim().is_empty());
    OperationFilter {
        state: chosen_in(query, "state"),
        kind: chosen_in(query, "kind"),
        provider: chosen_in(query, "provider"),
        subject: get("subject"),
        q: get("q"),
        from: get("from"),
        to: get("to"),
        held: get("held"),
        after: get("after"),
    }
}

#[component]
pub fn Operations() -> impl IntoView {
    let query = use_query_map();
    let filter = Memo::new(move |_| query.with(filter_from));
    let page = Resource::new(move || filter.get(), operations);
    let facets = Resource::new(|| (), |_| operation_facets());
    let language = current_language();
    view! {
        <Title text=t!(language, "operations-title")/>
        <h1>{t!(language, "operations-title")}</h1>
        <ActionResult/>
        {move || {
            let filter = filter.get();
            let save_filter = filter.is_filtered().then(|| filter.query_string(false));
            view! { <SavedViewsPanel compact=true save_filter/> }
        }}
        <Suspense>
            {move || Suspend::new(async move {
                let facets = facets.await.unwrap_or_default();
                view! { <FilterForm filter=filter.get() facets/> }
            })}
        </Suspense>
        <Suspense>
            {move || Suspend::new(async move {
                match page.await {
                    Ok(page) => view! { <LiveOperations page filter=filter.get_untracked()/> }.into_any(),
                    Err(error) => view! { <ErrorPanel error/> }.into_any(),
                }
            })}
        </Suspense>
    }
}

/// The list as loaded, then, once the page is interactive, as it stands: the island follows
/// `/live/operations` and reads the same page of the list again whenever operations change.
#[island]
fn LiveOperations(page: OperationPage, filter: OperationFilter) -> impl IntoView {
    let language = current_language();
    let shown = RwSignal::new(page);
    let connected = RwSignal::new(None::<bool>);
    let live = move || connected.get() == Some(true);
    let changes = RwSignal::new(0u32);
    follow_changes(changes, RwSignal::new(String::new()), connected);
    let reread = filter.clone();
    Effect::new(move |previous: Option<u32>| {
        let count = changes.get();
        if previous.is_some_and(|previous| previous != count) {
            let filter = reread.clone();
            leptos::task::spawn_local(async move {
                if let Ok(page) = operations(filter).await {
                    shown.set(page);
                }
            });
        }
        count
    });
    view! {
        <p class="live" data-testid="live" data-live-list="" class:on=live>
            {move || if live() { t!(language, "operations-live-on") } else { t!(language, "operations-live-off") }}
        </p>
        {move || view! { <OperationTable page=shown.get() filter=filter.clone()/> }}
    }
}

#[component]
fn FilterForm(filter: OperationFilter, facets: Facets) -> impl IntoView {
    let language = current_language();
    let value = |v: &Option<String>| v.clone().unwrap_or_default();
    let states: Vec<(String, String)> =
        State::ALL.into_iter().map(|state| (state.as_str().to_owned(), state.label_in(language))).collect();
    let named = |values: Vec<String>| values.into_iter().map(|v| (v.clone(), v)).collect::<Vec<_>>();
    let query = filter.query_string(false);
    view! {
        <input type="checkbox" id="filters-toggle" class="visually-hidden drawer-toggle" aria-controls="operation-filters"/>
        <label for="filters-toggle" class="button secondary drawer-button">{t!(language, "operations-filters")}</label>
        <Form method="GET" action="/operations" attr:class="filters" attr:id="operation-filters" attr:aria-label=t!(language, "operations-filter-label")>
            <MultiChoice name="state" label=t!(language, "operations-state") values=states chosen=filter.state.clone()/>
            <MultiChoice name="kind" label=t!(language, "operations-kind") values=named(facets.kinds) chosen=filter.kind.clone()/>
            <MultiChoice name="provider" label=t!(language, "operations-provider") values=named(facets.providers) chosen=filter.provider.clone()/>
            <label>{t!(language, "operations-order")}<input type="text" name="subject" value=value(&filter.subject) placeholder="order:1043" size="12"/></label>
            <label>{t!(language, "operations-from")}<input type="datetime-local" name="from" value=value(&filter.from)/></label>
            <label>{t!(language, "operations-to")}<input type="datetime-local" name="to" value=value(&filter.to)/></label>
            <HeldChoice held=filter.held.clone() holders=facets.holders/>
            <label class="grow">{t!(language, "operations-search")}<input type="search" name="q" value=value(&filter.q) placeholder="refund-A1042-li_1, re_…" data-testid="filter-q"/></label>
            <div class="filter-actions">
                <button type="submit" class="button" data-testid="apply-filters">{t!(language, "operations-apply")}</button>
                <a href="/operations" class="button button-quiet">{t!(language, "operations-clear")}</a>
                {facets.acts_on_operations.then(|| view! {
                    <a href=format!("/bulk?{query}") class="button button-quiet" data-testid="bulk-link">{t!(language, "operations-bulk")}</a>
                })}
                <a href=format!("/operations/export.csv?{query}") class="button button-quiet" data-testid="export-operations-csv" download>{t!(language, "operations-export-csv")}</a>
                <a href=format!("/operations/export.jsonl?{query}") class="button button-quiet" data-testid="export-operations-jsonl" download>{t!(language, "operations-export-jsonl")}</a>
            </div>
        </Form>
    }
}

/// The `held` filter: anyone's, the viewer's own, nobody's, or one person's.
#[component]
fn HeldChoice(held: Option<String>, holders: Vec<String>) -> impl IntoView {
    let language = current_language();
    let chosen = held.unwrap_or_default();
    let option = |value: String, label: String| {
        let selected = value == chosen;
        view! { <option value=value selected=selected>{label}</option> }
    };
    view! {
        <label>{t!(language, "operations-held")}
            <select name="held" data-testid="filter-held">
                {option(String::new(), t!(language, "operations-held-anyone"))}
                {option(HELD_MINE.to_owned(), t!(language, "operations-held-mine"))}
                {option(HELD_NOBODY.to_owned(), t!(language, "operations-held-nobody"))}
                {holders.into_iter().map(|name| option(name.clone(), name)).collect_view()}
            </select>
        </label>
    }
}

#[component]
fn OperationTable(page: OperationPage, filter: OperationFilter) -> impl IntoView {
    let language = current_language();
    if page.rows.is_empty() {
        let text = if filter.is_filtered() {
            t!(language, "operations-empty-filtered")
        } else {
            t!(language, "operations-empty")
        };
        return view! { <EmptyState text/> }.into_any();
    }
    let first_page = filter.after.is_some().then(|| format!("/operations?{}", filter.query_string(false)));
    let next_page = page.next.clone().map(|cursor| {
        let next = OperationFilter { after: Some(cursor), ..filter.clone() };
        format!("/operations?{}", next.query_string(true))
    });
    view! {
        <div class="table-wrap">
            <table class="table" data-testid="operations">
                <thead>
                    <tr>
                        <th scope="col">{t!(language, "operations-state")}</th>
                        <th scope="col">{t!(language, "operations-op-id")}</th>
                        <th scope="col">{t!(language, "operations-kind")}</th>
                        <th scope="col">{t!(language, "operations-order")}</th>
                        <th scope="col">{t!(language, "operations-provider")}</th>
                        <th scope="col" class="num">{t!(language, "operations-amount")}</th>
                        <th scope="col" class="num">{t!(language, "operations-attempts")}</th>
                        <th scope="col">{t!(language, "operations-external-ids")}</th>
                        <th scope="col">{t!(language, "operations-held-by")}</th>
                        <th scope="col">{t!(language, "operations-created")}</th>
                    </tr>
                </thead>
                <tbody>
                    {page.rows.into_iter().map(|row| view! {
                        <tr data-testid="operation-row" data-state=row.state.as_str()>
                            <td><StateBadge state=row.state/></td>
                            <td><a class="mono" href=format!("/operations/{}", row.op_id)>{row.op_id.clone()}</a></td>
                            <td data-label=t!(language, "operations-kind")>{row.kind.clone()}</td>
                            <td data-label=t!(language, "operations-order")><a class="mono" href=format!("/orders/{}", row.subject)>{row.subject.clone()}</a></td>
                            <td data-label=t!(language, "operations-provider")>{row.provider.clone()}</td>
                            <td class="num" data-label=t!(language, "operations-amount")>{row.amount.clone().unwrap_or_else(|| t!(language, "none"))}</td>
                            <td class="num" data-label=t!(language, "operations-attempts")>{row.attempts}</td>
                            <td class="mono" data-label=t!(language, "operations-external-ids")>{joined_or(&row.external_ids, &t!(language, "none"))}</td>
                            <td data-label=t!(language, "operations-held-by") data-testid="held-by">{row.held_by.clone().unwrap_or_else(|| t!(language, "operations-held-none"))}</td>
                            <td data-label=t!(language, "operations-created")><LocalTime at=row.created_at/></td>
                        </tr>
                    }.into_any()).collect_view()}
                </tbody>
            </table>
        </div>
        <Pager first=first_page next=next_page first_label=t!(language, "pager-first") next_label=t!(language, "pager-next")/>
    }
    .into_any()
}
