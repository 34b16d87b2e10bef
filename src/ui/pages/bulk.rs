//! Bulk queries of the provider over the operations list's current filter: a preview of how many
//! operations the filter matches and how many can be queried now, a confirmation, then a page
//! that shows the run's progress and each operation's result. The page reloads itself every two
//! seconds while the run goes on.

use leptos::prelude::*;
use leptos_meta::Title;
use leptos_router::hooks::{use_params_map, use_query_map};

use crate::console::bulk::{bulk_run, preview_bulk, BulkPreview, BulkRunView, StartBulk};
use crate::console::operations::OperationFilter;
use crate::ui::components::actions::ActionResult;
use crate::ui::components::widgets::{ErrorPanel, Time, ViewerResource};
use crate::ui::pages::operations::filter_from;

#[component]
pub fn BulkPage() -> impl IntoView {
    let query = use_query_map();
    let filter = move || OperationFilter { after: None, ..query.with(filter_from) };
    let preview = Resource::new(filter, preview_bulk);
    let start = ServerAction::<StartBulk>::new();
    let viewer = expect_context::<ViewerResource>();
    view! {
        <Title text="Bulk query"/>
        <p class="breadcrumb"><a href=move || format!("/operations?{}", filter().query_string(false))>"Operations"</a>" / "</p>
        <h1>"Query the provider in bulk"</h1>
        <Suspense>
            {move || Suspend::new(async move {
                let csrf = viewer.await.ok().flatten().map(|v| v.csrf).unwrap_or_default();
                match preview.await {
                    Ok(preview) => view! { <Preview preview start csrf/> }.into_any(),
                    Err(error) => view! { <ErrorPanel error/> }.into_any(),
                }
            })}
        </Suspense>
        <ActionResult/>
    }
}

#[component]
fn Preview(preview: BulkPreview, start: ServerAction<StartBulk>, csrf: String) -> impl IntoView {
    let filter = preview.filter.query_string(false);
    let described = preview.filter.describe();
    let capped = preview.capped.then(|| {
        format!(" (only the first {} are counted; narrow the filter to reach the rest)", preview.limit)
    });
    view! {
        <section class="panel" data-testid="bulk-preview">
            <p>
                <strong data-testid="bulk-matching">{preview.matching}</strong>" operations match the filter: "{described}{capped}". "
                <strong data-testid="bulk-actionable">{preview.actionable}</strong>" of them can be queried now (unknown, needs review or silent submitted ones)."
            </p>
            <p class="muted">"Each one is looked up at its provider by its op id. Found means succeeded, with the lookup as evidence; not found changes nothing. Nothing is sent."</p>
            {let filter_field = filter.clone();
            if preview.actionable == 0 {
                view! { <p>"Nothing to do. Change the filter on the "<a href=format!("/operations?{filter}")>"operations list"</a>"."</p> }.into_any()
            } else {
                view! {
                    <ActionForm action=start attr:class="inline-form">
                        <input type="hidden" name="csrf" value=csrf/>
                        <input type="hidden" name="key" value=preview.form_key.clone()/>
                        <input type="hidden" name="filter" value=filter_field/>
                        <button type="submit" class="button" data-testid="bulk-confirm">
                            {format!("Query {} operations", preview.actionable)}
                        </button>
                    </ActionForm>
                    " "<a class="button secondary" href=format!("/operations?{filter}")>"Cancel"</a>
                }.into_any()
            }}
        </section>
    }
}

#[component]
pub fn BulkRunPage() -> impl IntoView {
    let params = use_params_map();
    let id = move || params.with(|p| p.get("id").unwrap_or_default());
    let run = Resource::new(id, bulk_run);
    view! {
        <Title text="Bulk query"/>
        <p class="breadcrumb"><a href="/operations">"Operations"</a>" / "</p>
        <h1>"Bulk query"</h1>
        <Transition>
            {move || Suspend::new(async move {
                match run.await {
                    Ok(run) => view! { <RunBody run/> }.into_any(),
                    Err(error) => view! { <ErrorPanel error/> }.into_any(),
                }
            })}
        </Transition>
    }
}

#[component]
fn RunBody(run: BulkRunView) -> impl IntoView {
    let total = run.items.len();
    let done = run.done();
    let count = |name: &str| run.items.iter().filter(|i| i.outcome.as_deref() == Some(name)).count();
    let summary = format!(
        "{} confirmed, {} not found, {} unavailable, {} refused.",
        count("confirmed"),
        count("not found"),
        count("unavailable"),
        count("refused")
    );
    let filter = run.filter.clone();
    view! {
        {run.finished_at.is_none().then(|| view! { <meta http-equiv="refresh" content="2"/> })}
        <section class="panel">
            <p>
                "Query the provider, started by "<strong>{run.requested_by.clone()}</strong>" at "<Time at=run.created_at/>
                " over "<a href=format!("/operations?{filter}")>{run.filter_description.clone()}</a>"."
            </p>
            <progress class="progress" max=total.max(1) value=if total == 0 { 1 } else { done } aria-label="Operations queried"></progress>
            <p data-testid="bulk-progress">
                {match run.finished_at {
                    Some(at) => view! { "Done: "{done}" of "{total}" at "<Time at/>". "{summary}}.into_any(),
                    None => view! { {done}" of "{total}" done…" }.into_any(),
                }}
            </p>
        </section>
        <section class="panel">
            <h2>"Results"</h2>
            <div class="table-wrap">
                <table class="table" data-testid="bulk-results">
                    <thead><tr><th scope="col">"Op id"</th><th scope="col">"Result"</th><th scope="col">"What happened"</th></tr></thead>
                    <tbody>
                        {run.items.into_iter().map(|item| view! {
                            <tr data-testid="bulk-item">
                                <td><a class="mono" href=format!("/operations/{}", item.op_id)>{item.op_id.clone()}</a></td>
                                <td>{item.outcome.clone().unwrap_or_else(|| "waiting".into())}</td>
                                <td>{item.message.clone().unwrap_or_default()}</td>
                            </tr>
                        }.into_any()).collect_view()}
                    </tbody>
                </table>
            </div>
        </section>
    }
}
