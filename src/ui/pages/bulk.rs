//! Bulk queries of the provider over the operations list's current filter: a preview of how many
//! operations the filter matches and how many can be queried now, a confirmation, then a page
//! that shows the run's progress and each operation's result. The page reloads itself every two
//! seconds while the run goes on.

use leptos::prelude::*;
use leptos_meta::Title;
use leptos_router::hooks::{use_params_map, use_query_map};

use crate::console::bulk::{bulk_run, preview_bulk, BulkPreview, BulkRunView, StartBulk};
use crate::console::language::current_language;
use crate::console::operations::OperationFilter;
use crate::domain::language::Language;
use crate::t;
use crate::ui::components::actions::ActionResult;
use crate::ui::components::widgets::{slot, with_views, ErrorPanel, Time, ViewerResource};
use crate::ui::pages::operations::filter_from;

/// A bulk item's outcome in words (`confirmed`, `not found`, `unavailable`, `refused`, as the run
/// records them); waiting when it has none yet.
fn outcome_words(outcome: Option<&str>, language: Language) -> String {
    match outcome {
        None => t!(language, "bulk-outcome-waiting"),
        Some("confirmed") => t!(language, "bulk-outcome-confirmed"),
        Some("not found") => t!(language, "bulk-outcome-not-found"),
        Some("unavailable") => t!(language, "bulk-outcome-unavailable"),
        Some("refused") => t!(language, "bulk-outcome-refused"),
        Some(other) => other.to_owned(),
    }
}

#[component]
pub fn BulkPage() -> impl IntoView {
    let query = use_query_map();
    let filter = move || OperationFilter { after: None, ..query.with(filter_from) };
    let preview = Resource::new(filter, preview_bulk);
    let start = ServerAction::<StartBulk>::new();
    let viewer = expect_context::<ViewerResource>();
    let language = current_language();
    view! {
        <Title text=t!(language, "bulk-title")/>
        <p class="breadcrumb"><a href=move || format!("/operations?{}", filter().query_string(false))>{t!(language, "section-operations")}</a>" / "</p>
        <h1>{t!(language, "bulk-heading")}</h1>
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
    let language = current_language();
    let counts = if preview.capped {
        t!(
            language,
            "bulk-preview-counts-capped",
            matching = slot(0),
            filter = described,
            limit = language.count(u64::from(preview.limit)),
            actionable = slot(1),
        )
    } else {
        t!(
            language,
            "bulk-preview-counts",
            n = preview.matching,
            matching = slot(0),
            filter = described,
            actionable = slot(1),
        )
    };
    let numbers = vec![
        view! { <strong data-testid="bulk-matching">{preview.matching}</strong> }.into_any(),
        view! { <strong data-testid="bulk-actionable">{preview.actionable}</strong> }.into_any(),
    ];
    view! {
        <section class="panel" data-testid="bulk-preview">
            <p>{with_views(counts, numbers)}</p>
            <p class="muted">{t!(language, "bulk-preview-how")}</p>
            {let filter_field = filter.clone();
            if preview.actionable == 0 {
                let list = view! { <a href=format!("/operations?{filter}")>{t!(language, "bulk-operations-list")}</a> }.into_any();
                view! { <p>{with_views(t!(language, "bulk-nothing-to-do", list = slot(0)), vec![list])}</p> }.into_any()
            } else {
                view! {
                    <ActionForm action=start attr:class="inline-form">
                        <input type="hidden" name="csrf" value=csrf/>
                        <input type="hidden" name="key" value=preview.form_key.clone()/>
                        <input type="hidden" name="filter" value=filter_field/>
                        <button type="submit" class="button" data-testid="bulk-confirm">
                            {t!(language, "bulk-confirm", count = preview.actionable)}
                        </button>
                    </ActionForm>
                    " "<a class="button secondary" href=format!("/operations?{filter}")>{t!(language, "bulk-cancel")}</a>
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
    let language = current_language();
    view! {
        <Title text=t!(language, "bulk-title")/>
        <p class="breadcrumb"><a href="/operations">{t!(language, "section-operations")}</a>" / "</p>
        <h1>{t!(language, "bulk-title")}</h1>
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
    let language = current_language();
    let total = run.items.len();
    let done = run.done();
    let count = |name: &str| run.items.iter().filter(|i| i.outcome.as_deref() == Some(name)).count();
    let summary = t!(
        language,
        "bulk-summary",
        confirmed = count("confirmed"),
        not_found = count("not found"),
        unavailable = count("unavailable"),
        refused = count("refused"),
    );
    let filter = run.filter.clone();
    let started = t!(language, "bulk-run-started", who = slot(0), time = slot(1), filter = slot(2));
    let started_views = vec![
        view! { <strong>{run.requested_by.clone()}</strong> }.into_any(),
        view! { <Time at=run.created_at/> }.into_any(),
        view! { <a href=format!("/operations?{filter}")>{run.filter_description.clone()}</a> }.into_any(),
    ];
    view! {
        {run.finished_at.is_none().then(|| view! { <meta http-equiv="refresh" content="2"/> })}
        <section class="panel">
            <p>{with_views(started, started_views)}</p>
            <progress class="progress" max=total.max(1) value=if total == 0 { 1 } else { done } aria-label=t!(language, "bulk-progress-label")></progress>
            <p data-testid="bulk-progress">
                {match run.finished_at {
                    Some(at) => with_views(
                        t!(language, "bulk-done", done = done, total = total, time = slot(0), summary = summary),
                        vec![view! { <Time at/> }.into_any()],
                    ),
                    None => vec![t!(language, "bulk-running", done = done, total = total).into_any()],
                }}
            </p>
        </section>
        <section class="panel">
            <h2>{t!(language, "bulk-results")}</h2>
            <div class="table-wrap">
                <table class="table" data-testid="bulk-results">
                    <thead><tr>
                        <th scope="col">{t!(language, "bulk-col-op-id")}</th>
                        <th scope="col">{t!(language, "bulk-col-result")}</th>
                        <th scope="col">{t!(language, "bulk-col-what-happened")}</th>
                    </tr></thead>
                    <tbody>
                        {run.items.into_iter().map(|item| view! {
                            <tr data-testid="bulk-item">
                                <td><a class="mono" href=format!("/operations/{}", item.op_id)>{item.op_id.clone()}</a></td>
                                <td>{outcome_words(item.outcome.as_deref(), language)}</td>
                                <td>{item.message.clone().unwrap_or_default()}</td>
                            </tr>
                        }.into_any()).collect_view()}
                    </tbody>
                </table>
            </div>
        </section>
    }
}
