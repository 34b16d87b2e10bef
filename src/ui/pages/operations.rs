//! The operations list: every operation of the tenant, newest first, fifty to a page (keyset
//! pagination), with filters kept in the URL so that a view can be shared and the back button
//! works, and links to a bulk query and to the CSV and JSON Lines exports of the same filter. The
//! list itself is an island: once the page is interactive it follows `/live/operations` and
//! shows changes as they happen.

use leptos::prelude::*;
use leptos_meta::Title;
use leptos_router::{components::Form, hooks::use_query_map};

use crate::console::operations::{operation_facets, operations, Facets, OperationFilter, OperationPage};
use crate::domain::machine::State;
use crate::ui::components::live::follow_changes;
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
        after: get("after"),
    }
}

#[component]
pub fn Operations() -> impl IntoView {
    let query = use_query_map();
    let filter = Memo::new(move |_| query.with(filter_from));
    let page = Resource::new(move || filter.get(), operations);
    let facets = Resource::new(|| (), |_| operation_facets());
    view! {
        <Title text="Operations"/>
        <h1>"Operations"</h1>
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
            {move || if live() { "● Live: changes appear as they happen" } else { "Showing the list as loaded" }}
        </p>
        {move || view! { <OperationTable page=shown.get() filter=filter.clone()/> }}
    }
}

#[component]
fn FilterForm(filter: OperationFilter, facets: Facets) -> impl IntoView {
    let value = |v: &Option<String>| v.clone().unwrap_or_default();
    let states: Vec<(String, String)> =
        State::ALL.into_iter().map(|state| (state.as_str().to_owned(), state.label().to_owned())).collect();
    let named = |values: Vec<String>| values.into_iter().map(|v| (v.clone(), v)).collect::<Vec<_>>();
    let query = filter.query_string(false);
    view! {
        <input type="checkbox" id="filters-toggle" class="visually-hidden drawer-toggle" aria-controls="operation-filters"/>
        <label for="filters-toggle" class="button secondary drawer-button">"Filters"</label>
        <Form method="GET" action="/operations" attr:class="filters" attr:id="operation-filters" attr:aria-label="Filter operations">
            <MultiChoice name="state" label="State" values=states chosen=filter.state.clone()/>
            <MultiChoice name="kind" label="Kind" values=named(facets.kinds) chosen=filter.kind.clone()/>
            <MultiChoice name="provider" label="Provider" values=named(facets.providers) chosen=filter.provider.clone()/>
            <label>"Order"<input type="text" name="subject" value=value(&filter.subject) placeholder="order:1043" size="12"/></label>
            <label>"From (UTC)"<input type="datetime-local" name="from" value=value(&filter.from)/></label>
            <label>"To (UTC)"<input type="datetime-local" name="to" value=value(&filter.to)/></label>
            <label class="grow">"Op id or external id"<input type="search" name="q" value=value(&filter.q) placeholder="refund-A1042-li_1, re_…" data-testid="filter-q"/></label>
            <div class="filter-actions">
                <button type="submit" class="button" data-testid="apply-filters">"Apply"</button>
                <a href="/operations" class="button button-quiet">"Clear"</a>
                {facets.acts_on_operations.then(|| view! {
                    <a href=format!("/bulk?{query}") class="button button-quiet" data-testid="bulk-link">"Query these in bulk…"</a>
                })}
                <a href=format!("/operations/export.csv?{query}") class="button button-quiet" data-testid="export-operations-csv" download>"Export CSV"</a>
                <a href=format!("/operations/export.jsonl?{query}") class="button button-quiet" data-testid="export-operations-jsonl" download>"Export JSON Lines"</a>
            </div>
        </Form>
    }
}

#[component]
fn OperationTable(page: OperationPage, filter: OperationFilter) -> impl IntoView {
    if page.rows.is_empty() {
        let text = if filter.is_filtered() {
            "No operation matches these filters. Loosen them, or clear them to see every operation."
        } else {
            "No operations yet. Agents record them through the ledger API before sending them."
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
                        <th scope="col">"State"</th>
                        <th scope="col">"Op id"</th>
                        <th scope="col">"Kind"</th>
                        <th scope="col">"Order"</th>
                        <th scope="col">"Provider"</th>
                        <th scope="col" class="num">"Amount"</th>
                        <th scope="col" class="num">"Attempts"</th>
                        <th scope="col">"External ids"</th>
                        <th scope="col">"Created"</th>
                    </tr>
                </thead>
                <tbody>
                    {page.rows.into_iter().map(|row| view! {
                        <tr data-testid="operation-row" data-state=row.state.as_str()>
                            <td><StateBadge state=row.state/></td>
                            <td><a class="mono" href=format!("/operations/{}", row.op_id)>{row.op_id.clone()}</a></td>
                            <td data-label="Kind">{row.kind.clone()}</td>
                            <td data-label="Order"><a class="mono" href=format!("/orders/{}", row.subject)>{row.subject.clone()}</a></td>
                            <td data-label="Provider">{row.provider.clone()}</td>
                            <td class="num" data-label="Amount">{row.amount.clone().unwrap_or_else(|| "—".into())}</td>
                            <td class="num" data-label="Attempts">{row.attempts}</td>
                            <td class="mono" data-label="External ids">{joined_or(&row.external_ids, "—")}</td>
                            <td data-label="Created"><LocalTime at=row.created_at/></td>
                        </tr>
                    }.into_any()).collect_view()}
                </tbody>
            </table>
        </div>
        <Pager first=first_page next=next_page first_label="← First page" next_label="Next page →"/>
    }
    .into_any()
}
